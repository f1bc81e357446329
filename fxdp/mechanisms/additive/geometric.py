"""The geometric mechanism (seed 004): two-sided geometric (discrete Laplace) noise,
saturating at bounds; scalar (absolute metric) or vector (L1 metric) input.

The whole family, in one module because its parts share the three forms (scale 0,
lazy exact CKS noise, constant-time proved table) and every part branches on them:
the reference release, the Numba fleet kernel glue (``_kernels_geometric.fleet_geometric``),
the C entry points (csrc/fxdp_mech_geometric.c) and device spec, and the exact audit at
any input distance, in closed form or by enumeration.  The estimators are geometric_estimate.py.

The statistic, one rule for both forms: a scalar geometric with bounds estimates the
**mean** of the true values (``bounded_geometric_mean``: unbiased although releases
saturate at the bounds; constant time by inverting its exact table channel, lazy by
the closed-form correction of the two end values); a geometric without bounds, or a
vector one, estimates the **sum** of every true value (``geometric_sum``: the sum of
the releases, unbiased while no release saturates).  ``m.estimate``,
``m.true_statistic``, ``m.synthetic_population`` and ``fxdp simulate`` follow it.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import div_up, float_up
from ...reports import AuditReport, Estimate, ratio_eps, window_extrema, worst_pair, worst_ratio_index
from ...samplers import reference as ref
from ...samplers.bounded import exact_max_ratio, make_bounded_laplace_table
from ...validate import check_int, check_rational, given
from .._device import SRC_GEOMETRIC, _ct_text, _init, i64, u8, u32
from ..base import CConfig, Mechanism, answers
from .geometric_estimate import (MAX_CHANNEL_INPUTS, _bounded_mean_from_histogram, _lazy_bounded_mean,
                                 bounded_geometric_mean, bounded_geometric_worst_variance, channel_matrix,
                                 channel_scores, discrete_laplace_variance, exact_int_sum, geometric_mean,
                                 geometric_sum, lazy_end_correction)

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
U32_MAX = (1 << 32) - 1
MAX_DIM = 16            # FXDP_GEOMETRIC_MAX_N: the C device form's fixed vector buffer
MODE_NONE, MODE_LAZY, MODE_CT = 0, 1, 2      # fleet kernel modes (fxdp.mechanisms.additive._kernels_geometric)
MAX_ENUMERATED_INPUTS = 4096  # audit: enumerate every input pair up to 4096/16 inputs
MAX_LOCAL_SPAN = 64           # d_in > 1 on the constant-time form: inputs enumerated pairwise
MAX_GEOMETRIC_SPAN = 256      # reading_configs: the channel is (span + 1)^2 floats


def realize_scale(scale):
    """(s, t) with t/s >= scale, s, t in [1, 2^32 - 1]: exact when scale = t/s fits,
    else s = 2^m (largest m <= 31 keeping t < 2^32) and t = ceil(scale * 2^m).
    Rounding the scale up only adds noise: epsilon never grows."""
    if scale.denominator <= U32_MAX and 1 <= scale.numerator <= U32_MAX:
        return scale.denominator, scale.numerator
    if scale > U32_MAX:
        raise ValueError(f"scale must be <= {U32_MAX}, got {float(scale)}")
    for m in range(31, -1, -1):
        t = math.ceil(scale * (1 << m))
        if t <= U32_MAX:
            return 1 << m, t
    raise AssertionError("unreachable")


class Geometric(Mechanism):
    """Adds discrete Laplace noise with P(z) ∝ exp(-|z|/scale) and saturates at bounds.

    * lazy form: z = discrete_laplace(s, t) (CKS 2020, exact); y = clamp(x + z, lo, hi),
      computed without overflow.  Any int64 input.
    * constant-time form: noise from the proved integer-weight table of
      ``make_bounded_laplace_table(scale, bounds, bounds)`` (one 32-bit draw,
      full scan); the input is first clamped to the bounds; y = clamp(x + J, lo, hi).
      Needs finite, narrow bounds (table size 2(hi - lo) + 1).
    scale = 0 releases x clamped to the bounds, with an infinite privacy map (as the seed).

    An input outside the bounds is clamped into them, silently (sound for privacy: the
    release depends on the clamped value only); strict=True refuses it instead, with a
    ValueError, in ``m(x)`` and ``m.simulate`` (a host-side check: the C and the bit
    stream are the same either way).
    """
    kind = "geometric"

    def __init__(self, scale, bounds=None, constant_time=False, vector=False, bits=32, dim=None,
                 strict=False):
        self.scale = check_rational("scale", scale, 0)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        if not isinstance(vector, bool):
            raise ValueError(f"vector must be a bool, got {vector!r}")
        if bounds is None:
            if constant_time:
                raise ValueError("bounds are required in constant-time mode (the weight table spans them)")
            lo, hi = I64_MIN, I64_MAX
        else:
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise ValueError(f"bounds must be a pair (lower, upper), got {bounds!r}")
            lo = check_int("bounds[0] (lower)", bounds[0], I64_MIN, I64_MAX)
            hi = check_int("bounds[1] (upper)", bounds[1], I64_MIN, I64_MAX)
            if lo > hi:
                raise ValueError(f"bounds: lower may not be greater than upper, got {bounds!r}")
        self.bounds = (lo, hi)
        self.constant_time, self.vector = constant_time, vector
        self.bits = check_int("bits", bits, 8, 32)
        if dim is not None:
            # the vector length a device releases (FXDP_GEOMETRIC_MAX_N = 16); the export needs it
            if not vector:
                raise ValueError(f"dim applies to vector=True only, got dim={dim!r} with vector=False")
            dim = check_int("dim", dim, 1, MAX_DIM)
        self.dim = dim
        self._args = {"scale": given(scale), "bounds": None if bounds is None else [lo, hi],
                      "constant_time": constant_time, "vector": vector, "bits": self.bits}
        if dim is not None:
            self._args["dim"] = dim
        if not isinstance(strict, bool):
            raise ValueError(f"strict must be a bool, got {strict!r}")
        self.strict = strict
        if strict:                  # only when set: every existing repr and config stays as it was
            self._args["strict"] = True
        self.s = self.t = 0
        self.table = None
        if self.scale > 0:
            self.s, self.t = realize_scale(self.scale)
            self.scale_realized = Fraction(self.t, self.s)
            if constant_time:
                self.table = make_bounded_laplace_table(self.scale_realized, self.bounds, self.bounds, k=self.bits,
                                                        names=("bounds", "bounds"))
        else:
            self.scale_realized = Fraction(0)

    input_domain = property(lambda self: "VectorDomain(AtomDomain(i64))" if self.vector else "AtomDomain(i64)")
    output_domain = input_domain
    input_metric = property(lambda self: "L1Distance(i64)" if self.vector else "AbsoluteDistance(i64)")

    def privacy_map(self, d_in):
        d_in = check_int("d_in", d_in, 0)
        if d_in == 0:
            return 0.0
        if self.scale == 0:
            return math.inf
        return div_up(d_in, self.scale_realized)

    @property
    def local_d_in(self):
        """|x - x'| over every pair of inputs: hi - lo (dim (hi - lo) for an L1 vector of fixed
        length dim); math.inf without bounds (the int64 range is no useful local guarantee:
        set bounds) or for a vector of unfixed length (set dim)."""
        if self._args["bounds"] is None or (self.vector and self.dim is None):
            return math.inf
        lo, hi = self.bounds
        return (hi - lo) * (self.dim if self.vector else 1)

    def local_audit(self):
        """Exact realized epsilon over every pair of inputs in the bounds (d_in = "all")."""
        rep = _audit_all(self, repr(self))
        rep.epsilon_claimed, rep.d_in = self.local_epsilon, "all"
        return rep

    def config(self):
        return dict(self._args)

    def realized(self):
        out = {"scale": self.scale_realized, "s": self.s, "t": self.t, "bounds": self.bounds}
        if self.table is not None:
            out.update(table_width=self.table.width, table_k=self.table.k,
                       table_epsilon=self.table.epsilon_realized)
        return out

    def check_input(self, x):
        if self.vector:
            try:
                xs = [check_int("x[i]", v, I64_MIN, I64_MAX) for v in x]
            except TypeError:
                raise ValueError("x must be a sequence of int64 values (vector=True)") from None
            if self.dim is not None and len(xs) != self.dim:
                raise ValueError(f"x must have exactly dim = {self.dim} values, got {len(xs)}")
            self.check_in_bounds(xs, "x")
            return xs
        x = check_int("x", x, I64_MIN, I64_MAX)
        self.check_in_bounds(x, "x")
        return x

    def input_range(self):
        """The bounds (a release clamps an input into them); without bounds, int64 (nothing clamps)."""
        from ..base import InputRange
        lo, hi = self.bounds
        if self._args["bounds"] is None:
            return InputRange(lo, hi, "int64: no bounds")
        return InputRange(lo, hi, f"bounds = [{lo}, {hi}]")

    def check_in_bounds(self, x, name="x"):
        """strict=True: ValueError if an input lies outside the bounds, naming it (with its
        index for a vector or an array), its value and the bounds.  x: an int, a sequence
        (one vector) or a numpy int64 array (values of simulate: n, or n x d).  Does nothing
        when strict is False: out-of-range inputs are then clamped into the bounds."""
        if not self.strict:
            return
        lo, hi = self.bounds
        if isinstance(x, int):
            if not lo <= x <= hi:
                raise ValueError(f"{name} = {x} is outside bounds [{lo}, {hi}] (strict=True refuses "
                                 f"out-of-range inputs; strict=False clamps them)")
            return
        import numpy as np
        arr = np.asarray(x, dtype=np.int64)
        bad = np.argwhere((arr < lo) | (arr > hi))
        if len(bad):
            idx = "".join(f"[{int(i)}]" for i in bad[0])
            raise ValueError(f"{name}{idx} = {int(arr[tuple(bad[0])])} is outside bounds [{lo}, {hi}] "
                             f"(strict=True refuses out-of-range inputs; strict=False clamps them)")

    def release(self, src, x):
        if self.vector:
            return [self.release_one(src, v) for v in x]
        return self.release_one(src, x)

    def release_one(self, src, x):
        lo, hi = self.bounds
        if self.scale == 0:
            return ref.clamp(x, lo, hi)
        if self.table is not None:
            xc = ref.clamp(x, lo, hi)
            j = ref.table_sample_ct(src, self.table.thresholds, self.table.k) - self.table.width
            return ref.clamp(xc + j, lo, hi)
        return ref.clamp(x + ref.discrete_laplace(src, self.s, self.t), lo, hi)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores, GIL released): values are n int64 inputs
        (an n x d matrix when vector=True, one d-vector per device); device i draws from
        the keyed stream (seed, device_ids[i], stream 0), bit-identical to the C library.
        Returns int64 outputs of the same shape; raises ValueError / EntropyError /
        RangeError (nothing returned); strict=True: ValueError for an input outside the bounds."""
        if self.dim is not None:
            shape = np.shape(values)
            if len(shape) != 2 or shape[1] != self.dim:
                raise ValueError(f"values must be an n x dim = n x {self.dim} matrix, got shape {shape}")
        if self.strict:
            x = self.fleet_inputs(values)          # int64, n x d (d = 1 for scalars)
            self.check_in_bounds(x if self.vector else x.reshape(-1), "values")
        return super().simulate(values, seed, device_ids)

    def device_spec(self, dim=None):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base).
        vector=True needs the vector length: dim in [1, FXDP_GEOMETRIC_MAX_N = 16], from
        the argument or from make_geometric(..., dim=d).  scale = 0 has no device form (ValueError)."""
        if dim is None:
            dim = self.dim
        elif self.dim is not None and dim != self.dim:
            raise ValueError(f"dim: this mechanism releases dim = {self.dim} values, got dim={dim!r}")
        return _device_spec(self, dim)


    # --- fleet kernel
    def kernel_params(self):
        """(mode, s, t, lo, hi, thresholds uint32, k, width) of the fleet and release kernels."""
        lo, hi = (int(v) for v in self.bounds)
        empty = np.zeros(0, dtype=np.uint32)
        if self.scale == 0:
            return MODE_NONE, 0, 0, lo, hi, empty, 0, 0
        if self.table is not None:
            thr = np.array(self.table.thresholds, dtype=np.uint32)
            return MODE_CT, 0, 0, lo, hi, thr, self.table.k, self.table.width
        return MODE_LAZY, self.s, self.t, lo, hi, empty, 0, 0

    def fleet_inputs(self, values):
        from .._fleet import int_array
        if self.vector:
            return int_array("values (n x d int64, vector=True)", values, 2, I64_MIN, I64_MAX)
        return int_array("values (int64)", values, 1, I64_MIN, I64_MAX).reshape(-1, 1)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_geometric import fleet_geometric
        mode, s, t, lo, hi, thr, k, width = self.kernel_params()
        out = np.zeros(x.shape, dtype=np.int64)
        fleet_geometric(key, ids, first_block, np.int64(mode), np.uint64(s), np.uint64(t), np.int64(lo),
                        np.int64(hi), thr, np.uint64(k), np.int64(width), x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        out = out.astype(np.int64, copy=False)
        return out if self.vector else out.reshape(out.shape[0])

    # --- estimation
    def worst_case_mse(self, n):
        """(mse, variance) of bounded_geometric_mean over n equal readings at the worst input:
        unbiased, so both are the per-report variance of its scores (exact channel) over n.
        ValueError unless the form is bounded and constant time."""
        v = bounded_geometric_worst_variance(self) / n
        return v, v

    @property
    def estimates_mean(self):
        """True when the statistic is the mean (a scalar form with bounds, constant time or
        lazy), False when it is the sum (no bounds, or vector=True): the family's one rule."""
        return self._args["bounds"] is not None and not self.vector

    def estimate(self, reports):
        """A scalar form with bounds (constant time or lazy): the mean of the true values,
        unbiased under saturation at the bounds (``bounded_geometric_mean``).  No bounds, or
        vector=True: the sum of the true values (``geometric_sum``)."""
        if self.estimates_mean:
            return bounded_geometric_mean(reports, self)
        return geometric_sum(reports, self)

    def estimate_from_multiset(self, rows, counts):
        """estimate() on the distinct reports `rows` (one per row) seen counts[i] times: the same
        estimators without expanding the reports (exact integer sums)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(len(counts), -1)
        counts = np.asarray(counts, dtype=np.int64)
        if self.estimates_mean:
            lo, hi = self.bounds
            if rows.size and (rows.min() < lo or rows.max() > hi):
                raise ValueError(f"reports must lie in the mechanism's bounds [{lo}, {hi}]")
            if self.table is None:
                return _lazy_bounded_mean(rows[:, 0], counts, self)
            hist = np.zeros(hi - lo + 1, dtype=np.int64)
            np.add.at(hist, rows[:, 0] - lo, counts)
            return _bounded_mean_from_histogram(hist, self)
        total = sum(int(v) * int(c) for v, c in zip(rows.astype(object).sum(axis=1), counts))
        elements = int(counts.sum()) * rows.shape[1]
        var = 0.0 if self.scale == 0 else discrete_laplace_variance(self.s, self.t)
        return Estimate("sum", float(total), math.sqrt(elements * var))

    def synthetic_population(self, devices, seed):
        rng = np.random.default_rng([seed, 0x5EED])
        lo, hi = self.bounds
        lo_v, hi_v = max(lo, -1000), min(hi, 1000)
        mid, span = (lo_v + hi_v) // 2, max((hi_v - lo_v) // 4, 0)
        cols = (self.dim or 1) if self.vector else 1
        values = rng.integers(mid - span, mid + span + 1, size=devices * cols).astype(np.int64)
        if self.vector:
            values = values.reshape(devices, cols)      # a fixed dim: every device reports dim values
        return values, self.true_statistic(values)

    def true_statistic(self, values):
        """What ``estimate`` estimates: the mean (a scalar form with bounds), else the sum."""
        x = self.fleet_inputs(values)
        if self.estimates_mean:
            return float(x.mean())
        return float(x.sum())

    # --- device form
    def c_config(self, dim=None):
        from ... import native
        if self.scale == 0:
            raise ValueError("scale = 0 has no device form")
        ffi = native.ffi
        lo, hi = self.bounds
        cfg = ffi.new("fxdp_geometric_cfg *", {"s": self.s, "t": self.t, "lo": lo, "hi": hi, "n": dim or 1})
        keep = []
        if self.table is not None:
            half, thr = geometric_half_table(self.table)
            tbl = ffi.new("uint32_t[]", thr)
            keep.append(tbl)
            cfg.thresholds = tbl
            cfg.k = self.table.k
            cfg.half = half
            cfg.width = self.table.width
        return CConfig(cfg, keep, "fxdp_geometric" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "int64_t", np.int64)

    def release_output(self, out):
        return [int(v) for v in out] if self.vector else int(out[0])

    def harness_inputs(self):
        lo, hi = self.bounds
        if lo == I64_MIN and hi == I64_MAX:
            return {"kind": "int", "lo": -1000, "span": 2001,
                    "extremes": (I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, 0), "sim_flat": not self.vector}
        margin = max(3, (hi - lo) // 4)
        a, b = max(I64_MIN, lo - margin), min(I64_MAX, hi + margin)
        return {"kind": "int", "lo": a, "span": min(b - a + 1, U32_MAX), "extremes": (lo, hi, I64_MIN, I64_MAX),
                "sim_flat": not self.vector}

    # --- audit
    def exact_audit(self, d_in=1):
        """Exact realized epsilon at input distance d_in (|x - x'|; L1 for the vector form): with
        d_in = hi - lo it is the local-DP guarantee of one report over every pair of inputs in the
        bounds; the claimed value is then privacy_map(d_in)."""
        if d_in != 1:
            return _audit_distance(self, repr(self), d_in)
        return _audit(self, repr(self))

    # --- plots
    def default_pair(self):
        lo, hi = self.bounds
        if self.scale != 0 and self.table is not None and hi - lo + 1 <= 256:
            w = self.exact_audit().witness
            if "x" in w:
                return w["x"], w["x_prime"]
        x = (lo + hi) // 2 if (self.scale != 0 and hi - lo <= 1 << 31) else min(max(0, lo), hi)
        return (x, x + 1) if x < hi else (x - 1, x)

    def output_distribution(self, x, x_prime):
        from ..distribution import closed_form, exact_dist, exact_from_pmfs
        if self.vector:
            def one(v, name):
                if isinstance(v, (list, tuple, np.ndarray)):
                    if len(v) != 1:
                        raise ValueError("vector geometric: pass scalar x, x' (or 1-vectors): the noise is "
                                         "independent per coordinate and the plot shows one coordinate")
                    v = v[0]
                return check_int(name, v, I64_MIN, I64_MAX)
            x, xp = one(x, "x"), one(x_prime, "x_prime")
        else:
            x, xp = self.check_input(x), self.check_input(x_prime)
        if x == xp:
            raise ValueError("x and x_prime must differ")
        lo, hi = self.bounds
        d_in = abs(x - xp)
        eps = self.privacy_map(d_in)
        note = "one coordinate (noise independent per coordinate)" if self.vector else ""
        if self.scale != 0 and self.table is None:
            note = (note + "; " if note else "") + "exact CKS discrete Laplace (irrational): closed form"
            return closed_form(repr(self), x, xp, lo, hi, x, xp, -self.s / self.t, 1, 1, d_in=d_in,
                               epsilon_claimed=eps, note=note)
        clamp = lambda v: min(max(v, lo), hi)  # noqa: E731
        if self.scale == 0:
            p, q = {clamp(x): Fraction(1)}, {clamp(xp): Fraction(1)}
        else:
            p, q = self.table.output_pmf(clamp(x)), self.table.output_pmf(clamp(xp))
        outs, num, nump, den = exact_from_pmfs(p, q)
        return exact_dist(repr(self), x, xp, outs, num, nump, den, [float(y) for y in outs], True, d_in=d_in,
                          epsilon_claimed=eps, note=note)


def _reading_configs(lo, hi, epsilon, bits, integer_readings):
    """``reading_configs`` (fxdp.mechanisms.base.answers): only whole readings (a thermostat's
    whole degrees: the mechanism takes integers and has no randomized rounding, whose variance
    its worst case would miss), integer lo < hi at most MAX_GEOMETRIC_SPAN apart; the bounded
    constant-time form at scale (hi - lo) / epsilon, local DP over the whole range."""
    try:
        lo_q, hi_q, eps = Fraction(lo), Fraction(hi), Fraction(epsilon)
    except (TypeError, ValueError, ZeroDivisionError):
        return []                  # not numbers: the grid readings' constructors name the parameter
    if not (integer_readings and lo_q.denominator == 1 and hi_q.denominator == 1
            and 0 < hi_q - lo_q <= MAX_GEOMETRIC_SPAN and eps > 0):
        return []
    return [{"scale": (hi_q - lo_q) / eps, "bounds": [int(lo_q), int(hi_q)], "constant_time": True}]


@answers(reading_configs=_reading_configs)
def make_geometric(scale, bounds=None, constant_time=False, vector=False, bits=32, dim=None,
                   strict=False):
    """Geometric mechanism: scale >= 0, bounds (lower, upper) or None for the int64 range.
    vector=True takes L1-vector inputs; dim fixes their length (1..16), which the firmware
    export needs.

    Inputs outside the bounds are clamped into them silently (every input and output
    saturates at the bounds; sound for privacy): ``make_geometric(2, bounds=(0, 100))(1000)``
    releases a value near 100.  strict=True (TOML ``strict = true``) refuses such an input
    instead: ``m(x)`` and ``m.simulate(values, ...)`` raise a ValueError naming the input,
    its value (and index) and the bounds.  It is a host-side check: the device form, the
    C export and the bit stream do not change (the C release still clamps)."""
    return Geometric(scale, bounds, constant_time, vector, bits, dim, strict)


# --------------------------------------------------------------------------
# device form

def geometric_half_table(table):
    """(half, stored thresholds) of a proved table for fxdp_geometric_cfg (csrc/fxdp.h).

    When the table is symmetric, t[2W - 1 - i] = 2^k - t[i] + c with c in {0, 1} for every i
    (what make_bounded_laplace_table builds: mirrored weights, the odd unit of the remainder on
    the left end), checked here exactly: (1 + c, [t[i] - c for i < W]), the C scan deriving the
    other half as 2^k - s[i]; otherwise (0, all 2W thresholds)."""
    t = [int(v) for v in table.thresholds]
    w, top = int(table.width), 1 << int(table.k)
    if len(t) == 2 * w:
        c = t[0] + t[-1] - top
        if c in (0, 1) and all(t[2 * w - 1 - i] == top - t[i] + c for i in range(w)):
            return 1 + c, [v - c for v in t[:w]]
    return 0, t


def _device_spec(m, dim):
    if m.vector:
        if dim is None:
            raise ValueError("vector=True: the device form releases a fixed number of values; "
                             "call device_spec(dim=d) with the vector length d")
        if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
            raise ValueError(f"dim must be an integer in [1, {MAX_DIM}] (FXDP_MAX_DIM), "
                             f"got {dim!r}")
        n = dim
    else:
        if dim not in (None, 1):
            raise ValueError(f"dim applies to vector=True only (scalar: dim = 1), got {dim!r}")
        n = 1
    if m.scale == 0:
        raise ValueError("scale = 0 releases the input unchanged (privacy map infinite); it has no device "
                         "form")
    lo, hi = m.bounds
    fields = [("s", u32(m.s)), ("t", u32(m.t)), ("lo", i64(lo)), ("hi", i64(hi)), ("n", u32(n))]
    tables = []
    ct = m.table is not None
    if ct:
        half, thr = geometric_half_table(m.table)
        fields += [("k", u8(m.table.k)), ("half", u8(half)), ("width", u32(m.table.width)),
                   ("thresholds", "fxdp_geometric_thresholds")]
        tables.append(("fxdp_geometric_thresholds", "uint32_t", thr))
        stored = (f"{len(thr)} thresholds stored, the mirrored half derived in the scan" if half else
                  f"{len(thr)} thresholds stored")
        noise = (f"noise from the proved {2 * m.table.width + 1}-entry table over [-{m.table.width}, "
                 f"{m.table.width}] (one {m.table.k}-bit draw, full scan; {stored}; table epsilon "
                 f"{m.table.epsilon_realized!r}); input clamped to the bounds first")
    else:
        noise = f"exact discrete Laplace noise of scale t/s = {m.t}/{m.s}"
    what = f"{n} int64 values (L1)" if m.vector else "one int64 value"
    bounds = "int64 range" if (lo, hi) == (I64_MIN, I64_MAX) else f"[{lo}, {hi}]"
    return {
        "c_function": "fxdp_geometric_ct" if ct else "fxdp_geometric",
        "cfg_type": "fxdp_geometric_cfg",
        "cfg_init": _init(fields),
        "tables": tables,
        "input": {"ctype": "int64_t", "count": n},
        "output": {"ctype": "int64_t", "count": n, "min": lo, "max": hi},
        "sources": list(SRC_GEOMETRIC),
        "in_place": not ct,     # the lazy form draws into out, zeroed on an entropy failure
        "summary": (f"geometric mechanism on {what}: {noise}, saturated to {bounds}; epsilon <= "
                    f"{m.epsilon!r} per unit of L1 distance; "
                    + _ct_text(ct, n * m.table.k if ct else 0)),
    }


# --------------------------------------------------------------------------
# exact audit

def _audit(m, name):
    lo, hi = m.bounds
    if m.scale == 0:
        if lo == hi:
            return AuditReport(name, m.epsilon, 0.0, {}, method="exact (no noise)")
        x = lo
        return AuditReport(name, m.epsilon, math.inf,
                           {"x": x, "x_prime": x + 1, "output": x, "p": "1", "p_prime": "0"},
                           method="exact (no noise)")
    if m.table is not None:
        tb = m.table
        if hi - lo + 1 <= MAX_ENUMERATED_INPUTS // 16:
            pairs = [(x, x + 1) for x in range(lo, hi)] + [(x + 1, x) for x in range(lo, hi)]
            ratio, witness = worst_pair(pairs, tb.output_pmf)
            method = "exact enumeration of every input pair and output"
        else:
            ratio = exact_max_ratio(tb.weights, tb.width, (lo, hi), (lo, hi))
            witness = {"note": "structured exact scan (interior weights and censored tails)"}
            method = "exact (structured scan of the integer weights)"
        return AuditReport(name, m.epsilon, ratio_eps(ratio), witness, method=method)
    # Exact CKS sampler: P(z) = (1-rho)/(1+rho) rho^|z| with rho = exp(-s/t) exactly; every
    # adjacent-input ratio of the censored output is rho^-1, rho or 1, so the worst case is
    # exp(s/t), attained e.g. at the lower bound.
    if lo == hi:
        return AuditReport(name, m.epsilon, 0.0, {}, method="exact (single output)")
    eps = float_up(Fraction(m.s, m.t))
    witness = {"x": lo, "x_prime": lo + 1, "output": lo,
               "p": "1/(1+rho)", "p_prime": "rho/(1+rho)", "rho": f"exp(-{m.s}/{m.t})"}
    return AuditReport(name, m.epsilon, eps, witness, method="exact (closed form of the exact sampler)")


def _audit_all(m, name):
    """Every pair of inputs in the bounds, every output, exactly (the local epsilon).

    The pairs are unconstrained, so the worst ratio at an output y is max_x P(y|x) / min_x P(y|x)
    over x in [lo, hi].  Table form: P(y|x) is w(y - x) for an interior y, a censored tail sum at
    lo and hi; the max and min over x are sliding windows of width hi - lo + 1 over the weights
    (integers).  Exact CKS sampler: every ratio is rho^-(|x - x'|) at most, attained at the lower
    bound, so exp(span s / t).  A vector of dim coordinates (independent noise, product form)
    multiplies: the worst ratio is the scalar one to the power dim."""
    if m.local_d_in == math.inf:
        raise ValueError(f"{name}: the input domain is unbounded (" +
                         ("vector of unfixed length: set dim" if m._args["bounds"] is not None else
                          "no bounds: set bounds=(lower, upper)") + "), so no epsilon holds over all inputs")
    lo, hi = m.bounds
    span = hi - lo
    power = m.dim if m.vector else 1
    if m.scale == 0 or span == 0:
        rep = _audit(m, name)
        return AuditReport(name, m.local_epsilon, rep.epsilon_realized, rep.witness, rep.method, d_in="all")
    if m.table is None:
        eps = float_up(Fraction(span * power * m.s, m.t))
        witness = {"x": lo, "x_prime": hi, "output": lo, "ratio": f"exp({span * power}*{m.s}/{m.t})"}
        return AuditReport(name, m.local_epsilon, eps, witness, d_in="all",
                           method="exact (closed form of the exact sampler, every pair of inputs)")
    tb = m.table
    W = tb.width
    wts = np.asarray(tb.weights, dtype=np.int64)
    ext = np.zeros(2 * span + 1, dtype=np.int64)              # ext[j + span] = w(j), j in [-span, span]
    a, b = max(-W, -span), min(W, span)
    ext[a + span:b + span + 1] = wts[a + W:b + W + 1]
    cands = []                                                 # (hi count, lo count, output, x_hi, x_lo)
    if span >= 2:
        mx, mn = window_extrema(ext, span + 1)                 # window i: offsets y - x, x in [lo, hi]
        starts = np.arange(1, span)                            # interior y = lo + i
        i, r = worst_ratio_index(mx[starts], mn[starts])
        if i is not None:
            y = lo + int(starts[i])
            win = ext[y - lo: y - lo + span + 1][::-1]         # win[x - lo] = w(y - x)
            cands.append((r, y, lo + int(np.argmax(win)), lo + int(np.argmin(win))))
    cum = np.concatenate(([0], np.cumsum(wts)))                # cum[i] = sum of weights[:i]
    xs = np.arange(lo, hi + 1, dtype=np.int64)
    low = cum[np.clip(lo - xs + W + 1, 0, 2 * W + 1)]          # P(J <= lo - x)
    high = cum[-1] - cum[np.clip(hi - xs + W, 0, 2 * W + 1)]   # P(J >= hi - x)
    for y, arr in ((lo, low), (hi, high)):
        r = Fraction(1) if arr.min() == arr.max() else (math.inf if arr.min() == 0 else
                                                         Fraction(int(arr.max()), int(arr.min())))
        cands.append((r, y, lo + int(np.argmax(arr)), lo + int(np.argmin(arr))))
    r, y, xa, xb = max(cands, key=lambda c: c[0])
    pa, pb = tb.output_pmf(xa)[y], tb.output_pmf(xb)[y]
    if r != math.inf and pa / pb != r:
        raise AssertionError("local audit: the windowed scan and the exact pmf disagree")
    ratio = r if power == 1 else r ** power
    witness = {"x": xa, "x_prime": xb, "output": y, "p": str(pa), "p_prime": str(pb)}
    if power > 1:
        witness = {"coordinates": [witness] * power, "note": f"the scalar worst pair in each of {power} coordinates"}
    return AuditReport(name, m.local_epsilon, ratio_eps(ratio), witness, d_in="all",
                       method="exact (every pair of inputs in the bounds and every output: windowed integer scan)")


def _audit_distance(m, name, d_in):
    """Geometric at input distance d_in > 1, exactly.

    Constant-time table: the worst ratio R1(d) over input pairs at distance
    exactly d (every pair within the bounds, every output) is enumerated in
    Fractions for d <= d_in.  A scalar input takes the max over d <= d_in; a vector spreads d_in over coordinates (L1), whose ratios multiply,
    so R(d) = max_j R1(j) R(d - j).  Lazy (exact CKS noise): every ratio at
    distance d is at most rho^-d, attained at the lower bound, so epsilon =
    d s / t (with d clipped to the span for a scalar input)."""
    claimed = m.privacy_map(d_in)
    lo, hi = m.bounds
    span = hi - lo
    if m.scale == 0 or span == 0:
        rep = _audit(m, name)
        return AuditReport(name, claimed, rep.epsilon_realized, rep.witness, rep.method)
    if m.table is None:
        d = d_in if m.vector else min(d_in, span)
        eps = float_up(Fraction(d * m.s, m.t))
        witness = {"x": lo, "x_prime": lo + d, "output": lo, "ratio": f"exp({d}*{m.s}/{m.t})"}
        return AuditReport(name, claimed, eps, witness,
                           method=f"exact (closed form of the exact sampler, d_in = {d_in})")
    if span + 1 > MAX_LOCAL_SPAN:
        raise ValueError(f"d_in > 1 audits need bounds spanning at most {MAX_LOCAL_SPAN} values, "
                         f"got {span + 1}")
    pmf = {x: m.table.output_pmf(x) for x in range(lo, hi + 1)}
    best = {}                               # d -> (ratio, witness) at distance exactly d
    for x in range(lo, hi + 1):
        for xp in range(lo, hi + 1):
            d = abs(x - xp)
            if d == 0 or d > d_in:
                continue
            r, w = worst_pair([(x, xp)], pmf.__getitem__)
            if d not in best or r > best[d][0]:
                best[d] = (r, w)
    if not m.vector:
        ratio, witness = max(best.values(), key=lambda t: t[0])
        method = f"exact enumeration of every input pair at distance <= {d_in} and every output"
    else:
        R = {0: (Fraction(1), [])}
        for d in range(1, d_in + 1):
            R[d] = max(((best[j][0] * R[d - j][0], [best[j][1]] + R[d - j][1])
                        for j in range(1, min(d, span) + 1)), key=lambda t: t[0])
        ratio, parts = R[d_in]
        witness = {"coordinates": parts}
        method = f"exact (per-coordinate enumeration, L1 distance {d_in} split over coordinates)"
    return AuditReport(name, claimed, ratio_eps(ratio), witness, method=method)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'geometric': ('Ghosh, Roughgarden, Sundararajan 2009; CKS 2020 sampler',
        '`scale = 10`, `bounds = [0, 100]`, `constant_time = true` (scale may be a rational string such as "5/2"; vector = true with dim = 3 for L1 vectors of length 3; inputs outside the bounds are clamped, `strict = true` refuses them)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    'geometric_ct': lambda: make_geometric(10, bounds=(0, 40), constant_time=True),
    'geometric_lazy': lambda: make_geometric(10),
    'geometric_bounded': lambda: make_geometric(Fraction(7, 2), bounds=(-100, 100)),
    # The vector geometric (L1 metric): dim fixes the length the device releases.
    'geometric_vec_ct': lambda: make_geometric(5, bounds=(0, 30), constant_time=True, vector=True, dim=3),
    'geometric_vec_lazy': lambda: make_geometric(Fraction(5, 2), bounds=(-50, 50), vector=True, dim=4),
}
EXPORT_VARIANTS = {'geometric_bounded', 'geometric_vec_lazy'}
