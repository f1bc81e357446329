/*
 * fxdp_mech_treehist.c -- TreeHist (Bassily, Nissim, Stemmer and Thakurta, NeurIPS 2017) over byte
 * strings (issue 34).  Reference fxdp/mechanisms/strings/treehist.py (TreeHist.release); Numba twin
 * fxdp/mechanisms/strings/_kernels_treehist.py.
 *
 * Input: the encoded string x[0..L] = [len] || bytes || padding (1 <= len <= L; padding read as 0).
 * Bits, in order: the Prefix Extending Method's release on cfg->prefix (fxdp_prefix_extending[_ct]:
 * the level, then local hashing of the level's hashed prefix), then the Hadamard Count Mean Sketch's
 * release of the string on cfg->word (fxdp_hadamard_count_mean_sketch[_ct]).  Both configs are
 * checked before anything is drawn.  out[0..7) = t, a, b, y, j, l, bit, drawn in place: all zero after an
 * entropy failure.
 * The two entry points are constant time in the string and its length in their _ct forms, so this
 * one is too.
 */
#include "fxdp_mech_count_mean_sketch.h"
#include "fxdp_mech_prefix_extending.h"

static fxdp_status treehist_check(const fxdp_rng *r, const fxdp_treehist_cfg *cfg, const uint8_t *x,
                                  const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_prefix_extending_ok(&cfg->prefix) ||
        !fxdp_i_count_mean_sketch_ok(&cfg->word, FXDP_HADAMARD_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH) ||
        cfg->word.max_len != cfg->prefix.max_len) {
        return FXDP_ERR_PARAM;
    }
    if (x[0] < 1u || x[0] > cfg->prefix.max_len) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* After the two releases into out: all zero on a failure (the prefix report is written before the
 * word report is drawn: no copy on the stack). */
static fxdp_status treehist_finish(fxdp_status st, uint32_t *out)
{
    if (st != FXDP_OK) {
        fxdp_i_wipe(out, 7u * sizeof out[0]);
    }
    return st;
}

fxdp_status fxdp_treehist(fxdp_rng *r, const fxdp_treehist_cfg *cfg, const uint8_t *x, uint32_t *out)
{
    fxdp_status st = treehist_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    st = fxdp_prefix_extending(r, &cfg->prefix, x, out);
    if (st == FXDP_OK) {
        st = fxdp_hadamard_count_mean_sketch(r, &cfg->word, x, out + 4);
    }
    return treehist_finish(st, out);
}

fxdp_status fxdp_treehist_ct(fxdp_rng *r, const fxdp_treehist_cfg *cfg, const uint8_t *x, uint32_t *out)
{
    fxdp_status st = treehist_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    st = fxdp_prefix_extending_ct(r, &cfg->prefix, x, out);
    if (st == FXDP_OK) {
        st = fxdp_hadamard_count_mean_sketch_ct(r, &cfg->word, x, out + 4);
    }
    return treehist_finish(st, out);
}
