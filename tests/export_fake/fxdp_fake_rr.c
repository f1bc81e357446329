#include "fxdp_fake_rr.h"

fxdp_status fxdp_fake_rr(fxdp_rng *r, const fxdp_fake_rr_cfg *cfg, uint8_t x, uint8_t *out)
{
    uint8_t keep;
    fxdp_status st;

    if (cfg == NULL || out == NULL || x > 1u) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->ct) {
        st = fxdp_bernoulli_dyadic_ct(r, cfg->a, cfg->k, &keep);
    } else {
        st = fxdp_bernoulli_dyadic(r, cfg->a, cfg->k, &keep);
    }
    if (st != FXDP_OK) {
        return st;
    }
    *out = (uint8_t)(x ^ keep ^ 1u);
    return FXDP_OK;
}
