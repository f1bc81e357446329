"""Goodness of fit of the Numba samplers against their exact distributions.

Each test draws 10^6 samples with the fleet kernel (100 devices x 10^4 draws,
fixed seed, stream 0, so the fleet path is exercised too) and runs Pearson's
chi-square test against the exact pmf, with bins merged so that every
expected count is at least 20 (tails of the Laplace distributions and of the
tables are merged into one bin each).

Threshold: the statistic must stay below the chi-square quantile at
alpha = 1e-6, ``scipy.stats.chi2.isf(1e-6, df)`` with df = bins - 1 (e.g.
23.9 for a Bernoulli, 1252.6 for the 1023 df of 1024 bins).  With fixed seeds the test is
deterministic; a correct sampler on a fresh seed would fail one case with
probability 1e-6, while a bias of a few standard errors in any bin fails it.
"""
import math

import numpy as np
import pytest
from scipy import stats

from fxdp.samplers import _kernels as K
from fxdp.samplers.bounded import make_bounded_laplace_table

ALPHA = 1e-6
DEVICES = 100
PER_DEVICE = 10_000
N = DEVICES * PER_DEVICE
MIN_EXPECTED = 20.0


def draw(sampler, params, seed, dtype=np.int64):
    out = np.zeros((DEVICES, PER_DEVICE), dtype)
    status = np.full(DEVICES, -1, np.int64)
    fleet = K.SAMPLERS[sampler][2]
    fleet(K.seed_key_words(seed), np.arange(1000, 1000 + DEVICES, dtype=np.uint64), np.int64(0),
          *K.typed_params(sampler, params), np.int64(PER_DEVICE), out, status)
    assert (status == 0).all()
    return out.ravel()


def chi2_check(observed, probs):
    """Pearson chi-square of integer counts against probabilities (summing to 1)."""
    observed = np.asarray(observed, np.float64)
    probs = np.asarray(probs, np.float64)
    assert observed.sum() == N
    assert abs(probs.sum() - 1) < 1e-12
    expected = N * probs
    assert expected.min() >= MIN_EXPECTED
    stat = float(((observed - expected) ** 2 / expected).sum())
    df = len(probs) - 1
    limit = stats.chi2.isf(ALPHA, df)
    assert stat < limit, f"chi2 = {stat:.1f} >= {limit:.1f} (df {df})"
    return stat


def merge_small(observed, probs):
    """Merge the smallest bins into one until every expected count is >= MIN_EXPECTED."""
    observed, probs = np.asarray(observed), np.asarray(probs, np.float64)
    order = np.argsort(probs, kind="stable")
    take = 0
    while take < len(order) and (N * probs[order[take]] < MIN_EXPECTED
                                 or (take > 0 and N * probs[order[:take]].sum() < MIN_EXPECTED)):
        take += 1
    if take == 0:
        return observed, probs
    small = np.zeros(len(probs), bool)
    small[order[:take]] = True
    return (np.append(observed[~small], observed[small].sum()),
            np.append(probs[~small], probs[small].sum()))


# ---- uniform --------------------------------------------------------------------------

