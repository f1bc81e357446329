"""Multi-dimensional numeric readings (Wang et al., ICDE 2019, section IV), exact on grids.

A device holds d readings (attributes), attribute a in [lo_a, hi_a] (one range for all, or one
per attribute) as its grid index in [0, N], N = 2^bits (``fxdp.mechanisms.readings._numeric``).  It
samples k of its d attributes uniformly and reports each sampled one with a 1-dim grid mechanism
(``base``: ``duchi``, ``piecewise`` or ``hybrid``) at epsilon / k.  The paper's choice is
k = max(1, min(d, floor(epsilon / 2.5))) (``paper_report_dims``); ``report_dims=`` overrides it.

Privacy.  The k reports compose: the realized epsilon is ln(R^k), R the 1-dim mechanism's exact
worst ratio at epsilon / k (realized, so R <= e^(epsilon/k)), rounded up (``log_up``): the sum of
the k realized per-report epsilons.  Which attributes are sampled does not depend on the
readings, so P(S, y | x) / P(S, y | x') = prod_{a in S} P(y_a | x_a) / P(y_a | x'_a) <= R^k,
attained by x = (0, ..., 0), x' = (N, ..., N) (``exact_audit``; equal to enumeration over every
input pair for small grids, tests/test_numeric_multidim.py).

Sampling (the bits the reference, Numba and C all read):

1. S = a uniform k-subset of [0, d) by Floyd's algorithm (``subset_selection.floyd_subset``:
   t = uniform_below(j + 1) for j = d - k, ..., d - 1, S gets j if t is already in S, else t);
   the bits depend on (d, k) and the stream's rejections only, never on the readings;
2. for the attributes of S in increasing order, the 1-dim release of that attribute's grid index
   (the base mechanism's own bits, lazy or constant time).

Output: 2k integers, the k sampled attributes in increasing order, then their k reports (each in
the base mechanism's output form: Duchi's bit, Piecewise's cell, Hybrid's symbol).

Estimator (the paper's): each device's unbiased position t^ of a sampled attribute is scaled by
d / k, and an unsampled attribute contributes 0, so Z_a = (d/k) t^_a [a in S] is unbiased for
t_a, and the mean of attribute a is lo_a + (hi_a - lo_a) (1 + mean Z_a) / 2, with the standard
error from the empirical variance of Z_a; closed form (``variance``):
Var Z_a = (d/k) E[t^2 | x_a] - t_a^2 per device, E[t^2 | i] the base mechanism's exact second
moment on the grid.

Readings -> grid indices: per attribute as the 1-dim forms do (``_numeric``): releases
(``m(x)``, ``m.simulate``) round each off-grid reading by exact randomized rounding (attribute
order, on the rounding stream in the fleet), clamp out-of-range ones, refuse NaN and infinity.  The C device form
(csrc/fxdp_mech_numeric_multidim.c, ``fxdp_numeric_multidim[_ct]``) takes the d grid indices and has one range-free
configuration (the base mechanism's); the ranges live on the server (estimator) only.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from itertools import combinations, product

import numpy as np

from ...conservative import log_up
from ...reports import AuditReport, Estimate, ratio_eps, reports_array
from ...validate import check_int, check_rational, given
from .._device import _init, u8, u32, u64
from ._numeric import (MAX_EPSILON, MAX_PROB_BITS, ROUND_BITS, check_bits, fine_positions, randomized_round,
                       round_readings_fleet)
from ..base import CConfig, Mechanism
from .duchi import Duchi
from .hybrid import SRC_HYBRID, Hybrid
from .piecewise import Piecewise
from ..oracles.subset_selection import UNIFORM_VERSION, check_uniform_version, floyd_subset, floyd_subset_ct

BASES = {"duchi": Duchi, "piecewise": Piecewise, "hybrid": Hybrid}
BASE_CODE = {"duchi": 0, "piecewise": 1, "hybrid": 2}       # fxdp_numeric_multidim_cfg.base in csrc/fxdp.h
MAX_DIMS = 256                # FXDP_NUMERIC_MULTIDIM_MAX_D: attributes per device (uint32 each on the device)
MAX_REPORT_DIMS = 16          # FXDP_NUMERIC_MULTIDIM_MAX_K: reported attributes (two 16-entry stack arrays in C)
PAPER_DIVISOR = Fraction(5, 2)
PMF_MAX_INPUTS = 400          # audit_pairs / output_pmf enumerate (N + 1)^d inputs
PLOT_MAX_OUTPUTS = 200_000    # output_distribution enumerates the output tuples up to this many
SRC_NUMERIC_MULTIDIM = SRC_HYBRID + ["fxdp_mech_numeric_multidim.c"]


def paper_report_dims(epsilon, dims):
    """k = max(1, min(d, floor(epsilon / 2.5))) (Wang et al. 2019, section IV), exactly."""
    return max(1, min(int(dims), math.floor(Fraction(epsilon) / PAPER_DIVISOR)))


def _ranges(name, value, dims):
    """A number, or a sequence of dims numbers -> list of dims Fractions."""
    if isinstance(value, (str, numbers.Real, Fraction)) and not isinstance(value, bool):
        return [check_rational(name, value)] * dims, given(value)
    try:
        seq = list(value)
    except TypeError:
        raise ValueError(f"{name} must be a number or a sequence of dims = {dims} numbers, got {value!r}") from None
    if len(seq) != dims:
        raise ValueError(f"{name} must be a number or a sequence of dims = {dims} numbers, got {len(seq)} numbers")
    return [check_rational(f"{name}[{a}]", v) for a, v in enumerate(seq)], [given(v) for v in seq]


class NumericMultiDim(Mechanism):
    """k of d bounded readings, each through a 1-dim grid mechanism at epsilon / k (module
    docstring)."""
    kind = "numeric_multidim"
    input_metric = "DiscreteMetric"          # local DP: any two devices' reading vectors are neighbours
    output_measure = "MaxDivergence"
    report_dtype = "int64"

    def __init__(self, lo, hi, epsilon, dims, base="piecewise", report_dims=None, bits=12, constant_time=False,
                 prob_bits=MAX_PROB_BITS, uniform_version=UNIFORM_VERSION):
        self.d = check_bits("dims", dims, 1, MAX_DIMS)
        self.uniform_version = check_uniform_version(uniform_version)
        if base not in BASES:
            raise ValueError(f"base must be one of {', '.join(BASES)}, got {base!r}")
        self.base = base
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, MAX_EPSILON, lo_open=True)
        if report_dims is None:
            self.k = paper_report_dims(self.epsilon_requested, self.d)
        else:
            self.k = check_bits("report_dims", report_dims, 1, min(self.d, MAX_REPORT_DIMS))
        if self.k > MAX_REPORT_DIMS:           # the paper's rule at a large epsilon and many dims
            raise ValueError(f"report_dims = {self.k} (the paper's floor(epsilon / 2.5)) exceeds {MAX_REPORT_DIMS}; "
                             f"pass report_dims <= {MAX_REPORT_DIMS} (the nearest valid value is {MAX_REPORT_DIMS})")
        self.lo_list, lo_given = _ranges("lo", lo, self.d)
        self.hi_list, hi_given = _ranges("hi", hi, self.d)
        for a, (l, h) in enumerate(zip(self.lo_list, self.hi_list)):
            if l >= h:
                raise ValueError(f"lo must be below hi for every attribute, got lo = {l} >= hi = {h} at attribute {a}")
        self.epsilon_per_report = self.epsilon_requested / self.k
        try:
            self.inner = BASES[base](self.lo_list[0], self.hi_list[0], self.epsilon_per_report, bits, constant_time,
                                     prob_bits)
        except ValueError as e:
            raise ValueError(f"epsilon / report_dims = {self.epsilon_requested} / {self.k} per report: {e}") from None
        self.constant_time = self.inner.constant_time
        self.bits, self.prob_bits, self.N = self.inner.bits, self.inner.prob_bits, self.inner.N
        self._ratio = self.inner._ratio ** self.k
        self._eps = log_up(self._ratio)
        self._lo_f = np.array([float(v) for v in self.lo_list])
        self._hi_f = np.array([float(v) for v in self.hi_list])
        self._args = {"lo": lo_given, "hi": hi_given, "epsilon": epsilon, "dims": self.d, "base": base,
                      "bits": self.bits, "constant_time": self.constant_time}
        if report_dims is not None:
            self._args["report_dims"] = self.k
        if self.prob_bits != MAX_PROB_BITS:
            self._args["prob_bits"] = self.prob_bits
        # 0 lazy; 1 constant time with Floyd's rejection draws (before issue 32); 2 with the fixed budget
        self.ct_mode = 0 if not self.constant_time else (2 if self.uniform_version == 2 else 1)
        if self.uniform_version != UNIFORM_VERSION:   # pinned: shown in config() and repr
            self._args["uniform_version"] = self.uniform_version

    # --- description
    @property
    def input_domain(self):
        return (f"AtomDomain({self.d} readings, attribute a in [lo_a, hi_a], grid of 2^{self.bits} + 1 levels "
                "each)")

    @property
    def output_domain(self):
        return (f"AtomDomain({self.k} increasing attributes in [0, {self.d}), then their {self.k} "
                f"{self.base} reports)")

    def config(self):
        return dict(self._args)

    def realized(self):
        return {"dims": self.d, "report_dims": self.k, "base": self.base,
                "epsilon_per_report": self.inner._eps, "per_report": self.inner.realized(),
                "epsilon": self._eps}

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self._eps

    def step_of(self, a):
        """Attribute a's grid step (hi_a - lo_a) / 2^bits, exact."""
        return (self.hi_list[a] - self.lo_list[a]) / self.N

    # --- readings and grid indices
    def grid_indices(self, values):
        """Readings (n x d numbers, attribute a in [lo_a, hi_a]) -> int64 n x d grid indices, each
        attribute as the 1-dim forms (``GridNumeric.grid_indices``)."""
        arr = np.asarray(values)
        if arr.ndim == 1 and arr.shape[0] == self.d and self.d > 1:
            raise ValueError(f"readings must be an n x {self.d} array (one row per device), got shape {arr.shape}")
        if arr.ndim == 1 and self.d == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise ValueError(f"readings must be an n x {self.d} array (one row per device), got shape {arr.shape}")
        if arr.dtype == object or arr.dtype.kind not in "iuf":
            raise ValueError(f"readings must be numbers, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        if arr.size and not np.isfinite(arr).all():
            bad = arr[~np.isfinite(arr)][0]
            raise ValueError(f"readings must be finite numbers, got {bad!r} (NaN and infinity are refused, never "
                             "clamped)")
        idx = np.rint((arr - self._lo_f) * (self.N / (self._hi_f - self._lo_f)))
        return np.clip(idx, 0, self.N).astype(np.int64)

    def _fine(self, values):
        arr = np.asarray(values, dtype=np.float64)
        self.grid_indices(arr)                         # the shape and finiteness checks
        return fine_positions(arr.reshape(-1, self.d), self._lo_f, self._hi_f, self.N)

    def _one_row(self, x):
        """The d readings x as a 1 x d float64 array; ValueError (not TypeError) for non-numbers."""
        try:
            return np.asarray([x], dtype=object).astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"x must be dims = {self.d} readings (numbers), got {x!r}") from None

    def check_input(self, x):
        return tuple(int(v) for v in self.grid_indices(self._one_row(x))[0])

    def check_release_input(self, x):
        """release(src, x) takes d grid indices in [0, N] (m(x) takes d readings and rounds them)."""
        try:
            xs = list(x)
        except TypeError:
            raise ValueError(f"x must hold dims = {self.d} grid indices in [0, {self.N}], got {x!r}") from None
        if len(xs) != self.d:
            raise ValueError(f"x must hold dims = {self.d} grid indices, got {len(xs)}")
        return tuple(check_int(f"x[{a}] (grid index)", v, 0, self.N) for a, v in enumerate(xs))

    def __call__(self, x, rng=None):
        """One release of the d readings x: each rounded to its grid by exact randomized rounding
        (attribute order, from rng; ``_numeric``), then the release from rng."""
        from ...bitsource import BitSource, default_source
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        fine = self._fine(self._one_row(x))[0]
        return self._release(rng, tuple(randomized_round(rng, f, self.constant_time) for f in fine))

    def round_reading(self, src, x):
        """d readings -> d grid indices by exact randomized rounding from src (attribute order)."""
        fine = self._fine(self._one_row(x))[0]
        return tuple(randomized_round(src, f, self.constant_time) for f in fine)

    def round_readings(self, values, seed, device_ids=None):
        """n x d readings -> n x d grid indices on each device's rounding stream (Numba;
        bit-identical to ``round_reading`` on ChaCha20Source(seed, id, ROUND_STREAM))."""
        return round_readings_fleet(self._fine(values), seed, device_ids, self.constant_time)

    def fleet_inputs(self, values):
        return self.grid_indices(values)

    def device_inputs(self, indices):
        from .._fleet import int_array
        arr = np.asarray(indices)
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise ValueError(f"indices must be an n x {self.d} array of grid indices in [0, {self.N}], got shape "
                             f"{arr.shape}")
        flat = int_array(f"indices (grid indices in [0, {self.N}])", arr.reshape(-1), 1, 0, self.N)
        return flat.reshape(arr.shape)

    def simulate_device(self, values, seed, device_ids=None):
        from .._fleet import simulate
        return simulate(self, values, seed, device_ids, device_form=True)

    # --- releases
    def release(self, src, x):
        """Floyd's k-subset of the d attributes, then each sampled attribute's 1-dim release in
        increasing order; a tuple (attributes..., reports...) of 2k ints (module docstring)."""
        if len(x) != self.d:
            raise ValueError(f"x must hold dims = {self.d} grid indices, got {len(x)}")
        if self.ct_mode == 2:                        # issue 32: the fixed budget, k draws of 128 bits
            attrs, ok = floyd_subset_ct(src, self.d, self.k)
            if not ok:
                from ...errors import RangeError
                raise RangeError("numeric_multidim: a uniform draw's budget ran out (probability < "
                                 "k (d / 2^32)^4); nothing was released")
            attrs = sorted(attrs)
        else:
            attrs = sorted(floyd_subset(src, self.d, self.k))
        return tuple(attrs) + tuple(int(self.inner._release(src, int(x[a]))) for a in attrs)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba): values are n x d readings, rounded to the grids on each
        device's rounding stream (``round_readings``); returns an n x 2k int64 matrix (attributes,
        then reports), bit-identical to the C library on the indices; raises (nothing returned)
        if any device failed."""
        return self.simulate_device(self.round_readings(values, seed, device_ids), seed, device_ids)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_numeric_multidim import fleet_numeric_multidim
        inner = self.inner
        out = np.zeros((x.shape[0], 2 * self.k), dtype=np.int64)
        pm = inner if self.base == "piecewise" else getattr(inner, "pm", None)
        du = inner if self.base == "duchi" else getattr(inner, "duchi", None)
        fleet_numeric_multidim(key, ids, first_block, np.int64(BASE_CODE[self.base]), np.uint64(getattr(inner, "b", 0)),
                         np.uint64(pm.a if pm else 0), np.uint64(pm.w if pm else 0), np.uint64(self.prob_bits),
                         np.uint64(self.bits), np.uint64(du.base_num if du else 0), np.uint64(du.slope if du else 0),
                         np.int64(self.ct_mode), np.int64(self.d), np.int64(self.k), x, out, status, bits)
        return out

    # --- estimation
    def _split(self, reports):
        r = reports_array(reports)
        if r.ndim == 1:
            r = r.reshape(1, -1)
        if r.ndim != 2 or r.shape[1] != 2 * self.k:
            raise ValueError(f"reports must be an n x {2 * self.k} array (attributes, then reports), got shape "
                             f"{r.shape}")
        attrs = r[:, :self.k]
        if attrs.min() < 0 or attrs.max() >= self.d or (self.k > 1 and (np.diff(attrs, axis=1) <= 0).any()):
            raise ValueError(f"reports' attributes must be increasing indices in [0, {self.d})")
        t = self.inner.positions(r[:, self.k:].reshape(-1)).reshape(r.shape[0], self.k)
        return attrs, t

    def _estimate_from(self, sums, sq_sums, n):
        scale = self.d / self.k
        mt = scale * sums / n
        var_z = np.maximum(scale * scale * sq_sums / n - mt * mt, 0.0)
        half = (self._hi_f - self._lo_f) / 2
        return Estimate("mean", self._lo_f + half * (1 + mt), half * np.sqrt(var_z / n))

    def estimate(self, reports):
        """Unbiased mean of every attribute (an array of d), with standard errors from the
        empirical variance of Z_a = (d/k) t^_a [a sampled] (module docstring)."""
        attrs, t = self._split(reports)
        a, tt = attrs.reshape(-1), t.reshape(-1)
        return self._estimate_from(np.bincount(a, tt, self.d), np.bincount(a, tt * tt, self.d), attrs.shape[0])

    def estimate_from_multiset(self, rows, counts):
        """estimate() on distinct reports with their counts (no n-sized array)."""
        attrs, t = self._split(np.asarray(rows).reshape(-1, 2 * self.k))
        c = np.repeat(np.asarray(counts, dtype=np.float64), self.k)
        a, tt = attrs.reshape(-1), t.reshape(-1)
        return self._estimate_from(np.bincount(a, tt * c, self.d), np.bincount(a, tt * tt * c, self.d),
                                   float(np.asarray(counts, dtype=np.float64).sum()))

    def _second_moments(self, idx):
        """mean over devices of E[t^2 | i] of the base mechanism, per attribute (idx: n x d)."""
        inner, out = self.inner, []
        half0 = float(inner.hi - inner.lo) / 2
        for a in range(self.d):
            i = idx[:, a]
            readings = float(inner.lo) + float(inner.hi - inner.lo) * (i / self.N)
            t = 2.0 * i / self.N - 1.0
            out.append(inner.variance(readings) * i.shape[0] / (half0 * half0) + float(np.mean(t * t)))
        return np.array(out)

    def variance(self, readings):
        """Closed-form variance of each attribute's mean estimate (an array of d) for this population
        of n x d readings: ((hi_a - lo_a)/2)^2 ((d/k) mean E[t^2 | i_a] - mean t_a^2) / n."""
        idx = self.grid_indices(readings)
        if idx.shape[0] == 0:
            raise ValueError("readings must not be empty")
        t = 2.0 * idx / self.N - 1.0
        half = (self._hi_f - self._lo_f) / 2
        per = (self.d / self.k) * self._second_moments(idx) - np.mean(t * t, axis=0)
        return half * half * per / idx.shape[0]

    def continuous_variance(self, readings):
        """The same for the continuous base mechanism at epsilon / k (Wang et al. 2019, section IV)."""
        idx = self.grid_indices(readings)
        inner = self.inner
        half0 = float(inner.hi - inner.lo) / 2
        t = 2.0 * idx / self.N - 1.0
        out = []
        for a in range(self.d):
            readings_a = float(inner.lo) + float(inner.hi - inner.lo) * (idx[:, a] / self.N)
            out.append(inner.continuous_variance(readings_a) * idx.shape[0] / (half0 * half0)
                       + float(np.mean(t[:, a] ** 2)))
        half = (self._hi_f - self._lo_f) / 2
        per = (self.d / self.k) * np.array(out) - np.mean(t * t, axis=0)
        return half * half * per / idx.shape[0]

    # --- populations
    def population(self, devices, seed, shape="skewed"):
        """(n x d readings on the grid, their exact per-attribute means as floats): attribute a is
        Beta(2, 5) ("skewed", mirrored on odd attributes) or uniform over [lo_a, hi_a]; seeded."""
        rng = np.random.default_rng([seed, 0x5EED, self.d])
        if shape == "skewed":
            u = rng.beta(2.0, 5.0, (devices, self.d))
            u[:, 1::2] = 1 - u[:, 1::2]
        elif shape == "uniform":
            u = rng.random((devices, self.d))
        else:
            raise ValueError(f"shape must be 'skewed' or 'uniform', got {shape!r}")
        idx = np.rint(u * self.N).astype(np.int64)
        readings = self._lo_f + (self._hi_f - self._lo_f) * (idx / self.N)
        return readings, self._means_of(idx)

    def _means_of(self, idx):
        n = max(idx.shape[0], 1)
        return np.array([float(self.lo_list[a] + (self.hi_list[a] - self.lo_list[a]) / self.N
                               * Fraction(int(idx[:, a].sum()), n)) for a in range(self.d)])

    def synthetic_population(self, devices, seed):
        return self.population(devices, seed, "skewed")

    def input_range(self):
        """Each attribute's [lo_a, hi_a]: a reading outside it is clamped to the nearer end."""
        from ..base import InputRange
        return InputRange(list(self.lo_list), list(self.hi_list),
                          f"lo = {self._args['lo']!r}, hi = {self._args['hi']!r}")

    def true_statistic(self, values):
        """Each attribute's mean of the readings, clamped to its range at the rounding's 2^-32-step
        resolution (what the unbiased means estimate under randomized rounding)."""
        fine = self._fine(values)
        n = max(fine.shape[0], 1)
        return np.array([float(self.lo_list[a] + self.step_of(a) * Fraction(sum(int(v) for v in fine[:, a]),
                                                                            n << ROUND_BITS))
                         for a in range(self.d)])

    # --- device form
    def _cfg_fields(self):
        inner = self.inner
        pm = inner if self.base == "piecewise" else getattr(inner, "pm", None)
        du = inner if self.base == "duchi" else getattr(inner, "duchi", None)
        zero_pm = {"a": 0, "w": 0, "prob_bits": 0, "bits": 0}
        zero_du = {"a_p": 0, "prob_bits": 0, "bits": 0}
        hm = {"b": getattr(inner, "b", 0), "pm": pm._cfg_fields() if pm else zero_pm,
              "duchi": du._cfg_fields() if du else zero_du}
        return {"hm": hm, "base": BASE_CODE[self.base], "d": self.d, "k": self.k,
                "uniform_version": self.uniform_version}

    def device_spec(self, dim=None):
        """The C device form: d grid indices in (uint32), 2k uint32 out (attributes, then reports)."""
        f = self._cfg_fields()
        hm = f["hm"]
        pm_init = _init([("a", u64(hm["pm"]["a"])), ("w", u32(hm["pm"]["w"])), ("prob_bits", u8(hm["pm"]["prob_bits"])),
                         ("bits", u8(hm["pm"]["bits"]))])
        du_init = _init([("a_p", u64(hm["duchi"]["a_p"])), ("prob_bits", u8(hm["duchi"]["prob_bits"])),
                         ("bits", u8(hm["duchi"]["bits"]))])
        hm_init = _init([("b", u64(hm["b"])), ("pm", pm_init), ("duchi", du_init)])
        inner_spec = self.inner.device_spec()
        ymax = inner_spec["output"]["max"]
        ct = self.constant_time
        return {
            "c_function": "fxdp_numeric_multidim_ct" if ct else "fxdp_numeric_multidim",
            "cfg_type": "fxdp_numeric_multidim_cfg",
            "cfg_init": _init([("hm", hm_init), ("base", u8(f["base"])), ("d", u32(self.d)), ("k", u32(self.k)),
                               ("uniform_version", u8(self.uniform_version))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": self.d},
            "output": {"ctype": "uint32_t", "count": 2 * self.k, "min": 0, "max": max(self.d - 1, ymax)},
            "sources": list(SRC_NUMERIC_MULTIDIM),
            "in_place": True,       # subset and reports drawn into out, zeroed on an entropy failure
            "summary": (f"{self.k} of {self.d} attributes (uniform k-subset, Floyd), each through {self.base} at "
                        f"epsilon {float(self.epsilon_per_report):.6g}; epsilon <= {self.epsilon!r}; "
                        + ("constant time in the readings (the subset's rejections depend on the stream only)"
                           if ct else "lazy (not constant time: time and bits used depend on the draw)")),
        }

    def report_fields(self):
        from .._wire import ReportField
        ymax = self.inner.device_spec()["output"]["max"]
        return [ReportField("attributes", self.k, 0, self.d - 1), ReportField("y", self.k, 0, ymax)]

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_numeric_multidim_cfg *", self._cfg_fields())
        return CConfig(cfg, [], "fxdp_numeric_multidim" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32, out_count=2 * self.k)

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    def release_output(self, out):
        return tuple(int(v) for v in out)

    def harness_inputs(self):
        """d grid indices per device, each in [0, 2^bits], the range's ends drawn often."""
        return {"kind": "int", "lo": 0, "span": self.N + 1, "extremes": (0, self.N), "sim_flat": False}

    def default_pair(self):
        return (0,) * self.d, (self.N,) * self.d

    # --- audit
    def exact_audit(self, d_in=1):
        """The subset does not depend on the readings and the k reports are independent given it,
        so the worst ratio is the base mechanism's to the k-th power, attained at all-lo against
        all-hi readings."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": [0] * self.d, "x_prime": [self.N] * self.d, "ratio": f"({self.inner._ratio})^{self.k}"}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method=f"exact (closed form: the {self.base} ratio to the power k = {self.k})")

    def _inputs(self):
        n_inputs = (self.N + 1) ** self.d
        if n_inputs > PMF_MAX_INPUTS:
            raise ValueError(f"audit_pairs enumerates (2^bits + 1)^dims <= {PMF_MAX_INPUTS} inputs, got {n_inputs}")
        return list(product(range(self.N + 1), repeat=self.d))

    def audit_pairs(self):
        xs = self._inputs()
        return [(x, y) for x in xs for y in xs if x != y]

    def output_pmf(self, x):
        """Exact pmf of the output tuple for grid indices x (d ints)."""
        x = tuple(check_int(f"x[{a}] (grid index)", v, 0, self.N) for a, v in enumerate(x))
        if len(x) != self.d:
            raise ValueError(f"x must hold dims = {self.d} grid indices, got {len(x)}")
        p_subset = Fraction(1, math.comb(self.d, self.k))
        pmfs = [self.inner.output_pmf(v) for v in x]
        out = {}
        for attrs in combinations(range(self.d), self.k):
            for ys in product(*(sorted(pmfs[a].items()) for a in attrs)):
                p = p_subset
                for _, q in ys:
                    p *= q
                if p:
                    out[attrs + tuple(y for y, _ in ys)] = p
        return out


    # --- plots
    def output_distribution(self, x, x_prime):
        """The exact distributions of the output tuples (subset, k reports) for grid-index vectors
        x, x' when there are at most PLOT_MAX_OUTPUTS of them; beyond (C(d, k) L^k tuples: 2.5e8
        for dims = 5, bits = 12, whose enumeration as Fractions took minutes), the exact
        distribution of attribute 0's report given that it is among the k reported: the base
        mechanism's at epsilon / k, in the reading's units, said in the plot's note."""
        x, x_prime = tuple(x), tuple(x_prime)
        support = max(len(self.inner.output_pmf(v)) for v in (x[0], x_prime[0]))
        tuples = math.comb(self.d, self.k) * support ** self.k
        if tuples <= PLOT_MAX_OUTPUTS:
            return super().output_distribution(x, x_prime)
        dist = self.inner.output_distribution(x[0], x_prime[0])
        dist.mechanism = repr(self)
        dist.note = (f"attribute 0's report only, given it is among the k = {self.k} reported (each report at "
                     f"epsilon / k = {float(self.epsilon_per_report):g}): the C({self.d}, {self.k}) x "
                     f"{support}^{self.k} = {tuples:.3g} output tuples are too many to enumerate "
                     f"(> {PLOT_MAX_OUTPUTS:,})")
        return dist


def make_numeric_multidim(lo, hi, epsilon, dims, base="piecewise", report_dims=None, bits=12, constant_time=False,
                          prob_bits=MAX_PROB_BITS, uniform_version=UNIFORM_VERSION):
    """d = dims bounded readings per device (attribute a in [lo_a, hi_a]: lo, hi numbers or
    sequences of dims numbers; 1 <= dims <= 256): the device reports k of them, sampled uniformly,
    each with the 1-dim grid mechanism ``base`` ("duchi", "piecewise" or "hybrid", bits, prob_bits
    as there) at epsilon / k; k = report_dims, default max(1, min(dims, floor(epsilon / 2.5)))
    (Wang et al. 2019), at most 16.  The realized epsilon (``m.epsilon``) is the sum of the k
    realized per-report epsilons, rounded up; ``m.estimate(reports)`` gives every attribute's
    unbiased mean.  uniform_version (constant_time=True only, issue 32): 2 (default) draws the k
    attributes with the fixed-budget uniform_below_ct (128 bits each, constant in the stream; a
    release fails with RangeError / FXDP_ERR_RANGE with probability below k (d / 2^32)^4 <= 2^-92
    for d <= 256); 1 pins the rejection draws of the releases before issue 32 (docs/constant_time.md)."""
    return NumericMultiDim(lo, hi, epsilon, dims, base, report_dims, bits, constant_time, prob_bits, uniform_version)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'numeric_multidim': ('Wang et al. 2019, section IV',
        '`lo = 0`, `hi = 100`, `epsilon = 6`, `dims = 5`, `base = "piecewise"`, `bits = 12` (d = dims readings per device, lo / hi a number or a list of dims; the device reports k = max(1, min(d, floor(eps/2.5))) of them, `report_dims` to override, each with `base` (duchi, piecewise or hybrid) at eps/k)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Multi-dimensional numeric readings (d grid indices in, k attributes then k reports out): the CT case
    # at d = 4, k = 1 (Floyd's one draw uniform_below(4) never rejects, so its counts are constant) through
    # the constant-time Piecewise; the lazy case at d = 3, k = 2 (uniform_below(3) rejects) through the lazy
    # Hybrid at bits = 4, prob_bits = 8.
    'numeric_multidim_ct': lambda: make_numeric_multidim(0, 40, 2, 4, base='piecewise', bits=8, constant_time=True),
    'numeric_multidim_lazy': lambda: make_numeric_multidim(0, 1, 5, 3, base='hybrid', bits=4, prob_bits=8),
    # Since issue 32 the CT form draws its attributes with the fixed budget (uniform_version 2): constant
    # also where the rejection draws reject, d = 7, k = 3 (bounds 5, 6, 7), here through the CT Duchi.
    'numeric_multidim_ct_d7': lambda: make_numeric_multidim(0, 40, 6, 7, base='duchi', report_dims=3, bits=8, constant_time=True),
}
EXPORT_VARIANTS: set[str] = set()
