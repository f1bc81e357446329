"""Numba kernels of the subset-selection family (fxdp/mechanisms/oracles/subset_selection.py).

Each kernel reads exactly the bits of ``SubsetSelection.release``: Floyd's k uniform draws
(``_rd_uniform_below(j + 1)`` for j = m - k, ..., m - 1, m = d - 1), then one
Bernoulli(a_p / 2^bits), lazy (``_rd_dyadic``) or constant time (``_rd_dyadic_ct``), then
r = uniform_below(k) (always in the constant-time form, only when b = 1 in the lazy one).
``ct``: 0 lazy, 1 constant time with the rejection draws (uniform_version 1), 2 constant time
with the fixed-budget draws ``_rd_uniform_below_ct`` for Floyd's and r (uniform_version 2;
ERR_RANGE after all the draws when a budget ran out).  The
subset is kept as a byte map over the m other items (cleared as it is read, so one map serves a
chunk of devices); the report is the k items in increasing order, the r-th replaced by x when
b = 1.  Bit-identical to csrc/fxdp_mech_subset_selection.c (which computes the same with branch-free word
scans); the fleet pattern is that of ``fxdp.mechanisms._kernels_common``.  Integers only.

* ``release_subset_selection(state, a_p, bits, d, k, ct, x, mark, out) -> status``
  (out: int32[k], written only on success; mark: uint8[d - 1], all zero, left zero)
* ``fleet_subset_selection(key, ids, first_block, a_p, bits, d, k, ct, x, out, status, bits_out, nb)``
  (x: int64[n] items, out: int32[n, k] reports; nb: keystream blocks computed ahead across the
  devices of a lane group, ``fxdp.samplers._nb_lanes.ahead_blocks``)
* ``fleet_subset_selection_counts(key, ids, first_block, a_p, bits, d, k, ct, nb, x, counts, status)``
  (counts: int64[w, d], zero; worker row r adds the reports of its devices with status OK: the
  column sums of ``fleet_subset_selection``'s reports as item counts, in O(k) work per device
  after the draws (no scan of the d-item map, no n x k reports), for the variance table at
  large d)
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import (ERR_RANGE, OK, STATUS, STATE_WORDS, _load, _rd_dyadic, _rd_dyadic_ct,
                                  _rd_uniform_below, _rd_uniform_below_ct, _store)
from ...samplers._nb_lanes import LANES, seed_device_ahead
from .._kernels_common import CHUNK, _pos
from ...samplers._nb_jit import ijit, jit, pjit


_U0 = np.uint64(0)
_U1 = np.uint64(1)


@ijit
def _ss_uniform(state, buf, c, n, ct):
    """(status, t, ok, buf, c): uniform_below(n) by rejection, or for ct = 2 (uniform_version 2) by
    the fixed budget, whose running out is ok = False with t = 0 and the draws going on (as C)."""
    if ct == 2:
        st, t, buf, c = _rd_uniform_below_ct(state, buf, c, n)
        if st == ERR_RANGE:
            return OK, _U0, False, buf, c
        return st, t, True, buf, c
    st, t, buf, c = _rd_uniform_below(state, buf, c, n)
    return st, t, True, buf, c


@ijit
def _ss_one(state, a_p, bits, d, k, ct, x, mark, out):
    """status; on OK out[:k] holds the report (module docstring); mark is all zero after."""
    m = d - 1
    buf, c = _load(state)
    st = OK
    ok = True
    for j in range(m - k, m):
        st, t, okd, buf, c = _ss_uniform(state, buf, c, np.uint64(j + 1), ct)
        ok = ok and okd
        if st != OK:
            break
        v = np.int64(t)
        if mark[v]:
            v = np.int64(j)
        mark[v] = np.uint8(1)
    b = False
    r = np.int64(0)
    if st == OK:
        if ct:
            st, b, buf, c = _rd_dyadic_ct(state, buf, c, a_p, bits)
        else:
            st, b, buf, c = _rd_dyadic(state, buf, c, a_p, bits)
    if st == OK and (ct or b):
        st, rr, okd, buf, c = _ss_uniform(state, buf, c, np.uint64(k), ct)
        ok = ok and okd
        r = np.int64(rr)
    if st == OK and not ok:                     # a budget ran out: nothing released
        st = ERR_RANGE
    _store(state, buf, c)
    if st != OK:
        for j in range(m):
            mark[j] = np.uint8(0)
        return st
    pos = 0
    for j in range(m):                          # others in increasing order, shifted past x
        if pos == k:                            # all k found; the map past them is zero
            break
        mk = np.int64(mark[j])                  # no branch on the mark (about k/m of them are set:
        mark[j] = np.uint8(0)                   # a branch on it is mispredicted about that often)
        out[pos] = np.int32(j + 1 if j >= x else j)
        pos += mk
    if b:                                       # replace the r-th by x, keep the order
        for i in range(r, k - 1):
            out[i] = out[i + 1]
        i = k - 1
        while i > 0 and out[i - 1] > x:
            out[i] = out[i - 1]
            i -= 1
        out[i] = np.int32(x)
    return OK


@jit
def release_subset_selection(state, a_p, bits, d, k, ct, x, mark, out):
    """status of one release of item x; out[:k] is written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if (not K._ok_dyadic(a_p, bits)) or a_p == 0 or np.uint64(a_p) == (_U1 << np.uint64(bits)) or d < 2 \
            or k < 1 or k >= d or x < 0 or x >= d or mark.shape[0] < d - 1 or out.shape[0] < k:
        return K.ERR_PARAM
    return _ss_one(state, np.uint64(a_p), np.uint64(bits), np.int64(d), np.int64(k), ct, np.int64(x), mark, out)


