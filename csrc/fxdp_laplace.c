/*
 * fxdp_laplace.c -- discrete Laplace with rational scale t/s (Canonne, Kamath,
 * Steinke 2020, Algorithm 2), exactly the bits of reference.discrete_laplace:
 *
 *   loop: U = uniform_below(t); if !bernoulli_exp(U, t): continue
 *         V = 0; while bernoulli_exp(1, 1): V++
 *         Y = (U + t V) / s; B = bit; if B and Y == 0: continue
 *         return B ? -Y : Y
 *
 * U + t V must fit in 64 bits and Y in [0, 2^63) (otherwise FXDP_ERR_RANGE,
 * before B is read); both fail only with probability below exp(-2^31).
 */
#include "fxdp_internal.h"

/* Merged into fxdp_i_discrete_laplace (FXDP_I_INLINE): a call level there would push the lazy
 * geometric's release path past its 256 B of stack. */
FXDP_I_INLINE fxdp_status geometric_cks(fxdp_rng *r, uint32_t s, uint32_t t, uint64_t *y)
{
    fxdp_status st;
    uint32_t u;
    uint64_t v = 0u, x;
    uint8_t b;

    for (;;) {
        st = fxdp_i_uniform_below_u32(r, t, &u);
        if (st != FXDP_OK) {
            return st;
        }
        st = fxdp_i_bernoulli_exp(r, u, t, &b);
        if (st != FXDP_OK) {
            return st;
        }
        if (b != 0u) {
            break;
        }
    }
    for (;;) {
        st = fxdp_i_bernoulli_exp(r, 1u, 1u, &b);
        if (st != FXDP_OK) {
            return st;
        }
        if (b == 0u) {
            break;
        }
        if (v == UINT64_MAX) {
            return FXDP_ERR_RANGE;
        }
        v += 1u;
    }
    if (v == 0u) {
        *y = u / s;                                     /* the common case: 32-bit division */
        return FXDP_OK;
    }
    /* u + t v <= (2^32 - 1) + (2^32 - 1)^2 < 2^64 while v < 2^32 */
    if ((v >> 32) != 0u && v > (UINT64_MAX - u) / t) {
        return FXDP_ERR_RANGE;
    }
    x = (uint64_t)u + (uint64_t)t * v;
    *y = ((x >> 32) == 0u) ? (uint64_t)((uint32_t)x / s) : x / s;
    return FXDP_OK;
}

fxdp_status fxdp_i_geometric_cks(fxdp_rng *r, uint32_t s, uint32_t t, uint64_t *y)
{
    return geometric_cks(r, s, t, y);
}

fxdp_status fxdp_i_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out)
{
    fxdp_status st;
    uint32_t sign = 0;
    uint64_t y = 0u;            /* set on every path; initialized for Eva (y is written through a pointer) */

    for (;;) {
        st = geometric_cks(r, s, t, &y);
        if (st != FXDP_OK) {
            return st;
        }
        if (y > (uint64_t)INT64_MAX) {
            return FXDP_ERR_RANGE;
        }
        st = fxdp_i_bit(r, &sign);
        if (st != FXDP_OK) {
            return st;
        }
        if (sign != 0u && y == 0u) {
            continue;
        }
        *out = sign != 0u ? -(int64_t)y : (int64_t)y;
        return FXDP_OK;
    }
}

fxdp_status fxdp_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out)
{
    int64_t z;
    fxdp_status st;

    if (r == NULL || out == NULL || s == 0u || t == 0u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_discrete_laplace(r, s, t, &z);
    }
    if (st == FXDP_OK) {
        *out = z;
    }
    return st;
}

fxdp_status fxdp_discrete_laplace_censored(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                           int64_t *out)
{
    int64_t z;
    fxdp_status st;

    if (r == NULL || out == NULL || s == 0u || t == 0u || lo > hi) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_discrete_laplace(r, s, t, &z);
    }
    if (st == FXDP_OK) {
        *out = z < lo ? lo : z > hi ? hi : z;
    }
    return st;
}
