/*
 * fxdp_mech_longitudinal.c -- longitudinal (memoized) frequency oracles, L-GRR and L-OUE (Arcolezi et al.
 * 2022): a device reports an item x of [0, d) round after round; each report chains a permanent
 * response, memoized by derivation from the device secret, and an instantaneous response drawn
 * from the round's rng.
 *
 * Definition and bit use: fxdp/mechanisms/memoized/longitudinal.py (LongitudinalGRR / LongitudinalUE:
 * report, release_export); the Numba twin is fxdp/mechanisms/memoized/_kernels_longitudinal.py.
 *
 * The permanent stream of item x is ChaCha20(key = secret, nonce (x, 0, 2)) from counter 0, built
 * afresh for every report, so the same (secret, x) always gives the same permanent response and
 * nothing is stored.  The export entry points (fxdp_longitudinal_grr[_ct], _ue[_ct]) derive the
 * secret from the sibling of a keyed rng (its key, nonce words 0 and 1, word 2 = 1), as
 * fxdp_rappor_full_release does; from any other rng they draw a fresh secret (no memoization).
 * Their _w forms keep the second rng and the secret in the caller's workspace (fxdp_lgrr_work,
 * fxdp_lue_work: static in the exported firmware, so the release path fits 256 B of stack).
 *
 * Constant-time forms: GRR steps read exactly `bits` bits and scan all d - 1 thresholds
 * branch-free; UE steps read exactly `bits` bits per item, probabilities selected with masks.
 * ChaCha20 and the provisioning are constant time, so time and bit use do not depend on x, the
 * secret or the draws.  L-OUE's report is drawn in place in out, zeroed on an entropy failure.
 */
#include "fxdp_memoized.h"

