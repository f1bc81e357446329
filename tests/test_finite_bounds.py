"""Gazeau et al. bounds as pure math (fxdp.finite_bounds): formulas, conservative rounding, errors."""
import math
from fractions import Fraction

import pytest

from fxdp import finite_bounds as bd


def test_R_values_1d_paper_is_tight_plus_one():
    for L, dt in [(Fraction(1, 2), Fraction(1, 100)), (1, Fraction(1, 5)), (Fraction(1, 64), Fraction(1, 1000))]:
        assert bd.R_paper_1d(L, dt) == bd.R_tight_1d(L, dt) + 1
        assert bd.R_tight_1d(L, dt) == 4 * Fraction(dt) / (L - 2 * Fraction(dt))


def test_R_planar_tight_below_paper_and_matches_definition():
    L, dt = Fraction(1), Fraction(1, 10)
    area_plus = L * L + 4 * L * dt + math.pi * dt * dt
    area_minus = (L - 2 * dt) ** 2
    exact = (area_plus - area_minus) / area_minus
    r = bd.R_tight_planar(L, dt)
    assert exact <= float(r) <= exact + 1e-12
    assert r < bd.R_paper_planar(L, dt) - 1


def test_bounds_are_ordered_and_rounded_up():
    for eps, sens, L, dt in [(Fraction(1, 2), 2, Fraction(1, 2), Fraction(1, 128)),
                             (1, 1, Fraction(1, 32), Fraction(1, 500)), (Fraction(1, 10), 1, 2, Fraction(1, 3))]:
        t, p = bd.tight_bound_1d(eps, sens, L, dt), bd.paper_bound_1d(eps, sens, L, dt)
        assert float(eps) < t < p
        # conservative: >= the float evaluation of the same formula
        R = 4 * dt / (L - 2 * dt)
        ref = float(eps) + math.log1p(float(R) * math.exp(float(eps) * float(L + dt) / sens))
        assert t >= ref and t - ref < 1e-12
        tp, pp = bd.tight_bound_planar(eps, sens, L, dt), bd.paper_bound_planar(eps, sens, L, dt)
        assert t < tp < pp
        assert bd.paper_bound_planar(eps, sens, L, dt, as_printed=True) < pp   # side L < diameter
        # privacy map in d_in steps: eps d_in + the same additive term
        assert bd.tight_bound_1d(eps, sens, L, dt, d_in=3) == pytest.approx(t + 2 * float(eps), abs=1e-12)
        assert bd.tight_bound_1d(eps, sens, L, dt, d_in=0) == 0.0


def test_L_too_small_names_the_smallest_valid_L():
    dt, res = Fraction(3, 100), Fraction(1, 64)
    with pytest.raises(ValueError, match=r"smallest valid L on this grid is 1/16"):
        bd.check_L(Fraction(1, 32), dt, res)
    assert bd.smallest_valid_L(dt, res) == Fraction(4, 64)      # 2 dt = 0.06 -> 4/64 = 0.0625
    assert bd.smallest_valid_L(Fraction(1, 64), res) == Fraction(3, 64)   # strictly greater than 2 dt
    with pytest.raises(ValueError, match="L must be > 2\\*delta_t"):
        bd.R_tight_1d(Fraction(1, 10), Fraction(1, 20))
    with pytest.raises(ValueError):
        bd.paper_bound_1d(1, 1, "x", 0)


def test_grid_constants_1d():
    c = bd.grid_constants_1d(4, Fraction(33, 2), 32)
    # the cell of w_min meets U_r: (w_min + 2 + 1)/2^k >= exp(-D/b) is guaranteed by flooring
    assert c["delta_0"] == Fraction(1, 1 << 33)
    assert c["k_delta0"] == Fraction(4, c["w_min"] - 1)
    assert (c["w_min"] + 1) / 2 ** 32 <= math.exp(-16.5 / 4) + 1e-12
    assert (c["w_min"] + 5) / 2 ** 32 >= math.exp(-16.5 / 4)
    with pytest.raises(ValueError, match="uniform_bits = 8 is too small"):
        bd.grid_constants_1d(1, 10, 8)


def test_grid_constants_planar():
    c = bd.grid_constants_planar(4, Fraction(8), 8, 8)
    assert c["w_max"] == 511 and c["w_min"] % 2 == 1 and c["w_min"] >= 3
    assert c["R_E"] > 8 and c["k_delta0"] > 0 and c["delta_0"] == Fraction(1, 512)
    with pytest.raises(ValueError, match="radius_bits = 2 is too small"):
        bd.grid_constants_planar(1, Fraction(20), 2, 8)
