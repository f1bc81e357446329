/*
 * fxdp_mech_hadamard_response.c -- Hadamard response frequency oracle (Acharya, Sun, Zhang,
 * AISTATS 2019): the device holds one item x of a domain of d, K = 2^log2k is
 * the smallest power of two > d, and the report y in [0, K) is uniform in
 * C_x = {y : popcount((x+1) & y) even} with probability a_p/2^bits, else
 * uniform in its complement.
 *
 * Definition and bit use: fxdp/mechanisms/oracles/hadamard_response.py
 * (HadamardResponse.release): y = the next log2k bits (MSB first), then
 * b = Bernoulli(a_p/2^bits); then y ^= lowbit(x+1) iff [y in C_x] != b
 * (toggling a bit of x+1's support flips the parity: a bijection between C_x
 * and its complement).  The Numba twin is fxdp/mechanisms/oracles/_kernels_hadamard_response.py.
 *
 * The parity is an xor fold and the toggle a mask, so no branch depends on
 * x, y or b in either form; the constant-time form also draws b with exactly
 * `bits` bits (log2k + bits bits per release).  out is written only on
 * FXDP_OK.
 */
#include "fxdp_internal.h"

static fxdp_status hr_check(const fxdp_rng *r, const fxdp_hadamard_response_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->bits < 2u || cfg->bits > 63u || cfg->a_p <= (UINT64_C(1) << (cfg->bits - 1u)) ||
        cfg->a_p >= (UINT64_C(1) << cfg->bits) || cfg->d < 2u || cfg->d > FXDP_HADAMARD_RESPONSE_MAX_D || cfg->log2k < 2u ||
        cfg->log2k > 16u || (cfg->d >> (cfg->log2k - 1u)) != 1u || *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

static fxdp_status hr_run(fxdp_rng *r, const fxdp_hadamard_response_cfg *cfg, uint32_t x, uint32_t *out, int ct)
{
    uint32_t y = 0, u = x + 1u, low, flip;
    uint8_t b = 0;
    fxdp_status st = fxdp_i_bits(r, cfg->log2k, &y);

    if (st != FXDP_OK) {
        return st;
    }
    if (ct) {
        st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a_p, cfg->bits, &b);
    } else {
        st = fxdp_i_bernoulli_dyadic(r, cfg->a_p, cfg->bits, &b);
    }
    if (st != FXDP_OK) {
        return st;
    }
    low = u & (0u - u);                                     /* lowest set bit of x + 1 */
    flip = fxdp_i_parity32(u & y) ^ 1u ^ ((uint32_t)b & 1u);      /* [y in C_x] != b */
    *out = y ^ (low & (0u - flip));
    return FXDP_OK;
}

fxdp_status fxdp_hadamard_response(fxdp_rng *r, const fxdp_hadamard_response_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = hr_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return hr_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_hadamard_response_ct(fxdp_rng *r, const fxdp_hadamard_response_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = hr_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return hr_run(r, cfg, *x, out, 1);
}
