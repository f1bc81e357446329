/*
 * fxdp_mech_numeric_multidim.c -- multi-dimensional numeric readings (Wang et al., ICDE
 * 2019, section IV): a device with d readings reports k of them, sampled
 * uniformly, each through a 1-dim grid mechanism (Duchi, Piecewise or Hybrid)
 * at epsilon / k.
 *
 * Definition and bit use: fxdp/mechanisms/readings/numeric_multidim.py
 * (NumericMultiDim.release): Floyd's k draws t = uniform_below(j + 1), j = d - k
 * .. d - 1 (S gets j when t is already in S, else t), then the base
 * mechanism's draws (fxdp_i_duchi_lazy/_ct, fxdp_i_piecewise_lazy/_ct, fxdp_i_hybrid_run) for the
 * attributes of S in increasing order.  Floyd's membership test is a masked scan and the insertion a
 * backward pass of branch-free compare-exchanges (issue 32), so no branch depends on the subset;
 * uniform_version 2 draws with the fixed budget.  Drawn in place (issue 13's 256 B stack
 * goal: no k-entry stack arrays): S is kept sorted in out[0..k) and report q
 * goes to out[k + q]; a failure during the draws zeroes out[0..2k), so
 * nothing is released (DeviceSpec.in_place).  The subset's bits depend on (d, k) and the stream only; in the _ct form the
 * base's draws are its constant-time ones, so time and bit use do not depend
 * on x.  The Numba twin is fxdp/mechanisms/readings/_kernels_numeric_multidim.py.  Every parameter
 * and every x[a] is checked before any draw.
 */
#include "fxdp_mech_hybrid.h"

static int md_base_ok(const fxdp_numeric_multidim_cfg *cfg, uint32_t x)
{
    if (cfg->base == 0u) {
        return fxdp_i_duchi_ok(&cfg->hm.duchi, x);
    }
    if (cfg->base == 1u) {
        return fxdp_i_piecewise_ok(&cfg->hm.pm, x);
    }
    return cfg->base == 2u && fxdp_i_hybrid_ok(&cfg->hm, x);
}

/* Out of line: its per-attribute loop state is not on the stack during the draws. */
static FXDP_I_OUTLINE fxdp_status md_check(const fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    uint32_t a;

    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->d < 1u || cfg->d > FXDP_NUMERIC_MULTIDIM_MAX_D || cfg->k < 1u || cfg->k > cfg->d || cfg->k > FXDP_NUMERIC_MULTIDIM_MAX_K ||
        cfg->uniform_version > 2u) {
        return FXDP_ERR_PARAM;
    }
    for (a = 0; a < cfg->d; a++) {
        if (!md_base_ok(cfg, x[a])) {
            return FXDP_ERR_PARAM;
        }
    }
    return fxdp_i_ready(r);
}

/* out[0..k) <- S, a uniform k-subset of [0, d), increasing (Floyd): draw n takes j = d - k + n.
 * Out of line: its loop state is not on the stack while the base mechanism draws. */
static FXDP_I_OUTLINE fxdp_status md_subset(fxdp_rng *r, uint32_t d, uint32_t k, uint32_t *sel, int budget)
{
    uint32_t n, j, q, v, t = 0, ok = 0xFFFFFFFFu, acc = 0;
    fxdp_status st;

    for (n = 0; n < k; n++) {
        j = d - k + n;
        if (budget) {                       /* issue 32: fixed budget, every round runs */
            st = fxdp_i_uniform_below_ct_u32(r, j + 1u, &t, &acc);
            ok &= acc;
        } else {
            st = fxdp_i_uniform_below_u32(r, j + 1u, &t);
        }
        if (st != FXDP_OK) {
            return st;
        }
        v = t;
        for (q = 0; q < n; q++) {           /* j itself is never chosen yet: all members are < j */
            uint32_t e = sel[q] ^ t, m = ((e | (0u - e)) >> 31) - 1u;   /* all ones iff sel[q] == t */
            v = (j & m) | (v & ~m);
        }
        sel[n] = v;                         /* sel[0..n) increasing: one backward pass of branch-free */
        for (q = n; q > 0u; q--) {          /* compare-exchanges over fixed positions inserts v */
            uint32_t a = sel[q - 1u], b = sel[q], sw = (a ^ b) & (0u - fxdp_i_ct_gt32(a, b));
            sel[q - 1u] = a ^ sw;
            sel[q] = b ^ sw;
        }
    }
    if (ok == 0u) {                         /* a draw's budget ran out: public, nothing released */
        return FXDP_ERR_RANGE;
    }
    return FXDP_OK;
}

/* One attribute's report by the base, merged into the loop (ct a constant there): Hybrid's coin and
 * branch are called from the entry point's frame, no Hybrid or dispatch frame nested in between. */
FXDP_I_INLINE fxdp_status md_report(fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, uint32_t x, uint32_t *y, int ct)
{
    if (cfg->base == 0u) {
        return ct ? fxdp_i_duchi_ct(r, &cfg->hm.duchi, x, y) : fxdp_i_duchi_lazy(r, &cfg->hm.duchi, x, y);
    }
    if (cfg->base == 1u) {
        return ct ? fxdp_i_piecewise_ct(r, &cfg->hm.pm, x, y) : fxdp_i_piecewise_lazy(r, &cfg->hm.pm, x, y);
    }
    return fxdp_i_hybrid_run(r, &cfg->hm, x, y, ct);
}

/* x[i] for i < d, read as a full scan with masks: the constant-time form does not index memory
 * by the drawn attribute (and Eva sees every read in bounds: the budgeted draw's bound on i is
 * arithmetic it does not follow). */
FXDP_I_INLINE uint32_t md_pick_ct(const uint32_t *x, uint32_t d, uint32_t i)
{
    uint32_t a, v = 0u;

    for (a = 0; a < d; a++) {
        uint32_t e = a ^ i;
        v |= x[a] & (((e | (0u - e)) >> 31) - 1u);   /* all ones iff a == i */
    }
    return v;
}

/* In place: the subset in out[0..k), report q in out[k + q]; zeroed on a failure.  Merged into
 * each entry point (ct a constant there): one frame less on the draws' refill chain.  k is read from cfg
 * after each report rather than kept in a register across the draws: a smaller frame (RV32). */
FXDP_I_INLINE fxdp_status md_run(fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, const uint32_t *x, uint32_t *out, int ct)
{
    uint32_t q;
    fxdp_status st = md_subset(r, cfg->d, cfg->k, out, ct && cfg->uniform_version == 2u);

    for (q = 0; q < cfg->k && st == FXDP_OK; q++) {
        st = md_report(r, cfg, ct ? md_pick_ct(x, cfg->d, out[q]) : x[out[q]], &out[cfg->k + q], ct);
    }
    if (st != FXDP_OK) {
        fxdp_i_wipe(out, 2u * (size_t)cfg->k * sizeof out[0]);
    }
    return st;
}

fxdp_status fxdp_numeric_multidim(fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = md_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return md_run(r, cfg, x, out, 0);
}

fxdp_status fxdp_numeric_multidim_ct(fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = md_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return md_run(r, cfg, x, out, 1);
}
