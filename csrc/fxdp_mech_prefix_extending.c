/*
 * fxdp_mech_prefix_extending.c -- the Prefix Extending Method (Wang, Li and Jha, TDSC 2019) over byte
 * strings (issue 34).  Reference fxdp/mechanisms/strings/prefix_extending.py (PrefixExtending.release);
 * Numba twin fxdp/mechanisms/strings/_kernels_prefix_extending.py.
 *
 * Input: the encoded string x[0..L] = [len] || bytes || padding (1 <= len <= L; the padding bytes are
 * read as 0, whatever they hold).  Bits, in order: the group t = uniform_below(G) (_ct:
 * uniform_below_ct), then local hashing's release (fxdp_local_hashing[_ct]'s bits on cfg->lh, d = 2^30) of
 * the item z = h_t(x[0..l_t)) >> 2, the keyed string hash of the group's prefix of
 * l_t = min(start + (t + 1) step, L + 1) bytes hashed as a string of at most L + 1 bytes.
 * out[0..4) = t, a, b, y, written only on FXDP_OK.  The hash reads all L + 1 bytes and ChaCha20
 * blocks that depend on t and L only; l_t is computed without a branch; so the _ct form's time and
 * bits do not depend on the string or its length.
 */
#include "fxdp_mech_prefix_extending.h"
#include "fxdp_mech_local_hashing.h"

#define PEM_ITEM_SHIFT 2u                          /* items of [0, 2^30): the hash's top 30 bits */

int fxdp_i_prefix_extending_ok(const fxdp_prefix_extending_cfg *cfg)
{
    uint32_t width, groups;

    if (cfg->max_len < 1u || cfg->max_len > FXDP_PREFIX_EXTENDING_MAX_LENGTH || cfg->step < 1u || cfg->step > 2u ||
        cfg->start < 1u || cfg->start > 2u || cfg->lh.d != (UINT32_C(1) << 30) || !fxdp_i_local_hashing_ok(&cfg->lh)) {
        return 0;
    }
    width = cfg->max_len + 1u;
    if (cfg->start > width) {
        return 0;
    }
    groups = (width - cfg->start + cfg->step - 1u) >> (cfg->step - 1u);     /* step is 1 or 2: no division */
    return cfg->groups == (groups == 0u ? 1u : groups);
}

static fxdp_status pem_check(const fxdp_rng *r, const fxdp_prefix_extending_cfg *cfg, const uint8_t *x,
                             const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_prefix_extending_ok(cfg)) {
        return FXDP_ERR_PARAM;
    }
    if (x[0] < 1u || x[0] > cfg->max_len) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

/* *z = the item of group t's prefix of x. */
FXDP_I_INLINE fxdp_status pem_item(const fxdp_prefix_extending_cfg *cfg, uint32_t t, const uint8_t *x, uint32_t *z)
{
    uint32_t width = cfg->max_len + 1u, h = 0;
    uint32_t l = (uint32_t)cfg->start + ((t + 1u) << (cfg->step - 1u));    /* step 1 or 2: t + 1 or 2 (t + 1), no multiply */
    uint32_t over = 0u - ((width - l) >> 31);                                 /* all ones iff l > width */
    fxdp_status st;

    l = (l & ~over) | (width & over);
    st = fxdp_i_strhash32(cfg->key, t, x, l, (uint32_t)x[0] + 1u, width, &h);
    if (st == FXDP_OK) {
        *z = h >> PEM_ITEM_SHIFT;
    }
    return st;
}

fxdp_status fxdp_prefix_extending(fxdp_rng *r, const fxdp_prefix_extending_cfg *cfg, const uint8_t *x, uint32_t *out)
{
    uint32_t t = 0, z = 0;
    fxdp_status st = pem_check(r, cfg, x, out);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_u32(r, cfg->groups, &t);
    }
    if (st == FXDP_OK) {
        st = pem_item(cfg, t, x, &z);
    }
    if (st == FXDP_OK) {
        st = fxdp_i_local_hashing_run(r, &cfg->lh, z, out + 1);        /* z < 2^30 = lh.d (checked) */
    }
    if (st == FXDP_OK) {
        out[0] = t;
    }
    return st;
}

fxdp_status fxdp_prefix_extending_ct(fxdp_rng *r, const fxdp_prefix_extending_cfg *cfg, const uint8_t *x, uint32_t *out)
{
    uint32_t t = 0, z = 0, ok = 0;
    fxdp_status st = pem_check(r, cfg, x, out);

    if (st == FXDP_OK) {
        st = fxdp_i_uniform_below_ct_u32(r, cfg->groups, &t, &ok);
    }
    if (st == FXDP_OK && ok == 0u) {            /* the budget's verdict: public, the release fails */
        st = FXDP_ERR_RANGE;
    }
    if (st == FXDP_OK) {
        st = pem_item(cfg, t, x, &z);
    }
    if (st == FXDP_OK) {
        st = fxdp_i_local_hashing_run_ct(r, &cfg->lh, z, out + 1);     /* z < 2^30 = lh.d (checked) */
    }
    if (st == FXDP_OK) {
        out[0] = t;
    }
    return st;
}
