"""The geometric's statistic, one rule for both forms (issue 31, point 5; docs/mechanisms.md): a
scalar geometric with bounds estimates the mean of the true values, unbiased under saturation at
the bounds, constant time or lazy; without bounds, or as a vector, it estimates the sum."""
import json
import math

import numpy as np
import pytest

import fxdp
from fxdp.cli import main
from fxdp.estimate import bounded_geometric_mean, geometric_sum
from fxdp.mechanisms.additive.geometric import lazy_end_correction
from fxdp.reportfiles import estimate_files, write_reports

BOUNDED = {"constant time": dict(constant_time=True), "lazy": dict(constant_time=False)}


@pytest.mark.parametrize("form", sorted(BOUNDED))
def test_bounded_scalar_estimates_the_mean_in_both_forms(form):
    m = fxdp.make_geometric(5, bounds=(0, 20), **BOUNDED[form])
    assert m.estimates_mean
    values, truth = m.synthetic_population(5000, 1)
    assert truth == pytest.approx(float(values.mean())) == m.true_statistic(values)
    e = m.estimate(m.simulate(values, seed=2))
    assert e.name == "mean" and abs(e.estimate - truth) < 5 * e.stderr


@pytest.mark.parametrize("m", [fxdp.make_geometric(5), fxdp.make_geometric(5, vector=True, dim=2),
                               fxdp.make_geometric(5, bounds=(0, 20), vector=True, dim=2)],
                         ids=["no bounds", "vector", "bounded vector"])
def test_without_bounds_or_as_a_vector_it_estimates_the_sum(m):
    assert not m.estimates_mean
    values, truth = m.synthetic_population(3000, 1)
    assert truth == float(values.sum()) == m.true_statistic(values)
    e = m.estimate(m.simulate(values, seed=2))
    assert e.name == "sum" and abs(e.estimate - truth) < 5 * e.stderr


def _simulate(capsys, tmp_path, mech):
    cfg = tmp_path / "g.toml"
    cfg.write_text(f"[mechanism]\nkind = \"geometric\"\n{mech}\n")
    assert main(["simulate", str(cfg), "--devices", "20000", "--seed", "4", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["estimates"]


def test_fxdp_simulate_names_the_same_statistic_for_both_forms(capsys, tmp_path):
    rows = {ct: _simulate(capsys, tmp_path, f"scale = \"5/2\"\nbounds = [0, 20]\nconstant_time = {ct}")
            for ct in ("true", "false")}
    for r in rows.values():
        assert [x["name"] for x in r] == ["mean"]
        assert abs(r[0]["estimate"] - r[0]["true"]) < 5 * r[0]["stderr"]
    assert rows["true"][0]["true"] == rows["false"][0]["true"]          # the same population, one mean
    (s,) = _simulate(capsys, tmp_path, "scale = \"5/2\"")
    assert s["name"] == "sum"


@pytest.mark.parametrize("scale,bounds", [(3, (0, 10)), ("5/2", (-4, 4)), (20, (0, 3)), (1, (7, 7))])
def test_lazy_scores_are_unbiased_for_every_input(scale, bounds):
    """E[w(Y) | x] = x for every x in the bounds, with Y = clamp(x + Z) and Z the exact discrete
    Laplace of the lazy form: the end values carry the memoryless tail's mean excess."""
    m = fxdp.make_geometric(scale, bounds=bounds)
    lo, hi = bounds
    rho = math.exp(-m.s / m.t)
    c = lazy_end_correction(m)
    assert c == (0.0 if lo == hi else pytest.approx(rho / (1 - rho)))
    pmf = lambda z: (1 - rho) / (1 + rho) * rho ** abs(z)
    for x in range(lo, hi + 1):
        p_hi = rho ** (hi - x) / (1 + rho)                   # P(Z >= hi - x), hi - x >= 0
        p_lo = rho ** (x - lo) / (1 + rho)                   # P(Z <= lo - x)
        if lo == hi:
            assert bounded_geometric_mean(np.array([lo]), m).estimate == lo
            continue
        inner = sum(pmf(y - x) * y for y in range(lo + 1, hi))
        expect = inner + p_hi * (hi + c) + p_lo * (lo - c)
        assert sum(pmf(y - x) for y in range(lo + 1, hi)) + p_hi + p_lo == pytest.approx(1)
        assert expect == pytest.approx(x, abs=1e-9)


def test_lazy_bounded_mean_corrects_saturation_and_its_stderr_is_right():
    """Every device at the lower bound: the plain mean of the reports (and the old sum / n) is
    pulled toward the middle; the scored mean is not, and its z-scores over 40 fleets have unit
    variance (so the stderr is right)."""
    m = fxdp.make_geometric(4, bounds=(0, 40))
    x = np.zeros(20_000, dtype=np.int64)
    z = []
    for r in range(40):
        y = m.simulate(x, seed=100 + r)
        e = m.estimate(y)
        z.append((e.estimate - 0.0) / e.stderr)
        assert geometric_sum(y, m).estimate / x.size - 0.0 > 20 * e.stderr      # the sum / n is biased
    z = np.array(z)
    assert abs(z.mean()) < 4 / math.sqrt(len(z))
    assert 0.4 < np.mean(z ** 2) < 1.9, np.mean(z ** 2)


@pytest.mark.parametrize("form", sorted(BOUNDED))
def test_report_files_give_the_same_mean(form, tmp_path):
    """fxdp estimate streams reports into the multiset statistic: the same estimate as in memory."""
    m = fxdp.make_geometric(3, bounds=(-5, 5), **BOUNDED[form])
    values, _ = m.synthetic_population(4000, 3)
    y = m.simulate(values, seed=5)
    p = write_reports(m, y, tmp_path / "r.csv")
    (row,) = estimate_files(m, [p], progress=False)["estimates"]
    e = m.estimate(y)
    assert row["name"] == "mean" and (row["estimate"], row["stderr"]) == (e.estimate, e.stderr)
