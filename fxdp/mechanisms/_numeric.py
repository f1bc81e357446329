"""What every grid numeric mechanism (a bounded reading under local DP: ``duchi``, later
``piecewise`` and ``hybrid``) shares: argument checks, the reading grid, readings -> grid
indices (host and fleet), the privacy map of a fixed realized epsilon, the dyadic realization
of p = e^eps / (e^eps + 1), synthetic populations and the export harness's input model.

The reading grid.  A reading lies in [lo, hi]; the device holds its grid index i in
[0, N], N = 2^bits: the reading lo + i (hi - lo) / N.  The grid has N + 1 levels (N intervals)
so that both ends lo and hi, and the midpoint, are on it, and the reading's position in
[-1, 1], t_i = 2 i / N - 1 = (i - N/2) / (N/2), is dyadic: every probability built linearly
from t_i is then a dyadic a / 2^(prob_bits + bits) and is drawn exactly by a dyadic Bernoulli.

Readings -> indices (``grid_index``, ``grid_indices``): round to the nearest level (ties to
even) in float64.  This is deterministic pre-processing of the device's own reading: it carries
no privacy claim (every index is private) and biases a reading by at most half a step,
(hi - lo) / 2^(bits + 1).  NaN, infinite or out-of-range readings are refused (ValueError),
never clamped.  The fleet and C forms take indices (``simulate_device``; the export harness).
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from ..conservative import exp_interval, float_up, log_up
from ..validate import check_int, check_rational
from .base import Mechanism

MAX_EPSILON = 64
MIN_BITS, MAX_BITS = 1, 24          # grid: 2^bits intervals, indices < 2^24 + 1 (uint32 on the device)
MIN_PROB_BITS, MAX_PROB_BITS = 2, 32  # p = a_p / 2^prob_bits; prob_bits + bits <= 56 < 64


def check_bits(name, value, lo, hi):
    """An int in [lo, hi]; the ValueError names the nearest valid value."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    v = int(value)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {v}; the nearest valid value is {min(max(v, lo), hi)}")
    return v


def realize_p(epsilon, prob_bits):
    """a_p with p = a_p / 2^prob_bits = e^eps / (e^eps + 1) rounded down (toward 1/2), from a
    certified lower bound on e^eps, so the realized ln(p / (1 - p)) never exceeds epsilon.
    ValueError naming the nearest valid epsilon when p rounds to 1/2 (no information)."""
    lo, _ = exp_interval(epsilon)
    two_k = 1 << prob_bits
    a_p = int(math.floor(Fraction(two_k) * lo / (lo + 1)))
    half = two_k // 2
    if not half < a_p < two_k:
        nearest = float_up(Fraction(log_up(Fraction(half + 1, half - 1))))
        raise ValueError(f"epsilon = {float(epsilon)!r} is too small for prob_bits = {prob_bits}: p rounds to 1/2; "
                         f"the nearest valid epsilon is {nearest!r} (or use more prob_bits)")
    return a_p


