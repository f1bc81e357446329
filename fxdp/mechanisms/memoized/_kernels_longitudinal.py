"""Numba kernels of the longitudinal frequency oracles (fxdp/mechanisms/memoized/longitudinal.py is the
reference; csrc/fxdp_mech_longitudinal.c the C twin).  Integers only; bit-identical to both.

A device's secret is 8 x bits(32) from its secret stream (the keyed stream (seed, id, 1)); the
permanent response of item x is drawn from the keyed state (key = secret, nonce (x, 0, 2)), fresh
for every report (memoized by derivation); the instantaneous response from the round state, rounds
consecutively.  Statuses are fxdp status codes; outputs are written only on OK.

* ``release_longitudinal_grr(state, secret, d, w0, w, v0, v, bits, ct, x) -> (status, y)``
* ``release_longitudinal_ue(state, secret, a_p1, a_q1, a_p2, bits, ct, x, out) -> status``
* ``fleet_longitudinal_grr(key, ids, first_block, d, w0, w, v0, v, bits, ct, x, out, status, bits_out)``
  (x, out: int64 (rounds, n))
* ``fleet_longitudinal_ue(key, ids, first_block, a_p1, a_q1, a_p2, bits, ct, x, out, status, bits_out)``
  (x: int64 (rounds, n), out: uint8 (rounds, n, d))
* ``fleet_longitudinal_ue_counts(key, ids, first_block, a_p1, a_q1, a_p2, bits, ct, x, counts, status)``
  (one round, x: int64 (n,); counts: int64 (w, d), the column sums of its reports per worker)

bits_out[i] is the round stream's position after device i's last round.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import (KEY, MODE, MODE_CHACHA, MODE_CHACHA_FKE, NONCE, fast_key_erasure, OK,
                                  STATE_WORDS, STATUS, SHARED_WORDS, WORD_POS, BLOCK_LEN, _load, _rd_bits,
                                  _rd_dyadic, _rd_dyadic_ct, _rd_uniform_below, _store)
# the shared constants (fxdp/mechanisms/_kernels_common.py)
from .._kernels_common import (CHUNK, _I0, _I1, _M32, _U0, _U1, _U32, _pos,
                               _seed_dev)
from ...samplers._nb_jit import ijit, jit, jit_nrt, pjit

_U2 = np.uint64(2)


@ijit
def _keyed(state, key8, n0, n1, n2):
    """state <- the keyed ChaCha20 stream (key8, nonce (n0, n1, n2)) at counter 0."""
    for i in range(SHARED_WORDS):
        state[i] = np.uint32(0)
    for i in range(8):
        state[KEY + i] = np.uint32(key8[i])
    state[NONCE] = np.uint32(n0)
    state[NONCE + 1] = np.uint32(n1)
    state[NONCE + 2] = np.uint32(n2)
    state[WORD_POS] = np.uint32(16)
    state[BLOCK_LEN] = np.uint32(16)
    state[MODE] = np.uint32(MODE_CHACHA)


@ijit
def _provision(src, secret):
    """secret[0..8) = 8 x bits(32) from src -> status."""
    buf, c = _load(src)
    for i in range(8):
        st, w, buf, c = _rd_bits(src, buf, c, _U32)
        if st != OK:
            _store(src, buf, c)
            return st
        secret[i] = np.uint32(w)
    _store(src, buf, c)
    return OK


@ijit
def _grr_rd(state, buf, c, d, w0, w, bits, ct, x):
    """One k-ary RR step of x in [0, d) (longitudinal.grr_step); d, w0, w, bits uint64, x int64."""
    if ct:
        st, u, buf, c = _rd_bits(state, buf, c, bits)
        if st != OK:
            return st, _I0, buf, c
        off = _I0
        t = w0
        for j in range(np.int64(d) - 1):
            off += np.int64(t <= u)
            t += w
        y = x + off
        if y >= np.int64(d):
            y -= np.int64(d)
        return OK, y, buf, c
    st, s, buf, c = _rd_uniform_below(state, buf, c, d - _U1)
    if st != OK:
        return st, _I0, buf, c
    si = np.int64(s)
    if si >= x:
        si += _I1
    st, honest, buf, c = _rd_dyadic(state, buf, c, w0, bits)
    if st != OK:
        return st, _I0, buf, c
    return OK, (x if honest else si), buf, c


@ijit
def _grr_report(state, pstate, secret, d, w0, w, v0, v, bits, ct, x):
    """(status, y2): the permanent step of x from pstate (re-keyed from secret and x), then the
    instantaneous step from state."""
    _keyed(pstate, secret, np.uint64(x), _U0, _U2)
    pb, pc = _load(pstate)
    st, y1, pb, pc = _grr_rd(pstate, pb, pc, d, w0, w, bits, ct, x)
    if st != OK:
        return st, _I0
    buf, c = _load(state)
    st, y2, buf, c = _grr_rd(state, buf, c, d, v0, v, bits, ct, y1)
    _store(state, buf, c)
    return st, y2


@ijit
def _draw(state, buf, c, a, bits, ct):
    if ct:
        return _rd_dyadic_ct(state, buf, c, a, bits)
    return _rd_dyadic(state, buf, c, a, bits)


@ijit
def _ue_report(state, pstate, secret, a_p1, a_q1, a_p2, bits, ct, x, tmp):
    """status; tmp[0..d) = the report: per item i the permanent bit from pstate, then the
    instantaneous bit from state (independent streams: the interleaving changes nothing)."""
    _keyed(pstate, secret, np.uint64(x), _U0, _U2)
    pb, pc = _load(pstate)
    buf, c = _load(state)
    q2 = (_U1 << bits) - a_p2
    for i in range(tmp.shape[0]):
        st, b1, pb, pc = _draw(pstate, pb, pc, a_p1 if i == x else a_q1, bits, ct)
        if st != OK:
            _store(state, buf, c)
            return st
        st, b2, buf, c = _draw(state, buf, c, a_p2 if b1 else q2, bits, ct)
        if st != OK:
            _store(state, buf, c)
            return st
        tmp[i] = np.uint8(1 if b2 else 0)
    _store(state, buf, c)
    return OK


@jit_nrt
def release_longitudinal_grr(state, secret, d, w0, w, v0, v, bits, ct, x):
    """(status, item): one report of x by the device `secret` (uint32[8]), round draws from state."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if x < 0 or x >= np.int64(d):
        return K.ERR_PARAM, _I0
    pstate = np.zeros(STATE_WORDS, np.uint32)
    return _grr_report(state, pstate, secret, np.uint64(d), np.uint64(w0), np.uint64(w), np.uint64(v0),
                       np.uint64(v), np.uint64(bits), ct, np.int64(x))


