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

from .mechanisms.base import check_mechanism
from .mechanisms.geometric import (MAX_CHANNEL_INPUTS, discrete_laplace_variance,  # noqa: F401
                                   bounded_geometric_mean as _bounded_geometric_mean, channel_scores as _channel_scores,
                                   geometric_mean as _geometric_mean, geometric_sum as _geometric_sum)
from .mechanisms.rappor import rappor_stderr  # noqa: F401
from .reports import Estimate  # noqa: F401

EXCEPTION_RAW = -(1 << 63)      # fxdp.finite: the exception value in simulate's int64 outputs


def _expect(m, kinds, what):
    check_mechanism(m, what)
    if m.kind not in kinds:
        raise TypeError(f"{what} estimates for {' / '.join(kinds)} mechanisms, got a {m.kind!r} mechanism; "
                        f"m.estimate(reports) is the estimator of any mechanism")
    return m


def estimate(reports, mechanism):
    """The default unbiased estimator of mechanism's family on its reports (``m.estimate``)."""
    return check_mechanism(mechanism, "fxdp.estimate.estimate").estimate(reports)


def rr_bool_frequency(reports, mechanism):
    """Fraction of devices whose true bit is 1, from binary randomized-response reports."""
    return _expect(mechanism, ("randomized_response_bool",), "rr_bool_frequency").estimate(reports)


def rr_bool_stderr(pi, p, n):
    """Theoretical standard error of rr_bool_frequency for true frequency pi."""
    y = pi * p + (1 - pi) * (1 - p)
    return math.sqrt(y * (1 - y) / n) / (2 * p - 1)


def rr_frequencies(indices, mechanism):
    """Frequency of each of the t categories from k-ary reports (category indices)."""
    return _expect(mechanism, ("randomized_response",), "rr_frequencies").estimate(indices)


def rr_stderr(pi, p, t, n):
    pi = np.asarray(pi, dtype=np.float64)
    q = (1 - p) / (t - 1)
    y = pi * p + (1 - pi) * q
    return np.sqrt(y * (1 - y) / n) / (p - q)


def rappor_counts(reports, mechanism):
    """Unbiased per-bit counts N_i from basic RAPPOR reports (an n x k 0/1 matrix)."""
    return _expect(mechanism, ("rappor",), "rappor_counts").estimate(reports)


def geometric_sum(noised, mechanism):
    """Sum (and mean) of the true values from geometric-noised releases."""
    return _geometric_sum(noised, _expect(mechanism, ("geometric",), "geometric_sum"))


def geometric_mean(noised, mechanism):
    return _geometric_mean(noised, _expect(mechanism, ("geometric",), "geometric_mean"))


def channel_scores(mechanism):
    """Unbiased per-report scores w(y) for the mean of a bounded constant-time geometric."""
    return _channel_scores(_expect(mechanism, ("geometric",), "channel_scores"))


def bounded_geometric_mean(noised, mechanism):
    """Mean of the true values from bounded constant-time geometric releases (channel inversion)."""
    return _bounded_geometric_mean(noised, _expect(mechanism, ("geometric",), "bounded_geometric_mean"))


_FINITE = ("laplace_fixed", "naive_laplace_fixed", "planar_laplace_fixed", "laplace_grid", "planar_laplace_grid")


def fixed_point_mean(raw_outputs, mechanism):
    """Mean of the true values from fixed-point Laplace releases (raw outputs of ``m.simulate``)."""
    return _expect(mechanism, _FINITE, "fixed_point_mean").estimate(raw_outputs)
