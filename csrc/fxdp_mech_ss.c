/*
 * fxdp_mech_ss.c -- subset selection frequency oracle (Wang et al. 2016; Ye and
 * Barg 2018, the k-subset mechanism): the device holds one item x of a domain of
 * d and reports a k-subset S as its k items in increasing order (uint16_t).  S
 * holds x with probability a_p/2^bits, its other members then a uniform
 * (k-1)-subset of the d-1 other items; otherwise S is a uniform k-subset of them.
 *
 * Definition and bit use: fxdp/mechanisms/subset_selection.py
 * (SubsetSelection.release): Floyd's algorithm draws a uniform k-subset T of the
 * m = d-1 "other" indices (t = uniform_below(j+1) for j = m-k .. m-1; T gets j
 * if t is already in T, else t), then b = Bernoulli(a_p/2^bits), then r =
 * uniform_below(k) (constant-time form: always; lazy: only when b = 1).  Other
 * index j is item j + [j >= x]; when b = 1 the r-th smallest member is replaced
 * by x.  The Numba twin is fxdp/mechanisms/_kernels_ss.py.
 *
 * T lives in a d-bit map on the stack (d <= FXDP_SS_MAX_D: 128 bytes).  In the
 * constant-time form every access to it is a full scan of its words with masks,
 * and every shift count is public (a variable shift is a loop of that many steps
 * on AVR): a position v is turned into (v >> 5, one-hot of v & 31), the one-hot
 * built by five masked constant shifts.  So no branch, address or shift count
 * depends on x, b or the drawn subset; the uniform draws' rejections depend on
 * the stream only.  The lazy form reads and sets Floyd's bits at their own word
 * (O(1) instead of O(d/32) per draw; address and shift reveal the subset) and
 * draws r only when b = 1; the passes after the draws are shared.  The
 * output is written only on FXDP_OK, after every bit has been read (its
 * addresses follow the released subset itself).
 */
#include "fxdp_internal.h"

#define SS_WORDS (FXDP_SS_MAX_D / 32u)

static fxdp_status ss_check(const fxdp_rng *r, const fxdp_ss_cfg *cfg, const uint32_t *x, const uint16_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->bits < 1u || cfg->bits > 63u || cfg->a_p == 0u || cfg->a_p >= (UINT64_C(1) << cfg->bits) ||
        cfg->d < 2u || cfg->d > FXDP_SS_MAX_D || cfg->k < 1u || cfg->k >= cfg->d || *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* All ones iff a == b, else zero (no branch). */
static uint32_t ss_eq_mask(uint32_t a, uint32_t b)
{
    uint32_t v = a ^ b;
    return ((v | (0u - v)) >> 31) - 1u;
}

/* 1 << s for s in [0, 32): five masked constant shifts, so the time does not depend on s. */
static uint32_t ss_onehot(uint32_t s)
{
    uint32_t v = 1u, m;

    m = 0u - (s & 1u);
    v = (v & ~m) | ((v << 1) & m);
    m = 0u - ((s >> 1) & 1u);
    v = (v & ~m) | ((v << 2) & m);
    m = 0u - ((s >> 2) & 1u);
    v = (v & ~m) | ((v << 4) & m);
    m = 0u - ((s >> 3) & 1u);
    v = (v & ~m) | ((v << 8) & m);
    m = 0u - ((s >> 4) & 1u);
    v = (v & ~m) | ((v << 16) & m);
    return v;
}

/* 1 iff bit v of the map is set: every word is read. */
static uint32_t ss_test(const uint32_t *y, uint32_t words, uint32_t v)
{
    uint32_t w, acc = 0, hi = v >> 5;

    for (w = 0; w < words; w++) {
        acc |= y[w] & ss_eq_mask(w, hi);
    }
    acc &= ss_onehot(v & 31u);
    return (acc | (0u - acc)) >> 31;
}

/* Sets bit v of the map: every word is written. */
static void ss_set(uint32_t *y, uint32_t words, uint32_t v)
{
    uint32_t w, hot = ss_onehot(v & 31u), hi = v >> 5;

    for (w = 0; w < words; w++) {
        y[w] |= hot & ss_eq_mask(w, hi);
    }
}

static void ss_wipe(uint32_t *p, uint32_t n)
{
    volatile uint32_t *v = p;
    uint32_t i;

    for (i = 0; i < n; i++) {
        v[i] = 0;
    }
}

/* Bits of a try of uniform_below(n): bitlen(n - 1), 0 for n = 1 (public). */
static unsigned ss_try_bits(uint32_t n)
{
    return n > 1u ? fxdp_i_bitlen32_nz(n - 1u) : 0u;
}

/* Floyd's T into y (other indices), reading bits through (buf, cnt): the constant-time loop scans
 * the map, the lazy one touches t's and v's words only (two loops, so neither tests ct per draw). */
static fxdp_status ss_floyd(fxdp_rng *r, const fxdp_ss_cfg *cfg, uint32_t *y, uint32_t words, uint32_t *buf,
                            uint32_t *cnt, int ct)
{
    uint32_t m = cfg->d - 1u, j, t = 0, mem, v;
    fxdp_status st;

    if (ct) {
        for (j = m - cfg->k; j < m; j++) {
            st = fxdp_i_rd_uniform32(r, buf, cnt, j + 1u, ss_try_bits(j + 1u), &t);
            if (st != FXDP_OK) {
                return st;
            }
            mem = ss_test(y, words, t);
            v = (j & (0u - mem)) | (t & (mem - 1u));        /* j if t is in T, else t */
            ss_set(y, words, v);
        }
    } else {
        for (j = m - cfg->k; j < m; j++) {
            st = fxdp_i_rd_uniform32(r, buf, cnt, j + 1u, ss_try_bits(j + 1u), &t);
            if (st != FXDP_OK) {
                return st;
            }
            mem = (y[t >> 5] >> (t & 31u)) & 1u;
            v = mem != 0u ? j : t;
            y[v >> 5] |= UINT32_C(1) << (v & 31u);
        }
    }
    return FXDP_OK;
}

/* The random part: Floyd's T into y, then b and r.  Nothing else is written. */
static fxdp_status ss_draw(fxdp_rng *r, const fxdp_ss_cfg *cfg, uint32_t *y, uint32_t words, uint8_t *b,
                           uint32_t *rr, int ct)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount;
    fxdp_status st = ss_floyd(r, cfg, y, words, &buf, &cnt, ct);

    r->bitbuf = buf;
    r->bitcount = cnt;
    if (st != FXDP_OK) {
        return st;
    }
    if (ct) {
        st = fxdp_i_bernoulli_dyadic_ct(r, cfg->a_p, cfg->bits, b);
    } else {
        st = fxdp_i_bernoulli_dyadic(r, cfg->a_p, cfg->bits, b);
    }
    if (st != FXDP_OK) {
        return st;
    }
    *rr = 0;
    if (ct || *b != 0u) {
        buf = r->bitbuf;
        cnt = r->bitcount;
        st = fxdp_i_rd_uniform32(r, &buf, &cnt, cfg->k, ss_try_bits(cfg->k), rr);
        r->bitbuf = buf;
        r->bitcount = cnt;
    }
    return st;
}

