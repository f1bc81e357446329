/*
 * fxdp_host_long.c -- host-only fleet loops of the longitudinal frequency oracles (declared in
 * fxdp_host.h): one cffi call runs a whole simulated fleet, device by device and round by round,
 * through the export entry points fxdp_longitudinal_grr[_ct] / _ue[_ct], exactly as firmware
 * would.  Not part of the firmware library.
 *
 * Device i: its secret is provisioned once from the sibling stream (seed, device_ids[i], 1), as the
 * export entry points do on a fresh rng; r = fxdp_rng_init_stream(seed[8], seed, device_ids[i],
 * stream 0) with its counter set to first_block; rounds j = 0..rounds-1 call the stored-device report
 * (fxdp_longitudinal_*_report[_ct]) on r with input x[j*n + i] in turn (so the permanent responses
 * are memoized, whatever the stream version: under version 2 r's key changes with every block),
 * until one fails.  out[j*n + i] (GRR) or out[(j*n + i)*d ..] (UE) is written only on
 * FXDP_OK; status[i] = the first non-OK status (or FXDP_OK); bits_used[i] (may be NULL) = r's
 * position after its last round.
 */
#include "fxdp_host.h"

typedef fxdp_status (*long_grr_fn)(const fxdp_long_grr_cfg *, const fxdp_long_device *, fxdp_rng *,
                                   const uint32_t *, uint32_t *);
typedef fxdp_status (*long_ue_fn)(const fxdp_long_ue_cfg *, const fxdp_long_device *, fxdp_rng *,
                                  const uint32_t *, uint8_t *);

/* The device's secret: provisioned from the keyed stream (seed, id, 1). */
static fxdp_status device_of(const uint32_t seed[9], uint64_t id, fxdp_long_device *dev)
{
    fxdp_rng sib;

    (void)fxdp_rng_init_stream(&sib, seed[8], seed, (uint32_t)(id & 0xFFFFFFFFu), (uint32_t)(id >> 32), 1u);
    return fxdp_longitudinal_provision(&sib, dev);
}

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
    long_grr_fn f = ct ? fxdp_longitudinal_grr_report_ct : fxdp_longitudinal_grr_report;
    size_t i, j;

    if (LONG_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        fxdp_long_device dev;
        fxdp_status st = FXDP_OK;
        (void)fxdp_rng_init_stream(&r, seed[8], seed, (uint32_t)(device_ids[i] & 0xFFFFFFFFu),
                                   (uint32_t)(device_ids[i] >> 32), 0u);
        r.counter = first_block;
        st = device_of(seed, device_ids[i], &dev);
        for (j = 0; st == FXDP_OK && j < rounds; j++) {
            st = f(cfg, &dev, &r, x + j * n + i, out + j * n + i);
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
    long_ue_fn f = ct ? fxdp_longitudinal_ue_report_ct : fxdp_longitudinal_ue_report;
    size_t i, j;

    if (LONG_ARGS_BAD(cfg)) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        fxdp_long_device dev;
        fxdp_status st = FXDP_OK;
        (void)fxdp_rng_init_stream(&r, seed[8], seed, (uint32_t)(device_ids[i] & 0xFFFFFFFFu),
                                   (uint32_t)(device_ids[i] >> 32), 0u);
        r.counter = first_block;
        st = device_of(seed, device_ids[i], &dev);
        for (j = 0; st == FXDP_OK && j < rounds; j++) {
            st = f(cfg, &dev, &r, x + j * n + i, out + (j * n + i) * (size_t)cfg->d);
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
