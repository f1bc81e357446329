"""Exponential, geometric and discrete Laplace samplers of the Numba kernels:
``bernoulli_exp``, the geometric step with its lookahead table, and
``discrete_laplace`` / ``discrete_laplace_censored`` (readers, parameter
checks, single-draw, fill and fleet kernels).

Part of ``fxdp.samplers._kernels`` (which re-exports every name and documents
the conventions); import from there.
"""
from __future__ import annotations

import numpy as np

from ._nb_core import (BLOCK, BLOCK_LEN, ERR_RANGE, OK, WORD_POS, _I0, _I1, _I64MAX_U, _M32, _U0, _U1, _U32,
                       _U32MAX, _U64MAX, _in_range, _mask, _neg, _rd_bits)
from ._nb_drivers import _draw2, _draw4, _fill2, _fill4, _fleet
from ._nb_uniform import _rd_rational, _rd_uniform_below
from ._nb_jit import ijit, jit, pjit

_GEO_W = np.uint64(12)     # GEO_BITS, the lookahead of _rd_geometric_e1


# --------------------------------------------------------------------------
# lookahead table for the geometric step of discrete_laplace, derived from the
# reference at import (a few hundred reference runs, about a millisecond)

GEO_BITS = 12


class _NeedMore(Exception):
    pass


class _PrefixSource:
    """Serves the bits of a fixed prefix; asking for more raises _NeedMore."""

    def __init__(self, value, nbits):
        self.value, self.nbits, self.bits_used = value, nbits, 0

    def bits(self, n):
        if self.bits_used + n > self.nbits:
            raise _NeedMore
        self.bits_used += n
        return (self.value >> (self.nbits - self.bits_used)) & ((1 << n) - 1)

    def bits64(self, n):
        return self.bits(n)


def _geometric_table(width=GEO_BITS):
    """T[x] for every width-bit string x: (bits used << 8) | V when the reference
    loop ``V = 0; while bernoulli_exp(1, 1): V += 1`` finishes within the first
    bits of x, else -1.  Built by walking the loop's prefix-free code tree."""
    from .reference import bernoulli_exp as ref_exp

    table = np.full(1 << width, -1, dtype=np.int16)
    todo = [(0, 0)]
    while todo:
        value, nbits = todo.pop()
        src = _PrefixSource(value, nbits)
        try:
            v = 0
            while ref_exp(src, 1, 1):
                v += 1
        except _NeedMore:
            if nbits < width:
                todo += [(2 * value, nbits + 1), (2 * value + 1, nbits + 1)]
            continue
        assert src.bits_used == nbits and v < 256
        shift = width - nbits
        table[value << shift:(value + 1) << shift] = (nbits << 8) | v
    return table


_GEO_TABLE = _geometric_table()
assert int(_GEO_W) == GEO_BITS


# --------------------------------------------------------------------------
# samplers, internal forms: typed (uint64 / int64) valid parameters, buffer
# in (buf, c); no status or parameter checks.

@jit
def _rd_exp_le1(state, buf, c, n, d):
    """exp(-n/d), 0 <= n <= d < 2^32: K = 1; while bernoulli_rational(n, d K): K += 1; K odd.

    d K is kept as a running sum (no multiply or divide); ERR_RANGE if it
    would pass 2^64 - 1 (K > 2^32: probability below 1/(2^32)!)."""
    k = _U1
    dk = d
    while True:
        st, b, buf, c = _rd_rational(state, buf, c, n, dk)
        if st != OK:
            return st, False, buf, c
        if not b:
            return OK, (k & _U1) == _U1, buf, c
        k = k + _U1
        if dk > _U64MAX - d:
            return ERR_RANGE, False, buf, c
        dk = dk + d


@ijit
def _rd_exp(state, buf, c, n, d):
    """exp(-n/d), n < 2^32, 1 <= d < 2^32 (uint64): floor(n/d) times exp(-1), then exp(-frac)."""
    if n < d:                                   # the common case: no division
        return _rd_exp_le1(state, buf, c, n, d)
    whole = n // d
    frac = n - whole * d
    i = _U0
    while i < whole:
        st, b, buf, c = _rd_exp_le1(state, buf, c, _U1, _U1)
        if st != OK:
            return st, False, buf, c
        if not b:
            return OK, False, buf, c
        i = i + _U1
    return _rd_exp_le1(state, buf, c, frac, d)