@jit_nrt
def release_longitudinal_ue(state, secret, a_p1, a_q1, a_p2, bits, ct, x, out):
    """status; out[0..d) = one report of x by the device `secret`, written only on OK."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if x < 0 or x >= out.shape[0]:
        return K.ERR_PARAM
    pstate = np.zeros(STATE_WORDS, np.uint32)
    tmp = np.empty(out.shape[0], np.uint8)
    st = _ue_report(state, pstate, secret, np.uint64(a_p1), np.uint64(a_q1), np.uint64(a_p2), np.uint64(bits),
                    ct, np.int64(x), tmp)
    if st == OK:
        out[:] = tmp
    return st


@jit
def _secret_of(sib, secret, key, dev):
    """secret <- the device's secret (keyed stream (seed, dev, 1), under the seed words' version)."""
    d = np.uint64(dev)
    _keyed(sib, key, d & _M32, d >> _U32, _U1)
    if fast_key_erasure(key):
        sib[MODE] = np.uint32(MODE_CHACHA_FKE)
    return _provision(sib, secret)


@jit
def _chunk_grr(state, pstate, secret, key, ids, lo, hi, first_block, d, w0, w, v0, v, bits, ct, x, out, status,
               bits_out):
    rounds = x.shape[0]
    for i in range(lo, hi):
        st = _secret_of(pstate, secret, key, ids[i])
        _seed_dev(state, key, ids[i], first_block)
        r = 0
        while st == OK and r < rounds:
            st, y = _grr_report(state, pstate, secret, d, w0, w, v0, v, bits, ct, x[r, i])
            if st == OK:
                out[r, i] = y
            r += 1
        status[i] = np.uint8(st)
        bits_out[i] = _pos(state)


@pjit
def fleet_longitudinal_grr(key, ids, first_block, d, w0, w, v0, v, bits, ct, x, out, status, bits_out):
    n = ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, np.uint32)
        pstate = np.empty(STATE_WORDS, np.uint32)
        secret = np.empty(8, np.uint32)
        _chunk_grr(state, pstate, secret, key, ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                   d, w0, w, v0, v, bits, ct, x, out, status, bits_out)


@jit
def _chunk_ue(state, pstate, secret, tmp, key, ids, lo, hi, first_block, a_p1, a_q1, a_p2, bits, ct, x, out,
              status, bits_out):
    rounds = x.shape[0]
    for i in range(lo, hi):
        st = _secret_of(pstate, secret, key, ids[i])
        _seed_dev(state, key, ids[i], first_block)
        r = 0
        while st == OK and r < rounds:
            st = _ue_report(state, pstate, secret, a_p1, a_q1, a_p2, bits, ct, x[r, i], tmp)
            if st == OK:
                for j in range(tmp.shape[0]):
                    out[r, i, j] = tmp[j]
            r += 1
        status[i] = np.uint8(st)
        bits_out[i] = _pos(state)


@pjit
def fleet_longitudinal_ue(key, ids, first_block, a_p1, a_q1, a_p2, bits, ct, x, out, status, bits_out):
    n = ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, np.uint32)
        pstate = np.empty(STATE_WORDS, np.uint32)
        secret = np.empty(8, np.uint32)
        tmp = np.empty(out.shape[2], np.uint8)
        _chunk_ue(state, pstate, secret, tmp, key, ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a_p1, a_q1, a_p2, bits, ct, x, out, status, bits_out)


@jit
def _chunk_ue_counts(state, pstate, secret, tmp, key, ids, lo, hi, first_block, a_p1, a_q1, a_p2, bits, ct, x, row,
                     status):
    for i in range(lo, hi):
        st = _secret_of(pstate, secret, key, ids[i])
        _seed_dev(state, key, ids[i], first_block)
        if st == OK:
            st = _ue_report(state, pstate, secret, a_p1, a_q1, a_p2, bits, ct, x[i], tmp)
        status[i] = np.uint8(st)
        if st == OK:
            for j in range(tmp.shape[0]):
                row[j] += np.int64(tmp[j])


@pjit
def fleet_longitudinal_ue_counts(key, ids, first_block, a_p1, a_q1, a_p2, bits, ct, x, counts, status):
    """One round (x: int64 (n,)) of fleet_longitudinal_ue reduced to its column sums: worker row r
    takes the chunks r, r + w, ... of devices and adds each OK device's report bits to counts[r]
    (counts: int64 (w, d), zero), in O(w d) memory instead of n x d."""
    n = ids.shape[0]
    nch = (n + CHUNK - 1) // CHUNK
    w = counts.shape[0]
    for r in numba.prange(w):
        state = np.empty(STATE_WORDS, np.uint32)
        pstate = np.empty(STATE_WORDS, np.uint32)
        secret = np.empty(8, np.uint32)
        tmp = np.empty(counts.shape[1], np.uint8)
        for ch in range(r, nch, w):
            _chunk_ue_counts(state, pstate, secret, tmp, key, ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                             a_p1, a_q1, a_p2, bits, ct, x, counts[r], status)
