/*
 * fxdp_mech_hybrid.c -- the Hybrid mechanism for a bounded reading (Wang et al.,
 * ICDE 2019) on a grid: with probability b/2^prob_bits the Piecewise mechanism
 * (output its cell j < L = 2^bits + w), else Duchi et al.'s (output L + bit).
 *
 * Definition and bit use: fxdp/mechanisms/readings/hybrid.py (Hybrid.release): c =
 * Bernoulli(b / 2^prob_bits); lazy, then only the chosen branch's draws;
 * constant time, both branches' constant-time draws (Piecewise first) and the
 * output selected by a mask (3 prob_bits + 2 bits bits).  The branches are
 * fxdp_mech_piecewise.c and fxdp_mech_duchi.c (fxdp_i_piecewise_lazy/_ct, fxdp_i_duchi_lazy/_ct); the
 * draws are fxdp_i_hybrid_run (fxdp_internal.h), inline here and in the multi-dimensional form.  The
 * Numba twin is fxdp/mechanisms/readings/_kernels_hybrid.py.  Every parameter is checked
 * before any draw; out is written only on FXDP_OK.
 */
#include "fxdp_mech_hybrid.h"

static fxdp_status hm_check(const fxdp_rng *r, const fxdp_hybrid_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_hybrid_ok(cfg, *x)) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

int fxdp_i_hybrid_ok(const fxdp_hybrid_cfg *cfg, uint32_t x)
{
    return fxdp_i_piecewise_ok(&cfg->pm, x) && fxdp_i_duchi_ok(&cfg->duchi, x) && cfg->pm.bits == cfg->duchi.bits &&
           cfg->pm.prob_bits == cfg->duchi.prob_bits && cfg->b < (UINT64_C(1) << cfg->pm.prob_bits);
}

fxdp_status fxdp_hybrid(fxdp_rng *r, const fxdp_hybrid_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = hm_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_hybrid_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_hybrid_ct(fxdp_rng *r, const fxdp_hybrid_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = hm_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_hybrid_run(r, cfg, *x, out, 1);
}
