"""Server-side estimators (fxdp.estimate) against large simulated fleets.

Each check simulates fleets of 2 * 10^5 devices with ``m.simulate`` (the Numba
fleet kernel, bit-identical to the firmware) under fixed seeds, so the test is
deterministic; the tolerances below are what a correct estimator meets with
overwhelming probability over the seeds (stated per test, in standard errors
or as a relative band), and the fixed seeds make the outcome reproducible.

Stated tolerances
-----------------
* Bias: the mean error over R repetitions (and over categories or bits) lies
  within 4 standard errors of that mean.
* Error size: the mean squared standardized error z^2 = ((est - true)/se)^2,
  pooled over repetitions and categories, lies within a band of about
  +-3 of its own standard errors around 1 (band given per test; its SE is
  sqrt(2/N) for N pooled values).
* The plug-in standard error an Estimate reports is within 3 % of the
  theoretical one at the true frequency.
* RAPPOR: the summed squared error over the k bits, averaged over R
  repetitions, matches k n (f/2 - f^2/4) / (1 - f)^2 (the corrected formula,
  estimate.py) within 15 % (its relative SE is sqrt(2/(kR)) ~ 6 %), and does
  NOT match the seed's k n (f/2 - f^2/4): for f = 1/2 the empirical error is
  ~4x the seed's value, for f = 1/4 ~1.78x.
"""
import math

import numpy as np
import pytest

from fxdp import estimate as est
from fxdp.mechanisms import (make_geometric, make_randomized_response, make_randomized_response_bool,
                             make_rappor)

N = 200_000
BASE_SEED = 0xE5_71_3A_70_25


def _seed(tag, r):
    return BASE_SEED * 1000 + tag * 100 + r


def _z2_band(npooled, width=3.0):
    se = math.sqrt(2.0 / npooled)
    return 1 - width * se, 1 + width * se


# --------------------------------------------------------------------------
# binary randomized response

@pytest.mark.parametrize("ct", [False, True])
def test_rr_bool_frequency(ct):
    m = make_randomized_response_bool(0.75, constant_time=ct)
    pi = 0.3
    x = np.zeros(N, dtype=bool)
    x[: int(pi * N)] = True
    R = 32
    p = float(m.p_realized)
    se_theory = est.rr_bool_stderr(pi, p, N)
    errs, z2 = [], []
    for r in range(R):
        y = m.simulate(x, _seed(1 + ct, r))
        e = est.rr_bool_frequency(y, m)
        assert abs(e.stderr / se_theory - 1) < 0.03
        assert abs(e.estimate - pi) < 5 * se_theory
        errs.append(e.estimate - pi)
        z2.append(((e.estimate - pi) / se_theory) ** 2)
    assert abs(np.mean(errs)) < 4 * se_theory / math.sqrt(R)            # unbiased
    lo, hi = _z2_band(R)
    assert lo < np.mean(z2) < hi, np.mean(z2)                           # error size = stderr


# --------------------------------------------------------------------------
# k-ary randomized response

@pytest.mark.parametrize("ct", [False, True])
def test_rr_kary_frequencies(ct):
    t = 10
    m = make_randomized_response(list(range(t)), 0.5, constant_time=ct)
    weights = 1.0 / np.arange(1, t + 1)
    counts = np.floor(weights / weights.sum() * N).astype(int)
    counts[0] += N - counts.sum()
    x = np.repeat(np.arange(t), counts)
    truth = counts / N
    R = 12
    p = float(m.p_realized)
    se_theory = est.rr_stderr(truth, p, t, N)
    errs, z2 = [], []
    for r in range(R):
        y = m.simulate(x, _seed(3 + ct, r))
        e = est.rr_frequencies(y, m)
        assert np.all(np.abs(e.stderr / se_theory - 1) < 0.03)
        assert np.all(np.abs(e.estimate - truth) < 5 * se_theory)
        errs.append(e.estimate - truth)
        z2.append(((e.estimate - truth) / se_theory) ** 2)
    errs = np.array(errs)
    assert np.all(np.abs(errs.mean(axis=0)) < 4 * se_theory / math.sqrt(R))
    assert abs(errs.sum(axis=1)).max() < 1e-9                           # frequencies sum to 1
    lo, hi = _z2_band(R * t)
    assert lo < np.mean(z2) < hi, np.mean(z2)


