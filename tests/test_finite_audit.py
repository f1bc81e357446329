"""Exact audit of the finite-precision Laplace mechanisms: Example 1.1, realized <= tight <= paper
over a grid of (epsilon, L, k, format), structured-vs-direct cross-checks, planar exact and Monte
Carlo, the exact-grid alternatives, timings, dispatch and plots."""
import json
import math
import time
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.audit import audit
from fxdp.mechanisms.finite import audit_finite as af
from fxdp.mechanisms.finite.examples import example_1_1
from fxdp.mechanisms.finite.laplace import (LaplaceFixed, PlanarLaplaceFixed, make_laplace_fixed, make_laplace_grid,
                                 make_naive_laplace_fixed, make_planar_laplace_fixed,
                                 make_planar_laplace_grid)

H = Fraction(1, 2)


def test_example_1_1_naive_is_infinite_snapped_is_within_bounds():
    ex = example_1_1()
    naive = ex["naive_pair"]
    assert naive.epsilon_realized == math.inf
    w = naive.witness
    assert w["x"] == "0" and w["x_prime"] == "33/32" and w["p_prime"].startswith("0/")
    # the distinguishing output ends in binary ...00 (multiple of 4 raw units): r2's outputs never do
    out = Fraction(w["output"])
    assert (out * 64).denominator == 1 and int(out * 64) % 4 == 0
    snapped = ex["snapped_pair"]
    assert snapped.epsilon_realized < math.inf
    assert snapped.epsilon_realized <= snapped.epsilon_bound_tight <= snapped.epsilon_bound_paper
    # the full audits (every neighbouring pair on the grid)
    full_naive = audit(ex["naive"])
    assert full_naive.epsilon_realized == math.inf and full_naive.witness["p_prime"].startswith("0/")
    full = audit(ex["snapped"])
    assert full.conditions["conditions_hold"]
    assert 0.5 <= full.epsilon_realized <= full.epsilon_bound_tight <= full.epsilon_bound_paper


def test_1d_32_bit_exact_audit_under_10_seconds():
    af.audit_finite(make_laplace_fixed(1, (-4, 4), L=Fraction(1, 8), qformat="Q11.4"))   # warm the kernels
    m = make_laplace_fixed(H, (-8, 8), sensitivity=1, L=Fraction(1, 4), qformat="Q15.16", uniform_bits=32)
    t0 = time.perf_counter()
    r = af.audit_finite(m)
    dt = time.perf_counter() - t0
    assert dt < 10, dt
    assert r.extra["total"] == 1 << 32 and "exact" in r.method
    assert r.epsilon_realized <= r.epsilon_bound_tight <= r.epsilon_bound_paper


@pytest.mark.parametrize("trunc", ["exception", "clamp"])
@pytest.mark.parametrize("k", [8, 12])
def test_structured_equals_direct_enumeration(trunc, k):
    m = LaplaceFixed(H, (-4, 4), sensitivity=Fraction(3, 4), L=H, qformat="Q11.4", uniform_bits=k,
                     truncation=trunc, _unchecked=True)
    dist = af._Dist1D(m)
    ratio, witness, method = af._audit_all_1d(m, dist, m.qformat.resolution)
    assert "binary-search" in method
    direct, meta = af._exact_best(af._direct_pairs_1d(m, dist))
    assert ratio == direct


def test_1d_noise_histogram_equals_enumeration():
    m = LaplaceFixed(H, (-4, 4), sensitivity=1, L=H, qformat="Q11.4", uniform_bits=14, _unchecked=True)
    W = m.hi - m.lo + m.step
    N, below, above = af.noise_histogram_1d(m, W)
    vals = np.array([m.noise_from_bits(j) for j in range(1 << 14)])
    inside = vals[np.abs(vals) <= W]
    assert np.array_equal(np.bincount(inside + W, minlength=2 * W + 1), N)
    assert below == int((vals < -W).sum()) and above == int((vals > W).sum())


GRID = [  # (epsilon, sensitivity, bounds, L, format, k, truncation)
    (H, 2, (-8, 8), H, "Q9.6", 32, "exception"),
    (H, 2, (-8, 8), Fraction(1, 4), "Q9.6", 24, "clamp"),
    (1, 1, (-4, 4), Fraction(1, 4), "Q11.4", 16, "exception"),
    (Fraction(1, 4), 1, (-16, 16), 1, "Q11.4", 20, "exception"),
    (2, 1, (-2, 2), Fraction(1, 16), "Q7.8", 32, "exception"),
    (1, Fraction(1, 2), (-1, 1), Fraction(1, 4), "Q7.8", 12, "clamp"),
]


@pytest.mark.parametrize("cfg", GRID)
def test_realized_le_tight_le_paper(cfg):
    eps, sens, bounds, L, q, k, trunc = cfg
    m = make_laplace_fixed(eps, bounds, sensitivity=sens, L=L, qformat=q, uniform_bits=k, truncation=trunc)
    r = af.audit_finite(m)
    assert r.conditions["conditions_hold"]
    assert r.epsilon_realized <= r.epsilon_bound_tight <= r.epsilon_bound_paper, r
    assert r.epsilon_bound_tight <= m.epsilon            # the privacy map (analytic delta_n) is >= tight
    if k <= af.EXHAUSTIVE_MAX_K:
        assert "measured exhaustively" in r.constants["delta_n_source"]
        assert r.constants["delta_n"] <= r.constants["delta_n_analytic"]


