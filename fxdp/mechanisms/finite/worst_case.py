"""Layer 4: the fixed-point Laplace as a candidate for a reading's mean (fxdp.estimate.recommend_numeric).

``laplace_fixed_at`` realizes it for a range and an epsilon the way a device would hold it; its
``worst_case_mse`` is ``laplace_fixed_worst_mse``'s first-order formula.  Floats are fine here:
this is the statistics of released data, not sampling.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

LAPLACE_CELLS = 4096          # cells of [lo, hi] the Laplace's moments are summed over
WORST_CASE_READINGS = 257     # readings in [lo, hi] searched for the worst case


def laplace_fixed_at(lo, hi, epsilon):
    """The fixed-point Laplace on [lo, hi] (sensitivity hi - lo) whose privacy map at d_in = 1 is at
    most epsilon: the requested epsilon lowered by the map's excess (a few fixed-point steps, on a
    2^-16 grid, rounded down).  Returns (mechanism, its config)."""
    from ...registry import constructor  # not `from .laplace import`: laplace's methods import this module
    make_laplace_fixed = constructor("laplace_fixed")
    eps = Fraction(epsilon)
    req = eps
    for _ in range(12):
        kwargs = {"epsilon": req, "bounds": [lo, hi], "sensitivity": hi - lo}
        m = make_laplace_fixed(**kwargs)
        excess = Fraction(m.privacy_map(1)) - eps
        if excess <= 0:
            return m, kwargs
        req = Fraction(math.floor((req - excess) * 65536), 65536)
        if req <= 0:
            break
    raise ValueError(f"epsilon = {float(eps)!r} is too small for the fixed-point Laplace on [{lo}, {hi}]")


def reading_configs(lo, hi, epsilon, bits, integer_readings):
    """``reading_configs`` of ``laplace_fixed`` (fxdp.mechanisms.base.answers): bounds [lo, hi],
    sensitivity hi - lo, the default truncation; its privacy map exceeds the requested epsilon by
    the Gazeau et al. term, so epsilon is lowered until ``privacy_map(1) <= epsilon``.  Empty where
    it cannot be realized (the Q15.16 range, its uniform bits, range ends off its grid)."""
    try:
        return [laplace_fixed_at(Fraction(lo), Fraction(hi), Fraction(epsilon))[1]]
    except (ValueError, TypeError, ZeroDivisionError):
        return []


def laplace_fixed_worst_mse(m, n, cells=LAPLACE_CELLS, readings=WORST_CASE_READINGS):
    """(worst-case mse, variance at that reading, the reading) of ``fixed_point_mean`` over n
    equal readings in the mechanism's bounds.

    The estimator averages the releases inside [lo, hi], so it is biased toward the middle.  With
    Z the Laplace noise at the device's realized scale b' and Y = x + Z: p(x) = P(lo <= Y <= hi),
    mu(x) = E[Y | kept], s2(x) = Var(Y | kept), and to first order in 1/n
    mse(x) = (mu(x) - x)^2 + s2(x) / (n p(x)); the moments are sums of the exact Laplace CDF over
    ``cells`` equal cells of [lo, hi] at their midpoints (the snapping to L and the fixed-point ln
    are not modelled), the maximum over ``readings`` equally spaced readings."""
    lo, hi = float(m.lo * m.qformat.resolution), float(m.hi * m.qformat.resolution)
    b = float(m.scale)
    edges = np.linspace(lo, hi, cells + 1)
    mid = (edges[:-1] + edges[1:]) / 2

    def cdf(z):
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.maximum(z, 0) / b))

    best = (-1.0, 0.0, lo)
    for x in np.linspace(lo, hi, readings):
        pr = np.diff(cdf(edges - x))
        p = float(pr.sum())
        mu = float(pr @ mid) / p
        s2 = max(float(pr @ (mid - mu) ** 2) / p, 0.0)
        var = s2 / (n * p)
        mse = float((mu - x) ** 2 + var)
        if mse > best[0]:
            best = (mse, var, float(x))
    return best
