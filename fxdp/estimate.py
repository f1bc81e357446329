"""Layer 5: server-side unbiased estimators with standard errors.

Every estimator takes the noisy reports and the mechanism object (its
*realized* parameters are what the reports were made with) and returns an
``Estimate`` with the point estimate and its standard error.  Floats are fine
here: this is statistics on released data, not sampling.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class Estimate:
    name: str
    estimate: object       # float or numpy array
    stderr: object         # same shape: estimated standard error

    def as_rows(self, truth=None):
        est = np.atleast_1d(self.estimate)
        se = np.atleast_1d(self.stderr)
        tru = np.atleast_1d(truth) if truth is not None else [None] * len(est)
        names = [self.name] if len(est) == 1 else [f"{self.name}[{i}]" for i in range(len(est))]
        return [{"name": n, "true": (None if t is None else float(t)), "estimate": float(e), "stderr": float(s)}
                for n, t, e, s in zip(names, tru, est, se)]


def _reports(reports, dtype=np.int64):
    arr = np.asarray(reports)
    if arr.size == 0:
        raise ValueError("reports must not be empty")
    return arr.astype(dtype, copy=False)


def rr_bool_frequency(reports, mechanism):
    """Fraction of devices whose true bit is 1, from binary randomized-response reports.

    E[Y] = pi p + (1 - pi)(1 - p), so pi_hat = (Y - (1 - p)) / (2p - 1); needs p > 1/2.
    """
    p = float(mechanism.p_realized)
    if p <= 0.5:
        raise ValueError("prob = 1/2 carries no information: nothing to estimate")
    y = _reports(reports).astype(np.float64)
    n, ybar = y.size, y.mean()
    est = (ybar - (1 - p)) / (2 * p - 1)
    se = math.sqrt(ybar * (1 - ybar) / n) / (2 * p - 1)
    return Estimate("frequency(true)", est, se)


def rr_bool_stderr(pi, p, n):
    """Theoretical standard error of rr_bool_frequency for true frequency pi."""
    y = pi * p + (1 - pi) * (1 - p)
    return math.sqrt(y * (1 - y) / n) / (2 * p - 1)


def rr_frequencies(indices, mechanism):
    """Frequency of each of the t categories from k-ary reports (category indices).

    P(report c) = pi_c p + (1 - pi_c) q with q = (1 - p)/(t - 1), so
    pi_hat_c = (Y_c - q) / (p - q).
    """
    t = mechanism.t
    p = float(mechanism.p_realized)
    q = (1 - p) / (t - 1)
    if p <= q:
        raise ValueError("prob = 1/t carries no information: nothing to estimate")
    idx = _reports(indices)
    if idx.min() < 0 or idx.max() >= t:
        raise ValueError(f"indices must be in [0, {t - 1}]")
    n = idx.size
    y = np.bincount(idx, minlength=t) / n
    est = (y - q) / (p - q)
    se = np.sqrt(y * (1 - y) / n) / (p - q)
    return Estimate("frequency", est, se)


def rr_stderr(pi, p, t, n):
    pi = np.asarray(pi, dtype=np.float64)
    q = (1 - p) / (t - 1)
    y = pi * p + (1 - pi) * q
    return np.sqrt(y * (1 - y) / n) / (p - q)


def rappor_counts(reports, mechanism):
    """Unbiased per-bit counts N_i from basic RAPPOR reports (an n x k 0/1 matrix).

    Seed 002: N_i = (Y_i - n f/2) / (1 - f).  Each Y_i is a sum of n Bernoullis
    of variance q(1 - q) (q = f/2, the same whether the bit was set or not), so
    Var(N_i) = n q (1 - q) / (1 - f)^2 exactly, and the expected squared error
    summed over bits is k n (f/2 - f^2/4) / (1 - f)^2.  (Seed 002's Theorem 2.5
    states k n (f/2 - f^2/4), which is the error of Y, not of N: it omits the
    1/(1 - f)^2 of the debiasing.  tests/test_estimators.py measures both.)
    """
    f = float(mechanism.f_realized)
    if f >= 1:
        raise ValueError("f = 1 makes every bit a fair coin: nothing to estimate")
    y = _reports(reports)
    if y.ndim != 2 or y.shape[1] != mechanism.k:
        raise ValueError(f"reports must be an n x {mechanism.k} matrix of bits")
    n = y.shape[0]
    counts = y.sum(axis=0).astype(np.float64)
    est = (counts - n * f / 2) / (1 - f)
    se = np.full(mechanism.k, rappor_stderr(f, n))
    return Estimate("count", est, se)


def rappor_stderr(f, n):
    q = f / 2
    return math.sqrt(n * q * (1 - q)) / (1 - f)


def discrete_laplace_variance(s, t):
    """Variance of P(z) ∝ exp(-|z| s/t): 2 rho / (1 - rho)^2 with rho = exp(-s/t)."""
    rho = math.exp(-s / t)
    return 2 * rho / (1 - rho) ** 2


def geometric_sum(noised, mechanism):
    """Sum (and mean) of the true values from geometric-noised releases.

    Unbiased when no release saturated at the bounds (the noise is symmetric);
    the standard error is sqrt(n Var(Z)).
    """
    y = _reports(noised).astype(np.float64).ravel()
    n = y.size
    var = 0.0 if mechanism.scale == 0 else discrete_laplace_variance(mechanism.s, mechanism.t)
    total = float(y.sum())
    return Estimate("sum", total, math.sqrt(n * var))


def geometric_mean(noised, mechanism):
    est = geometric_sum(noised, mechanism)
    n = np.asarray(noised).size
    return Estimate("mean", est.estimate / n, est.stderr / n)


MAX_CHANNEL_INPUTS = 4096


def channel_scores(mechanism):
    """Unbiased per-report scores w(y) for the mean of a bounded constant-time geometric.

    Its outputs saturate at the bounds [lo, hi], so the plain mean of the reports
    is biased toward the middle.  The channel is known exactly (the integer
    weight table): P[x, y] = P(y | x) for x, y in [lo, hi].  Solving P w = x
    gives scores with E[w(Y) | x] = x for every input x, so mean(w(Y_i)) is
    unbiased for the mean of the true values, whatever their distribution.
    Returns (outputs, w) as numpy arrays.
    """
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
    xs = np.arange(lo, hi + 1, dtype=np.float64)
    w = np.linalg.solve(P, xs)
    return np.arange(lo, hi + 1, dtype=np.int64), w


def bounded_geometric_mean(noised, mechanism):
    """Mean of the true values from bounded constant-time geometric releases.

    Unbiased under saturation at the bounds (see channel_scores); the standard
    error is the sample standard deviation of the scores over sqrt(n).  It
    counts the spread of the true values too, so against one fleet's own mean
    it is conservative (as for the frequency estimators).
    """
    y = _reports(noised).ravel()
    _, w = channel_scores(mechanism)
    lo, hi = mechanism.bounds
    if y.min() < lo or y.max() > hi:
        raise ValueError(f"reports must lie in the mechanism's bounds [{lo}, {hi}]")
    counts = np.bincount(y - lo, minlength=hi - lo + 1).astype(np.float64)
    n = y.size
    mean = float(counts @ w) / n
    var = float(counts @ (w - mean) ** 2) / max(n - 1, 1)
    return Estimate("mean", mean, math.sqrt(var / n))


EXCEPTION_RAW = -(1 << 63)      # fxdp.finite: the exception value in simulate's int64 outputs


def fixed_point_mean(raw_outputs, mechanism):
    """Mean of the true values from fixed-point Laplace releases (raw outputs of
    ``m.simulate``; planar: an n x 2 array gives the mean point).

    Exception outputs are dropped; the noise is symmetric, so the mean is unbiased
    when truncation is rare (it biases toward the centre of [m, M] otherwise).
    The standard error is the sample standard deviation over sqrt(n).
    """
    raw = np.asarray(raw_outputs, dtype=np.int64)
    keep = raw != EXCEPTION_RAW
    if raw.ndim == 2:
        keep = keep.all(axis=1)
    vals = raw[keep].astype(np.float64) / (1 << mechanism.F)
    if vals.shape[0] < 2:
        raise ValueError("fewer than 2 releases inside [m, M]: nothing to estimate")
    n = vals.shape[0]
    return Estimate("mean", vals.mean(axis=0), vals.std(axis=0, ddof=1) / math.sqrt(n))
