/*
 * fxdp_mech_coin_flip.c -- layer 4: the toy family (tests/coin_flip/), a C file of a family kept
 * outside fxdp: it calls only the public samplers of fxdp.h.  Its Numba twin is
 * _kernels_coin_flip.py and its reference CoinFlip.release; tests/test_toy_mechanism.py holds
 * all three to the same bits on the host and the emulators.
 */
#include "fxdp_mech_coin_flip.h"

fxdp_status fxdp_coin_flip(fxdp_rng *r, const fxdp_coin_flip_cfg *cfg, const uint8_t *x, uint8_t *out)
{
    uint8_t keep;
    fxdp_status st;

    if (r == NULL || cfg == NULL || x == NULL || out == NULL || cfg->k < 1u || cfg->k > 32u ||
        cfg->a < (UINT64_C(1) << (cfg->k - 1u)) || cfg->a >= (UINT64_C(1) << cfg->k) || *x > 1u) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_bernoulli_dyadic(r, cfg->a, cfg->k, &keep);
    if (st != FXDP_OK) {
        return st;
    }
    *out = (uint8_t)(*x ^ keep ^ 1u);           /* keep ? x : !x */
    return FXDP_OK;
}
