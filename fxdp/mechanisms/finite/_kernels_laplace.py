"""Numba kernels for the finite-precision Laplace mechanisms and their exhaustive sweeps.

(Over 700 lines, one module: the integer ln / CORDIC kernels, four release forms and the exhaustive sweeps
that the audit runs are kept in one module so that the sweeps visibly run the very integer helpers
the releases run; a split by form is possible and left for when a form is added.)

Bit-identical to the references in ``fxdp/fixmath.py`` and
``fxdp/mechanisms/finite/laplace.py`` (and to csrc/fxdp_fixmath.c, csrc/fxdp_laplace_fixed.c):
same bits, same integer operations.  State arrays, status codes and the
fleet pattern are those of ``fxdp/samplers/_kernels.py``.  No floating point
on any sampling path; the *sweep* kernels (error measurement, never used to
sample) compare against the integer reference ``ref_neglog_q58`` exactly, or
against float64 with explicit error margins where they say so.

Parameter blocks (int64 arrays, see ``LaplaceFixed.kernel_params`` etc.):
  1-D:    [k, method, B, shift, nshift, lo, hi, step, cap, trunc]
  planar: [ka, kr, B, shift, lo, hi, step, cap]
  grid:   [s, t, lo, hi, step]
Outputs: raw int64, ``EXCEPTION_RAW`` (-2^63) for the exception value.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros

from ...samplers import _kernels as K
from ...samplers._kernels import (FLEET_CHUNK, LANES, OK, STATE_WORDS, STATUS, seed_device, bits as _bits_pub,
                                 discrete_laplace_censored as _dlap_censored)
from ... import fixmath as fm
from ...samplers._nb_jit import float_pjit, jit_nrt, pjit


EXCEPTION_RAW = np.int64(-(1 << 63))

LN_TABLE = np.array(fm.LN_TABLE, dtype=np.uint64)
LN_INV = np.array(fm.LN_INV, dtype=np.uint64)
ATAN = np.array(fm.ATAN_Q62, dtype=np.int64)
REF_LN1P = np.array(fm.REF_LN1P_Q62, dtype=np.uint64)

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U6 = np.uint64(6)
_U8 = np.uint64(8)
_U18 = np.uint64(18)
_U24 = np.uint64(24)
_U25B = np.uint64(1 << 25)
_U26 = np.uint64(26)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U34 = np.uint64(34)
_U46 = np.uint64(46)
_U62 = np.uint64(62)
_U63 = np.uint64(63)
_U127 = np.uint64(127)
_U2_31 = np.uint64(1 << 31)
_U2_63 = np.uint64(1 << 63)
_M3 = np.uint64(fm.M3)
_M32 = np.uint64(0xFFFFFFFF)
_M30 = np.uint64((1 << 30) - 1)
_LN2_Q58 = np.uint64(fm.LN2_Q58)
_LNM_MAX = np.uint64(fm.LNM_MAX)
_K61 = np.int64(fm.CORDIC_K_Q61)
_REF_LN2 = np.uint64(fm.REF_LN2_Q62)
_I0 = np.int64(0)
_I1 = np.int64(1)
_I2_29 = np.int64(1 << 29)
_I2_30 = np.int64(1 << 30)
_ITERS = fm.CORDIC_ITERS


# --------------------------------------------------------------------------
# bit source access: only the public kernels of fxdp.samplers._kernels


@jit_nrt
def _bits(state, n):
    """(status, next n bits) for n uint64 in [1, 32] (public kernel: checks the sticky status)."""
    return _bits_pub(state, np.int64(n))


# --------------------------------------------------------------------------
# fixed-point math (device algorithms)

@jit_nrt
def ln_mantissa_q32(m):
    """ln(m / 2^31) in Q0.32; m uint64 in [2^31, 2^32)."""
    m = np.uint64(m)
    j = (m >> _U24) & _U127
    r = m - (_U2_31 + (j << _U24))
    z = (r * LN_INV[j]) >> _U30
    a = (z * _M3) >> _U32
    b = (z * z) >> _U34
    kk = _U2_31 - a + b
    z2 = (z * z) >> _U18
    t = (z2 * kk) >> _U46
    return LN_TABLE[j] + z - t


@jit_nrt
def neglog_q26(w, k):
    """-ln(w / 2^k) in Q5.26 (uint64); w in [1, 2^k), k in [1, 32]."""
    w = np.uint64(w)
    k = np.uint64(k)
    e = _U63 - np.uint64(leading_zeros(w))
    m = (w << (_U31 - e)) & _M32
    lnm = ln_mantissa_q32(m)
    if lnm > _LNM_MAX:
        lnm = _LNM_MAX
    l32 = (((k - e) * _LN2_Q58 + _U25B) >> _U26) - lnm
    return (l32 + _U32) >> _U6


@jit_nrt
def cordic_cos_sin_q30(a):
    """(cos, sin) in Q1.30 (int64) of the angle a / 2^32 turns, a uint64 < 2^32."""
    a = np.uint64(a)
    q = a >> _U30
    z = np.int64((a & _M30) << _U30)
    x = _K61
    y = _I0
    for i in range(_ITERS):
        if z >= 0:
            nx = x - (y >> i)
            y = y + (x >> i)
            x = nx
            z = z - ATAN[i]
        else:
            nx = x + (y >> i)
            y = y - (x >> i)
            x = nx
            z = z + ATAN[i]
    c = (x + _I2_30) >> 31
    s = (y + _I2_30) >> 31
    if q == _U0:
        return c, s
    if q == _U1:
        return -s, c
    if q == _U2:
        return -c, -s
    return s, -c


@jit_nrt
def _rsr(v, s):
    """round(v / 2^s) ties up, v uint64 (no overflow); s uint64."""
    if s == _U0:
        return v
    return ((v >> (s - _U1)) + _U1) >> _U1


@jit_nrt
def ref_ln_mantissa_q62(w):
    """Shift-and-add reference: ln(w / 2^e) in Q.62 (uint64), w in [1, 2^62]."""
    w = np.uint64(w)
    e = _U63 - np.uint64(leading_zeros(w))
    y = w << (_U62 - e)
    acc = _U0
    for i in range(1, 63):
        t = y + (y >> np.uint64(i))
        if t <= _U2_63:
            y = t
            acc += REF_LN1P[i]
    # ln2 - acc + (y - 2^63)/2, with y <= 2^63
    return _REF_LN2 - acc - ((_U2_63 - y) >> _U1)


@jit_nrt
def ref_neglog_q58(w, k):
    """lambda(w, k) = -ln(w/2^k) in Q.58 (uint64); |error| < 2^-54."""
    w = np.uint64(w)
    e = _U63 - np.uint64(leading_zeros(w))
    lnm = ref_ln_mantissa_q62(w)
    # round(((k - e) ln2_62 - lnm) / 16) without 64-bit overflow: ln2_62 = 16 H + l
    ke = np.uint64(k) - e
    a = ke * (_REF_LN2 >> np.uint64(4))
    bv = np.int64(lnm) - np.int64(ke * (_REF_LN2 & np.uint64(15)))
    return np.uint64(np.int64(a) + ((np.int64(8) - bv) >> 4))


# --------------------------------------------------------------------------
# mechanisms: single releases (internal; parameters already validated)

@jit_nrt
def _laplace_noise(state, P):
    k = np.uint64(P[0])
    st, j = _bits(state, k)
    if st != OK:
        return st, _I0
    i = j & ((_U1 << (k - _U1)) - _U1)
    neg = (j >> (k - _U1)) == _U0
    if neg:
        w = _U2 * i + _U1
    else:
        w = ((_U1 << k) - _U1) - _U2 * i
    lam = neglog_q26(w, k)
    if P[1] == 1:
        mag = _rsr(lam, np.uint64(P[3])) << np.uint64(P[4])
    else:
        mag = _rsr(np.uint64(P[2]) * lam, np.uint64(P[3]))
    cap = np.uint64(P[8])
    if mag > cap:
        mag = cap
    noise = np.int64(mag)
    if neg:
        noise = -noise
    return OK, noise


@jit_nrt
def _post_1d(y, P):
    step = P[7]
    g = ((y + step // 2) // step) * step
    if g < P[5]:
        return P[5] if P[9] == 1 else EXCEPTION_RAW
    if g > P[6]:
        return P[6] if P[9] == 1 else EXCEPTION_RAW
    return g


@jit_nrt
def _laplace_release(state, P, x):
    if x < P[5]:
        x = P[5]
    elif x > P[6]:
        x = P[6]
    st, noise = _laplace_noise(state, P)
    if st != OK:
        return st, _I0
    return OK, _post_1d(x + noise, P)


@jit_nrt
def _planar_noise(state, P):
    ka = np.uint64(P[0])
    kr = np.uint64(P[1])
    st, ja = _bits(state, ka)
    if st != OK:
        return st, _I0, _I0
    st, i1 = _bits(state, kr)
    if st != OK:
        return st, _I0, _I0
    st, i2 = _bits(state, kr)
    if st != OK:
        return st, _I0, _I0
    a = ((_U2 * ja + _U1) << (_U31 - ka)) & _M32
    c, s = cordic_cos_sin_q30(a)
    n = kr + _U1
    lam = neglog_q26(_U2 * i1 + _U1, n) + neglog_q26(_U2 * i2 + _U1, n)
    r = _rsr(np.uint64(P[2]) * lam, np.uint64(P[3]))
    cap = np.uint64(P[7])
    if r > cap:
        r = cap
    rr = np.int64(r)
    return OK, (rr * c + _I2_29) >> 30, (rr * s + _I2_29) >> 30


@jit_nrt
def _planar_release(state, P, x, y):
    lo = P[4]
    hi = P[5]
    step = P[6]
    x = min(max(x, lo), hi)
    y = min(max(y, lo), hi)
    st, dx, dy = _planar_noise(state, P)
    if st != OK:
        return st, _I0, _I0
    gx = ((x + dx + step // 2) // step) * step
    gy = ((y + dy + step // 2) // step) * step
    if gx < lo or gx > hi or gy < lo or gy > hi:
        return OK, EXCEPTION_RAW, EXCEPTION_RAW
    return OK, gx, gy


@jit_nrt
def _grid_release(state, P, x):
    s = np.uint64(P[0])
    t = np.uint64(P[1])
    lo = P[2]
    hi = P[3]
    step = P[4]
    x = min(max(x, lo), hi)
    xg = (x + step // 2) // step
    st, z = _dlap_censored(state, s, t, lo // step - xg, hi // step - xg)
    if st != OK:
        return st, _I0
    return OK, (xg + z) * step


# --------------------------------------------------------------------------
# bulk and fleet kernels

@jit_nrt
def fill_laplace(state, P, xs, out):
    """out[i] = release(xs[i]) from one state; returns (status, count_done)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    for i in range(out.shape[0]):
        st, v = _laplace_release(state, P, xs[i])
        if st != OK:
            return st, np.int64(i)
        out[i] = v
    return OK, np.int64(out.shape[0])


