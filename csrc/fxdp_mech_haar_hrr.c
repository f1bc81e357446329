/*
 * fxdp_mech_haar_hrr.c -- HaarHRR (Cormode, Kulkarni and Srivastava, VLDB 2019) of a reading on a grid
 * (issue 35).  Reference fxdp/mechanisms/ranges/haar_hrr.py (HaarHRR.release); Numba twin
 * fxdp/mechanisms/ranges/_kernels_haar_hrr.py.
 *
 * Input: the grid index x in [0, 2^bits]; its leaf is min(x, 2^bits - 1).  Bits, in order: the Haar level
 * l = uniform_below(bits) (_ct: uniform_below_ct), the Hadamard row j of its 2^l coefficients (l bits;
 * _ct: bits - 1 bits, the low l kept), then binary randomized response of the signed coefficient's bit
 * parity(j & node) ^ sign (node = leaf >> (bits - l), sign = bit bits - l - 1 of the leaf): keep =
 * bernoulli_dyadic(a_p, prob_bits) (_ct: bernoulli_dyadic_ct).  out[0..3) = (l, j, b), written only on
 * FXDP_OK.  The _ct form takes the node, the sign and j's mask by a masked scan of every level, so
 * neither x nor l changes the instructions (a variable shift is a loop on the AVR).
 */
#include "fxdp_internal.h"

static fxdp_status haar_check(const fxdp_rng *r, const fxdp_haar_hrr_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    /* 1 <= bits <= 16; 2 <= prob_bits <= 32 and 2^(prob_bits - 1) < a_p < 2^prob_bits (p > 1/2) */
    if (cfg->bits < 1u || cfg->bits > FXDP_HAAR_HRR_MAX_BITS || cfg->prob_bits < 2u || cfg->prob_bits > 32u ||
        (cfg->a_p >> 32) != 0u || ((uint32_t)cfg->a_p >> ((cfg->prob_bits - 1u) & 31u)) != 1u ||
        (uint32_t)cfg->a_p == (UINT32_C(1) << ((cfg->prob_bits - 1u) & 31u))) {
        return FXDP_ERR_PARAM;
    }
    if (*x > (UINT32_C(1) << cfg->bits)) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* The leaf of grid index x <= 2^bits: x - 1 for x = 2^bits. */
static uint32_t haar_leaf(const fxdp_haar_hrr_cfg *cfg, uint32_t x)
{
    return x - (x >> cfg->bits);
}

fxdp_status fxdp_haar_hrr(fxdp_rng *r, const fxdp_haar_hrr_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    uint32_t l = 0, j = 0, leaf, truth;
    uint8_t keep = 0;
    fxdp_status st = haar_check(r, cfg, x, out);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u32(r, cfg->bits, &l);
    }
    if (st == FXDP_OK) {
        st = fxdp_i_bits(r, l & 31u, &j);                   /* l < bits <= 16 */
    }
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_dyadic(r, cfg->a_p, cfg->prob_bits, &keep);
    }
    if (st != FXDP_OK) {
        return st;
    }
    leaf = haar_leaf(cfg, *x);
    truth = fxdp_i_parity32(j & (leaf >> ((cfg->bits - l) & 31u))) ^ ((leaf >> ((cfg->bits - l - 1u) & 31u)) & 1u);
    out[0] = l;
    out[1] = j;
    out[2] = truth ^ keep ^ 1u;
    return FXDP_OK;
}

fxdp_status fxdp_haar_hrr_ct(fxdp_rng *r, const fxdp_haar_hrr_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    uint32_t l = 0, u = 0, i, leaf, node = 0, sign = 0, jmask = 0, j;
    uint8_t keep = 0;
    fxdp_status st = haar_check(r, cfg, x, out);

    if (st == FXDP_OK) {
        st = fxdp_uniform_below_ct_u32(r, cfg->bits, &l);
    }
    if (st == FXDP_OK) {
        st = fxdp_i_bits(r, (cfg->bits - 1u) & 31u, &u);
    }
    if (st == FXDP_OK) {
        st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a_p, cfg->prob_bits, &keep);
    }
    if (st != FXDP_OK) {
        return st;
    }
    leaf = haar_leaf(cfg, *x);
    for (i = 0; i < cfg->bits; i++) {                       /* every level, the secret one kept by a mask */
        uint32_t diff = i ^ l;
        uint32_t sel = ((diff | (0u - diff)) >> 31) - 1u;   /* all ones iff i == l */
        uint32_t sh = (cfg->bits - i) & 31u;

        node |= (leaf >> sh) & sel;
        sign |= (leaf >> ((sh - 1u) & 31u)) & 1u & sel;
        jmask |= ((UINT32_C(1) << i) - 1u) & sel;
    }
    j = u & jmask;
    out[0] = l;
    out[1] = j;
    out[2] = (fxdp_i_parity32(j & node) ^ sign) ^ keep ^ 1u;
    return FXDP_OK;
}
