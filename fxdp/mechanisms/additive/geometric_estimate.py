"""The geometric family's estimators (floats: statistics on released data): the sum and mean of
the lazy form, the channel-inverted mean of the bounded constant-time form and its worst-case
variance (``fxdp.estimate`` gives them their public names).  The mechanism is in geometric.py.
"""
from __future__ import annotations

import math

import numpy as np

from ...reports import Estimate, reports_array
from ..base import expect_kind

MAX_CHANNEL_INPUTS = 4096     # channel inversion (bounded_geometric_mean) up to this many inputs


def discrete_laplace_variance(s, t):
    """Variance of P(z) ∝ exp(-|z| s/t): 2 rho / (1 - rho)^2 with rho = exp(-s/t)."""
    rho = math.exp(-s / t)
    return 2 * rho / (1 - rho) ** 2


def geometric_sum(noised, mechanism):
    """Sum (and mean) of the true values from geometric-noised releases.

    Unbiased when no release saturated at the bounds (the noise is symmetric);
    the standard error is sqrt(n Var(Z)).
    """
    expect_kind(mechanism, ("geometric",), "geometric_sum")
    y = reports_array(noised).ravel()
    n = y.size
    var = 0.0 if mechanism.scale == 0 else discrete_laplace_variance(mechanism.s, mechanism.t)
    return Estimate("sum", float(exact_int_sum(y)), math.sqrt(n * var))


def exact_int_sum(y):
    """The exact sum of int64 values (a Python int): high and low 32-bit halves summed in int64
    (no overflow below 2^31 values), so huge releases do not cancel in float."""
    y = np.asarray(y, dtype=np.int64)
    hi = y >> np.int64(32)
    lo = y & np.int64(0xFFFFFFFF)
    return (int(hi.sum()) << 32) + int(lo.sum())


def geometric_mean(noised, mechanism):
    """geometric_sum over n."""
    est = geometric_sum(noised, expect_kind(mechanism, ("geometric",), "geometric_mean"))
    n = np.asarray(noised).size
    return Estimate("mean", est.estimate / n, est.stderr / n)


def channel_scores(mechanism):
    """Unbiased per-report scores w(y) for the mean of a bounded constant-time geometric.

    Its outputs saturate at the bounds [lo, hi], so the plain mean of the reports
    is biased toward the middle.  The channel is known exactly (the integer
    weight table): P[x, y] = P(y | x) for x, y in [lo, hi].  Solving P w = x
    gives scores with E[w(Y) | x] = x for every input x, so mean(w(Y_i)) is
    unbiased for the mean of the true values, whatever their distribution.
    Returns (outputs, w) as numpy arrays.
    """
    expect_kind(mechanism, ("geometric",), "channel_scores")
    lo, hi = mechanism.bounds
    P = channel_matrix(mechanism)
    xs = np.arange(lo, hi + 1, dtype=np.float64)
    w = np.linalg.solve(P, xs)
    return np.arange(lo, hi + 1, dtype=np.int64), w


def channel_matrix(mechanism):
    """P[x - lo, y - lo] = P(y | x) of a bounded constant-time geometric, from its exact integer
    weight table (as floats), for inputs and outputs x, y in [lo, hi]."""
    tb = getattr(mechanism, "table", None)
    if tb is None:
        raise ValueError("channel_scores needs a bounded constant-time geometric (constant_time=True)")
    lo, hi = mechanism.bounds
    size = hi - lo + 1
    if size > MAX_CHANNEL_INPUTS:
        raise ValueError(f"bounds span {size} values; channel inversion supports at most {MAX_CHANNEL_INPUTS}")
    P = np.zeros((size, size))
    for i, x in enumerate(range(lo, hi + 1)):
        for y, pr in tb.output_pmf(x).items():
            P[i, y - lo] += float(pr)
    return P


