"""audit(m, d_in) for the geometric mechanism (local DP over the whole input range) and the
channel-inversion mean estimator of the bounded constant-time geometric."""
import math
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.estimate import bounded_geometric_mean, channel_scores


def brute_max_log_ratio(m, d_max, exact_distance=False):
    """max over input pairs at distance <= d_max (or == d_max) and outputs of ln P(y|x)/P(y|x')."""
    lo, hi = m.bounds
    pmf = {x: m.table.output_pmf(x) for x in range(lo, hi + 1)}
    best = Fraction(1)
    for x in range(lo, hi + 1):
        for xp in range(lo, hi + 1):
            d = abs(x - xp)
            if d == 0 or d > d_max or (exact_distance and d != d_max):
                continue
            for y, p in pmf[x].items():
                best = max(best, p / pmf[xp][y])
    return best


@pytest.mark.parametrize("scale,bounds", [(10, (10, 30)), (3, (0, 12)), (Fraction(5, 2), (-4, 4))])
def test_local_audit_matches_brute_force(scale, bounds):
    m = fxdp.make_geometric(scale, bounds=bounds, constant_time=True)
    span = bounds[1] - bounds[0]
    for d in (1, 2, span):
        rep = fxdp.audit(m, d_in=d)
        ratio = brute_max_log_ratio(m, d)
        assert rep.epsilon_claimed == m.privacy_map(d)
        assert rep.epsilon_realized >= math.log(ratio) >= rep.epsilon_realized - 1e-12   # rounded up
        assert rep.epsilon_realized <= rep.epsilon_claimed
    assert fxdp.audit(m, d_in=1).epsilon_realized == fxdp.audit(m).epsilon_realized
    # a distance beyond the span cannot do worse than the span
    assert fxdp.audit(m, d_in=span + 5).epsilon_realized == fxdp.audit(m, d_in=span).epsilon_realized


def test_vector_distance_splits_over_coordinates():
    m = fxdp.make_geometric(3, bounds=(0, 6), constant_time=True, vector=True)
    r1 = brute_max_log_ratio(m, 1, exact_distance=True)
    r2 = brute_max_log_ratio(m, 2, exact_distance=True)
    rep = fxdp.audit(m, d_in=2)
    want = max(r2, r1 * r1)                     # both on one coordinate, or one step on each of two
    assert rep.epsilon_realized >= math.log(want) >= rep.epsilon_realized - 1e-12
    assert rep.epsilon_realized <= rep.epsilon_claimed == m.privacy_map(2)
    assert len(rep.witness["coordinates"]) in (1, 2)


def test_lazy_geometric_closed_form():
    m = fxdp.make_geometric(4, bounds=(0, 10))
    assert fxdp.audit(m, d_in=6).epsilon_realized == pytest.approx(1.5, abs=1e-15)
    assert fxdp.audit(m, d_in=6).epsilon_realized >= 1.5
    assert fxdp.audit(m, d_in=30).epsilon_realized == fxdp.audit(m, d_in=10).epsilon_realized  # clipped to span


def test_distance_errors():
    with pytest.raises(ValueError, match="d_in"):
        fxdp.audit(fxdp.make_randomized_response_bool(0.75), d_in=2)
    with pytest.raises(ValueError, match="d_in"):
        fxdp.audit(fxdp.make_geometric(2, bounds=(0, 9)), d_in=0)
    with pytest.raises(ValueError, match="at most 64"):
        fxdp.audit(fxdp.make_geometric(10, bounds=(0, 100), constant_time=True), d_in=2)


@pytest.mark.parametrize("scale,bounds", [(10, (10, 30)), (2, (0, 5))])
def test_channel_scores_are_unbiased_for_every_input(scale, bounds):
    m = fxdp.make_geometric(scale, bounds=bounds, constant_time=True)
    outs, w = channel_scores(m)
    for x in range(bounds[0], bounds[1] + 1):
        pmf = m.table.output_pmf(x)
        assert sum(float(p) * w[y - bounds[0]] for y, p in pmf.items()) == pytest.approx(x, abs=1e-8)


def test_bounded_mean_corrects_saturation():
    """Devices near the lower bound: the raw mean of the reports is pulled toward the
    middle by saturation; the channel-inversion mean is not (fixed seed; 5 SE)."""
    m = fxdp.make_geometric(10, bounds=(10, 30), constant_time=True)
    x = np.random.default_rng(3).integers(10, 13, 200_000)
    y = m.simulate(x, seed=11)
    e = bounded_geometric_mean(y, m)
    assert abs(e.estimate - x.mean()) < 5 * e.stderr
    assert y.mean() - x.mean() > 50 * e.stderr          # the naive mean is far off
    with pytest.raises(ValueError, match="bounds"):
        bounded_geometric_mean(np.array([9, 10]), m)
    with pytest.raises(ValueError, match="bounds"):              # no bounds: the statistic is the sum
        bounded_geometric_mean(np.array([1, 2]), fxdp.make_geometric(2))
    # the lazy form with bounds: its mean too (tests/test_geometric_statistic.py)
    assert bounded_geometric_mean(np.array([0, 5]), fxdp.make_geometric(2, bounds=(0, 5))).name == "mean"
