/* Eva drivers: the full RAPPOR client of csrc/fxdp.h.  cfg and device arbitrary; buffers the
 * largest any valid cfg needs (block: MAX_VALUE_BYTES, out: MAX_K (+2), positions: MAX_H). */
#include "eva_common.h"

static fxdp_rappor_full_cfg cfg;
static fxdp_rappor_full_device dev;
static uint8_t key[16];
static uint8_t msg[1024];
static uint8_t value[FXDP_RAPPOR_FULL_MAX_VALUE_BYTES];
static uint8_t block[FXDP_RAPPOR_FULL_MAX_VALUE_BYTES];
static uint8_t out[FXDP_RAPPOR_FULL_MAX_K + 2u];
static uint32_t positions[FXDP_RAPPOR_FULL_MAX_H];

static void any_cfg(void)
{
    eva_unknown(&cfg, sizeof cfg);
    eva_unknown(&dev, sizeof dev);
    eva_unknown(block, sizeof block);
}

/*
 * Parts.  SipHash absorbs len bytes as len - len % 8 whole words and then j <= len % 8 tail bytes
 * (data[full + j - 1]); Eva bounds full and j separately unless len % 8 is one constant.  So the
 * message length, and cfg->value_bytes (the length hashed by the Bloom filter), are analysed in
 * the 8 parts of their value mod 8 (Eva's split annotation keeps each a separate state); the
 * union of the parts is every value.
 */
static void vb_part(uint32_t m8)
{
    cfg.value_bytes = 8u * Frama_C_unsigned_int_interval(0u, UINT32_MAX / 8u) + m8;    /* 8 q + m8 */
}

void eva_siphash24(void)
{
    eva_unknown(key, sizeof key);
    eva_unknown(msg, sizeof msg);
    size_t len = Frama_C_size_t_interval(0u, sizeof msg);
    /*@ split len % 8u; */      /* 8 parts (see vb_part) */
    (void)fxdp_siphash24(EVA_OR_NULL(key), EVA_OR_NULL(msg), len);
}

void eva_rappor_full_check(void)
{
    any_cfg();
    (void)fxdp_rappor_full_check(EVA_OR_NULL(&cfg));
}

void eva_rappor_full_encode(void)
{
    any_cfg();
    eva_unknown(value, sizeof value);
    (void)fxdp_rappor_full_encode(EVA_OR_NULL(&cfg), EVA_OR_NULL(value), any_size(), EVA_OR_NULL(block));
}

void eva_rappor_full_provision(void)
{
    fxdp_rappor_full_device d;
    any_cfg();
    (void)fxdp_rappor_full_provision(EVA_OR_NULL(&cfg), eva_rng_or_null(), EVA_OR_NULL(&d));
}

void eva_rappor_full_bloom(void)
{
    uint32_t m8 = Frama_C_unsigned_int_interval(0u, 7u);
    /*@ split m8; */
    any_cfg();
    vb_part(m8);
    (void)fxdp_rappor_full_bloom(EVA_OR_NULL(&cfg), any_u32(), EVA_OR_NULL(block), EVA_OR_NULL(positions));
}

void eva_rappor_full_prr(void)
{
    uint32_t m8 = Frama_C_unsigned_int_interval(0u, 7u);
    /*@ split m8; */
    any_cfg();
    vb_part(m8);
    (void)fxdp_rappor_full_prr(EVA_OR_NULL(&cfg), EVA_OR_NULL(&dev), EVA_OR_NULL(block), EVA_OR_NULL(out));
}

void eva_rappor_full_report(void)
{
    uint32_t m8 = Frama_C_unsigned_int_interval(0u, 7u);
    /*@ split m8; */
    any_cfg();
    vb_part(m8);
    (void)fxdp_rappor_full_report(EVA_OR_NULL(&cfg), EVA_OR_NULL(&dev), eva_rng_or_null(), EVA_OR_NULL(block),
                                  EVA_OR_NULL(out));
}

void eva_rappor_full_release(void)
{
    uint32_t m8 = Frama_C_unsigned_int_interval(0u, 7u);
    /*@ split m8; */
    any_cfg();
    vb_part(m8);
    (void)fxdp_rappor_full_release(eva_rng_or_null(), EVA_OR_NULL(&cfg), EVA_OR_NULL(block), EVA_OR_NULL(out));
}

static fxdp_rappor_full_work rw;        /* the _w form's workspace: static, any prior contents */

void eva_rappor_full_release_w(void)
{
    uint32_t m8 = Frama_C_unsigned_int_interval(0u, 7u);
    /*@ split m8; */
    any_cfg();
    vb_part(m8);
    eva_unknown(&rw, sizeof rw);
    (void)fxdp_rappor_full_release_w(eva_rng_or_null(), EVA_OR_NULL(&cfg), EVA_OR_NULL(block), EVA_OR_NULL(out),
                                     EVA_OR_NULL(&rw));
}
