/*
 * fxdp_uniform.c -- uniform integers below n by rejection.
 *
 * Bits (reference.uniform_below): k = bitlen(n - 1) bits per try, read as one
 * integer MSB first (bits64(k)), until x < n; n = 1 reads nothing.
 */
#include "fxdp_internal.h"

unsigned fxdp_i_bitlen64(uint64_t v)
{
#if defined(__GNUC__) && !defined(FXDP_PORTABLE_BITLEN)
    return v == 0u ? 0u : 64u - (unsigned)__builtin_clzll((unsigned long long)v);
#else
    unsigned k = 0;

    if ((v >> 32) != 0u) {
        k += 32u;
        v >>= 32;
    }
    if ((v >> 16) != 0u) {
        k += 16u;
        v >>= 16;
    }
    if ((v >> 8) != 0u) {
        k += 8u;
        v >>= 8;
    }
    if ((v >> 4) != 0u) {
        k += 4u;
        v >>= 4;
    }
    if ((v >> 2) != 0u) {
        k += 2u;
        v >>= 2;
    }
    if ((v >> 1) != 0u) {
        k += 1u;
        v >>= 1;
    }
    return k + (unsigned)v;
#endif
}

/* fxdp_i_rd_uniform32's bits, each try read by fxdp_i_take_bits (no out-of-line bit reader on
 * the draw's call chain: a smaller stack for the samplers and mechanisms built on it). */
fxdp_status fxdp_i_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out)
{
    unsigned k = fxdp_i_bitlen64(n - 1u);
    uint32_t x;

    for (;;) {
        if (fxdp_i_take_bits(r, k, &x) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        if (x < n) {
            *out = x;
            return FXDP_OK;
        }
    }
}

fxdp_status fxdp_i_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount;
    fxdp_status st = fxdp_i_rd_uniform64(r, &buf, &cnt, n, fxdp_i_bitlen64(n - 1u), out);
    r->bitbuf = buf;
    r->bitcount = cnt;
    return st;
}

fxdp_status fxdp_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out)
{
    uint32_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || n == 0u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u32(r, n, &v);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}

fxdp_status fxdp_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out)
{
    uint64_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || n == 0u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u64(r, n, &v);
    }
    if (st == FXDP_OK) {
        *out = v;
    }
    return st;
}