static fxdp_status ss_run(fxdp_rng *r, const fxdp_ss_cfg *cfg, uint32_t x, uint16_t *out, int ct)
{
    uint32_t y[SS_WORDS];
    uint32_t words = (cfg->d + 31u) / 32u, w, p, rr = 0, count = 0, pos = 0, prev = 0;
    uint32_t xw = x >> 5, hot_x = ss_onehot(x & 31u), bm;
    uint8_t b = 0;
    fxdp_status st;

    for (w = 0; w < SS_WORDS; w++) {         /* the whole map: every read below is of a written word */
        y[w] = 0;
    }
    st = ss_draw(r, cfg, y, words, &b, &rr, ct);
    if (st != FXDP_OK) {
        ss_wipe(y, words);
        return st;
    }
    bm = 0u - ((uint32_t)b & 1u);

    /* other index j -> item j + [j >= x]: insert a zero bit at x (prev: the word below, as drawn) */
    for (w = 0; w < words; w++) {
        uint32_t in_w = ss_eq_mask(w, xw), cur = y[w];
        uint32_t keep = ((hot_x - 1u) & in_w) | (0u - fxdp_i_ct_gt32(xw, w));     /* items below x */
        uint32_t sh = (cur << 1) | (prev >> 31);
        y[w] = (cur & keep) | (sh & ~keep & ~(hot_x & in_w));
        prev = cur;
    }
    /* if b: clear the r-th smallest member (a running count over every position), set x */
    for (w = 0; w < words; w++) {
        uint32_t v = y[w], pm = 1u, clr = 0;
        for (p = 0; p < 32u; p++) {
            uint32_t bit = v & 1u;
            clr |= pm & (0u - bit) & ss_eq_mask(count, rr);
            count += bit;
            v >>= 1;
            pm <<= 1;
        }
        y[w] = (y[w] & ~(clr & bm)) | (hot_x & ss_eq_mask(w, xw) & bm);
    }
    /* emit the members in increasing order (out[min(pos, k-1)] rewritten with itself when not a member) */
    for (w = 0; w < words; w++) {
        uint32_t v = y[w];
        for (p = 0; p < 32u; p++) {
            uint32_t mk = 0u - (v & 1u);
            uint32_t idx = pos - (ss_eq_mask(pos, cfg->k) & 1u);
            out[idx] = (uint16_t)(((32u * w + p) & mk) | ((uint32_t)out[idx] & ~mk));
            pos += mk & 1u;
            v >>= 1;
        }
    }
    ss_wipe(y, words);
    return FXDP_OK;
}

fxdp_status fxdp_subset_selection(fxdp_rng *r, const fxdp_ss_cfg *cfg, const uint32_t *x, uint16_t *out)
{
    fxdp_status st = ss_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return ss_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_subset_selection_ct(fxdp_rng *r, const fxdp_ss_cfg *cfg, const uint32_t *x, uint16_t *out)
{
    fxdp_status st = ss_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return ss_run(r, cfg, *x, out, 1);
}
