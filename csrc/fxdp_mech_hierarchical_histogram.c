/*
 * fxdp_mech_hierarchical_histogram.c -- the hierarchical histogram (Cormode, Kulkarni and Srivastava,
 * VLDB 2019) of a reading on a grid (issue 35).  Reference fxdp/mechanisms/ranges/hierarchical_histogram.py
 * (HierarchicalHistogram.release); Numba twin fxdp/mechanisms/ranges/_kernels_hierarchical_histogram.py.
 *
 * Input: the grid index x in [0, 2^bits]; its leaf is min(x, 2^bits - 1).  Bits, in order: the level
 * t = uniform_below(levels) (_ct: uniform_below_ct), then the level's oracle on the leaf's node at that
 * level, leaf >> (bits - min(bits, (t + 1) log2_branching)): k-ary randomized response's lazy release
 * for t < krr_levels (fxdp_rr's algorithm, drawn inline: uniform_below(d_t - 1), then
 * bernoulli_dyadic(rr_w0[t], rr_k)), else local hashing's (fxdp_local_hashing[_ct] on cfg->lh).  Every
 * config field is checked before anything is drawn.  out[0..4) = (t, y, 0, 0) or (t, a, b, y), written
 * only on FXDP_OK.
 * The _ct form has no k-ary RR level (its constant-time scan would grow with the level's size): local
 * hashing's _ct release runs the same instructions and bits for every node, and the node is picked by
 * a masked scan of every level's shift, so neither x nor t changes the instructions.
 */
#include "fxdp_mech_local_hashing.h"

/* 1 iff cfg is valid (fxdp.h); ct: no k-ary RR level.  Inlined into each entry point's check, so
 * that a constant-time export carries no k-ary RR check. */
FXDP_I_INLINE int hh_ok(const fxdp_hierarchical_histogram_cfg *cfg, int ct)
{
    uint32_t t, used = 0;

    if (cfg->bits < 1u || cfg->bits > FXDP_HIERARCHICAL_HISTOGRAM_MAX_BITS || cfg->log2_branching < 1u ||
        cfg->log2_branching > FXDP_HIERARCHICAL_HISTOGRAM_MAX_BITS ||
        cfg->levels > FXDP_HIERARCHICAL_HISTOGRAM_MAX_BITS || cfg->krr_levels > cfg->levels) {
        return 0;
    }
    /* levels = ceil(bits / log2_branching), by subtraction (no divide) */
    for (t = 0; used < cfg->bits; t++) {
        used += cfg->log2_branching;
    }
    if (cfg->levels != t || (ct && cfg->krr_levels != 0u)) {
        return 0;
    }
    if (!ct && cfg->krr_levels > 0u) {
        if (cfg->rr_k < 1u || cfg->rr_k > 32u) {
            return 0;
        }
        used = 0;
        for (t = 0; t < cfg->krr_levels && t < FXDP_HIERARCHICAL_HISTOGRAM_MAX_BITS; t++) {
            used += cfg->log2_branching;
            /* the level's 2^min(bits, used) categories: at most 2^(rr_k - 1); 0 < w0 < 2^rr_k (32-bit
             * shifts only: rr_k = 32 admits every nonzero w0) */
            if ((used < cfg->bits ? used : cfg->bits) >= cfg->rr_k || cfg->rr_w0[t] == 0u ||
                (cfg->rr_k < 32u && (cfg->rr_w0[t] >> (cfg->rr_k & 31u)) != 0u)) {
                return 0;
            }
        }
    }
    if (cfg->krr_levels < cfg->levels &&
        (!fxdp_i_local_hashing_ok(&cfg->lh) || cfg->lh.d != (UINT32_C(1) << cfg->bits))) {
        return 0;
    }
    return 1;
}

FXDP_I_INLINE fxdp_status hh_check(const fxdp_rng *r, const fxdp_hierarchical_histogram_cfg *cfg, const uint32_t *x,
                                   const uint32_t *out, int ct)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!hh_ok(cfg, ct)) {
        return FXDP_ERR_PARAM;
    }
    if (*x > (UINT32_C(1) << cfg->bits)) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* The shift from a leaf to its node at a level of 2^min(bits, used) nodes: bits - min(bits, used), in
 * [0, 16] for a checked cfg (the mask only tells the analysis so). */
