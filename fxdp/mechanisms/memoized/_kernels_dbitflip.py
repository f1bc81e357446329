"""Numba kernels of dBitFlip (fxdp/mechanisms/memoized/dbitflip.py is the reference; csrc/fxdp_mech_dbitflip.c the
C twin).  Integers only; bit-identical to both.

A device's secret is 8 x bits(32) from its secret stream (the keyed stream (seed, id, 1), started
with the multi-lane prologue ``seed_device``); its sampled buckets come from the keyed state (key =
secret, nonce (0, 0, 3)) and the response of bucket v from (key = secret, nonce (v, 0, 4)), both
re-derived for every report (memoized by derivation).  Nothing is drawn from a round stream.

* ``release_dbitflip(secret, d, k, s, a_p, a_q, bits, ct, x, out) -> status`` (out: int64[2 s])
* ``fleet_dbitflip(key, ids, first_block, d, k, s, a_p, a_q, bits, ct, x, out, status, bits_out)``
  (x: int64 (rounds, n), out: int64 (rounds, n, 2 s))

bits_out[i] is the (untouched) round stream's position, first_block * 256 (version 2; 512 under version 1), as the C host fleet
reports it.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import (ERR_RANGE, OK, STATE_WORDS, _load, _rd_uniform_below, _rd_uniform_below_ct,
                                  _store)
from ...samplers._nb_lanes import LANES, seed_device
from ._kernels_longitudinal import _draw, _keyed, _provision
# the shared constants (fxdp/mechanisms/_kernels_common.py)
from .._kernels_common import CHUNK, _I0, _U0
from ...samplers._nb_jit import ijit, jit, jit_nrt, pjit

_U3 = np.uint64(3)
_U4 = np.uint64(4)


@ijit
def _sample(state, secret, k, s, J, ct):
    """J[0..s) <- the sampled buckets of the device `secret`, ascending (Floyd) -> status.  ct = 2
    (uniform_version 2): the fixed-budget draws, ERR_RANGE after all of them if a budget ran out."""
    _keyed(state, secret, _U0, _U0, _U3)
    buf, c = _load(state)
    si = np.int64(s)
    ki = np.int64(k)
    ok = True
    for idx in range(si):
        j = ki - si + idx
        if ct == 2:
            st, t, buf, c = _rd_uniform_below_ct(state, buf, c, np.uint64(j + 1))
            if st == ERR_RANGE:
                st, t, ok = OK, _U0, False
        else:
            st, t, buf, c = _rd_uniform_below(state, buf, c, np.uint64(j + 1))
        if st != OK:
            _store(state, buf, c)
            return st
        ti = np.int64(t)
        seen = False
        for m in range(idx):
            if J[m] == ti:
                seen = True
        J[idx] = j if seen else ti
    _store(state, buf, c)
    for a in range(1, si):                   # insertion sort (J is public: it is sent)
        v = J[a]
        b = a - 1
        while b >= 0 and J[b] > v:
            J[b + 1] = J[b]
            b -= 1
        J[b + 1] = v
    return OK if ok else ERR_RANGE


@ijit
def _respond(state, secret, s, a_p, a_q, bits, ct, v, J, out):
    """out[s..2s) <- bucket v's memoized bits on J -> status."""
    _keyed(state, secret, np.uint64(v), _U0, _U4)
    buf, c = _load(state)
    for i in range(np.int64(s)):
        st, b, buf, c = _draw(state, buf, c, a_p if J[i] == v else a_q, bits, ct)
        if st != OK:
            _store(state, buf, c)
            return st
        out[np.int64(s) + i] = np.int64(1) if b else _I0
    _store(state, buf, c)
    return OK


@ijit
def _report(pstate, secret, d, k, s, a_p, a_q, bits, ct, x, J, out):
    """status; out[0..2s) = the report of item x (int64) by the device `secret`."""
    st = _sample(pstate, secret, k, s, J, ct)
    if st != OK:
        return st
    v = (np.uint64(x) * k) // d
    st = _respond(pstate, secret, s, a_p, a_q, bits, ct, np.int64(v), J, out)
    if st != OK:
        return st
    for i in range(np.int64(s)):
        out[i] = J[i]
    return OK


@jit_nrt
def release_dbitflip(secret, d, k, s, a_p, a_q, bits, ct, x, out):
    """status; out[0..2s) = one report of x by the device `secret` (uint32[8]), written only on OK."""
    if x < 0 or x >= np.int64(d) or out.shape[0] != 2 * np.int64(s):
        return K.ERR_PARAM
    pstate = np.zeros(STATE_WORDS, np.uint32)
    J = np.zeros(np.int64(s), np.int64)
    tmp = np.zeros(2 * np.int64(s), np.int64)
    st = _report(pstate, secret, np.uint64(d), np.uint64(k), np.uint64(s), np.uint64(a_p), np.uint64(a_q),
                 np.uint64(bits), ct, np.int64(x), J, tmp)
    if st == OK:
        out[:] = tmp
    return st


@jit
def _chunk(state, pstate, secret, lanes, J, tmp, key, ids, lo, hi, first_block, d, k, s, a_p, a_q, bits, ct, x,
           out, status, bits_out):
    rounds = x.shape[0]
    width = tmp.shape[0]
    for i in range(lo, hi):
        seed_device(state, lanes, key, ids, i, lo, hi, np.uint32(0), np.uint32(1))   # the secret stream
        st = _provision(state, secret)
        r = 0
        while st == OK and r < rounds:
            st = _report(pstate, secret, d, k, s, a_p, a_q, bits, ct, x[r, i], J, tmp)
            if st == OK:
                for j in range(width):
                    out[r, i, j] = tmp[j]
            r += 1
        status[i] = np.uint8(st)
        # the round stream is never read: its position is first_block whole blocks (8 output words
        # per block under stream version 2, 16 under version 1)
        bits_out[i] = np.int64(first_block) * (256 if K.fast_key_erasure(key) else 512)


@pjit
def fleet_dbitflip(key, ids, first_block, d, k, s, a_p, a_q, bits, ct, x, out, status, bits_out):
    n = ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, np.uint32)
        pstate = np.empty(STATE_WORDS, np.uint32)
        secret = np.empty(8, np.uint32)
        lanes = np.empty((16, LANES), np.uint32)
        J = np.empty(out.shape[2] // 2, np.int64)
        tmp = np.empty(out.shape[2], np.int64)
        _chunk(state, pstate, secret, lanes, J, tmp, key, ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
               d, k, s, a_p, a_q, bits, ct, x, out, status, bits_out)
