"""What the range-query mechanisms share (issue 35): the server's constrained inference over a
tree of node-share estimates (Hay, Rastogi, Miklau and Suciu, VLDB 2010, with a variance per level),
the exact standard error of any linear combination of those estimates, and quantiles read off the
estimated CDF with confidence intervals.  Post-processing only: float64, no randomness.

The tree.  Level t (0 <= t < h) holds d_t nodes; the root (the whole population, share exactly 1)
is above level 0, and node c of level t + 1 is a child of node c // fan_t of level t, fan_t =
d_{t+1} / d_t.  Each level's nodes carry unbiased estimates f_t with a per-node variance s_t (the
same for every node of a level: a data-independent weight).

Constrained inference (``consistent``) is the weighted least-squares fit of leaf shares to every
level's estimates under the constraint that the leaves sum to 1, computed in two passes (the
Gaussian conditioning on a tree): bottom-up, each node's estimate is combined with its children's
sum, z = (f / s + S / V) / (1 / s + 1 / V), with variance 1 / (1 / s + 1 / V) (V the children's
summed variance); top-down, the root is set to 1 and each parent's residual is split among its
children in proportion to their variances.  The result is linear in the estimates (plus the
constant from the root), unbiased, and consistent: every node is the sum of its children.

Its standard errors (``consistent_weights``).  A range's consistent estimate is w . f + const over
every node estimate f.  For the constrained fit x = C A^T S^-1 f + const, and with r the range's leaf
indicator, w = S^-1 A C r; C r is the fit itself (root 0) run on pseudo-estimates g = S e, e the
indicator of any nodes whose leaves partition the range (A^T e = r), so one extra pass gives w.
The variance of w . f is then each level's exact variance of a weighted sum of its estimates
(``HierarchicalHistogram.weighted_variance``).

Quantiles (``quantile_rows``): the q-quantile is read off the estimated CDF at the leaves' upper
edges, made monotone (a running maximum, clipped to [0, 1]), interpolated linearly inside the leaf
where it crosses q.  Its confidence interval inverts the CDF's band at the estimate (Woodruff 1952):
[F^-1(q - z se), F^-1(q + z se)], se the CDF estimate's standard error at the quantile's leaf.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...reports import Estimate

Z_95 = 1.959963984540054            # the two-sided 95 % normal quantile (the intervals' default)


@dataclass
class QuantileEstimate(Estimate):
    """Quantiles in the reading's units: ``estimate`` (in the order asked), ``stderr`` (half the
    interval's width over z), and the confidence interval [lower, upper] at ``level``."""
    lower: object = None
    upper: object = None
    level: float = 0.95


