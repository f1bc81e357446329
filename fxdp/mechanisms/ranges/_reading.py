"""What the range-query kinds share (the hierarchical histogram, HaarHRR): the reading's leaf on the
numeric family's grid, the truth of a simulated population, and the estimators built on a kind's
fitted leaves and its standard errors: ranges, quantiles with intervals, the CDF, and the
mergeable per-level statistic that ``fxdp estimate`` and Dask stream into.

The leaves.  A reading lies in [lo, hi], on the grid of 2^bits intervals
(fxdp.mechanisms.readings._numeric): leaf j holds the readings in [lo + j step, lo + (j + 1) step),
the last one also hi; a device holds its grid index i in [0, 2^bits] and its leaf is
min(i, 2^bits - 1).  A host reading maps to the index of the interval holding it (``bin_positions``),
not to the nearest level and not by the family's randomized rounding: a leaf is a bin.

A kind gives: ``count_shapes()`` (the shape of each level's counts), ``level_counts(reports)``
(validated reports -> per level (counts, n_t)), ``fit_leaves(counts)`` (-> (leaf shares, state)),
``leaf_range_stderr(counts, state, lo, hi)`` (standard errors of the estimates of leaves lo..hi,
lo and hi arrays) and ``range_from_counts(counts, a, b, ...)``.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...validate import check_int
from ..readings._numeric import ROUND_BITS, GridNumeric, fine_positions
from . import _ranges
from ._ranges import QuantileEstimate, Z_95

DEFAULT_QUANTILES = (0.5, 0.9, 0.95, 0.99)


def bin_positions(values, lo, hi, n_steps):
    """Readings -> int64 grid indices of the intervals holding them: floor((x - lo) N / (hi - lo))
    clamped to [0, N] (N = n_steps), taken on the family's fixed-point position F (``fine_positions``:
    32 fraction bits, so a reading on a grid level is on it, not a float's hair below); ValueError
    for NaN or infinite readings."""
    return fine_positions(values, lo, hi, n_steps) >> ROUND_BITS


class RangeReading(GridNumeric):
    """Base of the range-query kinds (see the module docstring)."""
    report_dtype = "int64"
    _quantiles = DEFAULT_QUANTILES

    @property
    def quantiles(self) -> tuple:
        """The probabilities that ``estimate``, ``true_statistic`` and ``fxdp estimate`` give the
        quantiles at (default p50, p90, p95, p99); set it to ask for others (``fxdp estimate
        --quantiles``): a non-empty sequence of probabilities in (0, 1)."""
        return self._quantiles

    @quantiles.setter
    def quantiles(self, probs):
        self._quantiles = tuple(_ranges.check_probs(probs))

    # --- readings -> grid indices: the interval holding the reading
    def bin_indices(self, values):
        """Readings -> int64 grid indices of the intervals holding them (readings outside [lo, hi]
        clamped to the nearer end; ValueError for NaN or infinite readings)."""
        self.grid_indices(values)                     # the shape and type checks
        return bin_positions(np.asarray(values, dtype=np.float64), self._lo_f, self._hi_f, self.N)

    def round_reading(self, src, x):
        """One reading -> the grid index of its interval (draws nothing)."""
        self.grid_index(x)
        return int(bin_positions(np.array([float(x)]), self._lo_f, self._hi_f, self.N)[0])

    def round_readings(self, values, seed, device_ids=None):
        """n readings -> their intervals' grid indices (``bin_indices``; no randomness)."""
        return self.bin_indices(values)

    def fleet_inputs(self, values):
        return self.bin_indices(values)

    def leaf_of(self, indices):
        i = np.asarray(indices, dtype=np.int64)
        return np.minimum(i, self.N - 1)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation: readings -> their intervals' grid indices (``bin_indices``), then device
        i's release on the keyed stream (seed, device_ids[i], stream 0), bit for bit as
        ``release``."""
        return self.simulate_device(self.bin_indices(values), seed, device_ids)

    def release_output(self, out):
        return tuple(int(v) for v in out)

    def fleet_outputs(self, out):
        return out

    # --- range queries
    def leaf_range(self, a, b):
        """The leaves of readings a <= b: (leaf(a), leaf(b)); ValueError for a > b or non-finite."""
        for name, v in (("a", a), ("b", b)):
            if isinstance(v, bool) or not isinstance(v, (int, float, Fraction, np.integer, np.floating)) \
                    or not math.isfinite(float(v)):
                raise ValueError(f"{name} must be a finite reading (a number), got {v!r}")
        if float(a) > float(b):
            raise ValueError(f"a must be at most b, got a = {a!r} > b = {b!r}")
        ia, ib = self.leaf_of(bin_positions(np.array([float(a), float(b)]), self._lo_f, self._hi_f, self.N))
        return int(ia), int(ib)

    def quantiles_from_counts(self, counts, probs=None, z=Z_95):
        probs = _ranges.check_probs(self.quantiles if probs is None else probs)
        leaves, state = self.fit_leaves(counts)

        def cdf_se(j):
            return float(self.leaf_range_stderr(counts, state, np.array([0]), np.array([j]))[0])

        pos, lower, upper = _ranges.quantile_positions(leaves, probs, cdf_se, z)
        step = (self._hi_f - self._lo_f) / self.N
        to_reading = lambda v: self._lo_f + step * v                     # noqa: E731
        return QuantileEstimate("quantile", to_reading(pos), (upper - lower) * step / (2 * z),
                                labels=[f"p{100 * q:g}" for q in probs], lower=to_reading(lower),
                                upper=to_reading(upper), level=0.95 if z == Z_95 else None)

    def estimate_quantiles(self, reports, probs=None):
        """The quantiles of the readings at probs (each in (0, 1); default ``m.quantiles``), in the
        reading's units and the order asked: a QuantileEstimate with 95 % intervals [lower, upper] (``_ranges``)."""
        return self.quantiles_from_counts(self.level_counts(reports), probs)

    def estimate_range(self, reports, a, b, **options):
        """The share of devices whose reading's leaf lies in [leaf(a), leaf(b)]: the readings in
        [lo + leaf(a) step, lo + (leaf(b) + 1) step) (hi included in the last leaf), as an Estimate
        with its standard error (the kind's ``range_from_counts`` options)."""
        return self.range_from_counts(self.level_counts(reports), a, b, **options)

    def estimate_cdf(self, reports, points=None):
        """(reading edges, CDF estimate, its standard errors) at the upper edges of ``points`` leaves
        (default: every leaf up to 1,024 of them, else 1,024 evenly spaced); the CDF is not made
        monotone here."""
        counts = self.level_counts(reports)
        leaves_fit, state = self.fit_leaves(counts)
        k = min(self.N, 1024) if points is None else check_int("points", points, 1, self.N)
        leaves = np.unique(np.linspace(0, self.N - 1, k).round().astype(np.int64))
        cdf = np.cumsum(leaves_fit)[leaves]
        se = np.concatenate([self.leaf_range_stderr(counts, state, np.zeros(len(c), np.int64), c)
                             for c in np.array_split(leaves, max(1, len(leaves) // 256))])
        edges = self._lo_f + (self._hi_f - self._lo_f) * (leaves + 1) / self.N
        return edges, cdf, se

    def true_cdf(self, values, edges):
        """The share of readings below each edge (the leaves' upper edges ``estimate_cdf`` gives)."""
        x = np.sort(self.leaf_of(self.bin_indices(values)))
        leaves = np.rint((np.asarray(edges) - self._lo_f) * self.N / (self._hi_f - self._lo_f)).astype(np.int64) - 1
        return np.searchsorted(x, leaves, side="right") / x.shape[0]

    def estimate(self, reports):
        """The quantiles at ``m.quantiles`` (default p50, p90, p95, p99; ``estimate_quantiles``)."""
        return self.estimate_quantiles(reports)

    def estimate_rows(self, reports, truth=None):
        return self.estimate(reports).as_rows(truth)

    def report_statistic(self):
        """Per-level counts (``LevelCounts``): O(2^bits) memory, mergeable."""
        return LevelCounts(self)

    # --- truth and populations
    def true_statistic(self, values):
        """The readings' quantiles at ``m.quantiles`` (numpy's inverted CDF: a reading of the
        population), as ``estimate`` gives them."""
        x = np.asarray(values, dtype=np.float64).reshape(-1)
        self.grid_indices(x)
        if x.size == 0:
            raise ValueError("readings must not be empty")
        return np.quantile(np.clip(x, self._lo_f, self._hi_f), list(self.quantiles), method="inverted_cdf")

    def true_range(self, values, a, b):
        """The exact share of readings whose leaf lies in [leaf(a), leaf(b)] (what
        ``estimate_range`` estimates)."""
        lo_leaf, hi_leaf = self.leaf_range(a, b)
        leaves = self.leaf_of(self.bin_indices(values))
        return float(np.mean((leaves >= lo_leaf) & (leaves <= hi_leaf)))

    def synthetic_population(self, devices, seed):
        """Beta(2, 5)-distributed readings on the grid; the truth is their quantiles p50..p99."""
        readings, _ = self.population(devices, seed, "skewed")
        return readings, self.true_statistic(readings)

    def range_variance(self, n, width, positions=64):
        """The largest variance of the estimated share of a range covering ``width`` (a fraction in
        (0, 1]) of the leaves, over ``positions`` evenly spaced placements, for n devices split evenly
        over the levels and readings spread uniformly over the leaves (the closed forms of
        ``leaf_range_stderr``; their data-dependent terms are of the order of a leaf's share)."""
        n = check_int("n", n, 2)
        if not isinstance(width, (int, float)) or not 0 < width <= 1:
            raise ValueError(f"width must be a fraction of the range in (0, 1], got {width!r}")
        k = max(1, min(self.N, int(round(width * self.N))))
        starts = np.unique(np.linspace(0, self.N - k, min(positions, self.N - k + 1)).round().astype(np.int64))
        counts, state = self.uniform_state(n)
        return float(np.max(self.leaf_range_stderr(counts, state, starts, starts + k - 1) ** 2))

    def worst_case_mse(self, n):          # not a mean estimator: the numeric chooser skips it
        raise ValueError(f"{self.kind} estimates ranges and quantiles, not a mean")


class LevelCounts:
    """A range kind's mergeable sufficient statistic for ``fxdp estimate`` and Dask: per level, its
    counts and its number of reports (O(2^bits) memory, however many reports); ``estimate_rows``
    gives the quantiles as the in-memory estimate does."""

    def __init__(self, mechanism):
        self.m = mechanism
        self.counts = [(np.zeros(shape, np.int64), 0) for shape in mechanism.count_shapes()]

    @property
    def n(self) -> int:
        return sum(n_t for _, n_t in self.counts)

    def add(self, reports):
        self.counts = [(c + c2, n + n2) for (c, n), (c2, n2) in zip(self.counts, self.m.level_counts(reports))]
        return self

    def merge(self, other):
        self.counts = [(c + c2, n + n2) for (c, n), (c2, n2) in zip(self.counts, other.counts)]
        return self

    def estimate(self):
        if self.n == 0:
            raise ValueError("reports: no reports to estimate from")
        return self.m.quantiles_from_counts(self.counts)

    def estimate_rows(self, truth=None):
        return self.estimate().as_rows(truth)
