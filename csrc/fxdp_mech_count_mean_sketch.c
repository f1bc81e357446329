/*
 * fxdp_mech_count_mean_sketch.c -- Apple's Count Mean Sketch (CMS) and its Hadamard variant (HCMS)
 * over byte strings (issue 34).  Reference fxdp/mechanisms/strings/count_mean_sketch.py
 * (CountMeanSketch.release, HadamardCountMeanSketch.release); Numba twin
 * fxdp/mechanisms/strings/_kernels_count_mean_sketch.py.
 *
 * Input: the encoded string x[0..max_len] = [len] || bytes || zero padding, 1 <= len <= max_len
 * (bytes past len are read and ignored: fxdp_strhash32 masks them).  Bits, in order:
 *   CMS:  j = uniform_below(k) (_ct: uniform_below_ct), then unary encoding's report of the cell
 *         u = h_j(s) over m = 2^l items (fxdp_unary_encoding[_ct] on cfg->ue: a_p = 2^bits - a_q
 *         at u, a_q elsewhere).  out[0..m+2) = j & 0xFF, j >> 8, the m bits; drawn in place, all
 *         zero after an entropy failure.
 *   HCMS: j = uniform_below(k), l = uniform_below(m), then one Bernoulli(a_q / 2^bits) flip f;
 *         out[0..3) = j, l, parity(l & u) ^ f, written only on FXDP_OK.
 * The hash reads every byte of the block and ChaCha20 blocks that depend on max_len and j only, so
 * the _ct forms' time and bits do not depend on the string or its length; a uniform_below_ct
 * whose budget ran out (public, data-independent) gives FXDP_ERR_RANGE and releases nothing.
 * Unary encoding's entry point is called with its own config (cfg->ue) and its 4 arguments, so
 * the release path adds one small frame to unary encoding's (the 256-byte stack goal).
 */
#include "fxdp_mech_count_mean_sketch.h"

int fxdp_i_count_mean_sketch_ok(const fxdp_count_mean_sketch_cfg *cfg, uint32_t max_log2_width)
{
    const fxdp_unary_encoding_cfg *ue = &cfg->ue;

    return cfg->hashes >= 1u && cfg->hashes <= FXDP_COUNT_MEAN_SKETCH_MAX_HASHES && cfg->max_len >= 1u &&
           cfg->max_len <= FXDP_STRHASH_MAX_LENGTH && cfg->log2_width >= 1u && cfg->log2_width <= max_log2_width &&
           ue->d == (UINT32_C(1) << cfg->log2_width) && ue->bits >= 2u && ue->bits <= 32u && ue->a_q != 0u &&
           ue->a_q < (UINT64_C(1) << (ue->bits - 1u)) && ue->a_p == (UINT64_C(1) << ue->bits) - ue->a_q;
}

static fxdp_status cms_check(const fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x,
                             const void *out, uint32_t max_log2_width)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_count_mean_sketch_ok(cfg, max_log2_width)) {
        return FXDP_ERR_PARAM;
    }
    if (x[0] < 1u || x[0] > cfg->max_len) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* *cell = h_j(x) >> (32 - l), the sketch column of the encoded string x. */
FXDP_I_INLINE fxdp_status cms_cell(const fxdp_count_mean_sketch_cfg *cfg, uint32_t j, const uint8_t *x, uint32_t *cell)
{
    uint32_t h = 0;
    fxdp_status st = fxdp_i_strhash32(cfg->key, j, x + 1, x[0], cfg->max_len, cfg->max_len, &h);

    if (st == FXDP_OK) {
        *cell = h >> (32u - cfg->log2_width);
    }
    return st;
}

/* After unary encoding's draw into out + 2: j's bytes on success, zeros beside its wiped bits on a
 * failure (all or nothing, in place). */
static fxdp_status cms_finish(fxdp_status st, uint32_t j, uint8_t *out)
{
    uint32_t keep = 0u - (uint32_t)(st == FXDP_OK);

    out[0] = (uint8_t)(j & 0xFFu & keep);
    out[1] = (uint8_t)((j >> 8) & keep);
    return st;
}

fxdp_status fxdp_count_mean_sketch(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    uint32_t j = 0, cell = 0;
    fxdp_status st = cms_check(r, cfg, x, out, FXDP_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u32(r, cfg->hashes, &j);
    }
    if (st == FXDP_OK) {
        st = cms_cell(cfg, j, x, &cell);
    }
    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    return cms_finish(fxdp_unary_encoding(r, &cfg->ue, &cell, out + 2), j, out);
}

fxdp_status fxdp_count_mean_sketch_ct(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x,
                                      uint8_t *out)
{
    uint32_t j = 0, cell = 0;
    fxdp_status st = cms_check(r, cfg, x, out, FXDP_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH);

    if (st == FXDP_OK) {
        st = fxdp_uniform_below_ct_u32(r, cfg->hashes, &j);
    }
    if (st == FXDP_OK) {
        st = cms_cell(cfg, j, x, &cell);
    }
    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    return cms_finish(fxdp_unary_encoding_ct(r, &cfg->ue, &cell, out + 2), j, out);
}

FXDP_I_INLINE fxdp_status hcms_release(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x, uint32_t *out,
                                 int ct)
{
    uint32_t j = 0, l = 0, cell = 0;
    uint8_t flip = 0;
    fxdp_status st = cms_check(r, cfg, x, out, FXDP_HADAMARD_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH);

    if (st == FXDP_OK) {
        st = ct ? fxdp_uniform_below_ct_u32(r, cfg->hashes, &j) : fxdp_i_uniform_below_u32(r, cfg->hashes, &j);
    }
    if (st == FXDP_OK) {
        st = ct ? fxdp_uniform_below_ct_u32(r, cfg->ue.d, &l) : fxdp_i_uniform_below_u32(r, cfg->ue.d, &l);
    }
    if (st == FXDP_OK) {
        st = cms_cell(cfg, j, x, &cell);
    }
    if (st == FXDP_OK) {
        st = ct ? fxdp_i_bernoulli_dyadic_ct(r, cfg->ue.a_q, cfg->ue.bits, &flip)
                : fxdp_i_bernoulli_dyadic(r, cfg->ue.a_q, cfg->ue.bits, &flip);
    }
    if (st == FXDP_OK) {
        out[0] = j;
        out[1] = l;
        out[2] = fxdp_i_parity32(l & cell) ^ (uint32_t)(flip & 1u);
    }
    return st;
}

fxdp_status fxdp_hadamard_count_mean_sketch(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x,
                                            uint32_t *out)
{
    return hcms_release(r, cfg, x, out, 0);
}

fxdp_status fxdp_hadamard_count_mean_sketch_ct(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x,
                                               uint32_t *out)
{
    return hcms_release(r, cfg, x, out, 1);
}
