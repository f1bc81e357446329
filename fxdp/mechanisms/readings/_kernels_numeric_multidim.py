"""Numba kernels of the multi-dimensional numeric form (fxdp/mechanisms/readings/numeric_multidim.py).

Each device reads exactly the bits of ``NumericMultiDim.release``: Floyd's k uniform draws
(``_rd_uniform_below(j + 1)`` for j = d - k, ..., d - 1; S gets j when t is already in S), then,
for the attributes of S in increasing order, the base mechanism's draws (``_duchi_one``,
``_pm_one`` or ``_hm_one``, the 1-dim kernels).  Bit-identical to csrc/fxdp_mech_numeric_multidim.c.

* ``release_numeric_multidim(state, base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x, tmp, out)``
  -> status (x: int64[d] grid indices; tmp: int64[2k] scratch; out: int64[2k], written only on OK)
* ``fleet_numeric_multidim(key, ids, first_block, base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x,
  out, status, bits_out)`` (x: int64[n, d], out: int64[n, 2k])

base: 0 Duchi, 1 Piecewise, 2 Hybrid (``BASE_CODE``).  ct: 0 lazy, 1 constant time with Floyd's
rejection draws (uniform_version 1), 2 constant time with the fixed-budget ``_rd_uniform_below_ct``
(uniform_version 2; ERR_RANGE after Floyd's draws when a budget ran out).
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import (ERR_RANGE, OK, STATUS, STATE_WORDS, _load, _rd_uniform_below,
                                  _rd_uniform_below_ct, _store)
from ...samplers._nb_lanes import LANES
from ._kernels_duchi import _duchi_one_call
from ._kernels_hybrid import _hm_one
from .._kernels_common import CHUNK, _pos, _seed_dev_lanes
from ._kernels_piecewise import _pm_one_call
from ...samplers._nb_jit import ijit, jit, pjit



@ijit
def _md_one(state, base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x, tmp):
    """status; on OK tmp[:2k] holds the report (sampled attributes increasing, then reports).
    The base draws are called, not inlined: inlined here, with every base's draws (Hybrid holding
    Piecewise and Duchi again, each with both branches of ct), the first compile of the fleet took
    42 s on a 2-core machine; called, 16 s."""
    buf, c = _load(state)
    st = OK
    n_sel = 0
    ok = True
    for j in range(d - k, d):
        if ct == 2:                             # uniform_version 2: the fixed budget (issue 32)
            st, t, buf, c = _rd_uniform_below_ct(state, buf, c, np.uint64(j + 1))
            if st == ERR_RANGE:
                st, t, ok = OK, np.uint64(0), False
        else:
            st, t, buf, c = _rd_uniform_below(state, buf, c, np.uint64(j + 1))
        if st != OK:
            break
        v = np.int64(t)
        for q in range(n_sel):                  # Floyd: j if t is already chosen (j is not yet)
            if tmp[q] == v:
                v = np.int64(j)
                break
        q = n_sel                               # insertion keeps tmp[:n_sel] increasing
        while q > 0 and tmp[q - 1] > v:
            tmp[q] = tmp[q - 1]
            q -= 1
        tmp[q] = v
        n_sel += 1
    _store(state, buf, c)
    if st == OK and not ok:                     # a budget ran out: nothing released
        st = ERR_RANGE
    if st != OK:
        return st
    # the base draws take ct as a bool, as Hybrid's and the one-attribute fleets pass it: an int64
    # would be another signature, so another compile of each (Numba compiles one per argument type)
    ctb = ct != 0
    for q in range(k):
        i = x[tmp[q]]
        y = np.int64(0)
        if base == 0:
            st, bit = _duchi_one_call(state, base_num, slope, prob_bits + bits, ctb, i)
            y = np.int64(1) if bit else np.int64(0)
        elif base == 1:
            st, j = _pm_one_call(state, a, w, prob_bits, bits, ctb, i)
            y = np.int64(j)
        else:
            st, s = _hm_one(state, b, a, w, prob_bits, bits, base_num, slope, ctb, i)
            y = np.int64(s)
        if st != OK:
            return st
        tmp[k + q] = y
    return OK


@jit
def release_numeric_multidim(state, base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x, tmp, out):
    """status of one release of the d grid indices x; out[:2k] written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    n_levels = (np.int64(1) << bits) + 1
    if base < 0 or base > 2 or bits < 1 or bits > 24 or prob_bits < 2 or prob_bits > 32 or d < 1 or k < 1 \
            or k > d or x.shape[0] < d or tmp.shape[0] < 2 * k or out.shape[0] < 2 * k:
        return K.ERR_PARAM
    for q in range(d):
        if x[q] < 0 or x[q] >= n_levels:
            return K.ERR_PARAM
    st = _md_one(state, np.int64(base), np.uint64(b), np.uint64(a), np.uint64(w), np.uint64(prob_bits),
                 np.uint64(bits), np.uint64(base_num), np.uint64(slope), ct, np.int64(d), np.int64(k), x, tmp)
    if st == OK:
        for q in range(2 * k):
            out[q] = tmp[q]
    return st


@jit
def _chunk_md(state, lanes, tmp, key, device_ids, lo, hi, first_block, base, b, a, w, prob_bits, bits, base_num,
              slope, ct, d, k, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for n in range(lo, hi):
        _seed_dev_lanes(state, lanes, key, device_ids, n, lo, hi, first_block)
        st = _md_one(state, base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x[n], tmp)
        status[n] = np.uint8(st)
        if st == OK:
            for q in range(2 * k):
                out[n, q] = tmp[q]
        if want_bits:
            bits_out[n] = _pos(state)


@pjit
def fleet_numeric_multidim(key, device_ids, first_block, base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x,
                     out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        tmp = np.zeros(2 * k, dtype=np.int64)
        _chunk_md(state, lanes, tmp, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  base, b, a, w, prob_bits, bits, base_num, slope, ct, d, k, x, out, status, bits_out)