fxdp_status fxdp_longitudinal_provision(fxdp_rng *r, fxdp_longitudinal_device *dev)
{
    uint32_t secret[8];
    unsigned i;
    fxdp_status st;

    if (r == NULL || dev == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    for (i = 0; st == FXDP_OK && i < 8u; i++) {
        st = fxdp_i_bits(r, 32u, &secret[i]);
    }
    if (st == FXDP_OK) {
        for (i = 0; i < 8u; i++) {
            dev->secret[i] = secret[i];
        }
    }
    fxdp_i_wipe_local(secret, sizeof secret);
    return st;
}

/* The permanent stream of item x: ChaCha20(secret, nonce (x, 0, 2)). */
static void permanent_stream(const fxdp_longitudinal_device *dev, uint32_t x, fxdp_rng *p)
{
    uint32_t nonce[3];

    nonce[0] = x;
    nonce[1] = 0u;
    nonce[2] = 2u;
    fxdp_rng_init_keyed(p, dev->secret, nonce);
}

/* ---- L-GRR ----------------------------------------------------------------- */

static int grr_cfg_bad(const fxdp_longitudinal_grr_cfg *cfg)
{
    uint64_t two_k;

    if (cfg->bits < 2u || cfg->bits > 32u || cfg->d < 2u || cfg->d > FXDP_LONGITUDINAL_GRR_MAX_D) {
        return 1;
    }
    two_k = UINT64_C(1) << cfg->bits;
    if ((uint64_t)cfg->d > (two_k >> 1) || cfg->w == 0u || cfg->w0 <= cfg->w || cfg->v == 0u ||
        cfg->v0 < cfg->v) {
        return 1;
    }
    return (uint64_t)cfg->w0 + (uint64_t)(cfg->d - 1u) * cfg->w != two_k ||
           (uint64_t)cfg->v0 + (uint64_t)(cfg->d - 1u) * cfg->v != two_k;
}

/* One k-ary RR step of x < d: the truth w.p. big/2^bits, each other item w.p. small/2^bits. */
FXDP_I_INLINE fxdp_status grr_step(fxdp_rng *r, const fxdp_longitudinal_grr_cfg *cfg, uint32_t big, uint32_t small, uint32_t x,
                            int ct, uint32_t *out)
{
    fxdp_status st;

    if (ct) {
        uint32_t u, t = big, off = 0, y, ge, j;
        st = fxdp_i_bits(r, cfg->bits, &u);
        if (st != FXDP_OK) {
            return st;
        }
        for (j = 0; j + 1u < cfg->d; j++) {           /* off = #{j : big + j small <= u}, full scan */
            off += 1u - fxdp_i_ct_gt32(t, u);
            t += small;                                /* wraps only after its last use */
        }
        y = x + off;                                   /* (x + off) mod d, x, off < d <= 2^31 */
        ge = 1u - fxdp_i_ct_gt32(cfg->d, y);
        *out = y - (cfg->d & (0u - ge));
        return FXDP_OK;
    } else {
        uint32_t s;
        uint8_t honest;
        st = fxdp_i_uniform_below_u32(r, cfg->d - 1u, &s);
        if (st != FXDP_OK) {
            return st;
        }
        if (s >= x) {
            s += 1u;
        }
        st = fxdp_i_bernoulli_dyadic(r, big, cfg->bits, &honest);
        if (st != FXDP_OK) {
            return st;
        }
        *out = honest ? x : s;
        return FXDP_OK;
    }
}

/* *p: scratch for the permanent stream (wiped).  The step, report and export helpers are inlined
 * (FXDP_I_INLINE): each entry point then has only its own form's samplers on its call graph (the
 * constant-time ones no lazy sampler frame) and one frame for all three, within 256 B of stack. */
FXDP_I_INLINE fxdp_status grr_report(const fxdp_longitudinal_grr_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                              uint32_t x, uint32_t *out, int ct, fxdp_rng *p)
{
    uint32_t y1 = 0, y2 = 0;
    fxdp_status st;

    permanent_stream(dev, x, p);
    st = grr_step(p, cfg, cfg->w0, cfg->w, x, ct, &y1);
    if (st == FXDP_OK) {
        st = grr_step(r, cfg, cfg->v0, cfg->v, y1, ct, &y2);
    }
    if (st == FXDP_OK) {
        *out = y2;
    }
    fxdp_i_wipe_local(p, sizeof *p);
    fxdp_i_wipe_local(&y1, sizeof y1);
    return st;
}

static fxdp_status grr_report_checked(const fxdp_longitudinal_grr_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                      const uint32_t *x, uint32_t *out, int ct)
{
    fxdp_rng p;
    fxdp_status st;

    if (cfg == NULL || dev == NULL || r == NULL || x == NULL || out == NULL || grr_cfg_bad(cfg) ||
        *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    return grr_report(cfg, dev, r, *x, out, ct, &p);
}

fxdp_status fxdp_longitudinal_grr_report(const fxdp_longitudinal_grr_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                         const uint32_t *x, uint32_t *out)
{
    return grr_report_checked(cfg, dev, r, x, out, 0);
}

fxdp_status fxdp_longitudinal_grr_report_ct(const fxdp_longitudinal_grr_cfg *cfg, const fxdp_longitudinal_device *dev,
                                            fxdp_rng *r, const uint32_t *x, uint32_t *out)
{
    return grr_report_checked(cfg, dev, r, x, out, 1);
}

/* The export release: the device from r (fxdp_i_device_source), then its report; scratch in *work,
 * zeroed on every return. */
FXDP_I_INLINE fxdp_status grr_export(fxdp_rng *r, const fxdp_longitudinal_grr_cfg *cfg, const uint32_t *x, uint32_t *out, int ct,
                              fxdp_lgrr_work *work)
{
    fxdp_status st;

    if (work == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_memo_device(r, r == NULL || cfg == NULL || x == NULL || out == NULL || grr_cfg_bad(cfg) || *x >= cfg->d,
                            work->dev.secret, &work->stream);
    if (st == FXDP_OK) {
        st = grr_report(cfg, &work->dev, r, *x, out, ct, &work->stream);
    }
    fxdp_i_wipe_local(work, sizeof *work);
    return st;
}

FXDP_I_MEMO_ENTRY_POINTS(fxdp_longitudinal_grr, fxdp_longitudinal_grr_cfg, uint32_t, fxdp_lgrr_work, grr_export)

/* ---- L-OUE ----------------------------------------------------------------- */

static int ue_cfg_bad(const fxdp_longitudinal_ue_cfg *cfg)
{
    uint64_t two_k;

    if (cfg->bits < 2u || cfg->bits > 63u || cfg->d < 2u || cfg->d > FXDP_LONGITUDINAL_UE_MAX_D) {
        return 1;
    }
    two_k = UINT64_C(1) << cfg->bits;
    return cfg->a_q1 == 0u || cfg->a_q1 >= cfg->a_p1 || cfg->a_p1 >= two_k ||
           cfg->a_p2 <= (two_k >> 1) || cfg->a_p2 >= two_k;
}

FXDP_I_INLINE fxdp_status draw(fxdp_rng *r, uint64_t a, unsigned bits, int ct, uint8_t *out)
{
    return ct ? fxdp_i_bernoulli_dyadic_ct(r, a, bits, out) : fxdp_i_bernoulli_dyadic(r, a, bits, out);
}

/* Drawn in place: bit i goes to out[i] (a public position) as it is drawn, and an entropy failure
 * zeroes out[0..d) (no 128-byte stack copy: issue 13's 256 B goal), so nothing is released. */
FXDP_I_INLINE fxdp_status ue_report(const fxdp_longitudinal_ue_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r, uint32_t x,
                             uint8_t *out, int ct, fxdp_rng *p)
{
    uint32_t i;
    uint64_t q2 = (UINT64_C(1) << cfg->bits) - cfg->a_p2;
    unsigned bits = cfg->bits;
    uint8_t b1 = 0, b2 = 0;
    fxdp_status st = FXDP_OK;

    permanent_stream(dev, x, p);
    if (!ct && bits <= 32u) {
        /* p and r are independent streams, each read in item order: the permanent bits first, as
         * runs on p into out (the same bits of p), then each item's instantaneous bit from r */
        st = fxdp_i_bernoulli_dyadic_run(p, cfg->a_q1, bits, out, 0u, x);
        if (st == FXDP_OK) {
            st = fxdp_i_bernoulli_dyadic_run(p, cfg->a_p1, bits, out, x, x + 1u);
        }
        if (st == FXDP_OK) {
            st = fxdp_i_bernoulli_dyadic_run(p, cfg->a_q1, bits, out, x + 1u, cfg->d);
        }
        for (i = 0; i < cfg->d && st == FXDP_OK; i++) {
            st = fxdp_i_bernoulli_dyadic(r, out[i] != 0u ? cfg->a_p2 : q2, bits, &b2);
            out[i] = (uint8_t)(b2 & 1u);
        }
        if (st != FXDP_OK) {
            fxdp_i_wipe(out, (size_t)cfg->d);
        }
        fxdp_i_wipe_local(p, sizeof *p);
        return st;
    }
    /* per item: the permanent bit from p, then the instantaneous bit from r (independent streams) */
    for (i = 0; i < cfg->d; i++) {
        uint64_t m = fxdp_i_eq_mask64(i, x), mb, a;
        a = (cfg->a_p1 & m) | (cfg->a_q1 & ~m);
        st = draw(p, a, bits, ct, &b1);
        if (st != FXDP_OK) {
            break;                                     /* cannot happen: a fresh keystream */
        }
        mb = UINT64_C(0) - (uint64_t)(b1 & 1u);
        a = (cfg->a_p2 & mb) | (q2 & ~mb);
        st = draw(r, a, bits, ct, &b2);
        if (st != FXDP_OK) {
            break;
        }
        out[i] = (uint8_t)(b2 & 1u);
    }
    if (st != FXDP_OK) {
        fxdp_i_wipe(out, (size_t)cfg->d);
    }
    fxdp_i_wipe_local(p, sizeof *p);
    return st;
}

static fxdp_status ue_report_checked(const fxdp_longitudinal_ue_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                     const uint32_t *x, uint8_t *out, int ct)
{
    fxdp_rng p;
    fxdp_status st;

    if (cfg == NULL || dev == NULL || r == NULL || x == NULL || out == NULL || ue_cfg_bad(cfg) ||
        *x >= cfg->d) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    return ue_report(cfg, dev, r, *x, out, ct, &p);
}

fxdp_status fxdp_longitudinal_ue_report(const fxdp_longitudinal_ue_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                        const uint32_t *x, uint8_t *out)
{
    return ue_report_checked(cfg, dev, r, x, out, 0);
}

fxdp_status fxdp_longitudinal_ue_report_ct(const fxdp_longitudinal_ue_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                           const uint32_t *x, uint8_t *out)
{
    return ue_report_checked(cfg, dev, r, x, out, 1);
}

/* As grr_export. */
FXDP_I_INLINE fxdp_status ue_export(fxdp_rng *r, const fxdp_longitudinal_ue_cfg *cfg, const uint32_t *x, uint8_t *out, int ct,
                             fxdp_lue_work *work)
{
    fxdp_status st;

    if (work == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_memo_device(r, r == NULL || cfg == NULL || x == NULL || out == NULL || ue_cfg_bad(cfg) || *x >= cfg->d,
                            work->dev.secret, &work->stream);
    if (st == FXDP_OK) {
        st = ue_report(cfg, &work->dev, r, *x, out, ct, &work->stream);
    }
    fxdp_i_wipe_local(work, sizeof *work);
    return st;
}

FXDP_I_MEMO_ENTRY_POINTS(fxdp_longitudinal_ue, fxdp_longitudinal_ue_cfg, uint8_t, fxdp_lue_work, ue_export)
