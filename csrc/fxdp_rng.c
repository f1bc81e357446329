/*
 * fxdp_rng.c -- the bit source: keyed ChaCha20 stream, on-device DRBG, raw
 * board hook, replay; MSB-first bit reads with a buffer of unconsumed bits.
 *
 * The stream definition is fxdp/bitsource.py (docs/bitstream.md); the Numba
 * kernels keep the first FXDP_RNG_SHARED_WORDS words of fxdp_rng in a uint32
 * array and implement the same refill rules.
 *
 * Failure is sticky: the first failure of the word source sets
 * r->status = FXDP_ERR_ENTROPY and every later draw fails, whatever is still
 * buffered.
 */
#include "fxdp_internal.h"

/* Zero every field (fill/ctx included) and select mode; status 0. */
static void rng_clear(fxdp_rng *r, uint32_t mode)
{
    unsigned i;

    for (i = 0; i < 8u; i++) {
        r->key[i] = 0;
    }
    for (i = 0; i < 3u; i++) {
        r->nonce[i] = 0;
    }
    r->counter = 0;
    for (i = 0; i < 16u; i++) {
        r->block[i] = 0;
    }
    r->word_pos = 16u;
    r->bitbuf = 0;
    r->bitcount = 0;
    r->mode = mode;
    r->status = 0;
    r->block_len = 16u;
    r->fill = NULL;
    r->fill_ctx = NULL;
}

/* A rng that fails every draw (fail closed after a bad init). */
static void rng_dead(fxdp_rng *r)
{
    rng_clear(r, FXDP_MODE_REPLAY);
    r->word_pos = 0;
    r->block_len = 0;
    r->status = FXDP_ERR_ENTROPY;
}

void fxdp_rng_init_keyed(fxdp_rng *r, const uint32_t key[8], const uint32_t nonce[3])
{
    unsigned i;

    if (r == NULL) {
        return;
    }
    if (key == NULL || nonce == NULL) {
        rng_dead(r);
        return;
    }
    rng_clear(r, FXDP_MODE_CHACHA);
    for (i = 0; i < 8u; i++) {
        r->key[i] = key[i];
    }
    for (i = 0; i < 3u; i++) {
        r->nonce[i] = nonce[i];
    }
}

void fxdp_rng_init_seed(fxdp_rng *r, const uint32_t seed[8], uint32_t device_lo, uint32_t device_hi, uint32_t stream)
{
    uint32_t nonce[3];

    nonce[0] = device_lo;
    nonce[1] = device_hi;
    nonce[2] = stream;
    fxdp_rng_init_keyed(r, seed, nonce);
}

