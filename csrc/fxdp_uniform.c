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

/* w n as hi:lo (fxdp_i_mul32_ct), out of line: inlined in the draw loop below, the limbs of n were
 * hoisted out of the loop and its frame held them (72 bytes on Cortex-M0+, on the stack path of
 * every release that draws with the fixed budget; 48 with this call, 2026-12-06). */
static FXDP_I_OUTLINE uint32_t mul32_hi_ct(uint32_t w, uint32_t n, uint32_t *lo)
{
    uint32_t hi;

    fxdp_i_mul32_ct(w, n, &hi, lo);
    return hi;
}

/* reference.uniform_below_ct: FXDP_UNIFORM_CT_ROUNDS rounds, each one 32-bit word w, m = w n,
 * accept iff (m mod 2^32) >= t = 2^32 mod n, propose m >> 32; the first accepted proposal is kept
 * with masks.  Every round runs and reads its word: the same instructions and bits whatever the
 * words (t is computed from the public n; the product is fxdp_i_mul32_ct's, no long multiply).
 * Returns FXDP_OK or FXDP_ERR_ENTROPY (FXDP_ERR_PARAM for n = 0, which no caller passes); *ok = all ones if a round accepted, else 0 (probability
 * (t/2^32)^R, n alone decides), so a mechanism folds the verdicts of all its draws with & and
 * branches once, at the end (the budget's failure is public: the release fails).
 * *out and *ok are the caller's scratch, accumulated in place (no local copies: a smaller frame):
 * after a failure they hold partial values, which every caller discards. */
fxdp_status fxdp_i_uniform_below_ct_u32(fxdp_rng *r, uint32_t n, uint32_t *out, uint32_t *ok)
{
    uint32_t t, w, hi, lo, take;
    unsigned i;

    *out = 0u;
    *ok = 0u;
    if (n == 0u) {                          /* callers pass n >= 1; n is public, not a secret branch */
        return FXDP_ERR_PARAM;
    }
    t = fxdp_i_pow32_mod(n);

    for (i = 0; i < FXDP_UNIFORM_CT_ROUNDS; i++) {
        if (fxdp_i_take_bits(r, 32u, &w) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        hi = mul32_hi_ct(w, n, &lo);
        take = (0u - (1u ^ fxdp_i_ct_gt32(t, lo))) & ~*ok;   /* lo >= t, and no earlier round */
        *out |= hi & take;
        *ok |= take;
    }
    return FXDP_OK;
}

fxdp_status fxdp_uniform_below_ct_u32(fxdp_rng *r, uint32_t n, uint32_t *out)
{
    uint32_t v, ok = 0;
    fxdp_status st;

    if (r == NULL || out == NULL || n == 0u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_ct_u32(r, n, &v, &ok);
    }
    if (st == FXDP_OK && ok == 0u) {             /* the budget's verdict: public, the call fails */
        st = FXDP_ERR_RANGE;
    }
    if (st == FXDP_OK) {
        *out = v;
    }
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
