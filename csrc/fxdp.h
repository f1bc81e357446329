/*
 * fxdp.h -- the one public header of the fxdp C library.
 *
 * Portable C99 for microcontrollers without FPU or libm: only <stdint.h> and
 * <stddef.h>, no malloc, no floating point.  Every function that can fail
 * returns an fxdp_status and writes its out-pointers only on FXDP_OK.
 *
 * Layers (each in its own files, dependency downward only):
 *   0. numbers            fxdp_fixed.c, fxdp_fixmath.c
 *   1. bit source         fxdp_chacha20.c, fxdp_rng.c, fxdp_health.c, fxdp_strhash.c
 *   2. samplers           fxdp_uniform.c, fxdp_bernoulli.c, fxdp_laplace.c, fxdp_table.c, fxdp_dlap_fast.c
 *   4. mechanisms         fxdp_mech_*.c, fxdp_laplace_fixed.c (docs/architecture.md; 3 is Python only)
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

/* ---- layer 0: fixed point ------------------------------------------ */
/* Raw fixed-point words (fxdp_fixed.c; Python twin fxdp/fixed.py).  A Q
 * format with f fractional bits stores x as round(x * 2^f).  sat_* clamp to
 * the type's range; checked_* and mul_q_* return FXDP_ERR_RANGE on overflow
 * (FXDP_ERR_PARAM on a NULL out or a bad frac/rounding/saturate) and write
 * *out only on FXDP_OK.  No undefined behaviour for any input.  Not audited
 * for constant time: they may branch on the data (sign, overflow).
 * The ACSL comments before the prototypes state these contracts (mathematical integers);
 * Frama-C WP proves them, and the absence of runtime errors, from csrc/fxdp_fixed.c (tools/eva/run_wp.sh,
 * docs/verification.md). */

/* How mul_q_* rounds the dropped fraction bits of the exact product. */
typedef enum {
    FXDP_ROUND_NEAREST_EVEN = 0,  /* to nearest, ties to even           */
    FXDP_ROUND_FLOOR = 1,         /* toward -infinity                   */
    FXDP_ROUND_CEIL = 2,          /* toward +infinity                   */
    FXDP_ROUND_TOWARD_ZERO = 3    /* truncate                           */
} fxdp_round;

/*@ assigns \nothing; ensures \result <= 32; ensures x == 0 <==> \result == 32; */
unsigned fxdp_clz32(uint32_t x);  /* leading zero bits of x; 32 for x == 0 */
/*@ assigns \nothing; ensures \result <= 64; */
unsigned fxdp_clz64(uint64_t x);  /* leading zero bits of x; 64 for x == 0 */

/*@ assigns \nothing; ensures \result == (a + b > INT32_MAX ? INT32_MAX : a + b < INT32_MIN ? INT32_MIN : a + b); */
int32_t fxdp_sat_add_i32(int32_t a, int32_t b);  /* a + b clamped to [INT32_MIN, INT32_MAX] */
/*@ assigns \nothing; ensures \result == (a - b > INT32_MAX ? INT32_MAX : a - b < INT32_MIN ? INT32_MIN : a - b); */
int32_t fxdp_sat_sub_i32(int32_t a, int32_t b);  /* a - b clamped to [INT32_MIN, INT32_MAX] */
/*@ requires out == \null || \valid(out);
    behavior null: assumes out == \null; assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior fits: assumes out != \null && INT32_MIN <= a + b <= INT32_MAX;
      assigns *out; ensures \result == FXDP_OK && *out == a + b;
    behavior range: assumes out != \null && !(INT32_MIN <= a + b <= INT32_MAX);
      assigns \nothing; ensures \result == FXDP_ERR_RANGE;
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_checked_add_i32(int32_t a, int32_t b, int32_t *out);  /* *out = a + b, or FXDP_ERR_RANGE */
/*@ requires out == \null || \valid(out);
    behavior null: assumes out == \null; assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior fits: assumes out != \null && INT32_MIN <= a - b <= INT32_MAX;
      assigns *out; ensures \result == FXDP_OK && *out == a - b;
    behavior range: assumes out != \null && !(INT32_MIN <= a - b <= INT32_MAX);
      assigns \nothing; ensures \result == FXDP_ERR_RANGE;
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_checked_sub_i32(int32_t a, int32_t b, int32_t *out);  /* *out = a - b, or FXDP_ERR_RANGE */
/* *out = round(a * b / 2^frac) (exact 64-bit product), frac 0..31, saturate 0 (FXDP_ERR_RANGE) or 1 (clamp). */
/*@ requires out == \null || \valid(out);
    behavior bad: assumes !(out != \null && frac <= 31 && rounding <= 3 && (saturate == 0 || saturate == 1));
      assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior clamp: assumes out != \null && frac <= 31 && rounding <= 3 && (saturate == 0 || saturate == 1) && saturate == 1;
      assigns *out; ensures \result == FXDP_OK;
    behavior check: assumes out != \null && frac <= 31 && rounding <= 3 && (saturate == 0 || saturate == 1) && saturate == 0;
      assigns *out; ensures \result == FXDP_OK || (\result == FXDP_ERR_RANGE && *out == \old(*out));
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_mul_q_i32(int32_t a, int32_t b, unsigned frac, fxdp_round rounding, int saturate,
                           int32_t *out);

/*@ assigns \nothing; ensures \result == (a + b > INT64_MAX ? INT64_MAX : a + b < INT64_MIN ? INT64_MIN : a + b); */
int64_t fxdp_sat_add_i64(int64_t a, int64_t b);  /* a + b clamped to [INT64_MIN, INT64_MAX] */
/*@ assigns \nothing; ensures \result == (a - b > INT64_MAX ? INT64_MAX : a - b < INT64_MIN ? INT64_MIN : a - b); */
int64_t fxdp_sat_sub_i64(int64_t a, int64_t b);  /* a - b clamped to [INT64_MIN, INT64_MAX] */
/*@ requires out == \null || \valid(out);
    behavior null: assumes out == \null; assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior fits: assumes out != \null && INT64_MIN <= a + b <= INT64_MAX;
      assigns *out; ensures \result == FXDP_OK && *out == a + b;
    behavior range: assumes out != \null && !(INT64_MIN <= a + b <= INT64_MAX);
      assigns \nothing; ensures \result == FXDP_ERR_RANGE;
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_checked_add_i64(int64_t a, int64_t b, int64_t *out);  /* *out = a + b, or FXDP_ERR_RANGE */
/*@ requires out == \null || \valid(out);
    behavior null: assumes out == \null; assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior fits: assumes out != \null && INT64_MIN <= a - b <= INT64_MAX;
      assigns *out; ensures \result == FXDP_OK && *out == a - b;
    behavior range: assumes out != \null && !(INT64_MIN <= a - b <= INT64_MAX);
      assigns \nothing; ensures \result == FXDP_ERR_RANGE;
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_checked_sub_i64(int64_t a, int64_t b, int64_t *out);  /* *out = a - b, or FXDP_ERR_RANGE */
/* *out = round(a * b / 2^frac) (exact 128-bit product from 32-bit limbs), frac 0..63, saturate 0 or 1. */
/*@ requires out == \null || \valid(out);
    behavior bad: assumes !(out != \null && frac <= 63 && rounding <= 3 && (saturate == 0 || saturate == 1));
      assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior clamp: assumes out != \null && frac <= 63 && rounding <= 3 && (saturate == 0 || saturate == 1) && saturate == 1;
      assigns *out; ensures \result == FXDP_OK;
    behavior check: assumes out != \null && frac <= 63 && rounding <= 3 && (saturate == 0 || saturate == 1) && saturate == 0;
      assigns *out; ensures \result == FXDP_OK || (\result == FXDP_ERR_RANGE && *out == \old(*out));
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_mul_q_i64(int64_t a, int64_t b, unsigned frac, fxdp_round rounding, int saturate,
                           int64_t *out);

/*@ assigns \nothing; ensures \result == (a + b > UINT32_MAX ? UINT32_MAX : a + b < 0 ? 0 : a + b); */
uint32_t fxdp_sat_add_u32(uint32_t a, uint32_t b);  /* a + b clamped to UINT32_MAX */
/*@ assigns \nothing; ensures \result == (a - b > UINT32_MAX ? UINT32_MAX : a - b < 0 ? 0 : a - b); */
uint32_t fxdp_sat_sub_u32(uint32_t a, uint32_t b);  /* a - b clamped to 0 */
/*@ requires out == \null || \valid(out);
    behavior null: assumes out == \null; assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior fits: assumes out != \null && 0 <= a + b <= UINT32_MAX;
      assigns *out; ensures \result == FXDP_OK && *out == a + b;
    behavior range: assumes out != \null && !(0 <= a + b <= UINT32_MAX);
      assigns \nothing; ensures \result == FXDP_ERR_RANGE;
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_checked_add_u32(uint32_t a, uint32_t b, uint32_t *out);  /* *out = a + b, or FXDP_ERR_RANGE */
/*@ requires out == \null || \valid(out);
    behavior null: assumes out == \null; assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior fits: assumes out != \null && 0 <= a - b <= UINT32_MAX;
      assigns *out; ensures \result == FXDP_OK && *out == a - b;
    behavior range: assumes out != \null && !(0 <= a - b <= UINT32_MAX);
      assigns \nothing; ensures \result == FXDP_ERR_RANGE;
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_checked_sub_u32(uint32_t a, uint32_t b, uint32_t *out);  /* *out = a - b, or FXDP_ERR_RANGE */
/* *out = round(a * b / 2^frac) (exact 64-bit product), frac 0..32, saturate 0 or 1. */
/*@ requires out == \null || \valid(out);
    behavior bad: assumes !(out != \null && frac <= 32 && rounding <= 3 && (saturate == 0 || saturate == 1));
      assigns \nothing; ensures \result == FXDP_ERR_PARAM;
    behavior clamp: assumes out != \null && frac <= 32 && rounding <= 3 && (saturate == 0 || saturate == 1) && saturate == 1;
      assigns *out; ensures \result == FXDP_OK;
    behavior check: assumes out != \null && frac <= 32 && rounding <= 3 && (saturate == 0 || saturate == 1) && saturate == 0;
      assigns *out; ensures \result == FXDP_OK || (\result == FXDP_ERR_RANGE && *out == \old(*out));
    complete behaviors; disjoint behaviors; */
fxdp_status fxdp_mul_q_u32(uint32_t a, uint32_t b, unsigned frac, fxdp_round rounding, int saturate,
                           uint32_t *out);

/* ---- layer 1: bit source ------------------------------------------------ */

/* Board entropy hook: fill out[0..n) with random bytes; return 0 on success,
 * non-zero on failure (the rng then fails for good: FXDP_ERR_ENTROPY). */
typedef int (*fxdp_fill_fn)(void *ctx, uint8_t *out, size_t n);

