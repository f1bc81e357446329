/*
 * eva_common.h -- shared environment of the Frama-C Eva drivers (tools/eva/drivers/*.c).
 *
 * Every driver eva_<entry>() calls the public entry point fxdp_<entry> of csrc/fxdp.h once,
 * with every scalar over its whole type, config structs arbitrary (every field over its whole
 * type, pointer fields valid or NULL), input/output pointers valid or NULL where the contract
 * allows, and the rng in every mode (eva_rng below).  Eva then proves, for all these inputs at
 * once, that the call has no undefined behaviour (each alarm it cannot discharge is reported
 * by tools/eva/run_eva.py).
 */
#ifndef FXDP_EVA_COMMON_H
#define FXDP_EVA_COMMON_H

#include "__fc_builtin.h"
#include "fxdp.h"

#define EVA_ANY(T, v) do { Frama_C_make_unknown((char *)&(v), sizeof(T)); } while (0)

static inline uint8_t any_u8(void) { return Frama_C_unsigned_char_interval(0, 255); }
static inline uint32_t any_u32(void) { return Frama_C_unsigned_int_interval(0u, 0xFFFFFFFFu); }
static inline int32_t any_i32(void) { return Frama_C_int_interval(INT32_MIN, INT32_MAX); }
static inline uint64_t any_u64(void) { return Frama_C_unsigned_long_long_interval(0u, UINT64_MAX); }
static inline int64_t any_i64(void) { return Frama_C_long_long_interval(INT64_MIN, INT64_MAX); }
static inline size_t any_size(void) { return Frama_C_size_t_interval(0u, SIZE_MAX); }
static inline unsigned any_unsigned(void) { return Frama_C_unsigned_int_interval(0u, 0xFFFFFFFFu); }
static inline int any_int(void) { return Frama_C_int_interval(INT32_MIN, INT32_MAX); }
static inline int any_bool(void) { return Frama_C_interval(0, 1); }

/* p or NULL */
#define EVA_OR_NULL(p) (any_bool() ? (p) : NULL)

/* Fill a buffer with arbitrary bytes. */
static inline void eva_unknown(void *p, size_t n) { Frama_C_make_unknown((char *)p, n); }

/* The board hook of the port contract: may write any bytes to out[0..n) (or nothing), and
 * returns any int (0 = success, anything else = failure). */
static int eva_fill(void *ctx, uint8_t *out, size_t n)
{
    (void)ctx;
    if (any_bool()) {
        eva_unknown(out, n);
    }
    return any_int();
}

static uint32_t eva_words[16];
static uint32_t eva_key[8];
static uint32_t eva_nonce[3];
static int eva_ctx;

/*
 * The rng in every mode, with every input arbitrary:
 *   keyed (init_keyed / init_seed: any key, nonce; NULL key or nonce gives a dead rng),
 *   replay (any words, any length n, words NULL or not),
 *   hook (eva_fill, or a NULL fill), DRBG keyed by eva_fill (which may fail),
 * and then, optionally, any value of the FXDP_RNG_SHARED_WORDS words shared with the Numba
 * kernels (a corrupt shared state: any mode, counter, block, word_pos, bitbuf, bitcount,
 * status, block_len), which also stands for the state after any history of draws.
 */
static void eva_rng(fxdp_rng *r)
{
    eva_unknown(eva_key, sizeof eva_key);
    eva_unknown(eva_nonce, sizeof eva_nonce);
    eva_unknown(eva_words, sizeof eva_words);
    switch (Frama_C_interval(0, 4)) {
    case 0:
        fxdp_rng_init_keyed(r, EVA_OR_NULL(eva_key), EVA_OR_NULL(eva_nonce));
        break;
    case 1:
        fxdp_rng_init_seed(r, EVA_OR_NULL(eva_key), any_u32(), any_u32(), any_u32());
        break;
    case 2:
        (void)fxdp_rng_init_replay(r, EVA_OR_NULL(eva_words), any_u32());
        break;
    case 3:
        fxdp_rng_init_hook(r, EVA_OR_NULL(eva_fill), &eva_ctx);
        break;
    default:
        (void)fxdp_rng_init_drbg(r, EVA_OR_NULL(eva_fill), &eva_ctx);
        break;
    }
    if (any_bool()) {
        eva_unknown(r, FXDP_RNG_SHARED_WORDS * sizeof(uint32_t));
    }
}

/* An rng or NULL. */
static fxdp_rng eva_rng_state;
static inline fxdp_rng *eva_rng_or_null(void)
{
    eva_rng(&eva_rng_state);
    return EVA_OR_NULL(&eva_rng_state);
}

#endif /* FXDP_EVA_COMMON_H */
