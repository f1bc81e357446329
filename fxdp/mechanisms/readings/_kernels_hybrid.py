"""Numba kernels of the Hybrid-mechanism family (fxdp/mechanisms/readings/hybrid.py): the branch choice,
then the Piecewise and / or Duchi draws of _kernels_piecewise / _kernels_duchi, in Hybrid.release's order.

* ``fleet_hybrid(key, ids, first_block, b, a, w, prob_bits, bits, base_num, slope, ct, x, out,
  status, bits_out)`` (x: int64[n] grid indices, out: int64[n] symbols)
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS, _load, _rd_dyadic, _rd_dyadic_ct, _store
from ._kernels_duchi import _duchi_one_call
from ...samplers._nb_lanes import LANES
from .._kernels_common import CHUNK, _pos, _seed_dev_lanes
from ._kernels_piecewise import _pm_one_call
from ...samplers._nb_jit import jit, pjit


_U0 = np.uint64(0)
_U1 = np.uint64(1)


@jit
def _hm_one(state, b, a, w, prob_bits, bits, base_num, slope, ct, i):
    """(status, symbol) for grid index i.  Called, not inlined, and calling the Piecewise and
    Duchi draws likewise: inlined, their four copies (both branches of ct) made the first
    compile of the Hybrid fleet 17 s on a 2-core machine; called, 10 s, at the same rate.
    They get ``ct`` itself, not a literal True / False: a literal is a type of its own, so
    literals compiled each draw twice (3 s more of the cold demo; the rate the same within
    run-to-run noise, docs/startup.md)."""
    L = (_U1 << bits) + w
    buf, c = _load(state)
    if ct:
        st, pick, buf, c = _rd_dyadic_ct(state, buf, c, b, prob_bits)
    else:
        st, pick, buf, c = _rd_dyadic(state, buf, c, b, prob_bits)
    _store(state, buf, c)
    if st != OK:
        return st, _U0
    if ct:
        st, j = _pm_one_call(state, a, w, prob_bits, bits, ct, i)
        if st != OK:
            return st, _U0
        st, y = _duchi_one_call(state, base_num, slope, prob_bits + bits, ct, i)
        if st != OK:
            return st, _U0
        return OK, (j if pick else L + (_U1 if y else _U0))
    if pick:
        return _pm_one_call(state, a, w, prob_bits, bits, ct, i)
    st, y = _duchi_one_call(state, base_num, slope, prob_bits + bits, ct, i)
    if st != OK:
        return st, _U0
    return OK, L + (_U1 if y else _U0)


@jit
def _chunk_hm(state, lanes, key, device_ids, lo, hi, first_block, b, a, w, prob_bits, bits, base_num, slope, ct, x, out,
              status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for n in range(lo, hi):
        _seed_dev_lanes(state, lanes, key, device_ids, n, lo, hi, first_block)
        st, s = _hm_one(state, b, a, w, prob_bits, bits, base_num, slope, ct, x[n])
        status[n] = np.uint8(st)
        if st == OK:
            out[n] = np.int64(s)
        if want_bits:
            bits_out[n] = _pos(state)


@pjit
def fleet_hybrid(key, device_ids, first_block, b, a, w, prob_bits, bits, base_num, slope, ct, x, out, status,
                 bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_hm(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  b, a, w, prob_bits, bits, base_num, slope, ct, x, out, status, bits_out)
