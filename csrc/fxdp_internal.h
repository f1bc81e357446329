/*
 * fxdp_internal.h -- private helpers shared by the fxdp C files (not part of
 * the public API, not a cffi cdef; firmware need not include it).
 *
 * The fxdp_i_* functions do NOT validate their arguments: callers (the public
 * entry points in fxdp_*.c and the host bulk loops) validate parameters and
 * check fxdp_i_ready() once, then call these.  Every fxdp_i_* function that
 * can fail returns at once on the first failure, writing no output.
 */
#ifndef FXDP_INTERNAL_H
#define FXDP_INTERNAL_H

#include "fxdp.h"

/* Next 32-bit word of r's word source (fxdp_rng.c); on failure sets the sticky
 * r->status = FXDP_ERR_ENTROPY and returns FXDP_ERR_ENTROPY, *w unwritten. */
fxdp_status fxdp_i_refill(fxdp_rng *r, uint32_t *w);

/* FXDP_OK if r can be drawn from: FXDP_ERR_ENTROPY if it has failed before,
 * FXDP_ERR_PARAM if its state is corrupt (bitcount > 31). */
static inline fxdp_status fxdp_i_ready(const fxdp_rng *r)
{
    if (r->status != 0u) {
        return FXDP_ERR_ENTROPY;
    }
    if (r->bitcount > 31u) {
        return FXDP_ERR_PARAM;
    }
    return FXDP_OK;
}

/* Next n (0..32) stream bits, first bit most significant (BitSource.bits). */
static inline fxdp_status fxdp_i_bits(fxdp_rng *r, unsigned n, uint32_t *out)
{
    uint32_t cnt = r->bitcount;
    uint32_t nn = (uint32_t)n;

    if (nn <= cnt) {
        cnt -= nn;
        *out = r->bitbuf >> cnt;
        r->bitbuf &= (UINT32_C(1) << cnt) - 1u;
        r->bitcount = cnt;
    } else {
        uint32_t w;
        uint32_t need = nn - cnt;            /* 1..32 */
        if (fxdp_i_refill(r, &w) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        /* (bitbuf << need) without a shift by 32: bitbuf is 0 when need is 32 */
        *out = ((r->bitbuf << (need - 1u)) << 1) | (w >> (32u - need));
        cnt = 32u - need;                    /* 0..31 */
        r->bitbuf = w & ((UINT32_C(1) << cnt) - 1u);
        r->bitcount = cnt;
    }
    return FXDP_OK;
}

/* Next single bit (same stream use as fxdp_i_bits(r, 1, .)). */
static inline fxdp_status fxdp_i_bit(fxdp_rng *r, uint32_t *bit)
{
    uint32_t cnt = r->bitcount;

    if (cnt == 0u) {
        uint32_t w;
        if (fxdp_i_refill(r, &w) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        r->bitbuf = w;
        cnt = 32u;
    }
    cnt -= 1u;
    *bit = (r->bitbuf >> cnt) & 1u;
    r->bitbuf &= (UINT32_C(1) << cnt) - 1u;
    r->bitcount = cnt;
    return FXDP_OK;
}

/* Next n (0..64) bits: bits(n) for n <= 32, else bits(n - 32) then bits(32). */
static inline fxdp_status fxdp_i_bits64(fxdp_rng *r, unsigned n, uint64_t *out)
{
    uint32_t hi, lo;

    if (n <= 32u) {
        if (fxdp_i_bits(r, n, &lo) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        *out = lo;
        return FXDP_OK;
    }
    if (fxdp_i_bits(r, n - 32u, &hi) != FXDP_OK || fxdp_i_bits(r, 32u, &lo) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    *out = ((uint64_t)hi << 32) | lo;
    return FXDP_OK;
}

/* Constant-time comparisons (no branches; BearSSL style). */
static inline uint32_t fxdp_i_ct_gt32(uint32_t x, uint32_t y)   /* x > y ? 1 : 0 */
{
    uint32_t z = y - x;
    return (z ^ ((x ^ y) & (x ^ z))) >> 31;
}

static inline uint64_t fxdp_i_ct_lt64(uint64_t x, uint64_t y)   /* x < y ? 1 : 0 */
{
    uint64_t z = x - y;
    return (z ^ ((x ^ y) & (y ^ z))) >> 63;
}

/* Number of significant bits of v (0 for v = 0). */
unsigned fxdp_i_bitlen64(uint64_t v);

/* Number of significant bits of v, v != 0. */
static inline unsigned fxdp_i_bitlen32_nz(uint32_t v)
{
#if defined(__GNUC__) && !defined(FXDP_PORTABLE_BITLEN)
    return (unsigned)(sizeof(unsigned long) * 8u) - (unsigned)__builtin_clzl((unsigned long)v);
#else
    unsigned k = 1;
    if ((v >> 16) != 0u) { k += 16u; v >>= 16; }
    if ((v >> 8) != 0u) { k += 8u; v >>= 8; }
    if ((v >> 4) != 0u) { k += 4u; v >>= 4; }
    if ((v >> 2) != 0u) { k += 2u; v >>= 2; }
    if ((v >> 1) != 0u) { k += 1u; }
    return k;
#endif
}

/* Mask of the low j bits, j in 0..32. */
static inline uint32_t fxdp_i_mask32(uint32_t j)
{
    return j == 0u ? 0u : UINT32_C(0xFFFFFFFF) >> (32u - j);
}

/* Unvalidated samplers (preconditions as the public versions). */
fxdp_status fxdp_i_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out);
fxdp_status fxdp_i_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out);
fxdp_status fxdp_i_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out);
fxdp_status fxdp_i_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out);
fxdp_status fxdp_i_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out);
fxdp_status fxdp_i_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out);
fxdp_status fxdp_i_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out);
fxdp_status fxdp_i_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds,
                                   unsigned k, uint32_t *index);

#endif /* FXDP_INTERNAL_H */