class GridNumeric(Mechanism):
    """Base of the grid numeric mechanisms (see the module docstring)."""
    input_metric = "DiscreteMetric"          # local DP: any two readings are neighbours
    output_measure = "MaxDivergence"

    def _check_args(self, lo, hi, epsilon, bits, constant_time, prob_bits):
        """Validate and store lo < hi (finite numbers), epsilon in (0, 64], bits, prob_bits and
        constant_time; records the constructor's arguments for config()."""
        self.lo = check_rational("lo", lo)
        self.hi = check_rational("hi", hi)
        if self.lo >= self.hi:
            raise ValueError(f"lo must be below hi, got lo = {lo!r} >= hi = {hi!r} (a reading range [lo, hi] "
                             "with lo < hi)")
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, MAX_EPSILON, lo_open=True)
        self.bits = check_bits("bits", bits, MIN_BITS, MAX_BITS)
        self.prob_bits = check_bits("prob_bits", prob_bits, MIN_PROB_BITS, MAX_PROB_BITS)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        self.constant_time = constant_time
        self.N = 1 << self.bits
        self._lo_f, self._hi_f = float(self.lo), float(self.hi)
        self._args = {"lo": lo, "hi": hi, "epsilon": epsilon, "bits": self.bits, "constant_time": constant_time}
        if self.prob_bits != MAX_PROB_BITS:
            self._args["prob_bits"] = self.prob_bits

    # --- description
    @property
    def input_domain(self):
        return f"AtomDomain(reading in [{self.lo}, {self.hi}], grid of 2^{self.bits} + 1 levels)"

    def config(self):
        return dict(self._args)

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self._eps

    @property
    def step(self):
        """The grid step (hi - lo) / 2^bits, exact."""
        return (self.hi - self.lo) / self.N

    # --- readings and grid indices
    def grid_indices(self, values):
        """Readings (numbers in [lo, hi]) -> int64 grid indices in [0, 2^bits], nearest level
        (ties to even, float64); ValueError for NaN, infinite or out-of-range readings."""
        arr = np.asarray(values)
        if arr.dtype == object or arr.dtype.kind not in "iuf":
            try:
                if arr.dtype.kind == "b" or any(isinstance(v, bool) for v in arr.ravel()):
                    raise TypeError
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"readings must be numbers in [{self.lo}, {self.hi}], got {values!r:.60}") from None
        arr = arr.astype(np.float64)
        if arr.ndim != 1:
            raise ValueError(f"readings must be a 1-d array of numbers in [{self.lo}, {self.hi}], got shape {arr.shape}")
        if arr.size:
            if not np.isfinite(arr).all():
                bad = arr[~np.isfinite(arr)][0]
                raise ValueError(f"readings must be finite numbers in [{self.lo}, {self.hi}], got {bad!r} "
                                 "(NaN and infinity are refused, never clamped)")
            mn, mx = arr.min(), arr.max()
            if mn < self._lo_f or mx > self._hi_f:
                bad = mn if mn < self._lo_f else mx
                raise ValueError(f"readings must be in [{self.lo}, {self.hi}] = [lo, hi], got {bad!r} "
                                 "(out-of-range readings are refused, never clamped)")
        idx = np.rint((arr - self._lo_f) * (self.N / (self._hi_f - self._lo_f)))
        return np.clip(idx, 0, self.N).astype(np.int64)

    def grid_index(self, x):
        """One reading -> its grid index (as grid_indices)."""
        if isinstance(x, bool) or not isinstance(x, (numbers.Real, Fraction)):
            raise ValueError(f"x (reading) must be a number in [{self.lo}, {self.hi}], got {x!r}")
        return int(self.grid_indices(np.array([float(x)]))[0])

    def reading(self, i):
        """The reading of grid index i (exact Fraction)."""
        return self.lo + self.step * i

    def check_input(self, x):
        return self.grid_index(x)

    def fleet_inputs(self, values):
        """Readings -> grid indices (the kernels' device form)."""
        return self.grid_indices(values)

    def device_inputs(self, indices):
        """Grid indices, validated: int64 in [0, 2^bits]."""
        from ._kernels_mech import int_array
        return int_array(f"indices (grid indices in [0, {self.N}])", indices, 1, 0, self.N)

    def simulate_device(self, values, seed, device_ids=None):
        """Fleet outputs on grid indices (the device form the C entry points and the export
        harness take) instead of readings."""
        from ._fleet import simulate
        return simulate(self, values, seed, device_ids, device_form=True)

    # --- populations
    def population(self, devices, seed, shape="skewed"):
        """(readings on the grid, their exact mean as a float): "skewed" = Beta(2, 5) over
        [lo, hi], "uniform" = uniform over [lo, hi]; seeded, rounded to the grid."""
        rng = np.random.default_rng([seed, 0x5EED])
        if shape == "skewed":
            u = rng.beta(2.0, 5.0, devices)
        elif shape == "uniform":
            u = rng.random(devices)
        else:
            raise ValueError(f"shape must be 'skewed' or 'uniform', got {shape!r}")
        idx = np.rint(u * self.N).astype(np.int64)
        readings = self._lo_f + (self._hi_f - self._lo_f) * (idx / self.N)
        truth = float(self.lo + self.step * Fraction(int(idx.sum()), max(devices, 1)))
        return readings, truth

    def synthetic_population(self, devices, seed):
        """Beta(2, 5)-distributed readings on the grid; the truth is their mean."""
        return self.population(devices, seed, "skewed")

    def harness_inputs(self):
        return {"kind": "index", "n": self.N + 1}

    def default_pair(self):
        return 0, self.N

    def audit_pairs(self):
        """Every pair of grid indices (small grids; exact_audit has the closed form)."""
        return [(i, j) for i in range(self.N + 1) for j in range(self.N + 1) if i != j]
