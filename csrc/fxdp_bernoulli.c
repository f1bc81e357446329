/*
 * fxdp_bernoulli.c -- exact Bernoulli samplers: a/2^k (lazy and constant
 * time, one draw or a block of up to 32 bit-sliced lanes), n/d, exp(-n/d).  Bits as in reference.py, read one at a time from
 * the rng buffer (fxdp_i_bit) in the lazy forms.
 */
#include "fxdp_internal.h"

fxdp_status fxdp_i_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    if (a == 0u) {
        *out = 0;
        return FXDP_OK;
    }
    if (k == 0u || a == (UINT64_C(1) << k)) {   /* k == 0: a == 1 == 2^0 here */
        *out = 1;
        return FXDP_OK;
    }
    while ((a & 1u) == 0u && k > 1u) {  /* a odd: drop the trailing zero digits of a/2^k (1 <= a < 2^k:
                                         an even a has k >= 2, so k > 1u never stops the loop; it
                                         tells the analysers that k >= 1 after it) */
        a >>= 1;
        k -= 1u;
    }
    {
        uint32_t buf = r->bitbuf, cnt = r->bitcount & 31u;   /* <= 31 always: see fxdp_i_bits */
        fxdp_status st = fxdp_i_rd_dyadic_odd(r, &buf, &cnt, a, k, out);
        r->bitbuf = buf;
        r->bitcount = cnt;
        return st;
    }
}

/* Lazy draws of Bernoulli(a / 2^kk), a odd, 1 <= kk <= 32, into out[lo..hi): the bits of
 * fxdp_i_rd_dyadic_odd, with the digits and the buffer left-aligned in 32-bit words (next digit,
 * next stream bit on top), so a draw is a few 32-bit operations: no 64-bit or variable shift (a
 * libgcc call on the Cortex-M0+, a loop on the AVR) except once per run.  A draw compares the
 * stream with the digits bit by bit by shifting both words, up to j = min(cnt, digits left) bits
 * (2 on average); the first difference decides it (digit 1 against bit 0: U < p).  State on return,
 * failure included, as fxdp_i_rd_dyadic_odd leaves it: the buffer is empty (0, 0) while a refill is
 * attempted. */
FXDP_I_INLINE fxdp_status dyadic_run32(fxdp_rng *r, uint32_t a, unsigned kk, uint8_t *out, uint32_t lo, uint32_t hi)
{
    uint32_t cnt = r->bitcount & 31u, i, w = 0;
    uint32_t lbuf = cnt == 0u ? 0u : r->bitbuf << (32u - cnt);      /* next stream bit on top */
    const uint32_t digits = a << (32u - kk);                          /* next digit on top */

    for (i = lo; i < hi; i++) {
        uint32_t t = digits, left = kk, digit;
        for (;;) {
            uint32_t j, used = 1u, differs;
            if (cnt == 0u) {
                r->bitbuf = 0;                          /* buffer empty: the exact state if the refill fails */
                r->bitcount = 0;
                if (fxdp_i_refill(r, &w) != FXDP_OK) {
                    return FXDP_ERR_ENTROPY;
                }
                lbuf = w;
                cnt = 32u;
            }
            j = cnt < left ? cnt : left;                /* 1..32 */
            while (((lbuf ^ t) >> 31) == 0u && used < j) {
                lbuf <<= 1;                             /* equal: the next bit and digit */
                t <<= 1;
                used++;
            }
            digit = t >> 31;
            differs = (lbuf ^ t) >> 31;
            lbuf <<= 1;                                 /* the last compared bit is consumed too */
            t <<= 1;
            cnt = (cnt - used) & 31u;                   /* used <= j <= cnt (& 31u changes nothing: for Eva) */
            if (differs != 0u) {
                break;                                  /* this digit decides */
            }
            left -= used;                               /* used == j: all equal */
            if (left == 0u) {
                digit = 0u;                             /* U agrees with every digit: U >= p */
                break;
            }                                           /* else j was cnt: the buffer is empty */
        }
        out[i] = (uint8_t)digit;
    }
    r->bitbuf = cnt == 0u ? 0u : lbuf >> ((32u - cnt) & 31u);
    r->bitcount = cnt;
    return FXDP_OK;
}

