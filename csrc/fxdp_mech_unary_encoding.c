/*
 * fxdp_mech_unary_encoding.c -- unary encoding frequency oracle (SUE / OUE): the device
 * holds one item x of a domain of d; bit i of its report is 1 with
 * probability a_p/2^bits when i = x and a_q/2^bits otherwise.
 *
 * Definition and bit use: fxdp/mechanisms/oracles/unary_encoding.py
 * (UnaryEncoding.release): one Bernoulli per item, i = 0..d-1 in order; the
 * Numba twin is fxdp/mechanisms/oracles/_kernels_unary_encoding.py.  The lazy
 * form draws the a_q items as two runs around x when bits <= 32
 * (fxdp_i_bernoulli_dyadic_run: the same bits, the threshold prepared once and
 * the bit buffer in registers).
 *
 * All or nothing in the caller's buffer, as fxdp_mech_rappor.c: bit i is
 * drawn straight into out[i], and an entropy failure wipes out[0..d) to zeros
 * before FXDP_ERR_ENTROPY is returned (no stack copy of the report).
 *
 * Constant-time form: every item reads exactly `bits` bits, and its
 * probability is selected with a mask computed without a branch on x.
 */
#include "fxdp_internal.h"

static fxdp_status ue_check(const fxdp_rng *r, const fxdp_unary_encoding_cfg *cfg, const uint32_t *x, const uint8_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->bits < 1u || cfg->bits > 63u || cfg->a_q == 0u || cfg->a_q >= cfg->a_p ||
        cfg->a_p >= (UINT64_C(1) << cfg->bits) || cfg->d < 2u || cfg->d > FXDP_UNARY_ENCODING_MAX_D || *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* All ones when i == x, else zero, without a branch. */
static uint64_t ue_eq_mask(uint32_t i, uint32_t x)
{
    uint32_t v = i ^ x;                               /* 0 iff equal */
    uint32_t nz = (v | (0u - v)) >> 31;               /* 1 iff v != 0 */
    return (uint64_t)nz - UINT64_C(1);                /* 0 - 1 = all ones iff equal */
}

static fxdp_status ue_run(fxdp_rng *r, const fxdp_unary_encoding_cfg *cfg, uint32_t x, uint8_t *out, int ct)
{
    uint32_t i;
    uint8_t b = 0;
    fxdp_status st = FXDP_OK;

    if (!ct && cfg->bits <= 32u) {                  /* items 0..x-1, x, x+1..d-1: three runs, the same bits */
        st = fxdp_i_bernoulli_dyadic_run(r, cfg->a_q, cfg->bits, out, 0u, x);
        if (st == FXDP_OK) {
            st = fxdp_i_bernoulli_dyadic_run(r, cfg->a_p, cfg->bits, out, x, x + 1u);
        }
        if (st == FXDP_OK) {
            st = fxdp_i_bernoulli_dyadic_run(r, cfg->a_q, cfg->bits, out, x + 1u, cfg->d);
        }
        if (st != FXDP_OK) {
            fxdp_i_wipe(out, (size_t)cfg->d);          /* nothing of this report is released */
        }
        return st;
    }
    for (i = 0; i < cfg->d; i++) {
        uint64_t m = ue_eq_mask(i, x);
        uint64_t a = (cfg->a_p & m) | (cfg->a_q & ~m);
        if (ct) {
            st = fxdp_i_bernoulli_dyadic_ct(r, a, cfg->bits, &b);
        } else {
            st = fxdp_i_bernoulli_dyadic(r, a, cfg->bits, &b);     /* bits > 32: one by one */
        }
        if (st != FXDP_OK) {
            fxdp_i_wipe(out, (size_t)cfg->d);          /* nothing of this report is released */
            return st;
        }
        out[i] = (uint8_t)(b & 1u);
    }
    return FXDP_OK;
}

fxdp_status fxdp_unary_encoding(fxdp_rng *r, const fxdp_unary_encoding_cfg *cfg, const uint32_t *x, uint8_t *out)
{
    fxdp_status st = ue_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return ue_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_unary_encoding_ct(fxdp_rng *r, const fxdp_unary_encoding_cfg *cfg, const uint32_t *x, uint8_t *out)
{
    fxdp_status st = ue_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return ue_run(r, cfg, *x, out, 1);
}
