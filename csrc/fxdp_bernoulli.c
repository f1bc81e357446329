/*
 * fxdp_bernoulli.c -- exact Bernoulli samplers: a/2^k (lazy and constant
 * time), n/d, exp(-n/d).  Bits as in reference.py, read one at a time from
 * the rng buffer (fxdp_i_bit) in the lazy forms.
 */
#include "fxdp_internal.h"

fxdp_status fxdp_i_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    unsigned kk = k;
    uint32_t buf, cnt, digit;

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
        kk -= 1u;
    }
    /*
     * now 1 <= kk <= 63 digits remain.  Rather than one bit per step, the
     * j = min(cnt, kk) buffered stream bits are XORed with the next j digits
     * of a; the most significant set bit of the XOR is the first difference
     * and only the bits up to and including it are consumed: exactly the
     * reference's bits.  A word is fetched only when the buffer is empty and
     * digits remain, as the reference's bits(1) would.
     */
    buf = r->bitbuf;
    cnt = r->bitcount;
    for (;;) {
        uint32_t j, sb, db, x;
        if (cnt == 0u) {
            r->bitbuf = 0;          /* buffer empty: the state is exact if the refill fails */
            r->bitcount = 0;
            if (fxdp_i_refill(r, &buf) != FXDP_OK) {
                return FXDP_ERR_ENTROPY;
            }
            cnt = 32u;
        }
        j = cnt < (uint32_t)kk ? cnt : (uint32_t)kk;               /* 1..32 */
        sb = (buf >> (cnt - j)) & fxdp_i_mask32(j);                  /* next j stream bits */
        db = (uint32_t)(a >> ((uint32_t)kk - j)) & fxdp_i_mask32(j); /* next j digits of p */
        x = sb ^ db;
        if (x != 0u) {
            unsigned lz = fxdp_i_bitlen32_nz(x);                     /* difference at j - lz */
            cnt -= j - (uint32_t)lz + 1u;
            digit = (db >> (lz - 1u)) & 1u;      /* digit 1 against bit 0: U < p */
            break;
        }
        cnt -= j;
        kk -= (unsigned)j;
        if (kk == 0u) {
            digit = 0u;                          /* U agrees with every digit: U >= p */
            break;
        }
    }
    r->bitbuf = buf & fxdp_i_mask32(cnt);
    r->bitcount = cnt;
    *out = (uint8_t)digit;
    return FXDP_OK;
}

fxdp_status fxdp_i_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    uint64_t x;

    if (fxdp_i_bits64(r, k, &x) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    *out = (uint8_t)fxdp_i_ct_lt64(x, a);
    return FXDP_OK;
}

fxdp_status fxdp_i_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out)
{
    uint64_t rem = n;
    uint32_t buf, cnt, bit, digit;

    if (n == 0u) {
        *out = 0;
        return FXDP_OK;
    }
    if (n == d) {
        *out = 1;
        return FXDP_OK;
    }
    buf = r->bitbuf;
    cnt = r->bitcount;
    for (;;) {
        /* next digit of n/d: 2 rem >= d, written so that nothing overflows */
        if (rem >= d - rem) {
            digit = 1u;
            rem -= d - rem;
        } else {
            digit = 0u;
            rem += rem;
        }
        if (cnt == 0u) {
            r->bitbuf = 0;
            r->bitcount = 0;
            if (fxdp_i_refill(r, &buf) != FXDP_OK) {
                return FXDP_ERR_ENTROPY;
            }
            cnt = 32u;
        }
        cnt -= 1u;
        bit = (buf >> cnt) & 1u;
        if (bit != digit || rem == 0u) {
            break;                  /* first difference, or the expansion ended: U >= p */
        }
    }
    r->bitbuf = buf & ((UINT32_C(1) << cnt) - 1u);
    r->bitcount = cnt;
    *out = (uint8_t)(bit != digit ? digit : 0u);
    return FXDP_OK;
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
