/*
 * fxdp_mech_hybrid.h -- private to csrc: Hybrid's draws, merged into its two entry points
 * (fxdp_mech_hybrid.c) and the multi-dimensional loop (fxdp_mech_numeric_multidim.c).  Shipped with fxdp_mech_hybrid.c.
 */
#ifndef FXDP_MECH_HYBRID_H
#define FXDP_MECH_HYBRID_H

#include "fxdp_mech_duchi.h"
#include "fxdp_mech_piecewise.h"

int fxdp_i_hybrid_ok(const fxdp_hybrid_cfg *cfg, uint32_t x);

/* Hybrid's L = 2^bits + w, Duchi's first output index; computed after the draws, so it is not live
 * (spilled) across the calls that refill. */
static inline uint32_t fxdp_i_hybrid_duchi_base(const fxdp_hybrid_cfg *cfg)
{
    return (UINT32_C(1) << cfg->pm.bits) + cfg->pm.w;
}

/* Hybrid's draws (fxdp_mech_hybrid.c; r ready, cfg and x valid; *out written only on FXDP_OK).  Merged
 * into each caller, Hybrid's two entry points and the multi-dimensional loop (ct a constant there),
 * so its coin and its branch are called from the caller's frame: no Hybrid frame of its own between
 * that frame and the branch's draws (issue 13's 256 B goal). */
FXDP_I_INLINE fxdp_status fxdp_i_hybrid_run(fxdp_rng *r, const fxdp_hybrid_cfg *cfg, uint32_t x, uint32_t *out, int ct)
{
    uint32_t j = 0, y = 0, sel;
    uint8_t c = 0;
    fxdp_status st;

    if (ct) {
        st = fxdp_i_bernoulli_dyadic_ct(r, cfg->b, cfg->pm.prob_bits, &c);
        if (st != FXDP_OK) {
            return st;
        }
        st = fxdp_i_piecewise_ct(r, &cfg->pm, x, &j);
        if (st != FXDP_OK) {
            return st;
        }
        st = fxdp_i_duchi_ct(r, &cfg->duchi, x, &y);
        if (st != FXDP_OK) {
            return st;
        }
        sel = 0u - (uint32_t)(c & 1u);
        *out = (j & sel) | ((fxdp_i_hybrid_duchi_base(cfg) + (y & 1u)) & ~sel);
        return FXDP_OK;
    }
    st = fxdp_i_bernoulli_dyadic(r, cfg->b, cfg->pm.prob_bits, &c);
    if (st != FXDP_OK) {
        return st;
    }
    if (c) {
        return fxdp_i_piecewise_lazy(r, &cfg->pm, x, out);
    }
    st = fxdp_i_duchi_lazy(r, &cfg->duchi, x, &y);
    if (st != FXDP_OK) {
        return st;
    }
    *out = fxdp_i_hybrid_duchi_base(cfg) + y;
    return FXDP_OK;
}

#endif /* FXDP_MECH_HYBRID_H */
