"""TreeHist (issue 34): the report is the Prefix Extending Method's release, then the Hadamard Count
Mean Sketch's release of the string, on one stream; epsilon is the two realized epsilons composed
and rounded up, never above the request, and the audit reaches it; Python = Numba = C (host fleet
and single release); discovery prunes by a threshold and finds a fleet's frequent strings without
a candidate list; bad input is refused."""
from fractions import Fraction

import numpy as np
import pytest

from fxdp.bitsource import ChaCha20Source
from fxdp.conservative import log_up
from fxdp.mechanisms.strings.count_mean_sketch import make_count_mean_sketch
from fxdp.mechanisms.strings.prefix_extending import make_prefix_extending
from fxdp.mechanisms.strings.treehist import make_treehist

from _string_kind_checks import check_c_refuses, check_cli_round_trip_and_discovery, check_fleet_c_and_reference

CASES = [dict(max_length=6, epsilon=8, width=64, hashes=300, constant_time=True, bits=16),
         dict(max_length=7, epsilon=6, start=2, step=2, width=64, hashes=12),
         dict(max_length=10, epsilon=4, width=1024, hashes=16, optimized=False)]


@pytest.mark.parametrize("ct", [False, True])
def test_the_report_is_the_prefix_report_then_the_word_report(ct):
    m = make_treehist(9, 6, width=32, hashes=5, word_share=Fraction(1, 3), constant_time=ct)
    pem = make_prefix_extending(9, 4, start=1, step=1, constant_time=ct)
    word = make_count_mean_sketch(32, 5, 2, hadamard=True, max_length=9, constant_time=ct)
    assert m.levels == pem.levels and m.groups == 9
    for seed in range(25):
        s = f"w{seed}-{'z' * (seed % 8)}".encode()[:9]
        a, b = ChaCha20Source(seed), ChaCha20Source(seed)
        assert m.release(a, s) == (pem.release(b, s), word.release(b, s))
        assert a.bits_used == b.bits_used


@pytest.mark.parametrize("kw", CASES)
def test_epsilon_is_the_composed_realized_epsilon_and_the_audit_reaches_it(kw):
    m = make_treehist(**kw)
    assert m.epsilon == log_up(m.prefix.oracle._ratio * m.word._ratio) <= kw["epsilon"]
    assert m.local_epsilon == m.epsilon and m.privacy_map(0) == 0.0
    rep = m.exact_audit()
    assert rep.epsilon_realized == m.epsilon, rep.witness
    # the witness's report, rebuilt: its probability ratio is exactly the product of the worst ratios
    from fxdp import strhash
    w = rep.witness
    x, xp = bytes.fromhex(w["x"]), bytes.fromhex(w["x_prime"])
    z = m.prefix.item(0, strhash.encode(x, m.max_length)[: m.levels[0]])
    bit = bin(w["l"] & m.word.cell(w["j"], x)).count("1") & 1
    report = ((0, w["a"], w["b"], m.prefix.oracle.hash(w["a"], w["b"], z)), (w["j"], w["l"], bit))
    assert m.report_pmf(report, x) / m.report_pmf(report, xp) == m.prefix.oracle._ratio * m.word._ratio
    assert m.exact_audit(0).epsilon_realized == 0.0


@pytest.mark.parametrize("kw", CASES)
def test_fleet_and_c_are_the_reference_release_of_every_device(kw):
    m = make_treehist(**kw)
    out = check_fleet_c_and_reference(m, 13, 5, 7)
    assert out.shape[1] == 7 and len(set(out[:, 0].tolist())) == m.groups


def test_c_refuses_bad_lengths_and_configs_with_nothing_written():
    from fxdp import native
    m = make_treehist(6, 4, width=16, hashes=4)
    check_c_refuses(native.lib.fxdp_treehist, "fxdp_treehist_cfg", m.c_config().cfg[0],
                    [(0, None, None), (7, None, None), (1, "prefix.groups", 4), (1, "prefix.step", 3),
                     (1, "prefix.lh.d", 1 << 20), (1, "word.max_len", 5), (1, "word.hashes", 0),
                     (1, "word.log2_width", 17), (1, "word.ue.a_q", 0)], 7, "uint32_t", 7)


def test_discover_prunes_by_the_threshold_and_finds_the_frequent_strings():
    """3 10^5 devices, 1,000 strings of 3 to 15 bytes with Zipf(1.1) shares (numpy seed 8), eps = 8
    (4 for each report): the top 5 found are the 5 most frequent strings, each within 4 standard
    errors of its share; a threshold above every share finds nothing."""
    m = make_treehist(16, 8, width=1024, hashes=1024)
    rng = np.random.default_rng(8)
    words = [f"{i:03d}{'x' * (i % 13)}" for i in range(1000)]
    w = 1.0 / np.arange(1, 1001) ** 1.1
    idx = rng.choice(1000, size=300_000, p=w / w.sum())
    reports = m.simulate([words[i] for i in idx], seed=2)
    top = m.discover(reports, top=5)
    assert [r["value"] for r in top] == [words[i].encode() for i in range(5)], top
    for k, r in enumerate(top):
        assert abs(r["estimate"] - np.mean(idx == k)) < 4 * r["stderr"], r
    assert m.discover(reports, top=5, threshold=0.5) == []


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"the prefix report .*max_length must be in \[1, 254\]"):
        make_treehist(255, 4)
    with pytest.raises(ValueError, match=r"word_share must be in \(0, 1\)"):
        make_treehist(8, 4, word_share=0)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 128\]"):
        make_treehist(8, -1)
    with pytest.raises(ValueError, match=r"the word report .*width must be a power of two"):
        make_treehist(8, 4, width=100)
    with pytest.raises(TypeError, match="constant_time must be a bool"):
        make_treehist(8, 4, constant_time="yes")
    m = make_treehist(8, 4, width=16, hashes=4)
    with pytest.raises(ValueError, match="empty string"):
        m(b"")
    with pytest.raises(ValueError, match=r"n x 7 integer array"):
        m.discover(np.zeros((3, 4), np.int64))
    with pytest.raises(ValueError, match="threshold must be a share"):
        m.discover(np.zeros((1, 7), np.int64), threshold=2)
    with pytest.raises(ValueError, match="top must be in"):
        m.discover(np.zeros((1, 7), np.int64), top=0)
    with pytest.raises(ValueError, match="at level 0"):
        make_treehist(8, 4, start=2, step=2).discover(np.zeros((1, 7), np.int64))


def test_reports_round_trip_and_the_cli_discovers(tmp_path, capsys):
    check_cli_round_trip_and_discovery(tmp_path, capsys, 'kind = "treehist"\nmax_length = 6\nepsilon = 10\n'
                                       'width = 256\nhashes = 256\n')
