"""Subset selection (fxdp/mechanisms/oracles/subset_selection.py): realized parameters and the subset size,
exactness by enumeration (every bit string where the draws need no rejection; every draw sequence
otherwise), reference / Numba / C parity on the keyed stream, bit use independent of the input in
the constant-time form, the exact audit (closed form against enumeration), the estimator and its
closed-form variance, bad input and entropy failure."""
import itertools
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
from fxdp.mechanisms.oracles import subset_selection as ss
from fxdp.reports import worst_pair
from fxdp.samplers import reference as ref

CT = [False, True]
IDS = ["lazy", "ct"]


@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1, 2), 1, 2, 4, 8])
def test_realized_epsilon_never_exceeds_the_request_and_rounding_is_minimal(eps):
    for d, bits in [(16, 8), (16, 32), (100, 16), (1024, 32)]:
        try:
            m = fxdp.make_subset_selection(d, eps, bits=bits)
        except ValueError as e:                               # p rounds to k/d at few bits
            assert "too small" in str(e) and bits == 8
            continue
        two_b, k = 1 << bits, m.k
        assert m._ratio == Fraction(m.a_p * (d - k), (two_b - m.a_p) * k) and m.p == Fraction(m.a_p, two_b)
        assert exp_le(m._ratio, eps), (eps, d, bits)           # the realized ratio <= e^eps, certified
        assert m.epsilon <= float(eps) + 1e-15 and m.epsilon == m.privacy_map(1)
        assert m.p * d > k                                     # p > k/d: the report is informative
        a = m.a_p + 1                                          # one step more would exceed eps
        assert a == two_b or not exp_le(Fraction(a * (d - k), (two_b - a) * k), eps)


@pytest.mark.parametrize("d", [2, 3, 5, 16, 100, 1024, 65536])
@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1, 2), 1, 2, 4, 8])
def test_subset_size_is_floor_or_ceil_of_d_over_e_eps_plus_one(d, eps):
    m = fxdp.make_subset_selection(d, eps)
    target = d / (math.exp(float(eps)) + 1)
    assert m.k in {max(1, math.floor(target)), max(1, math.ceil(target))}, (m.k, target)


@pytest.mark.parametrize("d, eps", [(16, 1), (100, "1/2"), (1024, 2), (300, 4)])
def test_subset_size_minimizes_the_realized_variance_among_its_neighbours(d, eps):
    m = fxdp.make_subset_selection(d, eps)
    v = m.variance(0.0, 1000)
    for k in (m.k - 1, m.k + 1):
        if 1 <= k < d:
            assert fxdp.make_subset_selection(d, eps, k=k).variance(0.0, 1000) >= v * (1 - 1e-6)


def test_epsilon_that_rounds_to_k_over_d_names_the_nearest_valid_value():
    with pytest.raises(ValueError, match=r"too small for bits = 8, d = 4, k = 2: p rounds to k/d.*nearest valid "
                                         r"epsilon is 0\.015"):
        fxdp.make_subset_selection(4, Fraction(1, 1000), bits=8, k=2)
    m = fxdp.make_subset_selection(4, "0.016", bits=8, k=2)
    assert m.a_p == 129 and m.epsilon <= 0.016


def _bit_counts(m, x, B):
    counts = Counter()
    for s in range(1 << B):
        src = ReplaySource.from_bits(s, B)
        counts[m.release(src, x)] += 1
        if m.constant_time:
            assert src.bits_used == B
    return {y: Fraction(c, 1 << B) for y, c in counts.items()}


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("d, k", [(2, 1), (3, 1), (3, 2), (5, 1)])
def test_every_bit_string_gives_the_exact_distribution(ct, d, k):
    """Parameters whose uniform draws have power-of-two bounds (Floyd's m - k + 1 .. m and k), so no
    try is rejected: every string of B bits (Floyd's bits + bits + r's bits, the most a release
    reads) is enumerated; each release depends only on the prefix it read, so the counts are the
    exact pmf times 2^B, and the constant-time form reads exactly B bits.  The rejection draws
    (uniform_version = 1, pinned); the fixed budget's 128-bit draws: test_budgeted_form_*."""
    bits = 4
    m = fxdp.make_subset_selection(d, 3, constant_time=ct, bits=bits, k=k, uniform_version=1)
    B = sum((j).bit_length() for j in range(d - 1 - k, d - 1)) + bits + (k - 1).bit_length()
    for x in range(d):
        pmf = m.output_pmf(x)
        assert _bit_counts(m, x, B) == {s: pr for s, pr in pmf.items() if pr}
        assert sum(pr for s, pr in pmf.items() if x in s) == m.p


