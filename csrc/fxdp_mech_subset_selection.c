/*
 * fxdp_mech_subset_selection.c -- subset selection frequency oracle (Wang et al. 2016; Ye and
 * Barg 2018, the k-subset mechanism): the device holds one item x of a domain of
 * d and reports a k-subset S as its k items in increasing order (uint16_t).  S
 * holds x with probability a_p/2^bits, its other members then a uniform
 * (k-1)-subset of the d-1 other items; otherwise S is a uniform k-subset of them.
 *
 * Definition and bit use: fxdp/mechanisms/oracles/subset_selection.py
 * (SubsetSelection.release): Floyd's algorithm draws a uniform k-subset T of the
 * m = d-1 "other" indices (t = uniform_below(j+1) for j = m-k .. m-1; T gets j
 * if t is already in T, else t), then b = Bernoulli(a_p/2^bits), then r =
 * uniform_below(k) (constant-time form: always; lazy: only when b = 1).  Other
 * index j is item j + [j >= x]; when b = 1 the r-th smallest member is replaced
 * by x.  The Numba twin is fxdp/mechanisms/oracles/_kernels_subset_selection.py.
 *
 * T is built in the caller's out[0..k) itself (no map on the stack: issue 13's 256 B goal), as
 * Floyd's list: draw i writes out[i] (a public position) after a membership scan of out[0..i).
 * Then the list is sorted, mapped to items (e + [e >= x], monotone), the r-th smallest replaced
 * by x when b = 1, and the one displaced entry moved into place by a forward and a backward
 * compare-exchange pass.  The result is the same k items in increasing order, from the same bits.
 * In the constant-time form every scan and compare-exchange runs over fixed positions with masks
 * (an odd-even transposition sort, k rounds), so no branch, address or shift count depends on x, b
 * or the drawn subset; only the uniform draws' rejections depend on the stream (Floyd's draws are
 * the reference's uniform_below: removing them would change the bit stream).  The lazy form scans
 * and sorts with branches and draws r only when b = 1.  Drawn in place: an entropy failure during
 * the draws zeroes out[0..k) (csrc/fxdp.h), so nothing is released.
 */
#include "fxdp_internal.h"

/* ct argument of the internal passes: 0 lazy; SS_CT_REJECT the constant-time form drawing by
 * rejection (uniform_version 0 or 1: the bits before issue 32); SS_CT_BUDGET the fixed budget
 * (uniform_version 2: fxdp_i_uniform_below_ct_u32 for Floyd's draws and for r). */
#define SS_CT_REJECT 1
#define SS_CT_BUDGET 2

static fxdp_status ss_check(const fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, const uint32_t *x, const uint16_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->bits < 1u || cfg->bits > 63u || cfg->a_p == 0u || cfg->a_p >= (UINT64_C(1) << cfg->bits) ||
        cfg->d < 2u || cfg->d > FXDP_SUBSET_SELECTION_MAX_D || cfg->k < 1u || cfg->k >= cfg->d || cfg->uniform_version > 2u ||
        *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* All ones iff a == b, else zero (no branch). */
static uint32_t ss_eq_mask(uint32_t a, uint32_t b)
{
    uint32_t v = a ^ b;
    return ((v | (0u - v)) >> 31) - 1u;
}

/* Orders (*lo, *hi) so that *lo < *hi, without a branch. */
static void ss_cexch(uint16_t *lo, uint16_t *hi)
{
    uint32_t a = *lo, b = *hi, t = (a ^ b) & (0u - fxdp_i_ct_gt32(a, b));

    *lo = (uint16_t)(a ^ t);
    *hi = (uint16_t)(b ^ t);
}

/* Floyd's T as a list in out[0..k) (other indices, written at public positions), each t drawn by
 * fxdp_i_uniform_below_u32 (the reference's uniform_below): t joins T unless it is already there, then j does.  Out of line: its loop
 * state is not on the stack while b is drawn. */
static FXDP_I_OUTLINE fxdp_status ss_floyd(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, uint16_t *out, int ct,
                                           uint32_t *ok)
{
    uint32_t base = cfg->d - 1u - cfg->k, i, l, t = 0, mem, acc = 0;
    fxdp_status st;

    for (i = 0; i < cfg->k; i++) {
        uint32_t j = base + i;
        if (ct == SS_CT_BUDGET) {                      /* issue 32: fixed budget, every round runs */
            st = fxdp_i_uniform_below_ct_u32(r, j + 1u, &t, &acc);
            *ok &= acc;
        } else {
            st = fxdp_i_uniform_below_u32(r, j + 1u, &t);
        }
        if (st != FXDP_OK) {
            return st;
        }
        mem = 0;
        if (ct) {
            for (l = 0; l < i; l++) {                   /* the whole list, masked */
                mem |= ss_eq_mask(out[l], t);
            }
        } else {
            for (l = 0; l < i && mem == 0u; l++) {
                mem = out[l] == t ? UINT32_C(0xFFFFFFFF) : 0u;
            }
        }
        out[i] = (uint16_t)((j & mem) | (t & ~mem));    /* j if t is in T, else t */
    }
    return FXDP_OK;
}

/* The random part: Floyd's T into out, then b and r.  On a failure out is zeroed. */
static fxdp_status ss_draw(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, uint16_t *out, uint8_t *b, uint32_t *rr, int ct)
{
    uint32_t ok = 0xFFFFFFFFu, acc = 0;
    fxdp_status st = ss_floyd(r, cfg, out, ct, &ok);

    if (st == FXDP_OK) {
        if (ct) {
            st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a_p, cfg->bits, b);
        } else {
            st = fxdp_i_bernoulli_dyadic(r, cfg->a_p, cfg->bits, b);
        }
    }
    *rr = 0;
    if (st == FXDP_OK && ct == SS_CT_BUDGET) {
        st = fxdp_i_uniform_below_ct_u32(r, cfg->k, rr, &acc);
        ok &= acc;
    } else if (st == FXDP_OK && (ct || *b != 0u)) {
        st = fxdp_i_uniform_below_u32(r, cfg->k, rr);
    }
    if (st == FXDP_OK && ok == 0u) {                  /* a draw's budget ran out: public, nothing released */
        st = FXDP_ERR_RANGE;
    }
    if (st != FXDP_OK) {
        fxdp_i_wipe(out, (size_t)cfg->k * sizeof out[0]);
    }
    return st;
}