/* fxdp_i_bernoulli_dyadic(r, a, k, &out[i]) for i = lo..hi-1, 0 < a < 2^k, 1 <= k <= 32 (the
 * callers' thresholds; the draws that read no bit are not runs): the same bits, outputs and state
 * (after a failure too), with the threshold's trailing zeros dropped once and the bit buffer held in
 * locals across the draws (a run of one parameter, as unary encoding's items other than x).  No
 * call but the refill, so the stack of a release that uses it stays that of one draw.  On
 * FXDP_ERR_ENTROPY out[lo..hi) holds part of the draws: the callers wipe it. */
fxdp_status fxdp_i_bernoulli_dyadic_run(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out, uint32_t lo, uint32_t hi)
{
    uint32_t a32 = (uint32_t)a;         /* a < 2^k <= 2^32: 32-bit steps below (64-bit ones are long on the AVR) */

    while ((a32 & 1u) == 0u && k > 1u) {  /* a odd: drop the trailing zero digits of a/2^k (1 <= a < 2^k:
                                           an even a has k >= 2, so k > 1u never stops the loop; it
                                           tells the analysers that k >= 1 after it) */
        a32 >>= 1;
        k -= 1u;
    }
    return dyadic_run32(r, a32, k & 31u ? k & 31u : 32u, out, lo, hi);   /* 1 <= k <= 32 */
}

/* fxdp_i_rd_dyadic_ct's bits (bits64(k): bits(k - 32) then bits(32) for k > 32), read by
 * fxdp_i_take_bits: no out-of-line bit reader on the draw's call chain.  Branches on k only. */
fxdp_status fxdp_i_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out)
{
    uint32_t hi = 0, lo;
    unsigned klo = k;

    if (k > 32u) {
        if (fxdp_i_take_bits(r, k - 32u, &hi) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;        /* nothing consumed, as the reference */
        }
        klo = 32u;
    }
    if (fxdp_i_take_bits(r, klo, &lo) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;            /* the high part stays consumed, as the reference */
    }
    *out = (uint8_t)fxdp_i_ct_lt64(((uint64_t)hi << 32) | lo, a);
    return FXDP_OK;
}

/* lanes if bit01 is 1, 0 if it is 0: a mask, no branch. */
static uint32_t block_sel(uint64_t bit01, uint32_t lanes)
{
    return (0u - (uint32_t)bit01) & lanes;
}

/* reference.bernoulli_block (ct = 0) and bernoulli_block_ct (ct = 1): lane l is bit lanes-1-l;
 * a lane with mask bit 1 draws Bernoulli(a_one/2^k), else Bernoulli(a_zero/2^k); plane i reads
 * bits(lanes), each lane's next digit, and a lane is decided at its first digit unequal to its
 * threshold's.  The lazy form stops when every lane is decided (a lane with no 1 digit left in its
 * threshold is decided 0); the constant-time form reads all k planes and touches the mask only
 * with and/or, so its instructions and bits do not depend on the mask (the secret) or the digits.
 * Preconditions: 1 <= lanes <= 32, k <= 63, a_one, a_zero <= 2^k, mask < 2^lanes. */
fxdp_status fxdp_i_bernoulli_block(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                   uint32_t mask, uint32_t *out, int ct)
{
    uint32_t full = (uint32_t)((UINT64_C(1) << lanes) - 1u), one = mask & full, zero = full & ~mask;
    uint32_t result = block_sel(a_one >> k, one) | block_sel(a_zero >> k, zero);   /* a = 2^k: 1 */
    uint32_t und = full & ~result, w = 0, a;
    /* the thresholds' k digits left-aligned, the next plane's digit on top: a shift by one per plane
     * (a variable 64-bit shift per plane is a libgcc call on a 32-bit MCU) */
    uint64_t d1 = k == 0u ? 0u : a_one << (64u - k), d0 = k == 0u ? 0u : a_zero << (64u - k);
    unsigned i;

    for (i = 0; i < k; i++) {
        if (!ct) {
            und &= block_sel(d1 != 0u, one) | block_sel(d0 != 0u, zero);   /* a 1 digit left, or 0 */
            if (und == 0u) {
                break;
            }
        }
        if (fxdp_i_take_bits(r, lanes, &w) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;                          /* the planes read stay consumed */
        }
        a = block_sel(d1 >> 63, one) | block_sel(d0 >> 63, zero);
        d1 <<= 1;
        d0 <<= 1;
        result |= und & ~w & a;                               /* u = 0 < a = 1: U < a, 1 */
        und &= ~(w ^ a);                                      /* equal digits: undecided */
    }
    *out = result;
    return FXDP_OK;
}

