/*
 * fxdp_host_long.c -- host-only fleet loops of the longitudinal frequency oracles (declared in
 * fxdp_host.h): one cffi call runs a whole simulated fleet, device by device and round by round,
 * through the export entry points fxdp_longitudinal_grr[_ct] / _ue[_ct], exactly as firmware
 * would.  Not part of the firmware library.
 *
 * Device i: r = fxdp_rng_init_stream(seed[8], seed, device_ids[i], stream 0) with its counter set to
 * first_block; rounds j = 0..rounds-1 call the entry point on r with input x[j*n + i] in turn (the
 * secret is re-derived from r's sibling stream (seed, id, 1) each round, so the permanent responses
 * are memoized), until one fails.  out[j*n + i] (GRR) or out[(j*n + i)*d ..] (UE) is written only on
 * FXDP_OK; status[i] = the first non-OK status (or FXDP_OK); bits_used[i] (may be NULL) = r's
 * position after its last round.
 */
#include "fxdp_host.h"

typedef fxdp_status (*long_grr_fn)(fxdp_rng *, const fxdp_long_grr_cfg *, const uint32_t *, uint32_t *);
typedef fxdp_status (*long_ue_fn)(fxdp_rng *, const fxdp_long_ue_cfg *, const uint32_t *, uint8_t *);

static uint64_t position(const fxdp_rng *r)
{
    return fxdp_rng_position(r);
}

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

#define LONG_ARGS_BAD(cfg) \
    (seed == NULL || (cfg) == NULL || (n != 0u && (device_ids == NULL || x == NULL || out == NULL || status == NULL)))

fxdp_status fxdp_longitudinal_grr_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                         size_t rounds, uint32_t first_block, const fxdp_long_grr_cfg *cfg, int ct,
                                         const uint32_t *x, uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    long_grr_fn f = ct ? fxdp_longitudinal_grr_ct : fxdp_longitudinal_grr;
    size_t i, j;

    if (LONG_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        fxdp_status st = FXDP_OK;
        (void)fxdp_rng_init_stream(&r, seed[8], seed, (uint32_t)(device_ids[i] & 0xFFFFFFFFu),
                                   (uint32_t)(device_ids[i] >> 32), 0u);
        r.counter = first_block;
        for (j = 0; st == FXDP_OK && j < rounds; j++) {
            st = f(&r, cfg, x + j * n + i, out + j * n + i);
        }
        status[i] = (uint8_t)st;
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_longitudinal_ue_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n, size_t rounds,
                                        uint32_t first_block, const fxdp_long_ue_cfg *cfg, int ct, const uint32_t *x,
                                        uint8_t *out, uint8_t *status, uint64_t *bits_used)
{
    long_ue_fn f = ct ? fxdp_longitudinal_ue_ct : fxdp_longitudinal_ue;
    size_t i, j;

    if (LONG_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        fxdp_status st = FXDP_OK;
        (void)fxdp_rng_init_stream(&r, seed[8], seed, (uint32_t)(device_ids[i] & 0xFFFFFFFFu),
                                   (uint32_t)(device_ids[i] >> 32), 0u);
        r.counter = first_block;
        for (j = 0; st == FXDP_OK && j < rounds; j++) {
            st = f(&r, cfg, x + j * n + i, out + (j * n + i) * (size_t)cfg->d);
        }
        status[i] = (uint8_t)st;
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first_error(status, n);
}

fxdp_status fxdp_fleet_longitudinal_grr(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                        uint32_t first_block, const fxdp_long_grr_cfg *cfg, int ct, const uint32_t *x,
                                        uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    return fxdp_longitudinal_grr_rounds(seed, device_ids, n, 1u, first_block, cfg, ct, x, out, status, bits_used);
}

fxdp_status fxdp_fleet_longitudinal_ue(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                       uint32_t first_block, const fxdp_long_ue_cfg *cfg, int ct, const uint32_t *x,
                                       uint8_t *out, uint8_t *status, uint64_t *bits_used)
{
    return fxdp_longitudinal_ue_rounds(seed, device_ids, n, 1u, first_block, cfg, ct, x, out, status, bits_used);
}
