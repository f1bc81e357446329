"""Hadamard response (fxdp/mechanisms/oracles/hadamard_response.py): realized parameters, exactness by
enumeration of every bit string, reference / Numba / C parity on the keyed stream, the exact
audit (closed form against enumeration), the fast Walsh-Hadamard estimator and its closed-form
variance, bad input and entropy failure."""
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
from fxdp.mechanisms.oracles.hadamard_response import fwht, in_c
from fxdp.reports import worst_pair

CT = [False, True]
IDS = ["lazy", "ct"]


@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1, 2), 1, 2, 4, 8, 20])
def test_realized_epsilon_never_exceeds_the_request_and_rounding_is_minimal(eps):
    for bits in (8, 16, 32):
        m = fxdp.make_hadamard_response(16, eps, bits=bits)
        two_k = 1 << bits
        assert m._ratio == Fraction(m.a_p, two_k - m.a_p) and m.p == Fraction(m.a_p, two_k)
        assert exp_le(m._ratio, eps), (eps, bits)               # p/(1-p) <= e^eps, certified
        assert m.epsilon <= float(eps) + 1e-15 and m.epsilon == m.privacy_map(1)
        if m.a_p + 1 < two_k:                                  # one step less noise would exceed eps
            assert not exp_le(Fraction(m.a_p + 1, two_k - m.a_p - 1), eps)


def test_realized_epsilon_examples():
    assert fxdp.make_hadamard_response(10, 1).epsilon == pytest.approx(1, abs=1e-8)
    assert fxdp.make_hadamard_response(10, 1).epsilon <= 1
    m = fxdp.make_hadamard_response(10, 1, bits=8)             # a_p = floor(256 e/(e+1)) = 187
    assert m.a_p == 187 and m.epsilon == pytest.approx(np.log(187 / 69)) and m.epsilon <= 1


def test_epsilon_that_rounds_to_p_one_half_names_the_nearest_valid_value():
    with pytest.raises(ValueError, match=r"too small for bits = 8: p rounds to 1/2.*nearest valid epsilon is 0\.01562"):
        fxdp.make_hadamard_response(4, Fraction(1, 1000), bits=8)
    m = fxdp.make_hadamard_response(4, "0.0158", bits=8)
    assert m.a_p == 129 and m.epsilon <= 0.0158


def test_k_is_the_smallest_power_of_two_above_d():
    for d, k in [(2, 4), (3, 4), (4, 8), (7, 8), (8, 16), (1000, 1024), (1024, 2048), (65535, 65536)]:
        m = fxdp.make_hadamard_response(d, 1)
        assert m.K == k and m.bits_per_report == k.bit_length() - 1


def test_fwht_is_the_sylvester_hadamard_transform():
    rng = np.random.default_rng(1)
    for L in range(0, 7):
        a = rng.integers(-50, 50, 1 << L)
        H = np.array([[(-1) ** bin(r & c).count("1") for c in range(1 << L)] for r in range(1 << L)])
        assert (fwht(a) == H @ a).all()
    with pytest.raises(ValueError, match="power of two"):
        fwht(np.zeros(6))


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("d, eps", [(3, 1), (5, 2)])
def test_every_bit_string_gives_the_exact_distribution(ct, d, eps):
    """bits = 4: every string of log2 K + 4 bits (the most any release reads).  Each release
    depends only on the prefix it read, so the outcome counts over all strings are the exact pmf
    times 2^B; the constant-time form reads exactly B bits always."""
    bits = 4
    m = fxdp.make_hadamard_response(d, eps, constant_time=ct, bits=bits)
    B = m.log2k + bits
    for x in range(d):
        counts = Counter()
        for s in range(1 << B):
            src = ReplaySource.from_bits(s, B)
            counts[m.release(src, x)] += 1
            if ct:
                assert src.bits_used == B
            else:
                assert m.log2k + 1 <= src.bits_used <= B
        pmf = m.output_pmf(x)
        assert {y: Fraction(c, 1 << B) for y, c in counts.items()} == pmf
        assert sum(pr for y, pr in pmf.items() if in_c(x, y)) == m.p


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_hadamard_response(45, "3/2", constant_time=ct)
    x = np.random.default_rng(7).integers(0, 45, 20_000)
    ids = np.arange(20_000, dtype=np.uint64) * 977 + 5
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, x, 99, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, x, 99, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert (out_nb == out_c).all() and (bits_nb == bits_c).all()
    assert out_nb.min() >= 0 and out_nb.max() < 64
    for i in range(0, 20_000, 97):
        src = ChaCha20Source(99, int(ids[i]))
        assert m.release(src, int(x[i])) == out_nb[i]
        assert src.bits_used == bits_nb[i]
    if ct:
        assert (bits_nb == 6 + 32).all()
    else:
        assert len(set(bits_nb.tolist())) > 1
    assert (m.simulate(x, 99, device_ids=ids) == out_nb).all()


