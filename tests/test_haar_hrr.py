"""HaarHRR (issue 35): the release is the level, the Hadamard row and binary randomized response of
the signed Haar coefficient's bit, on one stream, in the reference, the Numba fleet and the C form;
its epsilon is binary randomized response's, audited exactly; the coefficient estimates are the
Hadamard transform's and the standard errors match the spread of repeated fleets; bad input and
corrupted reports are refused."""
import math

import numpy as np
import pytest

from _grid_mech_checks import assert_counts_are_the_pmf, bit_string_counts
from fxdp.bitsource import ChaCha20Source
from fxdp.mechanisms.base import Mechanism
from fxdp.mechanisms.ranges.haar_hrr import fwht, make_haar_hrr as make
from fxdp.samplers import reference as ref


def test_the_transform_is_the_hadamard_matrix():
    a = np.random.default_rng(0).normal(size=(3, 16))
    H = np.array([[(-1) ** bin(u & j).count("1") for j in range(16)] for u in range(16)])
    assert np.allclose(fwht(a), a @ H.T)


@pytest.mark.parametrize("ct", [False, True])
def test_the_release_is_the_level_the_row_then_binary_rr_and_the_fleet_is_the_reference(ct):
    m = make(0, 80, 1, bits=8, constant_time=ct)
    for seed in range(40):
        i = (seed * 37) % (m.N + 1)
        a, b = ChaCha20Source(seed), ChaCha20Source(seed)
        l, j, bit = m.release(a, i)
        assert l == (ref.uniform_below_ct(b, 8) if ct else ref.uniform_below(b, 8))
        assert j == (b.bits(7) & ((1 << l) - 1) if ct else b.bits(l))
        leaf = min(i, 255)
        truth = (bin(j & (leaf >> (8 - l))).count("1") & 1) ^ ((leaf >> (7 - l)) & 1)
        keep = (ref.bernoulli_dyadic_ct if ct else ref.bernoulli_dyadic)(b, m.a_p, 32)
        assert bit == (truth if keep else 1 - truth) and a.bits_used == b.bits_used
    vals = np.arange(m.N + 1)
    out = m.simulate_device(vals, 5)
    assert [m.release(ChaCha20Source(5, d), int(v)) for d, v in enumerate(vals)] == [tuple(r) for r in out]


def test_every_bit_string_gives_the_exact_report_distribution():
    """bits = 2, prob_bits = 4: for each grid index, the releases on all 2^12 bit strings (a release
    reading past them counts as failed) are the exact pmf times 2^12, within the failures."""
    m = make(0, 4, 1, bits=2, prob_bits=4)
    for x in range(m.N + 1):
        counts, fail = bit_string_counts(m, x, 12, exact_bits=False, overread_fails=True)
        assert fail < (1 << 12) // 20
        assert_counts_are_the_pmf(m.output_pmf(x), counts, fail, 12, ct=False)


def _row(v):
    """A grid index or an output row as the reference takes or gives it."""
    return int(v) if np.ndim(v) == 0 else tuple(int(a) for a in v)


@pytest.mark.parametrize("kw", [dict(epsilon=1, bits=3, prob_bits=6), dict(epsilon=3, bits=4, prob_bits=10)])
def test_the_closed_form_audit_is_the_enumeration(kw):
    m = make(0, 1, **kw)
    assert Mechanism.exact_audit(m).epsilon_realized == m.exact_audit().epsilon_realized == m.epsilon
    assert m.epsilon <= kw["epsilon"] and m.local_epsilon == m.epsilon


@pytest.mark.parametrize("eps", [1, 4])
def test_standard_errors_match_the_spread_of_repeated_fleets(eps):
    """200 fleets of 20,000 devices (one population): for a range and a CDF point the estimates'
    mean is within 4 standard errors of the truth and their standard deviation over the stated
    standard error is in [0.8, 1.25]."""
    m = make(0, 80, eps, bits=8)
    vals, _ = m.synthetic_population(20_000, 1)
    runs = {(10, 30): ([], []), (0, 25): ([], [])}
    for seed in range(200):
        counts = m.level_counts(m.simulate(vals, seed))
        for (a, b), (est, se) in runs.items():
            e = m.range_from_counts(counts, a, b)
            est.append(e.estimate)
            se.append(e.stderr)
    for (a, b), (est, se) in runs.items():
        est, se = np.array(est), np.array(se)
        assert abs(est.mean() - m.true_range(vals, a, b)) < 4 * se.mean() / math.sqrt(len(est))
        assert 0.8 < est.std(ddof=1) / se.mean() < 1.25, (a, b, est.std(ddof=1), se.mean())


