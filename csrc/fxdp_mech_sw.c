/*
 * fxdp_mech_sw.c -- the Square Wave mechanism for a bounded reading (Li et al.,
 * SIGMOD 2020) on a grid: input x = grid index in [0, 2^bits], output one cell j
 * of 2^bits + w; the w cells [x, x + w) (the high-probability window, centred on
 * x's reading) have probability a/2^prob_bits each, every other cell
 * (2^prob_bits - w a)/2^(prob_bits + bits).
 *
 * On the grid SW has the grid Piecewise mechanism's shape (a window of w cells
 * moving one cell per input step over 2^bits outside cells); only w differs
 * (2 b 2^bits for SW's optimal b, not 2^bits e^(-eps/2)) and the server's use
 * of the reports (EMS).  So the release is fxdp_mech_pm.c's sampler, one
 * reviewed copy: same bits, same constant-time form.  Definition and bit use:
 * fxdp/mechanisms/square_wave.py (SquareWave.release); the Numba twin is
 * fxdp/mechanisms/_kernels_sw.py.  out is written only on FXDP_OK.
 */
#include "fxdp_internal.h"

static fxdp_status sw_check(const fxdp_rng *r, const fxdp_sw_cfg *cfg, const uint32_t *x, const uint32_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (!fxdp_i_pm_ok(cfg, *x)) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

fxdp_status fxdp_square_wave(fxdp_rng *r, const fxdp_sw_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = sw_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_pm_run(r, cfg, *x, out, 0);
}

fxdp_status fxdp_square_wave_ct(fxdp_rng *r, const fxdp_sw_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    fxdp_status st = sw_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    return fxdp_i_pm_run(r, cfg, *x, out, 1);
}
