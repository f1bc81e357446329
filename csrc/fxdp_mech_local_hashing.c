/*
 * fxdp_mech_local_hashing.c -- local hashing frequency oracles (OLH, BLH; Wang et al.,
 * USENIX Security 2017): the device holds one item x of a domain of d, draws
 * the hash h(x) = ((a x + b) mod P) mod g, P = 2^31 - 1, and reports
 * (a, b, y), y = generalized randomized response of h(x) over [0, g).
 *
 * Definition and bit use: fxdp/mechanisms/oracles/local_hashing.py
 * (LocalHashing.release): a = 1 + uniform_below(P - 1), b = uniform_below(P);
 * lazy: s = uniform_below(g - 1), honest = Bernoulli(a_p/2^bits),
 * y = honest ? h(x) : (h(x) + 1 + s) mod g; constant time: U = bits bits,
 * y = (h(x) + t) mod g, t = #{j in [1, g) : U >= a_p + (j-1) w}.  The Numba
 * twin is fxdp/mechanisms/oracles/_kernels_local_hashing.py.
 *
 * The hash never branches on x and uses no long multiply or divide (their
 * time depends on the operands on Cortex-M and AVR, see fxdp_internal.h): a x
 * from four 16 x 16 limb products, mod P by shifts and adds (2^31 = 1 mod P),
 * mod g by a fixed 31-step restoring division.  Both forms share it; the
 * constant-time form also draws the offset with exactly `bits` bits and a
 * branch-free scan of the g - 1 thresholds.  The seed's rejection retries
 * depend only on the (published) seed draws, never on x.  out is written
 * only on FXDP_OK.
 */
#include "fxdp_mech_local_hashing.h"

#define LH_P UINT32_C(0x7FFFFFFF)

int fxdp_i_local_hashing_ok(const fxdp_local_hashing_cfg *cfg)
{
    uint64_t prod = 0, addend = cfg->w, sum;
    uint32_t m, hi, lo, k = cfg->bits & 63u;

    if (cfg->bits < 2u || cfg->bits > 63u || cfg->g < 2u || cfg->g > FXDP_LOCAL_HASHING_MAX_G || cfg->d < 2u ||
        cfg->d > FXDP_LOCAL_HASHING_MAX_D || cfg->w == 0u) {
        return 0;
    }
    /* a_p + (g - 1) w == 2^bits and a_p > w (then a_p, (g - 1) w < 2^bits, as w, g - 1 >= 1).  The
     * product by adds of w doubled, one per bit of g - 1 (public: the loop may depend on it), failing
     * where it would pass 2^63, and 2^bits compared in 32-bit halves: no 64-bit multiply or variable
     * shift (libgcc helpers on the M0+). */
    for (m = cfg->g - 1u; m != 0u; m >>= 1) {
        if ((m & 1u) != 0u) {
            prod += addend;
            if (prod < addend) {
                return 0;
            }
        }
        if (m > 1u) {                       /* a higher bit of g - 1 will add 2 addend or more */
            if ((addend >> 62) != 0u) {
                return 0;
            }
            addend <<= 1;
        }
    }
    sum = cfg->a_p + prod;
    if (sum < prod || cfg->a_p <= cfg->w) {
        return 0;
    }
    hi = (uint32_t)(sum >> 32);
    lo = (uint32_t)sum;
    return k >= 32u ? (lo == 0u && hi == (UINT32_C(1) << ((k - 32u) & 31u)))
                    : (hi == 0u && lo == (UINT32_C(1) << (k & 31u)));
}

