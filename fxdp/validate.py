"""Parameter checks shared by every public function: a ValueError that names the
parameter and its allowed range, before anything is drawn."""
from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction

# An exact rational written as text: "3/4", "-1/2", "0.75", "1e-3", "2.5E+2" (spaces around
# the slash allowed; exponents of at most 3 digits).  Parsed by Fraction from the text
# itself, never through a float.
_RATIONAL_TEXT = re.compile(r"^([+-]?\d+)\s*/\s*(\d+)$|^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$", re.ASCII)


def check_int(name, value, lo=None, hi=None):
    """An int (numpy integers accepted, bool rejected) in [lo, hi]; returns a Python int."""
    if isinstance(value, (bool,)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer{_range(lo, hi)}, got {value!r}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name} must be{_range(lo, hi)}, got {value}")
    return value


def parse_rational(name, text, where=""):
    """The exact Fraction a string such as "3/4", "0.75" or "1e-3" denotes (the same value as
    Fraction("3/4"), never via a float); ValueError naming the parameter otherwise."""
    t = text.strip()
    mt = _RATIONAL_TEXT.match(t)
    if mt is None or (mt.group(2) is not None and int(mt.group(2)) == 0):
        raise ValueError(f"{name} must be a number{where}; as a string, an exact rational such as "
                         f"'3/4', '0.75' or '1e-3' (nonzero denominator), got {text!r}")
    if mt.group(1) is not None:
        return Fraction(int(mt.group(1)), int(mt.group(2)))
    return Fraction(t)


def check_rational(name, value, lo=None, hi=None, lo_open=False, hi_open=False):
    """An int, Fraction, finite float or exact rational string ("3/4", "0.75"; see
    ``parse_rational``), taken exactly, in the given interval; returns a Fraction.
    A string gives the same Fraction, and so the same realized parameters, as the
    Fraction it denotes: that is how the TOML loader has always read it."""
    where = _interval(lo, hi, lo_open, hi_open)
    given_value = value
    if isinstance(value, str):
        value = parse_rational(name, value, where)
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, Fraction, float)):
        raise ValueError(f"{name} must be a number{where}, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite{where}, got {value!r}")
    q = Fraction(value)
    bad = ((lo is not None and (q < lo or (lo_open and q == lo)))
           or (hi is not None and (q > hi or (hi_open and q == hi))))
    if bad:
        raise ValueError(f"{name} must be{where}, got {given_value!r}")
    return q


def given(value):
    """What ``config()`` records for a rational argument (already checked): the Fraction
    a string denotes (so a string and that Fraction describe, print and round-trip
    through TOML identically), else the argument as given (existing reprs unchanged)."""
    return parse_rational("value", value) if isinstance(value, str) else value


def fmt_int(v):
    """An integer bound as a person reads it: as it is, or 2^k - d / 2^k + d when it lies within 16
    of a power of two beyond 2^64 (a seed's range [0, 2^256 - 1], not 78 digits)."""
    v = int(v)
    a = abs(v)
    if a > 1 << 64:
        k = round(math.log2(a))
        for k in (k - 1, k, k + 1):
            d = a - (1 << k)
            if abs(d) <= 16:
                text = f"2^{k}" + ("" if d == 0 else f" - {-d}" if d < 0 else f" + {d}")
                return text if v > 0 else f"-({text})" if d else f"-{text}"
    return str(v)


def _range(lo, hi):
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f" >= {fmt_int(lo)}"
    if lo is None:
        return f" <= {fmt_int(hi)}"
    return f" in [{fmt_int(lo)}, {fmt_int(hi)}]"


def _interval(lo, hi, lo_open, hi_open):
    if lo is None and hi is None:
        return ""
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    if lo is None:
        left = "("                   # infinity is never a value (floats must be finite)
    if hi is None:
        right = ")"
    return f" in {left}{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}{right}"
