/*
 * fxdp_table.c -- constant-time sampling from an integer cumulative table.
 *
 * One k-bit draw x, then index = #{i : thresholds[i] <= x} counted over the
 * whole table with branch-free comparisons: the instructions executed, the
 * memory read and the bits consumed depend only on k and n_thresholds.
 */
#include "fxdp_internal.h"

fxdp_status fxdp_i_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds,
                                   unsigned k, uint32_t *index)
{
    uint32_t x, i, below = 0;

    if (fxdp_i_bits(r, k, &x) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    for (i = 0; i < n_thresholds; i++) {
        below += fxdp_i_ct_gt32(thresholds[i], x);    /* thresholds[i] > x */
    }
    *index = n_thresholds - below;
    return FXDP_OK;
}

uint32_t fxdp_i_table_count_gt(const uint32_t *thresholds, uint32_t n, uint32_t x)
{
    uint32_t i, below = 0;

#if FXDP_I_PROGMEM
    if (n != 0u) {
        below = fxdp_i_avr_count_gt(thresholds, n, x, 0);
    }
    (void)i;
#else
    for (i = 0; i < n; i++) {
        below += fxdp_i_ct_gt32(thresholds[i], x);
    }
#endif
    return below;
}

#if FXDP_I_PROGMEM
uint32_t fxdp_i_table_count_gt_rom(const uint32_t *thresholds, uint32_t n, uint32_t x)
{
    return n != 0u ? fxdp_i_avr_count_gt(thresholds, n, x, 1) : 0u;
}
#endif

fxdp_status fxdp_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds, unsigned k,
                                 uint32_t *index)
{
    uint32_t v;
    fxdp_status st;

    if (r == NULL || index == NULL || k < 1u || k > 32u || (thresholds == NULL && n_thresholds != 0u)) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = fxdp_i_table_sample_ct(r, thresholds, n_thresholds, k, &v);
    }
    if (st == FXDP_OK) {
        *index = v;
    }
    return st;
}
