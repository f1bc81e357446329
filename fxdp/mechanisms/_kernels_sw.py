"""Numba kernels of the Square Wave mechanism (fxdp/mechanisms/square_wave.py).

On the grid SW is the grid Piecewise mechanism's band sampler with SW's window width w, so each
release is ``_kernels_pm._pm_one`` (the same draws, in the same order, as SquareWave.release,
lazy and constant time):

* ``release_square_wave(state, a, w, prob_bits, bits, ct, i)`` -> ``(status, j)``
  (j meaningful only on success)
* ``fleet_square_wave(key, ids, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out)``
  (x: int64[n] grid indices, out: int64[n] cell indices; lane-seeded device states)
"""
from __future__ import annotations

import numba
import numpy as np

from ..samplers import _kernels as K
from ..samplers._kernels import OK, STATUS, STATE_WORDS
from ..samplers._nb_lanes import LANES
from ._kernels_mech import CHUNK, _pos, _seed_dev_lanes
from ._kernels_pm import _pm_one

_jit = numba.njit(cache=True, nogil=True, _nrt=False)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
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


@_jit
def _chunk_sw(state, lanes, key, device_ids, lo, hi, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for n in range(lo, hi):
        _seed_dev_lanes(state, lanes, key, device_ids, n, lo, hi, first_block)
        st, j = _pm_one(state, a, w, prob_bits, bits, ct, x[n])
        status[n] = np.uint8(st)
        if st == OK:
            out[n] = np.int64(j)
        if want_bits:
            bits_out[n] = _pos(state)


@_pjit
def fleet_square_wave(key, device_ids, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_sw(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a, w, prob_bits, bits, ct, x, out, status, bits_out)