static fxdp_status lh_check(const fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_local_hashing_ok(cfg)) {
        return FXDP_ERR_PARAM;
    }
    if (*x >= cfg->d) {         /* members only; the same way for every valid input */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* Out of line (GCC): the leaves below run after the draws they need, so their temporaries stay
 * off the deepest call chain (a draw that refills: bit reader > refill > ChaCha20 block). */
#if defined(__GNUC__)
#define LH_OUTLINE __attribute__((__noinline__))
#define LH_INLINE __attribute__((__always_inline__)) static inline
#else
#define LH_OUTLINE
#define LH_INLINE static
#endif

/* v - P if v >= P, else v (v < 2P), branch-free. */
static uint32_t lh_sub_p(uint32_t v)
{
    uint32_t ge = 1u - fxdp_i_ct_gt32(LH_P, v);
    return v - (LH_P & (0u - ge));
}

/* ((a x + b) mod P) mod g for a, b < P, x < 2^31, 2 <= g <= 2^16: same instructions for every x. */
LH_OUTLINE static uint32_t lh_hash(uint32_t a, uint32_t b, uint32_t x, uint32_t g)
{
    uint32_t a0 = a & 0xFFFFu, a1 = a >> 16, x0 = x & 0xFFFFu, x1 = x >> 16;
    uint32_t p00 = fxdp_i_mul16_ct(a0, x0), p01 = fxdp_i_mul16_ct(a0, x1);
    uint32_t p10 = fxdp_i_mul16_ct(a1, x0), p11 = fxdp_i_mul16_ct(a1, x1);
    uint32_t mid = (p00 >> 16) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);
    uint32_t hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);   /* a x = hi 2^32 + lo < 2^62 */
    uint32_t lo = (p00 & 0xFFFFu) | (mid << 16);
    uint32_t s, rem = 0;
    int i;

    /* a x = (hi 2 + lo / 2^31) 2^31 + (lo mod 2^31) = (hi 2 + lo / 2^31) + (lo mod 2^31) mod P */
    s = ((hi << 1) | (lo >> 31)) + (lo & LH_P);                  /* < 2^31 + 2^31 */
    s = (s & LH_P) + (s >> 31);                                  /* <= P: one fold */
    s = lh_sub_p(s);                                             /* < P */
    s = lh_sub_p(s + b);                                         /* (a x + b) mod P, < P */
    for (i = 30; i >= 0; i--) {                                  /* s mod g, restoring division */
        uint32_t ge;
        rem = (rem << 1) | ((s >> i) & 1u);                      /* < 2g <= 2^17 */
        ge = 1u - fxdp_i_ct_gt32(g, rem);
        rem -= g & (0u - ge);
    }
    return rem;
}

/* The offset t = #{j in [1, g) : u >= a_p + (j-1) w}: every threshold compared, no branch on u. */
LH_OUTLINE static uint32_t lh_offset_ct(const fxdp_local_hashing_cfg *cfg, uint64_t u)
{
    uint64_t thr = cfg->a_p;
    uint32_t j, t = 0;

    for (j = 1u; j < cfg->g; j++) {
        t += (uint32_t)(1u - fxdp_i_ct_lt64(u, thr));
        thr += cfg->w;
    }
    return t;
}

/* uniform_below(n) with k = bitlen(n - 1) (the same reads): k bits per try until < n. */
LH_INLINE fxdp_status lh_below(fxdp_rng *r, unsigned k, uint32_t n, uint32_t *out)
{
    uint32_t v;

    do {
        if (fxdp_i_bits(r, k, &v) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
    } while (v >= n);
    *out = v;
    return FXDP_OK;
}

/* Inlined into both entry points (ct a constant there; each links only its own path). */
LH_INLINE fxdp_status lh_run(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, uint32_t x, uint32_t *out, int ct)
{
    uint32_t a, b, hx, y, t, ge;

    if (lh_below(r, 31u, LH_P - 1u, &a) != FXDP_OK || lh_below(r, 31u, LH_P, &b) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    a += 1u;
    hx = lh_hash(a, b, x, cfg->g);
    if (ct) {
        uint64_t u;
        if (fxdp_i_bits64(r, cfg->bits & 63u, &u) != FXDP_OK) {      /* bits <= 63 (checked): the mask */
            return FXDP_ERR_ENTROPY;
        }
        t = lh_offset_ct(cfg, u);
    } else {
        uint32_t s;
        uint8_t honest;
        fxdp_status st;
        if (lh_below(r, fxdp_i_bitlen64(cfg->g - 2u), cfg->g - 1u, &s) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        st = fxdp_i_bernoulli_dyadic(r, cfg->a_p, cfg->bits & 63u, &honest);   /* tells the analysis so */
        if (st != FXDP_OK) {
            return st;
        }
        t = (s + 1u) & (0u - (uint32_t)(honest ^ 1u));   /* 0 when honest */
    }
    y = hx + t;                                          /* < 2g: one conditional subtraction */
    ge = 1u - fxdp_i_ct_gt32(cfg->g, y);
    out[0] = a;
    out[1] = b;
    out[2] = y - (cfg->g & (0u - ge));
    return FXDP_OK;
}

fxdp_status fxdp_i_local_hashing_run(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, uint32_t x, uint32_t *out)
{
    return lh_run(r, cfg, x, out, 0);
}

fxdp_status fxdp_i_local_hashing_run_ct(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, uint32_t x, uint32_t *out)
{
    return lh_run(r, cfg, x, out, 1);
}

fxdp_status fxdp_local_hashing(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = lh_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_local_hashing_run(r, cfg, *x, out);
}

fxdp_status fxdp_local_hashing_ct(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = lh_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_local_hashing_run_ct(r, cfg, *x, out);
}