@jit_nrt
def fill_planar(state, P, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    for i in range(out.shape[0]):
        st, a, b = _planar_release(state, P, xs[i, 0], xs[i, 1])
        if st != OK:
            return st, np.int64(i)
        out[i, 0] = a
        out[i, 1] = b
    return OK, np.int64(out.shape[0])


@jit_nrt
def fill_laplace_grid(state, P, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    for i in range(out.shape[0]):
        st, v = _grid_release(state, P, xs[i])
        if st != OK:
            return st, np.int64(i)
        out[i] = v
    return OK, np.int64(out.shape[0])


@jit_nrt
def fill_planar_grid(state, P, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    for i in range(out.shape[0]):
        st, a = _grid_release(state, P, xs[i, 0])
        if st != OK:
            return st, np.int64(i)
        st, b = _grid_release(state, P, xs[i, 1])
        if st != OK:
            return st, np.int64(i)
        out[i, 0] = a
        out[i, 1] = b
    return OK, np.int64(out.shape[0])


@jit_nrt
def fill_laplace_noise(state, P, out):
    """Raw signed noise draws (before adding, snapping, truncation)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    for i in range(out.shape[0]):
        st, v = _laplace_noise(state, P)
        if st != OK:
            return st, np.int64(i)
        out[i] = v
    return OK, np.int64(out.shape[0])


@jit_nrt
def fill_planar_noise(state, P, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    for i in range(out.shape[0]):
        st, a, b = _planar_noise(state, P)
        if st != OK:
            return st, np.int64(i)
        out[i, 0] = a
        out[i, 1] = b
    return OK, np.int64(out.shape[0])


# The four fleets keep their own prange loops (chunks of devices, first blocks in lanes), two per
# output shape (scalar, (x, y)).  A
# driver taking the release as a first-class function (as fxdp/samplers/_nb_drivers.py does)
# would fit, since every release takes (state, P, x); it would remove two 6-line copies and add
# one more dispatcher to compile and cache, which was not worth it.  The planar grid also
# differs: two draws per device, the second only after the first succeeded.
@pjit
def fleet_laplace(key_words, device_ids, stream, P, xs, out, status_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + FLEET_CHUNK - 1) // FLEET_CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        lo = ch * FLEET_CHUNK
        hi = min(n, lo + FLEET_CHUNK)
        for i in range(lo, hi):
            seed_device(state, lanes, key_words, device_ids, i, lo, hi, 0, stream)
            st, v = _laplace_release(state, P, xs[i])
            out[i] = v
            status_out[i] = st


@pjit
def fleet_planar(key_words, device_ids, stream, P, xs, out, status_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + FLEET_CHUNK - 1) // FLEET_CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        lo = ch * FLEET_CHUNK
        hi = min(n, lo + FLEET_CHUNK)
        for i in range(lo, hi):
            seed_device(state, lanes, key_words, device_ids, i, lo, hi, 0, stream)
            st, a, b = _planar_release(state, P, xs[i, 0], xs[i, 1])
            out[i, 0] = a
            out[i, 1] = b
            status_out[i] = st


@pjit
def fleet_laplace_grid(key_words, device_ids, stream, P, xs, out, status_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + FLEET_CHUNK - 1) // FLEET_CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        lo = ch * FLEET_CHUNK
        hi = min(n, lo + FLEET_CHUNK)
        for i in range(lo, hi):
            seed_device(state, lanes, key_words, device_ids, i, lo, hi, 0, stream)
            st, v = _grid_release(state, P, xs[i])
            out[i] = v
            status_out[i] = st


@pjit
def fleet_planar_grid(key_words, device_ids, stream, P, xs, out, status_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + FLEET_CHUNK - 1) // FLEET_CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        lo = ch * FLEET_CHUNK
        hi = min(n, lo + FLEET_CHUNK)
        for i in range(lo, hi):
            seed_device(state, lanes, key_words, device_ids, i, lo, hi, 0, stream)
            st, a = _grid_release(state, P, xs[i, 0])
            if st == OK:
                st, b = _grid_release(state, P, xs[i, 1])
            else:
                b = _I0
            out[i, 0] = a
            out[i, 1] = b
            status_out[i] = st


# --------------------------------------------------------------------------
# exhaustive sweeps (measurement only)

# Incremental references: inside a chunk the reference is carried from element to element by
# exact-rational increments ln(v / (v - d)) = 2 atanh(d / (2v - d)) rounded to the nearest unit
# (plus a dropped cubic term, bounded below); each chunk restarts from the direct shift-and-add
# reference.  The drivers in audit_finite.py add the accumulated bound (REF margin) to every
# reported maximum.
INC_MIN_W = 1 << 20        # below this w the sweeps use the direct reference at every element


@jit_nrt
def _div_round(num, den):
    """round(num / den) for uint64 (num + den/2 must not overflow)."""
    return (num + (den >> _U1)) // den


@pjit
def sweep_ln_mantissas(m_start, m_stop, chunks):
    """Over mantissas m in [m_start, m_stop) (int64 in [2^31, 2^32]): returns
    (max_err, min_err, nonmonotone, per_chunk) with err = ln_mantissa_q32(m) 2^30 - reference
    (units of 2^-62).  nonmonotone counts m with ln(m) < ln(m - 1).  Reference: shift-and-add at
    each chunk start (error < 2^7 units), then + round(2^63 / (2m - 1)) per step (error <= 0.5 + 2^-30
    units per step): total reference error < 2^7 + 0.6 per_chunk units."""
    n = np.int64(m_stop - m_start)
    per = (n + chunks - 1) // chunks
    mx = np.full(chunks, np.iinfo(np.int64).min, dtype=np.int64)
    mn = np.full(chunks, np.iinfo(np.int64).max, dtype=np.int64)
    bad = np.zeros(chunks, dtype=np.int64)
    two63 = np.uint64(1) << _U63
    for c in numba.prange(chunks):
        a = np.int64(m_start) + c * per
        b = min(a + per, np.int64(m_stop))
        prev = np.uint64(0)
        if a > np.int64(m_start):
            prev = ln_mantissa_q32(np.uint64(a - 1))
        ref = np.int64(0)
        for mm in range(a, b):
            m = np.uint64(mm)
            v = ln_mantissa_q32(m)
            if mm > np.int64(m_start) and v < prev:
                bad[c] += 1
            prev = v
            if mm == a:
                ref = np.int64(ref_ln_mantissa_q62(m))
            else:
                ref += np.int64(_div_round(two63, _U2 * m - _U1))
            err = np.int64(v << _U30) - ref
            if err > mx[c]:
                mx[c] = err
            if err < mn[c]:
                mn[c] = err
    return mx.max(), mn.min(), bad.sum(), per


@jit_nrt
def _ref_step(ref, w, kk):
    """lambda_ref(w) from lambda_ref(w - 2) (Q.58, int64): minus round(2^59 / (w - 1)); for
    w - 1 >= 2^20 the dropped cubic term is < 0.17 units, rounding 0.5."""
    return ref - np.int64(_div_round(np.uint64(1) << np.uint64(59), w - _U1))


@pjit
def sweep_neglog(k, w_lo, chunks):
    """Over odd w in [w_lo, 2^k): (max_err, min_err, nonmonotone, argmax, per_chunk) with
    err = neglog_q26(w) 2^32 - reference (units of 2^-58).  Reference error < 16 + 0.67 per_chunk units."""
    kk = np.uint64(k)
    first = np.int64(w_lo) | 1
    count = ((np.int64(1) << np.int64(k)) - first + 1) // 2
    per = (count + chunks - 1) // chunks
    mx = np.full(chunks, np.iinfo(np.int64).min, dtype=np.int64)
    mn = np.full(chunks, np.iinfo(np.int64).max, dtype=np.int64)
    am = np.zeros(chunks, dtype=np.int64)
    bad = np.zeros(chunks, dtype=np.int64)
    for c in numba.prange(chunks):
        a = c * per
        b = min(a + per, count)
        prev = np.uint64(0)
        ref = np.int64(0)
        for idx in range(a, b):
            w = np.uint64(first + 2 * idx)
            v = neglog_q26(w, kk)
            if idx > a and v > prev:
                bad[c] += 1
            if idx == a and idx > 0:
                if v > neglog_q26(w - _U2, kk):
                    bad[c] += 1
            prev = v
            if idx == a or w < np.uint64(INC_MIN_W):
                ref = np.int64(ref_neglog_q58(w, kk))
            else:
                ref = _ref_step(ref, w, kk)
            err = np.int64(v << _U32) - ref
            if err > mx[c]:
                mx[c] = err
                am[c] = np.int64(w)
            if err < mn[c]:
                mn[c] = err
    i = np.argmax(mx)
    return mx[i], mn.min(), bad.sum(), am[i], per


@jit_nrt
def _mag(w, P):
    """Capped raw magnitude of the 1-D noise for odd w (as in _laplace_noise)."""
    k = np.uint64(P[0])
    lam = neglog_q26(w, k)
    if P[1] == 1:
        mag = _rsr(lam, np.uint64(P[3])) << np.uint64(P[4])
    else:
        mag = _rsr(np.uint64(P[2]) * lam, np.uint64(P[3]))
    cap = np.uint64(P[8])
    if mag > cap:
        mag = cap
    return mag


@float_pjit     # a measurement sweep against float64 with a stated margin (off the sampling path)
def sweep_noise_1d(P, w_lo, chunks):
    """Over odd w in [w_lo, 2^k): max |mag(w) - T(w)| in raw units (float64),
    T(w) = Beff lambda(w) 2^(26 - shift), Beff = B (direct) or 2^nshift (scaled); also counts
    violations of mag(w) <= mag(w - 2) (Condition 2).  Returns (max_err, argmax, bad, per_chunk).
    Margins (added by the driver): reference error (16 + 0.67 per) 2^-58 Beff 2^(26-shift) raw,
    float rounding 2^-50 (cap + 1)."""
    k = np.uint64(P[0])
    first = np.int64(w_lo) | 1
    count = ((np.int64(1) << np.int64(P[0])) - first + 1) // 2
    per = (count + chunks - 1) // chunks
    mx = np.zeros(chunks, dtype=np.float64)
    am = np.zeros(chunks, dtype=np.int64)
    bad = np.zeros(chunks, dtype=np.int64)
    s = np.uint64(P[3])
    scaled = P[1] == 1
    if scaled:
        beff = np.float64(np.int64(1) << P[4])
    else:
        beff = np.float64(P[2])
    two_s = np.float64(2.0) ** np.float64(P[3])
    for c in numba.prange(chunks):
        a = c * per
        b = min(a + per, count)
        ref = np.int64(0)
        prevmag = np.uint64(0)
        for idx in range(a, b):
            w = np.uint64(first + 2 * idx)
            mag = _mag(w, P)
            if idx > a:
                if mag > prevmag:
                    bad[c] += 1
            elif idx > 0 and mag > _mag(w - _U2, P):
                bad[c] += 1
            prevmag = mag
            lam = neglog_q26(w, k)
            v = lam if scaled else np.uint64(P[2]) * lam
            q = v >> s
            rem = v - (q << s)
            if idx == a or w < np.uint64(INC_MIN_W):
                ref = np.int64(ref_neglog_q58(w, k))
            else:
                ref = _ref_step(ref, w, k)
            err58 = np.int64(lam << _U32) - ref
            if scaled:
                t_int = np.float64(q) * beff
                t_frac = np.float64(rem) / two_s * beff
            else:
                t_int = np.float64(q)
                t_frac = np.float64(rem) / two_s
            corr = beff * np.float64(err58) / (two_s * np.float64(4294967296.0))
            e = abs((np.float64(mag) - t_int) - t_frac + corr)
            if e > mx[c]:
                mx[c] = e
                am[c] = np.int64(w)
    i = np.argmax(mx)
    return mx[i], am[i], bad.sum(), per


@float_pjit     # a measurement sweep against float64 with a stated margin (off the sampling path)
def sweep_cordic(ka, chunks):
    """Over all ka-bit midpoint angles: (max component error, max Euclidean error) of the Q1.30
    CORDIC output against float64 cos/sin (units of 1; add the documented margin)."""
    n = np.int64(1) << np.int64(ka)
    per = (n + chunks - 1) // chunks
    mc = np.zeros(chunks, dtype=np.float64)
    me = np.zeros(chunks, dtype=np.float64)
    step = np.pi / np.float64(n)        # (2j+1)/2^(ka+1) turns = (2j+1) pi / 2^ka rad
    for c in numba.prange(chunks):
        a0 = c * per
        b0 = min(a0 + per, n)
        for j in range(a0, b0):
            a = ((np.uint64(2 * j + 1)) << (_U31 - np.uint64(ka))) & _M32
            co, si = cordic_cos_sin_q30(a)
            th = np.float64(2 * j + 1) * step
            dc = np.float64(co) / 1073741824.0 - np.cos(th)
            ds = np.float64(si) / 1073741824.0 - np.sin(th)
            e1 = max(abs(dc), abs(ds))
            e2 = np.sqrt(dc * dc + ds * ds)
            if e1 > mc[c]:
                mc[c] = e1
            if e2 > me[c]:
                me[c] = e2
    return mc.max(), me.max()


@pjit
def mag_count_ge(P, vmax):
    """W[v] = #{odd w in [1, 2^k) : mag(w) >= v} for v = 0..vmax+1, by binary search
    (mag is non-increasing in w: Condition 2, verified by the sweeps)."""
    half = np.int64(1) << (P[0] - 1)           # number of odd w
    out = np.zeros(vmax + 2, dtype=np.int64)
    for v in numba.prange(vmax + 2):
        vv = np.uint64(v)
        lo = np.int64(0)
        hi = half                                 # first index i with mag(2i+1) < v, in [0, half]
        while lo < hi:
            mid = (lo + hi) // 2
            if _mag(np.uint64(2 * mid + 1), P) >= vv:
                lo = mid + 1
            else:
                hi = mid
        out[v] = lo
    return out


@pjit
def radius_hist(P, chunks):
    """hist[r] = #{(i1, i2) : radius(i1, i2) = r} for r in [0, cap] (planar, exhaustive over 2^(2 kr))."""
    kr = np.uint64(P[1])
    n = np.int64(1) << P[1]
    cap = P[7]
    loc = np.zeros((chunks, cap + 1), dtype=np.int64)
    per = (n + chunks - 1) // chunks
    nn = kr + _U1
    for c in numba.prange(chunks):
        a = c * per
        b = min(a + per, n)
        for i1 in range(a, b):
            l1 = neglog_q26(np.uint64(2 * i1 + 1), nn)
            for i2 in range(n):
                lam = l1 + neglog_q26(np.uint64(2 * i2 + 1), nn)
                r = _rsr(np.uint64(P[2]) * lam, np.uint64(P[3]))
                if r > np.uint64(cap):
                    r = np.uint64(cap)
                loc[c, np.int64(r)] += 1
    return loc.sum(axis=0)


@jit_nrt
def planar_noise_hist(P, rhist, W):
    """hist[dx + W, dy + W] = #{(angle j, i1, i2) : noise = (dx, dy)} for |dx|, |dy| <= W; noise outside
    the window is counted in the returned `outside`.  Exhaustive over 2^(ka + 2 kr) draws (via rhist)."""
    ka = np.int64(P[0])
    n = np.int64(1) << ka
    size = 2 * W + 1
    hist = np.zeros((size, size), dtype=np.int64)
    outside = np.int64(0)
    for j in range(n):
        a = ((np.uint64(2 * j + 1)) << (_U31 - np.uint64(ka))) & _M32
        c, s = cordic_cos_sin_q30(a)
        for r in range(rhist.shape[0]):
            cnt = rhist[r]
            if cnt == 0:
                continue
            dx = (np.int64(r) * c + _I2_29) >> 30
            dy = (np.int64(r) * s + _I2_29) >> 30
            if dx < -W or dx > W or dy < -W or dy > W:
                outside += cnt
            else:
                hist[dx + W, dy + W] += cnt
    return hist, outside


@float_pjit     # a measurement sweep against float64 with a stated margin (off the sampling path)
def sweep_planar(P, C, scale_raw, chunks):
    """Planar delta_n over the region (w1+1)(w2+1) >= C, all angles: max Euclidean |n' - n| in raw
    units (float64 reference; add the documented margin).  scale_raw = b' 2^F (float)."""
    ka = np.int64(P[0])
    kr = np.int64(P[1])
    na = np.int64(1) << ka
    nr = np.int64(1) << kr
    nn = np.uint64(kr + 1)
    cap = np.uint64(P[7])
    lam = np.empty(nr, dtype=np.uint64)
    ref = np.empty(nr, dtype=np.float64)
    inv58 = 1.0 / np.float64(2.0) ** 58
    for i in range(nr):
        w = np.uint64(2 * i + 1)
        lam[i] = neglog_q26(w, nn)
        ref[i] = np.float64(ref_neglog_q58(w, nn)) * inv58
    mx = np.zeros(chunks, dtype=np.float64)
    per = (na + chunks - 1) // chunks
    step = np.pi / np.float64(na)
    for c in numba.prange(chunks):
        a0 = c * per
        b0 = min(a0 + per, na)
        for j in range(a0, b0):
            a = ((np.uint64(2 * j + 1)) << (_U31 - np.uint64(ka))) & _M32
            co, si = cordic_cos_sin_q30(a)
            th = np.float64(2 * j + 1) * step
            ct = np.cos(th)
            st_ = np.sin(th)
            for i1 in range(nr):
                w1 = np.int64(2 * i1 + 2)               # w1 + 1
                for i2 in range(nr):
                    if w1 * np.int64(2 * i2 + 2) < C:
                        continue
                    r = _rsr(np.uint64(P[2]) * (lam[i1] + lam[i2]), np.uint64(P[3]))
                    if r > cap:
                        r = cap
                    rr = np.int64(r)
                    dx = (rr * co + _I2_29) >> 30
                    dy = (rr * si + _I2_29) >> 30
                    rex = scale_raw * (ref[i1] + ref[i2])
                    ex = np.float64(dx) - rex * ct
                    ey = np.float64(dy) - rex * st_
                    e = np.sqrt(ex * ex + ey * ey)
                    if e > mx[c]:
                        mx[c] = e
    return mx.max()


# --------------------------------------------------------------------------
# audit helpers: sliding-window minima

@jit_nrt
def window_min(p, lo_valid, hi_valid, width):
    """out[i] = min of p[j] over j in [i - width, i + width] intersect [lo_valid, hi_valid], j != i,
    and arg[i] its index (monotone deque, O(n)).  Entries outside the valid range are ignored."""
    n = p.shape[0]
    out = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    arg = np.full(n, -1, dtype=np.int64)
    # left-inclusive window [i - width, i - 1] and right window [i + 1, i + width]: two passes
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for i in range(lo_valid, hi_valid + 1):
        # window [i - width, i - 1]
        while head < tail and dq[head] < i - width:
            head += 1
        if head < tail:
            j = dq[head]
            if p[j] < out[i]:
                out[i] = p[j]
                arg[i] = j
        while head < tail and p[dq[tail - 1]] >= p[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
    head = 0
    tail = 0
    for i in range(hi_valid, lo_valid - 1, -1):
        while head < tail and dq[head] > i + width:
            head += 1
        if head < tail:
            j = dq[head]
            if p[j] < out[i]:
                out[i] = p[j]
                arg[i] = j
        while head < tail and p[dq[tail - 1]] >= p[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
    return out, arg


@jit_nrt
def worst_ratio_windows(p, q_min, lo_valid, hi_valid):
    """index i maximizing p[i] / q_min[i] over [lo_valid, hi_valid] (float screening);
    returns (best_i, has_infinite) -- an index with p > 0 and q_min == 0 wins."""
    best = -1.0
    bi = -1
    for i in range(lo_valid, hi_valid + 1):
        if p[i] <= 0 or q_min[i] == np.iinfo(np.int64).max:
            continue
        if q_min[i] == 0:
            return i, True
        r = np.float64(p[i]) / np.float64(q_min[i])
        if r > best:
            best = r
            bi = i
    return bi, False


# --------------------------------------------------------------------------
# Python-side drivers (validation, typing)

def _key_and_ids(seed, device_ids, n):
    key = K.seed_key_words(seed)
    if device_ids is None:
        ids = np.arange(n, dtype=np.uint64)
    else:
        ids = np.ascontiguousarray(np.asarray(device_ids, dtype=np.uint64))
        if ids.shape != (n,):
            raise ValueError(f"device_ids must have one entry per value ({n}), got shape {ids.shape}")
    return key, ids


def _check_status(status):
    bad = status != 0
    if bad.any():
        from ...errors import raise_for_status
        raise_for_status(int(status[np.argmax(bad)]), "fleet simulation")


def params_1d(m):
    return np.array(m.kernel_params(), dtype=np.int64)


def params_planar(m):
    return np.array(m.kernel_params(), dtype=np.int64)


def params_grid(m):
    return np.array([m.s, m.t, m.lo, m.hi, m.step], dtype=np.int64)


def _values_1d(values):
    xs = np.ascontiguousarray(np.asarray(values, dtype=np.int64))
    if xs.ndim != 1:
        raise ValueError(f"values must be a 1-D array of raw inputs, got shape {xs.shape}")
    return xs


def _values_2d(values):
    xs = np.ascontiguousarray(np.asarray(values, dtype=np.int64))
    if xs.ndim != 2 or xs.shape[1] != 2:
        raise ValueError(f"values must be an (n, 2) array of raw (x, y) inputs, got shape {xs.shape}")
    return xs


def _simulate(fleet, params, xs, out_shape, seed, device_ids, stream):
    """One fleet kernel over raw inputs xs (device i: keyed stream (seed, device_ids[i], stream));
    returns its int64 outputs of out_shape, or raises (nothing returned) on any device's failure."""
    key, ids = _key_and_ids(seed, device_ids, xs.shape[0])
    out = np.zeros(out_shape, dtype=np.int64)
    status = np.zeros(xs.shape[0], dtype=np.int64)
    fleet(key, ids, np.uint32(stream), params, xs, out, status)
    _check_status(status)
    return out


def simulate_laplace(m, values, seed, device_ids=None, stream=0):
    xs = _values_1d(values)
    return _simulate(fleet_laplace, params_1d(m), xs, xs.shape[0], seed, device_ids, stream)


def simulate_planar(m, values, seed, device_ids=None, stream=0):
    xs = _values_2d(values)
    return _simulate(fleet_planar, params_planar(m), xs, (xs.shape[0], 2), seed, device_ids, stream)


def simulate_laplace_grid(m, values, seed, device_ids=None, stream=0):
    xs = _values_1d(values)
    return _simulate(fleet_laplace_grid, params_grid(m), xs, xs.shape[0], seed, device_ids, stream)


def simulate_planar_grid(m, values, seed, device_ids=None, stream=0):
    xs = _values_2d(values)
    return _simulate(fleet_planar_grid, params_grid(m), xs, (xs.shape[0], 2), seed, device_ids, stream)


def fill(m, state, values):
    """Releases of raw values from one kernel state (the parity path); returns the output array."""
    # the family's forms by their flags (this module imports no mechanism class)
    if m.planar:
        xs = _values_2d(values)
        out = np.zeros((xs.shape[0], 2), dtype=np.int64)
        if m.exact_grid:
            st, n = fill_planar_grid(state, params_grid(m), xs, out)
        else:
            st, n = fill_planar(state, params_planar(m), xs, out)
    else:
        xs = _values_1d(values)
        out = np.zeros(xs.shape[0], dtype=np.int64)
        if m.exact_grid:
            st, n = fill_laplace_grid(state, params_grid(m), xs, out)
        else:
            st, n = fill_laplace(state, params_1d(m), xs, out)
    if st != 0:
        from ...errors import raise_for_status
        raise_for_status(int(st), m.kind)
    return out