class _Scripted:
    """Stands in for the samplers: returns scripted draws in order (a list of values)."""

    def __init__(self, values):
        self.values, self.bounds = list(values), []

    def uniform_below(self, src, n):
        self.bounds.append(n)
        return self.values.pop(0)

    def bernoulli(self, src, a, k):
        self.bounds.append("b")
        return self.values.pop(0)


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("d, k", [(4, 2), (5, 2), (6, 3), (7, 4), (6, 1)])
def test_every_draw_sequence_gives_the_exact_distribution(ct, d, k, monkeypatch):
    """Where the bounds are not powers of two (rejection: unbounded bit strings), the uniform draws
    and b are enumerated instead (each exact: tests/test_enumeration.py): every sequence, weighted
    by 1/bound per uniform draw and p or 1 - p for b, gives exactly output_pmf.  The rejection draws
    (uniform_version = 1); the fixed budget's draws, each exactly uniform (tests/test_uniform_below_ct.py),
    go through the same Floyd steps (test_budgeted_form_uses_the_same_steps)."""
    m = fxdp.make_subset_selection(d, 2, constant_time=ct, bits=8, k=k, uniform_version=1)
    floyd = [range(j + 1) for j in range(d - 1 - k, d - 1)]
    for x in range(d):
        got = Counter()
        for draws in itertools.product(*floyd):
            for b in (False, True):
                for r in (range(k) if (ct or b) else [None]):
                    seq = list(draws) + [b] + ([] if r is None else [r])
                    script = _Scripted(seq)
                    monkeypatch.setattr(ref, "uniform_below", script.uniform_below)
                    monkeypatch.setattr(ref, "bernoulli_dyadic", script.bernoulli)
                    monkeypatch.setattr(ref, "bernoulli_dyadic_ct", script.bernoulli)
                    s = m.release(None, x)
                    assert not script.values                       # every scripted draw was used
                    w = Fraction(1, math.prod(len(f) for f in floyd)) * (m.p if b else 1 - m.p)
                    got[s] += w if r is None else w / k
        pmf = m.output_pmf(x)
        assert dict(got) == {s: pr for s, pr in pmf.items() if pr}


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("d, eps, k", [(45, "3/2", None), (1024, 1, None), (7, 1, 6), (2, 1, None)])
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct, d, eps, k):
    m = fxdp.make_subset_selection(d, eps, constant_time=ct, k=k)
    n = 3000
    x = np.random.default_rng(7).integers(0, d, n)
    ids = np.arange(n, dtype=np.uint64) * 977 + 5
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, x, 99, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, x, 99, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert out_nb.shape == (n, m.k) and (out_nb == out_c).all() and (bits_nb == bits_c).all()
    assert out_nb.min() >= 0 and out_nb.max() < d
    if m.k > 1:
        assert (np.diff(out_nb, axis=1) > 0).all()
    for i in range(0, n, 97):
        src = ChaCha20Source(99, int(ids[i]))
        assert m.release(src, int(x[i])) == tuple(out_nb[i])
        assert src.bits_used == bits_nb[i]
    assert (m.simulate(x, 99, device_ids=ids) == out_nb).all()


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("uv", [1, 2])
def test_bit_use_depends_neither_on_the_input_nor_on_inclusion_in_the_constant_time_form(ct, uv):
    """Same streams, inputs changed: both forms read the same bits (Floyd's draws and b do not
    depend on x).  Same streams with b forced to 0 (a_p = 1) and to 1 (a_p = 2^32 - 1): the
    constant-time form reads the same bits (b takes exactly `bits`, r is always drawn), the lazy
    form does not (its bit use reveals whether x is in the report).  uniform_version 2 (issue 32):
    the constant-time form reads one fixed count, 128 (k + 1) + bits, on every stream."""
    m = fxdp.make_subset_selection(100, 1, constant_time=ct, uniform_version=uv)
    ids = np.arange(4000, dtype=np.uint64)
    runs = [dv.c_fleet(m, np.full(4000, x), 3, device_ids=ids)[2] for x in (0, 37, 99)]
    runs.append(_fleet.simulate_detailed(m, np.arange(4000) % 100, 3, device_ids=ids)[2])
    assert all((r == runs[0]).all() for r in runs[1:])
    if ct and uv == 2:
        assert set(runs[0].tolist()) == {128 * (m.k + 1) + m.bits}   # the fixed budget
    else:
        assert len(set(runs[0].tolist())) > 1                  # the stream's rejections vary it
    forced = []
    for a_p in (1, (1 << 32) - 1):
        m.a_p = a_p                                            # bypasses realize(): bit use only
        out_c, _, bits_c, _ = dv.c_fleet(m, np.full(4000, 5), 3, device_ids=ids)
        out_nb, _, bits_nb, _ = _fleet.simulate_detailed(m, np.full(4000, 5), 3, device_ids=ids)
        assert (out_c == out_nb).all() and (bits_c == bits_nb).all()
        assert (out_c == 5).any(axis=1).mean() == (0.0 if a_p == 1 else 1.0)
        forced.append(bits_c)
    assert (forced[0] == forced[1]).all() == ct