def test_c_single_release_matches_the_reference():
    from fxdp import native
    for ct in CT:
        m = fxdp.make_hadamard_response(20, 1, constant_time=ct)
        for dev in range(30):
            r = native.new_rng_seeded(3, dev)
            assert dv.c_release(m, r, dev % 20) == m.release(ChaCha20Source(3, dev), dev % 20)


def test_numba_single_release_matches_the_reference():
    from fxdp.mechanisms.oracles._kernels_hadamard_response import release_hadamard_response
    from fxdp.samplers import _kernels as K
    for ct in CT:
        m = fxdp.make_hadamard_response(12, 2, constant_time=ct)
        for dev in range(20):
            st_nb = K.seed_state(K.new_state(), 5, dev)
            src = ChaCha20Source(5, dev)
            for j in range(3):                                   # three releases on one stream
                s, y = release_hadamard_response(st_nb, m.a_p, m.bits, m.log2k, ct, (dev + j) % 12)
                assert s == 0 and y == m.release(src, (dev + j) % 12)
        assert release_hadamard_response(st_nb, m.a_p, m.bits, m.log2k, ct, 15)[0] == K.ERR_PARAM


@pytest.mark.parametrize("d, bits", [(2, 8), (3, 8), (5, 16), (9, 8)])
def test_audit_closed_form_equals_enumeration(d, bits):
    m = fxdp.make_hadamard_response(d, 2, bits=bits)
    rep = fxdp.audit(m)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio == m.p / (1 - m.p)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
    assert rep.method == "exact (closed form: p / (1 - p))"
    with pytest.raises(ValueError, match="d_in must be 1"):
        fxdp.audit(m, d_in=2)


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 20,000 devices (fixed seeds, one fixed population), d = 8, Zipf items, both
    forms: the mean error of every item's estimate is within 4 standard errors of 0, and the
    empirical variance over the fleets is within [0.7, 1.35] of the closed form: a band of 3.5
    standard deviations of a chi-square with 199 degrees of freedom over 199 (sd 0.1)."""
    for ct in CT:
        m = fxdp.make_hadamard_response(8, 1, constant_time=ct)
        values, truth = m.synthetic_population(20_000, seed=1)
        est = np.array([m.estimate(m.simulate(values, seed=s)).estimate for s in range(200)])
        var = m.variance(truth, 20_000)
        err = est - truth
        assert (np.abs(err.mean(axis=0)) < 4 * np.sqrt(var / 200)).all()
        ratio = err.var(axis=0, ddof=1) / var
        assert ((ratio > 0.7) & (ratio < 1.35)).all(), ratio
        rows = m.estimate_rows(m.simulate(values, seed=0), truth)
        assert [r["name"] for r in rows] == [f"frequency[{i}]" for i in range(8)]


def test_estimator_at_a_large_domain():
    """d = 3000 (K = 4096), 200,000 devices: the transform's S_x equal a direct count for a few
    items, and the estimates' errors are within 5 standard errors (Zipf population, seed 2)."""
    m = fxdp.make_hadamard_response(3000, 2)
    values, truth = m.synthetic_population(200_000, seed=2)
    y = m.simulate(values, seed=3)
    s, n = m.counts_in_c(y)
    for x in (0, 1, 17, 2999):
        assert s[x] == sum(1 for v in np.bincount(y, minlength=m.K).nonzero()[0] if in_c(x, int(v))
                           for _ in range(int(np.bincount(y, minlength=m.K)[v])))
    e = m.estimate(y)
    assert (np.abs(e.estimate - truth) < 5 * np.sqrt(m.variance(truth, n))).all()
    assert e.stderr.shape == (3000,)


def test_hadamard_response_against_oue_and_k_rr():
    """Closed forms at n = 10^6, eps = 1: HR's variance at f = 0 is (1/4)/(n (p - 1/2)^2), within 30%
    of OUE's at d = 1024 with log2 K = 11 bits per report against 1024, and far below k-RR's."""
    n, d = 10**6, 1024
    hr = fxdp.make_hadamard_response(d, 1)
    oue = fxdp.make_unary_encoding(d, 1)
    assert hr.variance(0.0, n) == pytest.approx(0.25 / (n * (float(hr.p) - 0.5) ** 2))
    assert hr.variance(0.0, n) < 1.3 * oue.variance(0.0, n)
    rr = fxdp.make_randomized_response(list(range(d)), (np.e / (np.e + d - 1)))
    p = float(rr.p_realized)
    q = (1 - p) / (d - 1)
    assert hr.variance(0.0, n) < q * (1 - q) / (n * (p - q) ** 2) / 50


