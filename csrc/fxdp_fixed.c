/*
 * fxdp_fixed.c -- layer 0: fixed-point integer helpers.
 *
 * Portable C99 (<stdint.h>, <stddef.h> only).  No undefined behaviour for any
 * input: signed values are never overflowed, never shifted when negative and
 * never shifted by their width or more; all wrapping work is done on unsigned
 * types, and unsigned bit patterns are turned back into signed values only
 * through fxdp__s32/fxdp__s64, which avoid the implementation-defined
 * out-of-range conversion (gcc compiles them to nothing).  int may be 16 bits
 * (AVR): every constant wider than that carries its type.  No 128-bit
 * integers: the 64x64 product is done with 32-bit limbs.
 *
 * The Python twin is fxdp/fixed.py (QFormat.add/sub/mul); mul_q_* computes
 * round(a * b / 2^frac) exactly, with the rounding of the dropped bits given
 * by fxdp_round, and then range-checks or saturates.
 */
#include "fxdp.h"

#define FXDP__M32 UINT32_C(0xFFFFFFFF)

/* ---- bit-pattern helpers ------------------------------------------------- */

/* The int32_t whose two's-complement bit pattern is u. */
static int32_t fxdp__s32(uint32_t u)
{
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - UINT32_C(0x80000000)) + INT32_MIN;
}

/* The int64_t whose two's-complement bit pattern is u. */
static int64_t fxdp__s64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return (int64_t)(u - UINT64_C(0x8000000000000000)) + INT64_MIN;
}

/* |a| as unsigned (|INT32_MIN| = 2^31 fits). */
static uint32_t fxdp__abs32(int32_t a)
{
    return a < 0 ? (uint32_t)0 - (uint32_t)a : (uint32_t)a;
}

static uint64_t fxdp__abs64(int64_t a)
{
    return a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
}

static int fxdp__round_ok(fxdp_round r)
{
    return r == FXDP_ROUND_NEAREST_EVEN || r == FXDP_ROUND_FLOOR || r == FXDP_ROUND_CEIL ||
           r == FXDP_ROUND_TOWARD_ZERO;
}

/*
 * 1 if the truncated magnitude q (of a value with sign neg) must be increased
 * by one to round the exact magnitude q + rem/2^frac, else 0.  half is
 * 2^(frac-1) for frac >= 1 and 1 for frac == 0 (then rem == 0).
 */
static unsigned fxdp__round_up(uint64_t q, uint64_t rem, uint64_t half, int neg, fxdp_round r)
{
    if (rem == 0u)
        return 0u;
    switch (r) {
    case FXDP_ROUND_FLOOR:
        return neg ? 1u : 0u;
    case FXDP_ROUND_CEIL:
        return neg ? 0u : 1u;
    case FXDP_ROUND_NEAREST_EVEN:
        if (rem != half)
            return rem > half ? 1u : 0u;
        return (unsigned)(q & 1u);
    case FXDP_ROUND_TOWARD_ZERO:
    default:
        return 0u;
    }
}

/* ---- count leading zeros ------------------------------------------------- */

unsigned fxdp_clz32(uint32_t x)
{
    unsigned n = 0u;
    if (x == 0u)
        return 32u;
    if ((x & UINT32_C(0xFFFF0000)) == 0u) { n += 16u; x <<= 16; }
    if ((x & UINT32_C(0xFF000000)) == 0u) { n += 8u; x <<= 8; }
    if ((x & UINT32_C(0xF0000000)) == 0u) { n += 4u; x <<= 4; }
    if ((x & UINT32_C(0xC0000000)) == 0u) { n += 2u; x <<= 2; }
    if ((x & UINT32_C(0x80000000)) == 0u) { n += 1u; }
    return n;
}

unsigned fxdp_clz64(uint64_t x)
{
    uint32_t hi = (uint32_t)(x >> 32);
    if (hi != 0u)
        return fxdp_clz32(hi);
    return 32u + fxdp_clz32((uint32_t)(x & FXDP__M32));
}

/* ---- int32 --------------------------------------------------------------- */

