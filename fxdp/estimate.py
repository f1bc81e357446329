"""Layer 5: server-side unbiased estimators with standard errors, by their public names.

Every estimator takes the noisy reports and the mechanism object (its
*realized* parameters are what the reports were made with) and returns an
``Estimate`` with the point estimate and its standard error.  Floats are fine
here: this is statistics on released data, not sampling.

The code lives with each mechanism family; ``estimate(reports, m)`` is the
family's default estimator (``m.estimate``), and the named functions below
check that they were given the mechanism they estimate for.
"""
from __future__ import annotations

import math

import numpy as np

from .mechanisms.finite.constants import EXCEPTION_RAW  # noqa: F401  (the exception value in simulate outputs)
from .mechanisms.finite.laplace import fixed_point_mean  # noqa: F401
from .mechanisms.finite.worst_case import LAPLACE_CELLS, WORST_CASE_READINGS, laplace_fixed_at, laplace_fixed_worst_mse
from .mechanisms.base import check_mechanism
from .mechanisms.additive.geometric import (MAX_CHANNEL_INPUTS, MAX_GEOMETRIC_SPAN, bounded_geometric_mean,
                                            bounded_geometric_worst_variance, channel_scores,
                                            discrete_laplace_variance, geometric_mean, geometric_sum)
from .mechanisms.oracles.randomized_response import rr_bool_frequency, rr_frequencies  # noqa: F401
from .mechanisms.oracles.rappor import rappor_counts, rappor_stderr  # noqa: F401
from .reports import Estimate  # noqa: F401


def estimate(reports, mechanism):
    """The default unbiased estimator of mechanism's family on its reports (``m.estimate``)."""
    return check_mechanism(mechanism, "fxdp.estimate.estimate").estimate(reports)


def rr_bool_stderr(pi, p, n):
    """Theoretical standard error of rr_bool_frequency for true frequency pi."""
    y = pi * p + (1 - pi) * (1 - p)
    return math.sqrt(y * (1 - y) / n) / (2 * p - 1)


def rr_stderr(pi, p, t, n):
    pi = np.asarray(pi, dtype=np.float64)
    q = (1 - p) / (t - 1)
    y = pi * p + (1 - pi) * q
    return np.sqrt(y * (1 - y) / n) / (p - q)


# --------------------------------------------------------------------------
# frequency oracles: consistency post-processing and the choice of oracle

def norm_sub(frequencies):
    """Norm-Sub consistency (Wang, Lopuhaa-Zwakenberg, Li, Skoric, Li, NDSS 2020): the frequencies
    max(f_i - delta, 0) with the one delta that makes them sum to 1.  Non-negative, summing to 1,
    and the closest such vector to the unbiased estimates in L2 (their projection onto the
    simplex).  The result is biased, with a smaller mean squared error."""
    f = np.asarray(getattr(frequencies, "estimate", frequencies), dtype=np.float64)
    if f.ndim != 1 or f.size < 2 or not np.isfinite(f).all():
        raise ValueError(f"frequencies must be a 1-d array of at least 2 finite numbers, got shape {f.shape}")
    s = np.sort(f)[::-1]
    cum = np.cumsum(s) - 1.0
    k = np.nonzero(s - cum / np.arange(1, f.size + 1) > 0)[0][-1]
    delta = cum[k] / (k + 1)
    return np.maximum(f - delta, 0.0)


def frequency_support(reports, mechanism):
    """A frequency oracle's per-item support counts and exact support probabilities
    (fxdp.reports.Support); ValueError for a mechanism that is not a frequency oracle."""
    check_mechanism(mechanism, "frequency_support")
    try:
        return mechanism.frequency_support(reports)
    except NotImplementedError as e:
        raise ValueError(f"mechanism: {e}; frequency oracles: randomized_response, unary_encoding, "
                         "hadamard_response and the other item oracles") from None


