"""Directed-rounding arithmetic: certified exp intervals and upward/downward logs."""
import math
from fractions import Fraction

import pytest

from fxdp.conservative import div_up, exp_interval, exp_le, float_up, log_down, log_up


@pytest.mark.parametrize("q", [0, Fraction(1, 3), 1, -1, Fraction(-7, 2), 20, Fraction(1, 10**9), 700])
def test_exp_interval_brackets_exp(q):
    lo, hi = exp_interval(q)
    assert lo <= hi and hi - lo <= hi * Fraction(1, 2**200)
    # mpmath-free check: ln of the bracket must straddle q within float accuracy
    if abs(q) < 700:
        assert math.isclose(float(lo), math.exp(float(q)), rel_tol=1e-15)
    # monotone consistency: exp(a) * exp(b) brackets exp(a + b)
    lo2, hi2 = exp_interval(2 * Fraction(q))
    assert lo * lo <= hi2 and lo2 <= hi * hi


def test_exp_of_one_is_e():
    lo, hi = exp_interval(1)
    e50 = Fraction(271828182845904523536028747135266249775724709369995, 10**50)
    assert lo <= e50 + Fraction(1, 10**50) and e50 <= hi


@pytest.mark.parametrize("x", [Fraction(3), Fraction(7, 3), Fraction(2**32 - 1, 2**31), Fraction(1, 3), 1.5, 10**30])
def test_log_directed(x):
    up, down = log_up(x), log_down(x)
    assert down <= math.log(float(x)) + 1e-12 and up >= down
    lo_up, _ = exp_interval(Fraction(up))
    _, hi_down = exp_interval(Fraction(down))
    assert lo_up >= Fraction(x) >= hi_down          # certified: down <= ln x <= up
    assert math.nextafter(down, math.inf) >= up or up - down <= 4 * math.ulp(up)


def test_log_up_of_one_is_zero_and_rejects_bad_input():
    assert log_up(1) == 0.0 and log_down(1) == 0.0
    for bad in (0, -1, float("nan"), float("inf"), "2", True):
        with pytest.raises(ValueError):
            log_up(bad)


def test_div_and_float_up():
    assert Fraction(div_up(1, 3)) >= Fraction(1, 3)
    assert Fraction(float_up(Fraction(2, 3))) >= Fraction(2, 3)
    assert float_up(Fraction(1, 2)) == 0.5
    assert exp_le(Fraction(27, 10), 1) and not exp_le(Fraction(272, 100), 1)


def test_log_near_one_is_found_quickly_and_certified():
    """ln(x) for x within 1e-9 .. 1e-15 of 1: float(x) loses the digits of x - 1, so the search
    starts up to ~10^9 ulps from the answer; it gallops (it used to step one ulp at a time and
    hang).  The results stay certified: exp of the bound brackets x."""
    import time

    from fxdp.conservative import exp_interval, log_down, log_up
    t0 = time.perf_counter()
    for k in (30, 40, 50):
        for x in (1 + Fraction(1, 2**k) + Fraction(1, 3 * 2**(k + 20)), 1 - Fraction(1, 3 * 2**k)):
            up, down = log_up(x), log_down(x)
            assert exp_interval(Fraction(up))[0] >= x >= exp_interval(Fraction(down))[1]
            assert down <= up
    assert time.perf_counter() - t0 < 30
