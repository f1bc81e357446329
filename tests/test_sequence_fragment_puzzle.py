"""The Sequence Fragment Puzzle (issue 34): the report is the position, the fragment sketch's
release of the masked fragment, then the word sketch's release, on one stream; epsilon is the two
sketches' realized epsilons composed and rounded up, never above the request, and the audit and the
enumeration of every report reach it; Python = Numba = C (host fleet and single release); the
fragment masks keep the sketch's errors within its standard error; discovery finds a fleet's
frequent strings without a candidate list; bad input is refused."""
from fractions import Fraction

import numpy as np
import pytest

from fxdp import strhash
from fxdp.bitsource import ChaCha20Source
from fxdp.conservative import log_up
from fxdp.mechanisms.strings.count_mean_sketch import make_count_mean_sketch
from fxdp.mechanisms.strings.sequence_fragment_puzzle import WORD_HASH_INDEX, make_sequence_fragment_puzzle
from fxdp.samplers import reference as ref

from _string_kind_checks import check_c_refuses, check_cli_round_trip_and_discovery, check_fleet_c_and_reference

CASES = [dict(epsilon=4, max_length=6, width=16, hashes=4),
         dict(epsilon=3, max_length=5, width=16, hashes=4, fragment_width=8, constant_time=True, bits=16),
         dict(epsilon=4, max_length=8, width=64, hashes=300, hadamard=True, constant_time=True, bits=16),
         dict(epsilon=2, max_length=7, width=64, hashes=16, fragment_width=1024, hadamard=True)]


@pytest.mark.parametrize("ct", [False, True])
def test_the_report_is_the_position_then_the_two_sketches(ct):
    m = make_sequence_fragment_puzzle(6, max_length=9, width=32, hashes=5, fragment_share=Fraction(1, 3),
                                      constant_time=ct)
    assert m.positions == 5
    frag = make_count_mean_sketch(32, 5, 2, max_length=3, constant_time=ct)
    word = make_count_mean_sketch(32, 5, 4, max_length=9, constant_time=ct)
    for seed in range(25):
        s = f"w{seed}-{'z' * (seed % 8)}".encode()[:9]
        a, b = ChaCha20Source(seed), ChaCha20Source(seed)
        p, fr, wr = m.release(a, s)
        assert p == (ref.uniform_below_ct(b, 5) if ct else ref.uniform_below(b, 5))
        r = strhash.hash32(m.hash_key, WORD_HASH_INDEX, s, 9) >> 24
        x = strhash.encode(s, 9) + b"\x00"
        f = bytes([r, x[2 * p] ^ r, x[2 * p + 1] ^ (((r << 4) | (r >> 4)) & 0xFF)])
        assert m.fragment_string(s, p) == f and m.word_hash(s) == r
        assert fr == frag.release(b, f) and wr == word.release(b, s)
        assert a.bits_used == b.bits_used


@pytest.mark.parametrize("kw", CASES)
def test_epsilon_is_the_composed_realized_epsilon_and_the_audit_reaches_it(kw):
    m = make_sequence_fragment_puzzle(**kw)
    f, w = m.fragment, m.word
    assert m.epsilon == log_up(f._ratio * w._ratio) <= float(Fraction(kw["epsilon"]))
    assert m.local_epsilon == m.epsilon and m.privacy_map(0) == 0.0
    assert f.epsilon <= float(Fraction(kw["epsilon"]) / 2) and w.epsilon <= float(Fraction(kw["epsilon"]) / 2)
    rep = m.exact_audit()
    assert rep.epsilon_realized == m.epsilon and rep.d_in == 1
    assert m.describe()["local_epsilon"] == m.epsilon


def test_enumerating_every_report_gives_the_audits_epsilon():
    """Every (p, fragment report, word report) of two tiny CMS sketches (2 x 2^4 each), for the
    audit's witnesses and other strings: the worst ratio is exactly the composed one."""
    m = make_sequence_fragment_puzzle(3, max_length=3, width=4, hashes=2, bits=8)
    w = m.exact_audit().witness
    pair = [bytes.fromhex(w["x"]), bytes.fromhex(w["x_prime"])]
    assert m.enumerated_epsilon(pair) == m.fragment._ratio * m.word._ratio
    assert m.enumerated_epsilon([b"ab", b"ab"]) == 1
    assert m.enumerated_epsilon([b"ab", b"abc", b"\xff"]) <= m.fragment._ratio * m.word._ratio
    h = make_sequence_fragment_puzzle(3, max_length=2, width=4, hashes=2, bits=8, hadamard=True)
    w = h.exact_audit().witness
    assert h.enumerated_epsilon([bytes.fromhex(w["x"]), bytes.fromhex(w["x_prime"])]) == \
        h.fragment._ratio * h.word._ratio


