/*
 * fxdp_chacha20.c -- RFC 8439 section 2.3 ChaCha20 block function.
 *
 * Pure 32-bit add/rotate/xor: no table lookups and no data-dependent branches,
 * so it runs in constant time.
 */
#include "fxdp.h"

#define FXDP_ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

#define FXDP_QR(a, b, c, d) do { \
        x[a] += x[b]; x[d] ^= x[a]; x[d] = FXDP_ROTL(x[d], 16); \
        x[c] += x[d]; x[b] ^= x[c]; x[b] = FXDP_ROTL(x[b], 12); \
        x[a] += x[b]; x[d] ^= x[a]; x[d] = FXDP_ROTL(x[d], 8);  \
        x[c] += x[d]; x[b] ^= x[c]; x[b] = FXDP_ROTL(x[b], 7);  \
    } while (0)

void fxdp_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16])
{
    uint32_t s[16], x[16];
    unsigned i;

    /* copy every input first: out may alias key or nonce */
    s[0] = UINT32_C(0x61707865);
    s[1] = UINT32_C(0x3320646E);
    s[2] = UINT32_C(0x79622D32);
    s[3] = UINT32_C(0x6B206574);
    for (i = 0; i < 8u; i++) {
        s[4u + i] = key[i];
    }
    s[12] = counter;
    s[13] = nonce[0];
    s[14] = nonce[1];
    s[15] = nonce[2];
    for (i = 0; i < 16u; i++) {
        x[i] = s[i];
    }
    for (i = 0; i < 10u; i++) {
        FXDP_QR(0, 4, 8, 12);
        FXDP_QR(1, 5, 9, 13);
        FXDP_QR(2, 6, 10, 14);
        FXDP_QR(3, 7, 11, 15);
        FXDP_QR(0, 5, 10, 15);
        FXDP_QR(1, 6, 11, 12);
        FXDP_QR(2, 7, 8, 13);
        FXDP_QR(3, 4, 9, 14);
    }
    for (i = 0; i < 16u; i++) {
        out[i] = x[i] + s[i];
    }
}
