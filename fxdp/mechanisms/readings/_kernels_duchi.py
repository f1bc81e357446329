"""Numba kernels of the Duchi family (fxdp/mechanisms/readings/duchi.py).

* ``release_duchi(state, base_num, slope, total_bits, ct, i)`` -> ``(status, y)``
  (y meaningful only on success)
* ``fleet_duchi(key, ids, first_block, base_num, slope, total_bits, ct, x, out, status, bits_out)``
  (x: int64[n] grid indices, out: uint8[n] bits)

y = Bernoulli((base_num + slope i) / 2^total_bits), lazy or constant time, as the reference.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import OK, STATUS, STATE_WORDS, _load, _rd_dyadic, _rd_dyadic_ct, _store
from ...samplers._nb_lanes import LANES
from .._kernels_common import CHUNK, _pos, _seed_dev_lanes
from ...samplers._nb_jit import ijit, jit, pjit



@ijit
def _duchi_one(state, base_num, slope, total_bits, ct, i):
    """(status, y) for grid index i."""
    num = base_num + slope * np.uint64(i)
    buf, c = _load(state)
    if ct:
        st, b, buf, c = _rd_dyadic_ct(state, buf, c, num, total_bits)
    else:
        st, b, buf, c = _rd_dyadic(state, buf, c, num, total_bits)
    _store(state, buf, c)
    return st, b


@jit
def _duchi_one_call(state, base_num, slope, total_bits, ct, i):
    """_duchi_one as a called (not inlined) function (see _kernels_piecewise._pm_one_call)."""
    return _duchi_one(state, base_num, slope, total_bits, ct, i)


@jit
def release_duchi(state, base_num, slope, total_bits, ct, i, n_levels):
    """(status, y) for grid index i in [0, n_levels); y is 0 unless the status is OK."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, np.int64(0)
    if total_bits < 1 or total_bits > 63 or i < 0 or i >= n_levels:
        return K.ERR_PARAM, np.int64(0)
    st, b = _duchi_one(state, np.uint64(base_num), np.uint64(slope), np.uint64(total_bits), ct, np.int64(i))
    return st, np.int64(1 if b else 0)


@jit
def _chunk_duchi(state, lanes, key, device_ids, lo, hi, first_block, base_num, slope, total_bits, ct, x, out, status,
                 bits_out):
    want_bits = bits_out.shape[0] > 0
    for j in range(lo, hi):
        _seed_dev_lanes(state, lanes, key, device_ids, j, lo, hi, first_block)
        st, b = _duchi_one(state, base_num, slope, total_bits, ct, x[j])
        status[j] = np.uint8(st)
        if st == OK:
            out[j] = np.uint8(1 if b else 0)
        if want_bits:
            bits_out[j] = _pos(state)


@pjit
def fleet_duchi(key, device_ids, first_block, base_num, slope, total_bits, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_duchi(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                     base_num, slope, total_bits, ct, x, out, status, bits_out)
