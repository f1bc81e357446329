/*
 * fxdp_mech_square_wave.c -- the Square Wave mechanism for a bounded reading (Li et al.,
 * SIGMOD 2020) on a grid: input x = grid index in [0, 2^bits], output one cell j
 * of 2^bits + w; the w cells [x, x + w) (the high-probability window, centred on
 * x's reading) have probability a/2^prob_bits each, every other cell
 * (2^prob_bits - w a)/2^(prob_bits + bits).
 *
 * On the grid SW has the grid Piecewise mechanism's shape (a window of w cells
 * moving one cell per input step over 2^bits outside cells); only w differs
 * (2 b 2^bits for SW's optimal b, not 2^bits e^(-eps/2)) and the server's use
 * of the reports (EMS).  So each entry point is a tail call into the matching
 * Piecewise entry point (csrc/fxdp_mech_piecewise.c: its checks, its bits, its
 * constant-time form; fxdp_square_wave_cfg is fxdp_piecewise_cfg): one reviewed sampler, no
 * extra stack frame, and only the form used is linked.  Definition and bit use:
 * fxdp/mechanisms/readings/square_wave.py (SquareWave.release); the Numba twin is
 * fxdp/mechanisms/readings/_kernels_square_wave.py.  out is written only on FXDP_OK.
 */
#include "fxdp_internal.h"

fxdp_status fxdp_square_wave(fxdp_rng *r, const fxdp_square_wave_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    return fxdp_piecewise(r, cfg, x, out);
}

fxdp_status fxdp_square_wave_ct(fxdp_rng *r, const fxdp_square_wave_cfg *cfg, const uint32_t *x, uint32_t *out)
{
    return fxdp_piecewise_ct(r, cfg, x, out);
}
