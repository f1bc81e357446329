"""fxdp.plots: the plotted data are the exact distributions, the loss profile matches the audit,
the estimator error falls as 1/sqrt(n), and the files are PNGs."""
import math
import sys
from fractions import Fraction

import pytest

import fxdp
from fxdp import plots
from fxdp.mechanisms import make_naive_laplace_fixed

PNG = b"\x89PNG\r\n\x1a\n"


def _is_png(path):
    with open(path, "rb") as fh:
        return fh.read(8) == PNG


def _max_abs_loss(pl):
    return max(abs(v) for v in pl.loss if not math.isnan(v))


@pytest.fixture(scope="module")
def rr_bool():
    return fxdp.make_randomized_response_bool(0.75, constant_time=True)


@pytest.fixture(scope="module")
def geo_ct():
    return fxdp.make_geometric(10, bounds=(0, 30), constant_time=True)


# --------------------------------------------------------------------------- output distribution

def test_rr_bool_distribution_exact(rr_bool, tmp_path):
    path = tmp_path / "rr.png"
    d = plots.plot_output_distribution(rr_bool, False, True, path)
    assert d.path == path and _is_png(path)
    assert d.outputs == [False, True]
    assert d.exact_p == [Fraction(3, 4), Fraction(1, 4)]
    assert d.exact_p_prime == [Fraction(1, 4), Fraction(3, 4)]
    assert sum(d.exact_p) == 1 == sum(d.exact_p_prime)


def test_kary_rr_distribution_and_loss(tmp_path):
    m = fxdp.make_randomized_response(["a", "b", "c"], 0.6)
    d = plots.plot_output_distribution(m, path=tmp_path / "rr3.png")
    assert _is_png(tmp_path / "rr3.png")
    assert d.outputs == ["a", "b", "c"]
    assert sum(d.exact_p) == 1 == sum(d.exact_p_prime)
    assert d.exact_p[0] == m.p_realized
    pl = plots.plot_privacy_loss(m, path=tmp_path / "rr3_loss.png")
    assert _max_abs_loss(pl) == pytest.approx(fxdp.audit(m).epsilon_realized, rel=1e-12)


def test_bounded_geometric_distribution_is_the_table(geo_ct, tmp_path):
    d = plots.plot_output_distribution(geo_ct, 5, 6, tmp_path / "g.png")
    assert _is_png(tmp_path / "g.png")
    assert d.outputs == list(range(0, 31))
    assert sum(d.num) == d.den and sum(d.num_prime) == d.den
    assert sum(d.exact_p) == 1
    pmf = geo_ct.table.output_pmf(5)
    assert dict(zip(d.outputs, d.exact_p)) == pmf
    assert d.p.sum() == pytest.approx(1.0, abs=1e-12)


def test_lazy_geometric_closed_form(tmp_path):
    m = fxdp.make_geometric(2, bounds=(-50, 50))
    d = plots.plot_output_distribution(m, 0, 1, tmp_path / "lazy.png")
    assert _is_png(tmp_path / "lazy.png")
    assert not d.exact
    assert d.outputs == list(range(-50, 51))              # the whole (narrow) range
    assert math.fsum(d.p) == pytest.approx(1.0, abs=1e-12)
    assert math.fsum(d.p_prime) == pytest.approx(1.0, abs=1e-12)
    rho = math.exp(-m.s / m.t)
    i = d.outputs.index(3)
    assert d.p[i] == pytest.approx((1 - rho) / (1 + rho) * rho ** 3, rel=1e-12)
    assert d.p[0] == pytest.approx(rho ** 50 / (1 + rho), rel=1e-9)     # censored at the lower bound
    pl = plots.privacy_loss(m, 0, 1)
    assert pl.worst_loss == pytest.approx(m.s / m.t, rel=1e-12)
    # unbounded: a window around the inputs, the rest of the mass reported
    u = plots.output_distribution(fxdp.make_geometric(3), 0, 1)
    assert math.fsum(u.p) + u.mass_outside[0] == pytest.approx(1.0, abs=1e-12)
    assert u.mass_outside[0] < 1e-9


def test_rappor_enumerated_and_large_k_refused(tmp_path):
    m = fxdp.make_rappor(0.5, 2, 4)
    d = plots.plot_output_distribution(m, path=tmp_path / "rappor.png")
    assert _is_png(tmp_path / "rappor.png")
    assert len(d.outputs) == 16 and sum(d.exact_p) == 1 == sum(d.exact_p_prime)
    pl = plots.privacy_loss(m)
    assert _max_abs_loss(pl) == pytest.approx(fxdp.audit(m).epsilon_realized, rel=1e-12)
    with pytest.raises(ValueError, match="k = 11"):
        plots.output_distribution(fxdp.make_rappor(0.5, 2, 11))


def test_fixed_point_laplace_exact(tmp_path):
    from fractions import Fraction as F
    m = fxdp.make_laplace_fixed(epsilon=1, bounds=(-4, 4), qformat="Q9.6", L=F(1, 16))
    d = plots.plot_output_distribution(m, 0, 1, tmp_path / "fixed.png")
    assert _is_png(tmp_path / "fixed.png")
    assert d.exact and d.den == 1 << m.k
    assert sum(d.num) == d.den and sum(d.num_prime) == d.den        # exception mass included
    assert None in d.outputs                                          # the exception output
    pl = plots.plot_privacy_loss(m, 0, 1, tmp_path / "fixed_loss.png")
    assert _is_png(tmp_path / "fixed_loss.png")
    assert 0 < pl.worst_loss <= pl.epsilon_claimed == m.privacy_map(1)