@jit
def _chunk_ss(state, lanes, ahead, mark, key, device_ids, lo, hi, first_block, a_p, bits, d, k, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        st = _ss_one(state, a_p, bits, d, k, ct, x[i], mark, out[i])
        status[i] = np.uint8(st)
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_subset_selection(key, device_ids, first_block, a_p, bits, d, k, ct, x, out, status, bits_out, nb):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        mark = np.zeros(max(d - 1, 1), dtype=np.uint8)
        _chunk_ss(state, lanes, ahead, mark, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a_p, bits, d, k, ct, x, out, status, bits_out)


# --------------------------------------------------------------------------
# support counts without the reports: the same bits, O(k) per device after the draws

@ijit
def _select(v, k, r):
    """The r-th smallest (0-based) of the k distinct values v[:k] (reorders v; Hoare partition
    with the middle element as pivot, iterative)."""
    lo = np.int64(0)
    hi = k - 1
    while lo < hi:
        pivot = v[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while v[i] < pivot:
                i += 1
            while v[j] > pivot:
                j -= 1
            if i <= j:
                tmp = v[i]
                v[i] = v[j]
                v[j] = tmp
                i += 1
                j -= 1
        if r <= j:
            hi = j
        elif r >= i:
            lo = i
        else:
            return v[r]
    return v[r]


@ijit
def _ss_one_counts(state, a_p, bits, d, k, ct, x, mark, drawn, row):
    """status; on OK adds the report of ``_ss_one`` (same bits) to row: row[item] += 1 for each
    of its k items.  drawn: int64 scratch of k entries; mark is all zero after."""
    m = d - 1
    buf, c = _load(state)
    st = OK
    ok = True
    nd = np.int64(0)
    for j in range(m - k, m):
        st, t, okd, buf, c = _ss_uniform(state, buf, c, np.uint64(j + 1), ct)
        ok = ok and okd
        if st != OK:
            break
        v = np.int64(t)
        if mark[v]:
            v = np.int64(j)
        mark[v] = np.uint8(1)
        drawn[nd] = v
        nd += 1
    b = False
    r = np.int64(0)
    if st == OK:
        if ct:
            st, b, buf, c = _rd_dyadic_ct(state, buf, c, a_p, bits)
        else:
            st, b, buf, c = _rd_dyadic(state, buf, c, a_p, bits)
    if st == OK and (ct or b):
        st, rr, okd, buf, c = _ss_uniform(state, buf, c, np.uint64(k), ct)
        ok = ok and okd
        r = np.int64(rr)
    if st == OK and not ok:                     # a budget ran out: nothing released
        st = ERR_RANGE
    _store(state, buf, c)
    for i in range(nd):                         # clear only what was marked
        mark[drawn[i]] = np.uint8(0)
    if st != OK:
        return st
    for i in range(k):                          # the others, shifted past x (an increasing map)
        it = drawn[i] + 1 if drawn[i] >= x else drawn[i]
        drawn[i] = it
        row[it] += 1
    if b:                                       # the r-th smallest is replaced by x
        row[_select(drawn, k, r)] -= 1
        row[x] += 1
    return OK


@jit
def _chunk_ss_counts(state, lanes, ahead, mark, drawn, key, device_ids, lo, hi, first_block, a_p, bits, d, k, ct, x, row,
                     status):
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        status[i] = np.uint8(_ss_one_counts(state, a_p, bits, d, k, ct, x[i], mark, drawn, row))


@pjit
def fleet_subset_selection_counts(key, device_ids, first_block, a_p, bits, d, k, ct, nb, x, counts, status):
    # the device chunks of fleet_subset_selection; worker row r takes chunks r, r + w, ... and is
    # the only writer of counts[r]
    n = device_ids.shape[0]
    nch = (n + CHUNK - 1) // CHUNK
    w = counts.shape[0]
    for r in numba.prange(w):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        mark = np.zeros(max(d - 1, 1), dtype=np.uint8)
        drawn = np.empty(k, dtype=np.int64)
        for ch in range(r, nch, w):
            _chunk_ss_counts(state, lanes, ahead, mark, drawn, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK),
                             first_block, a_p, bits, d, k, ct, x, counts[r], status)
