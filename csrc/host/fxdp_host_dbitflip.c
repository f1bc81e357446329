/*
 * fxdp_host_dbitflip.c -- host-only fleet loops of dBitFlip (declared in fxdp_host.h): one cffi call runs
 * a whole simulated fleet, device by device and round by round, through the export entry points
 * fxdp_dbitflip[_ct], exactly as firmware would.  Not part of the firmware library.
 *
 * Device i: r = fxdp_rng_init_stream(seed[8], seed, device_ids[i], stream 0) with its counter set to
 * first_block; rounds j = 0..rounds-1 call the entry point on r with input x[j*n + i] (the secret is
 * re-derived from r's sibling stream (seed, id, 1) each round, so every answer is memoized; r itself
 * is never read), until one fails.  out[(j*n + i) * 2 * sampled ..] is written only on FXDP_OK;
 * status[i] = the first non-OK status (or FXDP_OK); bits_used[i] (may be NULL) = r's position.
 */
#include "fxdp_host.h"
#include "fxdp_host_fleet.h"

/* Device i's rounds (2 * sampled words out a round), until one fails. */
static fxdp_status dbf_device(const fxdp_host_fleet *f, fxdp_rng *r, uint64_t id, size_t i)
{
    const fxdp_dbitflip_cfg *cfg = (const fxdp_dbitflip_cfg *)f->cfg;
    const uint32_t *x = (const uint32_t *)f->x;
    uint32_t *out = (uint32_t *)f->out;
    size_t width = 2u * (size_t)cfg->sampled;
    fxdp_status st = FXDP_OK;
    size_t j;

    (void)id;
    for (j = 0; st == FXDP_OK && j < f->rounds; j++) {
        st = (f->ct ? fxdp_dbitflip_ct : fxdp_dbitflip)(r, cfg, x + j * f->n + i, out + (j * f->n + i) * width);
    }
    return st;
}

fxdp_status fxdp_dbitflip_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n, size_t rounds,
                                 uint32_t first_block, const fxdp_dbitflip_cfg *cfg, int ct, const uint32_t *x,
                                 uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    const fxdp_host_fleet f = {seed, n, rounds, cfg, ct, x, out};
    return fxdp_host_fleet_run(&f, device_ids, first_block, dbf_device, status, bits_used);
}

fxdp_status fxdp_fleet_dbitflip(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                const fxdp_dbitflip_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                uint64_t *bits_used)
{
    return fxdp_dbitflip_rounds(seed, device_ids, n, 1u, first_block, cfg, ct, x, out, status, bits_used);
}