/* out[0..k) sorted: constant time, k rounds of odd-even transposition (fixed pairs); lazy,
 * insertion sort. */
static void ss_sort(uint16_t *out, uint32_t k, int ct)
{
    uint32_t round, i;

    if (ct) {
        for (round = 0; round < k; round++) {
            for (i = round & 1u; i + 1u < k; i += 2u) {
                ss_cexch(&out[i], &out[i + 1u]);
            }
        }
    } else {
        for (i = 1; i < k; i++) {
            uint16_t v = out[i];
            uint32_t l = i;
            while (l > 0u && out[l - 1u] > v) {
                out[l] = out[l - 1u];
                l--;
            }
            out[l] = v;
        }
    }
}

/* Out of line: the passes after the draws keep their temporaries off the draws' refill chain. */
static FXDP_I_OUTLINE void ss_finish(const fxdp_subset_selection_cfg *cfg, uint32_t x, uint16_t *out, uint8_t b, uint32_t rr,
                                     int ct)
{
    uint32_t k = cfg->k, i, bm = 0u - ((uint32_t)b & 1u);

    ss_sort(out, k, ct);
    for (i = 0; i < k; i++) {                           /* other index e -> item e + [e >= x] */
        uint32_t e = out[i];
        out[i] = (uint16_t)(e + 1u - fxdp_i_ct_gt32(x, e));
    }
    if (ct) {                                           /* if b: the r-th smallest becomes x */
        for (i = 0; i < k; i++) {
            uint32_t m = ss_eq_mask(i, rr) & bm;
            out[i] = (uint16_t)((x & m) | ((uint32_t)out[i] & ~m));
        }
    } else if (b != 0u) {
        out[rr] = (uint16_t)x;
    }
    if (ct || b != 0u) {                                /* one entry out of place: carry it up, then down */
        for (i = 0; i + 1u < k; i++) {
            ss_cexch(&out[i], &out[i + 1u]);
        }
        for (i = k - 1u; i > 0u; i--) {
            ss_cexch(&out[i - 1u], &out[i]);
        }
    }
}

static fxdp_status ss_run(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, uint32_t x, uint16_t *out, int ct)
{
    uint32_t rr = 0;
    uint8_t b = 0;
    fxdp_status st = ss_draw(r, cfg, out, &b, &rr, ct);

    if (st == FXDP_OK) {
        ss_finish(cfg, x, out, b, rr, ct);
    }
    return st;
}

fxdp_status fxdp_subset_selection(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, const uint32_t *x, uint16_t *out)
{
    fxdp_status st = ss_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return ss_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_subset_selection_ct(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, const uint32_t *x, uint16_t *out)
{
    fxdp_status st = ss_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return ss_run(r, cfg, *x, out, cfg->uniform_version == 2u ? SS_CT_BUDGET : SS_CT_REJECT);
}
