"""What every grid numeric mechanism (a bounded reading under local DP: ``duchi``, later
``piecewise`` and ``hybrid``) shares: argument checks, the reading grid, readings -> grid
indices (host and fleet), the privacy map of a fixed realized epsilon, the dyadic realization
of p = e^eps / (e^eps + 1), synthetic populations and the export harness's input model.

The reading grid.  A reading lies in [lo, hi]; the device holds its grid index i in
[0, N], N = 2^bits: the reading lo + i (hi - lo) / N.  The grid has N + 1 levels (N intervals)
so that both ends lo and hi, and the midpoint, are on it, and the reading's position in
[-1, 1], t_i = 2 i / N - 1 = (i - N/2) / (N/2), is dyadic: every probability built linearly
from t_i is then a dyadic a / 2^(prob_bits + bits) and is drawn exactly by a dyadic Bernoulli.

Readings -> indices.  A release of a reading (``m(x)``, ``m.simulate(readings)``) rounds it to
the grid by exact randomized rounding, which keeps the mean unbiased: a reading outside [lo, hi]
is clamped to the nearer end; NaN and infinity are a ValueError, never a clamp.  Its position on
the grid, phi = (x - lo) N / (hi - lo) in [0, N], is held in fixed point with ROUND_BITS = 32
fraction bits, F = round(phi 2^32) (float64 arithmetic on the float reading: the only inexact
step, an error of at most 2^-33 of a step plus float64's relative 2^-53); then, with
i = floor(F / 2^32) and f = F mod 2^32, the index is i + Bernoulli(f / 2^32), drawn exactly
(``randomized_round``: ``bernoulli_dyadic``, about 2 bits expected and at most 32, or
``bernoulli_dyadic_ct`` in the constant-time forms, exactly 32 bits); a reading on the grid
(f = 0) draws nothing.  So E[index] = F / 2^32: unbiased to 2^-33 of a step.

Where the rounding lives: on the host, in the Python reference (``m(x, rng)``: from rng, before the
release's own bits) and in the fleet simulation (``m.simulate``: the Numba kernel
``_kernels_round.fleet_round`` draws from each device's *rounding stream*, the keyed stream
(seed, device id, ROUND_STREAM = 2), independent of the release's stream 0, bit-identical to the
reference on ``ChaCha20Source(seed, id, ROUND_STREAM)``).  The device form (C, the export harness,
``simulate_device``) takes grid indices: a device's ADC code is its grid index, so the device has no
off-grid readings to round.  The rounding's randomness is independent of the release's and the
release is private for every index, so the rounding carries no privacy claim of its own; its bit use
reveals only whether a reading was on the grid.  ``grid_indices`` / ``grid_index`` (and
``fleet_inputs``, the device-form bridge to C) are the deterministic conversion: nearest level
(ties to even), clamped, for readings the caller has already put on the grid.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from ...conservative import exp_interval, float_up, log_up
from ...validate import check_int, check_rational
from ..base import Mechanism

MAX_EPSILON = 64
MIN_BITS, MAX_BITS = 1, 24          # grid: 2^bits intervals, indices < 2^24 + 1 (uint32 on the device)
MIN_PROB_BITS, MAX_PROB_BITS = 2, 32  # p = a_p / 2^prob_bits; prob_bits + bits <= 56 < 64
ROUND_BITS = 32                     # fraction bits of a reading's grid position (F < 2^(24 + 32 + 1))
ROUND_STREAM = 2                    # the keyed stream (seed, id, 2) of the fleet's randomized rounding


def fine_positions(values, lo, hi, n_steps):
    """Readings (float64 array, any shape; lo, hi floats or arrays broadcasting against it) ->
    int64 fixed-point grid positions F = round(phi 2^ROUND_BITS), phi = (x - lo) N / (hi - lo)
    clamped to [0, N].  ValueError for NaN or infinite readings (never clamped)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size and not np.isfinite(arr).all():
        bad = arr[~np.isfinite(arr)][0]
        raise ValueError(f"readings must be finite numbers, got {bad!r} (NaN and infinity are refused, never "
                         "clamped)")
    phi = np.clip((arr - lo) * (n_steps / (np.asarray(hi, dtype=np.float64) - lo)), 0.0, float(n_steps))
    return np.rint(phi * float(1 << ROUND_BITS)).astype(np.int64)


