"""The Piecewise mechanism on a grid (fxdp/mechanisms/piecewise.py): realized parameters,
exactness by enumeration of every bit string, reference / Numba / C parity on the keyed stream,
the exact audit (closed form against enumeration), the unbiased mean and its closed-form
variance, bad input and entropy failure."""
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.conservative import exp_le
from fxdp.errors import EntropyError
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms import _fleet
from fxdp.reports import worst_pair

CT = [False, True]
IDS = ["lazy", "ct"]


@pytest.mark.parametrize("eps", [Fraction(1, 2), 1, 2, 4, 8])
def test_realized_epsilon_never_exceeds_the_request_and_rounding_is_minimal(eps):
    for bits, k in ((4, 16), (12, 32)):
        m = fxdp.make_piecewise(0, 1, eps, bits=bits, prob_bits=k)
        two_k = 1 << k
        assert m._ratio == Fraction(m.a << bits, two_k - m.w * m.a)
        assert exp_le(m._ratio, eps)
        assert not exp_le(Fraction((m.a + 1) << bits, two_k - m.w * (m.a + 1)), eps)   # A is the largest
        assert m.epsilon <= float(eps) + 1e-15 and m.epsilon == m.privacy_map(1)
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
        counts, fail = Counter(), 0
        for s in range(1 << B):
            src = ReplaySource.from_bits(s, B)
            try:
                counts[m.release(src, i)] += 1
            except EntropyError:
                fail += 1
                continue
            if ct:
                assert src.bits_used == B
        pmf = m.output_pmf(i)
        assert sum(pmf.values()) == 1
        if fail == 0:
            assert {j: Fraction(c, 1 << B) for j, c in counts.items()} == {j: p for j, p in pmf.items() if p}
        else:
            assert not ct
            for j, p in pmf.items():
                assert p * (1 << B) - fail <= counts[j] <= p * (1 << B)


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_piecewise(-5, 35, "3/2", constant_time=ct)
    vals, _ = m.population(20_000, seed=7, shape="uniform")
    ids = np.arange(20_000, dtype=np.uint64) * 977 + 5
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, vals, 99, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, vals, 99, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert (out_nb == out_c).all() and (bits_nb == bits_c).all()
    assert out_nb.min() >= 0 and out_nb.max() < m.L
    idx = m.grid_indices(vals)
    for j in range(0, 20_000, 97):
        src = ChaCha20Source(99, int(ids[j]))
        assert m.release(src, int(idx[j])) == out_nb[j]
        assert src.bits_used == bits_nb[j]
    if ct:
        assert (bits_nb == 32 + 12).all()
    else:
        assert len(set(bits_nb.tolist())) > 1
    assert (m.simulate_device(idx, 99, device_ids=ids) == out_nb).all()


def test_c_and_numba_single_release_match_the_reference():
    from fxdp import native
    from fxdp.mechanisms._kernels_pm import release_piecewise
    from fxdp.samplers import _kernels as K
    for ct in CT:
        m = fxdp.make_piecewise(0, 100, 1, bits=6, constant_time=ct)
        for dev in range(30):
            reading = (dev * 37) % 101
            i = m.grid_index(reading)
            assert dv.c_release(m, native.new_rng_seeded(3, dev), reading) == m.release(ChaCha20Source(3, dev), i)
            st_nb = K.seed_state(K.new_state(), 5, dev)
            src = ChaCha20Source(5, dev)
            for j in range(3):
                s, y = release_piecewise(st_nb, m.a, m.w, m.prob_bits, m.bits, ct, (i + j) % 65)
                assert s == 0 and y == m.release(src, (i + j) % 65)
        assert release_piecewise(st_nb, m.a, m.w, m.prob_bits, m.bits, ct, 65)[0] == K.ERR_PARAM


@pytest.mark.parametrize("bits, k", [(1, 8), (2, 10), (3, 32)])
def test_audit_closed_form_equals_enumeration(bits, k):
    m = fxdp.make_piecewise(0, 1, 2, bits=bits, prob_bits=k)
    rep = fxdp.audit(m)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 20,000 devices, both forms: mean error within 4 standard errors, empirical
    variance within [0.7, 1.35] of the closed form, reported standard error within 10 % of it."""
    for ct in CT:
        m = fxdp.make_piecewise(10, 30, 2, constant_time=ct)
        vals, truth = m.synthetic_population(20_000, seed=1)
        ests = [m.estimate(m.simulate(vals, seed=s)) for s in range(200)]
        est = np.array([e.estimate for e in ests])
        var = m.variance(vals)
        assert abs(est.mean() - truth) < 4 * math.sqrt(var / 200)
        ratio = est.var(ddof=1) / var
        assert 0.7 < ratio < 1.35, ratio
        se = np.array([e.stderr for e in ests])
        assert (np.abs(se / math.sqrt(var) - 1) < 0.1).all()


def test_closed_form_variance_matches_exact_enumeration_and_the_continuous_mechanism():
    m = fxdp.make_piecewise(0, 1, 1, bits=3, prob_bits=20)
    for i in range(m.N + 1):
        pmf = m.output_pmf(i)
        t = Fraction(2 * i, m.N) - 1
        mean = sum(p * m.alpha * (j + Fraction(1, 2) - Fraction(m.L, 2)) for j, p in pmf.items())
        assert mean == t                                          # unbiased, exactly
        var = sum(p * (m.alpha * (j + Fraction(1, 2) - Fraction(m.L, 2))) ** 2 for j, p in pmf.items()) - t * t
        assert float(var) == pytest.approx(m.variance([float(m.reading(i))]) * 4)
    for eps in (0.5, 1, 2, 4):
        m = fxdp.make_piecewise(0, 1, eps)
        vals, _ = m.population(10_000, seed=3, shape="uniform")
        assert abs(m.variance(vals) / m.continuous_variance(vals) - 1) < 0.02


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
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_piecewise(0, 1, 1, bits=8)
    base = {"a": m.a, "w": m.w, "prob_bits": 32, "bits": 8}
    bad_cfgs = [dict(base, bits=0), dict(base, bits=25), dict(base, prob_bits=1), dict(base, prob_bits=33),
                dict(base, a=0), dict(base, w=0), dict(base, w=257), dict(base, a=(1 << 32) // m.w + 1)]
    for cfg_d, x in [(c, 0) for c in bad_cfgs] + [(base, 257), (base, 0xFFFFFFFF)]:
        cfg = ffi.new("fxdp_pm_cfg *", cfg_d)
        xin = ffi.new("uint32_t *", x)
        out = ffi.new("uint32_t *", 77)
        r = native.new_rng_seeded(1, 0)
        for fn in (lib.fxdp_piecewise, lib.fxdp_piecewise_ct):
            assert fn(r, cfg, xin, out) == 1
            assert out[0] == 77
            assert native.bits_used(r) == 0


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    m = fxdp.make_piecewise(0, 1, 1, constant_time=ct)
    x = np.arange(64) / 64          # on the grid: no rounding draws, the release itself fails
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()


def test_config_and_cli_kind():
    m = fxdp.mechanisms.make_piecewise(-20, 60, 2, constant_time=True)
    assert m.kind == "piecewise" and m.config() == {"lo": -20, "hi": 60, "epsilon": 2, "bits": 12,
                                                   "constant_time": True}
    spec = m.device_spec()
    assert spec["c_function"] == "fxdp_piecewise_ct" and "exactly 44 random bits" in spec["summary"]
