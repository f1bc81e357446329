/*
 * fxdp_mech_hm.c -- the Hybrid mechanism for a bounded reading (Wang et al.,
 * ICDE 2019) on a grid: with probability b/2^prob_bits the Piecewise mechanism
 * (output its cell j < L = 2^bits + w), else Duchi et al.'s (output L + bit).
 *
 * Definition and bit use: fxdp/mechanisms/hybrid.py (Hybrid.release): c =
 * Bernoulli(b / 2^prob_bits); lazy, then only the chosen branch's draws;
 * constant time, both branches' constant-time draws (Piecewise first) and the
 * output selected by a mask (3 prob_bits + 2 bits bits).  The branches are
 * fxdp_mech_pm.c and fxdp_mech_duchi.c (fxdp_i_pm_run, fxdp_i_duchi_run); the
 * Numba twin is fxdp/mechanisms/_kernels_hm.py.  Every parameter is checked
 * before any draw; out is written only on FXDP_OK.
 */
#include "fxdp_internal.h"

static fxdp_status hm_check(const fxdp_rng *r, const fxdp_hm_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_hm_ok(cfg, *x)) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

int fxdp_i_hm_ok(const fxdp_hm_cfg *cfg, uint32_t x)
{
    return fxdp_i_pm_ok(&cfg->pm, x) && fxdp_i_duchi_ok(&cfg->duchi, x) && cfg->pm.bits == cfg->duchi.bits &&
           cfg->pm.prob_bits == cfg->duchi.prob_bits && cfg->b < (UINT64_C(1) << cfg->pm.prob_bits);
}

/* L = 2^bits + w, Duchi's first output index; computed after the draws, so it is not live (spilled)
 * across the calls that refill. */
static uint32_t hm_duchi_base(const fxdp_hm_cfg *cfg)
{
    return (UINT32_C(1) << cfg->pm.bits) + cfg->pm.w;
}

/* Merged into each caller (the two entry points, fxdp_i_hm_run): one frame less on the draws'
 * refill chain (issue 13's 256 B goal), as before fxdp_i_hm_run gave it a third caller. */
FXDP_I_INLINE fxdp_status hm_run(fxdp_rng *r, const fxdp_hm_cfg *cfg, uint32_t x, uint32_t *out, int ct)
{
    uint32_t j = 0, sel;
    uint8_t c = 0, y = 0;
    fxdp_status st;

    if (ct) {
        st = fxdp_i_bernoulli_dyadic_ct(r, cfg->b, cfg->pm.prob_bits, &c);
        if (st != FXDP_OK) {
            return st;
        }
        st = fxdp_i_pm_run(r, &cfg->pm, x, &j, 1);
        if (st != FXDP_OK) {
            return st;
        }
        st = fxdp_i_duchi_run(r, &cfg->duchi, x, &y, 1);
        if (st != FXDP_OK) {
            return st;
        }
        sel = 0u - (uint32_t)(c & 1u);
        *out = (j & sel) | ((hm_duchi_base(cfg) + (uint32_t)(y & 1u)) & ~sel);
        return FXDP_OK;
    }
    st = fxdp_i_bernoulli_dyadic(r, cfg->b, cfg->pm.prob_bits, &c);
    if (st != FXDP_OK) {
        return st;
    }
    if (c) {
        return fxdp_i_pm_run(r, &cfg->pm, x, out, 0);
    }
    st = fxdp_i_duchi_run(r, &cfg->duchi, x, &y, 0);
    if (st != FXDP_OK) {
        return st;
    }
    *out = hm_duchi_base(cfg) + (uint32_t)y;
    return FXDP_OK;
}

/* The multi-dimensional form's Hybrid base (fxdp_mech_md.c): r ready, cfg and x valid. */
fxdp_status fxdp_i_hm_run(fxdp_rng *r, const fxdp_hm_cfg *cfg, uint32_t x, uint32_t *out, int ct)
{
    return hm_run(r, cfg, x, out, ct);
}

fxdp_status fxdp_hybrid(fxdp_rng *r, const fxdp_hm_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = hm_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return hm_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_hybrid_ct(fxdp_rng *r, const fxdp_hm_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = hm_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return hm_run(r, cfg, *x, out, 1);
}
