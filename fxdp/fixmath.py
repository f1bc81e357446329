"""Integer-only fixed-point logarithm and CORDIC sine/cosine (reference implementations).

Everything that runs on a sampling path here is integer arithmetic on
Python ints that mirrors the C code (``csrc/fxdp_fixmath.c``) and the Numba
kernels (``fxdp/mechanisms/finite/_kernels_laplace.py``) operation for operation, with
the same word widths: no ``float``, no ``math.log``, no libm.  The tables
are generated at import from exact rational arithmetic (``Fraction``) with
certified error bounds; the C file holds the same tables as literals and a
test compares them.

Natural logarithm of a mantissa (``ln_mantissa_q32``)
-----------------------------------------------------
Input ``m`` in [2^31, 2^32) stands for the real m / 2^31 in [1, 2).  Output:
ln(m / 2^31) in Q0.32 (uint32).  Algorithm (T = 7 index bits):

    j  = (m >> 24) & 127                 table index, c_j = 1 + j/128
    r  = m - (2^31 + j 2^24)             0 <= r < 2^24 (Q1.31 units)
    z  = (r * INV[j]) >> 30              z ~ (r/c_j) in Q0.32,  INV[j] = floor(2^62 / c_j raw)
    A  = (z * 0x55555555) >> 32          ~ z/3
    B  = (z * z) >> 34                   ~ z^2/4
    K  = 2^31 - A + B                    ~ (1/2 - z/3 + z^2/4)   Q0.32
    Z2 = (z * z) >> 18                   z^2 in Q0.46
    t  = (Z2 * K) >> 46                  ~ z^2 (1/2 - z/3 + z^2/4)
    ln = LN_TABLE[j] + z - t             LN_TABLE[j] = round(ln(c_j) 2^32)

i.e. ln(c_j) + p(z), p(z) = z - z^2/2 + z^3/3 - z^4/4 (|z| < 2^-7, truncation
error < z^5/5 < 2^-37).  Every product fits 64 bits.  **Monotone by
construction**: z grows by 1 or 2 per step of r (INV[j] / 2^30 is in (1, 2]),
and the exact value of Z2*K / 2^46 grows by less than 2^-5 per step of z, so
t grows by at most 1: p is non-decreasing within a piece.  The 127 piece
junctions (value at the end of piece j <= LN_TABLE[j+1]) are checked exactly
at import (``_check_junctions``).  Analytic error bound: |ln' - ln| <= 2.6
units of 2^-32 (table 0.5, z 1.02, t 1.0002, series 0.03); the exhaustive
sweep over all 2^31 mantissas (tests, --slow) measures it.

-ln of a k-bit uniform (``neglog_q26``)
--------------------------------------
For an odd w in [1, 2^k) (k <= 32), lambda(w, k) = -ln(w / 2^k) = k ln 2 - ln w
in Q5.26 (uint32; lambda <= 32 ln 2 < 22.2):

    e    = 31 - clz32(w)                 w = 2^e * (m / 2^31)
    m    = w << (31 - e)
    lnm  = min(ln_mantissa_q32(m), LNM_MAX)
    L32  = ((k - e) * LN2_Q58 + 2^25) >> 26  -  lnm          Q.32, uint64
    lam  = (L32 + 32) >> 6                                     Q5.26

LNM_MAX = min over n of (P(n) - P(n-1)) with P(n) the rounded n ln 2 term,
which makes lambda non-increasing across octave boundaries; the clamp costs
< 0.2 units of 2^-32 where it acts.  So lambda is non-increasing in w for
every k: the paper's Condition 2 for the inverse-CDF noise.

CORDIC (``cordic_cos_sin_q30``)
------------------------------
Input: a binary angle a (uint32, a / 2^32 turns).  Quadrant q = a >> 30;
the rest rho in [0, 1/4 turn) is rotated by 40 CORDIC iterations in
rotation mode on int64: x, y in Q2.61 (start x = K = prod (1 + 4^-i)^-1/2),
the residual angle z in units of 2^-62 turns (ATAN[i] = round(atan(2^-i) /
(2 pi) 2^62)).  Right shifts of negative numbers use ``asr`` (floor
division by a power of two; in C written without implementation-defined
shifts).  Results are rounded to Q1.30 (int32) and rotated by the quadrant.
Error: about 2^-31 (the final rounding) + 2^-38.

High-precision references (for the exhaustive sweeps, never for sampling)
------------------------------------------------------------------------
``ref_neglog_q58(w, k)``: lambda(w, k) in Q.58 by the shift-and-add
(pseudo-division) logarithm at 62 fractional bits: y <- y (1 + 2^-i) whenever
the product stays <= 2, accumulating certified constants ln(1 + 2^-i).  Each
factor is used at most once; greedy convergence holds because ln(1 + 2^-i) <=
sum_{j > i} ln(1 + 2^-j).  Proven error < 2^-54 (``REF_LN_ERR``), checked
against ``ln_bounds`` (exact rational bounds) in the tests.
"""
from __future__ import annotations

