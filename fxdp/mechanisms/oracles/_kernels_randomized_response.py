"""Layer 4, Numba kernels of randomized response (binary and k-ary): single releases, one
device's stream of releases, and fleets, both forms (fxdp.mechanisms.oracles.randomized_response
is the reference; csrc/fxdp_mech_rr.c the C).

* ``release_rr_bool(state, a, k, ct, x) -> (status, bool)``
* ``release_rr(state, t, w0, k, thresholds, ct, x) -> (status, int64 index)``
  (x in [0, t], t = "not a category"; in the constant-time form x = t is answered with
  ``uniform_below(t)`` as the host does, see RandomizedResponse)
* ``stream_rr_bool(state, a, k, ct, xs, out)``, ``stream_rr(state, t, w0, k, thresholds, ct, xs,
  out)`` -> (status, count_done): one device releasing a sequence
* ``fleet_rr_bool(key, ids, first_block, a, k, ct, x, out, status, bits_out)``,
  ``fleet_rr(key, ids, first_block, t, w0, k, thresholds, ct, x, out, status, bits_out)``

The state is an ``fxdp.samplers._kernels`` state array; a single release writes nothing on
failure.  A fleet device starts the keyed stream (seed, device_ids[i], stream 0) at block
``first_block`` and records its status and, if ``bits_out`` is non-empty, its final position.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._nb_lanes import LANES, fast_bits_used, restart_device, start_device_fast
from ...samplers._kernels import (ERR_ENTROPY, ERR_PARAM, OK, STATE_WORDS, STATUS, _load, _rd_dyadic,
                                  _rd_dyadic_ct, _rd_table, _rd_uniform_below, _store)
from .._kernels_common import CHUNK, _I0, _I1, _U0, _U1, _pos
from ...samplers._nb_jit import ijit, jit, pjit


# --------------------------------------------------------------------------
# one release, unchecked (typed arguments; the callers validate).  The bit
# buffer travels in (buf, c) as in the sampler kernels: _x_rd(state, buf, c,
# ...) -> (status, value, buf, c); on failure (buf, c) are those before the
# failed fetch, so storing them keeps the stream position the reference has.

@ijit
def _rr_bool_rd(state, buf, c, a, k, ct, x):
    """x XNOR Bernoulli(a/2^k); a, k uint64; ct, x bool."""
    if ct:
        st, keep, buf, c = _rd_dyadic_ct(state, buf, c, a, k)
    else:
        st, keep, buf, c = _rd_dyadic(state, buf, c, a, k)
    if st != OK:
        return st, False, buf, c
    return OK, x == keep, buf, c


@ijit
def _rr_rd(state, buf, c, t, w0, k, thresholds, ct, x):
    """RandomizedResponse.release_index; t, w0, k uint64; x int64 in [0, t]."""
    ti = np.int64(t)
    if ct:
        if x == ti:                                  # not a category: uniform (host only)
            st, s, buf, c = _rd_uniform_below(state, buf, c, t)
            if st != OK:
                return st, _I0, buf, c
            return OK, np.int64(s), buf, c
        st, d, buf, c = _rd_table(state, buf, c, thresholds, k)
        if st != OK:
            return st, _I0, buf, c
        y = x + d
        if y >= ti:
            y -= ti
        return OK, y, buf, c
    member = x < ti
    n = t - _U1 if member else t
    st, s, buf, c = _rd_uniform_below(state, buf, c, n)
    if st != OK:
        return st, _I0, buf, c
    si = np.int64(s)
    if member and si >= x:
        si += _I1
    st, honest, buf, c = _rd_dyadic(state, buf, c, w0, k)
    if st != OK:
        return st, _I0, buf, c
    if honest and member:
        return OK, x, buf, c
    return OK, si, buf, c


# --------------------------------------------------------------------------
# public single releases (state status first; outputs only on success)

@jit
def release_rr_bool(state, a, k, ct, x):
    """(status, bool): one binary randomized response of x (a/2^k, k <= 63)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, False
    if not K._ok_dyadic(a, k):
        return ERR_PARAM, False
    buf, c = _load(state)
    st, y, buf, c = _rr_bool_rd(state, buf, c, np.uint64(a), np.uint64(k), ct, x)
    _store(state, buf, c)
    return st, y


@jit
def release_rr(state, t, w0, k, thresholds, ct, x):
    """(status, int64 index): one k-ary release of index x in [0, t] (t: not a category)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if t < 2 or x < 0 or x > t or not K._ok_dyadic(w0, k):
        return ERR_PARAM, _I0
    if ct and (thresholds.shape[0] != t - 1 or not K._ok_table(thresholds, k)):
        return ERR_PARAM, _I0
    buf, c = _load(state)
    st, y, buf, c = _rr_rd(state, buf, c, np.uint64(t), np.uint64(w0), np.uint64(k), thresholds, ct,
                           np.int64(x))
    _store(state, buf, c)
    return st, y


# --------------------------------------------------------------------------
# one stream, many releases: (status, count_done); out[:count_done] written

@jit
def stream_rr_bool(state, a, k, ct, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    aa = np.uint64(a)
    kk = np.uint64(k)
    buf, c = _load(state)
    for i in range(xs.shape[0]):
        st, y, buf, c = _rr_bool_rd(state, buf, c, aa, kk, ct, xs[i])
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = y
    _store(state, buf, c)
    return OK, np.int64(xs.shape[0])


@jit
def stream_rr(state, t, w0, k, thresholds, ct, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    tt = np.uint64(t)
    ww = np.uint64(w0)
    kk = np.uint64(k)
    buf, c = _load(state)
    for i in range(xs.shape[0]):
        st, y, buf, c = _rr_rd(state, buf, c, tt, ww, kk, thresholds, ct, xs[i])
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = y
    _store(state, buf, c)
    return OK, np.int64(xs.shape[0])


# --------------------------------------------------------------------------
# fleet: devices in parallel, CHUNK at a time (fxdp.mechanisms._kernels_common)

@jit
def _chunk_rr_bool(state, lanes, key, device_ids, lo, hi, first_block, a, k, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, y, buf, c = _rr_bool_rd(state, _U0, _U0, a, k, ct, x[i])
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i] = y
        if want_bits:
            _store(state, buf, c)
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@jit
def _chunk_rr(state, lanes, key, device_ids, lo, hi, first_block, t, w0, k, thresholds, ct, x, out, status,
              bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, y, buf, c = _rr_rd(state, _U0, _U0, t, w0, k, thresholds, ct, x[i])
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i] = y
        if want_bits:
            _store(state, buf, c)
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@pjit
def fleet_rr_bool(key, device_ids, first_block, a, k, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_rr_bool(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                       a, k, ct, x, out, status, bits_out)


@pjit
def fleet_rr(key, device_ids, first_block, t, w0, k, thresholds, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_rr(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  t, w0, k, thresholds, ct, x, out, status, bits_out)