def test_c_single_release_matches_the_reference():
    from fxdp import native
    for ct in CT:
        m = fxdp.make_subset_selection(20, 1, constant_time=ct)
        for dev in range(30):
            r = native.new_rng_seeded(3, dev)
            assert dv.c_release(m, r, dev % 20) == m.release(ChaCha20Source(3, dev), dev % 20)


def test_numba_single_release_matches_the_reference():
    from fxdp.mechanisms.oracles._kernels_subset_selection import release_subset_selection
    from fxdp.samplers import _kernels as K
    for ct in CT:
        m = fxdp.make_subset_selection(12, 1, constant_time=ct)
        mark = np.zeros(11, dtype=np.uint8)
        out = np.zeros(m.k, dtype=np.int32)
        for dev in range(20):
            st_nb = K.seed_state(K.new_state(), 5, dev)
            src = ChaCha20Source(5, dev)
            for j in range(3):                                   # three releases on one stream
                s = release_subset_selection(st_nb, m.a_p, m.bits, 12, m.k, m.ct_mode, (dev + j) % 12, mark, out)
                assert s == 0 and tuple(out) == m.release(src, (dev + j) % 12)
                assert not mark.any()
        out[:] = -1
        for a_p, x in [(m.a_p, 12), (m.a_p, -1), (0, 3), (1 << m.bits, 3)]:      # as the C: 0 < a_p < 2^bits
            assert release_subset_selection(st_nb, a_p, m.bits, 12, m.k, m.ct_mode, x, mark, out) == K.ERR_PARAM
        assert (out == -1).all()


@pytest.mark.parametrize("d, k, bits", [(2, 1, 8), (3, 1, 8), (4, 2, 8), (5, 2, 16), (6, 3, 8), (7, 2, 32)])
def test_audit_closed_form_equals_enumeration(d, k, bits):
    m = fxdp.make_subset_selection(d, 2, bits=bits, k=k)
    rep = fxdp.audit(m)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio == m.p / (1 - m.p) * Fraction(d - k, k)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
    assert rep.method == "exact (closed form: p (d - k) / ((1 - p) k))"
    assert sum(m.output_pmf(0).values()) == 1
    with pytest.raises(ValueError, match="d_in must be 1"):
        fxdp.audit(m, d_in=2)


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 20,000 devices (fixed seeds, one fixed population), d = 10 (k = 4 at eps = 1/2),
    Zipf items, both forms: the mean error of every item's estimate is within 4 standard errors of 0,
    and the empirical variance over the fleets is within [0.7, 1.35] of the closed form (a band of
    3.5 standard deviations of a chi-square with 199 degrees of freedom over 199)."""
    for ct in CT:
        m = fxdp.make_subset_selection(10, "1/2", constant_time=ct)
        assert m.k == 4
        values, truth = m.synthetic_population(20_000, seed=1)
        est = np.array([m.estimate(m.simulate(values, seed=s)).estimate for s in range(200)])
        var = m.variance(truth, 20_000)
        err = est - truth
        assert (np.abs(err.mean(axis=0)) < 4 * np.sqrt(var / 200)).all()
        ratio = err.var(axis=0, ddof=1) / var
        assert ((ratio > 0.7) & (ratio < 1.35)).all(), ratio
        rows = m.estimate_rows(m.simulate(values, seed=0), truth)
        assert [r["name"] for r in rows] == [f"frequency[{i}]" for i in range(10)]


def test_inclusion_probabilities_are_p_and_q():
    """The estimator's premise, from the exact pmf: P(i in S | x = i) = p, P(i in S | x != i) = q."""
    m = fxdp.make_subset_selection(7, 1, bits=16, k=3)
    for x in range(7):
        pmf = m.output_pmf(x)
        for i in range(7):
            assert sum(pr for s, pr in pmf.items() if i in s) == (m.p if i == x else m.q)