@pytest.mark.parametrize("kw", CASES)
def test_fleet_and_c_are_the_reference_release_of_every_device(kw):
    m = make_sequence_fragment_puzzle(**kw)
    out = check_fleet_c_and_reference(m, 21, 3, 11)
    assert out.dtype == np.dtype(m.report_dtype) and out.shape[1] == m.report_columns
    assert len(set(out[:, 0].tolist())) == m.positions


def test_c_refuses_bad_lengths_and_configs_with_nothing_written():
    from fxdp import native
    for had in (False, True):
        m = make_sequence_fragment_puzzle(4, max_length=6, width=16, hashes=4, hadamard=had)
        fn = native.lib.fxdp_hadamard_sequence_fragment_puzzle if had else native.lib.fxdp_sequence_fragment_puzzle
        check_c_refuses(fn, "fxdp_sequence_fragment_puzzle_cfg", m.c_config().cfg[0],
                        [(0, None, None), (7, None, None), (1, "positions", 3), (1, "fragment.max_len", 4),
                         (1, "word.max_len", 255), (1, "word.hashes", 0), (1, "fragment.log2_width", 17),
                         (1, "word.ue.d", 8), (1, "fragment.ue.a_q", 0)],
                        7, "uint32_t" if had else "uint8_t", 7 if had else m.report_columns)


def test_fragment_masks_keep_the_sketch_within_its_standard_error():
    """The fragments of 33,000 devices at one position (1,000 strings "000", "001x", ...: Zipf
    shares, many sharing bytes), through the fragment sketch (m = 1024, k = 16, eps 4, numpy seed
    8, fleet seed 5): the 40 most frequent fragments' errors over their standard errors have an
    RMS below 1.5 with the masks; without them (the plain bytes (r, x[2p], x[2p + 1])) above 2.5:
    the linear hash collides fragments that differ in r by the same amount in the same rows."""
    from collections import Counter
    m = make_sequence_fragment_puzzle(8, max_length=16, width=1024, hashes=16)
    rng = np.random.default_rng(8)
    words = [f"{i:03d}{'x' * (i % 13)}" for i in range(1000)]
    w = 1.0 / np.arange(1, 1001) ** 1.1
    idx = rng.choice(1000, size=33000, p=w / w.sum())
    c = make_count_mean_sketch(1024, 16, 4, max_length=3)

    def plain(f):
        return bytes([f[0], f[1] ^ f[0], f[2] ^ (((f[0] << 4) | (f[0] >> 4)) & 0xFF)])
    rms = {}
    for name, tf in (("masked", lambda f: f), ("plain", plain)):
        strings = [tf(m.fragment_string(words[i].encode(), 6)) for i in idx]
        cnt = Counter(strings)
        top = [f for f, _ in cnt.most_common(40)]
        est = c.estimate(c.simulate(strings, seed=5), top)
        z = (est.estimate - np.array([cnt[f] / len(idx) for f in top])) / est.stderr
        rms[name] = float(np.sqrt(np.mean(z ** 2)))
    assert rms["masked"] < 1.5 < 2.5 < rms["plain"], rms


