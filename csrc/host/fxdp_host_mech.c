/*
 * fxdp_host_mech.c -- host-only fleet loops over the layer-4 mechanisms
 * (declared in fxdp_host.h, "mechanism fleets"): one cffi call runs a whole
 * simulated fleet, device by device, through the firmware entry points
 * (fxdp_rr_bool[_ct], fxdp_rr[_ct], fxdp_rappor[_ct], fxdp_unary_encoding[_ct],
 * fxdp_hadamard_response[_ct], fxdp_subset_selection[_ct], fxdp_local_hashing[_ct],
 * fxdp_duchi[_ct], fxdp_piecewise[_ct], fxdp_hybrid[_ct],
 * fxdp_square_wave[_ct], fxdp_numeric_multidim[_ct], fxdp_geometric[_ct]),
 * exactly as firmware would.  Not part of the firmware library.
 *
 * Device i: fxdp_rng_init_stream(seed[8], seed, device_ids[i], stream 0) (seed words: 8 key words,
 * then the stream version; a bad version leaves a dead rng), then the
 * counter is set to first_block (0 for the real stream; tests move it near
 * 0xFFFFFFFF to make the keystream run out), then one release of its input
 * row.  status[i] = that release's fxdp_status; its output row is written
 * only on FXDP_OK; bits_used[i] (if bits_used is not NULL) = the stream
 * position afterwards, counter*512 - (16 - word_pos)*32 - bitcount.
 */
#include "fxdp_host.h"
#include "fxdp_host_fleet.h"

fxdp_status fxdp_host_fleet_run(const fxdp_host_fleet *f, const uint64_t *device_ids, uint32_t first_block,
                                fxdp_host_device_fn device, uint8_t *status, uint64_t *bits_used)
{
    fxdp_status first = FXDP_OK;
    size_t i;

    if (f->seed == NULL || f->cfg == NULL ||
        (f->n != 0u && (device_ids == NULL || f->x == NULL || f->out == NULL || status == NULL))) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < f->n; i++) {
        fxdp_rng r;
        uint64_t id = device_ids[i];
        /* a bad stream version leaves a dead rng: the release reports it */
        (void)fxdp_rng_init_stream(&r, f->seed[8], f->seed, (uint32_t)(id & 0xFFFFFFFFu), (uint32_t)(id >> 32), 0u);
        r.counter = first_block;
        status[i] = (uint8_t)device(f, &r, id, i);
        if (first == FXDP_OK) {
            first = (fxdp_status)status[i];
        }
        if (bits_used != NULL) {
            bits_used[i] = fxdp_rng_position(&r);
        }
    }
    return first;
}

/* NAME: device i's one release FN[_ct](r, cfg, x + i * X_ROW, out + i * OUT_ROW) (rows in elements). */
#define FLEET_DEVICE(NAME, FN, FN_CT, CFG_T, X_T, OUT_T, X_ROW, OUT_ROW)                                  \
    static fxdp_status NAME(const fxdp_host_fleet *f, fxdp_rng *r, uint64_t id, size_t i)                  \
    {                                                                                                      \
        const CFG_T *cfg = (const CFG_T *)f->cfg;                                                          \
        (void)id;                                                                                          \
        return (f->ct ? FN_CT : FN)(r, cfg, (const X_T *)f->x + i * (X_ROW), (OUT_T *)f->out + i * (OUT_ROW)); \
    }

static fxdp_status rr_device(const fxdp_host_fleet *f, fxdp_rng *r, uint64_t id, size_t i)
{
    const fxdp_rr_cfg *cfg = (const fxdp_rr_cfg *)f->cfg;
    const uint32_t *x = (const uint32_t *)f->x + i;
    uint32_t *out = (uint32_t *)f->out + i;

    (void)id;
    if (f->ct && *x == cfg->t) {
        /* not a category: the host answers uniformly (RandomizedResponse.release_index) */
        return fxdp_uniform_below_u32(r, cfg->t, out);
    }
    return (f->ct ? fxdp_rr_ct : fxdp_rr)(r, cfg, x, out);
}

/* One public entry point per line of fxdp_host_fleets.h (prototypes in fxdp_host.h): device
 * i's release through the family's device function, one round a device. */
#define FLEET_ENTRY(KIND, CFG_T, X_T, OUT_T, DEVICE)                                                      \
    fxdp_status fxdp_fleet_##KIND(const uint32_t seed[9], const uint64_t *device_ids, size_t n,           \
                                  uint32_t first_block, const CFG_T *cfg, int ct, const X_T *x,          \
                                  OUT_T *out, uint8_t *status, uint64_t *bits_used)                      \
    {                                                                                                      \
        const fxdp_host_fleet f = {seed, n, 1u, cfg, ct, x, out};                                         \
        return fxdp_host_fleet_run(&f, device_ids, first_block, DEVICE, status, bits_used);              \
    }

#define FLEET(KIND, ENTRY, CFG_T, X_T, OUT_T, X_ROW, OUT_ROW, X_MAX, OUT_MAX)                              \
    FLEET_DEVICE(KIND##_device, ENTRY, ENTRY##_ct, CFG_T, X_T, OUT_T, X_ROW, OUT_ROW)                      \
    FLEET_ENTRY(KIND, CFG_T, X_T, OUT_T, KIND##_device)
#define FLEET_CUSTOM(KIND, ENTRY, CFG_T, X_T, OUT_T, DEVICE, X_MAX, OUT_MAX) \
    FLEET_ENTRY(KIND, CFG_T, X_T, OUT_T, DEVICE)
#include "fxdp_host_fleets.h"
#undef FLEET
#undef FLEET_CUSTOM
