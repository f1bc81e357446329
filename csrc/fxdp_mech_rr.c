/*
 * fxdp_mech_rr.c -- binary and k-ary randomized response (seeds 000, 001).
 *
 * Definition and bit use: fxdp/mechanisms/oracles/randomized_response.py
 * (RandomizedResponseBool.release, RandomizedResponse.release_index); the
 * Numba twin is fxdp/mechanisms/oracles/_kernels_randomized_response.py.
 *
 * Constant-time forms (fxdp_rr_bool_ct, fxdp_rr_ct): for every valid input
 * and every random draw the same instructions run, the same memory is read
 * and the same number of bits is consumed (bool: exactly k; k-ary: exactly k,
 * full table scan).  The secret input and the draw are combined without
 * branches (XOR; a branch-free conditional subtraction instead of `% t`,
 * whose run time is data dependent on CPUs without a constant-time divider).
 * Only invalid parameters or inputs and entropy failures change the control
 * flow.
 */
#include "fxdp_internal.h"

/* ---- binary ---------------------------------------------------------- */

static fxdp_status rr_bool_check(const fxdp_rng *r, const fxdp_rr_bool_cfg *cfg, const uint8_t *x,
                                 const uint8_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    /* p = a/2^k in [1/2, 1): 2^(k-1) <= a < 2^k */
    if (cfg->k < 1u || cfg->k > 63u || cfg->a < (UINT64_C(1) << (cfg->k - 1u)) ||
        cfg->a >= (UINT64_C(1) << cfg->k)) {
        return FXDP_ERR_PARAM;
    }
    if (*x > 1u) {          /* the same way for every valid (secret) input */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

fxdp_status fxdp_rr_bool(fxdp_rng *r, const fxdp_rr_bool_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    uint8_t keep;
    fxdp_status st = rr_bool_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    st = fxdp_i_bernoulli_dyadic(r, cfg->a, cfg->k, &keep);
    if (st != FXDP_OK) {
        return st;
    }
    *out = (uint8_t)(*x ^ keep ^ 1u);           /* keep ? x : !x */
    return FXDP_OK;
}

fxdp_status fxdp_rr_bool_ct(fxdp_rng *r, const fxdp_rr_bool_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    uint8_t keep;
    fxdp_status st = rr_bool_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a, cfg->k, &keep);   /* exactly k bits, branch-free compare */
    if (st != FXDP_OK) {
        return st;
    }
    *out = (uint8_t)(*x ^ keep ^ 1u);
    return FXDP_OK;
}

/* ---- k-ary --------------------------------------------------------------- */

/* Checks shared by both forms; the table is checked only at its ends (O(1)). */
static fxdp_status rr_check(const fxdp_rng *r, const fxdp_rr_cfg *cfg, const uint32_t *x, const uint32_t *out,
                            int ct)
{
    uint64_t two_k;

    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->k < 1u || cfg->k > 32u) {
        return FXDP_ERR_PARAM;
    }
    two_k = UINT64_C(1) << cfg->k;
    /* 2 <= t <= 2^(k-1) categories (so t <= 2^31 and x + d below cannot wrap); 0 < w0 < 2^k */
    if (cfg->t < 2u || (uint64_t)cfg->t > (two_k >> 1) || cfg->w0 == 0u || (uint64_t)cfg->w0 >= two_k) {
        return FXDP_ERR_PARAM;
    }
    if (ct) {
        if (cfg->thresholds == NULL || cfg->thresholds[0] != cfg->w0 ||
            (uint64_t)cfg->thresholds[cfg->t - 2u] >= two_k) {
            return FXDP_ERR_PARAM;
        }
        if (*x >= cfg->t) {     /* members only; the same way for every valid input */
            return FXDP_ERR_PARAM;
        }
    } else if (*x > cfg->t) {   /* x == t: not a category (answered uniformly) */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

fxdp_status fxdp_rr(fxdp_rng *r, const fxdp_rr_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    uint32_t s, xv;
    uint8_t honest;
    int member;
    fxdp_status st = rr_check(r, cfg, x, out, 0);

    if (st != FXDP_OK) {
        return st;
    }
    xv = *x;
    member = xv < cfg->t;
    /* OpenDP's algorithm: a uniform other category, then keep the truth w.p. w0/2^k */
    st = fxdp_i_uniform_below_u32(r, member ? cfg->t - 1u : cfg->t, &s);
    if (st != FXDP_OK) {
        return st;
    }
    if (member && s >= xv) {
        s += 1u;
    }
    st = fxdp_i_bernoulli_dyadic(r, cfg->w0, cfg->k, &honest);
    if (st != FXDP_OK) {
        return st;
    }
    *out = (honest != 0u && member) ? xv : s;
    return FXDP_OK;
}

fxdp_status fxdp_rr_ct(fxdp_rng *r, const fxdp_rr_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    uint32_t d, y, ge;
    fxdp_status st = rr_check(r, cfg, x, out, 1);

    if (st != FXDP_OK) {
        return st;
    }
    /* d = offset of the answer from the truth: 0 w.p. w0/2^k, each other w/2^k */
    st = fxdp_i_table_sample_ct(r, cfg->thresholds, cfg->t - 1u, cfg->k, &d);
    if (st != FXDP_OK) {
        return st;
    }
    /* (x + d) mod t without a division or branch: x, d < t <= 2^31, so x + d < 2t */
    y = *x + d;
    ge = 1u - fxdp_i_ct_gt32(cfg->t, y);        /* y >= t */
    *out = y - (cfg->t & (0u - ge));
    return FXDP_OK;
}
