"""Layer 0: fixed-point formats and exact raw-integer arithmetic.

A :class:`QFormat` describes a binary fixed-point format: a machine word of
``word_bits`` bits (8, 16, 32 or 64), signed (two's complement) or unsigned,
with ``frac_bits`` bits after the binary point.  A *raw* value is the Python
``int`` stored in the word; it stands for ``raw / 2**frac_bits``.

Everything here is exact integer arithmetic.  Floats appear on one path only:
:meth:`QFormat.encode` accepts a finite float input and converts it exactly
(``Fraction(x)``) before rounding.

Nothing rounds or overflows implicitly:

* every operation that may drop bits takes a required ``rounding``
  (:class:`Rounding`: ``"nearest_even"``, ``"floor"``, ``"ceil"``,
  ``"toward_zero"``);
* every operation that may overflow takes a required ``mode``
  (:class:`OverflowMode`: ``"checked"`` raises :class:`fxdp.errors.RangeError`,
  ``"saturating"`` clamps to the format's range).

Signed formats keep a sign bit: ``frac_bits`` is in ``[0, word_bits - 1]``
(Q0.31 is the finest signed 32-bit format), while unsigned formats allow
``[0, word_bits]`` (UQ0.32).  A signed format with ``frac_bits == word_bits``
would be well defined (range ``[-1/2, 1/2)``) but has no Qm.n name, and the C
helpers (``fxdp_mul_q_i32``: frac 0..31, ``fxdp_mul_q_i64``: 0..63,
``fxdp_mul_q_u32``: 0..32) follow the same rule, so Python and C accept the
same formats.

``mul`` computes the exact product of the two raw values (``a*b`` stands for
``a*b / 2**(2*frac_bits)``), rounds away its extra ``frac_bits`` bits with
the given rounding, then range-checks or saturates -- the exact semantics of
the C helpers ``fxdp_mul_q_*`` in csrc/fxdp_fixed.c.
"""
from __future__ import annotations

import enum
import math
import numbers
import operator
from dataclasses import dataclass
from fractions import Fraction

from fxdp.errors import RangeError

__all__ = [
    "QFormat", "Rounding", "OverflowMode",
    "round_fraction", "round_shift",
]


class Rounding(str, enum.Enum):
    """Rounding of a value that falls between two representable raws.

    ``c_code`` is the matching ``fxdp_round`` value in csrc/fxdp.h.
    """

    NEAREST_EVEN = "nearest_even"  # to nearest, ties to the even raw
    FLOOR = "floor"                # toward -infinity
    CEIL = "ceil"                  # toward +infinity
    TOWARD_ZERO = "toward_zero"    # truncation

    @property
    def c_code(self) -> int:
        return _C_ROUND[self]

    def __str__(self) -> str:
        return self.value


_C_ROUND = {Rounding.NEAREST_EVEN: 0, Rounding.FLOOR: 1, Rounding.CEIL: 2, Rounding.TOWARD_ZERO: 3}


class OverflowMode(str, enum.Enum):
    """What a result outside the format's range does."""

    CHECKED = "checked"        # raise fxdp.errors.RangeError
    SATURATING = "saturating"  # clamp to [raw_min, raw_max]

    def __str__(self) -> str:
        return self.value


_ROUNDINGS = {r.value: r for r in Rounding}
_MODES = {m.value: m for m in OverflowMode}
_ROUNDING_CHOICES = ", ".join(repr(v) for v in _ROUNDINGS)
_MODE_CHOICES = ", ".join(repr(v) for v in _MODES)

_NE, _FL, _CE, _TZ = Rounding.NEAREST_EVEN, Rounding.FLOOR, Rounding.CEIL, Rounding.TOWARD_ZERO
_CHECKED, _SAT = OverflowMode.CHECKED, OverflowMode.SATURATING


# --------------------------------------------------------------------------
# argument validation
# --------------------------------------------------------------------------

def _rounding(rounding, name="rounding") -> Rounding:
    try:
        return _ROUNDINGS[rounding]  # the value strings; members hash and compare equal to them
    except (KeyError, TypeError):
        pass
    raise ValueError(f"{name} must be one of {_ROUNDING_CHOICES} (or fxdp.fixed.Rounding), "
                     f"got {rounding!r}")


def _mode(mode, name="mode") -> OverflowMode:
    try:
        return _MODES[mode]
    except (KeyError, TypeError):
        pass
    raise ValueError(f"{name} must be one of {_MODE_CHOICES} (or fxdp.fixed.OverflowMode), got {mode!r}")


def _plain_int(x, name) -> int:
    """x as an int: int or other Integral, never bool."""
    if type(x) is int:
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise ValueError(f"{name} must be an int, got {x!r} ({type(x).__name__})")
    return operator.index(x)


def _exact(x, name="x") -> Fraction:
    """x as an exact Fraction: int, Fraction (any Rational) or finite float."""
    if isinstance(x, bool):
        raise ValueError(f"{name} must be an int, Fraction or finite float, got {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, numbers.Integral):
        return Fraction(operator.index(x))
    if isinstance(x, numbers.Rational):
        return Fraction(x.numerator, x.denominator)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x!r}")
        return Fraction(x)
    raise ValueError(f"{name} must be an int, Fraction or finite float, got {x!r} ({type(x).__name__})")