/* Overflow tests (sat_* / checked_* add and sub): the exact a + b (a - b) does not fit iff a is
 * beyond a bound that is itself in range (b > 0 ? a > MAX - b : a < MIN - b).  Written in each
 * function's own condition, not as the sign bits of the wrapped sum: WP proves the contracts of
 * fxdp.h from them (Z3 could not decide the XOR form), and Eva's octagons relate a + b to the
 * test, so the sum returned after it cannot overflow (issue 18). */

int32_t fxdp_sat_add_i32(int32_t a, int32_t b)
{
    if (b > 0 ? (a > INT32_MAX - b) : (a < INT32_MIN - b))
        return a < 0 ? INT32_MIN : INT32_MAX;  /* overflow only when a, b share a sign */
    return a + b;
}

int32_t fxdp_sat_sub_i32(int32_t a, int32_t b)
{
    if (b < 0 ? (a > INT32_MAX + b) : (a < INT32_MIN + b))
        return a < 0 ? INT32_MIN : INT32_MAX;  /* overflow only when a, b differ in sign */
    return a - b;
}

fxdp_status fxdp_checked_add_i32(int32_t a, int32_t b, int32_t *out)
{
    if (out == NULL)
        return FXDP_ERR_PARAM;
    if (b > 0 ? (a > INT32_MAX - b) : (a < INT32_MIN - b))
        return FXDP_ERR_RANGE;
    *out = a + b;
    return FXDP_OK;
}

fxdp_status fxdp_checked_sub_i32(int32_t a, int32_t b, int32_t *out)
{
    if (out == NULL)
        return FXDP_ERR_PARAM;
    if (b < 0 ? (a > INT32_MAX + b) : (a < INT32_MIN + b))
        return FXDP_ERR_RANGE;
    *out = a - b;
    return FXDP_OK;
}

fxdp_status fxdp_mul_q_i32(int32_t a, int32_t b, unsigned frac, fxdp_round rounding, int saturate,
                           int32_t *out)
{
    int neg;
    uint64_t m, q, rem, half, limit;
    if (out == NULL || frac > 31u || !fxdp__round_ok(rounding) || (saturate != 0 && saturate != 1))
        return FXDP_ERR_PARAM;
    neg = (a < 0) != (b < 0);
    m = (uint64_t)fxdp__abs32(a) * fxdp__abs32(b);  /* exact, <= 2^62 */
    q = m >> frac;
    rem = m & ((UINT64_C(1) << frac) - 1u);
    half = frac ? UINT64_C(1) << (frac - 1u) : UINT64_C(1);
    q += fxdp__round_up(q, rem, half, neg, rounding);  /* <= 2^62 + 1 */
    limit = neg ? UINT64_C(0x80000000) : UINT64_C(0x7FFFFFFF);
    if (q > limit) {
        if (!saturate)
            return FXDP_ERR_RANGE;
        q = limit;
    }
    *out = neg ? fxdp__s32((uint32_t)0 - (uint32_t)q) : (int32_t)q;
    return FXDP_OK;
}

/* ---- int64 --------------------------------------------------------------- */

int64_t fxdp_sat_add_i64(int64_t a, int64_t b)
{
    if (b > 0 ? (a > INT64_MAX - b) : (a < INT64_MIN - b))
        return a < 0 ? INT64_MIN : INT64_MAX;
    return a + b;
}

int64_t fxdp_sat_sub_i64(int64_t a, int64_t b)
{
    if (b < 0 ? (a > INT64_MAX + b) : (a < INT64_MIN + b))
        return a < 0 ? INT64_MIN : INT64_MAX;
    return a - b;
}

fxdp_status fxdp_checked_add_i64(int64_t a, int64_t b, int64_t *out)
{
    if (out == NULL)
        return FXDP_ERR_PARAM;
    if (b > 0 ? (a > INT64_MAX - b) : (a < INT64_MIN - b))
        return FXDP_ERR_RANGE;
    *out = a + b;
    return FXDP_OK;
}

fxdp_status fxdp_checked_sub_i64(int64_t a, int64_t b, int64_t *out)
{
    if (out == NULL)
        return FXDP_ERR_PARAM;
    if (b < 0 ? (a > INT64_MAX + b) : (a < INT64_MIN + b))
        return FXDP_ERR_RANGE;
    *out = a - b;
    return FXDP_OK;
}

