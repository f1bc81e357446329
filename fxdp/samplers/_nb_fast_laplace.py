"""Numba kernels of ``discrete_laplace_fast`` (``fxdp.samplers.fast_laplace`` is the
reference and documents the algorithm): lazy inversion against the exact 64-bit
boundary table, a 12-bit lookahead, CKS's exact geometric for the tail.

The kernels read exactly the reference's bits.  One case is not finished here:
a draw whose inversion is still undecided after 64 bits (probability below
64 * 2^-64 per draw) needs boundary digits past the table, which only exact
Python integers give; the fill kernel then stops with the internal status
NEED_DEEP and the draw's position (lo, a, b), and ``fill_discrete_laplace_fast``
(Python) finishes that draw with the reference's own functions on the same
state and resumes.  Integers only.
"""
from __future__ import annotations

import numpy as np

from ._nb_core import (BLOCK, BLOCK_LEN, ERR_PARAM, ERR_RANGE, OK, STATUS, WORD_POS, _I0, _I1, _I64MAX_U, _U0,
                       _U1, _U32, _device_state, _load, _mask, _rd_bits, _store)
from ._nb_drivers import _fleet
from ._nb_laplace import _ok_laplace, _rd_geometric_cks
from ._nb_jit import ijit, jit, pjit

NEED_DEEP = np.int64(-1)        # internal status: finish this draw in Python (see module doc)
_LOOK_W = np.uint64(12)         # fast_laplace.LOOKAHEAD_BITS
_U64B = np.uint64(64)           # fast_laplace.TABLE_BITS
_I64B = np.int64(64)


@ijit
def _rd_invert(state, buf, c, table, look):
    """The reference's ``invert`` -> (status, a, buf, c, lo, b).

    Fast path: the next 12 bits looked up in ``look`` (the reference's outcome
    and bit count for every 12-bit string), peeking at the next block word
    without consuming it as ``_rd_geometric_e1`` does.  Otherwise the bit loop
    from the same position; at 64 bits undecided it returns NEED_DEEP with
    (lo, a, b)."""
    if c >= _LOOK_W:
        e = np.int64(look[buf >> (c - _LOOK_W)])
        if e >= _I0:
            c = c - np.uint64(e >> 8)
            return OK, e & np.int64(255), buf & _mask(c), c, _U0, _I0
    else:
        pos = np.int64(state[WORD_POS])
        if pos < np.int64(state[BLOCK_LEN]):
            w = np.uint64(state[BLOCK + pos])
            cw = c + _U32
            e = np.int64(look[((buf << _U32) | w) >> (cw - _LOOK_W)])
            if e >= _I0:
                used = np.uint64(e >> 8)
                if used <= c:
                    c = c - used
                    return OK, e & np.int64(255), buf & _mask(c), c, _U0, _I0
                state[WORD_POS] = np.uint32(pos + _I1)
                c = cw - used
                return OK, e & np.int64(255), w & _mask(c), c, _U0, _I0
    n = np.int64(table.shape[0])
    lo = _U0
    d = _I0
    a = _I0
    b = n + _I1
    while a + _I1 < b:
        if d == _I64B:
            return NEED_DEEP, a, buf, c, lo, b
        st, bit, buf, c = _rd_bits(state, buf, c, _U1)
        if st != OK:
            return st, _I0, buf, c, _U0, _I0
        lo = (lo << _U1) | bit
        d = d + _I1
        sh = _U64B - np.uint64(d)
        while a < n and lo < (table[a] >> sh):        # lo + 1 <= F_(a+1), without wrapping
            a = a + _I1
        while b > _I1 and lo > (table[b - 2] >> sh):
            b = b - _I1
    return OK, a, buf, c, lo, b


@ijit
def _rd_finish(state, buf, c, s, t, n, a):
    """The reference's ``finish`` -> (status, int64 z, restart, buf, c)."""
    if a < n:
        y = np.uint64(a)
    else:
        st, g, buf, c = _rd_geometric_cks(state, buf, c, s, t)
        if st != OK:
            return st, _I0, False, buf, c
        if g > _I64MAX_U - np.uint64(n):
            return ERR_RANGE, _I0, False, buf, c
        y = g + np.uint64(n)
    st, sign, buf, c = _rd_bits(state, buf, c, _U1)
    if st != OK:
        return st, _I0, False, buf, c
    if sign == _U1 and y == _U0:
        return OK, _I0, True, buf, c
    if sign == _U1:
        return OK, -np.int64(y), False, buf, c
    return OK, np.int64(y), False, buf, c


@ijit
def _rd_dlap_fast(state, buf, c, s, t, table, look):
    """One draw -> (status, int64 z, buf, c, lo, a, b); (lo, a, b) matter for NEED_DEEP only."""
    n = np.int64(table.shape[0])
    while True:
        st, a, buf, c, lo, b = _rd_invert(state, buf, c, table, look)
        if st != OK:
            return st, _I0, buf, c, lo, a, b
        st, z, restart, buf, c = _rd_finish(state, buf, c, s, t, n, a)
        if st != OK:
            return st, _I0, buf, c, _U0, _I0, _I0
        if not restart:
            return OK, z, buf, c, _U0, _I0, _I0