@pytest.mark.slow
@pytest.mark.parametrize("eps", [Fraction(1, 4), H, 1, 2])
def test_realized_le_tight_le_paper_grid(eps):
    """Over k x format x L: every configuration the constructor accepts satisfies
    realized <= tight <= paper.  Configurations it rejects (k-bit noise cannot reach any
    box, or L <= 2 delta_t) are counted, and most of the grid must be valid."""
    from fxdp.finite_bounds import grid_constants_1d
    from fxdp.mechanisms.finite.laplace import parse_qformat
    audited, rejected = 0, 0
    for k in [12, 16, 20, 24, 32]:
        for q in ["Q9.6", "Q7.8", "Q11.4"]:
            res = parse_qformat(q).resolution
            b = 1 / Fraction(eps)
            half = None
            for h in (8, 4, 2, 1):      # the widest box of multiples of 1 within the k-bit noise's reach
                try:
                    grid_constants_1d(b, 2 * h + 1, k)
                    half = h
                    break
                except ValueError:
                    continue
            for Lmul in [1, 2, 4]:
                try:
                    assert half is not None
                    m0 = make_laplace_fixed(eps, (-half, half), L=None, qformat=q, uniform_bits=k)
                    L = max(m0.L / Lmul, res)
                    m = make_laplace_fixed(eps, (-half, half), L=L, qformat=q, uniform_bits=k)
                except (AssertionError, ValueError):
                    rejected += 1
                    continue
                r = af.audit_finite(m)
                assert r.epsilon_realized <= r.epsilon_bound_tight <= r.epsilon_bound_paper, r
                audited += 1
    assert audited >= 2 * rejected and audited >= 20, (audited, rejected)


def test_planar_exact_within_bounds_and_monte_carlo_labelled():
    m = make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat="Q11.4", radius_bits=8, angle_bits=8)
    r = audit(m)
    assert "exact" in r.method and r.extra["total"] == 1 << 24
    assert r.conditions["conditions_hold"]
    assert r.epsilon_ideal <= r.epsilon_realized <= r.epsilon_bound_tight <= r.epsilon_bound_paper
    assert r.extra["cordic_err_component"] <= r.extra["cordic_err_bound"]
    mc = af.audit_finite(m, monte_carlo=True, samples=1_000_000, seed=3)
    assert "ESTIMATE" in mc.method and mc.extra["estimate"]
    assert abs(mc.epsilon_realized - r.epsilon_realized) < 0.2


@pytest.mark.slow
def test_planar_exact_3x10_bits():
    m = make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=Fraction(1, 2), qformat="Q11.4", radius_bits=10,
                                  angle_bits=10)
    r = af.audit_finite(m)
    assert "exact" in r.method and r.extra["total"] == 1 << 30
    assert r.epsilon_realized <= r.epsilon_bound_tight <= r.epsilon_bound_paper


def test_grid_alternatives_realize_their_claim():
    g = make_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    r = audit(g)
    assert r.epsilon_realized == r.epsilon_claimed == r.epsilon_bound_tight and r.epsilon_realized <= 0.5
    # brute-force check of the closed form: exact censored pmf (floats), every neighbouring pair
    rho = math.exp(-g.s / g.t)
    lo_g, hi_g = g.lo // g.step, g.hi // g.step

    def pmf(xg):
        p = [(1 - rho) / (1 + rho) * rho ** abs(v - xg) for v in range(lo_g, hi_g + 1)]
        p[0] = sum((1 - rho) / (1 + rho) * rho ** abs(v - xg) for v in range(lo_g - 200, lo_g + 1))
        p[-1] = sum((1 - rho) / (1 + rho) * rho ** abs(v - xg) for v in range(hi_g, hi_g + 200))
        return np.array(p)
    worst = 0.0
    xs = list(range(g.lo, g.hi + 1))
    P = {x: pmf((x + g.half) // g.step) for x in xs}
    for x in xs[::7]:
        for d in range(1, g.delta_raw + 1, 5):
            if x + d <= g.hi:
                worst = max(worst, float(np.max(np.abs(np.log(P[x] / P[x + d])))))
    assert worst <= r.epsilon_realized + 1e-9
    pg = make_planar_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    rp = audit(pg)
    assert rp.epsilon_realized == rp.epsilon_claimed <= 0.5


def test_report_json_keys_and_dispatch():
    m = make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    r = audit(m)
    d = json.loads(json.dumps(r.to_dict()))
    for key in ("epsilon_claimed", "epsilon_realized", "witness", "epsilon_bound_paper", "epsilon_bound_tight",
                "epsilon_ideal", "constants", "timings"):
        assert key in d
    assert "bound (tight)" in str(r)


def test_plots(tmp_path):
    from fxdp.mechanisms.finite.examples import plot_example
    from fxdp.mechanisms.finite.plot import plot_distributions
    assert plot_example(tmp_path / "fig1.png").exists()
    m = make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    assert plot_distributions(m, tmp_path / "d.png").exists()
    p = make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat="Q11.4", radius_bits=8, angle_bits=8)
    assert plot_distributions(p, tmp_path / "p.png").exists()
    with pytest.raises(TypeError, match="not a finite-precision mechanism"):
        plot_distributions(fxdp.make_geometric(1), tmp_path / "g.png")