def bounded_geometric_worst_variance(m):
    """max over inputs x of Var(w(Y) | x) for a bounded constant-time geometric m: the per-report
    variance of ``bounded_geometric_mean``'s scores at the worst-case input (exact channel)."""
    _, w = channel_scores(m)
    P = channel_matrix(m)
    lo, hi = m.bounds
    xs = np.arange(lo, hi + 1, dtype=np.float64)
    return float(np.max(P @ (w * w) - xs * xs))


def bounded_geometric_mean(noised, mechanism):
    """Mean of the true values (inputs in the bounds; every element of a vector) from bounded
    geometric releases, constant time or lazy.

    Unbiased under saturation at the bounds: each report y is scored by w(y) with
    E[w(Y) | x] = x for every input x in [lo, hi].  Constant time: w from the exact channel
    of the integer table (see channel_scores).  Lazy (exact discrete Laplace noise Z,
    P(z) ∝ rho^|z|, rho = exp(-s/t), then clamped): w(y) = y inside the bounds,
    w(hi) = hi + c and w(lo) = lo - c with c = rho / (1 - rho), since the geometric tail is
    memoryless (E[(x + Z - hi)^+] = c P(x + Z >= hi) for every x <= hi).  The standard
    error is the sample standard deviation of the scores over sqrt(n).  It counts the
    spread of the true values too, so against one fleet's own mean it is conservative (as
    for the frequency estimators).
    """
    expect_kind(mechanism, ("geometric",), "bounded_geometric_mean")
    if mechanism.config()["bounds"] is None:
        raise ValueError("bounded_geometric_mean needs a geometric with bounds; without bounds its "
                         "statistic is the sum (geometric_sum)")
    y = reports_array(noised).ravel()
    lo, hi = mechanism.bounds
    if y.min() < lo or y.max() > hi:
        raise ValueError(f"reports must lie in the mechanism's bounds [{lo}, {hi}]")
    if mechanism.table is None:            # on the distinct reports: what the streamed multiset gives, exactly
        rows, counts = np.unique(y, return_counts=True)
        return _lazy_bounded_mean(rows, counts, mechanism)
    return _bounded_mean_from_histogram(np.bincount(y - lo, minlength=hi - lo + 1), mechanism)


def lazy_end_correction(mechanism):
    """c = rho / (1 - rho) = 1 / expm1(s/t): the lazy bounded form scores its end values
    hi + c and lo - c (0 for scale 0, which releases the clamped input, and for lo = hi)."""
    lo, hi = mechanism.bounds
    if mechanism.scale == 0 or lo == hi:
        return 0.0
    return 1.0 / math.expm1(mechanism.s / mechanism.t)


def _lazy_bounded_mean(y, counts, mechanism):
    """bounded_geometric_mean of the lazy form on the distinct reports y (sorted) seen counts times."""
    lo, hi = mechanism.bounds
    y = np.asarray(y, dtype=np.int64).ravel()
    counts = np.asarray(counts, dtype=np.float64)
    n = float(counts.sum())
    if n == 0:
        raise ValueError("reports: no reports to estimate from")
    # scores relative to lo: y - lo exact in int64 unless the bounds span 2^62 or more
    d = (y - np.int64(lo)).astype(np.float64) if hi - lo < 1 << 62 else y.astype(np.float64) - float(lo)
    c = lazy_end_correction(mechanism)
    w = d + c * ((y == hi).astype(np.float64) - (y == lo).astype(np.float64))
    mean = float(counts @ w) / n
    var = float(counts @ (w - mean) ** 2) / max(n - 1, 1)
    return Estimate("mean", lo + mean, math.sqrt(var / n))


def _bounded_mean_from_histogram(hist, mechanism):
    """bounded_geometric_mean from hist[y - lo], the number of reports equal to y."""
    _, w = channel_scores(mechanism)
    counts = np.asarray(hist).astype(np.float64)
    n = int(np.asarray(hist).sum())
    mean = float(counts @ w) / n
    var = float(counts @ (w - mean) ** 2) / max(n - 1, 1)
    return Estimate("mean", mean, math.sqrt(var / n))
