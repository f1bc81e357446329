/*
 * fxdp_mech_sequence_fragment_puzzle.c -- Apple's Sequence Fragment Puzzle (SFP) over byte strings
 * (issue 34).  Reference fxdp/mechanisms/strings/sequence_fragment_puzzle.py
 * (SequenceFragmentPuzzle.release); Numba twin fxdp/mechanisms/strings/_kernels_sequence_fragment_puzzle.py.
 *
 * Input: the encoded string x[0..L] = [len] || bytes || padding (1 <= len <= L = cfg->word.max_len;
 * bytes past len are read as 0).  Bits, in order: the position p = uniform_below(G) (_ct:
 * uniform_below_ct), then the fragment sketch's release of the 3-byte string (r, x[2p] ^ r,
 * x[2p + 1] ^ rot4(r)) (r = fxdp_strhash32 at index 2^32 - 1 of the string, >> 24; rot4 swaps the
 * nibbles; x[L + 1] is 0), then the word
 * sketch's release of the string: two calls of the Count Mean Sketch's entry point (or the
 * Hadamard one's) on cfg->fragment and cfg->word, both checked before anything is drawn.
 *   CMS:  out[0..5 + m_f + m) = p, the fragment's j bytes and m_f bits, the word's j bytes and m
 *         bits; drawn in place, all zero after an entropy failure.
 *   HCMS: out[0..7) = p, the fragment's (j, l, bit), the word's; in place, all zero after an
 *         entropy failure.
 * The hashes read every byte of the block and the fragment's two bytes are selected by a masked scan
 * of the block, without a branch or an index on the string, its length or p, so the _ct forms' time
 * and bits do not depend on the string or its length.
 */
#include "fxdp_mech_count_mean_sketch.h"

#define SFP_WORD_HASH_INDEX 0xFFFFFFFFu     /* the puzzle's word hash (the sketches use indices < 2^16) */

