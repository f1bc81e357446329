"""Numba kernels of the hierarchical histogram (fxdp/mechanisms/ranges/hierarchical_histogram.py):
the fleet, bit for bit the reference release (the level, then k-ary randomized response's or local
hashing's per-device kernel on the level's node).  Integers only.

``fleet_hierarchical_histogram(key, ids, first_block, h, shifts, krr_levels, rr_t, rr_w0, rr_k, a_p, w,
lbits, g, prime, ct, n_leaves, x, out, status, bits_out)``: out int64[n, 4] = (t, u, v, y): (t, y, 0, 0)
at a k-ary RR level, (t, a, b, y) at a local hashing level.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS, _load, _store
from ...samplers._nb_lanes import LANES, seed_device
from .._kernels_common import CHUNK, _pos, _uniform_draw
from ..oracles._kernels_local_hashing import _lh_one
from ..oracles._kernels_randomized_response import _rr_rd
from ...samplers._nb_jit import ijit, jit, pjit



@ijit
def _hh_one(state, h, shifts, krr_levels, rr_t, rr_w0, rr_k, a_p, w, lbits, g, prime, ct, n_leaves, xi, empty):
    """(status, t, u, v, y): one device's release of grid index xi (HierarchicalHistogram.release)."""
    st, t = _uniform_draw(state, h, ct)
    u = v = y = np.uint64(0)
    if st != OK:
        return st, t, u, v, y
    leaf = xi if xi < n_leaves else n_leaves - 1
    node = leaf >> shifts[np.int64(t)]
    if np.int64(t) < krr_levels:
        buf, c = _load(state)
        st, yr, buf, c = _rr_rd(state, buf, c, rr_t[np.int64(t)], rr_w0[np.int64(t)], rr_k, empty, False,
                                np.int64(node))
        _store(state, buf, c)
        u = np.uint64(yr) if st == OK else np.uint64(0)
    else:
        st, u, v, y = _lh_one(state, a_p, w, lbits, g, prime, ct, np.int64(node))
    return st, t, u, v, y


@jit
def _chunk_hh(state, lanes, key, device_ids, lo, hi, first_block, h, shifts, krr_levels, rr_t, rr_w0, rr_k, a_p, w,
              lbits, g, prime, ct, n_leaves, x, empty, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        st, t, u, v, y = _hh_one(state, h, shifts, krr_levels, rr_t, rr_w0, rr_k, a_p, w, lbits, g, prime, ct,
                                 n_leaves, np.int64(x[i]), empty)
        status[i] = np.uint8(st)
        if st == OK:
            out[i, 0], out[i, 1], out[i, 2], out[i, 3] = np.int64(t), np.int64(u), np.int64(v), np.int64(y)
        else:
            out[i, :] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_hierarchical_histogram(key, device_ids, first_block, h, shifts, krr_levels, rr_t, rr_w0, rr_k, a_p, w, lbits,
                                 g, prime, ct, n_leaves, x, out, status, bits_out):
    """Device i's report (t, u, v, y) of grid index x[i] into out[i] (int64[n, 4]); shifts int64[h]:
    level t's node is min(x, n_leaves - 1) >> shifts[t]; rr_t, rr_w0 uint64[h]: the k-ary RR of the
    first krr_levels levels (t categories, weight w0 over 2^rr_k)."""
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        empty = np.empty(0, dtype=np.uint32)
        _chunk_hh(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block, h, shifts,
                  krr_levels, rr_t, rr_w0, rr_k, a_p, w, lbits, g, prime, ct, n_leaves, x, empty, out, status,
                  bits_out)
