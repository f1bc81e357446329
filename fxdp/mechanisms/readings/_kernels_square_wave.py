"""Numba kernels of the Square Wave mechanism (fxdp/mechanisms/readings/square_wave.py).

On the grid SW is the grid Piecewise mechanism's band sampler with SW's window width w, so each
release is ``_kernels_piecewise._pm_one`` (the same draws, in the same order, as SquareWave.release,
lazy and constant time):

* ``release_square_wave(state, a, w, prob_bits, bits, ct, i)`` -> ``(status, j)``
  (j meaningful only on success)
* ``fleet_square_wave(key, ids, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out)``
  (x: int64[n] grid indices, out: int64[n] cell indices; lane-seeded device states): the kernel
  ``_kernels_piecewise.fleet_piecewise`` itself, run with SW's w (fleets take realized parameters
  unchecked; SquareWave's w is in [1, 2^bits] by construction)
"""
from __future__ import annotations

import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import OK, STATUS
from ._kernels_piecewise import _pm_one, fleet_piecewise
from ...samplers._nb_jit import jit



@jit
def release_square_wave(state, a, w, prob_bits, bits, ct, i):
    """(status, j) for grid index i in [0, 2^bits]; j is 0 unless the status is OK."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, np.int64(0)
    if (bits < 1 or bits > 24 or prob_bits < 2 or prob_bits > 32 or w < 1 or w > (np.int64(1) << bits)
            or i < 0 or i > (np.int64(1) << bits)):
        return K.ERR_PARAM, np.int64(0)
    st, j = _pm_one(state, np.uint64(a), np.uint64(w), np.uint64(prob_bits), np.uint64(bits), ct, np.int64(i))
    return st, np.int64(j)


# On the grid SW's fleet is Piecewise's: the same per-device loop over _pm_one.
fleet_square_wave = fleet_piecewise
