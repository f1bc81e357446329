/* Eva drivers: the full RAPPOR client of csrc/fxdp.h.  cfg and device arbitrary; buffers the
 * largest any valid cfg needs (block: MAX_VALUE_BYTES, out: MAX_K (+2), positions: MAX_H). */
#include "eva_common.h"

#define FLEET_MAX 4096u   /* fleet: n devices, n in 0..FLEET_MAX (rows of the largest cfg) */

static fxdp_rappor_full_cfg cfg;
static fxdp_rappor_full_device dev;
static uint8_t key[16];
static uint8_t msg[1024];
static uint8_t value[FXDP_RAPPOR_FULL_MAX_VALUE_BYTES];
static uint8_t block[FXDP_RAPPOR_FULL_MAX_VALUE_BYTES];
static uint8_t out[FXDP_RAPPOR_FULL_MAX_K + 2u];
static uint32_t positions[FXDP_RAPPOR_FULL_MAX_H];
static uint32_t seed[8];
static uint64_t ids[FLEET_MAX];
static uint8_t blocks[FLEET_MAX * FXDP_RAPPOR_FULL_MAX_VALUE_BYTES];
static uint8_t outs[FLEET_MAX * (FXDP_RAPPOR_FULL_MAX_K + 2u)];
static uint8_t status[FLEET_MAX];

static void any_cfg(void)
{
    eva_unknown(&cfg, sizeof cfg);
    eva_unknown(&dev, sizeof dev);
    eva_unknown(block, sizeof block);
}

void eva_siphash24(void)
{
    eva_unknown(key, sizeof key);
    eva_unknown(msg, sizeof msg);
    (void)fxdp_siphash24(EVA_OR_NULL(key), EVA_OR_NULL(msg), Frama_C_size_t_interval(0u, sizeof msg));
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
    any_cfg();
    (void)fxdp_rappor_full_bloom(EVA_OR_NULL(&cfg), any_u32(), EVA_OR_NULL(block), EVA_OR_NULL(positions));
}

void eva_rappor_full_prr(void)
{
    any_cfg();
    (void)fxdp_rappor_full_prr(EVA_OR_NULL(&cfg), EVA_OR_NULL(&dev), EVA_OR_NULL(block), EVA_OR_NULL(out));
}

void eva_rappor_full_report(void)
{
    any_cfg();
    (void)fxdp_rappor_full_report(EVA_OR_NULL(&cfg), EVA_OR_NULL(&dev), eva_rng_or_null(), EVA_OR_NULL(block),
                                  EVA_OR_NULL(out));
}

void eva_rappor_full_release(void)
{
    any_cfg();
    (void)fxdp_rappor_full_release(eva_rng_or_null(), EVA_OR_NULL(&cfg), EVA_OR_NULL(block), EVA_OR_NULL(out));
}

void eva_rappor_full_fleet(void)
{
    any_cfg();
    eva_unknown(seed, sizeof seed);
    eva_unknown(ids, sizeof ids);
    eva_unknown(blocks, sizeof blocks);
    (void)fxdp_rappor_full_fleet(EVA_OR_NULL(&cfg), EVA_OR_NULL(seed), EVA_OR_NULL(ids), EVA_OR_NULL(blocks),
                                 Frama_C_size_t_interval(0u, FLEET_MAX), EVA_OR_NULL(outs), EVA_OR_NULL(status));
}