# --------------------------------------------------------------------------
# exact rounding of rationals to integers
# --------------------------------------------------------------------------

def round_fraction(q, rounding) -> int:
    """The integer nearest the exact rational q in the direction of ``rounding``.

    q may be an int, a Fraction (any Rational) or a finite float (taken exactly).
    """
    rounding = _rounding(rounding)
    q = _exact(q, "q")
    n, d = q.numerator, q.denominator
    fl, rem = divmod(n, d)  # floor; 0 <= rem < d
    if rem == 0:
        return fl
    if rounding is _FL:
        return fl
    if rounding is _CE:
        return fl + 1
    if rounding is _TZ:
        return fl + 1 if n < 0 else fl
    twice = 2 * rem  # nearest_even
    if twice < d:
        return fl
    if twice > d:
        return fl + 1
    return fl + (fl & 1)


def round_shift(n, shift, rounding) -> int:
    """n / 2**shift rounded to an integer with ``rounding`` (exact; shift >= 0)."""
    n = _plain_int(n, "n")
    shift = _plain_int(shift, "shift")
    if shift < 0:
        raise ValueError(f"shift must be >= 0, got {shift}")
    return _round_shift(n, shift, _rounding(rounding))


def _round_shift(n: int, shift: int, rounding: Rounding) -> int:
    if shift == 0:
        return n
    q = n >> shift  # floor, also for negative n
    rem = n - (q << shift)  # 0 <= rem < 2**shift
    if rem == 0 or rounding is _FL:
        return q
    if rounding is _CE:
        return q + 1
    if rounding is _TZ:
        return q + 1 if n < 0 else q
    half = 1 << (shift - 1)
    if rem > half:
        return q + 1
    if rem < half:
        return q
    return q + (q & 1)


def _dyadic_str(q: Fraction) -> str:
    """Exact decimal text of a rational; finite (no exponent) when q is dyadic."""
    n, d = q.numerator, q.denominator
    k = d.bit_length() - 1
    if d != 1 << k:
        return str(q)
    return _scaled_str(n, k)


def _scaled_str(n: int, k: int) -> str:
    """Exact decimal text of n / 2**k (k >= 0), trailing zeros dropped."""
    while k and not n & 1:
        n >>= 1
        k -= 1
    if k == 0:
        return str(n)
    sign = "-" if n < 0 else ""
    digits = str(abs(n) * 5 ** k).rjust(k + 1, "0")
    return f"{sign}{digits[:-k]}.{digits[-k:]}"


def _value_str(x) -> str:
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, Fraction):
        return _dyadic_str(x)
    return str(x)


# --------------------------------------------------------------------------
# formats
# --------------------------------------------------------------------------

_WORDS = (8, 16, 32, 64)