def randomized_round(src, fine, constant_time=False, frac_bits=ROUND_BITS):
    """Grid index of a fixed-point position F = i 2^frac_bits + f: i + Bernoulli(f / 2^frac_bits),
    drawn exactly from src (lazy ``bernoulli_dyadic`` or ``bernoulli_dyadic_ct``); no bits when
    f = 0.  E[result] = F / 2^frac_bits."""
    from ...samplers import reference as ref
    fine = int(fine)
    i, f = fine >> frac_bits, fine & ((1 << frac_bits) - 1)
    if f == 0:
        return i
    sample = ref.bernoulli_dyadic_ct if constant_time else ref.bernoulli_dyadic
    return i + int(sample(src, f, frac_bits))


def round_fleet(fine, seed, device_ids, constant_time, first_block=None):
    """Grid indices of an int64 [n, d] array of fixed-point positions on each device's rounding
    stream (Numba; ``randomized_round`` per device, attribute by attribute).  Returns
    (indices, status, bits_used, ids); on-grid rows draw nothing."""
    from .._fleet import check_first_block
    from .._fleet import check_device_ids, check_seed
    from ._kernels_round import fleet_round
    key = check_seed(seed)
    fb = np.uint32(check_first_block(first_block))
    fine = np.ascontiguousarray(fine, dtype=np.int64)
    n = fine.shape[0]
    ids = check_device_ids(device_ids, n)
    out = np.zeros(fine.shape, dtype=np.int64)
    status = np.zeros(n, dtype=np.uint8)
    bits = np.zeros(n, dtype=np.int64)
    fleet_round(key, ids, fb, np.uint32(ROUND_STREAM), np.int64(ROUND_BITS), bool(constant_time), fine, out, status,
                bits)
    return out, status, bits, ids


def round_readings_fleet(fine, seed, device_ids, constant_time):
    """round_fleet's indices, or the exception of the first failed device (nothing returned);
    fine rows with no fraction skip the kernel."""
    from .._fleet import _finish
    from .._fleet import _FIRST_BLOCK
    fine = np.asarray(fine, dtype=np.int64)
    if not (fine & ((1 << ROUND_BITS) - 1)).any():
        return fine >> ROUND_BITS
    out, status, _, ids = round_fleet(fine, seed, device_ids, constant_time, _FIRST_BLOCK)
    return _finish(out, status, None, ids, "randomized rounding")


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