fxdp_status fxdp_rng_init_keyed_version(fxdp_rng *r, uint32_t version, const uint32_t key[8], const uint32_t nonce[3])
{
    if (r == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (key == NULL || nonce == NULL || (version != FXDP_STREAM_V1 && version != FXDP_STREAM_V2)) {
        rng_dead(r);
        return FXDP_ERR_PARAM;
    }
    fxdp_rng_init_keyed(r, key, nonce);
    if (version == FXDP_STREAM_V2) {
        r->mode = FXDP_MODE_CHACHA_FKE;
    }
    return FXDP_OK;
}

fxdp_rng *fxdp_i_device_source(fxdp_rng *r, fxdp_rng *scratch)
{
    uint32_t nonce[3];

    if (r->mode != FXDP_MODE_CHACHA && r->mode != FXDP_MODE_CHACHA_FKE) {
        return r;
    }
    nonce[0] = r->nonce[0];
    nonce[1] = r->nonce[1];
    nonce[2] = 1u;
    (void)fxdp_rng_init_keyed_version(scratch, r->mode == FXDP_MODE_CHACHA_FKE ? FXDP_STREAM_V2 : FXDP_STREAM_V1,
                                      r->key, nonce);
    return scratch;
}

fxdp_status fxdp_rng_init_stream(fxdp_rng *r, uint32_t version, const uint32_t seed[8], uint32_t device_lo,
                                 uint32_t device_hi, uint32_t stream)
{
    uint32_t nonce[3];

    nonce[0] = device_lo;
    nonce[1] = device_hi;
    nonce[2] = stream;
    return fxdp_rng_init_keyed_version(r, version, seed, nonce);
}

static uint32_t load_le32(const uint8_t *b)
{
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

fxdp_status fxdp_rng_init_drbg(fxdp_rng *r, fxdp_fill_fn fill, void *ctx)
{
    uint8_t seed[44];
    volatile uint8_t *wipe = seed;
    unsigned i;
    int rc;

    if (r == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (fill == NULL) {
        rng_dead(r);
        return FXDP_ERR_ENTROPY;
    }
    for (i = 0; i < 44u; i++) {
        seed[i] = 0;
    }
    rc = fill(ctx, seed, sizeof seed);
    if (rc != 0) {
        rng_dead(r);
    } else {
        rng_clear(r, FXDP_MODE_CHACHA_FKE);         /* forward secure: fast key erasure */
        for (i = 0; i < 8u; i++) {
            r->key[i] = load_le32(seed + 4u * i);
        }
        for (i = 0; i < 3u; i++) {
            r->nonce[i] = load_le32(seed + 32u + 4u * i);
        }
        r->fill = fill;                             /* kept for fxdp_rng_reseed */
        r->fill_ctx = ctx;
    }
    for (i = 0; i < 44u; i++) {
        wipe[i] = 0;
    }
    return rc != 0 ? FXDP_ERR_ENTROPY : FXDP_OK;
}

fxdp_status fxdp_rng_reseed(fxdp_rng *r)
{
    uint8_t fresh[32];
    volatile uint8_t *wipe = fresh;
    unsigned i;
    int rc;

    if (r == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (r->status != 0u) {
        return FXDP_ERR_ENTROPY;                    /* failed before: stays failed */
    }
    if (r->mode != FXDP_MODE_CHACHA_FKE || r->fill == NULL) {
        return FXDP_ERR_PARAM;                      /* not a DRBG: no fill to reseed from */
    }
    for (i = 0; i < 32u; i++) {
        fresh[i] = 0;
    }
    rc = r->fill(r->fill_ctx, fresh, sizeof fresh);
    if (rc != 0) {
        rng_dead(r);                                /* wipes the key: nothing more is released */
    } else {
        for (i = 0; i < 8u; i++) {
            r->key[i] ^= load_le32(fresh + 4u * i);
        }
        for (i = 0; i < 16u; i++) {                 /* drop output drawn under the old key */
            r->block[i] = 0;
        }
        r->word_pos = 16u;
    }
    for (i = 0; i < 32u; i++) {
        wipe[i] = 0;
    }
    return rc != 0 ? FXDP_ERR_ENTROPY : FXDP_OK;
}

void fxdp_rng_init_hook(fxdp_rng *r, fxdp_fill_fn fill, void *ctx)
{
    if (r == NULL) {
        return;
    }
    if (fill == NULL) {
        rng_dead(r);
        return;
    }
    rng_clear(r, FXDP_MODE_HOOK);
    r->word_pos = 0;
    r->block_len = 0;
    r->fill = fill;
    r->fill_ctx = ctx;
}

fxdp_status fxdp_rng_init_replay(fxdp_rng *r, const uint32_t *words, uint32_t n)
{
    uint32_t i;

    if (r == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (n > 16u || (words == NULL && n != 0u)) {
        rng_dead(r);
        return FXDP_ERR_PARAM;
    }
    rng_clear(r, FXDP_MODE_REPLAY);
    for (i = 0; i < n; i++) {
        r->block[i] = words[i];
    }
    r->word_pos = 0;
    r->block_len = n;
    return FXDP_OK;
}

static fxdp_status refill_fail(fxdp_rng *r)
{
    r->status = FXDP_ERR_ENTROPY;
    return FXDP_ERR_ENTROPY;
}

/* Raw board mode, out of line: its indirect call stays off the ChaCha20 path's frame.  The 4 bytes
 * land in r's block buffer (unused in this mode), not in a local: a smaller frame; wiped after. */
static FXDP_I_OUTLINE fxdp_status refill_hook(fxdp_rng *r, uint32_t *w)
{
    uint8_t *b = (uint8_t *)r->block;
    fxdp_status st = FXDP_OK;

    r->block[0] = 0;
    if (r->fill == NULL || r->fill(r->fill_ctx, b, 4u) != 0) {
        st = refill_fail(r);                        /* board entropy failed */
    } else {
        *w = load_le32(b);
    }
    r->block[0] = 0;
    return st;
}

fxdp_status fxdp_i_refill(fxdp_rng *r, uint32_t *w)
{
    /* if-chains, not a switch: a dense switch becomes a libgcc table helper on Cortex-M0+ */
    if (r->status != 0u) {
        return FXDP_ERR_ENTROPY;
    }
    if (r->mode == FXDP_MODE_CHACHA || r->mode == FXDP_MODE_CHACHA_FKE) {
        if (r->word_pos >= 16u) {
            if (r->counter == UINT32_C(0xFFFFFFFF)) {
                return refill_fail(r);              /* keystream exhausted */
            }
            /* only r and w live across the block (the mode is re-read after it): a small frame */
            fxdp_i_chacha20_block(r->key, r->counter, r->nonce, r->block);
            r->counter += 1u;
            r->word_pos = 0;
            if (r->mode == FXDP_MODE_CHACHA_FKE) {
                unsigned i;
                for (i = 0; i < 8u; i++) {          /* fast key erasure: words 0..7 are the next key */
                    r->key[i] = r->block[i];
                    r->block[i] = 0;
                }
                r->word_pos = 8u;
            }
        }
        *w = r->block[r->word_pos];
        if (r->mode == FXDP_MODE_CHACHA_FKE) {
            r->block[r->word_pos] = 0;              /* erase served output */
        }
        r->word_pos += 1u;
        return FXDP_OK;
    }
    if (r->mode == FXDP_MODE_REPLAY) {
        if (r->word_pos >= r->block_len || r->word_pos >= 16u) {
            return refill_fail(r);                  /* replay exhausted */
        }
        *w = r->block[r->word_pos];
        r->word_pos += 1u;
        return FXDP_OK;
    }
    if (r->mode == FXDP_MODE_HOOK) {
        return refill_hook(r, w);
    }
    return refill_fail(r);                          /* unknown mode: fail closed */
}

uint64_t fxdp_rng_position(const fxdp_rng *r)
{
    uint64_t per_block;

    if (r == NULL) {
        return 0u;
    }
    per_block = r->mode == FXDP_MODE_CHACHA_FKE ? 256u : 512u;
    return (uint64_t)r->counter * per_block - (uint64_t)(16u - r->word_pos) * 32u - r->bitcount;
}

fxdp_status fxdp_bits(fxdp_rng *r, unsigned n, uint32_t *out)
{
    uint32_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || n > 32u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    st = fxdp_i_bits(r, n, &v);
    if (st != FXDP_OK) {
        return st;
    }
    *out = v;
    return FXDP_OK;
}

fxdp_status fxdp_bits64(fxdp_rng *r, unsigned n, uint64_t *out)
{
    uint64_t v;
    fxdp_status st;

    if (r == NULL || out == NULL || n > 64u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    st = fxdp_i_bits64(r, n, &v);
    if (st != FXDP_OK) {
        return st;
    }
    *out = v;
    return FXDP_OK;
}
