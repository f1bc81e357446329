"""Layer 0: conservative (directed-rounding) arithmetic for privacy figures.

Privacy maps must never under-report.  Floats are only ever *results* here:
every bound is first computed as an exact or certified rational interval
(``fractions.Fraction``), and a float is returned only after it is checked to
lie on the safe side.

* ``exp_interval(q)``  -> (lo, hi) Fractions with lo <= exp(q) <= hi (certified).
* ``log_up(x)``        -> float f with f >= ln(x) (checked with exp_interval).
* ``log_down(x)``      -> float f with f <= ln(x).
* ``div_up(a, b)``     -> float f >= a/b.
"""
from __future__ import annotations

import math
import struct
from fractions import Fraction

_PREC = 256  # bits kept in intermediate dyadic roundings


def _as_fraction(x, name="x"):
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise ValueError(f"{name} must be a number, got {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x!r}")
        return Fraction(x)
    raise ValueError(f"{name} must be an int, float or Fraction, got {type(x).__name__}")


def _floor_dyadic(q, prec=_PREC):
    return Fraction(math.floor(q * (1 << prec)), 1 << prec)


def _ceil_dyadic(q, prec=_PREC):
    return Fraction(math.ceil(q * (1 << prec)), 1 << prec)


def exp_interval(q, prec=_PREC):
    """Certified interval (lo, hi) around exp(q) for a rational q, |q| <= 2^20.

    exp(q) = exp(r)^(2^m) with r = q / 2^m, |r| <= 1/2; exp(r) by Taylor series
    with remainder bound 2|r|^(N+1)/(N+1)!; every step rounds outward.
    """
    q = _as_fraction(q, "q")
    if q < 0:
        lo, hi = exp_interval(-q, prec)
        return 1 / hi, 1 / lo
    if q > (1 << 20):
        raise ValueError(f"q must be in [-2^20, 2^20], got {float(q)}")
    m = 0
    while q > Fraction(1, 2) * (1 << m):
        m += 1
    r = q / (1 << m)
    s_lo = s_hi = Fraction(1)
    term = Fraction(1)
    n = 0
    while True:
        n += 1
        term = term * r / n
        s_lo = _floor_dyadic(s_lo + term, prec)
        s_hi = _ceil_dyadic(s_hi + term, prec)
        tail = 2 * term * r / (n + 1)  # bounds the whole remainder since r <= 1/2
        if tail < Fraction(1, 1 << prec):
            s_hi = _ceil_dyadic(s_hi + tail, prec)
            break
    lo, hi = s_lo, s_hi
    for _ in range(m):
        lo, hi = _floor_dyadic(lo * lo, prec), _ceil_dyadic(hi * hi, prec)
    return lo, hi


def _log_estimate(x):
    """A float near ln(x), the start of the certified search: within a few ulps, except near 1
    where float(x) has lost the digits of x - 1 (the search then gallops; see _gallop)."""
    if Fraction(1, 10**300) < x < 10**300:
        return math.log(float(x))
    return math.log(x.numerator) - math.log(x.denominator)


def _ordered(f):
    """The float f as an integer in the order of the floats (-0.0 and 0.0 both 0)."""
    i = struct.unpack("<q", struct.pack("<d", f))[0]
    return -(i & 0x7FFFFFFFFFFFFFFF) if i < 0 else i


def _ulps(f, n, direction):
    """f moved n ulps toward direction (+-inf), in O(1)."""
    j = _ordered(f) + (n if direction > 0 else -n)
    bits = (-j) | (1 << 63) if j < 0 else j
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _gallop(f, ok, direction):
    """The first float from f in the given direction (f included) for which ok holds, ok being
    monotone: steps of 1, 2, 4, ... ulps until ok, then bisection on the ulp count.  The same
    float as stepping one ulp at a time, in a few dozen exp evaluations even when the estimate
    is 10^9 ulps off (ln(x) for x within 10^-9 of 1: stepping hung).  Whatever ok does, the
    result satisfies it, so the bound stays certified."""
    if ok(f):
        return f
    bad, n = 0, 1
    while not ok(_ulps(f, n, direction)):
        bad, n = n, 2 * n
    good = n
    while good - bad > 1:
        mid = (good + bad) // 2
        if ok(_ulps(f, mid, direction)):
            good = mid
        else:
            bad = mid
    return _ulps(f, good, direction)


def log_up(x):
    """A float f >= ln(x) (x > 0 rational or float), within a few ulps of ln(x)."""
    x = _as_fraction(x, "x")
    if x <= 0:
        raise ValueError(f"x must be > 0, got {x}")
    return _gallop(_log_estimate(x), lambda f: exp_interval(Fraction(f))[0] >= x, math.inf) + 0.0


def log_down(x):
    """A float f <= ln(x) (x > 0)."""
    x = _as_fraction(x, "x")
    if x <= 0:
        raise ValueError(f"x must be > 0, got {x}")
    return _gallop(_log_estimate(x), lambda f: exp_interval(Fraction(f))[1] <= x, -math.inf) + 0.0


def div_up(a, b):
    """A float f >= a/b for rationals a, b (b > 0)."""
    q = _as_fraction(a, "a") / _as_fraction(b, "b")
    f = float(q)
    while Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def float_up(q):
    """Smallest float >= the rational q."""
    q = _as_fraction(q, "q")
    f = float(q)
    while Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def exp_le(ratio, eps):
    """Certified test ratio <= exp(eps) for rationals (True only if proven)."""
    lo, _ = exp_interval(_as_fraction(eps, "eps"))
    return _as_fraction(ratio, "ratio") <= lo
