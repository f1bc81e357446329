"""Layer 4: finite-precision Laplace mechanisms (Gazeau, Miller, Palamidessi 2013)
and exact-grid alternatives.

(Over 700 lines, one module: the four mechanisms share ``_FixedBase``, the format handling,
the snapping and truncation rules and the long derivation below, which the code follows line by
line; the family's kernels, device specs, audit and plots are its sibling modules.)

Every value the device handles is a raw integer of a signed ``QFormat``
(value = raw / 2^F).  The reference releases below use Python ints only (no
float anywhere on a sampling path); the Numba kernels
(``fxdp/mechanisms/finite/_kernels_laplace.py``) and the C library
(``csrc/fxdp_laplace_fixed.c``) compute the same integers from the same bits.

1-D fixed-point Laplace (``make_laplace_fixed``)
-----------------------------------------------
Bits: one ``bits(k)`` read, j in [0, 2^k).  The uniform is the *midpoint grid*
u = (j + 1/2) / 2^k, so u is never 0, never 1/2 and never 1 (no special cases),
and the grid is symmetric about 1/2.  With the top bit of j as the sign
(0: u < 1/2, negative noise) and i the other k-1 bits,

    w = 2 i + 1              (u < 1/2)        1 - 2|u - 1/2| = w / 2^k
    w = 2^k - 1 - 2 i        (u > 1/2)

so n(u) = -b sgn(u - 1/2) ln(1 - 2|u - 1/2|) = sgn * b * lambda(w, k) with
lambda(w, k) = -ln(w / 2^k) (``fixmath.neglog_q26``, Q5.26).  The magnitude
in raw units of the output format is

    mag = min(cap, round(B * lambda / 2^(26 + S)))      B = ceil(b 2^(F+S)) < 2^32

(round half up; S is the largest shift <= 36 keeping B < 2^32, so the device
scale b' = B / 2^(F+S) >= b: realized epsilon_ideal = sensitivity / b' <= epsilon).
cap = 2 (M - m + L) raw: any noise that large leaves the box from every input.
Then y = x + noise (x clamped to [m, M] first), snapped to the grid of step L:
g = L floor((y + h) / L), h = floor(L_raw / 2) (nearest, ties up).  Every cell
has length exactly L.  If g is outside [m, M] the release is the exception
value (``None`` in Python, ``EXCEPTION_RAW`` in arrays, a flag in C) or, with
``truncation="clamp"`` (the paper's Remark 2), the bound on the side of the
sign.

The naive mechanism of the paper's Example 1.1 (``make_naive_laplace_fixed``)
draws the same unit noise lambda rounded to the format and multiplies it by
b = 2^n (a left shift), adds it, and neither snaps nor truncates (it only
saturates at the format's range): every output keeps the last n bits of x.

Planar fixed-point Laplace (``make_planar_laplace_fixed``)
---------------------------------------------------------
Bits: ``bits(ka)`` (angle j), then ``bits(kr)`` twice (i1, i2).  Angle: the
midpoint grid (2 j + 1) / 2^(ka + 1) turns, cos and sin by CORDIC
(``fixmath.cordic_cos_sin_q30``).  Radius: density eps^2 r exp(-eps r) is
Gamma(2, b), drawn as the sum of two exponentials b (E1 + E2), E = -ln u with
u on the midpoint grid (2 i + 1) / 2^(kr + 1) (so E = lambda(2 i + 1, kr + 1)).
Inverting the Gamma(2) CDF 1 - (1 + r/b) exp(-r/b) needs the W_-1 branch of
Lambert's function (location-guard, libqif); the sum needs nothing but the ln
we already have, is exactly Gamma(2, b) for exact uniforms, and its closeness
constants follow from ln's.  r = min(cap, round(B (lambda1 + lambda2) / 2^(26+S))),
dx = round(r cos / 2^30), dy likewise, each coordinate snapped to the L grid;
outside the box [m, M]^2 the release is the exception value.  (Clamping in
2-D is not offered: the paper notes the remapped region is then connected
and its error unbounded.)

Exact-grid alternatives (zero degradation)
-----------------------------------------
``make_laplace_grid``: x snapped to the grid of step L (index xg), then
xg + Z with Z the exact discrete Laplace of the foundation (Canonne, Kamath,
Steinke 2020) in grid units, censored to [m/L, M/L]: OpenDP's and Google's
"granularity" idea in fixed point.  Snapping moves inputs Delta apart at most
D = ceil(Delta / L) grid steps, so scale_grid = D / epsilon makes it exactly
epsilon-DP.  ``make_planar_laplace_grid``: two such draws (x first), the
product of two discrete Laplaces; with the L1 conversion ||.||_1 <= sqrt(2)
||.||_2 made exact on the grid: D1 = max over raw displacements with
dx^2 + dy^2 <= Delta^2 of ceil(|dx|/L) + ceil(|dy|/L), scale_grid = D1 / epsilon.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from ...bitsource import BitSource, default_source
from ...conservative import float_up
from ...fixed import QFormat
from ..base import Mechanism, answers, expect_kind
from ..additive.geometric import realize_scale
from ...samplers import reference as ref
from ...validate import check_int, check_rational, given
from ... import finite_bounds as bd
from .constants import (_TRUNC, DELTA_CORDIC, DELTA_LAMBDA, EXCEPTION_RAW, METHOD_DIRECT, METHOD_SCALED,
                        RAW_LIMIT, TRUNC_CLAMP, TRUNC_EXCEPTION)
from ...fixmath import cordic_cos_sin_q30, neglog_q26

__all__ = ["make_laplace_fixed", "make_naive_laplace_fixed", "make_planar_laplace_fixed",
           "make_laplace_grid", "make_planar_laplace_grid", "EXCEPTION_RAW", "parse_qformat",
           "LaplaceFixed", "PlanarLaplaceFixed", "LaplaceGrid", "PlanarLaplaceGrid"]

_QNAME = re.compile(r"^(U?)Q(\d+)\.(\d+)$")


def parse_qformat(q, name="qformat"):
    """A signed QFormat from a QFormat or its name ("Q15.16": signed 32-bit, 16 fractional bits)."""
    if isinstance(q, str):
        mt = _QNAME.match(q.strip())
        if not mt:
            raise ValueError(f"{name} must be a QFormat or a name like 'Q15.16', got {q!r}")
        unsigned, ib, fb = mt.group(1) == "U", int(mt.group(2)), int(mt.group(3))
        word = ib + fb + (0 if unsigned else 1)
        try:
            q = QFormat(word, not unsigned, fb)
        except ValueError as exc:
            raise ValueError(f"{name} {q!r}: {exc}") from None
    if not isinstance(q, QFormat):
        raise ValueError(f"{name} must be a QFormat or a name like 'Q15.16', got {q!r}")
    if not q.signed:
        raise ValueError(f"{name} must be a signed format (noise is signed), got {q.name}")
    return q


def _rshift_round(v, s):
    """round(v / 2^s), ties up, for v >= 0 (((v >> (s-1)) + 1) >> 1; no overflow in uint64)."""
    if s == 0:
        return v
    return ((v >> (s - 1)) + 1) >> 1


def realize_noise_scale(b, frac_bits):
    """(B, S): B = ceil(b 2^(F+S)) < 2^32 with the largest S <= 36; b' = B / 2^(F+S) >= b."""
    if b * (1 << frac_bits) >= (1 << 32):
        raise ValueError(f"scale = sensitivity/epsilon = {float(b):.6g} is too large for {frac_bits} "
                         f"fractional bits: scale * 2^frac_bits must be < 2^32 (use fewer fractional "
                         f"bits or a larger epsilon)")
    S = 36
    while S > -frac_bits:
        B = math.ceil(b * (1 << (frac_bits + S)) if frac_bits + S >= 0 else b / (1 << -(frac_bits + S)))
        if B < (1 << 32):
            return B, S
        S -= 1
    raise AssertionError("unreachable")


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")
    return value


