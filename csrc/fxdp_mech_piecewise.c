/*
 * fxdp_mech_piecewise.c -- the Piecewise mechanism for a bounded reading (Wang et
 * al., ICDE 2019) on a grid: input x = grid index in [0, 2^bits], output one
 * cell j of 2^bits + w; the w cells [x, x + w) (the band) have probability
 * a/2^prob_bits each, every other cell (2^prob_bits - w a)/2^(prob_bits + bits).
 *
 * Definition and bit use: fxdp/mechanisms/readings/piecewise.py (Piecewise.release).
 * Lazy: b = Bernoulli(w a / 2^prob_bits); j = x + uniform_below(w) if b, else
 * u = `bits` bits and j = u + w [u >= x].  Constant time: U = prob_bits bits,
 * u = `bits` bits (always), b = [U < w a], j = x + floor(U / a) if b (uniform
 * on [0, w) given b), else u + w [u >= x]; the quotient by a fixed-iteration (25)
 * branch-free restoring division and the selections by masks, so no branch
 * depends on x, U, u or b.  The Numba twin is fxdp/mechanisms/readings/_kernels_piecewise.py.
 * out is written only on FXDP_OK.
 */
#include "fxdp_mech_piecewise.h"

int fxdp_i_piecewise_ok(const fxdp_piecewise_cfg *cfg, uint32_t x)
{
    return !(cfg->prob_bits < 2u || cfg->prob_bits > 32u || cfg->bits < 1u || cfg->bits > FXDP_PIECEWISE_MAX_BITS ||
             cfg->w < 1u || cfg->w > (UINT32_C(1) << cfg->bits) || cfg->a < 1u ||
             cfg->a >= (UINT64_C(1) << cfg->prob_bits) ||
             (uint64_t)cfg->w * cfg->a >= (UINT64_C(1) << cfg->prob_bits) || x > (UINT32_C(1) << cfg->bits));
}

static fxdp_status pm_check(const fxdp_rng *r, const fxdp_piecewise_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_piecewise_ok(cfg, *x)) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* u + w [u >= x] without a branch: the outside cell of index u. */
static uint32_t pm_outside(uint32_t u, uint32_t x, uint32_t w)
{
    uint32_t ge = 1u - (uint32_t)fxdp_i_ct_lt64(u, x);
    return u + (w & (0u - ge));
}

fxdp_status fxdp_i_piecewise_lazy(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, uint32_t x, uint32_t *out)
{
    uint8_t b = 0;
    uint32_t v = 0;
    fxdp_status st = fxdp_i_bernoulli_dyadic(r, (uint64_t)cfg->w * cfg->a, cfg->prob_bits, &b);

    if (st != FXDP_OK) {
        return st;
    }
    if (b) {
        st = fxdp_i_uniform_below_u32(r, cfg->w, &v);
        if (st != FXDP_OK) {
            return st;
        }
        *out = x + v;
        return FXDP_OK;
    }
    st = fxdp_i_bits(r, cfg->bits, &v);
    if (st != FXDP_OK) {
        return st;
    }
    *out = pm_outside(v, x, cfg->w);
    return FXDP_OK;
}

/* The cell from the constant-time draws U, u.  Out of line: the division's 64-bit temporaries
 * are not on the stack during the draws' refill (issue 13's 256 B goal). */
static FXDP_I_OUTLINE uint32_t pm_ct_cell(const fxdp_piecewise_cfg *cfg, uint32_t x, uint32_t U, uint32_t u)
{
    uint32_t q = 0, band, sel;
    uint64_t rem;
    unsigned t;

    /* q = floor(U / a), exact when U < w a <= a 2^FXDP_PIECEWISE_MAX_BITS (the only case it is used);
     * a fixed FXDP_PIECEWISE_MAX_BITS + 1 quotient bits whatever w, so the loop is the same for all. */
    rem = U;
    for (t = FXDP_PIECEWISE_MAX_BITS + 1u; t-- > 0u;) {
        uint64_t d = cfg->a << t;
        uint64_t ge = 1u - fxdp_i_ct_lt64(rem, d);
        rem -= d & (UINT64_C(0) - ge);
        q |= (uint32_t)ge << t;
    }
    band = (uint32_t)fxdp_i_ct_lt64(U, (uint64_t)cfg->w * cfg->a);
    sel = 0u - band;
    return ((x + q) & sel) | (pm_outside(u, x, cfg->w) & ~sel);
}

fxdp_status fxdp_i_piecewise_ct(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, uint32_t x, uint32_t *out)
{
    uint32_t U = 0, u = 0;
    fxdp_status st = fxdp_i_bits(r, cfg->prob_bits, &U);

    if (st != FXDP_OK) {
        return st;
    }
    st = fxdp_i_bits(r, cfg->bits, &u);
    if (st != FXDP_OK) {
        return st;
    }
    *out = pm_ct_cell(cfg, x, U, u);
    return FXDP_OK;
}

fxdp_status fxdp_piecewise(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = pm_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_piecewise_lazy(r, cfg, *x, out);
}

fxdp_status fxdp_piecewise_ct(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = pm_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_piecewise_ct(r, cfg, *x, out);
}