@ijit
def _rd_geometric_e1(state, buf, c):
    """V = number of successes before the first failure of bernoulli_exp(1, 1):
    the loop ``V = 0; while bernoulli_exp(1, 1): V += 1`` of discrete_laplace,
    reading exactly its bits.

    Fast path (about 96%): look the next GEO_BITS bits up in ``_GEO_TABLE``
    (the reference's own outcome and bit count for every GEO_BITS-bit string).
    The lookahead is the buffer plus, if that is short, the next word of the
    current block *peeked* without consuming it; the word is consumed only if
    the bits used reach into it, which is exactly when the reference would
    fetch it.  Otherwise (the loop needs more bits, or the block or replay is
    used up) the plain loop runs from the same position.
    """
    if c >= _GEO_W:
        e = np.int64(_GEO_TABLE[buf >> (c - _GEO_W)])
        if e >= _I0:
            used = np.uint64(e >> 8)
            c = c - used
            return OK, np.uint64(e & 255), buf & _mask(c), c
    else:
        pos = np.int64(state[WORD_POS])
        if pos < np.int64(state[BLOCK_LEN]):
            w = np.uint64(state[BLOCK + pos])
            cw = c + _U32
            e = np.int64(_GEO_TABLE[((buf << _U32) | w) >> (cw - _GEO_W)])
            if e >= _I0:
                used = np.uint64(e >> 8)
                if used <= c:
                    c = c - used
                    return OK, np.uint64(e & 255), buf & _mask(c), c
                state[WORD_POS] = np.uint32(pos + _I1)
                c = cw - used
                return OK, np.uint64(e & 255), w & _mask(c), c
    v = _U0
    while True:
        st, b, buf, c = _rd_exp_le1(state, buf, c, _U1, _U1)
        if st != OK:
            return st, _U0, buf, c
        if not b:
            return OK, v, buf, c
        if v == _U64MAX:
            return ERR_RANGE, _U0, buf, c
        v = v + _U1


@ijit
def _rd_geometric_cks(state, buf, c, s, t):
    """CKS 2020 Alg. 2's geometric step, scale t/s, s, t in [1, 2^32) (uint64): U =
    uniform_below(t) until bernoulli_exp(U, t), V = ``_rd_geometric_e1`` ->
    (status, uint64 floor((U + t V) / s), buf, c); ERR_RANGE if U + t V passes
    2^64 - 1.  Shared by ``_rd_laplace`` and discrete_laplace_fast's tail
    (as csrc/fxdp_laplace.c's fxdp_i_geometric_cks)."""
    while True:
        st, u, buf, c = _rd_uniform_below(state, buf, c, t)
        if st != OK:
            return st, _U0, buf, c
        st, keep, buf, c = _rd_exp(state, buf, c, u, t)
        if st != OK:
            return st, _U0, buf, c
        if keep:
            break
    st, v, buf, c = _rd_geometric_e1(state, buf, c)
    if st != OK:
        return st, _U0, buf, c
    # u, t < 2^32: u + t v cannot wrap while v < 2^32.
    if v > _M32 and v > (_U64MAX - u) // t:
        return ERR_RANGE, _U0, buf, c
    y = u + t * v
    if s != _U1:
        y = y // s
    return OK, y, buf, c


@jit
def _rd_laplace(state, buf, c, s, t):
    """CKS 2020 Alg. 2 with scale t/s; s, t in [1, 2^32) (uint64) -> (status, int64, buf, c)."""
    while True:
        st, y, buf, c = _rd_geometric_cks(state, buf, c, s, t)
        if st != OK:
            return st, _I0, buf, c
        # Range errors come before the sign bit is read (as in csrc/fxdp_laplace.c).
        if y > _I64MAX_U:
            return ERR_RANGE, _I0, buf, c
        st, sign, buf, c = _rd_bits(state, buf, c, _U1)
        if st != OK:
            return st, _I0, buf, c
        if sign == _U1 and y == _U0:
            continue
        if sign == _U1:
            return OK, -np.int64(y), buf, c
        return OK, np.int64(y), buf, c