@dataclass(frozen=True)
class QFormat:
    """A binary fixed-point format: raw int r in [raw_min, raw_max] means r / 2**frac_bits.

    word_bits in {8, 16, 32, 64}; signed a bool; frac_bits in [0, word_bits - 1]
    when signed, [0, word_bits] when unsigned (see the module docstring).
    """

    word_bits: int
    signed: bool
    frac_bits: int

    def __post_init__(self):
        w, s, f = self.word_bits, self.signed, self.frac_bits
        if type(w) is not int or w not in _WORDS:
            raise ValueError(f"word_bits must be one of 8, 16, 32, 64, got {w!r}")
        if type(s) is not bool:
            raise ValueError(f"signed must be a bool (True or False), got {s!r}")
        fmax = w - 1 if s else w
        if type(f) is not int or not 0 <= f <= fmax:
            kind = "signed" if s else "unsigned"
            raise ValueError(f"frac_bits must be an int in [0, {fmax}] for a {kind} {w}-bit format, "
                             f"got {f!r}")
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)
        object.__setattr__(self, "_lo", lo)
        object.__setattr__(self, "_hi", hi)
        # message fragments, built once
        object.__setattr__(self, "_desc", f"{self.name} ({self.c_type})")
        object.__setattr__(self, "_range", f"[{_scaled_str(lo, f)}, {_scaled_str(hi, f)}]")
        object.__setattr__(self, "_raw_range", f"[{lo}, {hi}]")

    # ---- description -----------------------------------------------------
    @property
    def raw_min(self) -> int:
        return self._lo

    @property
    def raw_max(self) -> int:
        return self._hi

    @property
    def resolution(self) -> Fraction:
        """The value of one raw step, 2**-frac_bits."""
        return Fraction(1, 1 << self.frac_bits)

    @property
    def min_value(self) -> Fraction:
        return Fraction(self._lo, 1 << self.frac_bits)

    @property
    def max_value(self) -> Fraction:
        return Fraction(self._hi, 1 << self.frac_bits)

    @property
    def int_bits(self) -> int:
        """Bits before the binary point (not counting the sign bit)."""
        return self.word_bits - self.frac_bits - (1 if self.signed else 0)

    @property
    def c_type(self) -> str:
        return f"{'' if self.signed else 'u'}int{self.word_bits}_t"

    @property
    def name(self) -> str:
        """Qm.n notation: 'Q15.16' (signed int32), 'UQ0.32' (unsigned)."""
        return f"{'' if self.signed else 'U'}Q{self.int_bits}.{self.frac_bits}"

    def __str__(self) -> str:
        return self._desc

    # ---- validation ------------------------------------------------------
    def is_raw(self, raw) -> bool:
        """True iff raw is an int (not bool) in [raw_min, raw_max]."""
        return type(raw) is int and self._lo <= raw <= self._hi

    def _raw(self, raw, name) -> int:
        if type(raw) is int and self._lo <= raw <= self._hi:
            return raw
        raw = _plain_int(raw, name)
        if not self._lo <= raw <= self._hi:
            raise ValueError(f"{name} must be a raw {self} value, an int in {self._raw_range}, "
                             f"got {raw}")
        return raw

    def _fit(self, r: int, mode: OverflowMode, what: str) -> int:
        """r if in range; else clamp (saturating) or RangeError naming the operation (checked)."""
        if self._lo <= r <= self._hi:
            return r
        if mode is _SAT:
            return self._lo if r < self._lo else self._hi
        raise RangeError(f"{what} = {r} (raw) is outside the raw range {self._raw_range} of "
                         f"{self._desc}, i.e. value {_scaled_str(r, self.frac_bits)} outside {self._range}")

    # ---- encode / decode -------------------------------------------------
    def encode(self, x, rounding, *, saturate=False) -> int:
        """The raw value for x (int, Fraction or finite float; exact), rounded with ``rounding``.

        Out of range (after rounding) raises RangeError naming x and the range,
        unless saturate=True, which clamps to [raw_min, raw_max].
        """
        q = _exact(x, "x")
        rounding = _rounding(rounding)
        if type(saturate) is not bool:
            raise ValueError(f"saturate must be a bool (True or False), got {saturate!r}")
        r = round_fraction(q * (1 << self.frac_bits), rounding)
        if self._lo <= r <= self._hi:
            return r
        if saturate:
            return self._lo if r < self._lo else self._hi
        scaled = q * (1 << self.frac_bits)
        how = "" if scaled.denominator == 1 else \
            f" (rounded {rounding.value} to {_scaled_str(r, self.frac_bits)})"
        raise RangeError(f"value {_value_str(x)}{how} is outside the representable "
                         f"range {self._range} of {self}")

    def decode(self, raw) -> Fraction:
        """The exact value raw / 2**frac_bits."""
        return Fraction(self._raw(raw, "raw"), 1 << self.frac_bits)

    # ---- raw arithmetic --------------------------------------------------
    # (each method checks its arguments, computes exactly, and calls _fit only
    # when the result is out of range, so the common path stays cheap)
    def add(self, a, b, mode) -> int:
        """Raw a + b (exact), checked or saturating."""
        a, b, mode = self._raw(a, "a"), self._raw(b, "b"), _mode(mode)
        r = a + b
        return r if self._lo <= r <= self._hi else self._fit(r, mode, f"add: {a} + {b}")

    def sub(self, a, b, mode) -> int:
        """Raw a - b (exact), checked or saturating."""
        a, b, mode = self._raw(a, "a"), self._raw(b, "b"), _mode(mode)
        r = a - b
        return r if self._lo <= r <= self._hi else self._fit(r, mode, f"sub: {a} - {b}")

    def neg(self, a, mode) -> int:
        """Raw -a, checked or saturating (-raw_min overflows a signed word; -a, a > 0, an unsigned one)."""
        a, mode = self._raw(a, "a"), _mode(mode)
        r = -a
        return r if self._lo <= r <= self._hi else self._fit(r, mode, f"neg: -({a})")

    def mul(self, a, b, mode, rounding) -> int:
        """Raw round(a * b / 2**frac_bits) with ``rounding``, then checked or saturating.

        Equals the value product a/2^f * b/2^f rounded to the format's grid.
        """
        a, b = self._raw(a, "a"), self._raw(b, "b")
        mode, rounding = _mode(mode), _rounding(rounding)
        r = _round_shift(a * b, self.frac_bits, rounding)
        if self._lo <= r <= self._hi:
            return r
        return self._fit(r, mode, f"mul: {a} * {b} >> {self.frac_bits} rounded {rounding.value}")

    def convert(self, raw, to_format, rounding, mode) -> int:
        """The raw of ``to_format`` for this format's raw (value rounded to the new grid, then fitted)."""
        raw = self._raw(raw, "raw")
        if not isinstance(to_format, QFormat):
            raise ValueError(f"to_format must be a QFormat, got {to_format!r}")
        rounding, mode = _rounding(rounding), _mode(mode)
        shift = self.frac_bits - to_format.frac_bits
        r = _round_shift(raw, shift, rounding) if shift >= 0 else raw << -shift
        if to_format._lo <= r <= to_format._hi:
            return r
        return to_format._fit(r, mode, f"convert: {raw} from {self._desc} rounded {rounding.value}")