def grid_reading_configs(lo, hi, epsilon, bits, integer_readings):
    """``reading_configs`` of Duchi, Piecewise and Hybrid (fxdp.mechanisms.base.answers): the
    reading on a grid of 2^bits + 1 levels over [lo, hi] at epsilon, whole or not."""
    return [{"lo": lo, "hi": hi, "epsilon": epsilon, "bits": bits}]


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

    def worst_case_mse(self, n):
        """(mse, variance): the estimator is unbiased, so both are ``worst_case_variance(n)``."""
        v = float(self.worst_case_variance(n))
        return v, v

    @property
    def step(self):
        """The grid step (hi - lo) / 2^bits, exact."""
        return (self.hi - self.lo) / self.N

    # --- readings and grid indices
    def grid_indices(self, values):
        """Readings (numbers) -> int64 grid indices in [0, 2^bits], nearest level (ties to even,
        float64), readings outside [lo, hi] clamped; ValueError for NaN or infinite readings.  The
        deterministic conversion (module docstring); releases round randomly (``round_reading``)."""
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

    def check_release_input(self, x):
        """release(src, i) takes a grid index i in [0, N] (m(x) takes a reading and rounds it)."""
        return check_int("x (grid index)", x, 0, self.N)

    def fine_position(self, x):
        """One reading -> its fixed-point grid position F (``fine_positions``)."""
        if isinstance(x, bool) or not isinstance(x, (numbers.Real, Fraction)):
            raise ValueError(f"x (reading) must be a number in [{self.lo}, {self.hi}], got {x!r}")
        return int(fine_positions(np.array([float(x)]), self._lo_f, self._hi_f, self.N)[0])

    def round_reading(self, src, x):
        """One reading -> a grid index by exact randomized rounding from src (module docstring)."""
        return randomized_round(src, self.fine_position(x), self.constant_time)

    def __call__(self, x, rng=None):
        """One release of reading x: randomized rounding to the grid, then the release, both from
        rng (default system entropy)."""
        from ...bitsource import BitSource, default_source
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        return self._release(rng, self.round_reading(rng, x))

    def round_readings(self, values, seed, device_ids=None):
        """n readings -> n grid indices, each device rounding on its rounding stream (Numba;
        bit-identical to ``round_reading`` on ChaCha20Source(seed, id, ROUND_STREAM))."""
        self.grid_indices(values)                     # the shape and type checks
        fine = fine_positions(np.asarray(values, dtype=np.float64), self._lo_f, self._hi_f, self.N)
        return round_readings_fleet(fine.reshape(-1, 1), seed, device_ids, self.constant_time).reshape(-1)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation: the readings rounded to the grid on each device's rounding stream
        (``round_readings``), then the fleet kernel on the indices (``simulate_device``)."""
        return self.simulate_device(self.round_readings(values, seed, device_ids), seed, device_ids)

    def fleet_inputs(self, values):
        """Readings -> grid indices (the kernels' device form)."""
        return self.grid_indices(values)

    def device_inputs(self, indices):
        """Grid indices, validated: int64 in [0, 2^bits]."""
        from .._fleet import int_array
        return int_array(f"indices (grid indices in [0, {self.N}])", indices, 1, 0, self.N)

    def simulate_device(self, values, seed, device_ids=None):
        """Fleet outputs on grid indices (the device form the C entry points and the export
        harness take) instead of readings."""
        from .._fleet import simulate
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

    def input_range(self):
        """[lo, hi]: a reading outside it is clamped to the nearer end before rounding."""
        from ..base import InputRange
        return InputRange(self.lo, self.hi, f"lo = {self._args['lo']!r}, hi = {self._args['hi']!r}")

    def true_statistic(self, values):
        """The mean of the readings as a release sees them, clamped to [lo, hi] at the rounding's
        2^-32-step resolution: what the unbiased mean estimates under randomized rounding."""
        fine = fine_positions(np.asarray(values, dtype=np.float64).reshape(-1), self._lo_f, self._hi_f, self.N)
        if fine.size == 0:
            raise ValueError("readings must not be empty")
        total = sum(int(v) for v in fine)
        return float(self.lo + self.step * Fraction(total, fine.size << ROUND_BITS))

    def synthetic_population(self, devices, seed):
        """Beta(2, 5)-distributed readings on the grid; the truth is their mean."""
        return self.population(devices, seed, "skewed")

    def harness_inputs(self):
        return {"kind": "index", "n": self.N + 1}

    def default_pair(self):
        return 0, self.N

    def plot_values(self, syms):
        """(the reading each output symbol stands for, the axis label): the report's unbiased value
        lo + (hi - lo)(1 + t)/2, t = ``positions``."""
        half = float(self.hi - self.lo) / 2
        return (float(self.lo) + half * (1 + self.positions(syms)),
                f"report's unbiased value (reading units; readings in [{self.lo}, {self.hi}])")

    def output_distribution(self, x, x_prime):
        """The exact output distributions for grid indices x, x', each output drawn at the
        reading it stands for: lo + (hi - lo)(1 + t)/2 with t its unbiased position
        (``positions``), so the x axis is in the reading's units, not cells or symbols.  The
        families without ``positions`` keep the listed order (Mechanism.output_distribution)."""
        if not hasattr(self, "positions"):
            return super().output_distribution(x, x_prime)
        from ..distribution import exact_dist, exact_from_pmfs
        p, q = self.output_pmf(x), self.output_pmf(x_prime)
        syms = np.array(sorted(set(p) | set(q)), dtype=np.int64)
        values, xlabel = self.plot_values(syms)
        order = np.argsort(values, kind="stable")
        outs, num, nump, den = exact_from_pmfs(p, q, order=[int(v) for v in syms[order]])
        xr, xpr = float(self.reading(x)), float(self.reading(x_prime))
        nz = [v for v in num + nump if v]
        return exact_dist(repr(self), x, x_prime, outs, num, nump, den, values[order], True,
                          d_in=1, epsilon_claimed=self.privacy_map(1), zoom=False,
                          log_y=max(nz) > 100 * min(nz),        # Hybrid: Duchi's two outputs beside PM's cells
                          xlabel=xlabel,
                          x_text=f"{xr:g}", x_prime_text=f"{xpr:g}",
                          pair_text=f"x = {xr:g}, x' = {xpr:g} (grid indices {x}, {x_prime})")

    def audit_pairs(self):
        """Every pair of grid indices (small grids; exact_audit has the closed form)."""
        return [(i, j) for i in range(self.N + 1) for j in range(self.N + 1) if i != j]
