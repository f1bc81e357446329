/*
 * fxdp_host_mech.c -- host-only fleet loops over the layer-4 mechanisms
 * (declared in fxdp_host.h, "mechanism fleets"): one cffi call runs a whole
 * simulated fleet, device by device, through the firmware entry points
 * (fxdp_rr_bool[_ct], fxdp_rr[_ct], fxdp_rappor[_ct], fxdp_unary_encoding[_ct],
 * fxdp_hadamard_response[_ct], fxdp_subset_selection[_ct], fxdp_local_hashing[_ct],
 * fxdp_duchi[_ct], fxdp_piecewise[_ct], fxdp_hybrid[_ct],
 * fxdp_square_wave[_ct], fxdp_numeric_md[_ct], fxdp_geometric[_ct]),
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

FLEET_DEVICE(rr_bool_device, fxdp_rr_bool, fxdp_rr_bool_ct, fxdp_rr_bool_cfg, uint8_t, uint8_t, 1u, 1u)
FLEET_DEVICE(rappor_device, fxdp_rappor, fxdp_rappor_ct, fxdp_rappor_cfg, uint8_t, uint8_t, (size_t)cfg->k,
             (size_t)cfg->k)
FLEET_DEVICE(ue_device, fxdp_unary_encoding, fxdp_unary_encoding_ct, fxdp_ue_cfg, uint32_t, uint8_t, 1u,
             (size_t)cfg->d)
FLEET_DEVICE(hr_device, fxdp_hadamard_response, fxdp_hadamard_response_ct, fxdp_hr_cfg, uint32_t, uint32_t, 1u, 1u)
/* Device i writes out[i * k .. i * k + k) (k = cfg->k indices); rows of failed devices are left as they were. */
FLEET_DEVICE(ss_device, fxdp_subset_selection, fxdp_subset_selection_ct, fxdp_ss_cfg, uint32_t, uint16_t, 1u,
             (size_t)cfg->k)
FLEET_DEVICE(lh_device, fxdp_local_hashing, fxdp_local_hashing_ct, fxdp_lh_cfg, uint32_t, uint32_t, 1u, 3u)
FLEET_DEVICE(duchi_device, fxdp_duchi, fxdp_duchi_ct, fxdp_duchi_cfg, uint32_t, uint8_t, 1u, 1u)
FLEET_DEVICE(pm_device, fxdp_piecewise, fxdp_piecewise_ct, fxdp_pm_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET_DEVICE(sw_device, fxdp_square_wave, fxdp_square_wave_ct, fxdp_sw_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET_DEVICE(hm_device, fxdp_hybrid, fxdp_hybrid_ct, fxdp_hm_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET_DEVICE(md_device, fxdp_numeric_md, fxdp_numeric_md_ct, fxdp_md_cfg, uint32_t, uint32_t, (size_t)cfg->d,
             2u * (size_t)cfg->k)
FLEET_DEVICE(geo_device, fxdp_geometric, fxdp_geometric_ct, fxdp_geometric_cfg, int64_t, int64_t, (size_t)cfg->n,
             (size_t)cfg->n)

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

/* The fleet a public entry point was handed (one round a device). */
#define FLEET(cfg, ct, x, out) {seed, n, 1u, (cfg), (ct), (x), (out)}

fxdp_status fxdp_fleet_rr_bool(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                               const fxdp_rr_bool_cfg *cfg, int ct, const uint8_t *x, uint8_t *out,
                               uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, rr_bool_device, status, bits_used);
}

fxdp_status fxdp_fleet_rr(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                          const fxdp_rr_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                          uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, rr_device, status, bits_used);
}

fxdp_status fxdp_fleet_rappor(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                              const fxdp_rappor_cfg *cfg, int ct, const uint8_t *x, uint8_t *out, uint8_t *status,
                              uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, rappor_device, status, bits_used);
}

fxdp_status fxdp_fleet_unary_encoding(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                      uint32_t first_block, const fxdp_ue_cfg *cfg, int ct, const uint32_t *x,
                                      uint8_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, ue_device, status, bits_used);
}

fxdp_status fxdp_fleet_hadamard_response(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                         uint32_t first_block, const fxdp_hr_cfg *cfg, int ct, const uint32_t *x,
                                         uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, hr_device, status, bits_used);
}

fxdp_status fxdp_fleet_subset_selection(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                        uint32_t first_block, const fxdp_ss_cfg *cfg, int ct, const uint32_t *x,
                                        uint16_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, ss_device, status, bits_used);
}

fxdp_status fxdp_fleet_local_hashing(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                     uint32_t first_block, const fxdp_lh_cfg *cfg, int ct, const uint32_t *x,
                                     uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, lh_device, status, bits_used);
}

fxdp_status fxdp_fleet_duchi(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                             const fxdp_duchi_cfg *cfg, int ct, const uint32_t *x, uint8_t *out, uint8_t *status,
                             uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, duchi_device, status, bits_used);
}

fxdp_status fxdp_fleet_piecewise(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                 const fxdp_pm_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                 uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, pm_device, status, bits_used);
}

fxdp_status fxdp_fleet_square_wave(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                   const fxdp_sw_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                   uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, sw_device, status, bits_used);
}

fxdp_status fxdp_fleet_hybrid(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                              const fxdp_hm_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                              uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, hm_device, status, bits_used);
}

fxdp_status fxdp_fleet_numeric_md(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                  const fxdp_md_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                  uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, md_device, status, bits_used);
}

fxdp_status fxdp_fleet_geometric(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                 const fxdp_geometric_cfg *cfg, int ct, const int64_t *x, int64_t *out,
                                 uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = FLEET(cfg, ct, x, out);
    return fxdp_host_fleet_run(&f, device_ids, first_block, geo_device, status, bits_used);
}
