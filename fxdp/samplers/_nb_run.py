"""Runs of lazy dyadic Bernoulli draws, a byte of the stream at a time (host kernels only).

``_rd_dyadic_run(state, buf, c, table, a, k, out, lo, hi)`` sets out[i] = Bernoulli(a / 2^k)
for i = lo..hi-1 and consumes exactly the bits of hi - lo calls of ``_rd_dyadic`` (the
reference's digit-by-digit loop), so every stream, status and bit count is unchanged; it is
faster where a report is a long vector of draws with one parameter (the unary-encoding family).

How: a draw compares stream bits with the digits of a' = a >> tz(a) (m = k - tz(a) digits) and
stops at the first difference, so a run is a finite automaton whose state is the number s of
digits the current draw has matched.  ``dyadic_run_table(a, k)`` tabulates it for every state
and input byte: table[s, B] packs how many draws end within B (0..8), their outcomes, and the
state after B.  A byte is taken from the buffer only when at least 8 draws remain (a byte ends
at most 8 draws, so every bit of it is one the reference would read too); with fewer than 8
bits buffered the next word is fetched first (those 8 draws need it).  The last draws are made,
or finished, by ``_rd_dyadic_odd`` on the remaining digits, which fetches words exactly when the
reference would; after a failed fetch (which consumes nothing) so are the others, so the failure
leaves the state the reference leaves.

Not constant time (nor is the lazy draw): the constant-time form reads k bits per draw.
Integers only; the table is uint32[m, 256] (m <= 63), built in O(m 256 8).
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ._nb_core import OK, _U0, _U1, _U32, _fetch, _mask
from ._nb_uniform import _rd_dyadic_odd
from ._nb_jit import jit, jit_nrt

_U8 = np.uint64(8)
_FF = np.uint64(0xFF)


def dyadic_run_table(a, k):
    """uint32[m, 256] automaton of lazy Bernoulli(a / 2^k) draws, 0 < a < 2^k, k <= 63
    (m = k - tz(a); a 0 x 256 table for a = 0 or a = 2^k, which read no bits).
    Entry bits 0-3: draws ended in the byte; 4-11: their outcomes, first draw lowest;
    12-17: digits of the next draw matched after the byte."""
    a, k = int(a), int(k)
    if not (0 <= k <= 63 and 0 <= a <= 1 << k):
        raise ValueError(f"need k in [0, 63] and a in [0, 2^k], got a = {a}, k = {k}")
    if a == 0 or a == 1 << k:
        return np.zeros((0, 256), dtype=np.uint32)
    z = (a & -a).bit_length() - 1
    t = np.empty((k - z, 256), dtype=np.uint32)
    _fill_run_table(np.uint64(a >> z), np.uint64(k - z), t)
    return t


@jit_nrt
def run_table(a, k):
    """dyadic_run_table inside a kernel (a, k uint64, valid)."""
    if a == _U0 or a == (_U1 << k):
        return np.zeros((0, 256), dtype=np.uint32)
    z = np.uint64(trailing_zeros(a))
    t = np.empty((np.int64(k - z), 256), dtype=np.uint32)
    _fill_run_table(a >> z, k - z, t)
    return t


@jit
def _fill_run_table(aa, m, t):
    for s0 in range(np.int64(m)):
        for b in range(256):
            s = np.uint64(s0)
            n = 0
            outs = 0
            for j in range(8):
                u = (np.uint64(b) >> np.uint64(7 - j)) & _U1
                digit = (aa >> (m - _U1 - s)) & _U1
                if u != digit:
                    outs |= np.int64(digit) << n          # u = 0 < digit = 1: U < p
                    n += 1
                    s = _U0
                else:
                    s += _U1
                    if s == m:                            # U agrees on every digit: U >= p
                        n += 1
                        s = _U0
            t[s0, b] = np.uint32(n | (outs << 4) | (np.int64(s) << 12))


@jit
def _rd_dyadic_run(state, buf, c, table, a, k, out, lo, hi):
    """out[lo:hi] = lazy Bernoulli(a / 2^k) draws (uint8 0/1), a, k uint64 with a <= 2^k, k <= 63,
    table = dyadic_run_table(a, k) -> (status, buf, c).  On failure out[lo:hi] is partly written
    (callers discard it) and the state is the one the draw-by-draw loop leaves.  A call, not
    inlined: a run is long, and one compiled copy serves every fleet (inlined, it doubled the
    unary-encoding fleet's cold compile)."""
    if a == _U0 or a == (_U1 << k):
        v = np.uint8(0 if a == _U0 else 1)
        for i in range(lo, hi):
            out[i] = v
        return OK, buf, c
    z = np.uint64(trailing_zeros(a))
    aa, m = a >> z, k - z
    i = lo
    s = _U0                       # digits of draw i matched by bytes already consumed
    while i < hi:
        if c < _U8 and hi - i >= 8:
            # the 8 draws left need at least 8 bits, more than are buffered: the loop would fetch
            # this word too.  If the fetch fails (it consumes nothing), the draw below uses up the
            # buffer first and fails on the same fetch, as the loop does.
            st, w = _fetch(state)
            if st == OK:
                buf = (buf << _U32) | w
                c = c + _U32
        if c >= _U8 and hi - i >= 8:
            c = c - _U8
            e = np.uint64(table[np.int64(s), np.int64((buf >> c) & _FF)])
            buf = buf & _mask(c)
            # all 8 outcome slots written (i + 7 < hi): the n - 8 past the byte's draws are
            # overwritten by the next draws, and a fixed count has no mispredicted loop exit
            for j in range(8):
                out[i + j] = np.uint8((e >> np.uint64(4 + j)) & _U1)
            i += np.int64(e & np.uint64(15))
            s = e >> np.uint64(12)
        else:
            # draw i from its first unmatched digit: the digits left are the low m - s of aa
            st, b, buf, c = _rd_dyadic_odd(state, buf, c, aa & _mask(m - s), m - s)
            if st != OK:
                return st, buf, c
            out[i] = np.uint8(1 if b else 0)
            i += 1
            s = _U0
    return OK, buf, c