import math
from fractions import Fraction

__all__ = [
    "clz32", "ln_mantissa_q32", "neglog_q26", "cordic_cos_sin_q30", "asr",
    "ln_bounds", "pi_bounds", "atan_bounds", "cos_sin_bounds", "exp_bounds",
    "ref_neglog_q58", "LN_TABLE", "LN_INV", "ATAN_Q62", "CORDIC_K_Q61",
    "LN2_Q58", "LNM_MAX", "LN_T", "CORDIC_ITERS", "LNM_ERR_BOUND", "REF_LN_ERR",
]

U32 = (1 << 32) - 1
U64 = (1 << 64) - 1

# ==========================================================================
# exact rational bounds (Fractions; certified)
# ==========================================================================

def _atanh_series(y, prec):
    """(lo, hi) around atanh(y) = sum y^(2n+1)/(2n+1), |y| <= 1/2, width <= 2^(1-prec)."""
    s, term, n, y2 = Fraction(0), Fraction(y), 0, Fraction(y) * y
    eps = Fraction(1, 1 << prec)
    while True:
        s += term / (2 * n + 1)
        n += 1
        term *= y2
        rem = abs(term) / (2 * n + 1) / (1 - y2)
        if rem < eps:
            return (s - rem, s + rem) if y >= 0 else (s - rem, s + rem)


_LN2_CACHE = {}


def _ln2_bounds(prec):
    if prec not in _LN2_CACHE:
        lo, hi = _atanh_series(Fraction(1, 3), prec + 2)
        _LN2_CACHE[prec] = (2 * lo, 2 * hi)
    return _LN2_CACHE[prec]


def ln_bounds(q, prec=80):
    """(lo, hi) Fractions with lo <= ln(q) <= hi and hi - lo <= 2^(-prec) * (|e| + 2), q > 0 rational."""
    q = Fraction(q)
    if q <= 0:
        raise ValueError(f"q must be > 0, got {q}")
    e = 0
    num, den = q.numerator, q.denominator
    e = num.bit_length() - den.bit_length()
    q = q / Fraction(2) ** e
    while q >= 2:
        q /= 2
        e += 1
    while q < 1:
        q *= 2
        e -= 1
    l2lo, l2hi = _ln2_bounds(prec + 8)
    lo, hi = _atanh_series((q - 1) / (q + 1), prec + 8)
    if e >= 0:
        return e * l2lo + 2 * lo, e * l2hi + 2 * hi
    return e * l2hi + 2 * lo, e * l2lo + 2 * hi


def _atan_series(x, prec):
    """(lo, hi) around atan(x) for 0 <= x <= 1/2 (alternating series)."""
    x = Fraction(x)
    s, term, n, x2 = Fraction(0), x, 0, x * x
    eps = Fraction(1, 1 << prec)
    while True:
        s += term / (2 * n + 1) * (1 if n % 2 == 0 else -1)
        n += 1
        term *= x2
        nxt = term / (2 * n + 1)
        if nxt < eps:
            return (s - nxt, s) if n % 2 == 1 else (s, s + nxt)


_PI_CACHE = {}


def pi_bounds(prec=100):
    """(lo, hi) around pi (Machin: pi = 16 atan(1/5) - 4 atan(1/239))."""
    if prec not in _PI_CACHE:
        a_lo, a_hi = _atan_series(Fraction(1, 5), prec + 6)
        b_lo, b_hi = _atan_series(Fraction(1, 239), prec + 6)
        _PI_CACHE[prec] = (16 * a_lo - 4 * b_hi, 16 * a_hi - 4 * b_lo)
    return _PI_CACHE[prec]


def atan_bounds(x, prec=100):
    """(lo, hi) around atan(x) for a rational 0 <= x <= 1 (x = 1: pi/4)."""
    x = Fraction(x)
    if x == 1:
        lo, hi = pi_bounds(prec)
        return lo / 4, hi / 4
    if not 0 <= x <= Fraction(1, 2):
        raise ValueError("atan_bounds: x must be in [0, 1/2] or 1")
    return _atan_series(x, prec)