@pytest.mark.parametrize("hadamard", [False, True])
def test_discover_finds_the_frequent_strings_without_candidates(hadamard):
    """3 10^5 devices, 1,000 strings of 3 to 15 bytes with Zipf(1.1) shares (numpy seed 8; shares
    0.178, 0.084, 0.054, 0.038, 0.031, ...), eps = 8 (4 for the fragments), m = 1024 (HCMS: 65,536
    for the fragments), k = 16: the top 5 found are the 5 most frequent strings, each within 4
    standard errors of its share (the alphabet of the strings given)."""
    m = make_sequence_fragment_puzzle(8, max_length=16, width=1024, hashes=16, hadamard=hadamard,
                                      fragment_width=65536 if hadamard else None)
    rng = np.random.default_rng(8)
    words = [f"{i:03d}{'x' * (i % 13)}" for i in range(1000)]
    w = 1.0 / np.arange(1, 1001) ** 1.1
    idx = rng.choice(1000, size=300_000, p=w / w.sum())
    reports = m.simulate([words[i] for i in idx], seed=2)
    top = m.discover(reports, top=5, alphabet="0123456789x")   # every byte: the CLI test
    assert [r["value"] for r in top] == [words[i].encode() for i in range(5)], top
    for k, r in enumerate(top):
        assert abs(r["estimate"] - np.mean(idx == k)) < 4 * r["stderr"], r
    est = m.estimate(reports, ["000", "nobody"])
    assert abs(est.estimate[0] - np.mean(idx == 0)) < 4 * est.stderr[0]
    assert abs(est.estimate[1]) < 4 * est.stderr[1]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"max_length must be in \[1, 254\]"):
        make_sequence_fragment_puzzle(4, max_length=255)
    with pytest.raises(ValueError, match=r"fragment_share must be in \(0, 1\)"):
        make_sequence_fragment_puzzle(4, fragment_share=1)
    with pytest.raises(TypeError, match="fragment_share"):
        make_sequence_fragment_puzzle(4, fragment_share="half")
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 128\]"):
        make_sequence_fragment_puzzle(0)
    with pytest.raises(ValueError, match="width must be a power of two"):
        make_sequence_fragment_puzzle(4, width=100)
    with pytest.raises(ValueError, match=r"the fragment sketch .*hashes must be in \[1, 65536\]"):
        make_sequence_fragment_puzzle(4, fragment_hashes=0)
    with pytest.raises(ValueError, match="the fragment sketch .*too small"):
        make_sequence_fragment_puzzle(1e-9, bits=8)
    with pytest.raises(ValueError, match="the word sketch .*too small"):
        make_sequence_fragment_puzzle(1, fragment_share=Fraction(999, 1000), bits=8)
    with pytest.raises(TypeError, match="hadamard must be a bool"):
        make_sequence_fragment_puzzle(4, hadamard=1)
    m = make_sequence_fragment_puzzle(4, max_length=8, width=16, hashes=4)
    with pytest.raises(ValueError, match="empty string"):
        m(b"")
    with pytest.raises(ValueError, match="9 bytes long; max_length is 8"):
        m("123456789")
    with pytest.raises(ValueError, match="integer matrix of 37 columns"):
        m.discover(np.zeros((3, 3), np.uint8))
    bad = np.zeros((1, m.report_columns), np.uint8)
    bad[0, 0] = m.positions
    with pytest.raises(ValueError, match=r"position outside \[0, 5\)"):
        m.discover(bad)
    with pytest.raises(ValueError, match="top must be in"):
        m.discover(np.zeros((1, m.report_columns), np.uint8), top=0)
    with pytest.raises(ValueError, match="alphabet must be a non-empty"):
        m.discover(np.zeros((1, m.report_columns), np.uint8), alphabet=b"")
    with pytest.raises(ValueError, match="width = 2048: the C device form"):
        make_sequence_fragment_puzzle(4, width=2048).device_spec()


def test_reports_round_trip_and_the_cli_discovers(tmp_path, capsys):
    check_cli_round_trip_and_discovery(tmp_path, capsys, 'kind = "sequence_fragment_puzzle"\nepsilon = 10\n'
                                       'max_length = 6\nwidth = 256\nhashes = 16\nfragment_width = 65536\n'
                                       'hadamard = true\n')


@pytest.mark.parametrize("hadamard", [False, True])
def test_the_streamed_sketches_give_what_the_reports_give(hadamard):
    """report_statistic over two chunks, merged (as fxdp estimate and Dask stream report files):
    its sketches are the reports' sketches, and discovery and estimates on them are the same."""
    m = make_sequence_fragment_puzzle(10, max_length=6, width=64, hashes=8, hadamard=hadamard)
    words = ["alpha"] * 3000 + ["beta"] * 2000 + [f"z{i}" for i in range(1000)]
    reports = m.simulate(words, seed=3)
    a, b = m.report_statistic(), m.report_statistic()
    a.add(reports[:2500])
    b.add(reports[2500:])
    sk = a.merge(b).sketches()
    full = m.sketches(reports)
    assert a.n == len(words)
    for x, y in zip(sk.fragments + [sk.word], full.fragments + [full.word]):
        assert np.array_equal(x.counts, y.counts) and np.array_equal(x.n_j, y.n_j)
    assert m.discover(sk, top=2, alphabet="abehlpt") == m.discover(reports, top=2, alphabet="abehlpt")
    assert [r["value"] for r in m.discover(sk, top=2, alphabet="abehlpt")] == [b"alpha", b"beta"]
    e1, e2 = m.estimate(sk, ["beta", "gamma"]), m.estimate(reports, ["beta", "gamma"])
    assert np.array_equal(e1.estimate, e2.estimate) and np.array_equal(e1.stderr, e2.stderr)