def test_argument_checks(rr_bool):
    with pytest.raises(ValueError, match="both"):
        plots.output_distribution(rr_bool, True, None)
    with pytest.raises(ValueError, match="differ"):
        plots.output_distribution(fxdp.make_geometric(2, bounds=(0, 9)), 3, 3)


# --------------------------------------------------------------------------- privacy loss

def test_rr_bool_loss_equals_audit(rr_bool, tmp_path):
    pl = plots.plot_privacy_loss(rr_bool, path=tmp_path / "loss.png")
    assert _is_png(tmp_path / "loss.png")
    eps = fxdp.audit(rr_bool).epsilon_realized
    assert _max_abs_loss(pl) == pytest.approx(eps, rel=1e-12)
    assert pl.loss[0] == pytest.approx(math.log(3), rel=1e-12) and pl.loss[1] == pytest.approx(-math.log(3))
    assert pl.worst_loss == pytest.approx(eps, rel=1e-12)
    assert pl.epsilon_claimed == rr_bool.epsilon


def test_bounded_geometric_loss_equals_audit(geo_ct, tmp_path):
    rep = fxdp.audit(geo_ct)
    x, xp = rep.witness["x"], rep.witness["x_prime"]
    assert abs(x - xp) == 1
    pl = plots.plot_privacy_loss(geo_ct, x, xp, tmp_path / "gloss.png")
    assert _is_png(tmp_path / "gloss.png")
    assert _max_abs_loss(pl) == pytest.approx(rep.epsilon_realized, rel=1e-9)
    assert pl.worst_loss <= pl.epsilon_claimed == geo_ct.privacy_map(1)
    # the default pair is the audit's witness
    assert plots.privacy_loss(geo_ct).worst_loss == pytest.approx(rep.epsilon_realized, rel=1e-9)
    # d_in = |x - x'|: the claimed epsilon is the privacy map there
    far = plots.privacy_loss(geo_ct, 5, 8)
    assert far.d_in == 3 and far.epsilon_claimed == geo_ct.privacy_map(3)
    assert far.worst_loss <= far.epsilon_claimed


def test_naive_fixed_point_laplace_infinite_loss(tmp_path):
    # Example 1.1: x = 0 and x' = 1 + 2^-5 have disjoint output supports
    m = make_naive_laplace_fixed(Fraction(1, 2), sensitivity=2, qformat="Q9.6")
    pl = plots.plot_privacy_loss(m, 0, 1 + Fraction(1, 32), tmp_path / "naive.png")
    assert _is_png(tmp_path / "naive.png")
    assert pl.worst_loss == math.inf
    assert (pl.loss == math.inf).any() and (pl.loss == -math.inf).any()
    assert not (abs(pl.loss) < math.inf).any()                      # no output shared at all
    d = pl.distribution
    assert sum(d.num) == d.den == sum(d.num_prime)
    assert pl.worst_loss == fxdp.audit(m).epsilon_realized == math.inf


# --------------------------------------------------------------------------- estimator error

def test_estimator_error_falls_as_inverse_sqrt_n(rr_bool, tmp_path):
    sizes = [1000, 10_000, 100_000]
    ee = plots.plot_estimator_error(rr_bool, sizes, tmp_path / "err.png", seed=3, repeats=3)
    assert _is_png(tmp_path / "err.png")
    assert list(ee.sizes) == sizes and ee.errors.shape == (3, 3)
    ratio = ee.stderr[0] / ee.stderr[-1]
    assert 0.8 * 10 < ratio < 1.25 * 10                             # sqrt(100000 / 1000) = 10
    assert ee.rmse[-1] < ee.rmse[0] / 3
    # the errors are of the size the estimator reports
    assert (ee.rmse < 4 * ee.stderr).all()


def test_estimator_error_sums_are_per_device():
    m = fxdp.make_geometric(2)                                      # no bounds: the estimator gives a sum
    ee = plots.plot_estimator_error(m, [1000, 100_000], None, repeats=2)
    assert ee.path is None and ee.per_device == (ee.statistic == "sum")
    assert ee.stderr[0] / ee.stderr[-1] == pytest.approx(10, rel=0.01)


# --------------------------------------------------------------------------- matplotlib missing

def test_missing_matplotlib_raises_with_hint(rr_bool, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    for call in (lambda: plots.plot_output_distribution(rr_bool, False, True, tmp_path / "a.png"),
                 lambda: plots.plot_privacy_loss(rr_bool, False, True, tmp_path / "b.png"),
                 lambda: plots.plot_estimator_error(rr_bool, [1000], tmp_path / "c.png")):
        with pytest.raises(ImportError, match=r"pip install"):
            call()
    assert not any(tmp_path.iterdir())
    # the data alone needs no matplotlib
    assert plots.privacy_loss(rr_bool).worst_loss > 0