def test_uniform_below_large_n():
    n = 2**32 - 5
    x = draw("uniform_below", [n], seed=101, dtype=np.uint64)
    assert x.max() < n
    # 1024 bins of the top bits: exact bin sizes 2^22, the last 2^22 - 5
    sizes = np.full(1024, 2**22, np.float64)
    sizes[-1] -= 5
    chi2_check(np.bincount((x >> np.uint64(22)).astype(np.int64), minlength=1024), sizes / n)
    # residues mod a prime (low-order bits and the rejection boundary)
    m = 1021
    sizes = np.array([(n - 1 - r) // m + 1 for r in range(m)], np.float64)
    chi2_check(np.bincount((x % np.uint64(m)).astype(np.int64), minlength=m), sizes / n)


@pytest.mark.parametrize("n", [3, 1000, 2**31 + 1])
def test_uniform_below_small_n(n):
    x = draw("uniform_below", [n], seed=102 + n, dtype=np.uint64)
    if n <= 1000:
        chi2_check(np.bincount(x.astype(np.int64), minlength=n), np.full(n, 1 / n))
    else:
        bins = 512
        edges = [(j * n) // bins for j in range(bins + 1)]
        idx = np.searchsorted(np.array(edges[1:], np.uint64), x, side="right")
        chi2_check(np.bincount(idx, minlength=bins), np.diff(edges) / n)


# ---- Bernoulli -------------------------------------------------------------------------

def bernoulli_check(sampler, params, p, seed):
    x = draw(sampler, params, seed)
    ones = int(x.sum())
    chi2_check([N - ones, ones], [1 - p, p])


@pytest.mark.parametrize("a,k", [(3006477107, 32), (1, 3), (2**62 + 5, 63), (5, 10), (1, 15), (2**31, 32)])
@pytest.mark.parametrize("sampler", ["bernoulli_dyadic", "bernoulli_dyadic_ct"])
def test_bernoulli_dyadic(sampler, a, k):
    bernoulli_check(sampler, [a, k], a / 2**k, seed=a % 1000 + k)


@pytest.mark.parametrize("n,d", [(1, 3), (12345, 99991), (2**63, 2**64 - 1), (2, 7), (999, 1000)])
def test_bernoulli_rational(n, d):
    bernoulli_check("bernoulli_rational", [n, d], n / d, seed=n % 997 + d % 991)


@pytest.mark.parametrize("n,d", [(1, 1), (1, 10), (7, 3), (5, 1), (3, 4), (2**32 - 1, 2**31), (1, 1000)])
def test_bernoulli_exp(n, d):
    bernoulli_check("bernoulli_exp", [n, d], math.exp(-n / d), seed=n % 997 + d % 991 + 7)


# ---- discrete Laplace ------------------------------------------------------------------

def laplace_pmf(s, t, z):
    q = math.exp(-s / t)
    return (1 - q) / (1 + q) * q ** abs(z)


def laplace_tail(s, t, m):
    """P(Z >= m) for m >= 1."""
    q = math.exp(-s / t)
    return q**m / (1 + q)


@pytest.mark.parametrize("s,t", [(1, 1), (1, 10), (1, 100), (3, 7), (7, 3), (2, 1)])
def test_discrete_laplace(s, t):
    z = draw("discrete_laplace", [s, t], seed=200 + s * 31 + t)
    L = 0
    while N * laplace_pmf(s, t, L + 1) >= MIN_EXPECTED and N * laplace_tail(s, t, L + 2) >= MIN_EXPECTED:
        L += 1
    inner = np.clip(z, -L - 1, L + 1) + L + 1          # bins: (<= -L-1), -L..L, (>= L+1)
    observed = np.bincount(inner, minlength=2 * L + 3)
    probs = ([laplace_tail(s, t, L + 1)] + [laplace_pmf(s, t, v) for v in range(-L, L + 1)]
             + [laplace_tail(s, t, L + 1)])
    chi2_check(observed, probs)
    # symmetry and scale sanity (exact moments: E|Z| = 2q/(1-q^2))
    q = math.exp(-s / t)
    assert abs(np.abs(z).mean() - 2 * q / (1 - q * q)) < 6 * math.sqrt(np.abs(z).var() / N) + 1e-12


@pytest.mark.parametrize("s,t,lo,hi", [(1, 10, -5, 5), (1, 3, 1, 4), (2, 5, -3, 0)])
def test_discrete_laplace_censored(s, t, lo, hi):
    z = draw("discrete_laplace_censored", [s, t, lo, hi], seed=300 + t)
    assert z.min() >= lo and z.max() <= hi

    def ge(m):          # P(Z >= m)
        return laplace_tail(s, t, m) if m >= 1 else 1 - laplace_tail(s, t, 1 - m)

    probs = []
    for v in range(lo, hi + 1):
        if v == lo:
            probs.append(ge(-lo))           # P(Z <= lo) = P(Z >= -lo)
        elif v == hi:
            probs.append(ge(hi))
        else:
            probs.append(laplace_pmf(s, t, v))
    chi2_check(np.bincount(z - lo, minlength=hi - lo + 1), probs)


# ---- constant-time table ---------------------------------------------------------------

@pytest.mark.parametrize("scale,bounds,k", [(10, (0, 40), 32), (2, (0, 8), 16), (1, (-3, 3), 12),
                                             (0.5, (0, 20), 32)])
def test_table_sample_ct(scale, bounds, k):
    t = make_bounded_laplace_table(scale, bounds, k=k)
    j = draw("table_sample_ct", [list(t.thresholds), k], seed=400 + k)
    observed = np.bincount(j, minlength=len(t.weights))
    probs = np.array(t.weights, np.float64) / 2**k
    chi2_check(*merge_small(observed, probs))


def test_thresholds_documented():
    """The docstring's example thresholds."""
    assert abs(stats.chi2.isf(ALPHA, 1) - 23.93) < 0.01
    assert abs(stats.chi2.isf(ALPHA, 1023) - 1252.6) < 0.1


def test_harness_detects_a_small_bias():
    """Self-test: the same draws fail against a pmf that is off by 1% (relative)."""
    a, k = 3006477107, 32
    x = draw("bernoulli_dyadic", [a, k], seed=a % 1000 + k)
    ones = int(x.sum())
    p = a / 2**k * 1.01
    with pytest.raises(AssertionError, match="chi2 = "):
        chi2_check([N - ones, ones], [1 - p, p])
    z = draw("discrete_laplace", [1, 10], seed=200 + 31 + 10)
    with pytest.raises(AssertionError, match="chi2 = "):
        L = 40
        inner = np.clip(z, -L - 1, L + 1) + L + 1
        probs = ([laplace_tail(1, 10.3, L + 1)] + [laplace_pmf(1, 10.3, v) for v in range(-L, L + 1)]
                 + [laplace_tail(1, 10.3, L + 1)])
        chi2_check(np.bincount(inner, minlength=2 * L + 3), probs)
