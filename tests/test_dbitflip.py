"""dBitFlip (fxdp/mechanisms/memoized/dbitflip.py): realized parameters (certified, minimal rounding, the
paper's p), exactness by enumeration of every bit string (the sampled buckets and the response),
memoization by derivation, reference / Numba / C parity over rounds, the exact audit, the paper's
estimator and its closed-form variance, IBU, streaming, the wire layout, bad input and entropy
failure."""
from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from fxdp.bitsource import STREAM_VERSION

import fxdp
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.conservative import exp_le
from fxdp.errors import EntropyError
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms.memoized.dbitflip import response_source, sample_buckets, sample_source, secret_from_seed
from fxdp.reports import worst_pair

CT = [False, True]
IDS = ["lazy", "ct"]


@pytest.mark.parametrize("eps", [Fraction(1, 2), 1, 2, "0.9", 8])
@pytest.mark.parametrize("s", [1, 2, 4])
def test_the_realized_epsilon_is_certified_exact_and_p_is_rounded_minimally(eps, s):
    m = fxdp.make_dbitflip(64, 8, eps, sampled_buckets=s)
    two_k = 1 << m.bits
    half = Fraction(eps) / 2
    assert m.a_p + m.a_q == two_k and m.a_p > m.a_q
    assert exp_le(Fraction(m.a_p, m.a_q), half)                        # p/q <= e^(eps/2)
    assert not exp_le(Fraction(m.a_p + 1, m.a_q - 1), half)            # one step closer to 1 would exceed
    e = np.exp(float(half))
    assert float(m.p) == pytest.approx(e / (e + 1), rel=1e-8)          # the paper's p
    bit = Fraction(m.a_p, m.a_q)
    assert m._ratio == (bit ** 2 if s >= 2 else bit)
    assert m.epsilon == m.epsilon_infinite == m.privacy_map(1)
    assert m.epsilon <= float(Fraction(eps)) * (1 if s >= 2 else 0.5) + 1e-15
    assert m.epsilon == pytest.approx(float(Fraction(eps)) * (1 if s >= 2 else 0.5), rel=1e-6)


def _leaves(step, nbits):
    """Counter of step's outcomes over every nbits-bit string on which it finishes within those bits."""
    counts = Counter()
    for v in range(1 << nbits):
        src = ReplaySource.from_bits(v, nbits)
        try:
            y = step(src)
        except EntropyError:
            continue
        if src.bits_used <= nbits:
            counts[tuple(y)] += 1
    return counts


@pytest.mark.parametrize("k, s, nbits", [(5, 2, 11), (4, 3, 8), (6, 1, 9), (3, 3, 6)])
def test_every_bit_string_samples_every_bucket_subset_equally(k, s, nbits):
    """Floyd's draws with rejection: over every string of nbits bits, the runs that finish within
    them give every s-subset of [0, k) the same count (exact uniformity), and they are most of them."""
    counts = _leaves(lambda src: sample_buckets(src, k, s), nbits)
    subsets = list(combinations(range(k), s))
    assert set(counts) == set(subsets)
    assert len(set(counts.values())) == 1
    assert sum(counts.values()) > (1 << nbits) // 2


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_every_bit_string_of_the_response_gives_the_exact_distribution(ct):
    """bits = 3, s = 2, k = 3 buckets of d = 6 items: each J's response read from every 6-bit string
    (lazy draws read at most 3 bits each) has the exact product pmf; composed with the uniform J it is
    output_pmf, whose worst ratio (enumerated) is the claimed epsilon."""
    m = fxdp.make_dbitflip(6, 3, 2, sampled_buckets=2, constant_time=ct, bits=3)
    assert (m.a_p, m.a_q) == (5, 3)
    for x in range(6):
        v = m.bucket(x)
        composed = Counter()
        for J in combinations(range(3), 2):
            counts = _leaves(lambda src: m.respond(src, list(J), v), 6)
            assert sum(counts.values()) == 64
            for b, c in counts.items():
                want = Fraction(1)
                for j, bit in zip(J, b):
                    one = m.p if j == v else m.q
                    want *= one if bit else 1 - one
                assert Fraction(c, 64) == want
                composed[tuple(J) + b] += Fraction(c, 64) / 3
        assert dict(composed) == m.output_pmf(x)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio == Fraction(25, 9)
    assert fxdp.audit(m).epsilon_realized == m.epsilon
    if ct:                                      # exactly bits bits per response bit, whatever x
        for x in range(6):
            src = ReplaySource.from_bits(0, 6)
            m.respond(src, [0, 2], m.bucket(x))
            assert src.bits_used == 6


