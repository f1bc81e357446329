"""Layer 0: fast certified enclosures of ln, exp and ln k! in fixed-point integer arithmetic.

Every function returns an interval that provably contains the true value.  Numbers are Python
integers scaled by 2^Q (``Q`` fractional bits); every rounding goes outward (floor for a lower
end, ceiling for an upper end) and every truncated series adds a bound on its remainder.  They
are the fast path of ``fxdp.accounting`` (``fxdp.conservative`` has the same guarantees at 256
bits through Fractions, about a hundred times slower).

* ``ln_iv(num, den)``       -> (lo, hi) with lo <= 2^Q ln(num/den) <= hi.
* ``exp_iv(lo, hi)``        -> (Fraction, Fraction) enclosing exp([lo, hi] / 2^Q).
* ``ln_factorial_iv(k)``    -> (lo, hi) enclosing 2^Q ln k!: exact integer factorial below
  ``EXACT_FACTORIAL``, above it Stirling's formula with Robbins' (1955) bounds on the remainder,
  1/(12k+1) < ln k! - (k+1/2) ln k + k - ln(2 pi)/2 < 1/(12k).
* ``ln_binom_pmf_iv(N, k, lnq, ln1q)`` -> (lo, hi) enclosing 2^Q ln[C(N,k) q^k (1-q)^(N-k)].
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

Q = 160
ONE = 1 << Q
EXACT_FACTORIAL = 2000

# pi to 50 decimals: pi in [PI_LO, PI_LO + 10^-50]
_PI_LO = Fraction(314159265358979323846264338327950288419716939937510, 10**50)
_PI_HI = _PI_LO + Fraction(1, 10**50)


def _cdiv(a, b):
    """ceil(a / b) for integers, b > 0."""
    return -((-a) // b)


def _atanh2_iv(zn, zd):
    """(lo, hi) enclosing 2^Q * 2 atanh(zn/zd), for 0 <= zn/zd <= 1/3 (integers)."""
    if zn == 0:
        return 0, 0
    g = Q + 8
    z_lo = (zn << g) // zd
    z_hi = _cdiv(zn << g, zd)
    z2_lo = (z_lo * z_lo) >> g
    z2_hi = _cdiv(z_hi * z_hi, 1 << g)
    pw_lo, pw_hi = z_lo, z_hi               # z^(2j+1), scaled 2^g
    s_lo = s_hi = 0
    j = 0
    while True:
        s_lo += pw_lo // (2 * j + 1)
        s_hi += _cdiv(pw_hi, 2 * j + 1)
        pw_lo = (pw_lo * z2_lo) >> g
        pw_hi = _cdiv(pw_hi * z2_hi, 1 << g)
        j += 1
        if pw_hi < 8:
            break
    # remainder sum_{i >= j} z^(2i+1)/(2i+1) <= z^(2j+1)/(2j+1) / (1 - z^2) <= pw_hi * 9/8
    s_hi += _cdiv(9 * pw_hi, 8) + 1
    return (2 * s_lo) >> 8, _cdiv(2 * s_hi, 1 << 8)


_LN2 = _atanh2_iv(1, 3)          # ln 2 = 2 atanh(1/3)


def ln_iv(num, den=1):
    """(lo, hi) integers with lo <= 2^Q ln(num/den) <= hi, for integers num, den > 0."""
    if num <= 0 or den <= 0:
        raise ValueError(f"ln_iv needs num, den > 0, got {num}/{den}")
    e = num.bit_length() - den.bit_length()
    a, b = (num, den << e) if e >= 0 else (num << -e, den)
    if a < b:                                   # y = a/b in [1, 2)
        e -= 1
        a, b = (num, den << e) if e >= 0 else (num << -e, den)
    lo, hi = _atanh2_iv(a - b, a + b)           # ln y = 2 atanh((y-1)/(y+1)), (y-1)/(y+1) < 1/3
    if e >= 0:
        return lo + e * _LN2[0], hi + e * _LN2[1]
    return lo + e * _LN2[1], hi + e * _LN2[0]


def ln_frac_iv(x):
    x = Fraction(x)
    return ln_iv(x.numerator, x.denominator)


def exp_iv(lo, hi):
    """(Fraction, Fraction) enclosing exp(t) for every t in [lo, hi] / 2^Q (lo <= hi integers)."""
    k = lo // _LN2[1]
    while True:
        kl_lo, kl_hi = (k * _LN2[0], k * _LN2[1]) if k >= 0 else (k * _LN2[1], k * _LN2[0])
        r_lo, r_hi = lo - kl_hi, hi - kl_lo     # r = t - k ln 2
        if r_lo >= 0:
            break
        k -= 1
    if r_hi > ONE:
        raise ValueError("exp_iv: interval too wide")
    e_lo = _exp_series(r_lo, False)
    e_hi = _exp_series(r_hi, True)
    if k >= 0:
        return Fraction(e_lo << k, ONE), Fraction(e_hi << k, ONE)
    return Fraction(e_lo, ONE << -k), Fraction(e_hi, ONE << -k)


def _exp_series(r, up):
    """2^Q exp(r / 2^Q) for 0 <= r <= 2^Q, rounded down (up=False) or up (up=True)."""
    s = term = ONE
    j = 0
    while term > 1:
        j += 1
        term = _cdiv(term * r, ONE * j) if up else (term * r) // (ONE * j)
        s += term
    if up:
        s += 2 * term + 2                       # remainder <= 2 * next term (r <= 1)
    return s


def exp_frac_iv(x):
    """Enclosure of exp(x) for a rational (or float) x."""
    x = Fraction(x)
    return exp_iv((x.numerator << Q) // x.denominator, _cdiv(x.numerator << Q, x.denominator))


def _ln2pi_half():
    lo, _ = ln_frac_iv(2 * _PI_LO)
    _, hi = ln_frac_iv(2 * _PI_HI)
    return lo // 2, _cdiv(hi, 2)


_HALF_LN2PI = _ln2pi_half()


@lru_cache(maxsize=4096)
def ln_factorial_iv(k):
    """(lo, hi) enclosing 2^Q ln k! (k >= 0 an integer)."""
    if k < 2:
        return 0, 0
    if k < EXACT_FACTORIAL:
        return ln_iv(math.factorial(k), 1)
    lk_lo, lk_hi = ln_iv(k, 1)
    lo = ((2 * k + 1) * lk_lo) // 2 - k * ONE + _HALF_LN2PI[0] + ONE // (12 * k + 1)
    hi = _cdiv((2 * k + 1) * lk_hi, 2) - k * ONE + _HALF_LN2PI[1] + _cdiv(ONE, 12 * k)
    return lo, hi


def ln_binom_pmf_iv(n, k, lnq, ln1q):
    """(lo, hi) enclosing 2^Q ln[C(n,k) q^k (1-q)^(n-k)], given enclosures lnq, ln1q of
    2^Q ln q and 2^Q ln(1-q) (each a (lo, hi) pair of integers, both <= 0)."""
    if not 0 <= k <= n:
        raise ValueError(f"k must be in [0, {n}], got {k}")
    fn, fk, fr = ln_factorial_iv(n), ln_factorial_iv(k), ln_factorial_iv(n - k)
    lo = fn[0] - fk[1] - fr[1] + k * lnq[0] + (n - k) * ln1q[0]
    hi = fn[1] - fk[0] - fr[0] + k * lnq[1] + (n - k) * ln1q[1]
    return lo, hi


def sqrt_up(q, bits=80):
    """A dyadic rational >= sqrt(q) (q >= 0 rational), within 2^-bits."""
    q = Fraction(q)
    m = _cdiv(q.numerator << (2 * bits), q.denominator)
    s = math.isqrt(m)
    if s * s < m:
        s += 1
    return Fraction(s, 1 << bits)


def frac_up(x, bits=64):
    """A dyadic rational >= x with denominator 2^bits."""
    x = Fraction(x)
    return Fraction(_cdiv(x.numerator << bits, x.denominator), 1 << bits)


def frac_down(x, bits=64):
    x = Fraction(x)
    return Fraction((x.numerator << bits) // x.denominator, 1 << bits)
