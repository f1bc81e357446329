/*
 * fxdp_mech_coin_flip.h -- layer 4: the toy family's entry point (tests/coin_flip/).  A family
 * kept outside fxdp has its prototype beside its C file, not in fxdp.h; the exporter reads it
 * from there (the header of a source named in device_spec()["sources"]).
 */
#ifndef FXDP_MECH_COIN_FLIP_H
#define FXDP_MECH_COIN_FLIP_H

#include "fxdp.h"

typedef struct fxdp_coin_flip_cfg {
    uint64_t a;           /* keep with probability a / 2^k, in [1/2, 1) */
    uint8_t k;            /* 1..32 */
} fxdp_coin_flip_cfg;
/* out[0] = x[0] kept with probability a / 2^k, else flipped; x[0] in {0, 1}.  Lazy Bernoulli
 * (fxdp_bernoulli_dyadic: the bits used reveal the draw); on failure out is not written. */
fxdp_status fxdp_coin_flip(fxdp_rng *r, const fxdp_coin_flip_cfg *cfg, const uint8_t *x, uint8_t *out);

#endif