def _fans(sizes):
    return [sizes[t + 1] // sizes[t] for t in range(len(sizes) - 1)]


def consistent(estimates, variances, total=1.0):
    """The constrained least-squares fit (module docstring): per-level arrays in, per-level arrays
    out (every node the sum of its children, the level-0 nodes summing to ``total``).
    ``estimates`` may carry a leading batch axis: arrays [Q, d_t] fit Q problems at once."""
    f = [np.asarray(e, dtype=np.float64) for e in estimates]
    s = [float(v) for v in variances]
    h = len(f)
    sizes = [e.shape[-1] for e in f]
    fans = _fans(sizes)
    z, vz = [None] * h, [0.0] * h
    sums, vsum = [None] * h, [0.0] * h          # the children's sums of each level's nodes
    z[h - 1], vz[h - 1] = f[h - 1], s[h - 1]
    for t in range(h - 2, -1, -1):
        child = z[t + 1]
        sums[t] = child.reshape(child.shape[:-1] + (sizes[t], fans[t])).sum(axis=-1)
        vsum[t] = vz[t + 1] * fans[t]
        if s[t] == np.inf:
            z[t], vz[t] = sums[t], vsum[t]
        else:
            prec = 1.0 / s[t] + 1.0 / vsum[t]
            z[t] = (f[t] / s[t] + sums[t] / vsum[t]) / prec
            vz[t] = 1.0 / prec
    x = [None] * h
    resid = total - z[0].sum(axis=-1, keepdims=True)
    x[0] = z[0] + resid / sizes[0]                  # every level-0 node has the same variance
    for t in range(h - 1):
        resid = x[t] - sums[t]                      # [.., d_t]
        spread = np.repeat(resid / fans[t], fans[t], axis=-1)
        x[t + 1] = z[t + 1] + spread
    return x


def canonical_nodes(sizes, lo, hi):
    """The fewest nodes whose leaves are exactly leaves lo..hi (inclusive): [(level, node)], the
    B-adic decomposition of a range, taken from the top level down."""
    h = len(sizes)
    n_leaves = sizes[-1]
    span = [n_leaves // d for d in sizes]          # leaves under one node of each level
    out = []

    def walk(t, node):
        a, b = node * span[t], (node + 1) * span[t] - 1
        if b < lo or a > hi:
            return
        if lo <= a and b <= hi:
            out.append((t, node))
            return
        for c in range(node * (sizes[t + 1] // sizes[t]), (node + 1) * (sizes[t + 1] // sizes[t])):
            walk(t + 1, c)

    for node in range(sizes[0]):
        walk(0, node)
    del h
    return out


def consistent_weights(sizes, variances, lo, hi):
    """Per-level arrays w with (consistent estimate of leaves lo..hi) = sum_t w_t . f_t + const
    (module docstring: one fit of the pseudo-estimates S e with the root at 0).  lo and hi may be
    equal-length sequences: then each w_t is [Q, d_t], one row per range."""
    los, his = np.atleast_1d(lo), np.atleast_1d(hi)
    g = [np.zeros((los.shape[0], d)) for d in sizes]
    for q, (a, b) in enumerate(zip(los, his)):
        for t, node in canonical_nodes(sizes, int(a), int(b)):
            g[t][q, node] = variances[t]
    x = consistent(g, variances, total=0.0)
    # node sums of the fit are its per-level arrays (the fit is consistent): w_t = (A C r)_t / s_t
    w = [x[t] / variances[t] for t in range(len(sizes))]
    return w if np.ndim(lo) else [v[0] for v in w]


def cdf_from_leaves(leaves):
    """The monotone CDF at the leaves' upper edges: running maximum of the cumulative sum,
    clipped to [0, 1]."""
    return np.clip(np.maximum.accumulate(np.cumsum(leaves)), 0.0, 1.0)


def invert_cdf(cdf, q):
    """Fractional leaf position where the monotone CDF reaches q: j + (q - F(j-1)) / (F(j) - F(j-1))
    for the first leaf j with F(j) >= q (0 below, len(cdf) above its last value)."""
    q = float(q)
    j = int(np.searchsorted(cdf, q, side="left"))
    if j >= cdf.shape[0]:
        return float(cdf.shape[0])
    below = cdf[j - 1] if j else 0.0
    step = cdf[j] - below
    return j + (min(max((q - below) / step, 0.0), 1.0) if step > 0 else 1.0)


def quantile_positions(leaves, probs, cdf_stderr, z=Z_95):
    """(estimate, lower, upper) leaf positions of each q in probs: the CDF's inverse at q, and at q
    -/+ z se(j), se from ``cdf_stderr(j)`` at the estimate's leaf j (module docstring)."""
    cdf = cdf_from_leaves(leaves)
    est, lower, upper = [], [], []
    for q in probs:
        pos = invert_cdf(cdf, q)
        j = min(int(pos), cdf.shape[0] - 1)
        se = float(cdf_stderr(j))
        est.append(pos)
        lower.append(invert_cdf(cdf, q - z * se))
        upper.append(invert_cdf(cdf, q + z * se))
    return np.array(est), np.array(lower), np.array(upper)


def check_probs(probs):
    """A non-empty sequence of probabilities in (0, 1) -> a float list."""
    try:
        out = [float(p) for p in np.atleast_1d(np.asarray(probs, dtype=object))]
    except (TypeError, ValueError):
        raise ValueError(f"quantiles must be probabilities in (0, 1), got {probs!r}") from None
    if not out or not all(0.0 < p < 1.0 for p in out):
        raise ValueError(f"quantiles must be a non-empty list of probabilities in (0, 1), got {probs!r}")
    return out
