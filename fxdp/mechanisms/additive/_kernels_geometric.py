"""Layer 4, Numba kernels of the bounded two-sided geometric mechanism
(fxdp.mechanisms.additive.geometric is the reference; csrc/fxdp_mech_geometric.c the C).

* ``release_geometric(state, mode, s, t, lo, hi, thresholds, k, width, x) -> (status, int64)``
* ``release_geometric_vec(..., xs, out) -> status`` (all of out or nothing)
* ``fleet_geometric(key, ids, first_block, mode, s, t, lo, hi, thresholds, k, width, x, out,
  status, bits_out)`` (x, out: n x d; scalar releases are d = 1)

``mode``: 0 = scale 0 (no noise, no bits), 1 = lazy, 2 = constant time.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._nb_lanes import LANES, fast_bits_used, restart_device, start_device_fast
from ...samplers._kernels import (ERR_ENTROPY, ERR_PARAM, OK, STATE_WORDS, STATUS, _load, _rd_laplace,
                                  _rd_table, _store)
from .._kernels_common import CHUNK, _I0, _clamp, _pos, _sat_add_clamp
from ...samplers._nb_jit import ijit, jit, jit_nrt, pjit

MODE_NONE = 0            # scale 0
MODE_LAZY = 1
MODE_CT = 2


# --------------------------------------------------------------------------
# one release, unchecked (typed arguments; the callers validate).  The bit
# buffer travels in (buf, c) as in the sampler kernels: _x_rd(state, buf, c,
# ...) -> (status, value, buf, c); on failure (buf, c) are those before the
# failed fetch, so storing them keeps the stream position the reference has.

@ijit
def _geo_rd(state, buf, c, mode, s, t, lo, hi, thresholds, k, width, x):
    """Geometric.release_one; mode 0/1/2; s, t, k uint64; lo, hi, width, x int64."""
    if mode == MODE_NONE:
        return OK, _clamp(x, lo, hi), buf, c
    if mode == MODE_CT:
        xc = _clamp(x, lo, hi)
        st, idx, buf, c = _rd_table(state, buf, c, thresholds, k)
        if st != OK:
            return st, _I0, buf, c
        return OK, _clamp(xc + (idx - width), lo, hi), buf, c
    st, z, buf, c = _rd_laplace(state, buf, c, s, t)
    if st != OK:
        return st, _I0, buf, c
    return OK, _sat_add_clamp(x, z, lo, hi), buf, c


@ijit
def _geo_row(state, mode, s, t, lo, hi, thresholds, k, width, xrow, outrow):
    buf, c = _load(state)
    for i in range(xrow.shape[0]):
        st, y, buf, c = _geo_rd(state, buf, c, mode, s, t, lo, hi, thresholds, k, width, xrow[i])
        if st != OK:
            _store(state, buf, c)
            return st
        outrow[i] = y
    _store(state, buf, c)
    return OK


# --------------------------------------------------------------------------
# public single releases (state status first; outputs only on success)

@jit
def release_geometric(state, mode, s, t, lo, hi, thresholds, k, width, x):
    """(status, int64): one geometric release of the int64 x (mode 0/1/2, see module doc)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    buf, c = _load(state)
    st, y, buf, c = _geo_rd(state, buf, c, np.int64(mode), np.uint64(s), np.uint64(t), np.int64(lo),
                            np.int64(hi), thresholds, np.uint64(k), np.int64(width), np.int64(x))
    _store(state, buf, c)
    return st, y


@jit_nrt
def release_geometric_vec(state, mode, s, t, lo, hi, thresholds, k, width, x, out):
    """status; out[:] = the released vector (int64), written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if x.shape[0] != out.shape[0]:
        return ERR_PARAM
    tmp = np.empty(x.shape[0], dtype=np.int64)
    st = _geo_row(state, np.int64(mode), np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi),
                  thresholds, np.uint64(k), np.int64(width), x, tmp)
    if st == OK:
        out[:] = tmp
    return st


# --------------------------------------------------------------------------
# fleet: devices in parallel, CHUNK at a time (fxdp.mechanisms._kernels_common)

@jit
def _chunk_geometric(state, lanes, tmp, key, device_ids, lo, hi, first_block, mode, s, t, lo_b, hi_b,
                     thresholds, k, width, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st = _geo_row(state, mode, s, t, lo_b, hi_b, thresholds, k, width, x[i], tmp)
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            for j in range(tmp.shape[0]):
                out[i, j] = tmp[j]
        if want_bits:
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@pjit
def fleet_geometric(key, device_ids, first_block, mode, s, t, lo, hi, thresholds, k, width,
                    x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        tmp = np.empty(x.shape[1], dtype=np.int64)
        _chunk_geometric(state, lanes, tmp, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK),
                         first_block, mode, s, t, lo, hi, thresholds, k, width, x, out, status,
                         bits_out)
