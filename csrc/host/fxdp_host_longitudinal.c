/*
 * fxdp_host_longitudinal.c -- host-only fleet loops of the longitudinal frequency oracles (declared in
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
#include "fxdp_host_fleet.h"

/* The device's secret: provisioned from the keyed stream (seed, id, 1). */
static fxdp_status device_of(const uint32_t seed[9], uint64_t id, fxdp_longitudinal_device *dev)
{
    fxdp_rng sib;

    (void)fxdp_rng_init_stream(&sib, seed[8], seed, (uint32_t)(id & 0xFFFFFFFFu), (uint32_t)(id >> 32), 1u);
    return fxdp_longitudinal_provision(&sib, dev);
}

/* NAME: device i's rounds j = 0, 1, ... through the stored-device report
 * FN[_ct](cfg, dev, r, x + j*n + i, out + (j*n + i) * OUT_ROW), until one fails. */
#define LONG_DEVICE(NAME, FN, FN_CT, CFG_T, OUT_T, OUT_ROW)                                               \
    static fxdp_status NAME(const fxdp_host_fleet *f, fxdp_rng *r, uint64_t id, size_t i)                 \
    {                                                                                                     \
        const CFG_T *cfg = (const CFG_T *)f->cfg;                                                         \
        fxdp_longitudinal_device dev;                                                                             \
        fxdp_status st = device_of(f->seed, id, &dev);                                                    \
        size_t j;                                                                                         \
        for (j = 0; st == FXDP_OK && j < f->rounds; j++) {                                                \
            st = (f->ct ? FN_CT : FN)(cfg, &dev, r, (const uint32_t *)f->x + j * f->n + i,                \
                                      (OUT_T *)f->out + (j * f->n + i) * (OUT_ROW));                      \
        }                                                                                                 \
        return st;                                                                                        \
    }

LONG_DEVICE(grr_device, fxdp_longitudinal_grr_report, fxdp_longitudinal_grr_report_ct, fxdp_longitudinal_grr_cfg, uint32_t,
            1u)
LONG_DEVICE(ue_device, fxdp_longitudinal_ue_report, fxdp_longitudinal_ue_report_ct, fxdp_longitudinal_ue_cfg, uint8_t,
            (size_t)cfg->d)

fxdp_status fxdp_longitudinal_grr_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                         size_t rounds, uint32_t first_block, const fxdp_longitudinal_grr_cfg *cfg, int ct,
                                         const uint32_t *x, uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = {seed, n, rounds, cfg, ct, x, out};
    return fxdp_host_fleet_run(&f, device_ids, first_block, grr_device, status, bits_used);
}

fxdp_status fxdp_longitudinal_ue_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n, size_t rounds,
                                        uint32_t first_block, const fxdp_longitudinal_ue_cfg *cfg, int ct, const uint32_t *x,
                                        uint8_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = {seed, n, rounds, cfg, ct, x, out};
    return fxdp_host_fleet_run(&f, device_ids, first_block, ue_device, status, bits_used);
}

fxdp_status fxdp_fleet_longitudinal_grr(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                        uint32_t first_block, const fxdp_longitudinal_grr_cfg *cfg, int ct, const uint32_t *x,
                                        uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    return fxdp_longitudinal_grr_rounds(seed, device_ids, n, 1u, first_block, cfg, ct, x, out, status, bits_used);
}

fxdp_status fxdp_fleet_longitudinal_ue(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                       uint32_t first_block, const fxdp_longitudinal_ue_cfg *cfg, int ct, const uint32_t *x,
                                       uint8_t *out, uint8_t *status, uint64_t *bits_used)
{
    return fxdp_longitudinal_ue_rounds(seed, device_ids, n, 1u, first_block, cfg, ct, x, out, status, bits_used);
}
