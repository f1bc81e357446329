/*
 * fxdp_chacha20.c -- RFC 8439 section 2.3 ChaCha20 block function.
 *
 * Pure 32-bit add/rotate/xor: no data-dependent branches and no secret-indexed
 * memory accesses (the quarter-round index table is read at public positions
 * only), so it runs in constant time.
 *
 * Small stack: the rounds run in place in out[] (fxdp_i_chacha20_block, no
 * local array: the final addition re-reads key, counter and nonce, so out
 * must not overlap them; the rng's refill, whose block buffer is a separate
 * field, calls it directly).  The public fxdp_chacha20_block first copies
 * key and nonce (11 words) so that out may alias them, and wipes the copy.
 * The 80 quarter rounds walk a table of the 8 index quadruples
 * of a column-plus-diagonal round pair (a | b << 4 | c << 8 | d << 12) instead of being unrolled,
 * which keeps register pressure (spills) and code size low on small cores.
 */
#include "fxdp_internal.h"

#define FXDP_ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static const uint16_t fxdp_qr_idx[8] = {
    0xC840u, 0xD951u, 0xEA62u, 0xFB73u,     /* columns   (0,4,8,12) (1,5,9,13) (2,6,10,14) (3,7,11,15) */
    0xFA50u, 0xCB61u, 0xD872u, 0xE943u      /* diagonals (0,5,10,15) (1,6,11,12) (2,7,8,13) (3,4,9,14) */
};

static const uint32_t fxdp_sigma[4] = {
    UINT32_C(0x61707865), UINT32_C(0x3320646E), UINT32_C(0x79622D32), UINT32_C(0x6B206574)
};

void fxdp_i_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16])
{
    unsigned i;

    for (i = 0; i < 4u; i++) {
        out[i] = fxdp_sigma[i];
    }
    for (i = 0; i < 8u; i++) {
        out[4u + i] = key[i];
    }
    out[12] = counter;
    out[13] = nonce[0];
    out[14] = nonce[1];
    out[15] = nonce[2];
    for (i = 0; i < 80u; i++) {             /* 10 column+diagonal round pairs, 8 quarter rounds each */
        unsigned q = fxdp_qr_idx[i & 7u];
        uint32_t *a = &out[q & 15u], *b = &out[(q >> 4) & 15u], *c = &out[(q >> 8) & 15u], *d = &out[q >> 12];

        *a += *b; *d ^= *a; *d = FXDP_ROTL(*d, 16);
        *c += *d; *b ^= *c; *b = FXDP_ROTL(*b, 12);
        *a += *b; *d ^= *a; *d = FXDP_ROTL(*d, 8);
        *c += *d; *b ^= *c; *b = FXDP_ROTL(*b, 7);
    }
    /* the final addition of the input state, re-read (out does not overlap key or nonce) */
    for (i = 0; i < 4u; i++) {
        out[i] += fxdp_sigma[i];
    }
    for (i = 0; i < 8u; i++) {
        out[4u + i] += key[i];
    }
    out[12] += counter;
    out[13] += nonce[0];
    out[14] += nonce[1];
    out[15] += nonce[2];
}

void fxdp_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16])
{
    uint32_t s[11];     /* key, nonce: copied first, as out may alias them */
    volatile uint32_t *wipe = s;
    unsigned i;

    for (i = 0; i < 8u; i++) {
        s[i] = key[i];
    }
    s[8] = nonce[0];
    s[9] = nonce[1];
    s[10] = nonce[2];
    fxdp_i_chacha20_block(s, counter, s + 8, out);
    for (i = 0; i < 11u; i++) {
        wipe[i] = 0;                        /* no key copy left on the stack */
    }
}
