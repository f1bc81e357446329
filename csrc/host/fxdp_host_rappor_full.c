/*
 * fxdp_host_rappor_full.c -- host-only fleet loop of the full RAPPOR client
 * (declared in fxdp.h's "full RAPPOR client" section): one cffi call runs a
 * whole simulated fleet, device by device, through the export entry point
 * fxdp_rappor_full_release, exactly as firmware would.
 */
#include "../fxdp.h"

fxdp_status fxdp_rappor_full_fleet(const fxdp_rappor_full_cfg *cfg, const uint32_t seed[9], const uint64_t *ids,
                                   const uint8_t *blocks, size_t n, uint8_t *out, uint8_t *status)
{
    size_t i, row;

    if (fxdp_rappor_full_check(cfg) != FXDP_OK || seed == NULL ||
        (n != 0u && (ids == NULL || blocks == NULL || out == NULL || status == NULL))) {
        return FXDP_ERR_PARAM;
    }
    row = (size_t)cfg->k + 2u;
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        (void)fxdp_rng_init_stream(&r, seed[8], seed, (uint32_t)ids[i], (uint32_t)(ids[i] >> 32), 0u);
        status[i] = (uint8_t)fxdp_rappor_full_release(&r, cfg, blocks + i * (size_t)cfg->value_bytes,
                                                      out + i * row);
    }
    return FXDP_OK;
}
