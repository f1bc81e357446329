/* Eva drivers: layer 2 (bit source) and layer 3 (samplers) of csrc/fxdp.h. */
#include "eva_common.h"

static uint32_t table[1u << 16];   /* thresholds: arbitrary entries (see eva_table) */

void eva_rng_init_keyed(void)
{
    fxdp_rng r;
    eva_unknown(eva_key, sizeof eva_key);
    eva_unknown(eva_nonce, sizeof eva_nonce);
    fxdp_rng_init_keyed(EVA_OR_NULL(&r), EVA_OR_NULL(eva_key), EVA_OR_NULL(eva_nonce));
}

void eva_rng_init_seed(void)
{
    fxdp_rng r;
    eva_unknown(eva_key, sizeof eva_key);
    fxdp_rng_init_seed(EVA_OR_NULL(&r), EVA_OR_NULL(eva_key), any_u32(), any_u32(), any_u32());
}

void eva_rng_init_stream(void)
{
    fxdp_rng r;
    eva_unknown(eva_key, sizeof eva_key);
    (void)fxdp_rng_init_stream(EVA_OR_NULL(&r), any_u32(), EVA_OR_NULL(eva_key), any_u32(), any_u32(), any_u32());
}

void eva_rng_init_keyed_version(void)
{
    fxdp_rng r;
    eva_unknown(eva_key, sizeof eva_key);
    eva_unknown(eva_nonce, sizeof eva_nonce);
    (void)fxdp_rng_init_keyed_version(EVA_OR_NULL(&r), any_u32(), EVA_OR_NULL(eva_key), EVA_OR_NULL(eva_nonce));
}

void eva_rng_reseed(void)
{
    fxdp_rng r;
    if (fxdp_rng_init_drbg(&r, eva_fill, (void *)&eva_ctx) == FXDP_OK) {
        uint32_t out;
        (void)fxdp_bits(&r, any_unsigned(), &out);
        (void)fxdp_rng_reseed(EVA_OR_NULL(&r));
    }
    (void)fxdp_rng_reseed(eva_rng_or_null());
}

void eva_rng_position(void)
{
    (void)fxdp_rng_position(eva_rng_or_null());
}

void eva_rng_init_drbg(void)
{
    fxdp_rng r;
    (void)fxdp_rng_init_drbg(EVA_OR_NULL(&r), EVA_OR_NULL(eva_fill), EVA_OR_NULL((void *)&eva_ctx));
}

void eva_rng_init_hook(void)
{
    fxdp_rng r;
    fxdp_rng_init_hook(EVA_OR_NULL(&r), EVA_OR_NULL(eva_fill), EVA_OR_NULL((void *)&eva_ctx));
}

void eva_rng_init_replay(void)
{
    fxdp_rng r;
    eva_unknown(eva_words, sizeof eva_words);
    (void)fxdp_rng_init_replay(EVA_OR_NULL(&r), EVA_OR_NULL(eva_words), any_u32());
}

void eva_bits(void)
{
    uint32_t out;
    (void)fxdp_bits(eva_rng_or_null(), any_unsigned(), EVA_OR_NULL(&out));
}

void eva_bits64(void)
{
    uint64_t out;
    (void)fxdp_bits64(eva_rng_or_null(), any_unsigned(), EVA_OR_NULL(&out));
}

void eva_chacha20_block(void)
{
    uint32_t out[16];
    eva_unknown(eva_key, sizeof eva_key);
    eva_unknown(eva_nonce, sizeof eva_nonce);
    fxdp_chacha20_block(eva_key, any_u32(), eva_nonce, out);
}

void eva_uniform_below_u32(void)
{
    uint32_t out;
    (void)fxdp_uniform_below_u32(eva_rng_or_null(), any_u32(), EVA_OR_NULL(&out));
}

void eva_uniform_below_ct_u32(void)
{
    uint32_t out;
    (void)fxdp_uniform_below_ct_u32(eva_rng_or_null(), any_u32(), EVA_OR_NULL(&out));
}

void eva_uniform_below_u64(void)
{
    uint64_t out;
    (void)fxdp_uniform_below_u64(eva_rng_or_null(), any_u64(), EVA_OR_NULL(&out));
}

void eva_bernoulli_dyadic(void)
{
    uint8_t out;
    (void)fxdp_bernoulli_dyadic(eva_rng_or_null(), any_u64(), any_unsigned(), EVA_OR_NULL(&out));
}

void eva_bernoulli_dyadic_ct(void)
{
    uint8_t out;
    (void)fxdp_bernoulli_dyadic_ct(eva_rng_or_null(), any_u64(), any_unsigned(), EVA_OR_NULL(&out));
}

void eva_bernoulli_block(void)
{
    uint32_t out;
    (void)fxdp_bernoulli_block(eva_rng_or_null(), any_unsigned(), any_u64(), any_u64(), any_unsigned(), any_u32(),
                               EVA_OR_NULL(&out));
}

void eva_bernoulli_block_ct(void)
{
    uint32_t out;
    (void)fxdp_bernoulli_block_ct(eva_rng_or_null(), any_unsigned(), any_u64(), any_u64(), any_unsigned(), any_u32(),
                                  EVA_OR_NULL(&out));
}

void eva_bernoulli_rational(void)
{
    uint8_t out;
    (void)fxdp_bernoulli_rational(eva_rng_or_null(), any_u64(), any_u64(), EVA_OR_NULL(&out));
}

void eva_bernoulli_exp(void)
{
    uint8_t out;
    (void)fxdp_bernoulli_exp(eva_rng_or_null(), any_u32(), any_u32(), EVA_OR_NULL(&out));
}

void eva_discrete_laplace(void)
{
    int64_t out;
    (void)fxdp_discrete_laplace(eva_rng_or_null(), any_u32(), any_u32(), EVA_OR_NULL(&out));
}

void eva_discrete_laplace_censored(void)
{
    int64_t out;
    (void)fxdp_discrete_laplace_censored(eva_rng_or_null(), any_u32(), any_u32(), any_i64(), any_i64(),
                                         EVA_OR_NULL(&out));
}

/* The table holds n_thresholds arbitrary entries, n_thresholds in 0..65536 (the geometric
 * mechanism's largest table is 65534 entries); NULL only with n == 0 is checked too. */
void eva_discrete_laplace_fast(void)
{
    static uint64_t bounds[64];     /* arbitrary boundaries: the order check decides */
    int64_t out;
    eva_unknown(bounds, sizeof bounds);
    (void)fxdp_discrete_laplace_fast(eva_rng_or_null(), EVA_OR_NULL(bounds), any_u32(), any_u32(), EVA_OR_NULL(&out));
}

void eva_table_sample_ct(void)
{
    uint32_t index;
    eva_unknown(table, sizeof table);
    (void)fxdp_table_sample_ct(eva_rng_or_null(), EVA_OR_NULL(table), Frama_C_unsigned_int_interval(0u, 1u << 16),
                               any_unsigned(), EVA_OR_NULL(&index));
}

void eva_strhash32(void)
{
    uint8_t block[255];
    uint32_t out;
    eva_unknown(eva_key, sizeof eva_key);
    eva_unknown(block, sizeof block);
    (void)fxdp_strhash32(EVA_OR_NULL(eva_key), any_u32(), EVA_OR_NULL(block), any_u32(), any_u32(), EVA_OR_NULL(&out));
}