# --------------------------------------------------------------------------
# basic RAPPOR: per-bit counts and the squared-error formula

def _rappor_population(k, mm, seed):
    rng = np.random.default_rng(seed)
    x = np.zeros((N, k), dtype=np.uint8)
    popular = rng.random(k) ** 3
    ones = rng.integers(0, mm + 1, N)
    for j in range(mm):
        cols = rng.choice(k, size=N, p=popular / popular.sum())
        x[np.arange(N)[ones > j], cols[ones > j]] = 1
    return x


@pytest.mark.parametrize("f,ratio_seed", [(0.5, 4.0), (0.25, 1 / 0.75 ** 2)])
def test_rappor_counts_and_squared_error(f, ratio_seed):
    k, mm, R = 128, 4, 4
    m = make_rappor(f, mm, k)
    fr = float(m.f_realized)
    x = _rappor_population(k, mm, 5)
    truth = x.sum(axis=0).astype(np.float64)
    seed_formula = k * N * (fr / 2 - fr ** 2 / 4)
    corrected = seed_formula / (1 - fr) ** 2
    se = est.rappor_stderr(fr, N)
    sq, errs = [], []
    for r in range(R):
        y = m.simulate(x, _seed(5 + int(f * 4), r))
        e = est.rappor_counts(y, m)
        assert np.allclose(e.stderr, se)
        assert abs(se ** 2 * k / corrected - 1) < 1e-12
        err = e.estimate - truth
        errs.append(err)
        sq.append(float(np.sum(err ** 2)))
    errs = np.array(errs)
    emp = float(np.mean(sq))
    assert abs(errs.mean()) < 4 * se / math.sqrt(k * R)                 # unbiased over bits and reps
    assert 0.85 < emp / corrected < 1.15, emp / corrected               # the corrected formula holds
    assert emp / seed_formula > 0.85 * ratio_seed                      # the seed's formula does not
    assert abs(emp / seed_formula - ratio_seed) < 0.15 * ratio_seed


def test_rappor_constant_time_is_unbiased():
    k, mm = 64, 2
    m = make_rappor(0.5, mm, k, constant_time=True)
    x = _rappor_population(k, mm, 6)
    truth = x.sum(axis=0)
    e = est.rappor_counts(m.simulate(x, _seed(9, 0)), m)
    z = (e.estimate - truth) / e.stderr
    assert abs(z.mean()) < 4 / math.sqrt(k)
    lo, hi = _z2_band(k, 3.5)
    assert lo < np.mean(z ** 2) < hi


# --------------------------------------------------------------------------
# geometric: sum and mean

@pytest.mark.parametrize("case", ["lazy", "lazy_vector", "ct"])
def test_geometric_sum_and_mean(case):
    if case == "ct":
        m = make_geometric(3, (-200, 200), constant_time=True)
        x = np.random.default_rng(7).integers(-50, 51, N)
    elif case == "lazy_vector":
        m = make_geometric(10, vector=True)
        x = np.random.default_rng(8).integers(-1000, 1001, (N // 2, 2))
    else:
        m = make_geometric(10)
        x = np.random.default_rng(9).integers(-1000, 1001, N)
    true_sum = float(x.sum())
    var = est.discrete_laplace_variance(m.s, m.t)
    se = math.sqrt(x.size * var)
    R = 20
    z, noise_sq = [], 0.0
    for r in range(R):
        y = m.simulate(x, _seed(11 + len(case), r))
        s = est.geometric_sum(y, m)
        mean = est.geometric_mean(y, m)
        assert s.stderr == pytest.approx(se, rel=1e-12)
        assert mean.estimate == pytest.approx(s.estimate / x.size) and mean.stderr == pytest.approx(se / x.size)
        z.append((s.estimate - true_sum) / se)
        noise_sq += float(np.sum((y - x).astype(np.float64) ** 2))
    z = np.array(z)
    assert abs(z.mean()) < 4 / math.sqrt(R)
    lo, hi = _z2_band(R, 3.2)
    assert lo < np.mean(z ** 2) < hi, np.mean(z ** 2)
    # the per-release noise variance is the discrete Laplace variance (4 * 10^6 draws: 2 %)
    assert abs(noise_sq / (R * x.size) / var - 1) < 0.02
