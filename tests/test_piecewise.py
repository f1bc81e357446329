"""The Piecewise mechanism on a grid (fxdp/mechanisms/readings/piecewise.py): realized parameters,
exactness by enumeration of every bit string, reference / Numba / C parity on the keyed stream,
the exact audit (closed form against enumeration), the unbiased mean and its closed-form
variance, bad input and entropy failure."""
import math
from fractions import Fraction

import pytest

import _grid_mech_checks as G
import fxdp
from _grid_mech_checks import CT, IDS


@pytest.mark.parametrize("eps", [Fraction(1, 2), 1, 2, 4, 8])
def test_realized_epsilon_never_exceeds_the_request_and_rounding_is_minimal(eps):
    for bits, k in ((4, 16), (12, 32)):
        m = fxdp.make_piecewise(0, 1, eps, bits=bits, prob_bits=k)
        G.check_band_rounding(m, eps, bits, k)
        assert m.w == max(1, round(m.N * math.exp(-float(eps) / 2)))


def test_epsilon_that_rounds_to_no_information_names_the_nearest_valid_value():
    with pytest.raises(ValueError, match=r"too small for prob_bits = 8 at bits = 4.*nearest valid epsilon is"):
        fxdp.make_piecewise(0, 1, Fraction(1, 100), bits=4, prob_bits=8)


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("bits, k, eps", [(2, 6, 1), (2, 5, 2), (1, 4, 1)])
def test_every_bit_string_gives_the_exact_distribution(ct, bits, k, eps):
    """Every string of B bits: the constant-time form reads exactly k + bits bits, so the outcome
    counts are the exact pmf times 2^B.  The lazy form's band cell is rejection-sampled when w is
    not a power of two: releases that run out of the B bits (counted) account for the rest, and
    every outcome's count lies in [pmf 2^B - failures, pmf 2^B]."""
    m = fxdp.make_piecewise(0, 10, eps, bits=bits, constant_time=ct, prob_bits=k)
    B = k + bits if ct else k + max(bits, 3 * m.w_bits)
    for i in range(m.N + 1):
        counts, fail = G.bit_string_counts(m, i, B, ct)
        G.assert_counts_are_the_pmf(m.output_pmf(i), counts, fail, B, ct)


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_piecewise(-5, 35, "3/2", constant_time=ct)
    out_nb = G.check_keyed_stream_parity(m, ct_bits=32 + 12 if ct else None, bits_vary=not ct)[3]
    assert out_nb.min() >= 0 and out_nb.max() < m.L


def test_c_and_numba_single_release_match_the_reference():
    from fxdp.mechanisms.readings._kernels_piecewise import release_piecewise
    G.check_single_releases(lambda ct: fxdp.make_piecewise(0, 100, 1, bits=6, constant_time=ct),
                            lambda st, m, ct, i: release_piecewise(st, m.a, m.w, m.prob_bits, m.bits, ct, i))


@pytest.mark.parametrize("bits, k", [(1, 8), (2, 10), (3, 32)])
def test_audit_closed_form_equals_enumeration(bits, k):
    m = fxdp.make_piecewise(0, 1, 2, bits=bits, prob_bits=k)
    rep = G.check_audit_is_the_closed_form(m)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 20,000 devices, both forms: mean error within 4 standard errors, empirical
    variance within [0.7, 1.35] of the closed form, reported standard error within 10 % of it."""
    for ct in CT:
        m = fxdp.make_piecewise(10, 30, 2, constant_time=ct)
        vals, truth = m.synthetic_population(20_000, seed=1)
        se, var = G.check_unbiased_mean(m, vals, truth, 200, 0.7, 1.35)
        assert (abs(se / math.sqrt(var) - 1) < 0.1).all()


def test_closed_form_variance_matches_exact_enumeration_and_the_continuous_mechanism():
    m = fxdp.make_piecewise(0, 1, 1, bits=3, prob_bits=20)
    for i in range(m.N + 1):
        pmf = m.output_pmf(i)
        t = Fraction(2 * i, m.N) - 1
        mean = sum(p * m.alpha * (j + Fraction(1, 2) - Fraction(m.L, 2)) for j, p in pmf.items())
        assert mean == t                                          # unbiased, exactly
        var = sum(p * (m.alpha * (j + Fraction(1, 2) - Fraction(m.L, 2))) ** 2 for j, p in pmf.items()) - t * t
        assert float(var) == pytest.approx(m.variance([float(m.reading(i))]) * 4)
    G.check_variance_tracks_continuous(fxdp.make_piecewise)


def test_bad_input_is_refused_and_nothing_is_released():
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_piecewise(3, 3, 1)
    with pytest.raises(ValueError, match=r"bits must be in \[1, 24\], got 25; the nearest valid value is 24"):
        fxdp.make_piecewise(0, 1, 1, bits=25)
    m = fxdp.make_piecewise(0, 10, 1)
    for bad in (float("nan"), float("-inf")):         # 11 is clamped (test_numeric_rounding)
        with pytest.raises(ValueError, match="never clamped"):
            m(bad)
    with pytest.raises(ValueError, match=r"cell indices in \[0, "):
        m.estimate([0, m.L])


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    m = fxdp.make_piecewise(0, 1, 1, bits=8)
    base = {"a": m.a, "w": m.w, "prob_bits": 32, "bits": 8}
    bad_cfgs = [dict(base, bits=0), dict(base, bits=25), dict(base, prob_bits=1), dict(base, prob_bits=33),
                dict(base, a=0), dict(base, w=0), dict(base, w=257), dict(base, a=(1 << 32) // m.w + 1)]
    G.check_c_refuses("fxdp_piecewise_cfg", ("fxdp_piecewise", "fxdp_piecewise_ct"),
                      [(c, 0) for c in bad_cfgs] + [(base, 257), (base, 0xFFFFFFFF)])


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    G.check_entropy_failure(fxdp.make_piecewise(0, 1, 1, constant_time=ct), monkeypatch)


def test_config_and_cli_kind():
    G.check_config_and_spec(fxdp.mechanisms.make_piecewise, "piecewise", "fxdp_piecewise_ct", 44)
