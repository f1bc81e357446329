/* A stand-in mechanism for the export tests (not part of fxdp): binary
 * randomized response keep = Bernoulli(a/2^k) in either form. */
#ifndef FXDP_FAKE_RR_H
#define FXDP_FAKE_RR_H
#include "fxdp.h"

typedef struct {
    uint64_t a;
    uint8_t k;
    uint8_t ct;
    const uint32_t *table;   /* unused; checks that tables reach the config */
    uint32_t table_len;
} fxdp_fake_rr_cfg;

fxdp_status fxdp_fake_rr(fxdp_rng *r, const fxdp_fake_rr_cfg *cfg, uint8_t x, uint8_t *out);
#endif
