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

typedef fxdp_status (*rr_bool_fn)(fxdp_rng *, const fxdp_rr_bool_cfg *, const uint8_t *, uint8_t *);
typedef fxdp_status (*rr_fn)(fxdp_rng *, const fxdp_rr_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*rappor_fn)(fxdp_rng *, const fxdp_rappor_cfg *, const uint8_t *, uint8_t *);
typedef fxdp_status (*ue_fn)(fxdp_rng *, const fxdp_ue_cfg *, const uint32_t *, uint8_t *);
typedef fxdp_status (*hr_fn)(fxdp_rng *, const fxdp_hr_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*ss_fn)(fxdp_rng *, const fxdp_ss_cfg *, const uint32_t *, uint16_t *);
typedef fxdp_status (*lh_fn)(fxdp_rng *, const fxdp_lh_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*duchi_fn)(fxdp_rng *, const fxdp_duchi_cfg *, const uint32_t *, uint8_t *);
typedef fxdp_status (*pm_fn)(fxdp_rng *, const fxdp_pm_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*hm_fn)(fxdp_rng *, const fxdp_hm_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*md_fn)(fxdp_rng *, const fxdp_md_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*geo_fn)(fxdp_rng *, const fxdp_geometric_cfg *, const int64_t *, int64_t *);

static void device_rng(fxdp_rng *r, const uint32_t seed[9], uint64_t id, uint32_t first_block)
{
    (void)fxdp_rng_init_stream(r, seed[8], seed, (uint32_t)(id & 0xFFFFFFFFu), (uint32_t)(id >> 32), 0u);
    r->counter = first_block;
}

static uint64_t position(const fxdp_rng *r)
{
    return fxdp_rng_position(r);
}

/* First non-OK status of the fleet (FXDP_OK if none). */
static fxdp_status first_error(const uint8_t *status, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (status[i] != 0u) {
            return (fxdp_status)status[i];
        }
    }
    return FXDP_OK;
}

#define FLEET_ARGS_BAD(cfg) \
    (seed == NULL || (cfg) == NULL || (n != 0u && (device_ids == NULL || x == NULL || out == NULL || status == NULL)))

fxdp_status fxdp_fleet_rr_bool(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                               const fxdp_rr_bool_cfg *cfg, int ct, const uint8_t *x, uint8_t *out,
                               uint8_t *status, uint64_t *bits_used)
{
    rr_bool_fn f = ct ? fxdp_rr_bool_ct : fxdp_rr_bool;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_rr(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                          const fxdp_rr_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                          uint64_t *bits_used)
{
    rr_fn f = ct ? fxdp_rr_ct : fxdp_rr;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        if (ct && x[i] == cfg->t) {
            /* not a category: the host answers uniformly (RandomizedResponse.release_index) */
            status[i] = (uint8_t)fxdp_uniform_below_u32(&r, cfg->t, out + i);
        } else {
            status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        }
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_rappor(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                              const fxdp_rappor_cfg *cfg, int ct, const uint8_t *x, uint8_t *out, uint8_t *status,
                              uint64_t *bits_used)
{
    rappor_fn f = ct ? fxdp_rappor_ct : fxdp_rappor;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i * (size_t)cfg->k, out + i * (size_t)cfg->k);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_unary_encoding(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                      uint32_t first_block, const fxdp_ue_cfg *cfg, int ct, const uint32_t *x,
                                      uint8_t *out, uint8_t *status, uint64_t *bits_used)
{
    ue_fn f = ct ? fxdp_unary_encoding_ct : fxdp_unary_encoding;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i * (size_t)cfg->d);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_hadamard_response(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                         uint32_t first_block, const fxdp_hr_cfg *cfg, int ct, const uint32_t *x,
                                         uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    hr_fn f = ct ? fxdp_hadamard_response_ct : fxdp_hadamard_response;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

/* Device i writes out[i * k .. i * k + k) (k = cfg->k indices); rows of failed devices are left as they were. */
fxdp_status fxdp_fleet_subset_selection(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                        uint32_t first_block, const fxdp_ss_cfg *cfg, int ct, const uint32_t *x,
                                        uint16_t *out, uint8_t *status, uint64_t *bits_used)
{
    ss_fn f = ct ? fxdp_subset_selection_ct : fxdp_subset_selection;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i * (size_t)cfg->k);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_local_hashing(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                     uint32_t first_block, const fxdp_lh_cfg *cfg, int ct, const uint32_t *x,
                                     uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    lh_fn f = ct ? fxdp_local_hashing_ct : fxdp_local_hashing;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + 3 * i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_duchi(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                             const fxdp_duchi_cfg *cfg, int ct, const uint32_t *x, uint8_t *out, uint8_t *status,
                             uint64_t *bits_used)
{
    duchi_fn f = ct ? fxdp_duchi_ct : fxdp_duchi;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_piecewise(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                 const fxdp_pm_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                 uint64_t *bits_used)
{
    pm_fn f = ct ? fxdp_piecewise_ct : fxdp_piecewise;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_square_wave(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                   const fxdp_sw_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                   uint64_t *bits_used)
{
    pm_fn f = ct ? fxdp_square_wave_ct : fxdp_square_wave;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_hybrid(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                              const fxdp_hm_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                              uint64_t *bits_used)
{
    hm_fn f = ct ? fxdp_hybrid_ct : fxdp_hybrid;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i, out + i);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_numeric_md(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                  const fxdp_md_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                  uint64_t *bits_used)
{
    md_fn f = ct ? fxdp_numeric_md_ct : fxdp_numeric_md;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i * (size_t)cfg->d, out + i * 2u * (size_t)cfg->k);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_geometric(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                 const fxdp_geometric_cfg *cfg, int ct, const int64_t *x, int64_t *out,
                                 uint8_t *status, uint64_t *bits_used)
{
    geo_fn f = ct ? fxdp_geometric_ct : fxdp_geometric;
    size_t i;

    if (FLEET_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        device_rng(&r, seed, device_ids[i], first_block);
        status[i] = (uint8_t)f(&r, cfg, x + i * (size_t)cfg->n, out + i * (size_t)cfg->n);
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}
