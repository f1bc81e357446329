"""Uniform and Bernoulli samplers of the Numba kernels: raw bits,
``uniform_below``, the lazy and constant-time dyadic Bernoulli, the rational
Bernoulli and the constant-time table sampler (readers, parameter checks,
single-draw, fill and fleet kernels).

Part of ``fxdp.samplers._kernels`` (which re-exports every name and documents
the conventions); import from there.
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ._nb_core import (ERR_PARAM, ERR_RANGE, OK, STATUS, _I0, _U0, _U1, _U32, _U63, _U64, _U64MAX, _fetch,
                       _M32, _U32MAX, _in_range, _load, _mask, _rd_bits, _rd_bits64,
                       _store, prefer_wide_vectors)
from ._nb_drivers import _draw1, _draw2, _fill1, _fill2, _fleet
from ._nb_jit import ijit, jit, pjit


# --------------------------------------------------------------------------
# samplers, internal forms: typed (uint64 / int64) valid parameters, buffer
# in (buf, c); no status or parameter checks.

@ijit
def _bit_length(x):
    """bit_length of a uint64 (0 for 0)."""
    if x == _U0:
        return _U0
    return _U64 - np.uint64(leading_zeros(x))


@jit
def _rd_uniform_below_wide(state, buf, c, n, k):
    """_rd_uniform_below for k = bit_length(n - 1) > 32: k bits per try (_rd_bits64) until x < n.
    A call, not inlined: such n are rare, and one compiled copy serves every kernel."""
    while True:
        st, x, buf, c = _rd_bits64(state, buf, c, k)
        if st != OK:
            return st, _U0, buf, c
        if x < n:
            return OK, x, buf, c


@ijit
def _rd_uniform_below(state, buf, c, n):
    """n >= 1: k = bit_length(n - 1) bits per try until x < n.

    For k <= 32 (n <= 2^32) each pass of the loop (issue 12, the k-ary RR and geometric fleets):
    - fetches the word the next try needs when fewer than k bits are buffered (c < k), as the try
      itself would, and joins it to the buffered bits (c + 32 < 64 bits);
    - when two tries are then buffered (2k <= c) forms both candidates and selects the first one
      below n without a branch: the rejection coin only decides whether another pass is needed
      (probability ((2^k - n) / 2^k)^2 instead of (2^k - n) / 2^k), so the data-dependent branch
      that the CPU mispredicts is taken far less often (8 ns less per k-ary RR fleet device here).
    Bits consumed are those of the try-by-try loop (a try's k bits are consumed only if that try
    is reached), and the buffer left behind holds fewer than 32 bits, as _store needs.  One fetch
    site, and k > 32 out of line, keep the inlined IR (and cold compile) as small as before."""
    k = _bit_length(n - _U1)
    if k > _U32:
        return _rd_uniform_below_wide(state, buf, c, n, k)
    while True:
        if c < k:
            st, w = _fetch(state)
            if st != OK:
                return st, _U0, buf, c
            buf = (buf << _U32) | w
            c = c + _U32                         # k <= c < k + 32 <= 64
        x1 = buf >> (c - k)
        ok1 = x1 < n
        if k + k <= c:
            x2 = (buf >> (c - k - k)) & _mask(k)
            ok2 = x2 < n
            if ok1 | ok2:
                c = c - (k if ok1 else k + k)
                return OK, (x1 if ok1 else x2), buf & _mask(c), c
            c = c - k - k                        # both tries rejected
        else:
            c = c - k
            if ok1:
                return OK, x1, buf & _mask(c), c
        buf = buf & _mask(c)                     # c < 32 from here on


UNIFORM_CT_ROUNDS = 4     # reference.UNIFORM_CT_ROUNDS, csrc FXDP_UNIFORM_CT_ROUNDS
_UCT_R = np.int64(UNIFORM_CT_ROUNDS)
_TWO32 = np.uint64(1) << np.uint64(32)


@ijit
def _rd_uniform_below_ct(state, buf, c, n):
    """reference.uniform_below_ct, n in [1, 2^32 - 1]: UNIFORM_CT_ROUNDS words, always all read;
    round i accepts iff (w_i n) mod 2^32 >= 2^32 mod n and proposes (w_i n) >> 32; the first
    accepted proposal (selected with masks, as in C); none -> ERR_RANGE (the bits stay consumed)."""
    t = _TWO32 % n
    v = _U0
    done = _U0
    for _ in range(_UCT_R):
        st, w, buf, c = _rd_bits(state, buf, c, _U32)
        if st != OK:
            return st, _U0, buf, c
        m = w * n
        take = (_U0 - np.uint64((m & _M32) >= t)) & ~done
        v |= (m >> _U32) & take
        done |= take
    if done == _U0:
        return ERR_RANGE, _U0, buf, c
    return OK, v, buf, c


@ijit
def _rd_dyadic_odd(state, buf, c, aa, m):
    """Lazy Bernoulli(aa / 2^m), aa odd, 1 <= m <= 63 (aa < 2^m).

    Reads exactly the bits of the reference's digit-by-digit loop, without a
    per-bit loop: the j = min(c, m) buffered stream bits are XORed with the
    next j digits of aa; the leading set bit of the XOR (count leading zeros)
    is the first difference, and only the bits up to and including it are
    consumed.  A new word is fetched only when the buffer is empty and digits
    remain, exactly when the reference's ``bits(1)`` would fetch.  When all
    remaining digits are buffered (small k, or the tail of a large one) the
    result is computed branch-free, so its randomness costs no mispredicted
    branch.
    """
    while True:
        if c == _U0:
            st, w = _fetch(state)
            if st != OK:
                return st, False, buf, c
            buf = w
            c = _U32
        if m <= c:
            # every remaining digit is buffered: finish without a data-dependent
            # branch (L = 0 when U agrees with all m digits: U >= p, m bits used)
            x = (buf >> (c - m)) ^ aa
            L = _U64 - np.uint64(leading_zeros(x))
            c = c - (m - L + np.uint64(L != _U0))
            # digit 1 against bit 0 at the first difference means U < p
            return OK, (((aa << _U1) >> L) & _U1) == _U1, buf & _mask(c), c
        sb = buf                                 # all c buffered bits (c < m)
        db = (aa >> (m - c)) & _mask(c)          # against the next c digits of p
        x = sb ^ db
        if x != _U0:
            L = _bit_length(x)                   # first difference at position c - L
            c = c - (c - L + _U1)
            return OK, ((db >> (L - _U1)) & _U1) == _U1, buf & _mask(c), c
        m = m - c
        aa = aa & _mask(m)                       # the digits still to compare
        buf = _U0
        c = _U0


@ijit
def _rd_dyadic(state, buf, c, a, k):
    """a, k uint64 with k <= 63, a <= 2^k."""
    if a == _U0:
        return OK, False, buf, c
    if a == (_U1 << k):
        return OK, True, buf, c
    z = np.uint64(trailing_zeros(a))
    return _rd_dyadic_odd(state, buf, c, a >> z, k - z)


@ijit
def _rd_dyadic_ct(state, buf, c, a, k):
    st, x, buf, c = _rd_bits64(state, buf, c, k)
    if st != OK:
        return st, False, buf, c
    return OK, x < a, buf, c


@ijit
def _rd_rational(state, buf, c, n, d):
    """n, d uint64 with 1 <= d, n <= d.  Digits of n/d by long division, one bit each."""
    if n == _U0:
        return OK, False, buf, c
    if n == d:
        return OK, True, buf, c
    r = n
    while True:
        if r >= d - r:
            digit = _U1
            r = r - (d - r)
        else:
            digit = _U0
            r = r + r
        if c == _U0:
            st, w = _fetch(state)
            if st != OK:
                return st, False, buf, c
            buf = w
            c = _U32
        c = c - _U1
        b = buf >> c
        buf = buf & _mask(c)
        if b != digit:
            return OK, digit == _U1, buf, c
        if r == _U0:
            return OK, False, buf, c


@ijit
def _rd_table(state, buf, c, thresholds, k):
    """Index = number of thresholds <= x for x = bits(k); full branch-free scan.

    The scan compares and counts in uint32 (x < 2^k and every threshold < 2^k, k <= 32, as
    _ok_table checks), so LLVM packs 16 compares into an AVX-512 register instead of 8: 10 ns
    against 19 ns for 200 thresholds here (the constant-time geometric's table, fleet kernels).
    prefer_wide_vectors: on CPUs that LLVM tunes for 256-bit vectors (Intel Xeon) the scan
    otherwise takes ymm registers, 8 compares each (200 thresholds: 19 ns against 14 with zmm,
    Emerald Rapids, 2026-11-29); every function this helper is inlined into is so marked."""
    prefer_wide_vectors()
    st, x, buf, c = _rd_bits(state, buf, c, k)
    if st != OK:
        return st, _I0, buf, c
    x32 = np.uint32(x)
    cnt = np.uint32(0)
    for i in range(thresholds.shape[0]):
        cnt = np.uint32(cnt + np.uint32(np.uint32(thresholds[i]) <= x32))
    return OK, np.int64(cnt), buf, c


# --------------------------------------------------------------------------
# parameter checks (True = valid); the ranges of fxdp.samplers.reference

@jit
def _ok_bits(n):
    return _in_range(n, _U0, _U32)


@jit
def _ok_bits64(n):
    return _in_range(n, _U0, _U64)


@jit
def _ok_uniform(n):
    return _in_range(n, _U1, _U64MAX)


@jit
def _ok_uniform_ct(n):
    return _in_range(n, _U1, _U32MAX)


@jit
def _ok_dyadic(a, k):
    if not _in_range(k, _U0, _U63):
        return False
    return _in_range(a, _U0, _U1 << np.uint64(k))


@jit
def _ok_rational(n, d):
    if not _in_range(d, _U1, _U64MAX):
        return False
    return _in_range(n, _U0, np.uint64(d))


@jit
def _ok_table(thresholds, k):
    if not _in_range(k, _U1, _U32):
        return False
    lim = (_U1 << np.uint64(k)) - _U1
    for i in range(thresholds.shape[0]):
        if not _in_range(thresholds[i], _U0, lim):
            return False
    return True


# --------------------------------------------------------------------------
# public single-draw kernels: (status, value), the drivers _draw<arity>
# bound to the readers above (docstrings: the contract of each sampler)

@jit
def bits(state, n):
    """(status, next n bits as uint64), n in [0, 32]."""
    return _draw1(_rd_bits, state, _U0, _ok_bits, (n,), np.uint64(n))


@jit
def bits64(state, n):
    """(status, next n bits as uint64), n in [0, 64]."""
    return _draw1(_rd_bits64, state, _U0, _ok_bits64, (n,), np.uint64(n))


@jit
def uniform_below(state, n):
    """(status, x) with x uniform on {0..n-1}, n in [1, 2^64 - 1] (uint64 value)."""
    return _draw1(_rd_uniform_below, state, _U0, _ok_uniform, (n,), np.uint64(n))


@jit
def uniform_below_ct(state, n):
    """(status, x) with x uniform on {0..n-1}, n in [1, 2^32 - 1], constant time: exactly
    32 UNIFORM_CT_ROUNDS bits; ERR_RANGE (probability < (n/2^32)^UNIFORM_CT_ROUNDS) if no round accepts."""
    return _draw1(_rd_uniform_below_ct, state, _U0, _ok_uniform_ct, (n,), np.uint64(n))


@jit
def bernoulli_dyadic(state, a, k):
    """(status, bool) True w.p. a/2^k, lazy (not constant time).  k in [0, 63], a in [0, 2^k]."""
    return _draw2(_rd_dyadic, state, False, _ok_dyadic, (a, k), np.uint64(a), np.uint64(k))


@jit
def bernoulli_dyadic_ct(state, a, k):
    """(status, bool) True w.p. a/2^k; always reads exactly k bits.  k in [0, 63], a in [0, 2^k]."""
    return _draw2(_rd_dyadic_ct, state, False, _ok_dyadic, (a, k), np.uint64(a), np.uint64(k))


@jit
def bernoulli_rational(state, n, d):
    """(status, bool) True w.p. n/d.  d in [1, 2^64 - 1], n in [0, d]."""
    return _draw2(_rd_rational, state, False, _ok_rational, (n, d), np.uint64(n), np.uint64(d))


@jit
def table_sample_ct(state, thresholds, k):
    """(status, int64 index): one k-bit draw x (k in [1, 32]), index = #{thresholds <= x}.

    ``thresholds``: integer array, every entry in [0, 2^k) (checked, ERR_PARAM)."""
    return _draw2(_rd_table, state, _I0, _ok_table, (thresholds, k), thresholds, np.uint64(k))


# --------------------------------------------------------------------------
# fill kernels: (status, count_done); out[:count_done] written.  The bit
# buffer stays in registers for the whole loop (_fill<arity>).

@jit
def fill_bits(state, n, out):
    return _fill1(_rd_bits, state, out, _ok_bits, (n,), np.uint64(n))


@jit
def fill_uniform_below(state, n, out):
    # Written out, not _fill1(_rd_uniform_below, ...): through the driver this
    # loop ran 3.5% slower (2.77e8 against 2.88e8 samples/s for n = 1000: same
    # instructions, other register allocation; benchmarks/kernel_fold.md).
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not _ok_uniform(n):
        return ERR_PARAM, _I0
    nn = np.uint64(n)
    buf, c = _load(state)
    for i in range(out.shape[0]):
        st, v, buf, c = _rd_uniform_below(state, buf, c, nn)
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = v
    _store(state, buf, c)
    return OK, np.int64(out.shape[0])


@jit
def fill_uniform_below_ct(state, n, out):
    return _fill1(_rd_uniform_below_ct, state, out, _ok_uniform_ct, (n,), np.uint64(n))


@jit
def fill_bernoulli_dyadic(state, a, k, out):
    # Written out, not _fill2(_rd_dyadic_odd, ...): the reduction of a/2^k to
    # an odd numerator (and the constant cases a = 0, a = 2^k, which read
    # nothing) is hoisted out of the loop, between the checks and the loop,
    # and the same loop through _fill2 ran 5% slower (3.73e8 against 3.95e8
    # samples/s for 3/4: same instructions, other register allocation;
    # benchmarks/kernel_fold.md).
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not _ok_dyadic(a, k):
        return ERR_PARAM, _I0
    aa = np.uint64(a)
    kk = np.uint64(k)
    if aa == _U0 or aa == (_U1 << kk):          # reads nothing
        const = aa != _U0
        for i in range(out.shape[0]):
            out[i] = const
        return OK, np.int64(out.shape[0])
    z = np.uint64(trailing_zeros(aa))
    ao = aa >> z
    m = kk - z
    buf, c = _load(state)
    for i in range(out.shape[0]):
        st, v, buf, c = _rd_dyadic_odd(state, buf, c, ao, m)
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = v
    _store(state, buf, c)
    return OK, np.int64(out.shape[0])


@jit
def fill_bernoulli_dyadic_ct(state, a, k, out):
    return _fill2(_rd_dyadic_ct, state, out, _ok_dyadic, (a, k), np.uint64(a), np.uint64(k))


@jit
def fill_bernoulli_rational(state, n, d, out):
    return _fill2(_rd_rational, state, out, _ok_rational, (n, d), np.uint64(n), np.uint64(d))


@jit
def fill_table_sample_ct(state, thresholds, k, out):
    return _fill2(_rd_table, state, out, _ok_table, (thresholds, k), thresholds, np.uint64(k))


# --------------------------------------------------------------------------
# fleet kernels: one keyed stream per device, devices in parallel (_fleet)
#
# Per-device body (reuse it for mechanisms):
#     state = _device_state(seed_key_words, device_ids[i], stream)
#     ... draws from `state` with the internal or fill kernels ...
#     status_out[i] = status

@pjit
def fleet_bits(seed_key_words, device_ids, stream, n, draws_per_device, out, status_out):
    _fleet(fill_bits, seed_key_words, device_ids, stream, draws_per_device, out, status_out, (n,))


@pjit
def fleet_uniform_below(seed_key_words, device_ids, stream, n, draws_per_device, out, status_out):
    _fleet(fill_uniform_below, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n,))


@pjit
def fleet_uniform_below_ct(seed_key_words, device_ids, stream, n, draws_per_device, out, status_out):
    _fleet(fill_uniform_below_ct, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n,))


@pjit
def fleet_bernoulli_dyadic(seed_key_words, device_ids, stream, a, k, draws_per_device, out,
                           status_out):
    _fleet(fill_bernoulli_dyadic, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (a, k))


@pjit
def fleet_bernoulli_dyadic_ct(seed_key_words, device_ids, stream, a, k, draws_per_device, out,
                              status_out):
    _fleet(fill_bernoulli_dyadic_ct, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (a, k))


@pjit
def fleet_bernoulli_rational(seed_key_words, device_ids, stream, n, d, draws_per_device, out,
                             status_out):
    _fleet(fill_bernoulli_rational, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n, d))


@pjit
def fleet_table_sample_ct(seed_key_words, device_ids, stream, thresholds, k, draws_per_device,
                          out, status_out):
    _fleet(fill_table_sample_ct, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (thresholds, k))
