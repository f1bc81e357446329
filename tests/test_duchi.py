"""Duchi et al.'s one-bit mechanism on a grid (fxdp/mechanisms/readings/duchi.py): realized parameters,
exactness by enumeration of every bit string, reference / Numba / C parity on the keyed stream,
the exact audit (closed form against enumeration), the unbiased mean and its closed-form
variance, readings -> grid indices, bad input and entropy failure."""
import math
from fractions import Fraction

import numpy as np
import pytest

import _grid_mech_checks as G
import fxdp
from _grid_mech_checks import CT, IDS
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.conservative import exp_le
from fxdp.errors import EntropyError


@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1, 2), 1, 2, 4, 8, 20])
def test_realized_epsilon_never_exceeds_the_request_and_rounding_is_minimal(eps):
    for k in (8, 16, 32):
        m = fxdp.make_duchi(0, 1, eps, prob_bits=k)
        two_k = 1 << k
        assert m.p == Fraction(m.a_p, two_k) and m._ratio == Fraction(m.a_p, two_k - m.a_p)
        assert exp_le(m._ratio, eps), (eps, k)                   # p/(1-p) <= e^eps, certified
        assert m.epsilon <= float(eps) + 1e-15 and m.epsilon == m.privacy_map(1)
        if m.a_p + 1 < two_k:                                    # one step less noise would exceed eps
            assert not exp_le(Fraction(m.a_p + 1, two_k - m.a_p - 1), eps)


def test_probabilities_are_linear_from_one_minus_p_to_p():
    m = fxdp.make_duchi(-1, 3, 1, bits=4, prob_bits=10)
    pmf = [m.output_pmf(i)[1] for i in range(17)]
    assert pmf[0] == 1 - m.p and pmf[16] == m.p and pmf[8] == Fraction(1, 2)
    assert all(pmf[i + 1] - pmf[i] == (2 * m.p - 1) / 16 for i in range(16))
    # the unbiased position: E[(2y - 1) B] = t_i = 2 i / N - 1 exactly
    assert all((2 * pmf[i] - 1) * m.B == Fraction(2 * i, 16) - 1 for i in range(17))


def test_epsilon_that_rounds_to_p_one_half_names_the_nearest_valid_value():
    with pytest.raises(ValueError, match=r"too small for prob_bits = 8: p rounds to 1/2.*nearest valid epsilon is 0\.01562"):
        fxdp.make_duchi(0, 1, Fraction(1, 1000), prob_bits=8)
    assert fxdp.make_duchi(0, 1, "0.0158", prob_bits=8).a_p == 129


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("bits, k, eps", [(1, 3, 1), (2, 4, 2), (3, 3, "6/10")])
def test_every_bit_string_gives_the_exact_distribution(ct, bits, k, eps):
    """Every string of prob_bits + bits bits (the most any release reads): the outcome counts over
    all strings are the exact pmf times 2^B; the constant-time form reads exactly B bits."""
    m = fxdp.make_duchi(0, 10, eps, bits=bits, constant_time=ct, prob_bits=k)
    B = k + bits
    for i in range(m.N + 1):
        counts, fail = G.bit_string_counts(m, i, B, ct, overread_fails=True)
        assert fail == 0                      # no release fails or reads more than B bits
        G.assert_counts_are_the_pmf(m.output_pmf(i), counts, fail, B, ct)


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_duchi(-5, 35, "3/2", constant_time=ct)
    vals, ids, _, out_nb = G.check_keyed_stream_parity(m, ct_bits=32 + 12 if ct else None, bits_vary=not ct)
    assert set(np.unique(out_nb).tolist()) == {0, 1}
    assert (m.simulate(vals, 99, device_ids=ids) == out_nb).all()


def test_c_and_numba_single_release_match_the_reference():
    from fxdp.mechanisms.readings._kernels_duchi import release_duchi
    G.check_single_releases(lambda ct: fxdp.make_duchi(0, 100, 1, bits=6, constant_time=ct),
                            lambda st, m, ct, i: release_duchi(st, m.base_num, m.slope, m.total_bits, ct, i, 65))


def test_m_call_maps_the_reading_to_the_grid():
    m = fxdp.make_duchi(0, 1, 1, bits=2)                       # levels 0, 1/4, 1/2, 3/4, 1
    assert [m.grid_index(x) for x in (0, 0.1, 0.13, 0.5, Fraction(7, 8), 1)] == [0, 0, 1, 2, 4, 4]
    assert m.reading(3) == Fraction(3, 4)
    assert m(0.3, rng=ChaCha20Source(1, 2)) == m.release(ChaCha20Source(1, 2), 1)


