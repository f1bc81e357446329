"""Numba kernels of HaarHRR (fxdp/mechanisms/ranges/haar_hrr.py): the fleet, bit for bit the
reference release (the level, the Hadamard row, the signed coefficient's bit through binary
randomized response).  Integers only.

``fleet_haar_hrr(key, ids, first_block, h, a_p, k, ct, n_leaves, x, out, status, bits_out)``: out
int64[n, 3] = (l, j, b).
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS, _load, _rd_bits, _rd_dyadic, _rd_dyadic_ct, _store
from ...samplers._nb_lanes import LANES, seed_device
from .._kernels_common import CHUNK, _pos, _uniform_draw
from ..oracles._kernels_hadamard_response import _parity
from ...samplers._nb_jit import ijit, jit, pjit


_U0 = np.uint64(0)
_U1 = np.uint64(1)


@ijit
def _haar_one(state, h, a_p, k, ct, n_leaves, xi):
    """(status, l, j, b): one device's release of grid index xi (HaarHRR.release)."""
    st, l = _uniform_draw(state, h, ct)
    if st != OK:
        return st, _U0, _U0, _U0
    buf, c = _load(state)
    if ct:                                   # h - 1 bits, the low l of them
        st, u, buf, c = _rd_bits(state, buf, c, h - _U1)
        j = u & ((_U1 << l) - _U1)
    else:                                    # uniform_below(2^l): exactly l bits
        st, j, buf, c = _rd_bits(state, buf, c, l)
    if st != OK:
        _store(state, buf, c)
        return st, _U0, _U0, _U0
    leaf = np.uint64(xi) if xi < n_leaves else np.uint64(n_leaves - 1)
    node = leaf >> (h - l)
    sign = (leaf >> (h - l - _U1)) & _U1
    truth = _parity(j & node) ^ sign
    if ct:
        st, keep, buf, c = _rd_dyadic_ct(state, buf, c, a_p, k)
    else:
        st, keep, buf, c = _rd_dyadic(state, buf, c, a_p, k)
    _store(state, buf, c)
    if st != OK:
        return st, _U0, _U0, _U0
    b = truth if keep else truth ^ _U1
    return OK, l, j, b


@jit
def _chunk_haar(state, lanes, key, device_ids, lo, hi, first_block, h, a_p, k, ct, n_leaves, x, out, status,
                bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        st, l, j, b = _haar_one(state, h, a_p, k, ct, n_leaves, np.int64(x[i]))
        status[i] = np.uint8(st)
        if st == OK:
            out[i, 0], out[i, 1], out[i, 2] = np.int64(l), np.int64(j), np.int64(b)
        else:
            out[i, :] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_haar_hrr(key, device_ids, first_block, h, a_p, k, ct, n_leaves, x, out, status, bits_out):
    """Device i's report (l, j, b) of grid index x[i] into out[i] (int64[n, 3])."""
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_haar(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block, h, a_p, k, ct,
                    n_leaves, x, out, status, bits_out)