/* Where refill words come from (fxdp_rng.mode). */
enum {
    FXDP_MODE_CHACHA = 0,  /* ChaCha20 keystream of (key, nonce), counter 0, 1, ...   */
    FXDP_MODE_REPLAY = 1,  /* the words preloaded in block[0..block_len), then failure */
    FXDP_MODE_HOOK = 2,    /* 4 bytes per word from fill(), little-endian              */
    FXDP_MODE_CHACHA_FKE = 3 /* stream version 2: block j keyed by K_j; words 0..7 = K_{j+1}, 8..15 out */
};

/* Stream versions (docs/bitstream.md): 1 = plain keystream, 2 = fast key erasure. */
#define FXDP_STREAM_V1 1u
#define FXDP_STREAM_V2 2u

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

/* Init the rng to the keyed ChaCha20 stream of (key, nonce): counter 0, nothing buffered, status 0. */
void fxdp_rng_init_keyed(fxdp_rng *r, const uint32_t key[8], const uint32_t nonce[3]);
/* Version-1 keyed stream of (seed, device id, stream): key = seed[0..8), nonce = {device_lo, device_hi, stream}. */
void fxdp_rng_init_seed(fxdp_rng *r, const uint32_t seed[8], uint32_t device_lo, uint32_t device_hi, uint32_t stream);
/* Keyed stream of (seed, device id, stream) under stream version 1 or 2; other versions or NULL -> FXDP_ERR_PARAM, rng dead. */
fxdp_status fxdp_rng_init_stream(fxdp_rng *r, uint32_t version, const uint32_t seed[8], uint32_t device_lo,
                                 uint32_t device_hi, uint32_t stream);
/* The keyed stream of (key, nonce) under stream version 1 or 2 (init_keyed is version 1); bad version or NULL -> FXDP_ERR_PARAM, rng dead. */
fxdp_status fxdp_rng_init_keyed_version(fxdp_rng *r, uint32_t version, const uint32_t key[8], const uint32_t nonce[3]);
/* On-device forward-secure DRBG: the version-2 stream keyed by 44 bytes from fill (key, nonce; LE words),
 * keeping fill for fxdp_rng_reseed; fill failure or NULL -> FXDP_ERR_ENTROPY, rng dead. */
fxdp_status fxdp_rng_init_drbg(fxdp_rng *r, fxdp_fill_fn fill, void *ctx);
/* DRBG reseed: key ^= 32 fresh bytes from the rng's fill (LE words), buffered block words dropped;
 * fill failure or a failed rng -> FXDP_ERR_ENTROPY (sticky, state wiped); not a DRBG -> FXDP_ERR_PARAM. */
fxdp_status fxdp_rng_reseed(fxdp_rng *r);
/* Raw TRNG mode: each word = 4 bytes from fill(ctx, buf, 4), little-endian; a NULL fill gives a dead rng. */
void fxdp_rng_init_hook(fxdp_rng *r, fxdp_fill_fn fill, void *ctx);
/* Replay words[0..n) (n <= 16; words may be NULL iff n == 0), then fail; bad n -> FXDP_ERR_PARAM, rng dead. */
fxdp_status fxdp_rng_init_replay(fxdp_rng *r, const uint32_t *words, uint32_t n);
/* Stream bits consumed by a keyed rng started at block 0: counter * (512, or 256 under version 2) - unread; NULL -> 0. */
uint64_t fxdp_rng_position(const fxdp_rng *r);
/* *out = next n bits (n in 0..32), first bit most significant. */
fxdp_status fxdp_bits(fxdp_rng *r, unsigned n, uint32_t *out);
/* *out = next n bits (n in 0..64): bits(n) if n <= 32, else bits(n - 32) << 32 | bits(32). */
fxdp_status fxdp_bits64(fxdp_rng *r, unsigned n, uint64_t *out);
/* out[0..16) = RFC 8439 ChaCha20 block(key, counter, nonce) (the state words after the final addition). */
void fxdp_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16]);

/* ---- layer 1: keyed string hash (fxdp_strhash.c; Python reference fxdp/strhash.py) ----
 * The hash family of the string sketches: strongly universal over the key (two distinct strings
 * of at most max_len bytes land in a width of 2^l, l <= 25, at the same place with probability
 * 1/2^l; fxdp/strhash.py states and tests/test_strhash.py checks it). */
#define FXDP_STRHASH_MAX_LENGTH 255u
/* *out = (b + sum_i a_i x_i) mod 2^32, x = (len, block[0..len), zeros to max_len + 1 symbols),
 * (b, a_0..a_max_len) = ChaCha20(key, counter 0.., nonce (j, max_len, "FXSH")) words 0..max_len+1;
 * reads all of block[0..max_len), so its time does not depend on the string or len;
 * FXDP_ERR_PARAM on a NULL pointer, max_len outside 1..255 or len > max_len. */
fxdp_status fxdp_strhash32(const uint32_t key[8], uint32_t j, const uint8_t *block, uint32_t len,
                           uint32_t max_len, uint32_t *out);

/* ---- layer 1: entropy health tests (fxdp_health.c; Python twin fxdp/health.py) ----
 * NIST SP 800-90B 4.4 continuous tests on the board's raw TRNG bytes (one sample = one byte), for a
 * stated min-entropy H = h256/256 bit per byte, alpha = 2^-20 (docs/health.md):
 *   repetition count test: C = 1 + ceil(20 * 256 / h256) identical bytes in a row fail;
 *   adaptive proportion test: in each window of FXDP_HEALTH_APT_WINDOW bytes, apt_cutoff copies of
 *   the window's first byte fail (apt_cutoff = fxdp.health.apt_cutoff(h256), computed exactly in Python).
 * The per-byte update is branch-free (the bytes become key material); a failure is sticky. */
#define FXDP_HEALTH_APT_WINDOW 512
#define FXDP_HEALTH_STARTUP 1024       /* bytes drawn, tested and discarded by fxdp_health_init */

/* fxdp_health.failed: 0, or why the source was declared failed (the first failure, sticky). */
enum {
    FXDP_HEALTH_OK = 0,
    FXDP_HEALTH_BOARD = 1,  /* the board's fill returned non-zero (or a NULL buffer) */
    FXDP_HEALTH_RCT = 2,    /* repetition count test                              */
    FXDP_HEALTH_APT = 3,    /* adaptive proportion test                           */
    FXDP_HEALTH_INIT = 4    /* never initialised, or bad parameters               */
};

/* Health-test state: the board hook it wraps and counters only (no sample buffer). */
typedef struct fxdp_health {
    fxdp_fill_fn fill;      /* the board's raw TRNG hook                            */
    void *fill_ctx;
    uint16_t rct_cutoff;    /* C of the repetition count test                       */
    uint16_t apt_cutoff;    /* C of the adaptive proportion test                    */
    uint16_t rct_count;     /* length of the current run of equal bytes (0: none)   */
    uint16_t apt_count;     /* bytes of this window equal to apt_first              */
    uint16_t apt_seen;      /* bytes of this window so far (0: the next one opens one) */
    uint8_t rct_last;       /* last byte seen                                        */
    uint8_t apt_first;      /* the window's first byte                               */
    uint8_t failed;         /* FXDP_HEALTH_*                                         */
} fxdp_health;

/* Repetition count cut-off 1 + ceil(5120 / h256) for h256 in 1..2048, else 0. */
uint32_t fxdp_health_rct_cutoff(uint32_t h256);
/* Init h over fill(ctx) (h256 1..2048, apt_cutoff 2..513; bad -> FXDP_ERR_PARAM), then run the start-up test on FXDP_HEALTH_STARTUP bytes (failure -> FXDP_ERR_ENTROPY, sticky). */
fxdp_status fxdp_health_init(fxdp_health *h, fxdp_fill_fn fill, void *ctx, uint32_t h256, uint32_t apt_cutoff);
/* fxdp_fill_fn over ctx = fxdp_health *: board fill, then both tests on every byte; any failure -> non-zero, buf zeroed, sticky. */
int fxdp_health_fill(void *ctx, uint8_t *buf, size_t n);

/* ---- layer 2: samplers ---------------------------------------------------
 * Exact, integer-only; each reads exactly the bits of its Python reference
 * (fxdp/samplers/reference.py).  Every sampler checks its parameters first
 * (FXDP_ERR_PARAM: nothing drawn), then fails with FXDP_ERR_ENTROPY if the
 * rng has failed before (even where the draw would read no bits), and writes
 * *out only on FXDP_OK.  NULL pointers are FXDP_ERR_PARAM. */

/* *out uniform on {0..n-1}, n >= 1: k = bitlen(n-1) bits per try until x < n. */
fxdp_status fxdp_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out);
/* *out uniform on {0..n-1}, n >= 1: k = bitlen(n-1) bits per try until x < n. */
fxdp_status fxdp_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out);
/* Rounds of fxdp_uniform_below_ct_u32 (its bits: 32 per round, always all of them). */
#define FXDP_UNIFORM_CT_ROUNDS 4u
/* *out uniform on {0..n-1}, 1 <= n < 2^32, constant time: FXDP_UNIFORM_CT_ROUNDS rounds of Lemire's
 * multiply-and-reject (word w, m = w n; accept iff m mod 2^32 >= 2^32 mod n; value m >> 32), always
 * exactly 32 * FXDP_UNIFORM_CT_ROUNDS bits, the first accepted value selected branch-free.  No round
 * accepted: FXDP_ERR_RANGE (this call only; bits consumed, rng usable), probability
 * ((2^32 mod n) / 2^32)^4 < (n / 2^32)^4, at most 2^-64 for n <= 2^16, 0 for a power of two. */
fxdp_status fxdp_uniform_below_ct_u32(fxdp_rng *r, uint32_t n, uint32_t *out);
/* *out = 1 with probability a/2^k (k <= 63, a <= 2^k); lazy, bits read depend on the outcome: NOT constant time. */
fxdp_status fxdp_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out);
/* *out = 1 with probability a/2^k (k <= 63, a <= 2^k); constant time: exactly k bits, x < a compared branch-free. */
fxdp_status fxdp_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out);
/* Lanes of one fxdp_bernoulli_block draw (one 32-bit word). */
#define FXDP_BLOCK_MAX_LANES 32u
/* *out bit lanes-1-l = lane l ~ Bernoulli(a/2^k), a = a_one if mask bit lanes-1-l else a_zero (1 <= lanes <= 32,
 * k <= 63, a_one, a_zero <= 2^k, mask < 2^lanes); bit-sliced, lazy: bits(lanes) per plane until all decided. */