@pytest.mark.parametrize("bits, k", [(1, 4), (2, 8), (3, 32)])
def test_audit_closed_form_equals_enumeration(bits, k):
    m = fxdp.make_duchi(0, 1, 2, bits=bits, prob_bits=k)
    rep = G.check_audit_is_the_closed_form(m)
    assert m._ratio == m.p / (1 - m.p)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
    assert rep.method == "exact (closed form: p / (1 - p))"


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 20,000 devices (fixed seeds, one fixed population), both forms: the mean
    error is within 4 standard errors of 0 and the empirical variance over the fleets is within
    [0.7, 1.35] of the closed form (3.5 sd of a chi-square with 199 degrees of freedom / 199);
    the reported standard error is at least the closed form's (the plug-in is an upper bound)
    and within 10 % of it."""
    for ct in CT:
        m = fxdp.make_duchi(10, 30, 1, constant_time=ct)
        vals, truth = m.synthetic_population(20_000, seed=1)
        se, var = G.check_unbiased_mean(m, vals, truth, 200, 0.7, 1.35)
        assert (se >= math.sqrt(var) * 0.999).all() and (se < 1.1 * math.sqrt(var)).all()
        rows = m.estimate_rows(m.simulate(vals, seed=0), truth)
        assert [r["name"] for r in rows] == ["mean"] and rows[0]["true"] == truth


def test_grid_variance_is_within_two_percent_of_the_continuous_mechanism():
    for eps in (0.5, 1, 2, 4):
        m = fxdp.make_duchi(0, 1, eps)
        vals, _ = m.population(10_000, seed=3, shape="uniform")
        assert 1 <= m.variance(vals) / m.continuous_variance(vals) < 1.02
        assert m.worst_case_variance(10**6) == pytest.approx(0.25 * float(m.B) ** 2 / 10**6)


def test_bad_input_is_refused_and_nothing_is_released():
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_duchi(3, 3, 1)
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_duchi(4, 3, 1)
    with pytest.raises(ValueError, match=r"bits must be in \[1, 24\], got 30; the nearest valid value is 24"):
        fxdp.make_duchi(0, 1, 1, bits=30)
    with pytest.raises(ValueError, match=r"bits must be in \[1, 24\], got 0; the nearest valid value is 1"):
        fxdp.make_duchi(0, 1, 1, bits=0)
    with pytest.raises(ValueError, match=r"prob_bits must be in \[2, 32\]"):
        fxdp.make_duchi(0, 1, 1, prob_bits=33)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 64\]"):
        fxdp.make_duchi(0, 1, 0)
    with pytest.raises(ValueError, match="lo must be finite"):
        fxdp.make_duchi(float("-inf"), 1, 1)
    with pytest.raises(ValueError, match="constant_time must be a bool"):
        fxdp.make_duchi(0, 1, 1, constant_time=1)
    m = fxdp.make_duchi(0, 10, 1)
    for bad in (float("nan"), float("inf")):          # out-of-range readings are clamped (test_numeric_rounding)
        with pytest.raises(ValueError, match="never clamped"):
            m(bad)
        with pytest.raises(ValueError, match="never clamped"):
            m.simulate([1.0, bad], seed=1)
    for bad in (True, "1", None):
        with pytest.raises(ValueError, match=r"x \(reading\) must be a number"):
            m(bad)
    with pytest.raises(ValueError, match=r"grid indices in \[0, 4096\]"):
        m.simulate_device([0, 4097], seed=1)
    with pytest.raises(ValueError, match=r"bits \(0 or 1\)"):
        m.estimate([0, 2])


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_duchi(0, 1, 1, bits=8)
    base = {"a_p": m.a_p, "prob_bits": 32, "bits": 8}
    bad_cfgs = [dict(base, bits=0), dict(base, bits=25), dict(base, prob_bits=1), dict(base, prob_bits=33),
                dict(base, a_p=1 << 31), dict(base, a_p=1 << 32), dict(base, a_p=0)]
    G.check_c_refuses("fxdp_duchi_cfg", ("fxdp_duchi", "fxdp_duchi_ct"),
                      [(c, 0) for c in bad_cfgs] + [(base, 257), (base, 0xFFFFFFFF)], out_type="uint8_t *")
    out = ffi.new("uint8_t *", 77)
    cfg = ffi.new("fxdp_duchi_cfg *", base)
    assert lib.fxdp_duchi_ct(native.new_rng_seeded(1, 0), cfg, ffi.new("uint32_t *", 256), out) == 0


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    m = fxdp.make_duchi(0, 1, 1, constant_time=ct)
    G.check_entropy_failure(m, monkeypatch)
    with pytest.raises(EntropyError):
        m.release(ReplaySource([]), 3)
    if ct:
        with pytest.raises(EntropyError):
            m.release(ReplaySource([5]), 3)                      # 32 bits; the draw needs 44


def test_config_and_cli_kind():
    _, spec = G.check_config_and_spec(fxdp.mechanisms.make_duchi, "duchi", "fxdp_duchi_ct", 44)
    assert spec["output"] == {"ctype": "uint8_t", "count": 1, "min": 0, "max": 1}