def test_the_answer_is_memoized_by_bucket_and_the_sampled_buckets_by_device():
    m = fxdp.make_dbitflip(100, 10, 2, sampled_buckets=3)
    secret = secret_from_seed(7, 3)
    J = m.sampled(secret)
    assert J == sample_buckets(sample_source(secret), 10, 3) and J == sorted(set(J)) and len(J) == 3
    first = [m.permanent(secret, x) for x in range(100)]
    assert first == [m.permanent(secret, x) for x in range(100)]          # same (K, x), same answer
    for x in range(100):
        assert first[x][:3] == J                                           # J is the device's, once
        assert first[x] == first[(x // 10) * 10]                           # the same bucket, the same answer
        v = m.bucket(x)
        assert first[x][3:] == m.respond(response_source(secret, v), J, v)
    assert len({tuple(r) for r in first}) > 1
    other = [m.permanent(secret_from_seed(7, 4), x) for x in range(0, 100, 10)]
    assert other != first[::10]
    assert m.report(ChaCha20Source(1), 5, secret) == first[5]              # the round stream is not read


def _reference_rounds(m, x, seed, ids):
    rounds, n = x.shape
    out = [[None] * n for _ in range(rounds)]
    for i in range(n):
        secret = secret_from_seed(seed, int(ids[i]))
        for r in range(rounds):
            out[r][i] = m.report(None, int(x[r, i]), secret)
    return np.array(out)


def _c_rounds(m, x, seed, ids, first_block=0):
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    rounds, n = x.shape
    cc = m.c_config()
    xin = np.ascontiguousarray(x, dtype=np.uint32)
    out = np.zeros((rounds, n, cc.out_count), dtype=np.uint32)
    status = np.zeros(n, np.uint8)
    bits = np.zeros(n, np.uint64)
    key = np.array(fxdp.samplers._kernels.seed_key_words(seed), dtype=np.uint32)
    lib.fxdp_dbitflip_rounds(ffi.from_buffer("uint32_t[]", key), ffi.from_buffer("uint64_t[]", ids), n, rounds,
                             first_block, cc.cfg, int(cc.constant_time), ffi.from_buffer("uint32_t[]", xin),
                             ffi.from_buffer("uint32_t[]", out), ffi.from_buffer("uint8_t[]", status),
                             ffi.from_buffer("uint64_t[]", bits))
    return out.astype(np.int64), status, bits.astype(np.int64)


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("d, k, s", [(13, 13, 1), (40, 7, 3), (50, 5, 5)])
def test_reference_numba_and_c_agree_over_rounds(d, k, s, ct):
    m = fxdp.make_dbitflip(d, k, "5/2", sampled_buckets=s, constant_time=ct)
    n = 3000
    ids = np.arange(n, dtype=np.uint64) * 7919 + 11
    rng = np.random.default_rng(3)
    fixed = rng.integers(0, d, n)
    changing = np.stack([fixed, rng.integers(0, d, n), fixed])
    for values, rounds in [(fixed, 4), (changing, None)]:
        out, st, bits, _ = m.simulate_detailed(values, 21, rounds=rounds, device_ids=ids)
        x = np.broadcast_to(values, (rounds, n)) if rounds else values
        c_out, c_st, c_bits = _c_rounds(m, x, 21, ids)
        assert (st == 0).all() and (c_st == 0).all()
        assert (out == c_out).all() and (bits == c_bits).all() and (bits == 0).all()
        sub = np.arange(0, n, 61)
        assert (_reference_rounds(m, x[:, sub], 21, ids[sub]) == out[:, sub]).all()
        assert (out[0] == out[-1]).all()                        # rounds of one item repeat one answer
        assert (m.simulate(values, 21, rounds=rounds, device_ids=ids) == out).all()
    assert len({tuple(r) for r in out[0]}) > 1
    one = m.simulate(fixed, 21, device_ids=ids)
    assert one.shape == (n, 2 * s) and (one == m.simulate(fixed, 21, rounds=1, device_ids=ids)[0]).all()
    c_out, c_st, c_bits, _ = dv.c_fleet(m, fixed, 21, device_ids=ids)
    assert (c_out == one).all()
    # the round stream is never read: its position is where it started, in Numba and in C
    _, st, bits, _ = m.simulate_detailed(fixed[:50], 21, device_ids=ids[:50], first_block=5)
    _, c_st, c_bits = _c_rounds(m, fixed[None, :50], 21, ids[:50], first_block=5)
    per_block = 256 if STREAM_VERSION == 2 else 512      # output bits per block
    assert (bits == 5 * per_block).all() and (c_bits == bits).all() and (st == 0).all() and (c_st == 0).all()


def test_c_device_api_and_export_release_match_the_reference():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    for ct in CT:
        m = fxdp.make_dbitflip(30, 6, 3, sampled_buckets=4, constant_time=ct)
        cc = m.c_config()
        report = lib.fxdp_dbitflip_report_ct if ct else lib.fxdp_dbitflip_report
        for dev_id in range(12):
            dev = ffi.new("fxdp_longitudinal_device *")
            assert lib.fxdp_longitudinal_provision(native.new_rng_seeded(4, dev_id, 1), dev) == 0
            secret = secret_from_seed(4, dev_id)
            for x in (dev_id, 29, 0):
                out = ffi.new("uint32_t[]", 8)
                assert report(cc.cfg, dev, ffi.new("uint32_t *", x), out) == 0
                assert list(out) == m.permanent(secret, x)
            r = native.new_rng_seeded(4, dev_id)
            assert dv.c_release(m, r, 2) == m.release_export(ChaCha20Source(4, dev_id), 2) == m.permanent(secret, 2)
            assert native.bits_used(r) == 0
        # from a non-keyed rng (replay: 16 words) the secret is drawn from it
        words = [(0x9E3779B9 * (i + 1)) & 0xFFFFFFFF for i in range(16)]
        want = m.release_export(ReplaySource(words), 4)
        assert dv.c_release(m, native.new_rng_replay(words), 4) == want == m.permanent(tuple(words[:8]), 4)


def test_audit_enumeration_and_closed_form():
    for s in (1, 2, 3):
        m = fxdp.make_dbitflip(8, 4, 2, sampled_buckets=s, bits=16)
        rep = fxdp.audit(m)
        assert "enumeration" in rep.method
        assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
        assert rep.witness["epsilon_infinite_realized"] == m.epsilon_infinite == m.epsilon
        assert fxdp.audit(m.permanent_mechanism()).epsilon_realized == m.epsilon_infinite
    big = fxdp.make_dbitflip(1000, 64, 2, sampled_buckets=4)
    rep = fxdp.audit(big)
    assert "closed form" in rep.method and rep.epsilon_realized == big.epsilon
    assert big.bucket(rep.witness["x_prime"]) == 1 and big.bucket(rep.witness["x_prime"] - 1) == 0
    assert big.epsilon_reports(1) == big.epsilon and big.epsilon_reports(10**6) == big.epsilon
    assert big.epsilon_reports(10**6, distinct_items=3) == pytest.approx(3 * big.epsilon)
    assert big.epsilon_reports(2, distinct_items=2) >= 2 * big.epsilon


@pytest.mark.parametrize("s", [1, 3])
def test_the_papers_estimator_is_unbiased_with_the_closed_form_variance(s):
    """200 fleets of 5,000 devices (one Zipf population; every seed gives every device a new secret),
    d = 12 items in 6 buckets, both forms: the mean error of every bucket is within 4 standard
    errors of 0 and the empirical variance within [0.7, 1.35] of the closed form."""
    for ct in CT:
        m = fxdp.make_dbitflip(12, 6, 2, sampled_buckets=s, constant_time=ct)
        values, truth = m.synthetic_population(5_000, seed=1)
        assert truth.shape == (6,) and truth.sum() == pytest.approx(1)
        est = np.array([m.estimate(m.simulate(values, seed=sd)).estimate for sd in range(200)])
        var = m.variance(truth, 5_000)
        err = est - truth
        assert (np.abs(err.mean(axis=0)) < 4 * np.sqrt(var / 200)).all()
        ratio = err.var(axis=0, ddof=1) / var
        assert ((ratio > 0.7) & (ratio < 1.35)).all(), ratio


def test_rounds_ibu_streaming_and_rows():
    m = fxdp.make_dbitflip(64, 8, 4, sampled_buckets=2)
    values, truth = m.synthetic_population(40_000, seed=2)
    reports = m.simulate(values, seed=5, rounds=2)
    ests = m.estimate_rounds(reports)
    se = np.sqrt(m.variance(truth, 40_000))
    for e in ests:
        assert (np.abs(e.estimate - truth) < 5 * se).all()
        assert e.stderr == pytest.approx(se, rel=0.2)
    assert np.array_equal(ests[0].estimate, ests[1].estimate)               # memoized: the same answers
    ibu = fxdp.estimate.ibu(reports[0], m)
    assert ibu.estimate.sum() == pytest.approx(1) and (ibu.estimate >= 0).all()
    assert np.abs(ibu.estimate - truth).max() < 0.05
    stat = m.report_statistic()
    for chunk in np.array_split(reports[0], 3):
        stat.add(chunk)
    rows = stat.estimate_rows(truth)
    assert [r["estimate"] for r in rows] == pytest.approx(list(ests[0].estimate), abs=1e-12)
    assert [r["name"] for r in rows] == [f"frequency[{i}]" for i in range(8)]
    assert rows == m.estimate_rows(reports[0], truth)


def test_wire_layout_round_trips():
    m = fxdp.make_dbitflip(1000, 100, 2, sampled_buckets=3)
    lay = m.report_layout()
    assert [(f.name, f.count, f.lo, f.hi) for f in lay.fields] == [("bucket", 3, 0, 99), ("bit", 3, 0, 1)]
    assert m.bits_per_report == 3 * 7 + 3 == sum(f.count * f.width for f in lay.fields)
    reports = m.simulate(np.arange(1000), seed=1)
    back = m.decode_reports(m.encode_reports(reports))
    assert back.dtype == np.int64 and (back == reports).all()


def test_bad_input_is_refused_and_nothing_is_released():
    make = fxdp.make_dbitflip
    for kw, msg in [(dict(d=1, buckets=2), r"d must be in \[2, "), (dict(d=8, buckets=1), r"buckets must be in \[2, 8\]"),
                    (dict(d=8, buckets=9), r"buckets must be in \[2, 8\]"),
                    (dict(d=8, buckets=4, sampled_buckets=0), r"sampled_buckets must be in \[1, 4\]"),
                    (dict(d=8, buckets=4, sampled_buckets=5), r"sampled_buckets must be in \[1, 4\]"),
                    (dict(d=8, buckets=4, epsilon=0), r"epsilon must be in \(0, 64\]"),
                    (dict(d=8, buckets=4, epsilon=65), r"epsilon must be in \(0, 64\]"),
                    (dict(d=8, buckets=4, constant_time=1), "constant_time must be a bool"),
                    (dict(d=8, buckets=4, bits=64), r"bits must be in \[2, 63\]")]:
        with pytest.raises(ValueError, match=msg):
            make(**{"epsilon": 1, **kw})
    with pytest.raises(ValueError, match="too small for bits = 4.*nearest valid epsilon is") as ei:
        make(8, 4, "0.01", bits=4)
    nearest = float(str(ei.value).split("nearest valid epsilon is ")[1].split(" ")[0])
    assert make(8, 4, nearest, sampled_buckets=2, bits=4).epsilon <= nearest
    with pytest.raises(ValueError, match="too small"):
        make(8, 4, nearest * 0.999, bits=4)
    m = make(8, 4, 1)
    for bad in (8, -1, 1.0, True, "1"):
        with pytest.raises(ValueError, match=r"x \(item index\)"):
            m(bad)
    with pytest.raises(ValueError, match=r"item indices in \[0, 7\]"):
        m.simulate([0, 8], seed=1)
    with pytest.raises(ValueError, match=r"items in \[0, 7\]"):
        m.simulate([[0, 1], [2, 8]], seed=1)
    with pytest.raises(ValueError, match=r"rounds must be in \[1, "):
        m.simulate([0, 1], seed=1, rounds=0)
    with pytest.raises(ValueError, match="FXDP_DBITFLIP_MAX_D"):
        make(65537, 4, 1).device_spec()
    with pytest.raises(ValueError, match="FXDP_DBITFLIP_MAX_S"):
        make(64, 64, 1, sampled_buckets=33).device_spec()
    with pytest.raises(ValueError, match="n x 2"):
        m.estimate(np.zeros((3, 3), np.int64))
    with pytest.raises(ValueError, match=r"increasing buckets in \[0, 3\]"):
        m.estimate([[4, 1]])
    with pytest.raises(ValueError, match=r"increasing buckets in \[0, 3\] and 0/1 bits"):
        m.estimate([[1, 2]])
    with pytest.raises(ValueError, match="increasing"):
        make(8, 4, 1, sampled_buckets=2).estimate([[2, 2, 0, 1]])


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_dbitflip(20, 5, 2, sampled_buckets=2)
    base = m._cfg_dict()
    bad = [dict(base, d=1), dict(base, d=65537, buckets=5), dict(base, buckets=1), dict(base, buckets=21),
           dict(base, sampled=0), dict(base, sampled=6), dict(base, d=64, buckets=64, sampled=33),
           dict(base, a_p=1 << 31), dict(base, a_p=1 << 32), dict(base, bits=1), dict(base, bits=64)]
    cases = [(c, 0) for c in bad] + [(base, 20), (base, 0xFFFFFFFF)]
    for cfg_d, x in cases:
        cfg = ffi.new("fxdp_dbitflip_cfg *", cfg_d)
        out = ffi.new("uint32_t[]", [77] * 80)
        for suffix in ("", "_ct"):
            r = native.new_rng_seeded(1, 0)
            xin = ffi.new("uint32_t *", x)
            assert getattr(lib, f"fxdp_dbitflip{suffix}")(r, cfg, xin, out) == 1           # FXDP_ERR_PARAM
            dev = ffi.new("fxdp_longitudinal_device *")
            assert getattr(lib, f"fxdp_dbitflip_report{suffix}")(cfg, dev, xin, out) == 1
            assert list(out) == [77] * 80 and native.bits_used(r) == 0
    cfg = ffi.new("fxdp_dbitflip_cfg *", base)
    assert lib.fxdp_dbitflip(ffi.NULL, cfg, ffi.new("uint32_t *", 1), ffi.new("uint32_t[]", 4)) == 1


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct):
    """dBitFlip draws only the secret from an rng: a non-keyed rng that runs out before 8 words, or a
    failed one, releases nothing (Python: EntropyError; C: FXDP_ERR_ENTROPY, out untouched)."""
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_dbitflip(12, 4, 2, sampled_buckets=2, constant_time=ct)
    with pytest.raises(EntropyError):
        m.release_export(ReplaySource([1, 2, 3]), 3)
    cc = m.c_config()
    out = ffi.new("uint32_t[]", [77] * 4)
    assert getattr(lib, cc.function)(native.new_rng_replay([1, 2, 3]), cc.cfg, ffi.new("uint32_t *", 3), out) == 2
    assert list(out) == [77] * 4
    with pytest.raises(EntropyError):
        dv.c_release(m, native.new_rng_replay([1, 2, 3, 4, 5, 6, 7]), 3)


def test_config_kind_device_spec_and_paper_mapping():
    m = fxdp.make_dbitflip(1024, 32, 4, sampled_buckets=2, constant_time=True)
    assert m.kind == "dbitflip" and m.config() == {"d": 1024, "buckets": 32, "epsilon": 4, "sampled_buckets": 2,
                                                   "constant_time": True, "bits": 32}
    spec = m.device_spec()
    assert spec["c_function"] == "fxdp_dbitflip_ct" and spec["output"]["count"] == 4
    assert fxdp.registry.get("dbitflip").exportable
    assert fxdp.make_dbitflip(**m.config()).realized() == m.realized()
    assert [m.bucket(x) for x in (0, 31, 32, 1023)] == [0, 0, 1, 31]
    u = fxdp.make_dbitflip(10, 3, 1)
    assert [u.bucket(x) for x in range(10)] == [x * 3 // 10 for x in range(10)]
    assert (u.true_statistic(np.arange(10)) == np.bincount(np.arange(10) * 3 // 10) / 10).all()


def test_c_constant_time_form_counts_do_not_depend_on_the_item(tmp_path):
    """callgrind instruction counts of fxdp_dbitflip_report[_ct] (tests/c/ct_dbf_harness.c, -O2 and
    -Os): for each configuration and each of 4 devices (secrets), 40 items spread over every bucket
    give one count per device in the constant-time form.  With the fixed budget (uniform_version 2,
    the default since issue 32) the count is also the same for every device, at every configuration
    (buckets = 37 and 1000 too, where the rejection draws reject).  Pinned to uniform_version 1: where
    Floyd's bounds are powers of two (buckets = 4, sampled = 1; buckets = 2, sampled = 2) the count is
    the same for every device; elsewhere the sampled buckets' rejections (secret only) differ between
    devices, and the counts with them (so the measurement can fail).  (The lazy Bernoulli compares up to 32 bits at once: from a fresh
    response stream its count is flat on the host, as the export check notes for Hadamard response.)"""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    import ctest_support as cs
    rnd = np.random.default_rng(11)
    configs = [(1000, 4, 1, 32, True), (12, 2, 2, 32, True), (1000, 37, 5, 32, False), (65536, 1000, 32, 16, False)]
    lines, groups = [], []
    for ci, (d, k, s, bits, flat) in enumerate(configs):
        for ct in (0, 1, 2):
            m = fxdp.make_dbitflip(d, k, 2, sampled_buckets=s, constant_time=ct > 0, bits=bits,
                                   uniform_version=2 if ct == 2 else 1)
            for dev in range(4):
                secret = secret_from_seed(99, 1000 * ci + dev)
                xs = list(rnd.integers(0, d, 38)) + [0, d - 1]
                for x in xs:
                    lines.append(f"{ct} {m.a_p:x} {d:x} {k:x} {s:x} {bits:x} "
                                 + " ".join(f"{w:x}" for w in secret) + f" {int(x):x}")
                    groups.append((ci, ct, dev))
    stdin = "\n".join(lines) + "\n"
    for opt in ("-O2", "-Os"):
        exe = cs.compile_c(tmp_path / f"ct_dbf{opt}", [cs.HERE / "ct_dbf_harness.c", *cs.LIB_SOURCES,
                                                      cs.CSRC / "fxdp_mech_dbitflip.c"], ["-std=c99", opt, "-g", "-Wall"])
        counts = cs.callgrind_region_counts(exe, stdin, 2 * len(lines), tmp_path / f"cg{opt}.out")
        by = {}
        for i, g in enumerate(groups):
            for call in (0, 1):                   # each call position on its own, as ct_mech_harness
                by.setdefault(g + (call,), []).append(counts[2 * i + call])
        for ci, (_, _, _, _, flat) in enumerate(configs):
            for call in (0, 1):
                budget = set().union(*[set(by[(ci, 2, dev, call)]) for dev in range(4)])
                assert len(budget) == 1, (opt, configs[ci], call, budget)     # every item, every device
                ct_counts = [set(by[(ci, 1, dev, call)]) for dev in range(4)]
                assert all(len(c) == 1 for c in ct_counts), (opt, configs[ci], call, ct_counts)
                if flat:
                    assert len(set.union(*ct_counts)) == 1, (opt, configs[ci], call, ct_counts)
                if not flat:                      # the measurement can fail: rejections differ by device
                    assert len(set.union(*[set(by[(ci, b, dev, call)]) for dev in range(4) for b in (0, 1)])) > 1


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_the_single_release_kernel_matches_the_reference(ct):
    """release_dbitflip (Numba, one report from a stored secret) against the reference, and its
    refusal of an input outside [0, d) or a wrong output size with nothing written."""
    from fxdp.mechanisms.memoized._kernels_dbitflip import release_dbitflip
    from fxdp.samplers._kernels import ERR_PARAM, OK
    m = fxdp.make_dbitflip(50, 7, 3, sampled_buckets=3, constant_time=ct)
    args = (np.uint64(m.d), np.uint64(m.k), np.uint64(m.s), np.uint64(m.a_p), np.uint64(m.a_q), np.uint64(m.bits), m.ct_mode)
    for dev in range(20):
        secret = secret_from_seed(5, dev)
        key = np.array(secret, dtype=np.uint32)
        for x in (0, dev, 49):
            out = np.zeros(6, np.int64)
            assert release_dbitflip(key, *args, np.int64(x), out) == OK
            assert out.tolist() == m.permanent(secret, x)
    for x, size in ((50, 6), (-1, 6), (3, 5)):
        out = np.full(size, 77, np.int64)
        assert release_dbitflip(key, *args, np.int64(x), out) == ERR_PARAM and (out == 77).all()
