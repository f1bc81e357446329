"""Unary encoding (OUE / SUE, fxdp/mechanisms/oracles/unary_encoding.py): realized parameters, exactness by
enumeration of every bit string, reference / Numba / C parity on the keyed stream, the exact
audit, the estimator and its closed-form variance, bad input and entropy failure."""
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
from fxdp.mechanisms.oracles.unary_encoding import realize
from fxdp.reports import worst_pair

FORMS = [(opt, ct) for opt in (True, False) for ct in (False, True)]
IDS = [f"{'oue' if o else 'sue'}_{'ct' if c else 'lazy'}" for o, c in FORMS]


@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1, 2), 1, 2, 4, 8, 20])
@pytest.mark.parametrize("optimized", [True, False])
def test_realized_epsilon_never_exceeds_the_request_and_rounding_is_minimal(eps, optimized):
    for bits in (8, 16, 32):
        m = fxdp.make_unary_encoding(16, eps, optimized=optimized, bits=bits)
        two_k = 1 << bits
        assert exp_le(m._ratio, eps), (eps, bits)             # p(1-q)/((1-p)q) <= e^eps, certified
        assert m.epsilon <= float(eps) + 1e-15 and m.epsilon == m.privacy_map(1)
        if optimized:
            assert m.a_p == two_k // 2
            if m.a_q > 1:                                     # one step less noise would exceed eps
                worse = Fraction(m.a_p * (two_k - m.a_q + 1), (two_k - m.a_p) * (m.a_q - 1))
                assert not exp_le(worse, eps) or worse <= m._ratio
        else:
            assert m.a_p + m.a_q == two_k
            if m.a_p + 1 < two_k:
                worse = Fraction((m.a_p + 1) ** 2, (two_k - m.a_p - 1) ** 2)
                assert not exp_le(worse, eps)


def test_epsilon_that_rounds_to_no_information_names_the_nearest_valid_value():
    with pytest.raises(ValueError, match=r"too small for bits = 8.*nearest valid epsilon is 0\.01562"):
        fxdp.make_unary_encoding(4, Fraction(1, 1000), bits=8)
    m = fxdp.make_unary_encoding(4, "0.0158", bits=8)
    assert m.epsilon <= 0.0158


@pytest.mark.parametrize("optimized, ct", FORMS, ids=IDS)
def test_every_bit_string_gives_the_exact_distribution(optimized, ct):
    """d = 3 items, bits = 4: every string of d*bits = 12 bits (the most any release reads).
    Each release depends only on the prefix it read, so the outcome counts over all 2^12
    strings are the exact pmf times 2^12; the constant-time form reads exactly 12 bits always."""
    d, bits = 3, 4
    m = fxdp.make_unary_encoding(d, 1, optimized=optimized, constant_time=ct, bits=bits)
    B = d * bits
    for x in range(d):
        counts = Counter()
        for s in range(1 << B):
            src = ReplaySource.from_bits(s, B)
            counts[tuple(m.release(src, x))] += 1
            if ct:
                assert src.bits_used == B
            else:
                assert src.bits_used <= B
        pmf = m.output_pmf(x)
        assert {y: Fraction(c, 1 << B) for y, c in counts.items()} == {y: p for y, p in pmf.items() if p}