fxdp_status fxdp_bernoulli_block(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                 uint32_t mask, uint32_t *out);
/* As fxdp_bernoulli_block, constant time: exactly k planes (k * lanes bits), the mask used only in and/or. */
fxdp_status fxdp_bernoulli_block_ct(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                    uint32_t mask, uint32_t *out);
/* *out = 1 with probability n/d (d >= 1, n <= d); lazy digit-by-digit comparison, 2 bits on average. */
fxdp_status fxdp_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out);
/* *out = 1 with probability exp(-n/d) (d >= 1), CKS 2020 Alg. 1; FXDP_ERR_RANGE if d*K overflows (p < 1/2^32!). */
fxdp_status fxdp_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out);
/* *out ~ discrete Laplace, P(z) ~ exp(-|z| s/t) (s, t >= 1), CKS 2020 Alg. 2; FXDP_ERR_RANGE if |z| >= 2^63. */
fxdp_status fxdp_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out);
/* *out = discrete_laplace(s, t) saturated to [lo, hi] (lo <= hi); same bits and errors as fxdp_discrete_laplace. */
fxdp_status fxdp_discrete_laplace_censored(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                           int64_t *out);
/* *out ~ discrete Laplace, P(z) ~ exp(-|z| s/t), exact, ~8 bits at scale 10, NOT constant time; table = the 64
 * words fast_laplace.boundary_table(s, t) (512 B, not checked beyond order); ERR_RANGE past 64 inversion bits (p < 2^-58). */
fxdp_status fxdp_discrete_laplace_fast(fxdp_rng *r, const uint64_t *table, uint32_t s, uint32_t t, int64_t *out);
/* *index = #{i : thresholds[i] <= x}, x = next k bits (k in 1..32); constant time, full scan; the table
 * (strictly increasing, entries < 2^k) is NOT validated (that would branch on it); NULL only if n == 0. */
fxdp_status fxdp_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds, unsigned k,
                                 uint32_t *index);

/* ---- full RAPPOR client ----
 * Erlingsson, Pihur, Korolova 2014 (fxdp_mech_rappor_full.c; reference
 * fxdp/mechanisms/memoized/rappor_full.py; docs/rappor_full.md).  A device's whole
 * state is an fxdp_rappor_full_device (256-bit secret + cohort), provisioned
 * once.  A value is an encoded block of cfg->value_bytes bytes
 * ([len] || UTF-8 bytes || zero padding, fxdp_rappor_full_encode).
 *   Bloom:  pos_j = ((SipHash-2-4(hash_key, u32le(cohort) || u32le(j) || block) >> 32) * k) >> 32, j < h;
 *   PRR:    B'_i = B_i ^ Bernoulli(prr_a / 2^bits), drawn from the ChaCha20 stream of
 *           (key = secret, nonce = (d_lo, d_hi, 1)), d = SipHash-2-4(prr_key,
 *           u32le(cohort) || u32le(0xFFFFFFFF) || block), prr_key = words 0..3 of
 *           ChaCha20_block(secret, 0, (0, 0, 0)): memoized per value, nothing stored;
 *   IRR:    S_i = Bernoulli((B'_i ? q_a : p_a) / 2^bits) from the caller's rng, i = 0..k-1.
 * constant_time != 0: constant-time Bernoulli draws (exactly bits bits each),
 * branch-free selects, Bloom vector by a full k x h scan, fixed-length hashing:
 * the same instructions for every value, secret, cohort and random draw. */

#define FXDP_RAPPOR_FULL_MAX_K 1024      /* k <= this (one k-bit stack buffer)  */
#define FXDP_RAPPOR_FULL_MAX_H 16        /* h <= this                           */
#define FXDP_RAPPOR_FULL_MAX_COHORTS 65536
#define FXDP_RAPPOR_FULL_MAX_VALUE_BYTES 256

typedef struct fxdp_rappor_full_cfg {
    uint64_t prr_a;          /* f/2 = prr_a / 2^bits, prr_a <= 2^(bits-1)            */
    uint64_t p_a;            /* p = p_a / 2^bits, p_a <= 2^bits                        */
    uint64_t q_a;            /* q = q_a / 2^bits, q_a <= 2^bits                        */
    uint8_t hash_key[16];    /* public SipHash-2-4 key of the Bloom positions          */
    uint32_t k;              /* Bloom bits, 1..FXDP_RAPPOR_FULL_MAX_K                  */
    uint32_t h;              /* hash functions, 1..min(k, FXDP_RAPPOR_FULL_MAX_H)      */
    uint32_t cohorts;        /* 1..FXDP_RAPPOR_FULL_MAX_COHORTS                        */
    uint32_t value_bytes;    /* encoded value length, 2..FXDP_RAPPOR_FULL_MAX_VALUE_BYTES */
    uint32_t bits;           /* probability resolution, 1..32                          */
    uint32_t constant_time;  /* 0 or 1                                                 */
} fxdp_rappor_full_cfg;

typedef struct fxdp_rappor_full_device {
    uint32_t secret[8];      /* device secret: the ChaCha20 key of its PRR             */
    uint32_t cohort;         /* < cfg->cohorts                                         */
} fxdp_rappor_full_device;

/* SipHash-2-4 of msg[0..len) under the 16-byte key (msg may be NULL iff len == 0). */
uint64_t fxdp_siphash24(const uint8_t key[16], const uint8_t *msg, size_t len);
/* FXDP_OK if cfg is valid, else FXDP_ERR_PARAM. */
fxdp_status fxdp_rappor_full_check(const fxdp_rappor_full_cfg *cfg);
/* block[0..value_bytes) = [len] || value[0..len) || zeros; len <= value_bytes - 1. */
fxdp_status fxdp_rappor_full_encode(const fxdp_rappor_full_cfg *cfg, const uint8_t *value, size_t len,
                                    uint8_t *block);
/* Provision a device from r: secret[i] = bits(32), i < 8, then cohort = (bits(32) * cohorts) >> 32
 * (exactly 9 words, constant time). */
fxdp_status fxdp_rappor_full_provision(const fxdp_rappor_full_cfg *cfg, fxdp_rng *r,
                                       fxdp_rappor_full_device *dev);
/* positions[0..h) = the Bloom positions of block in cohort (repeats possible). */
fxdp_status fxdp_rappor_full_bloom(const fxdp_rappor_full_cfg *cfg, uint32_t cohort, const uint8_t *block,
                                   uint32_t *positions);
/* out[0..k) = the memoized PRR bits B' of block (deterministic; no rng). */
fxdp_status fxdp_rappor_full_prr(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev,
                                 const uint8_t *block, uint8_t *out);
/* One report: out[0..k) = S (0/1 bytes), the IRR drawn from r; the report's cohort is dev->cohort.
 * On any error out is not written (entropy failure: FXDP_ERR_ENTROPY, nothing released). */
fxdp_status fxdp_rappor_full_report(const fxdp_rappor_full_cfg *cfg, const fxdp_rappor_full_device *dev,
                                    fxdp_rng *r, const uint8_t *block, uint8_t *out);
/* Export entry point (fxdp export, fxdp.export.harness): one report by the device of r.  If r is a
 * keyed ChaCha20 stream (FXDP_MODE_CHACHA or _FKE: simulation, or the DRBG keyed by a persistent device
 * seed) the device is provisioned from r's sibling stream (r's key, nonce words 0 and 1, nonce
 * word 2 = 1), exactly as RapporFull.simulate does; otherwise (hook, replay) it is provisioned by
 * drawing from r itself (a fresh device: one report, no memoization).
 * out[0..k+2) = cohort & 0xFF, cohort >> 8, S_0..S_{k-1}; written only on FXDP_OK. */
fxdp_status fxdp_rappor_full_release(fxdp_rng *r, const fxdp_rappor_full_cfg *cfg, const uint8_t *block,
                                     uint8_t *out);
/* Workspace of fxdp_rappor_full_release_w (see the memoized oracles' workspaces below): the sibling
 * then PRR stream, the device, the k-bit report, the Bloom positions, the KDF block and the SipHash state. */
typedef struct fxdp_rappor_full_work {
    fxdp_rng stream;                                     /* sibling stream, then the PRR stream */
    fxdp_rappor_full_device dev;                         /* the device (secret, cohort)         */
    uint32_t kdf[16];                                    /* the PRR key's ChaCha20 block        */
    uint64_t sip[4];                                     /* the SipHash state                   */
    uint32_t pos[FXDP_RAPPOR_FULL_MAX_H];                /* the Bloom positions                 */
    uint8_t bits[(FXDP_RAPPOR_FULL_MAX_K + 7u) / 8u];    /* the report S, packed                */
} fxdp_rappor_full_work;
/* As fxdp_rappor_full_release, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_rappor_full_release_w(fxdp_rng *r, const fxdp_rappor_full_cfg *cfg, const uint8_t *block,
                                       uint8_t *out, fxdp_rappor_full_work *work);
/* Host only (csrc/host/fxdp_host_rappor_full.c, not firmware): a fleet of n devices; device i
 * runs fxdp_rappor_full_release on the keyed stream (seed, ids[i], 0) (seed[0..8) the key, seed[8]
 * the stream version) with input blocks[i] (a row
 * of value_bytes), writing out[i*(k+2) .. (i+1)*(k+2)) only on success and status[i] (its
 * fxdp_status) always.  Returns FXDP_ERR_PARAM (nothing written) for a bad cfg or NULL
 * pointers, else FXDP_OK. */
fxdp_status fxdp_rappor_full_fleet(const fxdp_rappor_full_cfg *cfg, const uint32_t seed[9], const uint64_t *ids,
                                   const uint8_t *blocks, size_t n, uint8_t *out, uint8_t *status);

/* ---- layer 4: mechanisms ----
 * Randomized response (binary, k-ary), basic RAPPOR, unary encoding, Hadamard response, subset
 * selection, local hashing, Duchi et al.'s one-bit mechanism, the Piecewise and Hybrid mechanisms
 * and the geometric mechanism (fxdp_mech_rr.c, fxdp_mech_rappor.c, fxdp_mech_unary_encoding.c,
 * fxdp_mech_hadamard_response.c, fxdp_mech_subset_selection.c, fxdp_mech_local_hashing.c, fxdp_mech_duchi.c, fxdp_mech_piecewise.c, fxdp_mech_numeric_multidim.c,
 * fxdp_mech_hybrid.c, fxdp_mech_geometric.c).
 * Each reads exactly the bits of its Python reference release (fxdp/mechanisms/:
 * randomized_response.py, rappor.py, geometric.py) and is bit-identical to the
 * Numba fleet simulation (fxdp/mechanisms/<group>/_kernels_<kind>.py).
 * One calling convention (the exporter's, fxdp/export):
 *     fxdp_status f(fxdp_rng *r, const <cfg> *cfg, const <in> *x, <out> *out);
 * x points to the input (1 value, or cfg->k / cfg->n), out to the output (same
 * count).  The config holds the baked integer parameters (Python:
 * m.device_spec()).  Parameters and inputs are checked first (FXDP_ERR_PARAM:
 * nothing drawn, out untouched); an rng that failed before gives
 * FXDP_ERR_ENTROPY.  out is written only on FXDP_OK, except for the reports
 * drawn in place in the caller's buffer (basic RAPPOR, unary encoding, subset selection, L-OUE, the lazy
 * geometric: no stack copy, so the stack stays within 256 bytes): there the
 * status is the validity mark, and an entropy failure wipes out to zeros
 * before FXDP_ERR_ENTROPY returns.  Either way vector releases are all or
 * nothing: an entropy failure at any word releases nothing, in every rng mode.
 * The line above a lazy prototype, "fleet: x ROWS max XMAX; out ROWS max OUTMAX", gives the
 * host fleet (fxdp_fleet_<kind>) the elements of one device and the most any valid cfg needs;
 * tools/gen_c_glue.py writes the host table and the Eva drivers from it.
 * _ct forms: the same instructions, memory reads and bits consumed for every
 * valid input and every random draw (only a bad parameter or input, or an
 * entropy failure, changes the control flow); checked by instruction counts. */

