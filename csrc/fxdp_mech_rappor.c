/*
 * fxdp_mech_rappor.c -- basic one-time RAPPOR (seed 002): every bit of a
 * k-bit input (at most m ones) flips with probability a/2^bits (= f/2).
 *
 * Definition and bit use: fxdp/mechanisms/rappor.py (Rappor.release): one
 * Bernoulli(a/2^bits) per bit, i = 0..k-1 in order; the Numba twin is
 * fxdp/mechanisms/_kernels_mech.py.
 *
 * All or nothing: the k output bits are built in a bit-packed stack buffer
 * (FXDP_RAPPOR_MAX_K bits) and copied to out only after the last draw
 * succeeded, so an entropy failure at any word leaves out untouched (whatever
 * the rng mode, board hook included).  The buffer is wiped before returning.
 *
 * Constant-time form: the input check counts ones and detects non-0/1 bytes
 * without branches, every flip reads exactly `bits` bits and is combined by
 * XOR; the loops run over the public k only.
 */
#include "fxdp_internal.h"

#define RAPPOR_WORDS (FXDP_RAPPOR_MAX_K / 32u)

static fxdp_status rappor_check(const fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x,
                                const uint8_t *out)
{
    uint32_t i, bad = 0, ones = 0;

    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    /* flip probability a/2^bits in (0, 1/2]; 1 <= m <= k <= FXDP_RAPPOR_MAX_K */
    if (cfg->bits < 1u || cfg->bits > 63u || cfg->a == 0u || cfg->a > (UINT64_C(1) << (cfg->bits - 1u)) ||
        cfg->k < 1u || cfg->k > FXDP_RAPPOR_MAX_K || cfg->m < 1u || cfg->m > cfg->k) {
        return FXDP_ERR_PARAM;
    }
    for (i = 0; i < cfg->k; i++) {        /* branch-free over the (secret) bits */
        bad |= (uint32_t)x[i] & 0xFEu;
        ones += (uint32_t)x[i] & 1u;
    }
    if (bad != 0u || ones > cfg->m) {     /* the same way for every valid input */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

static void wipe_words(uint32_t *p, uint32_t n)
{
    volatile uint32_t *v = p;
    uint32_t i;

    for (i = 0; i < n; i++) {
        v[i] = 0;
    }
}

/* Draw all k flips into y (bit i of the report at y[i/32] bit i%32); on success copy to out. */
static fxdp_status rappor_run(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out, int ct)
{
    uint32_t y[RAPPOR_WORDS];
    const volatile uint32_t *vy = y;
    uint32_t i, acc = 0, words = (cfg->k + 31u) / 32u;
    uint8_t b = 0;
    fxdp_status st = FXDP_OK;

    for (i = 0; i < cfg->k; i++) {
        if (ct) {
            st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a, cfg->bits, &b);
        } else {
            st = fxdp_i_bernoulli_dyadic(r, cfg->a, cfg->bits, &b);
        }
        if (st != FXDP_OK) {
            break;
        }
        acc |= ((uint32_t)(x[i] ^ b) & 1u) << (i & 31u);
        if ((i & 31u) == 31u || i + 1u == cfg->k) {     /* public positions only */
            y[i >> 5] = acc;
            acc = 0;
        }
    }
    if (st == FXDP_OK) {
        for (i = 0; i < cfg->k; i++) {
            out[i] = (uint8_t)((vy[i >> 5] >> (i & 31u)) & 1u);
        }
    }
    wipe_words(y, words);
    return st;
}

fxdp_status fxdp_rappor(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    fxdp_status st = rappor_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return rappor_run(r, cfg, x, out, 0);
}

fxdp_status fxdp_rappor_ct(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    fxdp_status st = rappor_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return rappor_run(r, cfg, x, out, 1);
}
