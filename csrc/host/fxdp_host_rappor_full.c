/*
 * fxdp_host_rappor_full.c -- host-only fleet loop of the full RAPPOR client
 * (declared in fxdp.h's "full RAPPOR client" section): one cffi call runs
 * a whole simulated fleet, device by device, exactly as firmware would.
 */
#include "../fxdp.h"

fxdp_status fxdp_rappor_full_fleet(const fxdp_rappor_full_cfg *cfg, const uint32_t seed[8], const uint64_t *ids,
                                   const uint8_t *blocks, size_t n, uint32_t *cohorts, uint8_t *bits,
                                   uint8_t *status)
{
    size_t i;

    if (fxdp_rappor_full_check(cfg) != FXDP_OK || seed == NULL ||
        (n != 0u && (ids == NULL || blocks == NULL || cohorts == NULL || bits == NULL || status == NULL))) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < n; i++) {
        fxdp_rng r;
        fxdp_rappor_full_device dev;
        fxdp_status st;
        uint32_t lo = (uint32_t)ids[i], hi = (uint32_t)(ids[i] >> 32);

        fxdp_rng_init_seed(&r, seed, lo, hi, 1u);
        st = fxdp_rappor_full_provision(cfg, &r, &dev);
        if (st == FXDP_OK) {
            fxdp_rng_init_seed(&r, seed, lo, hi, 0u);
            st = fxdp_rappor_full_report(cfg, &dev, &r, blocks + i * cfg->value_bytes, bits + i * cfg->k);
        }
        if (st == FXDP_OK) {
            cohorts[i] = dev.cohort;
        }
        status[i] = (uint8_t)st;
    }
    return FXDP_OK;
}