#define FXDP_RAPPOR_MAX_K 1024     /* RAPPOR bits per report (drawn in place in out)     */
#define FXDP_GEOMETRIC_MAX_N 16    /* geometric values per release                         */

/* Binary randomized response: out = x with probability p = a/2^k, else 1 - x.
 * 1 <= k <= 63, 2^(k-1) <= a < 2^k; x, out: one byte, 0 or 1. */
typedef struct fxdp_rr_bool_cfg {
    uint64_t a;
    uint8_t k;
} fxdp_rr_bool_cfg;
/* Lazy: keep = bernoulli_dyadic(a, k) (2 bits on average; the bits used reveal keep). */
/* fleet: x 1u max 1u; out 1u max 1u */
fxdp_status fxdp_rr_bool(fxdp_rng *r, const fxdp_rr_bool_cfg *cfg, const uint8_t *x, uint8_t *out);
/* Constant time: keep = bernoulli_dyadic_ct(a, k) (exactly k bits). */
fxdp_status fxdp_rr_bool_ct(fxdp_rng *r, const fxdp_rr_bool_cfg *cfg, const uint8_t *x, uint8_t *out);

/* k-ary randomized response over t categories (indices 0..t-1): the truth has
 * weight w0, every other category w = (2^k - w0)/(t - 1), out of 2^k.
 * 1 <= k <= 32, 2 <= t <= 2^(k-1), 0 < w0 < 2^k; thresholds = {w0, w0 + w, ...,
 * w0 + (t-2) w} (t - 1 entries, strictly increasing, < 2^k; used by the _ct
 * form only, which checks its first and last entry). */
typedef struct fxdp_rr_cfg {
    uint32_t t;
    uint32_t w0;
    uint8_t k;
    const uint32_t *thresholds;
} fxdp_rr_cfg;
/* Lazy (OpenDP's algorithm): x in [0, t], x = t meaning "not a category" (answered uniformly):
 * s = uniform_below(x < t ? t-1 : t); if x < t and s >= x: s++; honest = bernoulli_dyadic(w0, k);
 * out = honest && x < t ? x : s. */
