/*
 * fxdp_strhash.c -- layer 1: the keyed string hash family of the string sketches (issue 34).
 * Python reference fxdp/strhash.py (the definition and its collision bound), Numba twin
 * fxdp/samplers/_nb_strhash.py.
 *
 * h = (b + sum_i a_i x_i) mod 2^32 over x = (len, s[0], ..., s[len - 1], 0, ..., 0), max_len + 1
 * symbols; (b, a_0, ..., a_max_len) are the first max_len + 2 keystream words of
 * ChaCha20(key, counter 0, 1, ..., nonce (j, max_len, "FXSH")).  Every one of the max_len bytes is
 * read and those at len and after are masked without a branch, so time and memory accesses do not
 * depend on the string or its length (only on max_len and j, which are public).
 */
#include "fxdp_internal.h"

#define FXDP_STRHASH_TAG UINT32_C(0x48535846)      /* "FXSH" little-endian (fxdp.strhash.TAG) */

fxdp_status fxdp_strhash32(const uint32_t key[8], uint32_t j, const uint8_t *block, uint32_t len,
                           uint32_t max_len, uint32_t *out)
{
    return fxdp_i_strhash32(key, j, block, len, max_len, max_len, out);
}

/* As fxdp_strhash32, with block[i] read as 0 also for i >= valid (valid <= 256): the Prefix Extending
 * Method hashes a prefix of an encoded string whose bytes past the string's own length are padding. */
fxdp_status fxdp_i_strhash32(const uint32_t key[8], uint32_t j, const uint8_t *block, uint32_t len, uint32_t valid,
                             uint32_t max_len, uint32_t *out)
{
    uint32_t nonce[3], blk[16], acc, i, w, ctr, in;

    if (key == NULL || block == NULL || out == NULL || max_len < 1u || max_len > FXDP_STRHASH_MAX_LENGTH) {
        return FXDP_ERR_PARAM;
    }
    if (len > max_len) { /* ct-allowed: validity */
        return FXDP_ERR_PARAM;
    }
    nonce[0] = j;
    nonce[1] = max_len;
    nonce[2] = FXDP_STRHASH_TAG;
    fxdp_i_chacha20_block(key, 0u, nonce, blk);
    acc = blk[0] + blk[1] * len;                            /* b, then a_0 times the length */
    w = 2u;
    ctr = 1u;
    for (i = 0u; i < max_len; i++) {
        if (w == 16u) {                                     /* public: i and max_len only */
            fxdp_i_chacha20_block(key, ctr, nonce, blk);
            ctr++;
            w = 0u;
        }
        in = ((i - len) & (i - valid)) >> 31;               /* 1 iff i < len and i < valid (all <= 2^8) */
        acc += blk[w] * ((uint32_t)block[i] & (0u - in));
        w++;
    }
    *out = acc;
    return FXDP_OK;
}
