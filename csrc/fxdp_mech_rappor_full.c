/*
 * fxdp_mech_rappor_full.c -- the full RAPPOR client (Erlingsson, Pihur,
 * Korolova 2014): Bloom filter, memoized permanent randomized response (PRR),
 * instantaneous randomized response (IRR).  Definition: fxdp.h's section and
 * the Python reference fxdp/mechanisms/memoized/rappor_full.py; docs/rappor_full.md.
 *
 * Constant-time mode (cfg->constant_time != 0): the instruction sequence does
 * not depend on the value, the device secret, the cohort or the random draws.
 *   - SipHash-2-4 runs over a fixed-length message (8 + value_bytes bytes);
 *   - Bloom positions and the cohort come from a multiply-shift (no division),
 *     its high word computed by fxdp_i_mulhi32_ct from 16-bit limbs (no
 *     UMULL, no __aeabi_lmul/__muldi3: their timing depends on the operands);
 *   - the Bloom bit of position i is OR_j ct_eq(i, pos_j): a full k x h scan,
 *     no memory access indexed by a secret;
 *   - PRR and IRR use fxdp_i_bernoulli_dyadic_ct (exactly `bits` bits each)
 *     and branch-free selects.
 * Only failures (a bad parameter, an entropy failure) change the control flow.
 *
 * Secrets in the workspace (the PRR rng state, the positions, the KDF block,
 * the report: fxdp_rappor_full_work, the caller's in fxdp_rappor_full_release_w,
 * else on the stack) are wiped before returning.
 */
#include "fxdp_internal.h"

#define SIP_C0 UINT64_C(0x736F6D6570736575)
#define SIP_C1 UINT64_C(0x646F72616E646F6D)
#define SIP_C2 UINT64_C(0x6C7967656E657261)
#define SIP_C3 UINT64_C(0x7465646279746573)
#define PRR_HASH_INDEX UINT32_C(0xFFFFFFFF)

/* The SipHash state is v[0..3] (a caller's array: the workspace's in a release, so that no 32-byte
 * state sits in the hashing frames). */

static uint64_t rotl64(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64u - b));
}

static void sip_round(uint64_t *v)
{
    v[0] += v[1]; v[1] = rotl64(v[1], 13); v[1] ^= v[0]; v[0] = rotl64(v[0], 32);
    v[2] += v[3]; v[3] = rotl64(v[3], 16); v[3] ^= v[2];
    v[0] += v[3]; v[3] = rotl64(v[3], 21); v[3] ^= v[0];
    v[2] += v[1]; v[1] = rotl64(v[1], 17); v[1] ^= v[2]; v[2] = rotl64(v[2], 32);
}

static uint64_t load_le64(const uint8_t *b)
{
    uint64_t v = 0;
    unsigned i;

    for (i = 8u; i > 0u; i--) {
        v = (v << 8) | (uint64_t)b[i - 1u];
    }
    return v;
}

static void sip_init(uint64_t *v, uint64_t k0, uint64_t k1)
{
    v[0] = k0 ^ SIP_C0;
    v[1] = k1 ^ SIP_C1;
    v[2] = k0 ^ SIP_C2;
    v[3] = k1 ^ SIP_C3;
}