@ijit
def _rd_laplace_censored(state, buf, c, s, t, lo, hi):
    st, z, buf, c = _rd_laplace(state, buf, c, s, t)
    if st != OK:
        return st, _I0, buf, c
    if z < lo:
        return OK, lo, buf, c
    if z > hi:
        return OK, hi, buf, c
    return OK, z, buf, c


# --------------------------------------------------------------------------
# parameter checks (True = valid); the ranges of fxdp.samplers.reference

@jit
def _ok_exp(n, d):
    return _in_range(n, _U0, _U32MAX) and _in_range(d, _U1, _U32MAX)


@jit
def _ok_laplace(s, t):
    return _in_range(s, _U1, _U32MAX) and _in_range(t, _U1, _U32MAX)


@jit
def _ok_laplace_censored(s, t, lo, hi):
    return _ok_laplace(s, t) and _ok_bounds(lo, hi)


@jit
def _ok_bounds(lo, hi):
    """lo <= hi as int64 values (each must fit int64)."""
    if not _neg(lo) and np.uint64(lo) > _I64MAX_U:
        return False
    if not _neg(hi) and np.uint64(hi) > _I64MAX_U:
        return False
    return np.int64(lo) <= np.int64(hi)


# --------------------------------------------------------------------------
# public single-draw kernels: (status, value), the drivers _draw<arity>
# bound to the readers above (docstrings: the contract of each sampler)

@jit
def bernoulli_exp(state, n, d):
    """(status, bool) True w.p. exp(-n/d).  n in [0, 2^32 - 1], d in [1, 2^32 - 1]."""
    return _draw2(_rd_exp, state, False, _ok_exp, (n, d), np.uint64(n), np.uint64(d))


@jit
def discrete_laplace(state, s, t):
    """(status, int64 z), P(z) proportional to exp(-|z| s/t).  s, t in [1, 2^32 - 1]."""
    return _draw2(_rd_laplace, state, _I0, _ok_laplace, (s, t), np.uint64(s), np.uint64(t))


@jit
def discrete_laplace_censored(state, s, t, lo, hi):
    """(status, int64) discrete_laplace(s, t) saturated to [lo, hi] (int64, lo <= hi)."""
    return _draw4(_rd_laplace_censored, state, _I0, _ok_laplace_censored, (s, t, lo, hi),
                  np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi))


# --------------------------------------------------------------------------
# fill kernels: (status, count_done); out[:count_done] written.  The bit
# buffer stays in registers for the whole loop (_fill<arity>).

@jit
def fill_bernoulli_exp(state, n, d, out):
    return _fill2(_rd_exp, state, out, _ok_exp, (n, d), np.uint64(n), np.uint64(d))


@jit
def fill_discrete_laplace(state, s, t, out):
    return _fill2(_rd_laplace, state, out, _ok_laplace, (s, t), np.uint64(s), np.uint64(t))


@jit
def fill_discrete_laplace_censored(state, s, t, lo, hi, out):
    return _fill4(_rd_laplace_censored, state, out, _ok_laplace_censored, (s, t, lo, hi),
                  np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi))


# --------------------------------------------------------------------------
# fleet kernels: one keyed stream per device, devices in parallel (_fleet)
#
# Per-device body (reuse it for mechanisms):
#     state = _device_state(seed_key_words, device_ids[i], stream)
#     ... draws from `state` with the internal or fill kernels ...
#     status_out[i] = status

@pjit
def fleet_bernoulli_exp(seed_key_words, device_ids, stream, n, d, draws_per_device, out,
                        status_out):
    _fleet(fill_bernoulli_exp, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n, d))


@pjit
def fleet_discrete_laplace(seed_key_words, device_ids, stream, s, t, draws_per_device, out,
                           status_out):
    _fleet(fill_discrete_laplace, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (s, t))


@pjit
def fleet_discrete_laplace_censored(seed_key_words, device_ids, stream, s, t, lo, hi,
                                    draws_per_device, out, status_out):
    _fleet(fill_discrete_laplace_censored, seed_key_words, device_ids, stream, draws_per_device,
           out, status_out, (s, t, lo, hi))