/* fleet: device rr_device; x max 1u; out max 1u */
fxdp_status fxdp_rr(fxdp_rng *r, const fxdp_rr_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time: x in [0, t) (members only); d = table_sample_ct(thresholds, t-1, k) (exactly k
 * bits, full scan); out = (x + d) mod t without division or branch. */
fxdp_status fxdp_rr_ct(fxdp_rng *r, const fxdp_rr_cfg *cfg, const uint32_t *x, uint32_t *out);

/* Basic one-time RAPPOR: out[i] = x[i] XOR bernoulli(a/2^bits), i = 0..k-1 in order.
 * 1 <= bits <= 63, 1 <= a <= 2^(bits-1) (flip probability f/2 in (0, 1/2]),
 * 1 <= m <= k <= FXDP_RAPPOR_MAX_K; x: exactly k bytes, each 0 or 1, at most m ones. */
typedef struct fxdp_rappor_cfg {
    uint64_t a;
    uint8_t bits;
    uint32_t k;
    uint32_t m;
} fxdp_rappor_cfg;
/* Lazy flips (bernoulli_dyadic, 2 bits each on average), drawn into out; entropy failure: out[0..k) zeroed. */
/* fleet: x (size_t)cfg->k max FXDP_RAPPOR_MAX_K; out (size_t)cfg->k max FXDP_RAPPOR_MAX_K */
fxdp_status fxdp_rappor(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out);
/* Constant-time flips (exactly bits bits each; branch-free input check); in place, zeroed on entropy failure. */
fxdp_status fxdp_rappor_ct(fxdp_rng *r, const fxdp_rappor_cfg *cfg, const uint8_t *x, uint8_t *out);

/* Unary encoding frequency oracle (SUE = basic RAPPOR's one-shot form, OUE = Wang et al. 2017)
 * over d items: input x in [0, d), output d bytes (0/1); out[i] = bernoulli(a_i/2^bits) for
 * i = 0..d-1 in order, a_i = a_p for i = x, else a_q.
 * 1 <= bits <= 63, 0 < a_q < a_p < 2^bits, 2 <= d <= FXDP_UNARY_ENCODING_MAX_D. */
#define FXDP_UNARY_ENCODING_MAX_D 1024          /* items per report (drawn in place in out)            */
typedef struct fxdp_unary_encoding_cfg {
    uint64_t a_p;
    uint64_t a_q;
    uint32_t d;
    uint8_t bits;
} fxdp_unary_encoding_cfg;
/* Lazy draws (bernoulli_dyadic; the bits reveal the draws and x), into out; entropy failure: out[0..d) zeroed. */
/* fleet: x 1u max 1u; out (size_t)cfg->d max FXDP_UNARY_ENCODING_MAX_D */
fxdp_status fxdp_unary_encoding(fxdp_rng *r, const fxdp_unary_encoding_cfg *cfg, const uint32_t *x, uint8_t *out);
/* Constant time: exactly bits bits per item, a_i selected without a branch on x; in place, zeroed on failure. */
fxdp_status fxdp_unary_encoding_ct(fxdp_rng *r, const fxdp_unary_encoding_cfg *cfg, const uint32_t *x, uint8_t *out);

/* Count Mean Sketch (Apple 2017) and its Hadamard variant over byte strings (fxdp_mech_count_mean_sketch.c,
 * reference fxdp/mechanisms/strings/count_mean_sketch.py): x[0..max_len] = [len] || bytes || zero padding,
 * 1 <= len <= max_len; k = hashes hash functions fxdp_strhash32(key, j, ...) into m = 2^log2_width cells.
 * CMS: j = uniform_below(k), then fxdp_unary_encoding(r, &cfg->ue, &h_j(x), out + 2) (ue: a_p = 2^bits - a_q
 * at the cell, a_q elsewhere, d = m); out[0..m+2) = j & 0xFF, j >> 8, the m bits (in place, all zero on an
 * entropy failure).  HCMS: j = uniform_below(k), l = uniform_below(m), flip = bernoulli(ue.a_q/2^ue.bits);
 * out[0..3) = j, l, parity(l & h_j(x)) ^ flip.  _ct: uniform_below_ct and the _ct draws (FXDP_ERR_RANGE
 * when a uniform draw's budget runs out).  1 <= hashes <= FXDP_COUNT_MEAN_SKETCH_MAX_HASHES, 1 <= max_len <=
 * FXDP_STRHASH_MAX_LENGTH, 1 <= log2_width <= 10 (CMS) or 16 (HCMS), ue.d = 2^log2_width, 2 <= ue.bits <= 32,
 * 0 < ue.a_q < 2^(ue.bits-1), ue.a_p = 2^ue.bits - ue.a_q. */
#define FXDP_COUNT_MEAN_SKETCH_MAX_HASHES 65536u
#define FXDP_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH 10u          /* CMS: m bits drawn in place in out          */
#define FXDP_HADAMARD_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH 16u  /* HCMS: l < 2^16                             */
#define FXDP_COUNT_MEAN_SKETCH_MAX_X 256u                   /* 1 + FXDP_STRHASH_MAX_LENGTH input bytes     */
#define FXDP_COUNT_MEAN_SKETCH_MAX_OUT 1026u                /* 2 + 2^10 output bytes                       */
typedef struct fxdp_count_mean_sketch_cfg {
    fxdp_unary_encoding_cfg ue;   /* the flips: unary encoding's config over d = m items      */
    uint32_t key[8];              /* the public hash key (fxdp.strhash), little-endian words */
    uint32_t hashes;              /* k                                                       */
    uint32_t max_len;             /* L: x holds L + 1 bytes                                  */
    uint8_t log2_width;           /* m = 2^log2_width                                        */
} fxdp_count_mean_sketch_cfg;
/* Lazy CMS (uniform_below, unary encoding's runs; the bits used reveal the draws). */
/* fleet: x (size_t)cfg->max_len + 1u max FXDP_COUNT_MEAN_SKETCH_MAX_X; out ((size_t)1u << cfg->log2_width) + 2u max FXDP_COUNT_MEAN_SKETCH_MAX_OUT */
fxdp_status fxdp_count_mean_sketch(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x, uint8_t *out);
/* Constant time: the same instructions and bits for every string and length (ue.bits bits per cell). */
fxdp_status fxdp_count_mean_sketch_ct(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x, uint8_t *out);
/* Lazy HCMS: out = (j, l, bit). */
/* fleet: x (size_t)cfg->max_len + 1u max FXDP_COUNT_MEAN_SKETCH_MAX_X; out 3u max 3u */
fxdp_status fxdp_hadamard_count_mean_sketch(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x, uint32_t *out);
/* Constant time HCMS. */
fxdp_status fxdp_hadamard_count_mean_sketch_ct(fxdp_rng *r, const fxdp_count_mean_sketch_cfg *cfg, const uint8_t *x, uint32_t *out);

/* Sequence Fragment Puzzle (Apple 2017) over byte strings (fxdp_mech_sequence_fragment_puzzle.c, reference
 * fxdp/mechanisms/strings/sequence_fragment_puzzle.py): x[0..L] = [len] || bytes || padding, L = word.max_len,
 * 1 <= len <= L, padding read as 0.  p = uniform_below(positions) (_ct: uniform_below_ct), r = fxdp_strhash32
 * (index 2^32 - 1, word.key) of the string >> 24, then the fragment sketch's release of the 3-byte string
 * (r, x[2p] ^ r, x[2p + 1] ^ rot4(r)) (rot4: nibbles swapped; x[L + 1] = 0) and the word sketch's release of the string, each by the Count Mean
 * Sketch's entry point (fxdp_count_mean_sketch[_ct]; the Hadamard forms: fxdp_hadamard_count_mean_sketch[_ct]).
 * CMS: out[0..5 + m_f + m) = p, the fragment's j & 0xFF, j >> 8 and m_f bits, the word's (in place, all zero
 * on an entropy failure).  HCMS: out[0..7) = p, (j, l, bit) of the fragment, of the word (in place, all zero on
 * an entropy failure).
 * fragment and word valid sketch configs (log2_width <= 10 for CMS, 16 for HCMS), fragment.max_len = 3,
 * word.max_len <= FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_LENGTH, positions = (word.max_len + 2) / 2. */
#define FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_LENGTH 254u  /* p < 128: one byte                        */
#define FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_X 255u       /* input bytes                              */
#define FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_OUT 2053u    /* 1 + 2 (2 + 2^10) output bytes            */
typedef struct fxdp_sequence_fragment_puzzle_cfg {
    fxdp_count_mean_sketch_cfg fragment;   /* the fragments: strings of 3 bytes     */
    fxdp_count_mean_sketch_cfg word;       /* the strings                           */
    uint32_t positions;                    /* G = (word.max_len + 2) / 2            */
} fxdp_sequence_fragment_puzzle_cfg;
/* Lazy SFP over two Count Mean Sketches. */
/* fleet: x (size_t)cfg->word.max_len + 1u max FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_X; out (size_t)cfg->fragment.ue.d + cfg->word.ue.d + 5u max FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_OUT */
fxdp_status fxdp_sequence_fragment_puzzle(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x, uint8_t *out);
/* Constant time in the string and its length. */
fxdp_status fxdp_sequence_fragment_puzzle_ct(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x, uint8_t *out);
/* Lazy SFP over two Hadamard Count Mean Sketches: out = (p, j_f, l_f, b_f, j, l, b). */
/* fleet: x (size_t)cfg->word.max_len + 1u max FXDP_SEQUENCE_FRAGMENT_PUZZLE_MAX_X; out 7u max 7u */
fxdp_status fxdp_hadamard_sequence_fragment_puzzle(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x, uint32_t *out);
/* Constant time HCMS form. */
fxdp_status fxdp_hadamard_sequence_fragment_puzzle_ct(fxdp_rng *r, const fxdp_sequence_fragment_puzzle_cfg *cfg, const uint8_t *x, uint32_t *out);

/* Hadamard response frequency oracle (Acharya, Sun, Zhang, AISTATS 2019) over d items, K = 2^log2k
 * the smallest power of two > d: input x in [0, d), output one index y in [0, K), uniform in
 * C_x = {y : popcount((x+1) & y) even} w.p. p = a_p/2^bits, else uniform in its complement.
 * Bits, in order (HadamardResponse.release): y = log2k bits (MSB first), b = bernoulli(a_p/2^bits);
 * then y ^= lowbit(x+1) iff [y in C_x] != b (branch-free: xor-folded parity, masked toggle).
 * 2 <= bits <= 63, 2^(bits-1) < a_p < 2^bits, 2 <= d <= FXDP_HADAMARD_RESPONSE_MAX_D, 2^(log2k-1) <= d < 2^log2k. */
#define FXDP_HADAMARD_RESPONSE_MAX_D 65535u        /* items (K <= 2^16)                                     */
typedef struct fxdp_hadamard_response_cfg {
    uint64_t a_p;
    uint32_t d;
    uint8_t log2k;
    uint8_t bits;
} fxdp_hadamard_response_cfg;
/* Lazy Bernoulli (bernoulli_dyadic; the bits used reveal the draw). */
/* fleet: x 1u max 1u; out 1u max 1u */
fxdp_status fxdp_hadamard_response(fxdp_rng *r, const fxdp_hadamard_response_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time: exactly log2k + bits bits, no branch on x, y or b. */
fxdp_status fxdp_hadamard_response_ct(fxdp_rng *r, const fxdp_hadamard_response_cfg *cfg, const uint32_t *x, uint32_t *out);

/* Longitudinal (memoized) frequency oracles (Arcolezi et al. 2022; fxdp_mech_longitudinal.c, reference
 * fxdp/mechanisms/memoized/longitudinal.py): input x in [0, d); each report chains a permanent response,
 * drawn from ChaCha20(key = device secret, nonce (x, 0, 2)) and so memoized without storage, and an
 * instantaneous response drawn from r.  The export forms (fxdp_longitudinal_grr[_ct], _ue[_ct])
 * take the secret from r's sibling stream (r's key, nonce words 0 and 1, word 2 = 1) when r is a
 * keyed ChaCha20 stream (simulation, or a DRBG keyed by a persistent device seed), else draw a
 * fresh one from r.  Under stream version 2 r's key changes with every block, so the sibling is the
 * device's only while r is fresh: a device that reports repeatedly provisions once
 * (fxdp_longitudinal_provision) and calls the _report forms.  _ct forms: exactly the same instructions and bits for every x, secret and draw.
 * GRR step on input y: lazy: s = uniform_below(d - 1), s += (s >= y), honest = bernoulli_dyadic(big),
 * answer honest ? y : s; constant time: u = bits(bits), answer (y + #{j < d-1 : big + j small <= u}) mod d. */
#define FXDP_LONGITUDINAL_GRR_MAX_D 65536u      /* L-GRR items (the constant-time scan is O(d))       */
#define FXDP_LONGITUDINAL_UE_MAX_D 1024u        /* L-OUE items (drawn in place in out)                */
typedef struct fxdp_longitudinal_device {
    uint32_t secret[8];                 /* the key of the permanent streams                   */
} fxdp_longitudinal_device;
/* L-GRR: permanent GRR (truth w0/2^bits, each other item w/2^bits), instantaneous GRR (v0, v).
 * 2 <= bits <= 32, 2 <= d <= min(FXDP_LONGITUDINAL_GRR_MAX_D, 2^(bits-1)), w0 + (d-1) w = v0 + (d-1) v = 2^bits,
 * 1 <= w < w0, 1 <= v <= v0. */
typedef struct fxdp_longitudinal_grr_cfg {
    uint32_t d;
    uint32_t w0;
    uint32_t w;
    uint32_t v0;
    uint32_t v;
    uint8_t bits;
} fxdp_longitudinal_grr_cfg;
/* L-OUE: permanent OUE (bit i is 1 w.p. a_p1/2^bits at i = x, a_q1/2^bits elsewhere), then
 * instantaneous SUE (bit i of the report is 1 w.p. a_p2/2^bits if the permanent bit is 1, else
 * 1 - a_p2/2^bits); per item i = 0..d-1 the permanent draw, then the instantaneous one.
 * 2 <= bits <= 63, 0 < a_q1 < a_p1 < 2^bits, 2^(bits-1) < a_p2 < 2^bits, 2 <= d <= FXDP_LONGITUDINAL_UE_MAX_D. */
typedef struct fxdp_longitudinal_ue_cfg {
    uint64_t a_p1;
    uint64_t a_q1;
    uint64_t a_p2;
    uint32_t d;
    uint8_t bits;
} fxdp_longitudinal_ue_cfg;
/* Provision a device: secret[i] = bits(32), i < 8 (exactly 256 bits, constant time); dev written only on OK. */
fxdp_status fxdp_longitudinal_provision(fxdp_rng *r, fxdp_longitudinal_device *dev);
/* One L-GRR report of *x by dev, instantaneous step from r (lazy draws); *out written only on OK. */
fxdp_status fxdp_longitudinal_grr_report(const fxdp_longitudinal_grr_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                         const uint32_t *x, uint32_t *out);
/* As fxdp_longitudinal_grr_report, constant time (exactly bits bits from r, full scans). */
fxdp_status fxdp_longitudinal_grr_report_ct(const fxdp_longitudinal_grr_cfg *cfg, const fxdp_longitudinal_device *dev,
                                            fxdp_rng *r, const uint32_t *x, uint32_t *out);
/* Export entry point: one L-GRR report of *x by the device of r (see above); lazy draws. */
fxdp_status fxdp_longitudinal_grr(fxdp_rng *r, const fxdp_longitudinal_grr_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Export entry point, constant time. */
fxdp_status fxdp_longitudinal_grr_ct(fxdp_rng *r, const fxdp_longitudinal_grr_cfg *cfg, const uint32_t *x, uint32_t *out);
/* One L-OUE report (out[0..d) 0/1 bytes) of *x by dev, instantaneous draws from r (lazy); in place, zeroed on entropy failure. */
fxdp_status fxdp_longitudinal_ue_report(const fxdp_longitudinal_ue_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                        const uint32_t *x, uint8_t *out);
/* As fxdp_longitudinal_ue_report, constant time (exactly bits bits per item from r); in place, zeroed on failure. */
fxdp_status fxdp_longitudinal_ue_report_ct(const fxdp_longitudinal_ue_cfg *cfg, const fxdp_longitudinal_device *dev, fxdp_rng *r,
                                           const uint32_t *x, uint8_t *out);
/* Export entry point: one L-OUE report of *x by the device of r (see above); lazy draws. */
fxdp_status fxdp_longitudinal_ue(fxdp_rng *r, const fxdp_longitudinal_ue_cfg *cfg, const uint32_t *x, uint8_t *out);
/* Export entry point, constant time. */
fxdp_status fxdp_longitudinal_ue_ct(fxdp_rng *r, const fxdp_longitudinal_ue_cfg *cfg, const uint32_t *x, uint8_t *out);
/* dBitFlip (Ding, Kulkarni, Yekhanin 2017; fxdp_mech_dbitflip.c, reference fxdp/mechanisms/memoized/dbitflip.py):
 * input x in [0, d) in bucket v = floor(x * buckets / d); output 2 * sampled uint32: the device's
 * sampled buckets J (ascending; Floyd's algorithm on ChaCha20(key = secret, nonce (0, 0, 3)): for
 * j = buckets - sampled .. buckets - 1, t = uniform_below(j + 1), add j if t is chosen, else t), then
 * one bit per sampled bucket j_i, 1 w.p. a_p/2^bits if j_i = v, else (2^bits - a_p)/2^bits, drawn in
 * order from ChaCha20(key = secret, nonce (v, 0, 4)): the same answer for the same bucket (memoized
 * by derivation).  The export forms take the secret as the longitudinal ones do and draw nothing
 * else from r.  _ct forms: exactly bits bits per response bit, masks, a fixed-step division; the
 * sampling of J depends on the secret only (J is sent).
 * 2 <= bits <= 63, 2^(bits-1) < a_p < 2^bits, 2 <= buckets <= d <= FXDP_DBITFLIP_MAX_D,
 * 1 <= sampled <= min(buckets, FXDP_DBITFLIP_MAX_S). */
#define FXDP_DBITFLIP_MAX_D 65536u           /* items (x * buckets < 2^32)                         */
#define FXDP_DBITFLIP_MAX_S 32u              /* sampled buckets (a 64-byte stack buffer)           */
typedef struct fxdp_dbitflip_cfg {
    uint64_t a_p;
    uint32_t d;
    uint32_t buckets;
    uint8_t sampled;
    uint8_t bits;
    uint8_t uniform_version;   /* _ct forms' bucket draws: 2 fixed budget (fxdp_uniform_below_ct_u32, issue 32;
                                  fails w.p. < sampled (buckets / 2^32)^4 <= 2^-59, the same for every report
                                  of that device); 0 or 1 rejection (before issue 32); > 2: FXDP_ERR_PARAM */
} fxdp_dbitflip_cfg;
/* One dBitFlip report (out[0..2*sampled)) of *x by dev (lazy draws); all or nothing, no rng needed. */
fxdp_status fxdp_dbitflip_report(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, const uint32_t *x,
                                 uint32_t *out);
/* As fxdp_dbitflip_report, constant time in x (exactly bits bits per response bit, branch-free). */
fxdp_status fxdp_dbitflip_report_ct(const fxdp_dbitflip_cfg *cfg, const fxdp_longitudinal_device *dev, const uint32_t *x,
                                    uint32_t *out);
/* Export entry point: one dBitFlip report of *x by the device of r (secret as above); lazy draws. */
fxdp_status fxdp_dbitflip(fxdp_rng *r, const fxdp_dbitflip_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Export entry point, constant time in x. */
fxdp_status fxdp_dbitflip_ct(fxdp_rng *r, const fxdp_dbitflip_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Caller-supplied workspaces (BearSSL/Monocypher style) of the memoized export entry points: the
 * second rng (sibling, then permanent or keyed stream) and the device secret live in *work instead of
 * the stack, so firmware that keeps a static workspace (as `fxdp export` generates) releases within
 * 256 B of stack and counts the workspace as RAM.  A workspace is scratch: the _w forms zero it on
 * every return (success or error), so no rng state or secret stays in it; one per concurrent caller.
 * The forms without _w are the convenience forms: the same bits, outputs and statuses, with the
 * workspace on their own stack (sizeof the workspace more stack). */
typedef struct fxdp_lgrr_work {
    fxdp_rng stream;                    /* the sibling stream, then the permanent stream       */
    fxdp_longitudinal_device dev;               /* the device secret                                    */
} fxdp_lgrr_work;
typedef struct fxdp_lue_work {
    fxdp_rng stream;                    /* the sibling stream, then the permanent stream       */
    fxdp_longitudinal_device dev;               /* the device secret                                    */
} fxdp_lue_work;
typedef struct fxdp_dbitflip_work {
    fxdp_rng stream;                    /* the sibling stream, then the two keyed streams      */
    fxdp_longitudinal_device dev;               /* the device secret                                    */
    uint16_t buckets[FXDP_DBITFLIP_MAX_S];   /* the sampled buckets (the all-or-nothing buffer)      */
} fxdp_dbitflip_work;
/* As fxdp_longitudinal_grr, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_longitudinal_grr_w(fxdp_rng *r, const fxdp_longitudinal_grr_cfg *cfg, const uint32_t *x, uint32_t *out,
                                    fxdp_lgrr_work *work);
/* As fxdp_longitudinal_grr_ct, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_longitudinal_grr_ct_w(fxdp_rng *r, const fxdp_longitudinal_grr_cfg *cfg, const uint32_t *x, uint32_t *out,
                                       fxdp_lgrr_work *work);
/* As fxdp_longitudinal_ue, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_longitudinal_ue_w(fxdp_rng *r, const fxdp_longitudinal_ue_cfg *cfg, const uint32_t *x, uint8_t *out,
                                   fxdp_lue_work *work);
/* As fxdp_longitudinal_ue_ct, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_longitudinal_ue_ct_w(fxdp_rng *r, const fxdp_longitudinal_ue_cfg *cfg, const uint32_t *x, uint8_t *out,
                                      fxdp_lue_work *work);
/* As fxdp_dbitflip, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_dbitflip_w(fxdp_rng *r, const fxdp_dbitflip_cfg *cfg, const uint32_t *x, uint32_t *out,
                            fxdp_dbitflip_work *work);
/* As fxdp_dbitflip_ct, scratch in *work (zeroed on every return); work NULL -> FXDP_ERR_PARAM, nothing released. */
fxdp_status fxdp_dbitflip_ct_w(fxdp_rng *r, const fxdp_dbitflip_cfg *cfg, const uint32_t *x, uint32_t *out,
                               fxdp_dbitflip_work *work);
/* Subset selection frequency oracle (Wang et al. 2016; Ye and Barg 2018) over d items: input x in
 * [0, d), output the k items of a k-subset S in increasing order (k uint16_t); S holds x w.p.
 * p = a_p/2^bits (its other members a uniform (k-1)-subset of the other items), else S is a uniform
 * k-subset of the other items.  Bits, in order (SubsetSelection.release): Floyd's draws
 * t = uniform_below(j+1) for j = d-1-k .. d-2 (rejection, bitlen(j) bits per try), b =
 * bernoulli(a_p/2^bits), r = uniform_below(k) (ct: always; lazy: iff b); other item j is item
 * j + [j >= x]; if b the r-th smallest member is replaced by x.  A d-bit map on the stack (128 B).
 * 1 <= bits <= 63, 0 < a_p < 2^bits, 2 <= d <= FXDP_SUBSET_SELECTION_MAX_D, 1 <= k < d. */
#define FXDP_SUBSET_SELECTION_MAX_D 1024u         /* items (uint16 output; the subset is built in out)     */
typedef struct fxdp_subset_selection_cfg {
    uint64_t a_p;
    uint32_t d;
    uint32_t k;
    uint8_t bits;
    uint8_t uniform_version;   /* _ct form's draws: 2 fixed budget (fxdp_uniform_below_ct_u32, issue 32);
                                  0 or 1 rejection (the bits before issue 32); > 2: FXDP_ERR_PARAM */
} fxdp_subset_selection_cfg;
/* Lazy Bernoulli, r drawn only when b = 1 (the bits used reveal b); drawn in place: entropy failure zeroes out[0..k). */
/* fleet: x 1u max 1u; out (size_t)cfg->k max FXDP_SUBSET_SELECTION_MAX_D - 1u */
fxdp_status fxdp_subset_selection(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, const uint32_t *x, uint16_t *out);
/* Constant time in x, b and the subset (masked scans, sorting network); uniform_version 2: every draw
 * fxdp_uniform_below_ct_u32 (k + 1 draws of 128 bits, then bits), constant in the stream too, failing
 * with FXDP_ERR_RANGE w.p. < (k + 1) (d / 2^32)^4 <= 2^-78 (d <= 1024); uniform_version 0/1: rejection,
 * bit use varies with the stream.  In place, zeroed on failure. */
fxdp_status fxdp_subset_selection_ct(fxdp_rng *r, const fxdp_subset_selection_cfg *cfg, const uint32_t *x, uint16_t *out);
/* Local hashing frequency oracle (OLH, BLH; Wang et al. 2017) over d items: input x in [0, d),
 * output out[0..2] = (a, b, y): the hash seed a in [1, P), b in [0, P) (P = 2^31 - 1) and
 * y in [0, g), y = h(x) = ((a x + b) mod P) mod g w.p. p = a_p/2^bits, each other value w.p.
 * q = w/2^bits.  Bits, in order (LocalHashing.release): a = 1 + uniform_below(P - 1),
 * b = uniform_below(P); lazy: s = uniform_below(g - 1), honest = bernoulli_dyadic(a_p/2^bits),
 * y = honest ? h(x) : (h(x) + 1 + s) mod g; constant time: U = bits bits, y = (h(x) + t) mod g,
 * t = #{j in [1, g) : U >= a_p + (j-1) w}.  The hash: limb products, shifts and adds, no branch on x.
 * 2 <= bits <= 63, 2 <= g <= FXDP_LOCAL_HASHING_MAX_G, w >= 1, a_p = 2^bits - (g-1) w > w, 2 <= d <= FXDP_LOCAL_HASHING_MAX_D. */
#define FXDP_LOCAL_HASHING_MAX_D 2147483647u   /* items (distinct mod P = 2^31 - 1)                      */
#define FXDP_LOCAL_HASHING_MAX_G 65536u        /* hash values                                           */
typedef struct fxdp_local_hashing_cfg {
    uint64_t a_p;
    uint64_t w;
    uint32_t d;
    uint32_t g;
    uint8_t bits;
} fxdp_local_hashing_cfg;
/* Lazy offset (uniform_below + bernoulli_dyadic; the bits used reveal whether y = h(x)). */
/* fleet: x 1u max 1u; out 3u max 3u */
fxdp_status fxdp_local_hashing(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time in x: seed (62 bits unless a retry), then exactly bits bits, an O(g) branch-free scan. */
fxdp_status fxdp_local_hashing_ct(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Prefix Extending Method (Wang, Li and Jha, TDSC 2019) over byte strings (fxdp_mech_prefix_extending.c,
 * reference fxdp/mechanisms/strings/prefix_extending.py): x[0..max_len] = [len] || bytes || padding
 * (1 <= len <= max_len, padding read as 0).  t = uniform_below(groups) (_ct: uniform_below_ct, FXDP_ERR_RANGE
 * when its budget runs out), z = fxdp_strhash32 (index t) of the prefix x[0..l_t), l_t = min(start +
 * (t + 1) step, max_len + 1), as a string of at most max_len + 1 bytes, >> 2; then fxdp_local_hashing[_ct]
 * on cfg->lh (d = 2^30) of z into out + 1.  out[0..4) = t, a, b, y, written only on FXDP_OK.
 * 1 <= max_len <= FXDP_PREFIX_EXTENDING_MAX_LENGTH, start, step in {1, 2}, start <= max_len + 1,
 * groups = max(1, ceil((max_len + 1 - start) / step)), lh valid with d = 2^30. */
#define FXDP_PREFIX_EXTENDING_MAX_LENGTH 254u      /* the prefixes are strings of max_len + 1 <= 255 bytes */
#define FXDP_PREFIX_EXTENDING_MAX_X 255u           /* input bytes                                          */
typedef struct fxdp_prefix_extending_cfg {
    fxdp_local_hashing_cfg lh;    /* the release of the item: local hashing over d = 2^30 */
    uint32_t key[8];              /* the public hash key (fxdp.strhash)                    */
    uint32_t max_len;             /* L: x holds L + 1 bytes                                */
    uint32_t groups;              /* G                                                     */
    uint8_t start;                /* bytes of the first prefix before its step             */
    uint8_t step;                 /* bytes more per group                                  */
} fxdp_prefix_extending_cfg;
/* Lazy (uniform_below, local hashing's lazy release). */
/* fleet: x (size_t)cfg->max_len + 1u max FXDP_PREFIX_EXTENDING_MAX_X; out 4u max 4u */
fxdp_status fxdp_prefix_extending(fxdp_rng *r, const fxdp_prefix_extending_cfg *cfg, const uint8_t *x, uint32_t *out);
/* Constant time in the string and its length (local hashing's constant-time release). */
fxdp_status fxdp_prefix_extending_ct(fxdp_rng *r, const fxdp_prefix_extending_cfg *cfg, const uint8_t *x, uint32_t *out);
/* TreeHist (Bassily, Nissim, Stemmer and Thakurta, NeurIPS 2017) over byte strings (fxdp_mech_treehist.c,
 * reference fxdp/mechanisms/strings/treehist.py): x[0..L] = [len] || bytes || padding, L = prefix.max_len =
 * word.max_len, 1 <= len <= L.  fxdp_prefix_extending[_ct] on cfg->prefix into out[0..4), then
 * fxdp_hadamard_count_mean_sketch[_ct] of the string on cfg->word into out[4..7): out = (t, a, b, y, j, l, bit),
 * in place, all zero on an entropy failure; both configs are checked before anything is drawn. */
typedef struct fxdp_treehist_cfg {
    fxdp_prefix_extending_cfg prefix;      /* the prefix report: a level's hashed prefix by local hashing */
    fxdp_count_mean_sketch_cfg word;       /* the word report: a Hadamard Count Mean Sketch          */
} fxdp_treehist_cfg;
/* Lazy TreeHist. */
/* fleet: x (size_t)cfg->prefix.max_len + 1u max FXDP_PREFIX_EXTENDING_MAX_X; out 7u max 7u */
fxdp_status fxdp_treehist(fxdp_rng *r, const fxdp_treehist_cfg *cfg, const uint8_t *x, uint32_t *out);
/* Constant time in the string and its length. */
fxdp_status fxdp_treehist_ct(fxdp_rng *r, const fxdp_treehist_cfg *cfg, const uint8_t *x, uint32_t *out);
/* Hierarchical histogram (Cormode, Kulkarni and Srivastava, VLDB 2019) of a reading on a grid
 * (fxdp_mech_hierarchical_histogram.c, reference fxdp/mechanisms/ranges/hierarchical_histogram.py):
 * x = grid index in [0, 2^bits], leaf = min(x, 2^bits - 1).  t = uniform_below(levels) (_ct:
 * uniform_below_ct, FXDP_ERR_RANGE when its budget runs out), node = leaf >> (bits - min(bits, (t + 1)
 * log2_branching)); t < krr_levels: fxdp_rr's lazy release of node over t_t = 2^min(bits, (t + 1)
 * log2_branching) categories with weight rr_w0[t] out of 2^rr_k, out = (t, y, 0, 0); else fxdp_local_hashing[_ct] of node on
 * lh (d = 2^bits), out = (t, a, b, y).  out[0..4) written only on FXDP_OK.
 * 1 <= bits <= 16, 1 <= log2_branching <= 16, levels = ceil(bits / log2_branching), krr_levels <= levels
 * (0 in the _ct form: the node is picked by a masked scan of every level), 1 <= rr_k <= 32,
 * t_t <= 2^(rr_k - 1) and 0 < rr_w0[t] < 2^rr_k at the k-ary RR levels, lh valid with d = 2^bits when
 * krr_levels < levels. */
#define FXDP_HIERARCHICAL_HISTOGRAM_MAX_BITS 16u
typedef struct fxdp_hierarchical_histogram_cfg {
    fxdp_local_hashing_cfg lh;      /* the levels from krr_levels on: local hashing over d = 2^bits */
    uint32_t rr_w0[FXDP_HIERARCHICAL_HISTOGRAM_MAX_BITS]; /* the k-ary RR levels' weight of the truth */
    uint8_t rr_k;                   /* k-ary RR's weights are out of 2^rr_k                          */
    uint8_t krr_levels;             /* the first krr_levels levels use k-ary RR                      */
    uint8_t levels;                 /* ceil(bits / log2_branching)                                   */
    uint8_t log2_branching;         /* branching 2^log2_branching                                    */
    uint8_t bits;                   /* 2^bits leaves                                                 */
} fxdp_hierarchical_histogram_cfg;
/* Lazy (uniform_below, then the level's oracle: the bits used reveal the draws). */
/* fleet: x 1u max 1u; out 4u max 4u */
fxdp_status fxdp_hierarchical_histogram(fxdp_rng *r, const fxdp_hierarchical_histogram_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time in x and the level: local hashing at every level, the node by a masked scan. */
fxdp_status fxdp_hierarchical_histogram_ct(fxdp_rng *r, const fxdp_hierarchical_histogram_cfg *cfg, const uint32_t *x,
                                           uint32_t *out);
/* HaarHRR (Cormode, Kulkarni and Srivastava, VLDB 2019) of a reading on a grid (fxdp_mech_haar_hrr.c,
 * reference fxdp/mechanisms/ranges/haar_hrr.py): x = grid index in [0, 2^bits], leaf = min(x, 2^bits - 1).
 * l = uniform_below(bits) (_ct: uniform_below_ct, FXDP_ERR_RANGE when its budget runs out), j = l bits
 * (_ct: the low l of bits - 1 bits), then binary RR of parity(j & (leaf >> (bits - l))) ^ (bit bits - l - 1
 * of leaf) with keep = bernoulli_dyadic(a_p, prob_bits) (_ct: _ct).  out[0..3) = l, j, b, written only on
 * FXDP_OK.  1 <= bits <= 16, 2 <= prob_bits <= 32, 2^(prob_bits - 1) < a_p < 2^prob_bits. */
#define FXDP_HAAR_HRR_MAX_BITS 16u
typedef struct fxdp_haar_hrr_cfg {
    uint64_t a_p;                   /* keep the bit w.p. a_p / 2^prob_bits */
    uint8_t prob_bits;
    uint8_t bits;                   /* 2^bits leaves, bits Haar levels */
} fxdp_haar_hrr_cfg;
/* Lazy (uniform_below, l bits, bernoulli_dyadic: the bits used reveal the draws). */
/* fleet: x 1u max 1u; out 3u max 3u */
fxdp_status fxdp_haar_hrr(fxdp_rng *r, const fxdp_haar_hrr_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time in x and the level: 128 + bits - 1 + prob_bits bits, masked scans. */
fxdp_status fxdp_haar_hrr_ct(fxdp_rng *r, const fxdp_haar_hrr_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Duchi et al.'s one-bit mechanism (JASA 2018) on a grid: input x = grid index in [0, 2^bits]
 * (the reading lo + x (hi - lo) / 2^bits), output one bit y, P(y = 1) = num_x / 2^(prob_bits + bits),
 * num_x = (2^prob_bits - a_p) 2^bits + (2 a_p - 2^prob_bits) x (from 1 - p at x = 0 to p = a_p/2^prob_bits).
 * Bits (Duchi.release): one bernoulli_dyadic(num_x, prob_bits + bits); num_x by masked shift-and-add.
 * 2 <= prob_bits <= 32, 1 <= bits <= FXDP_DUCHI_MAX_BITS, 2^(prob_bits-1) < a_p < 2^prob_bits. */
#define FXDP_DUCHI_MAX_BITS 24u     /* grid of 2^24 + 1 levels                                */
typedef struct fxdp_duchi_cfg {
    uint64_t a_p;
    uint8_t prob_bits;
    uint8_t bits;
} fxdp_duchi_cfg;
/* Lazy Bernoulli (bernoulli_dyadic; the bits used reveal the draw). */
/* fleet: x 1u max 1u; out 1u max 1u */
fxdp_status fxdp_duchi(fxdp_rng *r, const fxdp_duchi_cfg *cfg, const uint32_t *x, uint8_t *out);
/* Constant time: exactly prob_bits + bits bits, no branch on x or y. */
fxdp_status fxdp_duchi_ct(fxdp_rng *r, const fxdp_duchi_cfg *cfg, const uint32_t *x, uint8_t *out);

/* Piecewise mechanism (Wang et al., ICDE 2019) on a grid: input x = grid index in [0, 2^bits], output
 * one cell j in [0, 2^bits + w); the band [x, x + w) has a/2^prob_bits per cell, every other cell
 * (2^prob_bits - w a)/2^(prob_bits + bits).  Bits (Piecewise.release): lazy b = bernoulli_dyadic(w a,
 * prob_bits), then uniform_below(w) or `bits` bits; CT: prob_bits bits U, then `bits` bits u.
 * 2 <= prob_bits <= 32, 1 <= bits <= FXDP_PIECEWISE_MAX_BITS, 1 <= w <= 2^bits, a >= 1, w a < 2^prob_bits. */
#define FXDP_PIECEWISE_MAX_BITS 24u        /* grid of 2^24 + 1 levels                                */
typedef struct fxdp_piecewise_cfg {
    uint64_t a;
    uint32_t w;
    uint8_t prob_bits;
    uint8_t bits;
} fxdp_piecewise_cfg;
/* Lazy: Bernoulli band choice and rejection-sampled band cell (the bits used reveal the draw). */
/* fleet: x 1u max 1u; out 1u max 1u */
fxdp_status fxdp_piecewise(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time: exactly prob_bits + bits bits, no branch on x, the draws or the band choice. */
fxdp_status fxdp_piecewise_ct(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, const uint32_t *x, uint32_t *out);

/* Square Wave mechanism (Li et al., SIGMOD 2020) on a grid: the grid Piecewise mechanism's shape with
 * the window width w ~ 2 b 2^bits of SW's optimal b (fxdp/mechanisms/readings/square_wave.py): input x = grid
 * index in [0, 2^bits], output one cell j in [0, 2^bits + w); the window [x, x + w) has a/2^prob_bits
 * per cell, every other cell (2^prob_bits - w a)/2^(prob_bits + bits).  Same bits as fxdp_piecewise[_ct]
 * and the same limits: 2 <= prob_bits <= 32, 1 <= bits <= FXDP_PIECEWISE_MAX_BITS, 1 <= w <= 2^bits, a >= 1,
 * w a < 2^prob_bits. */
typedef fxdp_piecewise_cfg fxdp_square_wave_cfg;
/* Lazy: Bernoulli window choice and rejection-sampled window cell (the bits used reveal the draw). */
/* fleet: x 1u max 1u; out 1u max 1u */
fxdp_status fxdp_square_wave(fxdp_rng *r, const fxdp_square_wave_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time: exactly prob_bits + bits bits, no branch on x, the draws or the window choice. */
fxdp_status fxdp_square_wave_ct(fxdp_rng *r, const fxdp_square_wave_cfg *cfg, const uint32_t *x, uint32_t *out);

/* Hybrid mechanism (Wang et al., ICDE 2019) on a grid: with probability b/2^prob_bits the Piecewise
 * mechanism (output its cell j < L = 2^bits + pm.w), else Duchi's (output L + bit); input x = grid index.
 * Bits (Hybrid.release): bernoulli_dyadic(b, prob_bits), then the chosen branch (lazy) or both
 * branches' constant-time draws, Piecewise first (CT).  pm and duchi valid with equal bits and
 * prob_bits, b < 2^prob_bits. */
typedef struct fxdp_hybrid_cfg {
    uint64_t b;
    fxdp_piecewise_cfg pm;
    fxdp_duchi_cfg duchi;
} fxdp_hybrid_cfg;
/* Lazy: only the chosen branch draws (the bits used reveal the branch). */
/* fleet: x 1u max 1u; out 1u max 1u */
fxdp_status fxdp_hybrid(fxdp_rng *r, const fxdp_hybrid_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time: exactly 3 prob_bits + 2 bits bits, both branches drawn, the output selected by a mask. */
fxdp_status fxdp_hybrid_ct(fxdp_rng *r, const fxdp_hybrid_cfg *cfg, const uint32_t *x, uint32_t *out);

/* Multi-dimensional numeric readings (Wang et al., ICDE 2019, section IV): input x = d grid indices
 * (attribute a's reading as its index in [0, 2^bits]), output out[0..2k) = the k sampled attributes in
 * increasing order, then their k reports of the base mechanism (base 0: Duchi's bit, hm.duchi; 1: the
 * Piecewise cell, hm.pm; 2: the Hybrid symbol, hm), each at the per-report epsilon.  Bits, in order
 * (NumericMultiDim.release): Floyd's draws t = uniform_below(j+1) for j = d-k .. d-1 (S gets j if t is
 * already in S, else t), then the base mechanism's draws for each sampled attribute in increasing order.
 * 1 <= d <= FXDP_NUMERIC_MULTIDIM_MAX_D, 1 <= k <= min(d, FXDP_NUMERIC_MULTIDIM_MAX_K); the base's cfg as its own entry point
 * requires; every x[a] checked before any draw. */
#define FXDP_NUMERIC_MULTIDIM_MAX_D 256u          /* attributes per device                                 */
#define FXDP_NUMERIC_MULTIDIM_MAX_K 16u           /* reported attributes                                    */
typedef struct fxdp_numeric_multidim_cfg {
    fxdp_hybrid_cfg hm;
    uint8_t base;
    uint32_t d;
    uint32_t k;
    uint8_t uniform_version;   /* _ct form's subset draws: 2 fixed budget (fxdp_uniform_below_ct_u32, issue 32);
                                  0 or 1 rejection (the bits before issue 32); > 2: FXDP_ERR_PARAM */
} fxdp_numeric_multidim_cfg;
/* Lazy: the base mechanism's lazy draws (the bits used reveal them); drawn in place (out must not overlap x): entropy failure zeroes out[0..2k). */
/* fleet: x (size_t)cfg->d max FXDP_NUMERIC_MULTIDIM_MAX_D; out 2u * (size_t)cfg->k max 2u * FXDP_NUMERIC_MULTIDIM_MAX_K */
fxdp_status fxdp_numeric_multidim(fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, const uint32_t *x, uint32_t *out);
/* Constant time in x: the base's constant-time draws; uniform_version 2: Floyd's k draws by
 * fxdp_uniform_below_ct_u32 (128 bits each), constant in the stream too, failing with FXDP_ERR_RANGE
 * w.p. < k (d / 2^32)^4 <= 2^-92; uniform_version 0/1: rejection, bit use varies with the stream.
 * In place, zeroed on failure. */
fxdp_status fxdp_numeric_multidim_ct(fxdp_rng *r, const fxdp_numeric_multidim_cfg *cfg, const uint32_t *x, uint32_t *out);

/* Geometric mechanism on n int64 values (1 <= n <= FXDP_GEOMETRIC_MAX_N; n = 1 scalar,
 * n > 1 vector under L1), each saturated to [lo, hi] (lo <= hi).
 * Lazy: noise discrete_laplace(s, t), scale t/s (s, t >= 1).
 * Constant time: noise J = table_sample_ct(thresholds, 2 width, k) - width from the proved
 * table (fxdp/samplers/bounded.py): 1 <= k <= 32, 1 <= width <= 32767, bounds within int32,
 * thresholds: 2 width entries, strictly increasing, < 2^k (the last one stored is checked).
 * half = 0: thresholds holds all 2 width entries t[0..2 width); half = 1 + c (c in {0, 1}):
 * the table is symmetric, t[2 width - 1 - i] = 2^k - t[i] + c (true of every proved table;
 * fxdp export checks it), and thresholds holds only width entries s[i] = t[i] - c (i < width),
 * so t[i] = s[i] + c and t[2 width - 1 - i] = 2^k - s[i]; the scan derives the other half. */
typedef struct fxdp_geometric_cfg {
    uint32_t s;
    uint32_t t;
    int64_t lo;
    int64_t hi;
    uint32_t n;
    uint8_t k;
    uint8_t half;
    uint32_t width;
    const uint32_t *thresholds;
} fxdp_geometric_cfg;
/* Lazy: out[i] = clamp(x[i] + discrete_laplace(s, t), lo, hi) (no overflow); FXDP_ERR_RANGE
 * as fxdp_discrete_laplace (probability below exp(-2^31)); any int64 input.  Drawn in place:
 * on FXDP_ERR_ENTROPY or FXDP_ERR_RANGE after the checks, out[0..n) is zeroed (x may alias out). */
/* fleet: x (size_t)cfg->n max FXDP_GEOMETRIC_MAX_N; out (size_t)cfg->n max FXDP_GEOMETRIC_MAX_N */
fxdp_status fxdp_geometric(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out);
/* Constant time: out[i] = clamp(clamp(x[i], lo, hi) + J, lo, hi), exactly k bits per value;
 * any int64 input (clamped to the bounds first, branch-free). */
fxdp_status fxdp_geometric_ct(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out);
/* fxdp_geometric_ct with cfg->thresholds in program memory: on AVR (avr-gcc) the table must be
 * placed with __attribute__((__progmem__)) (fxdp export does) and is read with LPM, so it takes
 * no RAM; on every other target this is fxdp_geometric_ct. */
fxdp_status fxdp_geometric_ct_rom(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out);

/* ---- finite-precision Laplace (Gazeau et al.) ----------------------------
 * fxdp_fixmath.c, fxdp_laplace_fixed.c; Python twins fxdp/fixmath.py,
 * fxdp/mechanisms/finite/laplace.py (the definitions; docs/finite_precision.md). */

/* ln(m / 2^31) in Q0.32 for m in [2^31, 2^32) (integer-only; returns 0 for m < 2^31). */
uint32_t fxdp_ln_mantissa_q32(uint32_t m);
/* *out = -ln(w / 2^k) in Q5.26 for 1 <= w < 2^k, 1 <= k <= 32; non-increasing in w. */
fxdp_status fxdp_neglog_q26(uint32_t w, unsigned k, uint32_t *out);
/* cos and sin of angle / 2^32 turns in Q1.30 (CORDIC, 40 iterations on int64). */
void fxdp_cordic_q30(uint32_t angle, int32_t *cos_out, int32_t *sin_out);

/* 1-D fixed-point Laplace with snapping and truncation (raw values of one Q format). */
typedef struct fxdp_laplace_fixed_params {
    uint32_t uniform_bits;   /* k in [1, 32]: one bits(k) draw per release                   */
    uint32_t method;         /* 0: inverse CDF, mag = round(B lambda / 2^shift)               */
                             /* 1: naive scaled unit (Example 1.1), round(lambda/2^shift) << n */
    uint32_t scale_num;      /* B (method 0)                                                  */
    uint32_t shift;          /* method 0: 1..62; method 1: 26 - frac_bits (0..26)             */
    uint32_t scale_shift;    /* n (method 1, 0..30)                                           */
    uint32_t truncation;     /* 0: exception value outside [lo, hi]; 1: clamp (Remark 2)      */
    int64_t lo;              /* m (raw), a multiple of step, |lo| <= 2^61                     */
    int64_t hi;              /* M (raw), a multiple of step, lo < hi <= 2^61                  */
    int64_t step;            /* L (raw) >= 1; hi - lo + step < 2^60                           */
} fxdp_laplace_fixed_params;
/* The signed raw noise of one release (bits(k)). */
fxdp_status fxdp_laplace_fixed_noise(fxdp_rng *r, const fxdp_laplace_fixed_params *p, int64_t *noise);
/* One release of raw x (clamped to [lo, hi]): *out = snapped output, *exception = 1 for the
 * exception value (then *out = 0). */
fxdp_status fxdp_laplace_fixed(fxdp_rng *r, const fxdp_laplace_fixed_params *p, int64_t x,
                               int64_t *out, uint8_t *exception);

/* Planar fixed-point Laplace: CORDIC angle, radius B (E1 + E2) (Gamma(2) as two exponentials). */
typedef struct fxdp_planar_laplace_fixed_params {
    uint32_t angle_bits;     /* ka in [2, 31]                                                  */
    uint32_t radius_bits;    /* kr in [1, 31] per exponential uniform                          */
    uint32_t scale_num;      /* B                                                              */
    uint32_t shift;          /* 1..62                                                          */
    int64_t lo, hi, step;    /* box [lo, hi]^2 as above, and 2 (hi - lo + step) < 2^32         */
} fxdp_planar_laplace_fixed_params;
/* The raw noise vector of one release (bits(ka), bits(kr), bits(kr)). */
fxdp_status fxdp_planar_laplace_fixed_noise(fxdp_rng *r, const fxdp_planar_laplace_fixed_params *p,
                                            int64_t *dx, int64_t *dy);
fxdp_status fxdp_planar_laplace_fixed(fxdp_rng *r, const fxdp_planar_laplace_fixed_params *p,
                                      int64_t x, int64_t y, int64_t *out_x, int64_t *out_y,
                                      uint8_t *exception);

/* Exact-grid alternatives: x snapped to the step grid plus discrete_laplace(s, t) grid steps,
 * censored to [lo, hi] (s, t >= 1; box as above).  Planar: x then y, two draws. */
fxdp_status fxdp_laplace_grid(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi, int64_t step,
                              int64_t x, int64_t *out);
fxdp_status fxdp_planar_laplace_grid(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                     int64_t step, int64_t x, int64_t y, int64_t *out_x, int64_t *out_y);

/* Exporter entry points (fxdp/export): the exception value is written as INT64_MIN; outputs
 * are written only on FXDP_OK.  Config of the exact-grid forms: */
typedef struct fxdp_laplace_grid_cfg {
    uint32_t s, t;           /* noise discrete_laplace(s, t) in grid steps (s, t >= 1)          */
    int64_t lo, hi, step;    /* box as fxdp_laplace_fixed_params                               */
} fxdp_laplace_grid_cfg;
/* 1-D fixed-point Laplace: out[0] = fxdp_laplace_fixed(x[0]), or INT64_MIN for the exception. */
fxdp_status fxdp_laplace_fixed_release(fxdp_rng *r, const fxdp_laplace_fixed_params *cfg, const int64_t *x,
                                       int64_t *out);
/* Planar fixed-point Laplace of (x[0], x[1]): out[0..1], both INT64_MIN for the exception. */
fxdp_status fxdp_planar_laplace_fixed_release(fxdp_rng *r, const fxdp_planar_laplace_fixed_params *cfg,
                                              const int64_t *x, int64_t *out);
/* Exact grid: out[0] = fxdp_laplace_grid(cfg, x[0]). */
fxdp_status fxdp_laplace_grid_release(fxdp_rng *r, const fxdp_laplace_grid_cfg *cfg, const int64_t *x,
                                      int64_t *out);
/* Exact planar grid: out[0..1] = fxdp_planar_laplace_grid(cfg, x[0], x[1]). */
fxdp_status fxdp_planar_laplace_grid_release(fxdp_rng *r, const fxdp_laplace_grid_cfg *cfg, const int64_t *x,
                                             int64_t *out);

#endif /* FXDP_H */