static fxdp_status sfp_check(const fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x,
                             const void *out, uint32_t max_log2_width)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_count_mean_sketch_ok(&cfg->fragment, max_log2_width) ||
        !fxdp_i_count_mean_sketch_ok(&cfg->word, max_log2_width) || cfg->fragment.max_len != 3u ||
        cfg->word.max_len > FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_LENGTH ||
        cfg->positions != ((cfg->word.max_len + 2u) >> 1)) {
        return FXDP_ERR_PARAM;
    }
    if (x[0] < 1u || x[0] > cfg->word.max_len) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* frag = the encoded fragment string [3] || r || x[2p] ^ r || x[2p + 1] ^ rot4(r), bytes past the string
 * read as 0 (rot4: the nibbles swapped; the masks break the linear hash's grouped collisions).  p is a
 * random draw (secret to the taint check until it is released), so the two bytes are selected by a
 * masked scan of the whole block, not an indexed load. */
FXDP_I_OUTLINE static fxdp_status sfp_fragment(const fxdp_sequence_fragment_puzzle_cfg *cfg, uint32_t p, const uint8_t *x,
                                       uint8_t frag[4])
{
    uint32_t h = 0, a = p << 1, len = x[0], b0 = 0, b1 = 0, i, d0, d1;
    uint32_t keep0 = ((len - a) >> 31) - 1u;           /* all ones iff a <= len (both < 2^8)     */
    uint32_t keep1 = ((len - a - 1u) >> 31) - 1u;      /* all ones iff a + 1 <= len              */
    fxdp_status st;

    for (i = 0; i <= cfg->word.max_len; i++) {         /* x[a] and x[a + 1] (0 past the block)   */
        d0 = i ^ a;
        d1 = i ^ (a + 1u);
        b0 |= x[i] & (((d0 | (0u - d0)) >> 31) - 1u);  /* all ones iff i == a                   */
        b1 |= x[i] & (((d1 | (0u - d1)) >> 31) - 1u);
    }
    st = fxdp_i_strhash32(cfg->word.key, SFP_WORD_HASH_INDEX, x + 1, len, cfg->word.max_len, cfg->word.max_len, &h);
    h >>= 24;                                          /* r */
    frag[0] = 3u;
    frag[1] = (uint8_t)h;
    frag[2] = (uint8_t)((b0 & keep0) ^ h);
    frag[3] = (uint8_t)((b1 & keep1) ^ (((h << 4) | (h >> 4)) & 0xFFu));
    return st;
}

/* After the two sketches' draws into out + 1: p on success, all zero on a failure. */
static fxdp_status sfp_finish(fxdp_status st, uint32_t p, const fxdp_sequence_fragment_puzzle_cfg *cfg, uint8_t *out)
{
    if (st != FXDP_OK) {
        fxdp_i_wipe(out, (size_t)(5u + cfg->fragment.ue.d + cfg->word.ue.d));     /* <= 2053 */
    } else {
        out[0] = (uint8_t)p;
    }
    return st;
}

fxdp_status fxdp_sequence_fragment_puzzle(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x,
                                          uint8_t *out)
{
    uint32_t p = 0;
    uint8_t frag[4];
    fxdp_status st = sfp_check(r, cfg, x, out, FXDP_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u32(r, cfg->positions, &p);
    }
    if (st == FXDP_OK) {
        st = sfp_fragment(cfg, p, x, frag);
    }
    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    st = fxdp_count_mean_sketch(r, &cfg->fragment, frag, out + 1);
    if (st == FXDP_OK) {
        st = fxdp_count_mean_sketch(r, &cfg->word, x, out + 3u + cfg->fragment.ue.d);
    }
    return sfp_finish(st, p, cfg, out);
}

fxdp_status fxdp_sequence_fragment_puzzle_ct(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg,
                                             const uint8_t *x, uint8_t *out)
{
    uint32_t p = 0;
    uint8_t frag[4];
    fxdp_status st = sfp_check(r, cfg, x, out, FXDP_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH);

    if (st == FXDP_OK) {
        st = fxdp_uniform_below_ct_u32(r, cfg->positions, &p);
    }
    if (st == FXDP_OK) {
        st = sfp_fragment(cfg, p, x, frag);
    }
    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    st = fxdp_count_mean_sketch_ct(r, &cfg->fragment, frag, out + 1);
    if (st == FXDP_OK) {
        st = fxdp_count_mean_sketch_ct(r, &cfg->word, x, out + 3u + cfg->fragment.ue.d);
    }
    return sfp_finish(st, p, cfg, out);
}

FXDP_I_INLINE fxdp_status sfp_hadamard(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x,
                                       uint32_t *out, int ct)
{
    uint32_t p = 0;
    uint8_t frag[4];
    fxdp_status st = sfp_check(r, cfg, x, out, FXDP_HADAMARD_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH);

    if (st == FXDP_OK) {
        st = ct ? fxdp_uniform_below_ct_u32(r, cfg->positions, &p) : fxdp_i_uniform_below_u32(r, cfg->positions, &p);
    }
    if (st == FXDP_OK) {
        st = sfp_fragment(cfg, p, x, frag);
    }
    if (st != FXDP_OK) {
        return st;                                    /* nothing written */
    }
    /* the reports in place (no copy on the stack while the word is drawn), all zero on a failure */
    st = ct ? fxdp_hadamard_count_mean_sketch_ct(r, &cfg->fragment, frag, out + 1)
            : fxdp_hadamard_count_mean_sketch(r, &cfg->fragment, frag, out + 1);
    if (st == FXDP_OK) {
        st = ct ? fxdp_hadamard_count_mean_sketch_ct(r, &cfg->word, x, out + 4)
                : fxdp_hadamard_count_mean_sketch(r, &cfg->word, x, out + 4);
    }
    if (st == FXDP_OK) {
        out[0] = p;
    } else {
        fxdp_i_wipe(out, 7u * sizeof out[0]);
    }
    return st;
}

fxdp_status fxdp_hadamard_sequence_fragment_puzzle(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg,
                                                   const uint8_t *x, uint32_t *out)
{
    return sfp_hadamard(r, cfg, x, out, 0);
}

fxdp_status fxdp_hadamard_sequence_fragment_puzzle_ct(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg,
                                                      const uint8_t *x, uint32_t *out)
{
    return sfp_hadamard(r, cfg, x, out, 1);
}
