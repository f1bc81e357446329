"""The constant-time bounded discrete Laplace table: construction, exact proof, failure modes."""
import math
from fractions import Fraction

import pytest

from fxdp.conservative import exp_interval
from fxdp.samplers.bounded import exact_max_ratio, make_bounded_laplace_table


def brute_force_max_ratio(table):
    """Enumerate every adjacent input pair and every output (the slow, obvious oracle)."""
    a, b = table.input_bounds
    best = Fraction(1)
    for x in range(a, b):
        p, q = table.output_pmf(x), table.output_pmf(x + 1)
        assert p.keys() == q.keys(), "every output must be reachable from every input"
        for y in p:
            best = max(best, p[y] / q[y], q[y] / p[y])
    return best


CASES = [
    (1, (0, 3), None, 8), (10, (0, 20), None, 16), (Fraction(1, 2), (-5, 5), None, 12),
    (3, (0, 10), (-2, 12), 20), (0.7, (2, 9), (0, 4), 16), (10, (0, 100), None, 32),
    (Fraction(1, 64), (0, 3), None, 32), (100, (0, 5), None, 32),
]


@pytest.mark.parametrize("scale,ib,ob,k", CASES)
def test_table_is_proved_and_exact(scale, ib, ob, k):
    t = make_bounded_laplace_table(scale, ib, ob, k=k)
    assert sum(t.weights) == 1 << k and min(t.weights) >= 1
    assert len(t.thresholds) == len(t.weights) - 1 and t.thresholds[-1] < 1 << k
    assert brute_force_max_ratio(t) == t.max_ratio
    eps = 1 / Fraction(scale)
    # realized <= requested, proved with a certified bound on exp
    assert t.max_ratio <= exp_interval(eps)[0]
    assert math.log(t.max_ratio) <= float(eps) + 1e-12
    assert t.epsilon_realized >= math.log(t.max_ratio)


def test_realized_epsilon_is_close_to_requested():
    t = make_bounded_laplace_table(10, (0, 100), k=32)
    assert 0.0999 < t.epsilon_realized <= 0.1


def test_naive_rounding_breaks_the_censored_tail():
    """Rounding each weight of exp(-|j| eps) to nearest (with the clipped mass dropped)
    exceeds eps at the censored ends: the reason for the tail-aware construction."""
    eps, width, k = Fraction(1, 2), 6, 16
    raw = [math.exp(-abs(j) * 0.5) for j in range(-width, width + 1)]
    z = sum(raw)
    naive = [max(1, round(r / z * (1 << k))) for r in raw]
    ratio = exact_max_ratio(naive, width, (0, width), (0, width))
    assert ratio > exp_interval(eps)[1]


@pytest.mark.parametrize("kwargs,match", [
    (dict(scale=0, input_bounds=(0, 3)), "scale"),
    (dict(scale=-1, input_bounds=(0, 3)), "scale"),
    (dict(scale=float("nan"), input_bounds=(0, 3)), "scale"),
    (dict(scale="one", input_bounds=(0, 3)), "scale"),     # exact strings ("1") are accepted
    (dict(scale=1, input_bounds=(3, 0)), "input_bounds"),
    (dict(scale=1, input_bounds=(0, 1.5)), "input_bounds"),
    (dict(scale=1, input_bounds=(0,)), "input_bounds"),
    (dict(scale=1, input_bounds=(0, 3), output_bounds=(5, 4)), "output_bounds"),
    (dict(scale=1, input_bounds=(0, 1 << 40)), "input_bounds"),
    (dict(scale=1, input_bounds=(0, 100000)), "too wide"),
    (dict(scale=1, input_bounds=(0, 3), k=7), "k must"),
    (dict(scale=1, input_bounds=(0, 3), k=33), "k must"),
    (dict(scale=1, input_bounds=(0, 3), k=True), "k must"),
    (dict(scale=1, input_bounds=(0, 200), k=8), "k = 8"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_bounded_laplace_table(**kwargs)
