/*
 * fxdp_mech_rappor.c -- basic one-time RAPPOR (seed 002): every bit of a
 * k-bit input (at most m ones) flips with probability a/2^bits (= f/2).
 *
 * Definition and bit use: fxdp/mechanisms/oracles/rappor.py (Rappor.release): one
 * Bernoulli(a/2^bits) per bit, i = 0..k-1 in order; the Numba twin is
 * fxdp/mechanisms/oracles/_kernels_rappor.py.  With bits <= 32 the lazy flips are
 * drawn as runs (fxdp_i_bernoulli_dyadic_run, the same bits) 32 at a time.
 *
 * All or nothing, in the caller's buffer: bit i is drawn straight into
 * out[i] (no stack copy of the report, so the stack stays within 256 bytes
 * whatever k), and an entropy failure at any word wipes out[0..k) to zeros
 * before FXDP_ERR_ENTROPY is returned (whatever the rng mode, board hook
 * included): the status is the report's validity mark, and nothing drawn is
 * released.  A bad parameter or input leaves out untouched.
 *
 * Constant-time form: the input check counts ones and detects non-0/1 bytes
 * without branches, every flip reads exactly `bits` bits and is combined by
 * XOR; the loops run over the public k only.
 */
#include "fxdp_internal.h"

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

/* Draw the k flips into out[0..k) in order, one by one; on an entropy failure wipe out[0..k). */
static fxdp_status rappor_run(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out, int ct)
{
    uint32_t i;
    uint8_t b = 0;
    fxdp_status st = FXDP_OK;

    for (i = 0; i < cfg->k; i++) {
        if (ct) {
            st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a, cfg->bits, &b);
        } else {
            st = fxdp_i_bernoulli_dyadic(r, cfg->a, cfg->bits, &b);
        }
        if (st != FXDP_OK) {
            fxdp_i_wipe(out, (size_t)cfg->k);          /* nothing of this report is released */
            return st;
        }
        out[i] = (uint8_t)((x[i] ^ b) & 1u);
    }
    return FXDP_OK;
}

/* Lazy flips drawn RAPPOR_CHUNK at a time by one run each (bits <= 32; the same bits as one by one)
 * into a stack chunk, then combined item by item (so x may be out). */
#define RAPPOR_CHUNK 32u

static fxdp_status rappor_run_chunks(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    uint32_t i, j;
    uint8_t flips[RAPPOR_CHUNK];
    fxdp_status st;

    fxdp_i_wipe_local(flips, sizeof flips);             /* every entry read is drawn first: zeroed for Eva */
    for (i = 0; i < cfg->k; i++) {
        j = i & (RAPPOR_CHUNK - 1u);
        if (j == 0u) {                                  /* the next chunk's flips, one run */
            st = fxdp_i_bernoulli_dyadic_run(r, cfg->a, cfg->bits, flips, 0u,
                                             cfg->k - i < RAPPOR_CHUNK ? cfg->k - i : RAPPOR_CHUNK);
            if (st != FXDP_OK) {
                fxdp_i_wipe(out, (size_t)cfg->k);      /* nothing of this report is released */
                return st;
            }
        }
        out[i] = (uint8_t)((x[i] ^ flips[j]) & 1u);
    }
    return FXDP_OK;
}

fxdp_status fxdp_rappor(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    fxdp_status st = rappor_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return cfg->bits <= 32u ? rappor_run_chunks(r, cfg, x, out) : rappor_run(r, cfg, x, out, 0);
}

fxdp_status fxdp_rappor_ct(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    fxdp_status st = rappor_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return rappor_run(r, cfg, x, out, 1);
}
