"""Layer 2 (host side): integer weight tables for the constant-time bounded discrete Laplace.

The device mechanism is: integer input x in [a, b], noise J drawn from a
finite table by ``table_sample_ct`` (one k-bit draw, full branch-free scan),
output clamp(x + J, lo, hi) (tails included).

Construction (exact integers, rounding only towards privacy):
  * noise support [-W, W] with W = max(|lo - b|, |hi - a|, 1), so that every
    output is reachable from every input (otherwise some ratio is infinite);
  * rho >= exp(-eps) and tau >= 1/(exp(eps) - 1), certified rationals
    (eps = 1/scale);
  * w_0 = M, w_j = ceil(w_{j-1} rho) for 1 <= j < W, w_W = ceil(w_{W-1} tau),
    w_-j = w_j.  Ceiling keeps every ratio w_j / w_{j+1} <= 1/rho <= e^eps and
    every weight >= 1.  The last weight stands for the whole clipped tail:
    w_{W-1} <= (e^eps - 1) w_W makes every censored tail ratio
    T_{m-1} / T_m <= e^eps as well (T_m = sum_{j >= m} w_j), by induction
    from m = W downwards.  (Rounding each weight of exp(-|j| eps) to nearest
    instead breaks exactly these tail ratios.)
  * M is the largest centre weight with total <= 2^k; the remainder (less
    than a few centre-weight steps) goes to w_W and w_-W, which only makes
    the tails heavier and every tail ratio smaller.  So the weights sum to
    exactly 2^k and one k-bit draw always suffices: the sampler has no
    rejection loop and no failure probability.
Finally the constructor *proves* the guarantee: it computes the exact
worst-case ratio P(y | x) / P(y | x') over every pair of adjacent inputs in
[a, b] and every output y in [lo, hi], as a Fraction, and checks it is at
most exp(eps) with a certified lower bound on exp.  ``epsilon_realized`` is
ln of that ratio, rounded up.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..conservative import exp_interval, exp_le, log_up
from ..validate import check_rational

MAX_TABLE = 1 << 16   # entries (2W + 1); the scan costs one compare per entry per sample


@dataclass(frozen=True)
class BoundedLaplaceTable:
    scale: Fraction          # noise scale t/s (eps = 1/scale per unit of |x - x'|)
    input_bounds: tuple      # (a, b)
    output_bounds: tuple     # (lo, hi)
    k: int                   # draw width: weights sum to 2^k
    width: int               # W: noise support is [-W, W]; table index i means noise i - W
    weights: tuple           # 2W + 1 positive integers, sum 2^k
    max_ratio: Fraction      # exact worst-case likelihood ratio between adjacent inputs
    epsilon_realized: float  # ln(max_ratio) rounded up

    @property
    def cdf(self):
        """Cumulative weights; the last entry is 2^k."""
        out, acc = [], 0
        for w in self.weights:
            acc += w
            out.append(acc)
        return out

    @property
    def thresholds(self):
        """The cdf without its last entry (2^k): the device table, every entry < 2^k."""
        return self.cdf[:-1]

    def noise_pmf(self):
        """{noise: Fraction}: the exact distribution of J."""
        return {i - self.width: Fraction(w, 1 << self.k) for i, w in enumerate(self.weights)}

    def output_pmf(self, x):
        """{y: Fraction}: the exact distribution of clamp(x + J, lo, hi)."""
        lo, hi = self.output_bounds
        pmf = {}
        for i, w in enumerate(self.weights):
            y = min(max(x + i - self.width, lo), hi)
            pmf[y] = pmf.get(y, 0) + w
        return {y: Fraction(c, 1 << self.k) for y, c in sorted(pmf.items())}


def _check_bounds(name, bounds):
    if (not isinstance(bounds, (tuple, list)) or len(bounds) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in bounds)):
        raise ValueError(f"{name} must be a pair of integers (lower, upper), got {bounds!r}")
    lo, hi = bounds
    if lo > hi:
        raise ValueError(f"{name}: lower may not be greater than upper, got {bounds!r}")
    if lo < -(1 << 31) or hi > (1 << 31) - 1:
        raise ValueError(f"{name} must lie in [-2^31, 2^31 - 1], got {bounds!r}")
    return int(lo), int(hi)


def make_bounded_laplace_table(scale, input_bounds, output_bounds=None, k=32, names=("input_bounds", "output_bounds")):
    """Build and prove a weight table; see the module docstring.

    scale: noise scale > 0 (int, Fraction, float or exact string such as "5/2", taken exactly);
    input_bounds: (a, b); output_bounds: (lo, hi), default input_bounds;
    k: draw width in [8, 32]; names: the parameters the caller's user wrote for the two bounds, in
    messages (the geometric mechanism passes its one ``bounds`` for both).
    """
    scale = check_rational("scale", scale)
    if scale <= 0:
        raise ValueError(f"scale must be > 0 for a table (got {scale}); scale 0 means no noise")
    if isinstance(k, bool) or not isinstance(k, int) or not 8 <= k <= 32:
        raise ValueError(f"k must be an integer in [8, 32], got {k!r}")
    a, b = _check_bounds(names[0], input_bounds)
    lo, hi = _check_bounds(names[1], output_bounds if output_bounds is not None else input_bounds)
    width = max(abs(lo - b), abs(hi - a), 1)
    if 2 * width + 1 > MAX_TABLE:
        narrow = names[0] if names[0] == names[1] else f"{names[0]}/{names[1]}"
        raise ValueError(f"{narrow} too wide for a table: needs 2W+1 = {2 * width + 1} entries, at most "
                         f"{MAX_TABLE} allowed; narrow {narrow}")
    eps = 1 / scale
    if eps > 64:
        raise ValueError(f"scale must be >= 1/64 for a table, got {scale}")
    e_lo, e_hi = exp_interval(eps)
    rho = 1 / e_lo                      # >= exp(-eps)
    tau = 1 / (e_lo - 1)                # >= 1 / (exp(eps) - 1)

    def build(m):
        half = [m]
        for _ in range(1, width):
            half.append(math.ceil(half[-1] * rho))
        half.append(math.ceil(half[-1] * tau))
        return half

    def total(half):
        return half[0] + 2 * sum(half[1:])

    if 2 * width + 1 > (1 << k) or total(build(1)) > (1 << k):
        raise ValueError(f"k = {k} bits too few for {2 * width + 1} weights at scale {scale}; raise k")
    lo_m, hi_m = 1, 1 << k              # invariant: total(build(lo_m)) <= 2^k < total(build(hi_m))
    while hi_m - lo_m > 1:
        mid = (lo_m + hi_m) // 2
        if total(build(mid)) <= (1 << k):
            lo_m = mid
        else:
            hi_m = mid
    half = build(lo_m)
    rest = (1 << k) - total(half)
    weights = half[:0:-1] + half
    weights[0] += rest - rest // 2
    weights[-1] += rest // 2
    assert sum(weights) == 1 << k and min(weights) >= 1
    ratio = exact_max_ratio(weights, width, (a, b), (lo, hi))
    if not exp_le(ratio, eps):
        raise AssertionError("internal error: weight table exceeds the requested epsilon")
    eps_real = log_up(ratio) if ratio > 1 else 0.0
    return BoundedLaplaceTable(scale, (a, b), (lo, hi), k, width, tuple(weights), ratio, eps_real)


def exact_max_ratio(weights, width, input_bounds, output_bounds):
    """Exact max over adjacent inputs x, x+1 in [a, b] and outputs y in [lo, hi] of
    P(y|x)/P(y|x+1) and its inverse, for y = clamp(x + J, lo, hi), J ~ weights on [-W, W].

    Interior outputs compare single weights, the two ends compare tail sums; this
    covers every (x, y) pair without enumerating them.
    """
    a, b = input_bounds
    lo, hi = output_bounds
    if a == b or lo == hi:
        return Fraction(1)
    w = lambda j: weights[j + width] if -width <= j <= width else 0  # noqa: E731
    upper = [0] * (2 * width + 2)       # upper[i] = sum of weights[i:]
    for i in range(2 * width, -1, -1):
        upper[i] = upper[i + 1] + weights[i]
    t_up = lambda m: upper[min(max(m + width, 0), 2 * width + 1)]          # P(J >= m)  # noqa: E731
    t_down = lambda m: upper[0] - t_up(m + 1)                              # P(J <= m)  # noqa: E731
    best = Fraction(1)

    def consider(p, q):
        nonlocal best
        if p == 0 or q == 0:
            if p != q:
                raise AssertionError("an output is reachable from one input only: infinite loss")
            return
        r = Fraction(max(p, q), min(p, q))
        if r > best:
            best = r

    for x in range(a, b):               # pairs (x, x+1)
        consider(t_up(hi - x), t_up(hi - x - 1))
        consider(t_down(lo - x), t_down(lo - x - 1))
    for j in range(lo + 1 - (b - 1), hi - 1 - a + 1):   # interior: noise j from x, j - 1 from x + 1
        consider(w(j), w(j - 1))
    return best
