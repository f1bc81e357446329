"""Frequency support statistics and the iterative Bayesian update (issue 10, item 6)."""
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp import estimate as E
from fxdp.reports import Support


def _ibu_dense(s, A, iterations, tol):
    """The obvious IBU with a dense matrix (the oracle for the O(d) kernel)."""
    theta = np.full(A.shape[0], 1.0 / A.shape[0])
    for _ in range(iterations):
        new = theta * (A.T @ (s / (A @ theta)))
        if np.abs(new - theta).max() < tol:
            return new
        theta = new
    return theta


ORACLES = [
    ("rr", lambda: fxdp.make_randomized_response(list(range(6)), "1/2")),
    ("ue", lambda: fxdp.make_unary_encoding(6, 1)),
    ("sue", lambda: fxdp.make_unary_encoding(6, "1/2", optimized=False)),
    ("hr", lambda: fxdp.make_hadamard_response(6, 1)),
    ("olh", lambda: fxdp.make_local_hashing(6, 1)),
    ("ss", lambda: fxdp.make_subset_selection(6, 1)),
    ("lgrr", lambda: fxdp.make_longitudinal_grr(6, 2, 1)),
]


@pytest.mark.parametrize("name,make", ORACLES, ids=[o[0] for o in ORACLES])
def test_support_unbiased_is_the_oracle_estimator(name, make):
    m = make()
    values = np.repeat(np.arange(6), [400, 250, 150, 100, 60, 40])
    r = m.simulate(values, seed=11)
    sup = m.frequency_support(r)
    assert isinstance(sup, Support) and sup.n == values.size and sup.counts.shape == (6,)
    assert isinstance(sup.p, Fraction) and isinstance(sup.q, Fraction) and sup.p > sup.q
    np.testing.assert_allclose(sup.unbiased().estimate, m.estimate(r).estimate, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name,make", ORACLES, ids=[o[0] for o in ORACLES])
def test_ibu_matches_dense_iteration_and_lies_on_simplex(name, make):
    m = make()
    values = np.repeat(np.arange(6), [500, 300, 120, 50, 20, 10])
    r = m.simulate(values, seed=5)
    sup = m.frequency_support(r)
    A = np.full((6, 6), float(sup.q))
    np.fill_diagonal(A, float(sup.p))
    s = sup.counts / sup.counts.sum()
    est = E.ibu(r, m, iterations=500, tol=1e-13)
    np.testing.assert_allclose(est.estimate, _ibu_dense(s, A, 500, 1e-13), rtol=0, atol=1e-12)
    assert est.estimate.min() >= 0 and abs(est.estimate.sum() - 1) < 1e-12
    assert np.isnan(est.stderr).all() and est.name == "frequency (IBU)"


def test_ibu_on_krr_is_the_mle_when_matrix_inversion_is_feasible():
    """For k-ary RR A is the exact channel; when the unbiased estimate lies inside the simplex it is
    the maximum-likelihood estimate, the fixed point IBU converges to."""
    m = fxdp.make_randomized_response(list(range(4)), "3/5")
    values = np.repeat(np.arange(4), [4000, 3000, 2000, 1000])
    r = m.simulate(values, seed=3)
    mi = m.estimate(r).estimate
    assert mi.min() > 0
    np.testing.assert_allclose(E.ibu(r, m, tol=1e-14).estimate, mi, rtol=0, atol=1e-9)


def test_ibu_clips_where_matrix_inversion_goes_negative():
    m = fxdp.make_unary_encoding(32, 2)
    r = m.simulate(np.zeros(2000, dtype=np.int64), seed=9)      # every device holds item 0
    mi = m.estimate(r).estimate
    theta = E.ibu(r, m).estimate
    assert mi.min() < 0 and theta.min() >= 0
    assert theta[0] == theta.max() and theta[0] > 0.5


def test_ibu_rejects_bad_arguments():
    m = fxdp.make_unary_encoding(4, 1)
    r = m.simulate(np.arange(4), seed=1)
    with pytest.raises(ValueError, match="iterations"):
        E.ibu(r, m, iterations=0)
    with pytest.raises(ValueError, match="iterations"):
        E.ibu(r, m, iterations=2.5)
    with pytest.raises(ValueError, match="tol"):
        E.ibu(r, m, tol=0)
    with pytest.raises(TypeError, match="mechanism"):
        E.ibu(r, "unary_encoding")
    with pytest.raises(ValueError, match="not a frequency oracle"):
        E.ibu([1, 2, 3], fxdp.make_geometric(1, (0, 10)))
    with pytest.raises(ValueError, match="bits"):
        E.ibu(np.full((3, 4), 2), m)
    with pytest.raises(ValueError, match="empty"):
        E.ibu(np.zeros((0, 4), dtype=np.int64), m)


def test_recommend_skips_oracles_realized_without_information():
    """k-ary RR over 65536 items at epsilon 0.5 realizes p = q at 32 bits (epsilon 0): no finite
    variance, so it is not recommended; every listed row has a finite variance."""
    import math
    rows = E.recommend_frequency_oracle(0.5, 65536, 10**6)
    assert "randomized_response" not in [r["kind"] for r in rows]
    assert rows and all(math.isfinite(r["variance"]) and r["epsilon"] > 0 for r in rows)
    assert "randomized_response" in [r["kind"] for r in E.recommend_frequency_oracle(4, 65536, 10**6)]