def test_quantiles_ranges_and_the_statistic():
    m = make(0, 80, 4, bits=8)
    vals, truth = m.synthetic_population(100_000, 2)
    reports = m.simulate(vals, 11)
    q = m.estimate_quantiles(reports)
    assert (q.lower <= q.estimate).all() and (q.estimate <= q.upper).all()
    assert (np.abs(q.estimate - truth) < 4 * q.stderr + float(m.step)).all()
    r = m.estimate_range(reports, 10, 30)
    assert abs(r.estimate - m.true_range(vals, 10, 30)) < 4 * r.stderr
    whole = m.estimate_range(reports, 0, 80)
    assert whole.estimate == pytest.approx(1.0) and whole.stderr < 1e-9
    stat = m.report_statistic()
    for part in np.array_split(reports, 4):
        stat.add(part)
    assert stat.n == 100_000 and stat.estimate_rows() == m.estimate_rows(reports)
    assert (m.decode_reports(m.encode_reports(reports)) == reports).all()


def test_corrupted_reports_and_bad_input_are_refused():
    m = make(0, 80, 2, bits=6)
    reports = m.simulate(np.linspace(0, 80, 300), 2)
    for col, value in [(0, 6), (0, -1), (2, 2)]:
        bad = reports.copy()
        bad[0, col] = value
        with pytest.raises(ValueError, match="reports"):
            m.estimate(bad)
    bad = reports.copy()
    bad[0] = (1, 2, 0)                                     # j = 2 is past level 1's 2 rows
    with pytest.raises(ValueError, match="j in"):
        m.estimate(bad)
    for kw, match in [(dict(bits=17), "bits"), (dict(bits=0), "bits"), (dict(epsilon=0), "epsilon"),
                      (dict(lo=5, hi=5), "lo must be below hi"), (dict(prob_bits=1), "prob_bits")]:
        with pytest.raises(ValueError, match=match):
            make(**{"lo": 0, "hi": 80, "epsilon": 2, **kw})
    with pytest.raises(ValueError, match="readings"):
        m.simulate([float("nan")], 1)


@pytest.mark.parametrize("kw", [dict(epsilon=1), dict(epsilon=1, constant_time=True), dict(epsilon=3, prob_bits=8),
                                dict(epsilon=2, bits=1), dict(epsilon=2, bits=16, constant_time=True)])
def test_the_c_fleet_is_the_numba_fleet_bit_for_bit(kw):
    from _grid_mech_checks import check_keyed_stream_parity
    m = make(0, 80, **{"bits": 8, **kw})
    check_keyed_stream_parity(m, ct_bits=128 + m.bits - 1 + m.prob_bits if m.constant_time else None,
                              bits_vary=not m.constant_time and m.bits > 1, devices=2000, step=37, row=_row)


def test_the_c_form_refuses_every_bad_config_and_input_before_drawing():
    from _grid_mech_checks import check_c_refuses
    good = {"a_p": make(0, 80, 2, bits=8).a_p, "prob_bits": 32, "bits": 8}
    cases = [(good, 257), ({**good, "bits": 0}, 5), ({**good, "bits": 17}, 5), ({**good, "prob_bits": 1}, 5),
             ({**good, "prob_bits": 33}, 5), ({**good, "a_p": 1 << 31}, 5), ({**good, "a_p": 1 << 32}, 5),
             ({**good, "a_p": 5}, 5), ({**good, "a_p": (1 << 40) + 5}, 5)]
    check_c_refuses("fxdp_haar_hrr_cfg", ["fxdp_haar_hrr", "fxdp_haar_hrr_ct"], cases)


@pytest.mark.parametrize("ct", [False, True])
def test_an_entropy_failure_releases_nothing(ct, monkeypatch):
    from _grid_mech_checks import check_entropy_failure
    check_entropy_failure(make(0, 1, 2, bits=6, constant_time=ct), monkeypatch)


def test_the_chooser_ranks_the_range_kinds_by_their_closed_form_variance():
    """recommend_distribution at n = 10^6, a range of half the domain, a 10-bit grid: HaarHRR first at
    eps 0.5, a hierarchy first at eps 4 (the paper's finding); each row's variance is its mechanism's
    range_variance, the rows in increasing order."""
    import fxdp
    from fxdp.registry import constructor
    low = fxdp.recommend_distribution(0, 80, 0.5, 10**6, width=0.5, bits=10)
    high = fxdp.recommend_distribution(0, 80, 4, 10**6, width=0.5, bits=10)
    assert low[0]["kind"] == "haar_hrr" and high[0]["kind"] == "hierarchical_histogram"
    for rows in (low, high):
        assert [r["variance"] for r in rows] == sorted(r["variance"] for r in rows)
        assert {r["kind"] for r in rows} == {"haar_hrr", "hierarchical_histogram"} and len(rows) == 5
        r = rows[-1]
        assert r["variance"] == constructor(r["kind"])(**r["config"]).range_variance(10**6, 0.5)
        assert r["epsilon"] <= 4
    with pytest.raises(ValueError, match="width"):
        fxdp.recommend_distribution(0, 80, 1, 1000, width=0)
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.recommend_distribution(5, 5, 1, 1000)