def test_subset_selection_against_k_rr_and_oue():
    """Closed forms at n = 10^6, eps = 1, d = 1024: subset selection's variance at f = 0 is within
    10% of OUE's (the two are near-optimal there) and far below k-RR's, with k indices per report."""
    n, d = 10**6, 1024
    m = fxdp.make_subset_selection(d, 1)
    oue = fxdp.make_unary_encoding(d, 1)
    assert m.variance(0.0, n) < 1.1 * oue.variance(0.0, n)
    rr = fxdp.make_randomized_response(list(range(d)), (np.e / (np.e + d - 1)))
    p = float(rr.p_realized)
    q = (1 - p) / (d - 1)
    assert m.variance(0.0, n) < q * (1 - q) / (n * (p - q) ** 2) / 50
    assert m.bits_per_report == m.k * 10


def test_recommendation_lists_subset_selection_with_its_report_size():
    from fxdp.estimate import recommend_frequency_oracle
    rows = recommend_frequency_oracle(1, 1024, 10**6)
    r = [r for r in rows if r["kind"] == "subset_selection"]
    m = fxdp.make_subset_selection(1024, 1)
    assert len(r) == 1 and r[0]["bits_per_report"] == m.k * 10 and r[0]["epsilon"] <= 1
    assert r[0]["variance"] == pytest.approx(m.variance(0.0, 10**6))


