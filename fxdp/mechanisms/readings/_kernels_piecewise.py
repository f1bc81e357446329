"""Numba kernels of the Piecewise-mechanism family (fxdp/mechanisms/readings/piecewise.py).

* ``release_piecewise(state, a, w, prob_bits, bits, ct, i)`` -> ``(status, j)``
  (j meaningful only on success)
* ``fleet_piecewise(key, ids, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out)``
  (x: int64[n] grid indices, out: int64[n] cell indices)

The same draws, in the same order, as Piecewise.release (lazy and constant time).
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import (OK, STATUS, STATE_WORDS, _load, _rd_bits64, _rd_dyadic, _rd_uniform_below,
                                  _store)
from ...samplers._nb_lanes import LANES
from .._kernels_common import CHUNK, _pos, _seed_dev_lanes
from ...samplers._nb_jit import ijit, jit, pjit


_U0 = np.uint64(0)


@ijit
def _pm_one(state, a, w, prob_bits, bits, ct, i):
    """(status, j) for grid index i (uint64 parameters)."""
    buf, c = _load(state)
    iu = np.uint64(i)
    if ct:
        st, U, buf, c = _rd_bits64(state, buf, c, prob_bits)
        if st != OK:
            _store(state, buf, c)
            return st, _U0
        st, u, buf, c = _rd_bits64(state, buf, c, bits)
        _store(state, buf, c)
        if st != OK:
            return st, _U0
        if U < w * a:
            return OK, iu + U // a
        return OK, (u + w if u >= iu else u)
    st, b, buf, c = _rd_dyadic(state, buf, c, w * a, prob_bits)
    if st != OK:
        _store(state, buf, c)
        return st, _U0
    if b:
        st, v, buf, c = _rd_uniform_below(state, buf, c, w)
        _store(state, buf, c)
        if st != OK:
            return st, _U0
        return OK, iu + v
    st, u, buf, c = _rd_bits64(state, buf, c, bits)
    _store(state, buf, c)
    if st != OK:
        return st, _U0
    return OK, (u + w if u >= iu else u)


@jit
def _pm_one_call(state, a, w, prob_bits, bits, ct, i):
    """_pm_one as a called (not inlined) function: Hybrid and the multi-dimensional readings call
    it from several places, and Numba's IR inlining of each copy costs seconds of compile."""
    return _pm_one(state, a, w, prob_bits, bits, ct, i)


@jit
def release_piecewise(state, a, w, prob_bits, bits, ct, i):
    """(status, j) for grid index i in [0, 2^bits]; j is 0 unless the status is OK."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, np.int64(0)
    if bits < 1 or bits > 24 or prob_bits < 2 or prob_bits > 32 or w < 1 or i < 0 or i > (np.int64(1) << bits):
        return K.ERR_PARAM, np.int64(0)
    st, j = _pm_one(state, np.uint64(a), np.uint64(w), np.uint64(prob_bits), np.uint64(bits), ct, np.int64(i))
    return st, np.int64(j)


@jit
def _chunk_pm(state, lanes, key, device_ids, lo, hi, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for n in range(lo, hi):
        _seed_dev_lanes(state, lanes, key, device_ids, n, lo, hi, first_block)
        st, j = _pm_one(state, a, w, prob_bits, bits, ct, x[n])
        status[n] = np.uint8(st)
        if st == OK:
            out[n] = np.int64(j)
        if want_bits:
            bits_out[n] = _pos(state)


@pjit
def fleet_piecewise(key, device_ids, first_block, a, w, prob_bits, bits, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_pm(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a, w, prob_bits, bits, ct, x, out, status, bits_out)