/* Full 128-bit product of two uint64 as (hi, lo), from four 32x32->64 limb products. */
static void fxdp__mul_u64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & FXDP__M32, a1 = a >> 32, b0 = b & FXDP__M32, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & FXDP__M32) + (p10 & FXDP__M32);  /* < 3 * 2^32 */
    *lo = (mid << 32) | (p00 & FXDP__M32);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

fxdp_status fxdp_mul_q_i64(int64_t a, int64_t b, unsigned frac, fxdp_round rounding, int saturate,
                           int64_t *out)
{
    int neg;
    unsigned up;
    uint64_t hi, lo, qhi, qlo, rem, half, limit;
    if (out == NULL || frac > 63u || !fxdp__round_ok(rounding) || (saturate != 0 && saturate != 1))
        return FXDP_ERR_PARAM;
    neg = (a < 0) != (b < 0);
    fxdp__mul_u64x64(fxdp__abs64(a), fxdp__abs64(b), &hi, &lo);  /* exact, <= 2^126 */
    if (frac == 0u) {
        qhi = hi;
        qlo = lo;
        rem = 0u;
        half = 1u;
    } else {
        qhi = hi >> frac;
        qlo = (lo >> frac) | (hi << (64u - frac));
        rem = lo & ((UINT64_C(1) << frac) - 1u);
        half = UINT64_C(1) << (frac - 1u);
    }
    up = fxdp__round_up(qlo, rem, half, neg, rounding);
    qlo += up;
    qhi += (qlo < up) ? 1u : 0u;  /* carry; qhi < 2^62, cannot wrap */
    limit = neg ? UINT64_C(0x8000000000000000) : UINT64_C(0x7FFFFFFFFFFFFFFF);
    if (qhi != 0u || qlo > limit) {
        if (!saturate)
            return FXDP_ERR_RANGE;
        qlo = limit;
    }
    *out = neg ? fxdp__s64((uint64_t)0 - qlo) : (int64_t)qlo;
    return FXDP_OK;
}

/* ---- uint32 -------------------------------------------------------------- */

/* The overflow tests compare with the headroom (b > 2^32 - 1 - a), not the wrapped sum (s < a):
 * the same test, but WP proves the contracts from it, while Z3 failed on the wrapped form. */
uint32_t fxdp_sat_add_u32(uint32_t a, uint32_t b)
{
    return b > FXDP__M32 - a ? FXDP__M32 : a + b;
}

uint32_t fxdp_sat_sub_u32(uint32_t a, uint32_t b)
{
    return a < b ? (uint32_t)0 : a - b;
}

fxdp_status fxdp_checked_add_u32(uint32_t a, uint32_t b, uint32_t *out)
{
    if (out == NULL)
        return FXDP_ERR_PARAM;
    if (b > FXDP__M32 - a)
        return FXDP_ERR_RANGE;
    *out = a + b;
    return FXDP_OK;
}

fxdp_status fxdp_checked_sub_u32(uint32_t a, uint32_t b, uint32_t *out)
{
    if (out == NULL)
        return FXDP_ERR_PARAM;
    if (a < b)
        return FXDP_ERR_RANGE;
    *out = a - b;
    return FXDP_OK;
}

fxdp_status fxdp_mul_q_u32(uint32_t a, uint32_t b, unsigned frac, fxdp_round rounding, int saturate,
                           uint32_t *out)
{
    uint64_t m, q, rem, half;
    if (out == NULL || frac > 32u || !fxdp__round_ok(rounding) || (saturate != 0 && saturate != 1))
        return FXDP_ERR_PARAM;
    m = (uint64_t)a * b;  /* exact, < 2^64 */
    q = m >> frac;
    rem = m & ((UINT64_C(1) << frac) - 1u);
    half = frac ? UINT64_C(1) << (frac - 1u) : UINT64_C(1);
    q += fxdp__round_up(q, rem, half, 0, rounding);  /* q < 2^64 - 1 before, no wrap */
    if (q > FXDP__M32) {
        if (!saturate)
            return FXDP_ERR_RANGE;
        q = FXDP__M32;
    }
    *out = (uint32_t)q;
    return FXDP_OK;
}