static void sip_compress(uint64_t *v, uint64_t m)
{
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

/* Absorb data[0..len) after `done` bytes already absorbed as whole words, then finalize.
 * The loop counts depend only on len (public). */
static uint64_t sip_finish(uint64_t *v, const uint8_t *data, size_t len, size_t done)
{
    size_t i, full = len - len % 8u;
    uint64_t m = 0;
    unsigned j;

    for (i = 0; i < full; i += 8u) {
        sip_compress(v, load_le64(data + i));
    }
    for (j = (unsigned)(len - full); j > 0u; j--) {
        m = (m << 8) | (uint64_t)data[full + j - 1u];
    }
    m |= (uint64_t)((done + len) & 0xFFu) << 56;
    sip_compress(v, m);
    v[2] ^= 0xFFu;
    sip_round(v);
    sip_round(v);
    sip_round(v);
    sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t fxdp_siphash24(const uint8_t key[16], const uint8_t *msg, size_t len)
{
    uint64_t v[4];
    uint8_t empty[1];

    if (key == NULL) {
        return 0;
    }
    empty[0] = 0;
    sip_init(v, load_le64(key), load_le64(key + 8));
    return sip_finish(v, msg != NULL ? msg : empty, msg != NULL ? len : 0u, 0u);
}

/* SipHash-2-4(key, u32le(cohort) || u32le(index) || block[0..len)): the 8-byte prefix is one word;
 * v[0..4) is the state (scratch). */
static uint64_t hash_block(uint64_t k0, uint64_t k1, uint32_t cohort, uint32_t index, const uint8_t *block,
                           size_t len, uint64_t *v)
{
    sip_init(v, k0, k1);
    sip_compress(v, (uint64_t)cohort | ((uint64_t)index << 32));
    return sip_finish(v, block, len, 8u);
}

/* x == y ? 1 : 0 without branches */
static uint32_t ct_eq32(uint32_t x, uint32_t y)
{
    uint32_t d = x ^ y;
    return 1u ^ ((d | (0u - d)) >> 31);
}

fxdp_status fxdp_rappor_full_check(const fxdp_rappor_full_cfg *cfg)
{
    uint64_t two;

    if (cfg == NULL || cfg->bits < 1u || cfg->bits > 32u || cfg->k < 1u || cfg->k > FXDP_RAPPOR_FULL_MAX_K ||
        cfg->h < 1u || cfg->h > FXDP_RAPPOR_FULL_MAX_H || cfg->h > cfg->k || cfg->cohorts < 1u ||
        cfg->cohorts > FXDP_RAPPOR_FULL_MAX_COHORTS || cfg->value_bytes < 2u ||
        cfg->value_bytes > FXDP_RAPPOR_FULL_MAX_VALUE_BYTES || cfg->constant_time > 1u) {
        return FXDP_ERR_PARAM;
    }
    two = UINT64_C(1) << cfg->bits;
    if (cfg->prr_a > (two >> 1) || cfg->p_a > two || cfg->q_a > two) {
        return FXDP_ERR_PARAM;
    }
    return FXDP_OK;
}

fxdp_status fxdp_rappor_full_encode(const fxdp_rappor_full_cfg *cfg, const uint8_t *value, size_t len,
                                    uint8_t *block)
{
    uint32_t i;

    if (fxdp_rappor_full_check(cfg) != FXDP_OK || block == NULL || (value == NULL && len != 0u) ||
        len > (size_t)(cfg->value_bytes - 1u)) {
        return FXDP_ERR_PARAM;
    }
    block[0] = (uint8_t)len;
    for (i = 1u; i < cfg->value_bytes; i++) {
        block[i] = (size_t)(i - 1u) < len ? value[i - 1u] : (uint8_t)0u;
    }
    return FXDP_OK;
}

/* Out of line: its secret copy is not on the stack of a release's later draws. */
FXDP_I_OUTLINE fxdp_status fxdp_rappor_full_provision(const fxdp_rappor_full_cfg *cfg, fxdp_rng *r,
                                                      fxdp_rappor_full_device *dev)
{
    uint32_t secret[8], cohort;
    unsigned i;
    fxdp_status st;

    if (fxdp_rappor_full_check(cfg) != FXDP_OK || r == NULL || dev == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    for (i = 0; st == FXDP_OK && i < 8u; i++) {
        st = fxdp_i_bits(r, 32u, &secret[i]);
    }
    if (st == FXDP_OK) {
        st = fxdp_i_bits(r, 32u, &cohort);
    }
    if (st == FXDP_OK) {
        cohort = fxdp_i_mulhi32_ct(cohort, cfg->cohorts);       /* (cohort * cohorts) >> 32 */
        for (i = 0; i < 8u; i++) {
            dev->secret[i] = secret[i];
        }
        dev->cohort = cohort;
    }
    fxdp_i_wipe_local(secret, sizeof secret);
    return st;
}

/* Bloom positions (cfg, cohort, block valid); v[0..4) SipHash scratch.  The key is read afresh for
 * every hash (not held in this frame across the hashing calls). */
static FXDP_I_OUTLINE void bloom_positions(const fxdp_rappor_full_cfg *cfg, uint32_t cohort, const uint8_t *block,
                                           uint32_t *pos, uint64_t *v)
{
    uint32_t j;

    /* all FXDP_RAPPOR_FULL_MAX_H entries first (a public, fixed count): readers read only
     * pos[0..h), but h comes from the cfg and Eva's loop join loses which entries were written */
    for (j = 0; j < FXDP_RAPPOR_FULL_MAX_H; j++) {
        pos[j] = 0;
    }
    for (j = 0; j < cfg->h; j++) {
        uint64_t d = hash_block(load_le64(cfg->hash_key), load_le64(cfg->hash_key + 8), cohort, j, block,
                                (size_t)cfg->value_bytes, v);
        pos[j] = fxdp_i_mulhi32_ct((uint32_t)(d >> 32), cfg->k);    /* ((d >> 32) * k) >> 32 */
    }
}

fxdp_status fxdp_rappor_full_bloom(const fxdp_rappor_full_cfg *cfg, uint32_t cohort, const uint8_t *block,
                                   uint32_t *positions)
{
    uint32_t pos[FXDP_RAPPOR_FULL_MAX_H];
    uint64_t v[4];
    uint32_t j;

    if (fxdp_rappor_full_check(cfg) != FXDP_OK || block == NULL || positions == NULL ||
        cohort >= cfg->cohorts) {
        return FXDP_ERR_PARAM;
    }
    bloom_positions(cfg, cohort, block, pos, v);
    for (j = 0; j < cfg->h; j++) {
        positions[j] = pos[j];
    }
    fxdp_i_wipe_local(pos, sizeof pos);
    fxdp_i_wipe_local(v, sizeof v);
    return FXDP_OK;
}

/* The PRR stream of (device, block) into w->stream: ChaCha20(secret, nonce (d_lo, d_hi, 1)); w->kdf
 * and w->sip scratch (wiped). */
static FXDP_I_OUTLINE void prr_stream(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev,
                                      const uint8_t *block, fxdp_rappor_full_work *w)
{
    uint32_t *kdf = w->kdf;
    uint32_t nonce[3];
    uint64_t d;

    nonce[0] = 0;
    nonce[1] = 0;
    nonce[2] = 0;
    fxdp_i_chacha20_block(dev->secret, 0u, nonce, kdf);
    d = hash_block((uint64_t)kdf[0] | ((uint64_t)kdf[1] << 32), (uint64_t)kdf[2] | ((uint64_t)kdf[3] << 32),
                   dev->cohort, PRR_HASH_INDEX, block, (size_t)cfg->value_bytes, w->sip);
    nonce[0] = (uint32_t)d;
    nonce[1] = (uint32_t)(d >> 32);
    nonce[2] = 1u;
    fxdp_rng_init_keyed(&w->stream, dev->secret, nonce);
    fxdp_i_wipe_local(w->kdf, sizeof w->kdf);
    fxdp_i_wipe_local(w->sip, sizeof w->sip);
    fxdp_i_wipe_local(nonce, sizeof nonce);
}

/* Bloom bit i: OR over j of (pos[j] == i), a full scan in both modes. */
static uint32_t bloom_bit(const uint32_t *pos, uint32_t h, uint32_t i)
{
    uint32_t j, b = 0;

    for (j = 0; j < h; j++) {
        b |= ct_eq32(pos[j], i);
    }
    return b;
}

static fxdp_status draw(fxdp_rng *r, uint64_t a, unsigned bits, uint32_t ct, uint8_t *out)
{
    return ct ? fxdp_i_bernoulli_dyadic_ct(r, a, bits, out) : fxdp_i_bernoulli_dyadic(r, a, bits, out);
}

/* The shared loop: B' (r == NULL) or S (r != NULL) into w->bits as packed bits (zeroed by the caller)
 * from the PRR stream w->stream and the positions w->pos (both wiped). */
static FXDP_I_OUTLINE fxdp_status run(const fxdp_rappor_full_cfg *cfg, fxdp_rng *r, fxdp_rappor_full_work *w)
{
    fxdp_rng *prr = &w->stream;
    uint32_t *pos = w->pos;
    uint8_t *tmp = w->bits;
    uint32_t i, ct = cfg->constant_time;
    unsigned bits = (unsigned)cfg->bits;
    fxdp_status st = FXDP_OK;
    uint8_t flip = 0, s = 0;

    for (i = 0; i < cfg->k; i++) {
        uint32_t bp;
        st = draw(prr, cfg->prr_a, bits, ct, &flip);
        if (st != FXDP_OK) {
            break;                          /* cannot happen: a fresh keystream */
        }
        bp = bloom_bit(pos, cfg->h, i) ^ (uint32_t)flip;
        if (r != NULL) {
            uint64_t a;
            if (ct) {
                uint64_t mask = 0u - (uint64_t)bp;
                a = (cfg->q_a & mask) | (cfg->p_a & ~mask);
            } else {
                a = bp ? cfg->q_a : cfg->p_a;
            }
            st = draw(r, a, bits, ct, &s);
            if (st != FXDP_OK) {
                break;
            }
            bp = (uint32_t)s;
        }
        tmp[i >> 3] = (uint8_t)(tmp[i >> 3] | (uint8_t)(bp << (i & 7u)));
    }
    fxdp_i_wipe_local(prr, sizeof *prr);
    fxdp_i_wipe_local(w->pos, sizeof w->pos);
    return st;
}

/* out[0..k) = the bits of w->bits on OK; w->bits wiped. */
static fxdp_status finish(const fxdp_rappor_full_cfg *cfg, fxdp_status st, fxdp_rappor_full_work *w, uint8_t *out)
{
    uint32_t i;

    if (st == FXDP_OK) {
        for (i = 0; i < cfg->k; i++) {
            out[i] = (uint8_t)(((uint32_t)w->bits[i >> 3] >> (i & 7u)) & 1u);
        }
    }
    fxdp_i_wipe_local(w->bits, sizeof w->bits);
    return st;
}

/* B' (r == NULL) or one report S (r ready) of block by dev into out[0..k), written only on OK; scratch in
 * *w (w->dev unused: dev may be it).  The positions, the PRR stream and the draws are three calls one
 * after the other, so their frames do not add up; inlined into its callers (one frame less). */
FXDP_I_INLINE fxdp_status report(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev, fxdp_rng *r,
                                 const uint8_t *block, uint8_t *out, fxdp_rappor_full_work *w)
{
    fxdp_i_wipe_local(w->bits, sizeof w->bits);       /* zeroes without a memset call */
    bloom_positions(cfg, dev->cohort, block, w->pos, w->sip);
    prr_stream(cfg, dev, block, w);
    return finish(cfg, run(cfg, r, w), w, out);
}

static int bad_args(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev, const uint8_t *block,
                    const uint8_t *out)
{
    return fxdp_rappor_full_check(cfg) != FXDP_OK || dev == NULL || block == NULL || out == NULL ||
           dev->cohort >= cfg->cohorts;
}

fxdp_status fxdp_rappor_full_prr(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev,
                                 const uint8_t *block, uint8_t *out)
{
    fxdp_rappor_full_work w;            /* its dev stays unused: dev is the caller's */

    if (bad_args(cfg, dev, block, out)) {
        return FXDP_ERR_PARAM;
    }
    return report(cfg, dev, NULL, block, out, &w);
}

fxdp_status fxdp_rappor_full_report(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev,
                                    fxdp_rng *r, const uint8_t *block, uint8_t *out)
{
    fxdp_rappor_full_work w;            /* its dev stays unused: dev is the caller's */
    fxdp_status st;

    if (bad_args(cfg, dev, block, out) || r == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    return report(cfg, dev, r, block, out, &w);
}

fxdp_status fxdp_rappor_full_release_w(fxdp_rng *r, const fxdp_rappor_full_cfg *cfg, const uint8_t *block,
                                       uint8_t *out, fxdp_rappor_full_work *work)
{
    fxdp_status st;

    if (work == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (r == NULL || fxdp_rappor_full_check(cfg) != FXDP_OK || block == NULL || out == NULL) {
        st = FXDP_ERR_PARAM;
    } else {
        st = fxdp_i_ready(r);
    }
    if (st == FXDP_OK) {
        /* the device from r's sibling stream when r is keyed, else from r (fxdp_i_device_source) */
        st = fxdp_rappor_full_provision(cfg, fxdp_i_device_source(r, &work->stream), &work->dev);
    }
    if (st == FXDP_OK) {
        /* r is ready (checked above; provisioning from r left it OK) and dev->cohort < cohorts */
        st = report(cfg, &work->dev, r, block, out + 2, work);
    }
    if (st == FXDP_OK) {
        out[0] = (uint8_t)(work->dev.cohort & 0xFFu);
        out[1] = (uint8_t)(work->dev.cohort >> 8);
    }
    fxdp_i_wipe_local(work, sizeof *work);
    return st;
}

/* The convenience form: the workspace on its own stack.  Its device part is zeroed first: the
 * provisioning writes it before any read, but Eva joins the two rngs fxdp_i_device_source may
 * return and loses that (two uninitialized-read alarms); the outputs are the same. */
fxdp_status fxdp_rappor_full_release(fxdp_rng *r, const fxdp_rappor_full_cfg *cfg, const uint8_t *block,
                                     uint8_t *out)
{
    fxdp_rappor_full_work work;

    fxdp_i_wipe_local(&work.dev, sizeof work.dev);
    return fxdp_rappor_full_release_w(r, cfg, block, out, &work);
}