def _grid_value(name, v, res, L=None):
    """A value that must lie on the format grid (and on the L grid if given): raw int."""
    q = check_rational(name, v)
    raw = q / res
    if raw.denominator != 1:
        raise ValueError(f"{name} must be a multiple of the format resolution {res}, got {q}")
    if L is not None and (q / L).denominator != 1:
        raise ValueError(f"{name} must be a multiple of L = {L}, got {q}")
    return int(raw)


def _bounds_raw(bounds, qf, L):
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise ValueError(f"bounds must be a pair (m, M), got {bounds!r}")
    res = qf.resolution
    lo = _grid_value("bounds[0] (m)", bounds[0], res, L)
    hi = _grid_value("bounds[1] (M)", bounds[1], res, L)
    if lo >= hi:
        raise ValueError(f"bounds: m must be < M, got {bounds!r}")
    if lo < qf.raw_min or hi > qf.raw_max:
        raise ValueError(f"format {qf.name} is too narrow for bounds [{Fraction(lo) * res}, "
                         f"{Fraction(hi) * res}]: its range is [{qf.min_value}, {qf.max_value}]")
    if lo < -RAW_LIMIT or hi > RAW_LIMIT:
        raise ValueError(f"bounds must lie within +-2^61 raw units of {qf.name}")
    return lo, hi