def test_recommendation_lists_hadamard_response_with_its_report_size():
    from fxdp.estimate import recommend_frequency_oracle
    rows = recommend_frequency_oracle(1, 1024, 10**6)
    hr = [r for r in rows if r["kind"] == "hadamard_response"]
    assert len(hr) == 1 and hr[0]["bits_per_report"] == 11 and hr[0]["epsilon"] <= 1
    assert hr[0]["variance"] == pytest.approx(fxdp.make_hadamard_response(1024, 1).variance(0.0, 10**6))


def test_bad_input_is_refused_and_nothing_is_released():
    with pytest.raises(ValueError, match=r"d must be in \[2, "):
        fxdp.make_hadamard_response(1, 1)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 64\]"):
        fxdp.make_hadamard_response(4, 0)
    with pytest.raises(ValueError, match="epsilon must be"):
        fxdp.make_hadamard_response(4, 65)
    with pytest.raises(ValueError, match="constant_time must be a bool"):
        fxdp.make_hadamard_response(4, 1, constant_time=1)
    with pytest.raises(ValueError, match=r"bits must be in \[2, 63\]"):
        fxdp.make_hadamard_response(4, 1, bits=64)
    m = fxdp.make_hadamard_response(4, 1)
    for bad in (4, -1, 1.0, True, "1"):
        with pytest.raises(ValueError, match=r"x \(item index\)"):
            m(bad)
    with pytest.raises(ValueError, match=r"item indices in \[0, 3\]"):
        m.simulate([0, 4], seed=1)
    with pytest.raises(ValueError, match="FXDP_HADAMARD_RESPONSE_MAX_D"):
        fxdp.make_hadamard_response(65536, 1).device_spec()
    with pytest.raises(ValueError, match=r"indices in \[0, 8\)"):
        m.estimate([0, 8])
    with pytest.raises(ValueError, match="1-d array"):
        m.estimate(np.zeros((3, 2), dtype=np.int64))


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_hadamard_response(10, 1)
    base = {"a_p": m.a_p, "d": 10, "log2k": 4, "bits": 32}
    bad_cfgs = [dict(base, d=1), dict(base, d=65536, log2k=17), dict(base, log2k=3), dict(base, log2k=5),
                dict(base, log2k=1), dict(base, a_p=1 << 31), dict(base, a_p=1 << 32), dict(base, bits=1),
                dict(base, bits=64), dict(base, bits=0)]
    for cfg_d, x in [(c, 0) for c in bad_cfgs] + [(base, 10), (base, 15), (base, 0xFFFFFFFF)]:
        cfg = ffi.new("fxdp_hadamard_response_cfg *", cfg_d)
        xin = ffi.new("uint32_t *", x)
        out = ffi.new("uint32_t *", 77)
        r = native.new_rng_seeded(1, 0)
        for fn in (lib.fxdp_hadamard_response, lib.fxdp_hadamard_response_ct):
            assert fn(r, cfg, xin, out) == 1           # FXDP_ERR_PARAM
            assert out[0] == 77
            assert native.bits_used(r) == 0
    cfg = ffi.new("fxdp_hadamard_response_cfg *", dict(base, d=65535, log2k=16))
    out = ffi.new("uint32_t *", 77)
    assert lib.fxdp_hadamard_response_ct(native.new_rng_seeded(1, 0), cfg, ffi.new("uint32_t *", 65534), out) == 0


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    m = fxdp.make_hadamard_response(40, 1, constant_time=ct)
    x = np.arange(64) % 40
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)      # the keystream has run out
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()
    with pytest.raises(EntropyError):
        m.release(ReplaySource([]), 3)                           # y (6 bits) cannot be read
    if ct:
        with pytest.raises(EntropyError):
            m.release(ReplaySource([5]), 3)                      # y read; 26 bits left, b needs 32


def test_config_and_cli_kind():
    m = fxdp.mechanisms.make_hadamard_response(64, 2, constant_time=True)
    assert m.kind == "hadamard_response" and m.config() == {"d": 64, "epsilon": 2, "constant_time": True,
                                                            "bits": 32}
    spec = m.device_spec()
    assert spec["c_function"] == "fxdp_hadamard_response_ct" and "7 bits per report" in spec["summary"]
    assert "exactly 39 random bits" in spec["summary"]