def ibu(reports, mechanism, iterations=10_000, tol=1e-12):
    """Iterative Bayesian update (Agrawal and Aggarwal, PODS 2001; the generalized form of
    ElSalamouny and Palamidessi, EuroS&P 2020, as multi-freq-ldpy runs it) on a frequency
    oracle's reports.

    From the uniform distribution, theta <- theta * A^T (s / (A theta)) until the largest change
    is below tol (or after `iterations` steps), where s is the reports' support counts scaled to
    sum 1 and A is d x d with p on the diagonal and q elsewhere (the oracle's exact support
    probabilities).  A theta costs O(d), so a step is O(d) whatever the oracle.  For k-ary RR A is
    the exact channel and IBU is the EM of the maximum-likelihood estimate; for the other oracles it
    is the usual pseudo-channel on support counts.  The result lies on the simplex (non-negative,
    summing to 1) and is biased; it has no closed-form standard error, so ``stderr`` is NaN (use a
    bootstrap over devices).  Returns an Estimate named "frequency (IBU)"."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= 10**7:
        raise ValueError(f"iterations must be an int in [1, 10^7], got {iterations!r}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol < 1:
        raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
    sup = frequency_support(reports, mechanism)
    counts = np.asarray(sup.counts, dtype=np.float64)
    if counts.sum() <= 0:
        raise ValueError("reports: no report supports any item; IBU has nothing to update")
    theta = _ibu_kernel(counts / counts.sum(), float(sup.p), float(sup.q), int(iterations), float(tol))
    return Estimate("frequency (IBU)", theta, np.full(theta.shape, np.nan))


def _ibu_kernel(s, p, q, iterations, tol):
    """IBU steps with A = (p - q) I + q 1 1^T (symmetric): A v = (p - q) v + q sum(v)."""
    theta = np.full(s.shape, 1.0 / s.size)
    for _ in range(iterations):
        a_theta = (p - q) * theta + q * theta.sum()
        r = s / a_theta
        new = theta * ((p - q) * r + q * r.sum())
        done = np.abs(new - theta).max() < tol
        theta = new
        if done:
            break
    return theta


def recommend_frequency_oracle(epsilon, d, n, bits=32):
    """The frequency oracles fxdp has, realized for (epsilon, d) as a device would hold them, ranked
    by the closed-form variance of one item's frequency estimate at frequency 0 (the typical item of
    a large domain) over n reports.  Returns a list of {kind, config, epsilon, variance, bits_per_report,
    mechanism} (config abbreviates k-ary RR's categories; mechanism is the realized oracle), smallest
    variance first.  The candidates are every registered kind's ``oracle_configs``
    (fxdp.mechanisms.base.answers), in registration order where two variances tie."""
    from .registry import answering, constructor
    from .validate import check_int, check_rational
    eps = check_rational("epsilon", epsilon, 0, 64, lo_open=True)
    d = check_int("d", d, 2, 1 << 20)
    n = check_int("n", n, 1)
    rows = []
    for kind, configs in answering("oracle_configs"):
        for kwargs in configs(eps, d, bits):
            try:
                m = constructor(kind)(**kwargs)
            except ValueError:            # the oracle cannot realize this epsilon at this precision
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                var = float(m.variance(0.0, n))
            if m.epsilon == 0 or not math.isfinite(var):
                continue                  # realized with p = q: the reports carry no information
            shown = {k: (f"{len(v)} categories" if k == "categories" else v) for k, v in kwargs.items()}
            rows.append({"kind": kind, "config": shown, "epsilon": m.epsilon, "variance": var,
                         "bits_per_report": m.bits_per_report, "mechanism": m})
    if not rows:
        raise ValueError(f"epsilon = {float(eps)!r} is too small for every oracle at bits = {bits}")
    return sorted(rows, key=lambda r: r["variance"])


def recommend_numeric(lo, hi, epsilon, n, bits=12, *, integer_readings=False):
    """The numeric mechanisms fxdp has for a reading in [lo, hi], realized for epsilon as a device
    would hold them, ranked by the worst-case mean-squared error of the mean of n readings.

    Returns a list of {kind, config, epsilon, variance, stderr, mse}, smallest mse first: config is
    the constructor's keyword arguments (``fxdp.registry.constructor(kind)(**config)``), epsilon the
    realized one (never above the requested), variance the estimator's variance at the worst-case
    reading, stderr its square root and mse = max over readings x in [lo, hi] of
    bias(x)^2 + variance(x), all readings equal to x (the mean's worst case).

    * Duchi, Piecewise, Hybrid (grid of 2^bits + 1 levels): unbiased, mse = variance =
      ``m.worst_case_variance(n)``, their exact closed forms.
    * Bounded geometric (``geometric``, constant_time=True, bounds [lo, hi], scale = (hi - lo) /
      epsilon: local DP over the whole range, epsilon = privacy_map(hi - lo)): only for
      ``integer_readings=True`` (the readings are whole numbers, as a thermostat's whole degrees: the
      mechanism takes integers and has no randomized rounding, whose variance the formula would
      miss) and integer lo, hi with hi - lo <= MAX_GEOMETRIC_SPAN.  Its estimator (``bounded_geometric_mean``) scores each report y by w(y),
      P w = x solved on the exact channel P, so it is unbiased and
      mse = variance = max_x (sum_y P(y | x) w(y)^2 - x^2) / n, computed from the exact table.
    * Fixed-point Laplace (``laplace_fixed``, bounds [lo, hi], sensitivity = hi - lo, the default
      truncation "exception"): its privacy map exceeds the requested epsilon by the Gazeau et al.
      term, so the requested epsilon is lowered until ``privacy_map(1) <= epsilon``.  Its estimator
      (``fixed_point_mean``) averages the releases inside [lo, hi], so it is biased toward the middle.
      With Z the Laplace noise at the device's realized scale b' and Y = x + Z:
      p(x) = P(lo <= Y <= hi), mu(x) = E[Y | kept], s2(x) = Var(Y | kept), and to first order in 1/n
      mse(x) = (mu(x) - x)^2 + s2(x) / (n p(x)); the moments are sums of the exact Laplace CDF over
      LAPLACE_CELLS equal cells of [lo, hi] at their midpoints (the snapping to L and the fixed-point
      ln are not modelled), the maximum over WORST_CASE_READINGS equally spaced readings.

    A mechanism that cannot be realized for (lo, hi, epsilon) (the fixed-point Laplace's Q15.16
    format, its uniform bits or a non-dyadic range end) is left out, as recommend_frequency_oracle
    leaves out an oracle; Duchi, Piecewise and Hybrid raise the ValueError for bad lo, hi, epsilon.
    The candidates are every registered kind's ``reading_configs`` (fxdp.mechanisms.base.answers);
    each realized mechanism gives its ``worst_case_mse(n)`` and its ``local_epsilon``.
    """
    from .registry import answering, constructor
    from .validate import check_int
    n = check_int("n", n, 1)
    if not isinstance(integer_readings, bool):
        raise TypeError(f"integer_readings must be a bool, got {integer_readings!r}")
    rows = []
    for kind, configs in answering("reading_configs"):
        for kwargs in configs(lo, hi, epsilon, bits, integer_readings):
            m = constructor(kind)(**kwargs)       # ValueError (bad lo, hi, epsilon, bits) names the parameter
            mse, v = m.worst_case_mse(n)
            rows.append({"kind": kind, "config": kwargs, "epsilon": m.local_epsilon, "variance": v,
                         "stderr": v ** 0.5, "mse": mse})
    return sorted(rows, key=lambda r: r["mse"])

def recommend_distribution(lo, hi, epsilon, n, width=0.5, bits=12):
    """The range and quantile mechanisms fxdp has for a reading in [lo, hi], realized for epsilon as a
    device would hold them, ranked by the variance of the estimated share of a range covering
    ``width`` of [lo, hi] (a fraction in (0, 1]), at its worst placement, for n devices with
    readings spread uniformly (``m.range_variance(n, width)``: the closed forms of each kind's
    standard error, docs/mechanisms.md).  Returns a list of {kind, config, epsilon, variance,
    stderr}, smallest variance first; config is the constructor's keyword arguments.

    The candidates are every registered kind's ``range_configs`` (fxdp.mechanisms.base.answers): the
    hierarchical histogram at branching 2, 4, 8 and 16 (consistent estimator) and HaarHRR.  Square
    Wave's EMS distribution has no closed-form variance (EMS is iterative and smoothed) and is not
    ranked; ``m.estimate_distribution`` gives its bootstrap standard errors."""
    from .registry import answering, constructor
    from .validate import check_int
    n = check_int("n", n, 2)
    rows = []
    for kind, configs in answering("range_configs"):
        for kwargs in configs(lo, hi, epsilon, bits):
            m = constructor(kind)(**kwargs)       # ValueError (bad lo, hi, epsilon, bits) names the parameter
            v = m.range_variance(n, width)
            rows.append({"kind": kind, "config": kwargs, "epsilon": m.local_epsilon, "variance": v,
                         "stderr": v ** 0.5})
    return sorted(rows, key=lambda r: r["variance"])
