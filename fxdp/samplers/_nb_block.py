"""Numba twins of ``reference.bernoulli_block`` and ``bernoulli_block_ct``: up to 32 independent
Bernoulli(a / 2^k) draws at once, bit-sliced (one bit-plane of every lane per read).

The same bits in the same order as the reference (tests/test_bernoulli_block.py holds the three
implementations to it, and enumerates every bit string for small lanes and k).  All arithmetic is
on uint64 words; a lane's outcome is bit lanes-1-l of the result.
"""
from __future__ import annotations

import numpy as np

from ._nb_core import ERR_PARAM, OK, STATUS, _U0, _U1, _U63, _in_range, _load, _rd_bits, _store
from .reference import BLOCK_MAX_LANES
from ._nb_jit import ijit, jit

_UMAXL = np.uint64(BLOCK_MAX_LANES)


@ijit
def _sel(cond, lanes):
    """lanes if cond else 0, without a branch (cond is 0 or 1)."""
    return (_U0 - np.uint64(cond)) & lanes


@ijit
def _rd_bernoulli_block(state, buf, c, lanes, a_one, a_zero, k, mask, ct):
    """(status, result, buf, c): reference.bernoulli_block (ct = False) or bernoulli_block_ct."""
    full = (_U1 << lanes) - _U1
    one = mask & full
    zero = full & ~mask
    result = _sel(a_one >> k, one) | _sel(a_zero >> k, zero)     # a == 2^k: decided 1, nothing read
    und = full & ~result
    i = _U0
    while i < k:
        bit = k - _U1 - i
        if not ct:
            low = (np.uint64(2) << bit) - _U1
            und &= _sel(np.uint64((a_one & low) != _U0), one) | _sel(np.uint64((a_zero & low) != _U0), zero)
            if und == _U0:
                break
        st, w, buf, c = _rd_bits(state, buf, c, lanes)
        if st != OK:
            return st, _U0, buf, c
        a = _sel((a_one >> bit) & _U1, one) | _sel((a_zero >> bit) & _U1, zero)
        result |= und & ~w & a
        und &= ~(w ^ a)
        i += _U1
    return OK, result, buf, c


@jit
def _ok_block(lanes, a_one, a_zero, k, mask):
    if not _in_range(lanes, _U1, _UMAXL) or not _in_range(k, _U0, _U63):
        return False
    top = _U1 << k
    return a_one <= top and a_zero <= top and mask >> lanes == _U0


@ijit
def _block(state, lanes, a_one, a_zero, k, mask, ct):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _U0
    lanes, a_one, a_zero = np.uint64(lanes), np.uint64(a_one), np.uint64(a_zero)
    k, mask = np.uint64(k), np.uint64(mask)
    if not _ok_block(lanes, a_one, a_zero, k, mask):
        return ERR_PARAM, _U0
    buf, c = _load(state)
    st, v, buf, c = _rd_bernoulli_block(state, buf, c, lanes, a_one, a_zero, k, mask, ct)
    _store(state, buf, c)
    return st, v


@jit
def bernoulli_block(state, lanes, a_one, a_zero, k, mask):
    """(status, uint64 result): reference.bernoulli_block (lazy).  lanes in [1, 32], k in [0, 63],
    a_one, a_zero in [0, 2^k], mask < 2^lanes (else ERR_PARAM)."""
    return _block(state, lanes, a_one, a_zero, k, mask, False)


@jit
def bernoulli_block_ct(state, lanes, a_one, a_zero, k, mask):
    """(status, uint64 result): reference.bernoulli_block_ct (exactly k * lanes bits)."""
    return _block(state, lanes, a_one, a_zero, k, mask, True)


@jit
def fill_bernoulli_block(state, lanes, a_one, a_zero, k, masks, ct, out):
    """out[j] = one block draw with masks[j] (ct: the constant-time form), in order, on one stream:
    (status, draws done).  The bit buffer stays in registers between draws."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, 0
    lanes, a_one, a_zero, k = np.uint64(lanes), np.uint64(a_one), np.uint64(a_zero), np.uint64(k)
    for j in range(masks.shape[0]):
        if not _ok_block(lanes, a_one, a_zero, k, np.uint64(masks[j])):
            return ERR_PARAM, j
    buf, c = _load(state)
    for j in range(masks.shape[0]):
        st, v, buf, c = _rd_bernoulli_block(state, buf, c, lanes, a_one, a_zero, k, np.uint64(masks[j]), ct)
        if st != OK:
            _store(state, buf, c)
            return st, j
        out[j] = np.uint32(v)
    _store(state, buf, c)
    return OK, masks.shape[0]
