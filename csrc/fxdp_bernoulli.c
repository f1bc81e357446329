/*
 * fxdp_bernoulli.c -- exact Bernoulli samplers: a/2^k (lazy and constant
 * time), n/d, exp(-n/d).  Bits as in reference.py, read one at a time from
 * the rng buffer (fxdp_i_bit) in the lazy forms.
 */
#include "fxdp_internal.h"

fxdp_status fxdp_i_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    if (a == 0u) {
        *out = 0;
        return FXDP_OK;
    }
    if (a == (UINT64_C(1) << k)) {
        *out = 1;
        return FXDP_OK;
    }
    while ((a & 1u) == 0u) {        /* a odd: drop the trailing zero digits of a/2^k */
        a >>= 1;
        k -= 1u;
    }
    {
        uint32_t buf = r->bitbuf, cnt = r->bitcount;
        fxdp_status st = fxdp_i_rd_dyadic_odd(r, &buf, &cnt, a, k, out);
        r->bitbuf = buf;
        r->bitcount = cnt;
        return st;
    }
}

fxdp_status fxdp_i_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount;
    fxdp_status st = fxdp_i_rd_dyadic_ct(r, &buf, &cnt, a, k, out);
    r->bitbuf = buf;
    r->bitcount = cnt;
    return st;
}

fxdp_status fxdp_i_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount;
    fxdp_status st = fxdp_i_rd_rational(r, &buf, &cnt, n, d, out);
    r->bitbuf = buf;
    r->bitcount = cnt;
    return st;
}

/* exp(-n/d) for 0 <= n <= d: K = 1; while bernoulli_rational(n, d K): K++; K odd. */
static fxdp_status bernoulli_exp_le1(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out)
{
    uint64_t dk = d;
    uint8_t odd = 1, b;

    for (;;) {
        if (fxdp_i_bernoulli_rational(r, n, dk, &b) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        if (b == 0u) {
            *out = odd;
            return FXDP_OK;
        }
        if (dk > UINT64_MAX - d) {
            return FXDP_ERR_RANGE;  /* K reached 2^64 / d: probability below 1/(2^32)! */
        }
        dk += d;
        odd ^= 1u;
    }
}

fxdp_status fxdp_i_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out)
{
    uint32_t whole = n / d, i;
    uint8_t b;
    fxdp_status st;

    for (i = 0; i < whole; i++) {
        st = bernoulli_exp_le1(r, 1u, 1u, &b);
        if (st != FXDP_OK) {
            return st;
        }
        if (b == 0u) {
            *out = 0;
            return FXDP_OK;
        }
    }
    return bernoulli_exp_le1(r, n % d, d, out);
}

fxdp_status fxdp_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    uint8_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || k > 63u || a > (UINT64_C(1) << k)) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_dyadic(r, a, k, &v);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}

fxdp_status fxdp_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    uint8_t v;
    fxdp_status st;

    /* for valid parameters every branch here goes the same way whatever a is */
    if (r == NULL || out == NULL || k > 63u || a > (UINT64_C(1) << k)) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_dyadic_ct(r, a, k, &v);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}

fxdp_status fxdp_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out)
{
    uint8_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || d == 0u || n > d) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_rational(r, n, d, &v);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}

fxdp_status fxdp_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out)
{
    uint8_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || d == 0u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_exp(r, n, d, &v);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}