@jit
def fill_dlap_fast_core(state, s, t, table, look, out, start):
    """Draws into out[start:] -> (status, count_done, lo, a, b).

    ``table``: uint64 boundary table, ``look``: int16 lookahead of
    ``fast_laplace`` for (s, t).  Status as the fill kernels (ERR_PARAM before
    any bit), or NEED_DEEP: out[count_done] is the draw to finish in Python
    from (lo, d = 64, a, b)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, np.int64(start), _U0, _I0, _I0
    if not _ok_laplace(s, t):
        return ERR_PARAM, np.int64(start), _U0, _I0, _I0
    su = np.uint64(s)
    tu = np.uint64(t)
    buf, c = _load(state)
    for i in range(start, out.shape[0]):
        st, z, buf, c, lo, a, b = _rd_dlap_fast(state, buf, c, su, tu, table, look)
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i), lo, a, b
        out[i] = z
    _store(state, buf, c)
    return OK, np.int64(out.shape[0]), _U0, _I0, _I0


@jit
def _fill_dlap_fast_row(state, s, t, table, look, out):
    """(status, count_done) of ``fill_dlap_fast_core`` from 0: the fleet's per-device fill."""
    st, done, lo, a, b = fill_dlap_fast_core(state, s, t, table, look, out, _I0)
    return st, done


@pjit
def fleet_dlap_fast_core(seed_key_words, device_ids, stream, s, t, table, look, draws_per_device, out,
                         status_out):
    """One keyed stream per device (``_fleet``); a device whose draw reached 64 inversion
    bits gets status NEED_DEEP (``fleet_discrete_laplace_fast`` redoes it)."""
    _fleet(_fill_dlap_fast_row, seed_key_words, device_ids, stream, draws_per_device, out, status_out,
           (s, t, table, look))


# --------------------------------------------------------------------------
# Python entry: tables, and the rare draw that reaches 64 bits

_TABLES = {}


def fast_laplace_tables(s, t):
    """(uint64 boundary table, int16 lookahead) for (s, t), cached (exact integers from
    ``fast_laplace``; 512 bytes + 8 KiB)."""
    key = (int(s), int(t))
    if key not in _TABLES:
        from . import fast_laplace as fl
        if len(_TABLES) >= 64:
            _TABLES.clear()
        _TABLES[key] = (np.array(fl.boundary_table(*key), dtype=np.uint64),
                        np.array(fl.lookahead_table(*key), dtype=np.int16))
    return _TABLES[key]


class _StateBits:
    """The reference's bit-source interface over a kernel state (reads through ``bits``)."""

    def __init__(self, state):
        self.state = state

    def bits(self, n):
        from ._nb_uniform import bits
        from ..errors import EntropyError
        st, v = bits(self.state, np.int64(n))
        if st != OK:
            raise EntropyError("stream failed while finishing a discrete_laplace_fast draw")
        return int(v)

    def bits64(self, n):
        if n <= 32:
            return self.bits(n)
        hi = self.bits(n - 32)
        return (hi << 32) | self.bits(32)


def fill_discrete_laplace_fast(state, s, t, out):
    """(status, count_done): len(out) draws of ``discrete_laplace_fast(s, t)`` into the
    int64 array ``out``, exactly the reference's bits.  s, t in [1, 2^32 - 1]
    (else ERR_PARAM, nothing read).  A draw that reaches 64 inversion bits is
    finished here with the reference's exact functions on the same state."""
    from . import fast_laplace as fl
    from ..errors import ERR_ENTROPY, EntropyError
    s_ok = isinstance(s, (int, np.integer)) and 1 <= int(s) <= 0xFFFFFFFF
    t_ok = isinstance(t, (int, np.integer)) and 1 <= int(t) <= 0xFFFFFFFF
    if not (s_ok and t_ok):
        return ERR_PARAM, 0
    s, t = int(s), int(t)
    table, look = fast_laplace_tables(s, t)
    su, tu = np.uint64(s), np.uint64(t)
    start = 0
    while True:
        st, done, lo, a, b = fill_dlap_fast_core(state, su, tu, table, look, out, np.int64(start))
        if st != NEED_DEEP:
            return int(st), int(done)
        src = _StateBits(state)
        ref_table = fl.boundary_table(s, t)
        try:
            a = fl.invert(src, s, t, ref_table, int(lo), fl.TABLE_BITS, int(a), int(b))
            z = fl.finish(src, s, t, ref_table, a)
            if z is None:
                z = fl.discrete_laplace_fast(src, s, t)
        except EntropyError:
            return ERR_ENTROPY, int(done)
        out[done] = z
        start = int(done) + 1
        if start == out.shape[0]:
            return OK, start


def fleet_discrete_laplace_fast(seed_key_words, device_ids, stream, s, t, draws_per_device, out,
                                status_out):
    """The fleet form (arguments as ``fleet_discrete_laplace``): device i draws
    ``out[i, :draws_per_device]`` from the stream of (seed, device_ids[i], stream) and
    ``status_out[i]`` is its status.  A device with a draw past 64 inversion bits is
    redone here from its seed with ``fill_discrete_laplace_fast`` (same stream, same
    bits, that draw finished exactly)."""
    s_ok = isinstance(s, (int, np.integer)) and 1 <= int(s) <= 0xFFFFFFFF
    t_ok = isinstance(t, (int, np.integer)) and 1 <= int(t) <= 0xFFFFFFFF
    if not (s_ok and t_ok):
        status_out[:] = ERR_PARAM
        return
    table, look = fast_laplace_tables(int(s), int(t))
    fleet_dlap_fast_core(seed_key_words, device_ids, np.uint32(stream), np.uint64(s), np.uint64(t), table,
                         look, np.int64(draws_per_device), out, status_out)
    for i in np.nonzero(status_out == NEED_DEEP)[0]:
        state = _device_state(seed_key_words, device_ids[i], np.uint32(stream))
        status_out[i], _ = fill_discrete_laplace_fast(state, int(s), int(t), out[i, :draws_per_device])
