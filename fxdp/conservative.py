"""Layer 1: conservative (directed-rounding) arithmetic for privacy figures.

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
    """A float within a few ulps of ln(x) (the start of the certified search)."""
    if Fraction(1, 10**300) < x < 10**300:
        return math.log(float(x))
    return math.log(x.numerator) - math.log(x.denominator)


def log_up(x):
    """A float f >= ln(x) (x > 0 rational or float), within a few ulps of ln(x)."""
    x = _as_fraction(x, "x")
    if x <= 0:
        raise ValueError(f"x must be > 0, got {x}")
    f = _log_estimate(x)
    while True:
        lo, _ = exp_interval(Fraction(f))
        if lo >= x:
            return f + 0.0
        f = math.nextafter(f, math.inf)


def log_down(x):
    """A float f <= ln(x) (x > 0)."""
    x = _as_fraction(x, "x")
    if x <= 0:
        raise ValueError(f"x must be > 0, got {x}")
    f = _log_estimate(x)
    while True:
        _, hi = exp_interval(Fraction(f))
        if hi <= x:
            return f + 0.0
        f = math.nextafter(f, -math.inf)


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