def exp_bounds(q, prec=80):
    """(lo, hi) around exp(q) for a rational q (delegates to fxdp.conservative.exp_interval)."""
    from .conservative import exp_interval
    return exp_interval(Fraction(q), prec)


def cos_sin_bounds(turns, prec=90):
    """((cos_lo, cos_hi), (sin_lo, sin_hi)) for the angle 2 pi * turns (rational), certified."""
    t = Fraction(turns) % 1
    plo, phi = pi_bounds(prec + 10)
    # angle interval
    a_lo, a_hi = 2 * plo * t, 2 * phi * t
    # Taylor series on the interval endpoints with a common remainder bound; |a| <= 2 pi + 1 < 8
    def series(a, odd):
        s, term, n = Fraction(0), (a if odd else Fraction(1)), (1 if odd else 0)
        eps = Fraction(1, 1 << (prec + 4))
        k = 0
        while True:
            s += term if k % 2 == 0 else -term
            k += 1
            term = term * a * a / ((n + 1) * (n + 2))
            n += 2
            if abs(term) < eps and n > 2 * abs(a) + 4:
                return s, abs(term)
    out = []
    for odd in (False, True):
        v1, r1 = series(a_lo, odd)
        v2, r2 = series(a_hi, odd)
        # the function is 1-Lipschitz: widen by the angle interval width
        w = a_hi - a_lo
        lo = min(v1 - r1, v2 - r2) - w
        hi = max(v1 + r1, v2 + r2) + w
        out.append((lo, hi))
    return out[0], out[1]


def _round_certified(bounds_fn, scale_bits, prec=64):
    """round-half-up(value * 2^scale_bits) for a value given by bounds_fn(prec) -> (lo, hi)."""
    while True:
        lo, hi = bounds_fn(prec)
        a = math.floor(lo * (1 << scale_bits) + Fraction(1, 2))
        b = math.floor(hi * (1 << scale_bits) + Fraction(1, 2))
        if a == b:
            return a
        prec += 32
        if prec > 4096:   # pragma: no cover - would mean an exact tie
            raise ArithmeticError("could not certify rounding")


# ==========================================================================
# tables (generated exactly at import; csrc/fxdp_fixmath.c holds the same literals)
# ==========================================================================

LN_T = 7                      # index bits of the ln table
CORDIC_ITERS = 40
LNM_ERR_BOUND = Fraction(26, 10)   # analytic |ln_mantissa_q32 - ln * 2^32| bound (units of 2^-32)
REF_LN_ERR = Fraction(1, 1 << 54)  # proven error of ref_neglog_q58 (value units)


