/*
 * fxdp_host.c -- host-only bulk loops over the samplers (see fxdp_host.h).
 *
 * Each loop validates once (through the single-sample function's own rules),
 * then runs the unvalidated fxdp_i_* sampler, so the hot path is the sampler
 * itself with the bit reads inlined.
 */
#include "fxdp_host.h"
#include "../fxdp_internal.h"

/* Common prologue: r non-NULL, out non-NULL unless count == 0, rng ready (even for count == 0). */
#define FXDP_FILL_BEGIN(bad)                                  \
    size_t i_ = 0;                                            \
    fxdp_status st_ = FXDP_OK;                                \
    if (produced != NULL) {                                   \
        *produced = 0;                                        \
    }                                                         \
    if (r == NULL || (out == NULL && count != 0u) || (bad)) { \
        return FXDP_ERR_PARAM;                                \
    }                                                         \
    st_ = fxdp_i_ready(r);                                    \
    for (; st_ == FXDP_OK && i_ < count; i_++)

#define FXDP_FILL_END                                         \
    if (produced != NULL) {                                   \
        *produced = i_;                                       \
    }                                                         \
    return st_

/* Bit-reader loops: the bit buffer lives in locals for the whole loop (loaded once r is known
 * to be non-NULL -- the comma expression inside the validity test -- and stored back at the end). */
#define FXDP_RD_BEGIN(bad)                                    \
    uint32_t buf_ = 0, cnt_ = 0;                              \
    FXDP_FILL_BEGIN((bad) || ((buf_ = r->bitbuf), (cnt_ = r->bitcount), 0))

#define FXDP_RD_END                                           \
    r->bitbuf = buf_;                                         \
    r->bitcount = cnt_;                                       \
    FXDP_FILL_END

fxdp_status fxdp_fill_bits(fxdp_rng *restrict r, unsigned n, uint32_t *restrict out, size_t count, size_t *produced)
{
    uint32_t v;
    FXDP_RD_BEGIN(n > 32u) {
        st_ = fxdp_i_rd_bits(r, &buf_, &cnt_, n, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_bits64(fxdp_rng *restrict r, unsigned n, uint64_t *restrict out, size_t count, size_t *produced)
{
    uint64_t v;
    FXDP_RD_BEGIN(n > 64u) {
        st_ = fxdp_i_rd_bits64(r, &buf_, &cnt_, n, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_uniform_below_u32(fxdp_rng *restrict r, uint32_t n, uint32_t *restrict out, size_t count, size_t *produced)
{
    uint32_t v;
    unsigned k = fxdp_i_bitlen64(n - 1u);
    FXDP_RD_BEGIN(n == 0u) {
        st_ = fxdp_i_rd_uniform32(r, &buf_, &cnt_, n, k, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_uniform_below_ct_u32(fxdp_rng *restrict r, uint32_t n, uint32_t *restrict out, size_t count,
                                           size_t *produced)
{
    uint32_t v, ok = 0;
    FXDP_FILL_BEGIN(n == 0u) {
        st_ = fxdp_i_uniform_below_ct_u32(r, n, &v, &ok);
        if (st_ == FXDP_OK && ok == 0u) {
            st_ = FXDP_ERR_RANGE;
        }
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_uniform_below_u64(fxdp_rng *restrict r, uint64_t n, uint64_t *restrict out, size_t count, size_t *produced)
{
    uint64_t v;
    unsigned k = fxdp_i_bitlen64(n - 1u);
    FXDP_RD_BEGIN(n == 0u) {
        st_ = fxdp_i_rd_uniform64(r, &buf_, &cnt_, n, k, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_bernoulli_dyadic(fxdp_rng *restrict r, uint64_t a, unsigned k, uint8_t *restrict out, size_t count,
                                       size_t *produced)
{
    uint8_t v, fixed = 2;          /* 0 or 1 when no bits are read (a = 0 or a = 2^k) */
    unsigned kk = k;
    uint64_t aa = a;
    if (k <= 63u && (a == 0u || a == (UINT64_C(1) << k))) {
        fixed = (uint8_t)(a == 0u ? 0u : 1u);
    } else if (a != 0u) {
        while ((aa & 1u) == 0u) {
            aa >>= 1;
            kk -= 1u;
        }
    }
    FXDP_RD_BEGIN(k > 63u || a > (UINT64_C(1) << k)) {
        if (fixed <= 1u) {
            out[i_] = fixed;
            continue;
        }
        st_ = fxdp_i_rd_dyadic_odd(r, &buf_, &cnt_, aa, kk, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_bernoulli_dyadic_ct(fxdp_rng *restrict r, uint64_t a, unsigned k, uint8_t *restrict out, size_t count,
                                          size_t *produced)
{
    uint8_t v;
    FXDP_RD_BEGIN(k > 63u || a > (UINT64_C(1) << k)) {
        st_ = fxdp_i_rd_dyadic_ct(r, &buf_, &cnt_, a, k, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_bernoulli_rational(fxdp_rng *restrict r, uint64_t n, uint64_t d, uint8_t *restrict out, size_t count,
                                         size_t *produced)
{
    uint8_t v;
    FXDP_RD_BEGIN(d == 0u || n > d) {
        st_ = fxdp_i_rd_rational(r, &buf_, &cnt_, n, d, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_RD_END;
}

fxdp_status fxdp_fill_bernoulli_exp(fxdp_rng *restrict r, uint32_t n, uint32_t d, uint8_t *restrict out, size_t count,
                                    size_t *produced)
{
    uint8_t v;
    FXDP_FILL_BEGIN(d == 0u) {
        st_ = fxdp_i_bernoulli_exp(r, n, d, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_discrete_laplace(fxdp_rng *restrict r, uint32_t s, uint32_t t, int64_t *restrict out, size_t count,
                                       size_t *produced)
{
    int64_t v;
    FXDP_FILL_BEGIN(s == 0u || t == 0u) {
        st_ = fxdp_i_discrete_laplace(r, s, t, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_discrete_laplace_censored(fxdp_rng *restrict r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                                int64_t *restrict out, size_t count, size_t *produced)
{
    int64_t v;
    FXDP_FILL_BEGIN(s == 0u || t == 0u || lo > hi) {
        st_ = fxdp_i_discrete_laplace(r, s, t, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v < lo ? lo : v > hi ? hi : v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_table_sample_ct(fxdp_rng *restrict r, const uint32_t *restrict thresholds, uint32_t n_thresholds, unsigned k,
                                      uint32_t *restrict out, size_t count, size_t *produced)
{
    uint32_t v;
    FXDP_FILL_BEGIN(k < 1u || k > 32u || (thresholds == NULL && n_thresholds != 0u)) {
        st_ = fxdp_i_table_sample_ct(r, thresholds, n_thresholds, k, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}