def test_bad_input_is_refused_and_nothing_is_released():
    with pytest.raises(ValueError, match=r"d must be in \[2, "):
        fxdp.make_subset_selection(1, 1)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 64\]"):
        fxdp.make_subset_selection(4, 0)
    with pytest.raises(ValueError, match="constant_time must be a bool"):
        fxdp.make_subset_selection(4, 1, constant_time=1)
    with pytest.raises(ValueError, match=r"bits must be in \[2, 63\]"):
        fxdp.make_subset_selection(4, 1, bits=64)
    for k in (0, 4, 1.5):
        with pytest.raises(ValueError, match=r"k must be (an integer )?in \[1, 3\]"):
            fxdp.make_subset_selection(4, 1, k=k)
    m = fxdp.make_subset_selection(4, 1)
    for bad in (4, -1, 1.0, True, "1"):
        with pytest.raises(ValueError, match=r"x \(item index\)"):
            m(bad)
    with pytest.raises(ValueError, match=r"item indices in \[0, 3\]"):
        m.simulate([0, 4], seed=1)
    with pytest.raises(ValueError, match="FXDP_SUBSET_SELECTION_MAX_D"):
        fxdp.make_subset_selection(1025, 1).device_spec()
    m2 = fxdp.make_subset_selection(6, 1, k=2)
    with pytest.raises(ValueError, match=r"item indices in \[0, 6\)"):
        m2.estimate([[0, 6]])
    with pytest.raises(ValueError, match=r"n x 2 array"):
        m2.estimate(np.zeros((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="increasing order"):
        m2.estimate([[2, 1]])


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_subset_selection(10, 1)
    base = {"a_p": m.a_p, "d": 10, "k": m.k, "bits": 32}
    bad_cfgs = [dict(base, d=1), dict(base, d=1025), dict(base, k=0), dict(base, k=10), dict(base, a_p=0),
                dict(base, a_p=1 << 32), dict(base, bits=0), dict(base, bits=64)]
    for cfg_d, x in [(c, 0) for c in bad_cfgs] + [(base, 10), (base, 0xFFFFFFFF)]:
        cfg = ffi.new("fxdp_subset_selection_cfg *", cfg_d)
        xin = ffi.new("uint32_t *", x)
        out = ffi.new("uint16_t[16]", [77] * 16)
        r = native.new_rng_seeded(1, 0)
        for fn in (lib.fxdp_subset_selection, lib.fxdp_subset_selection_ct):
            assert fn(r, cfg, xin, out) == 1           # FXDP_ERR_PARAM
            assert list(out) == [77] * 16
            assert native.bits_used(r) == 0
    cfg = ffi.new("fxdp_subset_selection_cfg *", dict(base, d=1024, k=1023))
    out = ffi.new("uint16_t[1023]")
    assert lib.fxdp_subset_selection_ct(native.new_rng_seeded(1, 0), cfg, ffi.new("uint32_t *", 1023), out) == 0
    assert sorted(set(out)) == list(out) and len(out) == 1023


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    from fxdp import native
    m = fxdp.make_subset_selection(40, 1, constant_time=ct, uniform_version=1)   # need <= 16 replay words
    x = np.arange(64) % 40
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)      # the keystream has run out
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()
    with pytest.raises(EntropyError):
        m.release(ReplaySource([]), 3)
    # the replayed words run out at every point of a release: C zeroes out (in place), the failure is
    # sticky (a later call writes nothing)
    need = -(-int(dv.c_fleet(m, [3], 1, device_ids=[0])[2][0]) // 32)
    fn = native.lib.fxdp_subset_selection_ct if ct else native.lib.fxdp_subset_selection
    cfg = m.c_config()
    failed = 0
    for words in range(need + 1):
        r = native.new_rng_replay([(0x9E3779B9 * (i + 1)) & 0xFFFFFFFF for i in range(words)])
        out = native.ffi.new(f"uint16_t[{m.k}]", [0xA5A5] * m.k)
        st = fn(r, cfg.cfg, native.ffi.new("uint32_t *", 3), out)
        assert st in (0, 2)
        if st == 2:
            failed += 1
            assert list(out) == [0] * m.k                 # drawn in place: zeroed on the failure
            out = native.ffi.new(f"uint16_t[{m.k}]", [0xA5A5] * m.k)
            assert fn(r, cfg.cfg, native.ffi.new("uint32_t *", 3), out) == 2 and list(out) == [0xA5A5] * m.k
    assert failed >= need - 1 >= 1


def test_config_and_cli_kind():
    m = fxdp.mechanisms.make_subset_selection(64, 2, constant_time=True)
    assert m.kind == "subset_selection" and m.config() == {"d": 64, "epsilon": 2, "constant_time": True,
                                                           "bits": 32}
    assert fxdp.make_subset_selection(64, 2, k=5).config()["k"] == 5
    spec = m.device_spec()
    assert spec["c_function"] == "fxdp_subset_selection_ct" and spec["output"] == {
        "ctype": "uint16_t", "count": m.k, "min": 0, "max": m.d - 1, "matrix": True}
    assert f"{m.k} uint16 indices per report" in spec["summary"] and "constant time in x and b" in spec["summary"]


@pytest.mark.parametrize("ct", [False, True], ids=["lazy", "ct"])
@pytest.mark.parametrize("d, eps", [(2, 1), (16, 0.5), (37, 2), (300, 1), (1024, 4)])
def test_simulate_support_equals_the_support_of_simulate(d, eps, ct):
    # the counts kernel (variance table at d = 65536: O(k) per device, no n x k reports) against
    # the reports' item counts, over several device chunks (the last one partial), both stream
    # versions; the replaced r-th item (b = 1) is found by selection, not by sorting
    m = fxdp.make_subset_selection(d, eps, constant_time=ct)
    x = (np.arange(1300) * 7) % d
    ids = np.arange(1000, 2300, dtype=np.uint64) * 3
    for seed in (5, fxdp.Seed(5, stream_version=1)):
        want = m.frequency_support(m.simulate(x, seed, device_ids=ids))
        got = m.simulate_support(x, seed, device_ids=ids)
        assert got.n == want.n == 1300 and (got.p, got.q) == (want.p, want.q)
        assert got.counts.dtype == np.int64 and (got.counts == want.counts).all()
        assert got.counts.sum() == 1300 * m.k


def test_simulate_support_releases_nothing_on_entropy_failure_or_bad_input(monkeypatch):
    m = fxdp.make_subset_selection(20, 1)
    with pytest.raises(ValueError, match="d"):
        m.simulate_support([0, 20], seed=1)
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)
    with pytest.raises(EntropyError, match="300 of 300 devices failed; no output released"):
        m.simulate_support(np.arange(300) % 20, seed=1)


def test_budgeted_form_uses_the_same_steps(monkeypatch):
    """uniform_version 2 makes the same Floyd, b and r steps as version 1, each uniform draw by
    uniform_below_ct_or_none (exactly uniform: tests/test_uniform_below_ct.py), so scripted draws
    give the same reports; a draw whose budget runs out is a RangeError after all the draws."""
    from fxdp.errors import RangeError
    for d, k in [(6, 3), (7, 4), (1024, 3)]:
        m1 = fxdp.make_subset_selection(d, 2, constant_time=True, bits=8, k=k, uniform_version=1)
        m2 = fxdp.make_subset_selection(d, 2, constant_time=True, bits=8, k=k)
        assert m2.uniform_version == 2 and "uniform_version" not in m2.config()
        assert m1.config()["uniform_version"] == 1 and "uniform_version=1" in repr(m1)
        rnd = np.random.default_rng(d)
        for _ in range(50):
            seq = [int(rnd.integers(j + 1)) for j in range(d - 1 - k, d - 1)] + [bool(rnd.integers(2)),
                                                                               int(rnd.integers(k))]
            x = int(rnd.integers(d))
            outs = []
            for m, name in ((m1, "uniform_below"), (m2, "uniform_below_ct_or_none")):
                script = _Scripted(seq)
                monkeypatch.setattr(ref, name, script.uniform_below)
                monkeypatch.setattr(ref, "bernoulli_dyadic_ct", script.bernoulli)
                outs.append(m.release(None, x))
                assert not script.values
                monkeypatch.undo()
            assert outs[0] == outs[1]
        script = _Scripted([0] * (k - 1) + [None, True, 0])
        monkeypatch.setattr(ref, "uniform_below_ct_or_none", script.uniform_below)
        monkeypatch.setattr(ref, "bernoulli_dyadic_ct", script.bernoulli)
        with pytest.raises(RangeError):
            m2.release(None, 0)
        assert not script.values                       # every draw was made before failing
        monkeypatch.undo()


def test_budgeted_form_fails_the_same_way_everywhere():
    """Replayed words that reject in every round of the second Floyd draw (d = 4, k = 2: bounds 2
    and 3; w = 0 is the one word bound 3 rejects): reference, Numba and C all fail with RangeError /
    FXDP_ERR_RANGE and release nothing, after reading all (k + 1) 128 + bits bits."""
    from fxdp import native
    from fxdp.errors import RangeError
    from fxdp.mechanisms.oracles._kernels_subset_selection import release_subset_selection
    from fxdp.samplers import _kernels as K
    m = fxdp.make_subset_selection(4, 2, constant_time=True, bits=32, k=2)
    words = [0x12345678] * 4 + [0, 0, 0, 0] + [0xFFFFFFFF] + [0x9ABCDEF0] * 4      # Floyd, Floyd, b, r
    src = ReplaySource(words)
    with pytest.raises(RangeError):
        m.release(src, 1)
    assert src.bits_used == 128 * 3 + 32
    st = K.replay_state(words)
    out = np.full(2, -1, np.int32)
    assert release_subset_selection(st, m.a_p, m.bits, 4, 2, m.ct_mode, 1, np.zeros(3, np.uint8), out) == K.ERR_RANGE
    assert (out == -1).all() and K.bits_used(st) == 128 * 3 + 32
    r = native.new_rng_replay(words)
    o = native.ffi.new("uint16_t[2]", [0xA5A5] * 2)
    assert native.lib.fxdp_subset_selection_ct(r, m.c_config().cfg, native.ffi.new("uint32_t *", 1), o) == 3
    assert list(o) == [0, 0]
    words[7] = 1                                        # accepted: all three agree on a report
    src = ReplaySource(words)
    want = m.release(src, 1)
    st = K.replay_state(words)
    assert release_subset_selection(st, m.a_p, m.bits, 4, 2, m.ct_mode, 1, np.zeros(3, np.uint8), out) == 0
    assert tuple(out) == want
    r = native.new_rng_replay(words)
    assert native.lib.fxdp_subset_selection_ct(r, m.c_config().cfg, native.ffi.new("uint32_t *", 1), o) == 0
    assert tuple(o) == want