@pytest.mark.parametrize("optimized, ct", FORMS, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(optimized, ct):
    m = fxdp.make_unary_encoding(45, "3/2", optimized=optimized, constant_time=ct)
    x = np.random.default_rng(7).integers(0, 45, 20_000)
    ids = np.arange(20_000, dtype=np.uint64) * 977 + 5
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, x, 99, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, x, 99, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert (out_nb == out_c).all() and (bits_nb == bits_c).all()
    for i in range(0, 20_000, 97):
        src = ChaCha20Source(99, int(ids[i]))
        assert m.release(src, int(x[i])) == out_nb[i].tolist()
        assert src.bits_used == bits_nb[i]
    if ct:
        assert (bits_nb == 45 * 32).all()
    else:
        assert len(set(bits_nb.tolist())) > 1
    assert (m.simulate(x, 99, device_ids=ids) == out_nb).all()


def test_c_single_release_matches_the_reference():
    from fxdp import native
    for optimized, ct in FORMS:
        m = fxdp.make_unary_encoding(20, 1, optimized=optimized, constant_time=ct)
        for dev in range(30):
            r = native.new_rng_seeded(3, dev)
            assert dv.c_release(m, r, dev % 20) == m.release(ChaCha20Source(3, dev), dev % 20)


@pytest.mark.parametrize("d, bits", [(2, 8), (4, 8), (5, 16)])
@pytest.mark.parametrize("optimized", [True, False])
def test_audit_product_form_equals_enumeration(d, bits, optimized):
    m = fxdp.make_unary_encoding(d, 2, optimized=optimized, bits=bits)
    rep = fxdp.audit(m)
    ratio, witness = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
    assert rep.method == "exact (per-item product form)"
    with pytest.raises(ValueError, match="d_in must be 1"):
        fxdp.audit(m, d_in=2)


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 20,000 devices (fixed seeds, one fixed population), d = 8, Zipf items: the mean
    error of every item's estimate is within 4 standard errors of 0, and the empirical variance over
    the fleets is within [0.7, 1.35] of the closed form: a band of 3.5 standard deviations of a
    chi-square with 199 degrees of freedom over 199 (sd 0.1)."""
    for optimized in (True, False):
        m = fxdp.make_unary_encoding(8, 1, optimized=optimized)
        values, truth = m.synthetic_population(20_000, seed=1)
        est = np.array([m.estimate(m.simulate(values, seed=s)).estimate for s in range(200)])
        var = m.variance(truth, 20_000)
        err = est - truth
        assert (np.abs(err.mean(axis=0)) < 4 * np.sqrt(var / 200)).all()
        ratio = err.var(axis=0, ddof=1) / var
        assert ((ratio > 0.7) & (ratio < 1.35)).all(), ratio
        rows = m.estimate_rows(m.simulate(values, seed=0), truth)
        assert [r["name"] for r in rows] == [f"frequency[{i}]" for i in range(8)]


def test_oue_beats_k_ary_rr_at_large_d():
    n, d, eps = 100_000, 256, 1
    oue = fxdp.make_unary_encoding(d, eps)
    rr = fxdp.make_randomized_response(list(range(d)), (np.e / (np.e + d - 1)))
    p, t = float(rr.p_realized), d
    q = (1 - p) / (t - 1)
    var_rr = q * (1 - q) / (n * (p - q) ** 2)        # f = 0
    assert oue.variance(0.0, n) < var_rr / 10


def test_bad_input_is_refused_and_nothing_is_released():
    with pytest.raises(ValueError, match=r"d must be in \[2, "):
        fxdp.make_unary_encoding(1, 1)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 64\]"):
        fxdp.make_unary_encoding(4, 0)
    with pytest.raises(ValueError, match="epsilon must be"):
        fxdp.make_unary_encoding(4, 65)
    with pytest.raises(ValueError, match="optimized must be a bool"):
        fxdp.make_unary_encoding(4, 1, optimized=1)
    m = fxdp.make_unary_encoding(4, 1)
    for bad in (4, -1, 1.0, True, "1"):
        with pytest.raises(ValueError, match=r"x \(item index\)"):
            m(bad)
    with pytest.raises(ValueError, match=r"item indices in \[0, 3\]"):
        m.simulate([0, 4], seed=1)
    with pytest.raises(ValueError, match="FXDP_UNARY_ENCODING_MAX_D"):
        fxdp.make_unary_encoding(1025, 1).device_spec()
    with pytest.raises(ValueError, match="n x d = n x 4"):
        m.estimate(np.zeros((3, 5)))


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_unary_encoding(8, 1)
    base = {"a_p": m.a_p, "a_q": m.a_q, "d": 8, "bits": 32}
    bad_cfgs = [dict(base, d=1), dict(base, d=1025), dict(base, a_q=0), dict(base, a_q=m.a_p),
                dict(base, a_p=1 << 32), dict(base, bits=0), dict(base, bits=64)]
    for cfg_d, x in [(c, 0) for c in bad_cfgs] + [(base, 8), (base, 0xFFFFFFFF)]:
        cfg = ffi.new("fxdp_unary_encoding_cfg *", cfg_d)
        xin = ffi.new("uint32_t *", x)
        out = ffi.new("uint8_t[1024]", [7] * 1024)
        r = native.new_rng_seeded(1, 0)
        for fn in (lib.fxdp_unary_encoding, lib.fxdp_unary_encoding_ct):
            assert fn(r, cfg, xin, out) == 1           # FXDP_ERR_PARAM
            assert list(out[0:8]) == [7] * 8
            assert native.bits_used(r) == 0


@pytest.mark.parametrize("optimized, ct", FORMS, ids=IDS)
def test_entropy_failure_releases_nothing(optimized, ct, monkeypatch):
    m = fxdp.make_unary_encoding(40, 1, optimized=optimized, constant_time=ct)
    x = np.arange(64) % 40
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)      # the keystream has run out
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()
    with pytest.raises(EntropyError):
        m.release(ReplaySource([1, 2]), 3)                       # 64 bits are not enough for 40 items


def test_norm_sub_is_the_projection_onto_the_simplex():
    from fxdp.estimate import norm_sub
    rng = np.random.default_rng(3)
    for _ in range(200):
        f = rng.normal(0.1, 0.3, rng.integers(2, 30))
        g = norm_sub(f)
        assert (g >= 0).all() and abs(g.sum() - 1) < 1e-12
        # g = max(f - delta, 0) for one delta, and no other simplex point is closer (random probes)
        delta = (f - g)[g > 0]
        assert np.ptp(delta) < 1e-12
        for _ in range(20):
            h = rng.dirichlet(np.ones(f.size))
            assert np.sum((f - g) ** 2) <= np.sum((f - h) ** 2) + 1e-12
    with pytest.raises(ValueError, match="frequencies must be a 1-d array"):
        norm_sub([1.0])


def test_k_ary_rr_variance_matches_the_empirical_one():
    m = fxdp.make_randomized_response(list(range(6)), "1/2")
    values, truth = m.synthetic_population(20_000, seed=2)
    est = np.array([m.estimate(m.simulate(values, seed=s)).estimate for s in range(200)])
    ratio = (est - truth).var(axis=0, ddof=1) / m.variance(truth, 20_000)
    assert ((ratio > 0.7) & (ratio < 1.35)).all(), ratio


def test_recommendation_follows_the_closed_forms():
    from fxdp.estimate import recommend_frequency_oracle
    small = recommend_frequency_oracle(1, 4, 10**6)
    large = recommend_frequency_oracle(1, 1024, 10**6)
    assert small[0]["kind"] == "randomized_response"          # d < 3 e^eps + 2: k-RR wins
    # subset selection (k = 275) edges out OUE by a fraction of a percent at d = 1024, as in the literature
    assert [r["kind"] for r in large[:2]] == ["subset_selection", "unary_encoding"]
    assert large[1]["config"]["optimized"] is True and large[0]["variance"] > 0.99 * large[1]["variance"]
    assert large[-1]["kind"] == "randomized_response" and large[-1]["variance"] > 50 * large[0]["variance"]
    assert all(r["epsilon"] <= 1 for r in small + large)
    with pytest.raises(ValueError, match="d must be"):
        recommend_frequency_oracle(1, 1, 100)


@pytest.mark.parametrize("optimized, ct", FORMS, ids=IDS)
def test_simulate_support_equals_the_support_of_simulate(optimized, ct):
    # the O(d)-memory fleet (variance table at d = 65536) against the n x d reports' column sums,
    # over several device chunks (the last one partial), both stream versions
    m = fxdp.make_unary_encoding(37, 1.5, optimized=optimized, constant_time=ct)
    x = (np.arange(1500) * 7) % 37
    ids = np.arange(1000, 2500, dtype=np.uint64)
    for seed in (3, fxdp.Seed(3, stream_version=1)):
        want = m.frequency_support(m.simulate(x, seed, device_ids=ids))
        got = m.simulate_support(x, seed, device_ids=ids)
        assert got.n == want.n == 1500 and (got.p, got.q) == (want.p, want.q)
        assert got.counts.dtype == np.int64 and (got.counts == want.counts).all()


def test_simulate_support_releases_nothing_on_entropy_failure_or_bad_input(monkeypatch):
    m = fxdp.make_unary_encoding(20, 1)
    with pytest.raises(ValueError, match="d"):
        m.simulate_support([0, 20], seed=1)
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)
    with pytest.raises(EntropyError, match="300 of 300 devices failed; no output released"):
        m.simulate_support(np.arange(300) % 20, seed=1)

