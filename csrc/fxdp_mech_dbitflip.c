/*
 * fxdp_mech_dbitflip.c -- dBitFlip (Ding, Kulkarni, Yekhanin, NeurIPS 2017, section 3, memoized as in
 * section 4): a device reports, for each of its `sampled` buckets, one bit that is biased toward 1
 * when the bucket is its item's bucket; the buckets and the bits of every bucket value are derived
 * from the device secret, so the same bucket always gets the same answer and nothing is stored.
 *
 * Definition and bit use: fxdp/mechanisms/memoized/dbitflip.py (DBitFlip: permanent, release_export); the
 * Numba twin is fxdp/mechanisms/memoized/_kernels_dbitflip.py.
 *
 * Constant-time forms: the bucket of x by a fixed 32-step restoring division, the response bits by
 * fxdp_i_bernoulli_dyadic_ct (exactly bits bits each) with probabilities selected by masks, the
 * keyed ChaCha20 streams constant time.  The sampled buckets are drawn by rejection from the secret
 * alone (branch-free otherwise): their time and bit use do not depend on x, and the report carries
 * them.  Outputs are all or nothing (buffers in the workspace, wiped).  The _w forms take the
 * workspace (fxdp_dbitflip_work: the scratch rng, the secret, the buckets) from the caller.
 */
#include "fxdp_memoized.h"

static int cfg_bad(const fxdp_dbitflip_cfg *cfg)
{
    uint64_t two_k;

    if (cfg->bits < 2u || cfg->bits > 63u || cfg->d < 2u || cfg->d > FXDP_DBITFLIP_MAX_D || cfg->buckets < 2u ||
        cfg->buckets > cfg->d || cfg->sampled < 1u || cfg->sampled > cfg->buckets ||
        cfg->sampled > FXDP_DBITFLIP_MAX_S || cfg->uniform_version > 2u) {
        return 1;
    }
    two_k = UINT64_C(1) << cfg->bits;
    return cfg->a_p <= (two_k >> 1) || cfg->a_p >= two_k;
}

/* floor(x * buckets / d) (x < d <= 2^16, buckets <= d, so x * buckets < 2^32): restoring division in
 * 32 fixed steps without a branch, so its time does not depend on x (a divide instruction's may). */
static uint32_t bucket_of(uint32_t x, uint32_t buckets, uint32_t d)
{
    uint32_t num = x * buckets, rem = 0, q = 0, ge;
    unsigned i = 32u;

    while (i-- > 0u) {
        rem = (rem << 1) | ((num >> i) & UINT32_C(1));
        ge = UINT32_C(1) - fxdp_i_ct_gt32(d, rem);     /* rem >= d */
        rem -= d & (UINT32_C(0) - ge);
        q |= ge << i;
    }
    return q;
}

static void keyed_stream(const fxdp_longitudinal_device *dev, uint32_t word0, uint32_t word2, fxdp_rng *p)
{
    uint32_t nonce[3];

    nonce[0] = word0;
    nonce[1] = 0u;
    nonce[2] = word2;
    fxdp_rng_init_keyed(p, dev->secret, nonce);
}

/* J[0..sampled) <- the sampled buckets, ascending (Floyd's algorithm on the stream (0, 0, 3), in *p).
 * Membership, choice and sort are branch-free (a full exchange sort).  budget (the _ct form at
 * uniform_version 2, issue 32): every draw is fxdp_i_uniform_below_ct_u32, so the time is the same
 * for every secret; otherwise the rejections of uniform_below, which depend on the secret alone, make
 * it vary.  Inlined: as a call, its frame (72 bytes on Cortex-M0+) sat between the release's and the
 * draw's on the deepest stack path (304 bytes in all, 2026-12-06; 232 inlined). */
FXDP_I_INLINE fxdp_status sample_buckets(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *p, uint16_t *J,
                                  int budget)
{
    uint32_t s = cfg->sampled, idx, m, t = 0, j, ok = 0xFFFFFFFFu, acc = 0;
    fxdp_status st = FXDP_OK;

    keyed_stream(dev, 0u, 3u, p);
    for (idx = 0; idx < s; idx++) {
        uint32_t seen = 0, mask;
        j = cfg->buckets - s + idx;
        if (budget) {                                  /* issue 32: fixed budget, every round runs */
            st = fxdp_i_uniform_below_ct_u32(p, j + 1u, &t, &acc);
            ok &= acc;
        } else {
            st = fxdp_i_uniform_below_u32(p, j + 1u, &t);
        }
        if (st != FXDP_OK) {
            break;                                     /* cannot happen: a fresh keystream */
        }
        for (m = 0; m < idx; m++) {
            seen |= (uint32_t)fxdp_i_eq_mask64(J[m], t) & UINT32_C(1);
        }
        mask = UINT32_C(0) - seen;
        J[idx] = (uint16_t)((j & mask) | (t & ~mask));
    }
    for (idx = 0; st == FXDP_OK && idx < s; idx++) {
        for (m = idx + 1u; m < s; m++) {
            uint32_t lo = J[idx], hi = J[m];
            uint32_t swap = (lo ^ hi) & (UINT32_C(0) - fxdp_i_ct_gt32(lo, hi));
            J[idx] = (uint16_t)(lo ^ swap);
            J[m] = (uint16_t)(hi ^ swap);
        }
    }
    if (st == FXDP_OK && ok == 0u) {                   /* a draw's budget ran out: public, nothing released */
        st = FXDP_ERR_RANGE;
    }
    return st;
}

