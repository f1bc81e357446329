"""recommend_numeric ranks the bounded geometric and the fixed-point Laplace by their worst-case
mean-squared error (issue 17, item 4): the formula against a simulation at one small setting."""
import numpy as np
import pytest

import fxdp
from fxdp.estimate import bounded_geometric_worst_variance, laplace_fixed_at, laplace_fixed_worst_mse

LO, HI, EPS, N, REPS = 0, 8, 1, 200, 400
# the empirical MSE over REPS fleets has a relative sd of about sqrt(2 / REPS) = 0.07 when variance
# dominates (less when bias does): 25 % is over 3 sd
TOLERANCE = 0.25


def test_rows_keep_their_keys_and_are_ranked_by_mse():
    rows = fxdp.recommend_numeric(LO, HI, EPS, N, integer_readings=True)
    assert {r["kind"] for r in rows} == {"duchi", "piecewise", "hybrid", "geometric", "laplace_fixed"}
    for r in rows:
        assert {"kind", "config", "epsilon", "variance", "stderr", "mse"} <= set(r)
        assert r["epsilon"] <= EPS and r["mse"] >= r["variance"] > 0
        assert r["stderr"] == pytest.approx(r["variance"] ** 0.5)
        fxdp.registry.constructor(r["kind"])(**r["config"])      # the config builds the mechanism
    assert [r["mse"] for r in rows] == sorted(r["mse"] for r in rows)
    # the bounded geometric takes whole numbers: only for integer readings and integer bounds
    assert "geometric" not in {r["kind"] for r in fxdp.recommend_numeric(LO, HI, EPS, N)}
    assert "geometric" not in {r["kind"] for r in fxdp.recommend_numeric(0, 0.5, EPS, N, integer_readings=True)}
    # a range the fixed-point Laplace cannot realize (0.1 is not dyadic; 10^6 overflows Q15.16): left out
    for lo, hi in ((0.1, 0.7), (0, 10**6)):
        assert {r["kind"] for r in fxdp.recommend_numeric(lo, hi, EPS, N)} == {"duchi", "piecewise", "hybrid"}
    with pytest.raises(TypeError, match="integer_readings"):
        fxdp.recommend_numeric(LO, HI, EPS, N, integer_readings=1)


def test_bounded_geometric_worst_variance_matches_a_simulation():
    row = next(r for r in fxdp.recommend_numeric(LO, HI, EPS, N, integer_readings=True) if r["kind"] == "geometric")
    m = fxdp.registry.constructor("geometric")(**row["config"])
    assert row["variance"] == pytest.approx(bounded_geometric_worst_variance(m) / N)
    # the worst-case input, found again from the per-input variances
    _, w = fxdp.estimate.channel_scores(m)
    P = fxdp.mechanisms.additive.geometric.channel_matrix(m)
    x_worst = LO + int(np.argmax(P @ (w * w) - np.arange(LO, HI + 1) ** 2))
    values = np.full(N, x_worst, dtype=np.int64)
    est = np.array([m.estimate(m.simulate(values, seed=s)).estimate for s in range(REPS)])
    mse = float(np.mean((est - x_worst) ** 2))
    assert mse == pytest.approx(row["mse"], rel=TOLERANCE)


def test_laplace_fixed_worst_mse_matches_a_simulation():
    m, _ = laplace_fixed_at(LO, HI, EPS)
    assert m.privacy_map(1) <= EPS
    mse, var, x = laplace_fixed_worst_mse(m, N)
    assert mse > var          # clamping at the range ends biases the mean: the bias counts
    raw = np.full(N, int(round(x * (1 << m.F))), dtype=np.int64)
    est = np.array([m.estimate(m.simulate(raw, seed=s)).estimate for s in range(REPS)])
    assert float(np.mean((est - x) ** 2)) == pytest.approx(mse, rel=TOLERANCE)
    assert float(est.var(ddof=1)) == pytest.approx(var, rel=TOLERANCE)