static uint32_t hh_shift(const fxdp_hierarchical_histogram_cfg *cfg, uint32_t used)
{
    return (used < cfg->bits ? cfg->bits - used : 0u) & 31u;
}

/* The leaf of grid index x <= 2^bits: x - 1 for x = 2^bits (x >> bits is then 1, else 0). */
static uint32_t hh_leaf(const fxdp_hierarchical_histogram_cfg *cfg, uint32_t x)
{
    return x - (x >> cfg->bits);
}

/* k-ary RR of node over level t's 2^(bits - shift) nodes into out[1..4): fxdp_rr's lazy algorithm
 * (OpenDP's: a uniform other node, then keep the truth w.p. rr_w0[t]/2^rr_k), drawn here rather than
 * through fxdp_rr so that no config struct goes on the stack, and out of line so that its locals stay
 * off the local hashing path's frame. */
FXDP_I_OUTLINE static fxdp_status hh_krr(fxdp_rng *r, const fxdp_hierarchical_histogram_cfg *cfg, uint32_t t,
                                         uint32_t shift, uint32_t node, uint32_t *out)
{
    uint32_t s = 0;
    uint8_t honest = 0;
    fxdp_status st = fxdp_i_uniform_below_u32(r, (UINT32_C(1) << ((cfg->bits - shift) & 31u)) - 1u, &s);

    if (st == FXDP_OK) {
        s += (uint32_t)(s >= node);
        /* rr_k <= 32 (checked): the mask only tells the analysis so */
        st = fxdp_i_bernoulli_dyadic(r, cfg->rr_w0[t], cfg->rr_k & 63u, &honest);
    }
    if (st == FXDP_OK) {
        out[1] = honest != 0u ? node : s;
        out[2] = 0u;
        out[3] = 0u;
    }
    return st;
}

fxdp_status fxdp_hierarchical_histogram(fxdp_rng *r, const fxdp_hierarchical_histogram_cfg *cfg, const uint32_t *x,
                                        uint32_t *out)
{
    uint32_t t = 0, l, shift, node, used = 0;
    fxdp_status st = hh_check(r, cfg, x, out, 0);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u32(r, cfg->levels, &t);
    }
    if (st != FXDP_OK) {
        return st;
    }
    for (l = 0; l <= t; l++) {                              /* (t + 1) log2_branching, no multiply */
        used += cfg->log2_branching;
    }
    shift = hh_shift(cfg, used);
    node = hh_leaf(cfg, *x) >> shift;
    if (t < cfg->krr_levels) {
        st = hh_krr(r, cfg, t, shift, node, out);
    } else {
        st = fxdp_i_local_hashing_run(r, &cfg->lh, node, out + 1);     /* node < 2^bits = lh.d */
    }
    if (st == FXDP_OK) {
        out[0] = t;
    }
    return st;
}

/* The node of leaf at level t, t secret: every level's node, kept under a mask (the shifts depend on
 * the public level index only). */
static uint32_t hh_node_ct(const fxdp_hierarchical_histogram_cfg *cfg, uint32_t t, uint32_t leaf)
{
    uint32_t l, used = 0, node = 0;

    for (l = 0; l < cfg->levels; l++) {
        uint32_t diff = l ^ t;
        uint32_t mask = ((diff | (0u - diff)) >> 31) - 1u;  /* all ones iff l == t */

        used += cfg->log2_branching;
        node |= (leaf >> hh_shift(cfg, used)) & mask;
    }
    return node;
}

fxdp_status fxdp_hierarchical_histogram_ct(fxdp_rng *r, const fxdp_hierarchical_histogram_cfg *cfg, const uint32_t *x,
                                           uint32_t *out)
{
    uint32_t t = 0, ok = 0, node;
    fxdp_status st = hh_check(r, cfg, x, out, 1);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_ct_u32(r, cfg->levels, &t, &ok);
    }
    if (st == FXDP_OK && ok == 0u) {            /* the budget's verdict: public, the release fails */
        st = FXDP_ERR_RANGE;
    }
    if (st != FXDP_OK) {
        return st;
    }
    node = hh_node_ct(cfg, t, hh_leaf(cfg, *x));
    st = fxdp_i_local_hashing_run_ct(r, &cfg->lh, node, out + 1);
    if (st == FXDP_OK) {
        out[0] = t;
    }
    return st;
}
