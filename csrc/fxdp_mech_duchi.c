/*
 * fxdp_mech_duchi.c -- Duchi et al.'s one-bit mechanism for a bounded reading
 * (Duchi, Jordan, Wainwright, JASA 2018) on a fixed-point grid: the device
 * holds its reading as a grid index x in [0, 2^bits] and reports one bit y,
 * P(y = 1 | x) = num_x / 2^(prob_bits + bits) with
 * num_x = (2^prob_bits - a_p) 2^bits + (2 a_p - 2^prob_bits) x,
 * running linearly from 1 - p (x = 0) to p = a_p / 2^prob_bits (x = 2^bits).
 *
 * Definition and bit use: fxdp/mechanisms/readings/duchi.py (Duchi.release): one
 * Bernoulli(num_x / 2^(prob_bits + bits)), lazy or constant time.  The Numba
 * twin is fxdp/mechanisms/readings/_kernels_duchi.py.
 *
 * num_x is a masked shift-and-add over the `bits` bits of x (bits is public
 * configuration): no multiply (whose time varies on some cores) and no branch
 * on x.  The constant-time form then reads exactly prob_bits + bits bits.
 * out is written only on FXDP_OK.
 */
#include "fxdp_mech_duchi.h"

int fxdp_i_duchi_ok(const fxdp_duchi_cfg *cfg, uint32_t x)
{
    return !(cfg->prob_bits < 2u || cfg->prob_bits > 32u || cfg->bits < 1u || cfg->bits > FXDP_DUCHI_MAX_BITS ||
             cfg->a_p <= (UINT64_C(1) << (cfg->prob_bits - 1u)) || cfg->a_p >= (UINT64_C(1) << cfg->prob_bits) ||
             x > (UINT32_C(1) << cfg->bits));
}

static fxdp_status duchi_check(const fxdp_rng *r, const fxdp_duchi_cfg *cfg, const uint32_t *x, const uint8_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_duchi_ok(cfg, *x)) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* num_x without a multiply or a branch on x: sum over j of (slope << j) masked by bit j of x.
 * x = 2^bits (the top level) has only bit `bits` set, hence the loop to bits inclusive.
 * Out of line: its 64-bit temporaries stay off the draw's (deepest) call chain. */
static FXDP_I_OUTLINE uint64_t duchi_numerator(const fxdp_duchi_cfg *cfg, uint32_t x)
{
    uint64_t one = UINT64_C(1) << cfg->prob_bits;
    uint64_t slope = 2u * cfg->a_p - one;
    uint64_t num = (one - cfg->a_p) << cfg->bits;
    unsigned j;

    for (j = 0; j <= cfg->bits; j++) {
        uint64_t bit = (uint64_t)((x >> j) & 1u);
        num += (slope << j) & (UINT64_C(0) - bit);
    }
    return num;
}

/* The draw, merged into each caller (ct a constant there): out is written only on FXDP_OK. */
FXDP_I_INLINE fxdp_status duchi_run(fxdp_rng *r, const fxdp_duchi_cfg *cfg, uint32_t x, uint8_t *out, int ct)
{
    uint64_t num = duchi_numerator(cfg, x);
    unsigned k = (unsigned)cfg->prob_bits + (unsigned)cfg->bits;
    uint8_t b = 0;
    fxdp_status st;

    if (ct) {
        st = fxdp_i_bernoulli_dyadic_ct(r, num, k, &b);
    } else {
        st = fxdp_i_bernoulli_dyadic(r, num, k, &b);
    }
    if (st != FXDP_OK) {
        return st;
    }
    *out = b;
    return FXDP_OK;
}

/* The bit as a uint32_t for the Hybrid and multi-dimensional forms: one function per form with four
 * arguments (a fifth, ct, would go on the ARM stack; the ct form links no lazy sampler). */
fxdp_status fxdp_i_duchi_lazy(fxdp_rng *r, const fxdp_duchi_cfg *cfg, uint32_t x, uint32_t *out)
{
    uint8_t b = 0;
    fxdp_status st = duchi_run(r, cfg, x, &b, 0);

    if (st == FXDP_OK) {
        *out = b;
    }
    return st;
}

fxdp_status fxdp_i_duchi_ct(fxdp_rng *r, const fxdp_duchi_cfg *cfg, uint32_t x, uint32_t *out)
{
    uint8_t b = 0;
    fxdp_status st = duchi_run(r, cfg, x, &b, 1);

    if (st == FXDP_OK) {
        *out = b;
    }
    return st;
}

fxdp_status fxdp_duchi(fxdp_rng *r, const fxdp_duchi_cfg *cfg, const uint32_t *x, uint8_t *out)
{
    fxdp_status st = duchi_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return duchi_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_duchi_ct(fxdp_rng *r, const fxdp_duchi_cfg *cfg, const uint32_t *x, uint8_t *out)
{
    fxdp_status st = duchi_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return duchi_run(r, cfg, *x, out, 1);
}
