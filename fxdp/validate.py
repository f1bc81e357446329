"""Parameter checks shared by every public function: a ValueError that names the
parameter and its allowed range, before anything is drawn."""
from __future__ import annotations

import math
import numbers
from fractions import Fraction


def check_int(name, value, lo=None, hi=None):
    """An int (numpy integers accepted, bool rejected) in [lo, hi]; returns a Python int."""
    if isinstance(value, (bool,)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer{_range(lo, hi)}, got {value!r}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name} must be{_range(lo, hi)}, got {value}")
    return value


def check_rational(name, value, lo=None, hi=None, lo_open=False, hi_open=False):
    """An int, Fraction or finite float, taken exactly, in the given interval; returns a Fraction."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, Fraction, float)):
        raise ValueError(f"{name} must be a number{_interval(lo, hi, lo_open, hi_open)}, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite{_interval(lo, hi, lo_open, hi_open)}, got {value!r}")
    q = Fraction(value)
    bad = ((lo is not None and (q < lo or (lo_open and q == lo)))
           or (hi is not None and (q > hi or (hi_open and q == hi))))
    if bad:
        raise ValueError(f"{name} must be{_interval(lo, hi, lo_open, hi_open)}, got {value!r}")
    return q


def _range(lo, hi):
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f" >= {lo}"
    if lo is None:
        return f" <= {hi}"
    return f" in [{lo}, {hi}]"


def _interval(lo, hi, lo_open, hi_open):
    if lo is None and hi is None:
        return ""
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    return f" in {left}{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}{right}"