def _make_ln_tables():
    table, inv = [], []
    for j in range(1 << LN_T):
        c = Fraction((1 << LN_T) + j, 1 << LN_T)
        table.append(_round_certified(lambda p, c=c: ln_bounds(c, p), 32))
        inv.append((1 << 62) // ((1 << 31) + (j << (31 - LN_T))))
    return tuple(table), tuple(inv)


LN_TABLE, LN_INV = _make_ln_tables()
LN2_Q58 = _round_certified(lambda p: _ln2_bounds(p), 58)
M3 = (1 << 32) // 3


def _p_ln2(n):
    return (n * LN2_Q58 + (1 << 25)) >> 26


LNM_MAX = min(_p_ln2(n) - _p_ln2(n - 1) for n in range(1, 33))


def _make_cordic_tables():
    atan = []
    for i in range(CORDIC_ITERS):
        if i == 0:
            atan.append(1 << 59)             # atan(1) = 1/8 turn
            continue
        x = Fraction(1, 1 << i)

        def turns(p, x=x):
            alo, ahi = atan_bounds(x, p + 8)
            plo, phi = pi_bounds(p + 8)
            return alo / (2 * phi), ahi / (2 * plo)
        atan.append(_round_certified(turns, 62))
    # K = prod (1 + 4^-i)^(-1/2); K^2 exact rational
    k2 = Fraction(1)
    for i in range(CORDIC_ITERS):
        k2 /= 1 + Fraction(1, 1 << (2 * i))
    # round(sqrt(k2) * 2^61): isqrt on 4 * k2 * 2^122 then round half up
    v = (k2.numerator << (122 + 2)) // k2.denominator
    s = math.isqrt(v)              # floor(2 sqrt(k2) 2^61) (up to the floor of v)
    k61 = (s + 1) >> 1
    return tuple(atan), k61


ATAN_Q62, CORDIC_K_Q61 = _make_cordic_tables()

# reference (shift-and-add) constants: ln(1 + 2^-i) in Q.62, i = 1..62, and ln 2
REF_LN1P_Q62 = tuple([0] + [_round_certified(lambda p, i=i: ln_bounds(1 + Fraction(1, 1 << i), p), 62)
                            for i in range(1, 63)])
REF_LN2_Q62 = _round_certified(lambda p: _ln2_bounds(p), 62)


# ==========================================================================
# integer primitives
# ==========================================================================

def clz32(x):
    """Leading zero bits of a uint32 (32 for 0): ``fxdp_clz32``."""
    return 32 - x.bit_length() if x else 32


def asr(v, s):
    """Arithmetic shift right = floor(v / 2^s) (Python's >> on ints)."""
    return v >> s


def ln_mantissa_q32(m):
    """ln(m / 2^31) in Q0.32 for m in [2^31, 2^32) (see the module docstring)."""
    j = (m >> (31 - LN_T)) & ((1 << LN_T) - 1)
    r = m - ((1 << 31) + (j << (31 - LN_T)))
    z = (r * LN_INV[j]) >> 30
    a = (z * M3) >> 32
    b = (z * z) >> 34
    k = (1 << 31) - a + b
    z2 = (z * z) >> 18
    t = (z2 * k) >> 46
    return LN_TABLE[j] + z - t


def neglog_q26(w, k):
    """-ln(w / 2^k) in Q5.26 for 1 <= w < 2^k, 1 <= k <= 32 (uint32 result)."""
    e = 31 - clz32(w)
    m = (w << (31 - e)) & U32
    lnm = ln_mantissa_q32(m)
    if lnm > LNM_MAX:
        lnm = LNM_MAX
    l32 = _p_ln2(k - e) - lnm
    return (l32 + 32) >> 6


def cordic_cos_sin_q30(a):
    """(cos, sin) of the angle a / 2^32 turns, each in Q1.30 (int32)."""
    q = a >> 30
    z = (a & ((1 << 30) - 1)) << 30     # units of 2^-62 turns
    x, y = CORDIC_K_Q61, 0
    for i in range(CORDIC_ITERS):
        if z >= 0:
            x, y, z = x - (y >> i), y + (x >> i), z - ATAN_Q62[i]
        else:
            x, y, z = x + (y >> i), y - (x >> i), z + ATAN_Q62[i]
    c = (x + (1 << 30)) >> 31
    s = (y + (1 << 30)) >> 31
    if q == 0:
        return c, s
    if q == 1:
        return -s, c
    if q == 2:
        return -c, -s
    return s, -c


# ==========================================================================
# high-precision integer reference (sweeps only)
# ==========================================================================

def ref_ln_mantissa_q62(w):
    """ln(w / 2^e) in Q.62 (int) for w >= 1, e = bit_length(w) - 1, by shift-and-add; error < 2^-55."""
    e = w.bit_length() - 1
    y = w << (62 - e) if e <= 62 else w >> (e - 62)
    two = 1 << 63
    acc = 0
    for i in range(1, 63):
        t = y + (y >> i)
        if t <= two:
            y = t
            acc += REF_LN1P_Q62[i]
    # ln m = ln 2 - acc + ln(Y / 2), ln(Y/2) ~ (y - 2^63) / 2^63
    return REF_LN2_Q62 - acc - ((two - y) >> 1)


def ref_neglog_q58(w, k):
    """lambda(w, k) = -ln(w / 2^k) in Q.58 (int), |error| < 2^-54 (REF_LN_ERR):
    round((k - e) ln2_Q62 - ln_m_Q62) / 16 (errors: 32 * 2^-63 + 2^-55 + 2^-59)."""
    e = w.bit_length() - 1
    lam62 = (k - e) * REF_LN2_Q62 - ref_ln_mantissa_q62(w)
    return (lam62 + 8) >> 4


def _check_junctions():
    """Monotonicity at the 127 piece junctions and the octave boundary (exact, cheap)."""
    for j in range((1 << LN_T) - 1):
        end = (1 << 31) + (j << (31 - LN_T)) + (1 << (31 - LN_T)) - 1
        if ln_mantissa_q32(end) > LN_TABLE[j + 1]:
            raise AssertionError(f"ln table junction {j} not monotone")
    if LN_TABLE[0] != 0:
        raise AssertionError("LN_TABLE[0] must be 0")


_check_junctions()