/* The report of x by dev.  work->stream is scratch for the two keyed streams, one after the other
 * (one rng, not two), work->buckets for the sampled buckets (out is written only on OK); both wiped. */
FXDP_I_INLINE fxdp_status dbf_report(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, uint32_t x, uint32_t *out,
                              int ct, fxdp_dbitflip_work *work)
{
    uint16_t *J = work->buckets;
    fxdp_rng *p = &work->stream;
    uint32_t v, i, s = cfg->sampled, word = 0;
    uint64_t a_q = (UINT64_C(1) << cfg->bits) - cfg->a_p;
    uint8_t b = 0;
    fxdp_status st;

    for (i = 0; i < FXDP_DBITFLIP_MAX_S; i++) {
        J[i] = 0u;                                     /* defined beyond `sampled` too (for Eva) */
    }
    st = sample_buckets(cfg, dev, p, J, ct && cfg->uniform_version == 2u);
    v = bucket_of(x, cfg->buckets, cfg->d);
    keyed_stream(dev, v, 4u, p);
    for (i = 0; st == FXDP_OK && i < s; i++) {
        uint64_t m = fxdp_i_eq_mask64(J[i], v);
        uint64_t a = (cfg->a_p & m) | (a_q & ~m);
        st = ct ? fxdp_i_bernoulli_dyadic_ct(p, a, cfg->bits, &b) : fxdp_i_bernoulli_dyadic(p, a, cfg->bits, &b);
        word |= ((uint32_t)b & UINT32_C(1)) << i;
    }
    if (st == FXDP_OK) {
        for (i = 0; i < s; i++) {
            out[i] = J[i];
            out[s + i] = (word >> i) & UINT32_C(1);
        }
    }
    fxdp_i_wipe_local(p, sizeof *p);
    fxdp_i_wipe_local(work->buckets, sizeof work->buckets);
    fxdp_i_wipe_local(&word, sizeof word);
    fxdp_i_wipe_local(&v, sizeof v);
    return st;
}

static fxdp_status dbf_report_checked(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, const uint32_t *x,
                                      uint32_t *out, int ct)
{
    fxdp_dbitflip_work work;                                /* its dev stays unused: dev is the caller's */

    if (cfg == NULL || dev == NULL || x == NULL || out == NULL || cfg_bad(cfg) || *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    return dbf_report(cfg, dev, *x, out, ct, &work);
}

fxdp_status fxdp_dbitflip_report(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, const uint32_t *x,
                                 uint32_t *out)
{
    return dbf_report_checked(cfg, dev, x, out, 0);
}

fxdp_status fxdp_dbitflip_report_ct(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, const uint32_t *x,
                                    uint32_t *out)
{
    return dbf_report_checked(cfg, dev, x, out, 1);
}

/* The export release: the device from r's sibling stream (in work->stream) when r is keyed, else from r
 * (fxdp_i_device_source, as fxdp_mech_longitudinal.c), then its report; scratch in *work, zeroed on every return. */
FXDP_I_INLINE fxdp_status dbf_export(fxdp_rng *r, const fxdp_dbitflip_cfg *cfg, const uint32_t *x, uint32_t *out, int ct,
                              fxdp_dbitflip_work *work)
{
    fxdp_status st;

    if (work == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_memo_device(r, r == NULL || cfg == NULL || x == NULL || out == NULL || cfg_bad(cfg) || *x >= cfg->d,
                            work->dev.secret, &work->stream);
    if (st == FXDP_OK) {
        st = dbf_report(cfg, &work->dev, *x, out, ct, work);
    }
    fxdp_i_wipe_local(work, sizeof *work);
    return st;
}

FXDP_I_MEMO_ENTRY_POINTS(fxdp_dbitflip, fxdp_dbitflip_cfg, uint32_t, fxdp_dbitflip_work, dbf_export)