class _FixedBase(Mechanism):
    """Shared machinery: formats, input encoding, releases from system entropy."""
    finite_precision = True
    exact_grid = False
    release_checks_input = True     # release(src, x) encodes and checks x itself (check_input)

    strict = False

    def _set_strict(self, strict):
        """strict=True: an input outside the box [m, M] is a ValueError instead of being clamped
        (as make_geometric's strict, issue 15); added to config() only when set."""
        if not isinstance(strict, bool):
            raise ValueError(f"strict must be a bool, got {strict!r}")
        self.strict = strict
        if strict:
            self._args["strict"] = True

    def _out_of_box(self, name, x):
        res = self.qformat.resolution
        return ValueError(f"{name} = {x!r} is outside bounds [{self.lo * res}, {self.hi * res}] (strict=True "
                          f"refuses out-of-range inputs; strict=False clamps them)")

    def _encode(self, x, name="x"):
        try:
            raw = self.qformat.encode(x, "nearest_even", saturate=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a number (int, Fraction or finite float), got {x!r}") from exc
        if self.strict:
            try:                        # rounded to the format, unsaturated, must lie in [m, M]
                exact = self.qformat.encode(x, "nearest_even", saturate=False)
            except ValueError:          # RangeError: beyond the format itself
                exact = None
            if exact is None or not self.lo <= exact <= self.hi:
                raise self._out_of_box(name, x)
        return min(max(raw, self.lo), self.hi)

    def _strict_raw(self, values):
        """strict=True: raw fleet inputs must lie in [lo, hi] (ValueError naming the first one)."""
        if self.strict:
            import numpy as np
            v = np.asarray(values)
            if v.dtype.kind in "iu" and v.size:
                bad = np.flatnonzero(((v < self.lo) | (v > self.hi)).reshape(v.shape[0], -1).any(axis=1))
                if bad.size:
                    i = int(bad[0])
                    raise ValueError(f"values[{i}] = {v[i].tolist()!r} (raw) is outside the raw box "
                                     f"[{self.lo}, {self.hi}] (strict=True refuses out-of-range inputs; "
                                     f"strict=False clamps them)")
        return values

    def decode(self, raw):
        return None if raw is None else Fraction(raw, 1 << self.F)

    def __call__(self, x, rng=None):
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        return self.release(rng, x)

    def config(self):
        return dict(self._args)

    # --- protocol: audit, estimation, export harness, plots ------------------------
    planar = False                 # 2-D (x, y) inputs and outputs
    two_dimensional_output = False

    def exact_audit(self, d_in=1):
        """The exact finite-precision audit with the Gazeau et al. bounds (fxdp.mechanisms.finite.audit_finite)."""
        if d_in != 1:
            return super().exact_audit(d_in)
        from .audit_finite import audit_finite
        return audit_finite(self)

    @property
    def local_d_in(self):
        """The distance, in units of sensitivity, covering every pair of inputs in the box [m, M]
        (inputs are clamped into it): ceil((M - m) / sensitivity); planar: ceil(sqrt(2) (M - m) /
        sensitivity), the box's diagonal."""
        width = Fraction(self.hi - self.lo, 1 << self.F) / self.sensitivity
        if not self.planar:
            return math.ceil(width)
        v = 2 * width * width                       # the smallest d with d^2 >= 2 width^2
        d = math.isqrt(math.floor(v))
        return d if d * d >= v else d + 1

    def local_audit(self):
        """Exact realized epsilon over every pair of inputs in the box, with the Gazeau et al.
        bounds at d_in = local_d_in (fxdp.mechanisms.finite.audit_finite.audit_finite_all)."""
        from .audit_finite import audit_finite_all
        return audit_finite_all(self)

    def estimate(self, raw_outputs):
        """Mean of the true values from raw releases (fixed_point_mean)."""
        return fixed_point_mean(raw_outputs, self)

    def estimate_from_multiset(self, rows, counts):
        """fixed_point_mean on the distinct raw releases `rows` seen counts[i] times (weighted
        sums, O(distinct) memory; equal to the in-memory estimate up to float rounding)."""
        import numpy as np
        from ...reports import Estimate
        raw = np.asarray(rows, dtype=np.int64).reshape(len(counts), -1)
        c = np.asarray(counts, dtype=np.int64)
        keep = (raw != EXCEPTION_RAW).all(axis=1)
        vals = raw[keep].astype(np.float64) / (1 << self.F)
        c = c[keep].astype(np.float64)
        n = float(c.sum())
        if n < 2:
            raise ValueError("fewer than 2 releases inside [m, M]: nothing to estimate")
        mean = (vals * c[:, None]).sum(axis=0) / n
        var = (((vals - mean) ** 2) * c[:, None]).sum(axis=0) / (n - 1)
        if not self.planar:
            mean, var = float(mean[0]), float(var[0])
        return Estimate("mean", mean, np.sqrt(var / n))

    def synthetic_population(self, devices, seed):
        """Raw fixed-point inputs in the middle half of the safe range [m, M]; truth: their mean."""
        import numpy as np
        rng = np.random.default_rng([seed, 0x5EED])
        span = (self.hi - self.lo) // 4
        shape = (devices, 2) if self.planar else devices
        values = rng.integers(self.lo + span, self.hi - span + 1, size=shape).astype(np.int64)
        return values, self.true_statistic(values)

    def input_range(self):
        """The raw box [m, M] (fixed-point integers): a release clamps a raw input into it."""
        from ..base import InputRange
        b = self._args.get("bounds")
        where = (f"bounds = [{b[0]}, {b[1]}]" if b is not None else f"the {self.qformat.name} range")
        return InputRange(self.lo, self.hi, f"{where}: raw {self.qformat.name} integers")

    def true_statistic(self, values):
        """The mean of the raw fixed-point values, in value units (planar: the mean point)."""
        import numpy as np
        x = np.asarray(values)
        want = 2 if self.planar else 1
        if x.dtype.kind not in "iu" or x.ndim != want or (self.planar and x.shape[1] != 2) or x.shape[0] == 0:
            raise ValueError(f"values must be raw {self.qformat.name} integers of shape "
                             f"{'(n, 2)' if self.planar else '(n,)'}, n >= 1, got {x.dtype} {x.shape}")
        return x.astype(np.int64).mean(axis=0) / (1 << self.F)

    def harness_inputs(self):
        # raw fixed-point inputs: the box [lo, hi] widened by a quarter on each side (clamped by
        # the mechanism), and the box edges and the int64 extremes now and then
        i64_min, i64_max = -(1 << 63), (1 << 63) - 1
        margin = max(3, (self.hi - self.lo) // 4)
        a, b = max(i64_min, self.lo - margin), min(i64_max, self.hi + margin)
        return {"kind": "int", "lo": a, "span": min(b - a + 1, (1 << 32) - 1),
                "extremes": (self.lo, self.hi, i64_min, i64_max, 0), "sim_flat": not self.planar}

    def _clamp_raw(self, v):
        return min(max(v, self.lo), self.hi)

    def default_pair(self):
        """Values (not raw): planar (c, c) and (c + sensitivity, c); 1-D see the subclasses."""
        res = self.qformat.resolution
        c = self._clamp_raw(0) * res
        return (c, c), (c + self.sensitivity, c)

    def output_distribution(self, x, x_prime):
        raise ValueError("planar mechanisms have 2-D outputs: plot_output_distribution draws them as heat maps "
                         "(fxdp.mechanisms.finite.plot.plot_distributions); there is no 1-D distribution or loss profile")

    def draw_audit(self, path, dpi=130):
        """The Gazeau panels with their bounds marked (fxdp audit --plot)."""
        from .plot import plot_distributions
        plot_distributions(self, path, dpi=dpi)
        return True

    def draw_heatmaps(self, path, x=None, x_prime=None, dpi=130):
        """2-D outputs: the two output grids as heat maps (fxdp.mechanisms.finite.plot), saved to path."""
        from .plot import plot_distributions
        return plot_distributions(self, path, x, x_prime, dpi=dpi)


# ==========================================================================
# 1-D fixed-point Laplace
# ==========================================================================

class LaplaceFixed(_FixedBase):
    """r(f(D) + n'(u)) with snapping to the L grid and truncation to [m, M] (see the module docstring)."""
    kind = "laplace_fixed"
    no_device_form = ("naive_laplace_fixed",)     # unsafe demonstration: device_spec() refuses it
    input_metric = "AbsoluteDistance (d_in in units of `sensitivity`)"
    output_measure = "MaxDivergence"

    def __init__(self, epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", uniform_bits=32,
                 truncation="exception", strict=False, *, _naive_shift=None, _unchecked=False):
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, lo_open=True)
        self.sensitivity = check_rational("sensitivity", sensitivity, 0, lo_open=True)
        self.qformat = qf = parse_qformat(qformat)
        self.F = F = qf.frac_bits
        res = qf.resolution
        self.k = check_int("uniform_bits", uniform_bits, 1, 32)
        self.truncation = _check_choice("truncation", truncation, tuple(_TRUNC))
        self.trunc_code = _TRUNC[truncation]
        if self.sensitivity < res:
            raise ValueError(f"sensitivity must be >= the format resolution {res}, got {self.sensitivity}")
        self.naive = _naive_shift is not None
        self.unchecked = _unchecked
        b = self.sensitivity / self.epsilon_requested
        if self.naive:
            if F > 26:
                raise ValueError(f"the naive mechanism needs frac_bits <= 26, got {F}")
            self.method, self.n_shift = METHOD_SCALED, _naive_shift
            self.B, self.S, self.shift = 0, 0, 26 - F
            self.scale = Fraction(1 << _naive_shift)
            Lq = res
        else:
            self.method, self.n_shift = METHOD_DIRECT, 0
            self.B, self.S = realize_noise_scale(b, F)
            self.shift = 26 + self.S
            self.scale = Fraction(self.B, 1 << (F + self.S)) if F + self.S >= 0 else \
                Fraction(self.B * (1 << -(F + self.S)))
            Lq = None if L is None else check_rational("L", L, 0, lo_open=True)
        self.epsilon_ideal = self.sensitivity / self.scale
        if bounds is None:
            if not self.naive:
                raise ValueError("bounds (m, M) are required")
            lo, hi = qf.raw_min, qf.raw_max
            lo, hi = max(lo, -RAW_LIMIT), min(hi, RAW_LIMIT)
        else:
            if Lq is None:
                Lq = self._auto_L(bounds)
            lo, hi = None, None
        if Lq is not None and (Lq / res).denominator != 1:
            raise ValueError(f"L must be a multiple of the format resolution {res} (2^-{F}), got {Lq}")
        self.L = Lq
        self.step = int(Lq / res)
        if bounds is not None:
            lo, hi = _bounds_raw(bounds, qf, Lq)
        self.lo, self.hi = lo, hi
        self.half = self.step // 2
        if hi - lo + self.step >= (1 << 60):
            raise ValueError(f"bounds span too wide: (M - m + L) must be < 2^60 raw units of {qf.name}")
        self.cap = 2 * (hi - lo + self.step)
        self.delta_raw = math.floor(self.sensitivity * (1 << F))
        self._args = {"epsilon": given(epsilon),
                      "bounds": [given(bounds[0]), given(bounds[1])] if bounds is not None else None,
                      "sensitivity": given(sensitivity), "L": L if L is None else self.L,
                      "qformat": qf.name, "uniform_bits": self.k, "truncation": truncation}
        if self.naive:
            self.kind = "naive_laplace_fixed"
            self._args = {"epsilon": given(epsilon), "sensitivity": given(sensitivity), "qformat": qf.name,
                          "uniform_bits": self.k, "bounds": self._args["bounds"]}
            self.constants = None
            return
        self._set_strict(strict)
        self.unchecked = _unchecked
        if _unchecked:           # tests and demonstrations only: no guarantee, privacy map infinite
            self.constants = None
            return
        self.constants = self.closeness_constants()
        bd.check_L(self.L, self.constants["delta_t"], res)

    # -- closeness constants (paper's delta_0, k, delta_n) --------------------
    def closeness_constants(self, delta_n=None):
        """delta_0, k (Lipschitz), delta_n (value units; default: the composite analytic bound),
        delta_t, on U_r = {|n(u)| <= D}, D = M - m + L."""
        res = self.qformat.resolution
        D = (self.hi - self.lo + self.step) * res
        g = bd.grid_constants_1d(self.scale, D, self.k)
        if delta_n is None:
            delta_n = self.delta_n_bound()
        return {**g, "D": D, "delta_n": Fraction(delta_n), "delta_t": g["k_delta0"] + Fraction(delta_n),
                "delta_n_source": "analytic bound (fixmath error budget)"}

    def delta_n_bound(self):
        """Composite analytic bound on max |n'(u) - n(u)| (value units)."""
        res = self.qformat.resolution
        if self.naive:
            return self.scale * (Fraction(1, 2) * res + DELTA_LAMBDA)
        return Fraction(1, 2) * res + self.scale * DELTA_LAMBDA

    def _auto_L(self, bounds):
        """Smallest power-of-two multiple of the resolution with L >= 8 delta_t (with D from bounds)."""
        res = self.qformat.resolution
        m = check_rational("bounds[0] (m)", bounds[0])
        M = check_rational("bounds[1] (M)", bounds[1])
        L = res
        for _ in range(64):
            D = M - m + L
            g = bd.grid_constants_1d(self.scale, D, self.k)     # ValueError: k too small for the range
            dt = g["k_delta0"] + self.delta_n_bound()
            if L >= 8 * dt and (m / L).denominator == 1 and (M / L).denominator == 1:
                return L
            L *= 2
        raise ValueError("could not choose L automatically (pass L explicitly; bounds must be multiples of L)")

    # -- privacy -------------------------------------------------------------
    def privacy_map(self, d_in):
        d_in = check_int("d_in", d_in, 0)
        if d_in == 0:
            return 0.0
        if self.naive or self.constants is None:
            return math.inf      # no finite guarantee: see Example 1.1 (the audit shows infinity)
        c = self.constants
        return bd.tight_bound_1d(self.epsilon_ideal, self.sensitivity, self.L, c["delta_t"], d_in)

    def bounds_report(self, constants=None):
        c = constants or self.constants
        e, s = self.epsilon_ideal, self.sensitivity
        return {"epsilon_ideal": float_up(e),
                "epsilon_bound_paper": bd.paper_bound_1d(e, s, self.L, c["delta_t"]),
                "epsilon_bound_tight": bd.tight_bound_1d(e, s, self.L, c["delta_t"])}

    def realized(self):
        out = {"scale": self.scale, "epsilon_ideal": self.epsilon_ideal, "B": self.B, "S": self.S,
               "shift": self.shift, "method": "scaled_unit" if self.naive else "inverse_cdf",
               "L": self.L, "step_raw": self.step, "bounds_raw": (self.lo, self.hi), "cap_raw": self.cap,
               "uniform_bits": self.k, "truncation": self.truncation}
        if self.constants:
            out.update({k: v for k, v in self.constants.items() if k != "delta_n_source"})
        return out

    input_domain = property(lambda self: f"AtomDomain({self.qformat.name} in [{self.lo}, {self.hi}] raw)")
    output_domain = property(lambda self: f"{self.qformat.name} multiples of L in [m, M] + exception")

    # -- the device computation (reference, integers only) -------------------
    def noise_magnitude(self, w):
        """Raw magnitude for the odd w in [1, 2^k) (non-increasing in w)."""
        lam = neglog_q26(w, self.k)
        if self.method == METHOD_SCALED:
            mag = _rshift_round(lam, self.shift) << self.n_shift
        else:
            mag = _rshift_round(self.B * lam, self.shift)
        return mag if mag < self.cap else self.cap

    def noise_from_bits(self, j):
        """The signed raw noise for the k-bit draw j."""
        k = self.k
        i = j & ((1 << (k - 1)) - 1)
        if (j >> (k - 1)) == 0:
            return -self.noise_magnitude(2 * i + 1)
        return self.noise_magnitude((1 << k) - 1 - 2 * i)

    def post(self, y):
        """Snap and truncate the raw sum y: raw output or None (exception)."""
        g = ((y + self.half) // self.step) * self.step
        if g < self.lo:
            return self.lo if self.trunc_code == TRUNC_CLAMP else None
        if g > self.hi:
            return self.hi if self.trunc_code == TRUNC_CLAMP else None
        return g

    def release_raw(self, src, x_raw):
        """Reference release of the raw input (clamped to [m, M]); raw output or None."""
        x = min(max(x_raw, self.lo), self.hi)
        return self.post(x + self.noise_from_bits(src.bits(self.k)))

    def check_input(self, x):
        return self._encode(x)

    def release(self, src, x):
        """Release of the value x (encoded nearest-even, clamped): Fraction, or None for the exception."""
        return self.decode(self.release_raw(src, self.check_input(x)))

    def simulate(self, values, seed, device_ids=None, stream=0):
        """Numba fleet: device i releases raw values[i] from the keyed stream (seed, device_ids[i], stream).
        Returns an int64 array of raw outputs (EXCEPTION_RAW for the exception value)."""
        from . import _kernels_laplace as kf
        return kf.simulate_laplace(self, self._strict_raw(values), seed, device_ids, stream)

    def default_raw_pair(self):
        """(x, x') raw: the audit witness when it is a pair of scalars, else 0 and the sensitivity."""
        res = self.qformat.resolution
        x = min(max(0, self.lo), self.hi)
        d = int(self.sensitivity / res)
        if getattr(self, "naive", False):          # a neighbour that differs in the bits the shift keeps
            d = min(d, max(1, (1 << self.n_shift) >> 1))
        return x, min(x + d, self.hi) if x + d <= self.hi else max(x - d, self.lo)

    def default_pair(self):
        a, b = self.default_raw_pair()
        res = self.qformat.resolution
        return Fraction(a) * res, Fraction(b) * res

    def output_distribution(self, x, x_prime):
        """Exact (Fractions over the 2^k uniforms): every grid output and the exception."""
        import numpy as np
        from ..distribution import WINDOW_CELLS, exact_dist
        from .audit_finite import _Dist1D, dist_cache
        res = self.qformat.resolution
        xr, xpr = self.check_input(x), self.check_input(x_prime)
        dist = dist_cache(self, _Dist1D)
        p, q = dist.pmf(xr), dist.pmf(xpr)
        gs = [g for g in range(self.lo, self.hi + 1, self.step) if g in p or g in q]
        exc = None in p or None in q
        order = gs + ([None] if exc else [])
        num = [p.get(g, 0) for g in order]
        nump = [q.get(g, 0) for g in order]
        pos = np.array(gs, dtype=np.float64) * float(res)          # exact: dyadic values
        outs = pos.tolist()
        if exc:
            outs.append(None)
            gap = max(2 * self.step, (self.hi - self.lo) // 25)
            pos = np.append(pos, float(Fraction(self.hi + gap) * res))
        d_in = max(1, math.ceil(abs(Fraction(xpr - xr) * res) / self.sensitivity))
        step = float(self.L or res)
        cx = float(Fraction(xr + xpr, 2) * res)
        window = (cx - WINDOW_CELLS * step, cx + WINDOW_CELLS * step)
        note = "exception (outside [m, M]) drawn at the right" if exc else ""
        return exact_dist(repr(self), Fraction(xr) * res, Fraction(xpr) * res, outs, num, nump, dist.total, pos,
                          True, d_in=d_in, epsilon_claimed=self.privacy_map(d_in), window=window, note=note)

    def kernel_params(self):
        """Scalars of the Numba / C parameter block (int64)."""
        return (self.k, self.method, self.B, self.shift, self.n_shift, self.lo, self.hi, self.step,
                self.cap, self.trunc_code)

    def device_spec(self):
        """The C device form for the firmware exporter (fxdp/mechanisms/finite/_device_finite.py); the naive
        mechanism has none (ValueError)."""
        from ._device_laplace import laplace_fixed_spec
        return laplace_fixed_spec(self)

    def worst_case_mse(self, n):
        """(mse, variance) of ``fixed_point_mean`` over n equal readings at the worst reading
        (``fxdp.mechanisms.finite.worst_case.laplace_fixed_worst_mse``: biased toward the middle)."""
        from .worst_case import laplace_fixed_worst_mse
        mse, var, _ = laplace_fixed_worst_mse(self, n)
        return mse, var

    def readings_input(self, readings):
        """Readings in the bounds' units -> the raw fixed-point values ``simulate`` takes (exact for
        whole readings; others rounded to the nearest raw value)."""
        import numpy as np
        x = np.asarray(readings)
        if x.dtype.kind in "iub":
            return x.astype(np.int64) * (1 << self.F)
        return np.rint(x.astype(np.float64) * float(1 << self.F)).astype(np.int64)


def _reading_configs(lo, hi, epsilon, bits, integer_readings):
    from .worst_case import reading_configs
    return reading_configs(lo, hi, epsilon, bits, integer_readings)


@answers(reading_configs=_reading_configs)
def make_laplace_fixed(epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", uniform_bits=32,
                       truncation="exception", strict=False):
    """Fixed-point Laplace with snapping and truncation (Gazeau et al. Mechanism 3).

    epsilon > 0: the ideal epsilon (noise scale b = sensitivity / epsilon, rounded up on the device);
    bounds (m, M): the truncation range, also the input range (inputs are clamped), multiples of L;
    sensitivity > 0 (value units); L: the snapping step, a multiple of the format's resolution with
    L > 2 delta_t (None: the smallest power of two >= 8 delta_t dividing m and M); qformat: a signed
    QFormat or its name; uniform_bits k in [1, 32]; truncation "exception" or "clamp" (Remark 2).
    The privacy map is Theorem 4.5 with R from definition (5), rounded up.  strict=True (TOML
    ``strict = true``): an input outside [m, M] is a ValueError (m(x), release, simulate) instead of
    being clamped; the releases of in-range inputs, the bits and the device form are unchanged."""
    return LaplaceFixed(epsilon, bounds, sensitivity, L, qformat, uniform_bits, truncation, strict)


def make_naive_laplace_fixed(epsilon, sensitivity=1, qformat="Q9.6", uniform_bits=32, bounds=None):
    """The textbook fixed-point Laplace of Example 1.1: unit noise in the format times b = 2^n.

    b = sensitivity / epsilon must be a power of two >= 1.  No snapping and no truncation (outputs
    saturate at ``bounds``, default the format's range).  UNSAFE, for demonstration: its privacy map
    is infinite, and ``fxdp.audit`` exhibits the distinguishing output."""
    eps = check_rational("epsilon", epsilon, 0, lo_open=True)
    sens = check_rational("sensitivity", sensitivity, 0, lo_open=True)
    b = sens / eps
    n = b.numerator.bit_length() - 1
    if b.denominator != 1 or b.numerator != 1 << n:
        raise ValueError(f"scale = sensitivity/epsilon must be a power of two >= 1 for the naive "
                         f"mechanism, got {b}")
    if n > 30:
        raise ValueError(f"scale = 2^{n} too large (at most 2^30)")
    qf = parse_qformat(qformat)
    if bounds is not None:
        bounds = (bounds[0], bounds[1])
    return LaplaceFixed(epsilon, bounds, sensitivity, None, qf, uniform_bits, "clamp", _naive_shift=n)


# ==========================================================================
# planar fixed-point Laplace
# ==========================================================================

class PlanarLaplaceFixed(_FixedBase):
    """Planar (geo-indistinguishable) Laplace in fixed point, Cartesian snapping, truncation box."""
    planar = two_dimensional_output = True
    kind = "planar_laplace_fixed"
    input_metric = "EuclideanDistance (d_in in units of `sensitivity`)"
    output_measure = "MaxDivergence"

    def __init__(self, epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", radius_bits=16,
                 angle_bits=16, truncation="exception", strict=False, *, _unchecked=False):
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, lo_open=True)
        self.sensitivity = check_rational("sensitivity", sensitivity, 0, lo_open=True)
        self.qformat = qf = parse_qformat(qformat)
        self.F = F = qf.frac_bits
        res = qf.resolution
        self.kr = check_int("radius_bits", radius_bits, 1, 31)
        self.ka = check_int("angle_bits", angle_bits, 2, 31)
        if truncation != "exception":
            raise ValueError(f"truncation must be 'exception' for the planar mechanism (the paper's "
                             f"Remark 2 remapping is 1-D only), got {truncation!r}")
        self.truncation, self.trunc_code = truncation, TRUNC_EXCEPTION
        if self.sensitivity < res:
            raise ValueError(f"sensitivity must be >= the format resolution {res}, got {self.sensitivity}")
        b = self.sensitivity / self.epsilon_requested
        self.B, self.S = realize_noise_scale(b, F)
        self.shift = 26 + self.S
        self.scale = Fraction(self.B, 1 << (F + self.S)) if F + self.S >= 0 else \
            Fraction(self.B * (1 << -(F + self.S)))
        self.epsilon_ideal = self.sensitivity / self.scale
        Lq = None if L is None else check_rational("L", L, 0, lo_open=True)
        if Lq is None:
            if _unchecked:
                raise ValueError("L is required")
            Lq = self._auto_L(bounds)
        if (Lq / res).denominator != 1:
            raise ValueError(f"L must be a multiple of the format resolution {res} (2^-{F}), got {Lq}")
        self.L, self.step = Lq, int(Lq / res)
        self.half = self.step // 2
        self.lo, self.hi = _bounds_raw(bounds, qf, Lq)
        self.cap = 2 * (self.hi - self.lo + self.step)
        if self.cap >= (1 << 32):
            raise ValueError(f"bounds span too wide for the planar mechanism: 2 (M - m + L) must be < 2^32 "
                             f"raw units of {qf.name}")
        self.delta_raw2 = self.sensitivity * self.sensitivity * (1 << (2 * F))   # squared raw radius
        self._args = {"epsilon": given(epsilon), "bounds": [given(bounds[0]), given(bounds[1])],
                      "sensitivity": given(sensitivity),
                      "L": self.L if L is not None else None, "qformat": qf.name,
                      "radius_bits": self.kr, "angle_bits": self.ka, "truncation": truncation}
        self._set_strict(strict)
        self.unchecked = _unchecked
        if _unchecked:           # tests and demonstrations only: no guarantee, privacy map infinite
            self.constants = None
            return
        self.constants = self.closeness_constants()
        bd.check_L(self.L, self.constants["delta_t"], res)

    def _auto_L(self, bounds):
        res = self.qformat.resolution
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            raise ValueError(f"bounds must be a pair (m, M), got {bounds!r}")
        m = check_rational("bounds[0] (m)", bounds[0])
        M = check_rational("bounds[1] (M)", bounds[1])
        L = res
        for _ in range(64):
            c = self._constants_for(M - m, L, None)              # ValueError: bits too small for the box
            if L >= 8 * c["delta_t"] and (m / L).denominator == 1 and (M / L).denominator == 1:
                return L
            L *= 2
        raise ValueError("could not choose L automatically (pass L explicitly; bounds must be multiples of L)")

    def _constants_for(self, span, L, delta_n):
        sq2 = bd.sqrt2_up()
        R_U = sq2 * (span + L)
        g = bd.grid_constants_planar(self.scale, R_U, self.kr, self.ka)
        if delta_n is None:
            res = self.qformat.resolution
            dr = Fraction(1, 2) * res + 2 * self.scale * DELTA_LAMBDA
            dcs = sq2 * DELTA_CORDIC
            delta_n = dr + (g["R_E"] + dr) * dcs + sq2 / 2 * res
        return {**g, "R_U": R_U, "delta_n": Fraction(delta_n), "delta_t": g["k_delta0"] + Fraction(delta_n)}

    def closeness_constants(self, delta_n=None):
        res = self.qformat.resolution
        return self._constants_for((self.hi - self.lo) * res, self.L, delta_n)

    def privacy_map(self, d_in):
        d_in = check_int("d_in", d_in, 0)
        if d_in == 0:
            return 0.0
        if self.constants is None:
            return math.inf
        return bd.tight_bound_planar(self.epsilon_ideal, self.sensitivity, self.L,
                                     self.constants["delta_t"], d_in)

    def bounds_report(self, constants=None):
        c = constants or self.constants
        e, s = self.epsilon_ideal, self.sensitivity
        return {"epsilon_ideal": float_up(e),
                "epsilon_bound_paper": bd.paper_bound_planar(e, s, self.L, c["delta_t"]),
                "epsilon_bound_paper_as_printed": bd.paper_bound_planar(e, s, self.L, c["delta_t"],
                                                                        as_printed=True),
                "epsilon_bound_tight": bd.tight_bound_planar(e, s, self.L, c["delta_t"])}

    def realized(self):
        out = {"scale": self.scale, "epsilon_ideal": self.epsilon_ideal, "B": self.B, "S": self.S,
               "shift": self.shift, "L": self.L, "step_raw": self.step, "bounds_raw": (self.lo, self.hi),
               "cap_raw": self.cap, "radius_bits": self.kr, "angle_bits": self.ka}
        out.update(self.constants or {})
        return out

    input_domain = property(lambda self: f"({self.qformat.name})^2 in [{self.lo}, {self.hi}]^2 raw")
    output_domain = property(lambda self: "L-grid points of [m, M]^2 + exception")

    # -- device computation -------------------------------------------------
    def radius(self, i1, i2):
        n = self.kr + 1
        lam = neglog_q26(2 * i1 + 1, n) + neglog_q26(2 * i2 + 1, n)
        r = _rshift_round(self.B * lam, self.shift)
        return r if r < self.cap else self.cap

    def noise_from_bits(self, ja, i1, i2):
        a = ((2 * ja + 1) << (31 - self.ka)) & 0xFFFFFFFF
        c, s = cordic_cos_sin_q30(a)
        r = self.radius(i1, i2)
        return (r * c + (1 << 29)) >> 30, (r * s + (1 << 29)) >> 30

    def _snap(self, y):
        return ((y + self.half) // self.step) * self.step

    def post(self, yx, yy):
        gx, gy = self._snap(yx), self._snap(yy)
        if gx < self.lo or gx > self.hi or gy < self.lo or gy > self.hi:
            return None
        return gx, gy

    def release_raw(self, src, x_raw, y_raw):
        x = min(max(x_raw, self.lo), self.hi)
        y = min(max(y_raw, self.lo), self.hi)
        ja = src.bits(self.ka)
        i1 = src.bits(self.kr)
        i2 = src.bits(self.kr)
        dx, dy = self.noise_from_bits(ja, i1, i2)
        return self.post(x + dx, y + dy)

    def check_input(self, x):
        if not isinstance(x, (tuple, list)) or len(x) != 2:
            raise ValueError(f"x must be a pair (x, y), got {x!r}")
        return self._encode(x[0], "x[0]"), self._encode(x[1], "x[1]")

    def release(self, src, x):
        xr, yr = self.check_input(x)
        out = self.release_raw(src, xr, yr)
        return None if out is None else (self.decode(out[0]), self.decode(out[1]))

    def simulate(self, values, seed, device_ids=None, stream=0):
        """Numba fleet over raw (x, y) rows; returns (n, 2) int64 (EXCEPTION_RAW rows for the exception)."""
        from . import _kernels_laplace as kf
        return kf.simulate_planar(self, self._strict_raw(values), seed, device_ids, stream)

    def kernel_params(self):
        return (self.ka, self.kr, self.B, self.shift, self.lo, self.hi, self.step, self.cap)

    def device_spec(self):
        """The C device form for the firmware exporter (fxdp/mechanisms/finite/_device_finite.py)."""
        from ._device_laplace import planar_laplace_fixed_spec
        return planar_laplace_fixed_spec(self)


def make_planar_laplace_fixed(epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", radius_bits=16,
                              angle_bits=16, truncation="exception", strict=False):
    """Planar Laplace (Gazeau et al. section 6) in fixed point: CORDIC angle, Gamma(2) radius as the
    sum of two exponentials, Cartesian snapping to the L grid, exception outside the box [m, M]^2.
    radius_bits in [1, 31] per exponential uniform, angle_bits in [2, 31].  strict=True: a coordinate
    outside [m, M] is a ValueError instead of being clamped (as make_laplace_fixed)."""
    return PlanarLaplaceFixed(epsilon, bounds, sensitivity, L, qformat, radius_bits, angle_bits, truncation,
                              strict)


# ==========================================================================
# exact-grid alternatives
# ==========================================================================

class LaplaceGrid(_FixedBase):
    """Snapped input plus exact discrete Laplace noise in grid units, censored to [m, M]."""
    kind = "laplace_grid"
    exact_grid = True
    input_metric = "AbsoluteDistance (d_in in units of `sensitivity`)"

    def __init__(self, epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", strict=False):
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, lo_open=True)
        self.sensitivity = check_rational("sensitivity", sensitivity, 0, lo_open=True)
        self.qformat = qf = parse_qformat(qformat)
        self.F = qf.frac_bits
        res = qf.resolution
        if self.sensitivity < res:
            raise ValueError(f"sensitivity must be >= the format resolution {res}, got {self.sensitivity}")
        Lq = res if L is None else check_rational("L", L, 0, lo_open=True)
        if (Lq / res).denominator != 1:
            raise ValueError(f"L must be a multiple of the format resolution {res}, got {Lq}")
        self.L, self.step = Lq, int(Lq / res)
        self.half = self.step // 2
        self.lo, self.hi = _bounds_raw(bounds, qf, Lq)
        self.delta_raw = math.floor(self.sensitivity * (1 << self.F))
        self.D = self.grid_sensitivity()
        self.s, self.t = realize_scale(Fraction(self.D) / self.epsilon_requested)
        self.scale_grid = Fraction(self.t, self.s)
        self.epsilon_ideal = Fraction(self.D * self.s, self.t)
        self.constants = None
        self._args = {"epsilon": given(epsilon), "bounds": [given(bounds[0]), given(bounds[1])],
                      "sensitivity": given(sensitivity),
                      "L": given(L), "qformat": qf.name}
        self._set_strict(strict)

    def grid_sensitivity(self):
        return -(-self.delta_raw // self.step)

    def default_pair(self):
        if self.planar:
            return super().default_pair()
        res = self.qformat.resolution
        a = self._clamp_raw(0)
        b = a + self.delta_raw if a + self.delta_raw <= self.hi else max(a - self.delta_raw, self.lo)
        return Fraction(a) * res, Fraction(b) * res

    def output_distribution(self, x, x_prime):
        """Closed form (the exact discrete Laplace is irrational)."""
        if self.planar:
            return super().output_distribution(x, x_prime)
        from ..distribution import closed_form
        res = self.qformat.resolution
        xr, xpr = self.check_input(x), self.check_input(x_prime)
        xg, xpg = (xr + self.half) // self.step, (xpr + self.half) // self.step
        d_in = max(1, math.ceil(abs(Fraction(xpr - xr) * res) / self.sensitivity))
        return closed_form(repr(self), Fraction(xr) * res, Fraction(xpr) * res, self.lo // self.step,
                           self.hi // self.step, xg, xpg, -self.s / self.t, self.step, res, d_in=d_in,
                           epsilon_claimed=self.privacy_map(d_in),
                           note="exact discrete Laplace (irrational): closed form")

    def privacy_map(self, d_in):
        d_in = check_int("d_in", d_in, 0)
        return 0.0 if d_in == 0 else float_up(self.epsilon_ideal * d_in)

    @property
    def local_epsilon(self):
        """Every pair of inputs: the censored exact discrete Laplace's worst ratio is rho^-span per
        coordinate (span = (M - m) / L grid steps), so c span s / t (c coordinates), rounded up;
        never above privacy_map(local_d_in)."""
        c = 2 if self.planar else 1
        return float_up(Fraction(c * ((self.hi - self.lo) // self.step) * self.s, self.t))

    def bounds_report(self, constants=None):
        e = float_up(self.epsilon_ideal)
        return {"epsilon_ideal": e, "epsilon_bound_paper": e, "epsilon_bound_tight": e}

    def realized(self):
        return {"s": self.s, "t": self.t, "scale_grid": self.scale_grid, "grid_sensitivity": self.D,
                "epsilon": self.epsilon_ideal, "L": self.L, "bounds_raw": (self.lo, self.hi)}

    def release_raw(self, src, x_raw):
        x = min(max(x_raw, self.lo), self.hi)
        xg = (x + self.half) // self.step
        lo_g, hi_g = self.lo // self.step, self.hi // self.step
        z = ref.discrete_laplace_censored(src, self.s, self.t, lo_g - xg, hi_g - xg)
        return (xg + z) * self.step

    def check_input(self, x):
        return self._encode(x)

    def release(self, src, x):
        return self.decode(self.release_raw(src, self.check_input(x)))

    def simulate(self, values, seed, device_ids=None, stream=0):
        from . import _kernels_laplace as kf
        return kf.simulate_laplace_grid(self, self._strict_raw(values), seed, device_ids, stream)

    def device_spec(self):
        """The C device form for the firmware exporter (fxdp/mechanisms/finite/_device_finite.py)."""
        from ._device_laplace import laplace_grid_spec
        return laplace_grid_spec(self)


def make_laplace_grid(epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", strict=False):
    """Zero-degradation alternative: exact discrete Laplace in units of L (default: the resolution).
    Inputs outside [m, M] are clamped; strict=True refuses them (ValueError)."""
    return LaplaceGrid(epsilon, bounds, sensitivity, L, qformat, strict)


class PlanarLaplaceGrid(LaplaceGrid):
    """Product of two exact discrete Laplaces on the L grid; Euclidean sensitivity via exact L1 conversion."""
    planar = two_dimensional_output = True
    kind = "planar_laplace_grid"
    input_metric = "EuclideanDistance (d_in in units of `sensitivity`)"

    def grid_sensitivity(self):
        """max over raw (dx, dy), dx^2 + dy^2 <= Delta^2, of ceil(|dx|/L) + ceil(|dy|/L) (grid steps)."""
        d2 = self.sensitivity * self.sensitivity * (1 << (2 * self.F))
        span = self.hi - self.lo
        best = 0
        for dx in range(0, min(self.delta_raw, span) + 1):
            rest = d2 - dx * dx
            if rest < 0:
                break
            dy = min(math.isqrt(math.floor(rest)), span)
            best = max(best, -(-dx // self.step) + -(-dy // self.step))
        return best

    def release_raw(self, src, x_raw, y_raw):
        lo_g, hi_g = self.lo // self.step, self.hi // self.step
        out = []
        for v in (x_raw, y_raw):
            xg = (min(max(v, self.lo), self.hi) + self.half) // self.step
            z = ref.discrete_laplace_censored(src, self.s, self.t, lo_g - xg, hi_g - xg)
            out.append((xg + z) * self.step)
        return tuple(out)

    def check_input(self, x):
        if not isinstance(x, (tuple, list)) or len(x) != 2:
            raise ValueError(f"x must be a pair (x, y), got {x!r}")
        return self._encode(x[0], "x[0]"), self._encode(x[1], "x[1]")

    def release(self, src, x):
        xr, yr = self.check_input(x)
        a, b = self.release_raw(src, xr, yr)
        return self.decode(a), self.decode(b)

    def simulate(self, values, seed, device_ids=None, stream=0):
        from . import _kernels_laplace as kf
        return kf.simulate_planar_grid(self, self._strict_raw(values), seed, device_ids, stream)

    def device_spec(self):
        """The C device form for the firmware exporter (fxdp/mechanisms/finite/_device_finite.py)."""
        from ._device_laplace import laplace_grid_spec
        return laplace_grid_spec(self, planar=True)


def make_planar_laplace_grid(epsilon, bounds, sensitivity=1, L=None, qformat="Q15.16", strict=False):
    """Zero-degradation planar alternative: two exact discrete Laplaces on the L grid.
    Coordinates outside [m, M] are clamped; strict=True refuses them (ValueError)."""
    return PlanarLaplaceGrid(epsilon, bounds, sensitivity, L, qformat, strict)


# ==========================================================================
# estimator (floats: statistics on released data)
# ==========================================================================

# the kinds of this family (their estimator is fixed_point_mean)
FINITE_KINDS = ("laplace_fixed", "naive_laplace_fixed", "planar_laplace_fixed", "laplace_grid", "planar_laplace_grid")

def fixed_point_mean(raw_outputs, mechanism):
    """Mean of the true values from fixed-point Laplace releases (raw outputs of
    ``m.simulate``; planar: an n x 2 array gives the mean point).

    Exception outputs are dropped; the noise is symmetric, so the mean is unbiased
    when truncation is rare (it biases toward the centre of [m, M] otherwise).
    The standard error is the sample standard deviation over sqrt(n).
    """
    import numpy as np
    from ...reports import Estimate
    expect_kind(mechanism, FINITE_KINDS, "fixed_point_mean")
    raw = np.asarray(raw_outputs, dtype=np.int64)
    keep = raw != EXCEPTION_RAW
    if raw.ndim == 2:
        keep = keep.all(axis=1)
    vals = raw[keep].astype(np.float64) / (1 << mechanism.F)
    if vals.shape[0] < 2:
        raise ValueError("fewer than 2 releases inside [m, M]: nothing to estimate")
    n = vals.shape[0]
    return Estimate("mean", vals.mean(axis=0), vals.std(axis=0, ddof=1) / math.sqrt(n))

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'laplace_fixed': ('Gazeau, Miller, Palamidessi 2013',
        '`epsilon = 0.5`, `bounds = [-8, 8]`, `qformat = "Q15.16"`, `L = "1/4"`, `uniform_bits = 32`, `truncation = "exception"`'),
    'naive_laplace_fixed': ('Gazeau et al. 2013, Example 1.1',
        '`epsilon = 0.25`, `qformat = "Q9.6"` (audits to infinity)', 'no (infinite epsilon)'),
    'planar_laplace_fixed': ('Gazeau et al. 2013, section 6',
        '`epsilon = 0.25`, `bounds = [-2, 2]`, `L = "1/2"`, `qformat = "Q11.4"`, `radius_bits = 10`, `angle_bits = 10`'),
    'laplace_grid': ('CKS 2020 on the fixed-point grid',
        '`epsilon = 0.5`, `bounds = [-8, 8]`, `L = "1/4"`, `qformat = "Q15.16"`'),
    'planar_laplace_grid': ('CKS 2020 on the fixed-point grid',
        '`epsilon = 0.5`, `bounds = [-8, 8]`, `L = "1/4"`, `qformat = "Q15.16"`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Finite-precision Laplace (fxdp/mechanisms/finite/laplace.py): raw int64 in and out, INT64_MIN = exception.
    'laplace_fixed': lambda: make_laplace_fixed(1, (-8, 8), L=Fraction(1, 16), qformat='Q15.16'),
    'laplace_fixed_clamp': lambda: make_laplace_fixed(Fraction(1, 2), (-8, 8), sensitivity=2, L=Fraction(1, 2), qformat='Q9.6', uniform_bits=20, truncation='clamp'),
    # (a small box: the planar audit of the export header tabulates (M - m + L)^2 raw points)
    'planar_laplace_fixed': lambda: make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat='Q11.4', radius_bits=8, angle_bits=8),
    'laplace_grid': lambda: make_laplace_grid(Fraction(1, 2), (-8, 8), sensitivity=2, L=Fraction(1, 2), qformat='Q9.6'),
    'planar_laplace_grid': lambda: make_planar_laplace_grid(Fraction(1, 2), (-8, 8), sensitivity=2, L=Fraction(1, 2), qformat='Q9.6'),
}
EXPORT_VARIANTS = {'laplace_fixed_clamp'}
