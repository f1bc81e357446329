/*
 * fxdp.h -- the one public header of the fxdp C library.
 *
 * Portable C99 for microcontrollers without FPU or libm: only <stdint.h> and
 * <stddef.h>, no malloc, no floating point.  Every function that can fail
 * returns an fxdp_status and writes its out-pointers only on FXDP_OK.
 *
 * Layers (each in its own files, dependency downward only):
 *   1. fixed point        fxdp_fixed.c
 *   2. bit source         fxdp_chacha20.c, fxdp_rng.c
 *   3. samplers           fxdp_uniform.c, fxdp_bernoulli.c, fxdp_laplace.c, fxdp_table.c
 *   4. mechanisms         (later)
 *
 * The bit stream and every sampler's bit use are defined by the Python
 * reference (fxdp/bitsource.py, fxdp/samplers/reference.py); see
 * docs/bitstream.md.  This header is also the cffi cdef: keep preprocessor
 * lines to include guards, includes and the FXDP_ #defines below, which the
 * binding strips or evaluates.
 */
#ifndef FXDP_H
#define FXDP_H

#include <stdint.h>
#include <stddef.h>

/* ---- status codes ------------------------------------------------------ */
typedef enum {
    FXDP_OK = 0,
    FXDP_ERR_PARAM = 1,    /* a parameter is outside its documented range       */
    FXDP_ERR_ENTROPY = 2,  /* the bit source failed; nothing was released        */
    FXDP_ERR_RANGE = 3     /* a result does not fit its type                     */
} fxdp_status;

/* ---- layer 2: bit source ------------------------------------------------ */

/* Board entropy hook: fill out[0..n) with random bytes; return 0 on success,
 * non-zero on failure (the rng then fails for good: FXDP_ERR_ENTROPY). */
typedef int (*fxdp_fill_fn)(void *ctx, uint8_t *out, size_t n);

/* Where refill words come from (fxdp_rng.mode). */
enum {
    FXDP_MODE_CHACHA = 0,  /* ChaCha20 keystream of (key, nonce), counter 0, 1, ...   */
    FXDP_MODE_REPLAY = 1,  /* the words preloaded in block[0..block_len), then failure */
    FXDP_MODE_HOOK = 2     /* 4 bytes per word from fill(), little-endian              */
};

/* The bit-source state.  Its first 34 uint32 words are shared with the Numba
 * kernels, which keep the same state in a uint32 array (see
 * fxdp/samplers/_kernels.py); do not reorder. */
typedef struct fxdp_rng {
    uint32_t key[8];       /* ChaCha20 key words                                  */
    uint32_t nonce[3];     /* ChaCha20 nonce words                                */
    uint32_t counter;      /* next block counter; 0xFFFFFFFF is never generated   */
    uint32_t block[16];    /* current keystream block (or replay words)           */
    uint32_t word_pos;     /* next unread word of block                           */
    uint32_t bitbuf;       /* unconsumed bits of the current word, right-aligned  */
    uint32_t bitcount;     /* how many bits bitbuf holds (0..31)                  */
    uint32_t mode;         /* FXDP_MODE_*                                         */
    uint32_t status;       /* 0, or the sticky fxdp_status of the first failure   */
    uint32_t block_len;    /* words valid in block: 16, or the replay length      */
    fxdp_fill_fn fill;     /* FXDP_MODE_HOOK only                                 */
    void *fill_ctx;
} fxdp_rng;

#define FXDP_RNG_SHARED_WORDS 34
