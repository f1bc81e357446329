/*
 * fxdp_host_dbf.c -- host-only fleet loops of dBitFlip (declared in fxdp_host.h): one cffi call runs
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

static uint64_t position(const fxdp_rng *r)
{
    return fxdp_rng_position(r);
}

fxdp_status fxdp_dbitflip_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n, size_t rounds,
                                 uint32_t first_block, const fxdp_dbf_cfg *cfg, int ct, const uint32_t *x,
                                 uint32_t *out, uint8_t *status, uint64_t *bits_used)
{
    size_t i, j, width;
    fxdp_status first = FXDP_OK;

    if (seed == NULL || cfg == NULL || (n != 0u && (device_ids == NULL || x == NULL || out == NULL || status == NULL))) {
        return FXDP_ERR_PARAM;
    }
    width = 2u * (size_t)cfg->sampled;
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        fxdp_status st = FXDP_OK;
        (void)fxdp_rng_init_stream(&r, seed[8], seed, (uint32_t)(device_ids[i] & 0xFFFFFFFFu),
                                   (uint32_t)(device_ids[i] >> 32), 0u);
        r.counter = first_block;
        for (j = 0; st == FXDP_OK && j < rounds; j++) {
            st = (ct ? fxdp_dbitflip_ct : fxdp_dbitflip)(&r, cfg, x + j * n + i, out + (j * n + i) * width);
        }
        status[i] = (uint8_t)st;
        if (first == FXDP_OK) {
            first = st;
        }
        if (bits_used != NULL) {
            bits_used[i] = position(&r);
        }
    }
    return first;
}

fxdp_status fxdp_fleet_dbitflip(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                const fxdp_dbf_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                uint64_t *bits_used)
{
    return fxdp_dbitflip_rounds(seed, device_ids, n, 1u, first_block, cfg, ct, x, out, status, bits_used);
}