/* The bits of fxdp_i_rd_rational (the lazy comparison of U with the binary digits of n/d), with
 * the buffered bits compared in an inner loop that makes no call: only the refill between words
 * is a call, with just r, out, rem and d live across it, so the frame stays small.  Inlined into
 * bernoulli_exp too: one call level less on the lazy geometric's deepest chain (discrete Laplace >
 * exp > refill > ChaCha20 block). */
FXDP_I_INLINE fxdp_status rational_core(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out)
{
    uint64_t rem = n;
    uint32_t buf = r->bitbuf, cnt = r->bitcount, digit;

    if (n == 0u) {
        *out = 0;
        return FXDP_OK;
    }
    if (n == d) {
        *out = 1;
        return FXDP_OK;
    }
    for (;;) {
        if (cnt == 0u) {
            uint32_t w = 0;
            r->bitbuf = 0;                  /* buffer empty: the exact state if the refill fails */
            r->bitcount = 0;
            if (fxdp_i_refill(r, &w) != FXDP_OK) {
                return FXDP_ERR_ENTROPY;
            }
            buf = w;
            cnt = 32u;
        }
        do {
            /* next digit of n/d: 2 rem >= d, written so that nothing overflows */
            if (rem >= d - rem) {
                digit = 1u;
                rem -= d - rem;
            } else {
                digit = 0u;
                rem += rem;
            }
            cnt -= 1u;
            if (((buf >> cnt) & 1u) != digit) {
                goto done;                  /* U and p differ first here: U < p iff digit is 1 */
            }
            if (rem == 0u) {
                digit = 0u;                 /* the expansion ended: U >= p */
                goto done;
            }
        } while (cnt != 0u);
    }
done:
    r->bitbuf = buf & ((UINT32_C(1) << cnt) - 1u);     /* cnt <= 31 here */
    r->bitcount = cnt;
    *out = (uint8_t)digit;
    return FXDP_OK;
}

fxdp_status fxdp_i_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out)
{
    return rational_core(r, n, d, out);
}

/* exp(-n/d) = exp(-1)^floor(n/d) exp(-(n mod d)/d), each factor 0 <= a/b <= 1 drawn as: K = 1;
 * while bernoulli_rational(a, b K): K++; the factor is 1 iff K is odd.  The floor(n/d) factors
 * exp(-1/1) first (stop at the first 0), then exp(-(n mod d)/d): one loop, so the rational core
 * is inlined once. */
fxdp_status fxdp_i_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out)
{
    uint32_t whole = n / d, i = 0, a = 1, b = 1;
    uint64_t bk;
    uint8_t odd, c;

    for (;;) {
        if (i == whole) {               /* the last factor, exp(-(n mod d)/d) */
            a = n % d;
            b = d;
        }
        bk = b;
        odd = 1;
        for (;;) {
            if (rational_core(r, a, bk, &c) != FXDP_OK) {
                return FXDP_ERR_ENTROPY;
            }
            if (c == 0u) {
                break;
            }
            if (bk > UINT64_MAX - b) {
                return FXDP_ERR_RANGE;  /* K reached 2^64 / b: probability below 1/(2^32)! */
            }
            bk += b;
            odd ^= 1u;
        }
        if (i == whole || odd == 0u) {
            *out = i == whole ? odd : 0u;
            return FXDP_OK;
        }
        i++;
    }
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

static fxdp_status block_public(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                uint32_t mask, uint32_t *out, int ct)
{
    uint32_t v = 0;
    fxdp_status st;

    if (r == NULL || out == NULL || lanes < 1u || lanes > FXDP_BLOCK_MAX_LANES || k > 63u ||
        a_one > (UINT64_C(1) << k) || a_zero > (UINT64_C(1) << k) || ((uint64_t)mask >> lanes) != 0u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_block(r, lanes, a_one, a_zero, k, mask, &v, ct);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}

fxdp_status fxdp_bernoulli_block(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                 uint32_t mask, uint32_t *out)
{
    return block_public(r, lanes, a_one, a_zero, k, mask, out, 0);
}

fxdp_status fxdp_bernoulli_block_ct(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                    uint32_t mask, uint32_t *out)
{
    return block_public(r, lanes, a_one, a_zero, k, mask, out, 1);
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
