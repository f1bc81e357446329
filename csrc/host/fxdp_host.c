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

fxdp_status fxdp_fill_bits(fxdp_rng *r, unsigned n, uint32_t *out, size_t count, size_t *produced)
{
    uint32_t v;
    FXDP_FILL_BEGIN(n > 32u) {
        st_ = fxdp_i_bits(r, n, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_bits64(fxdp_rng *r, unsigned n, uint64_t *out, size_t count, size_t *produced)
{
    uint64_t v;
    FXDP_FILL_BEGIN(n > 64u) {
        st_ = fxdp_i_bits64(r, n, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out, size_t count, size_t *produced)
{
    uint32_t v;
    FXDP_FILL_BEGIN(n == 0u) {
        st_ = fxdp_i_uniform_below_u32(r, n, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out, size_t count, size_t *produced)
{
    uint64_t v;
    FXDP_FILL_BEGIN(n == 0u) {
        st_ = fxdp_i_uniform_below_u64(r, n, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out, size_t count,
                                       size_t *produced)
{
    uint8_t v;
    FXDP_FILL_BEGIN(k > 63u || a > (UINT64_C(1) << k)) {
        st_ = fxdp_i_bernoulli_dyadic(r, a, k, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out, size_t count,
                                          size_t *produced)
{
    uint8_t v;
    FXDP_FILL_BEGIN(k > 63u || a > (UINT64_C(1) << k)) {
        st_ = fxdp_i_bernoulli_dyadic_ct(r, a, k, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out, size_t count,
                                         size_t *produced)
{
    uint8_t v;
    FXDP_FILL_BEGIN(d == 0u || n > d) {
        st_ = fxdp_i_bernoulli_rational(r, n, d, &v);
        if (st_ != FXDP_OK) {
            break;
        }
        out[i_] = v;
    }
    FXDP_FILL_END;
}

fxdp_status fxdp_fill_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out, size_t count,
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

fxdp_status fxdp_fill_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out, size_t count,
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

fxdp_status fxdp_fill_discrete_laplace_censored(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                                int64_t *out, size_t count, size_t *produced)
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

fxdp_status fxdp_fill_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds, unsigned k,
                                      uint32_t *out, size_t count, size_t *produced)
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
