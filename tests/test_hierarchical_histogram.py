"""The hierarchical histogram (issue 35): the release is the level then the level's oracle on the
level's node, on one stream, in the reference and the Numba fleet; its epsilon is the worst level's
oracle epsilon, audited exactly; constrained inference is consistent and its standard errors match
the spread of repeated fleets; quantiles and ranges track the truth; bad input and corrupted
reports are refused."""
import math
from fractions import Fraction

import numpy as np
import pytest

import fxdp

from _grid_mech_checks import assert_counts_are_the_pmf, bit_string_counts
from fxdp.bitsource import ChaCha20Source
from fxdp.mechanisms.base import Mechanism
from fxdp.mechanisms.oracles.local_hashing import LocalHashing
from fxdp.mechanisms.ranges import _ranges
from fxdp.mechanisms.ranges.hierarchical_histogram import make_hierarchical_histogram as make
from fxdp.samplers import reference as ref


def test_levels_nodes_and_the_oracle_of_each_level():
    m = make(0, 80, 1, bits=8)
    assert (m.levels, m.sizes, m.shifts) == (4, [4, 16, 64, 256], [6, 4, 2, 0])
    assert m.realized()["oracles"] == ["krr", "olh", "olh", "olh"]
    assert make(0, 80, 4, bits=8).realized()["oracles"] == ["krr", "krr", "krr", "olh"]
    m = make(0, 1, 2, bits=5, branching=4)                 # the last level branches by 2
    assert (m.sizes, m.shifts) == ([4, 16, 32], [3, 1, 0])
    assert make(0, 1, 2, bits=8, branching=256).sizes == [256]
    assert make(0, 1, 2, bits=8, constant_time=True).krr_levels == 0
    assert make(0, 1, 2, bits=8, oracle="krr").krr_levels == 4 and make(0, 1, 2, bits=8, oracle="olh").krr_levels == 0
    assert make(0, 1, 20, bits=8).krr_levels == 4           # past local hashing's g <= 2^16: k-ary RR only


@pytest.mark.parametrize("eps", [1, 4])
def test_auto_takes_the_smaller_closed_form_variance_at_each_level(eps):
    m = make(0, 1, eps, bits=10, branching=4)
    olh = float(m.lh.variance(0.0, 1))
    for t in range(m.levels):
        if t < m.krr_levels:
            assert float(m.rr[t].variance(0.0, 1)) < olh
        elif m.sizes[t] <= 1 << 16:
            krr = make(0, 1, eps, bits=10, branching=4, oracle="krr").rr[t]
            assert float(krr.variance(0.0, 1)) >= olh


def _row(v):
    """A grid index or an output row as the reference takes or gives it."""
    return int(v) if np.ndim(v) == 0 else tuple(int(a) for a in v)


@pytest.mark.parametrize("kw", [dict(epsilon=2), dict(epsilon=2, constant_time=True), dict(epsilon=3, oracle="krr"),
                                dict(epsilon="1/2", branching=8, bits=7)])
def test_the_release_is_the_level_then_its_oracle_and_the_fleet_is_the_reference(kw):
    m = make(0, 80, **{"bits": 8, **kw})
    ct = m.constant_time
    lh = LocalHashing(m.N, m.epsilon_requested, constant_time=ct)
    for seed in range(40):
        i = (seed * 37) % (m.N + 1)
        a, b = ChaCha20Source(seed), ChaCha20Source(seed)
        t, *rest = m.release(a, i)
        assert t == (ref.uniform_below_ct(b, m.levels) if ct else ref.uniform_below(b, m.levels))
        node = min(i, m.N - 1) >> m.shifts[t]
        if t < m.krr_levels:
            assert rest == [m.rr[t].release_index(b, node), 0, 0]
        else:
            assert tuple(rest) == lh.release(b, node)
        assert a.bits_used == b.bits_used
    vals = np.arange(m.N + 1)
    ids = np.arange(m.N + 1, dtype=np.uint64) * 131 + 3
    out = m.simulate_device(vals, 5, device_ids=ids)
    assert out.shape == (m.N + 1, 4) and out.dtype == np.int64
    assert [m.release(ChaCha20Source(5, int(d)), int(v)) for d, v in zip(ids, vals)] == [tuple(r) for r in out]


def test_readings_map_to_the_interval_holding_them():
    m = make(0, 80, 2, bits=4)                              # step 5
    assert m.bin_indices([0, 4.99, 5, 5.01, 79.9, 80, 95, -3]).tolist() == [0, 0, 1, 1, 15, 16, 16, 0]
    assert m.bin_indices(np.arange(17) * 5.0).tolist() == list(range(17))       # on a level: that level
    assert m.leaf_of([16, 15, 0]).tolist() == [15, 15, 0]
    assert (m.simulate([0, 80, 40], 3) == m.simulate_device([0, 16, 8], 3)).all()


def test_every_bit_string_gives_the_exact_report_distribution():
    """k-ary RR at both levels (bits = 2, branching = 2, prob_bits = 6): for each grid index, the
    releases on all 2^14 bit strings (a release reading past them counts as failed) are the exact
    pmf times 2^14, within the failures."""
    m = make(0, 4, 1, branching=2, bits=2, oracle="krr", prob_bits=6)
    assert m.levels == 2 and m.krr_levels == 2
    for x in range(m.N + 1):
        counts, fail = bit_string_counts(m, x, 14, exact_bits=False, overread_fails=True)
        assert fail < (1 << 14) // 20
        assert_counts_are_the_pmf(m.output_pmf(x), counts, fail, 14, ct=False)


@pytest.mark.parametrize("kw", [dict(epsilon=1, oracle="krr", bits=3, branching=2),
                                dict(epsilon=3, oracle="krr", bits=4, branching=4, prob_bits=12)])
def test_the_closed_form_audit_is_the_enumeration(kw):
    m = make(0, 1, **kw)
    enumerated = Mechanism.exact_audit(m)
    assert enumerated.epsilon_realized == m.exact_audit().epsilon_realized == m.epsilon
    assert m.epsilon <= float(kw["epsilon"]) and m.local_epsilon == m.epsilon


@pytest.mark.parametrize("kw", [dict(epsilon=2), dict(epsilon=2, constant_time=True), dict(epsilon="0.7")])
def test_the_audit_reaches_the_worst_levels_ratio(kw):
    m = make(-20, 60, bits=10, **kw)
    rep = m.exact_audit()
    ratios = [Fraction(r.w0, r.w) for r in m.rr] + [m.lh._ratio] * (m.levels - m.krr_levels)
    assert Fraction(rep.witness["ratio"]) == max(ratios) == m._ratio
    assert rep.epsilon_realized == m.epsilon <= float(Fraction(kw["epsilon"]))
    r = tuple(rep.witness["report"])
    assert m.report_pmf(r, 0) / m.report_pmf(r, m.N) == m._ratio


def test_constrained_inference_is_consistent_and_linear():
    rng = np.random.default_rng(3)
    sizes, var = [4, 16, 64], [0.5, 1.0, 2.0]
    est = [rng.normal(size=d) / d for d in sizes]
    fit = _ranges.consistent(est, var)
    assert abs(fit[0].sum() - 1) < 1e-12
    for t in range(2):
        assert np.allclose(fit[t], fit[t + 1].reshape(sizes[t], -1).sum(axis=1))
    # the weights of a range are the estimator's derivatives (it is linear)
    for lo, hi in [(0, 63), (5, 40), (17, 17), (16, 31)]:
        w = _ranges.consistent_weights(sizes, var, lo, hi)
        base = fit[-1][lo:hi + 1].sum()
        for t in range(3):
            for v in range(0, sizes[t], 3):
                bumped = [e.copy() for e in est]
                bumped[t][v] += 1.0
                d = _ranges.consistent(bumped, var)[-1][lo:hi + 1].sum() - base
                assert abs(d - w[t][v]) < 1e-9
    # the canonical decomposition covers the range with disjoint nodes
    for lo, hi in [(0, 63), (5, 40), (17, 17)]:
        nodes = _ranges.canonical_nodes(sizes, lo, hi)
        span = {0: 16, 1: 4, 2: 1}
        leaves = sorted(j for t, v in nodes for j in range(v * span[t], (v + 1) * span[t]))
        assert leaves == list(range(lo, hi + 1))


@pytest.mark.parametrize("kw", [dict(epsilon=1), dict(epsilon=4), dict(epsilon=2, oracle="krr")])
def test_standard_errors_match_the_spread_of_repeated_fleets(kw):
    """200 fleets of 20,000 devices (seeds 0..199, one population): for a range and a CDF point,
    consistent and unbiased, the estimates' mean is within 4 standard errors of the mean of the
    truth and their standard deviation over the stated standard error is in [0.8, 1.25] (the
    sample standard deviation of 200 draws is within 15 % of the truth with probability > 0.99)."""
    m = make(0, 80, bits=8, **kw)
    vals, _ = m.synthetic_population(20_000, 1)
    runs = {key: ([], []) for key in ("c", "u", "c0", "u0")}
    for seed in range(200):
        counts = m.level_counts(m.simulate(vals, seed))
        for key, (a, b, cons) in {"c": (10, 30, True), "u": (10, 30, False), "c0": (0, 25, True),
                                  "u0": (0, 25, False)}.items():
            e = m.range_from_counts(counts, a, b, cons)
            runs[key][0].append(e.estimate)
            runs[key][1].append(e.stderr)
    for key, (a, b) in {"c": (10, 30), "u": (10, 30), "c0": (0, 25), "u0": (0, 25)}.items():
        est, se = np.array(runs[key][0]), np.array(runs[key][1])
        truth = m.true_range(vals, a, b)
        assert abs(est.mean() - truth) < 4 * se.mean() / math.sqrt(len(est)), key
        assert 0.8 < est.std(ddof=1) / se.mean() < 1.25, (key, est.std(ddof=1), se.mean())


def test_quantiles_and_ranges_track_the_truth():
    m = make(0, 80, 4, bits=8)
    vals, truth = m.synthetic_population(100_000, 2)
    reports = m.simulate(vals, 11)
    q = m.estimate_quantiles(reports)
    assert q.labels == ["p50", "p90", "p95", "p99"]
    assert (q.lower <= q.estimate).all() and (q.estimate <= q.upper).all()
    assert (np.abs(q.estimate - truth) < 4 * q.stderr + float(m.step)).all()
    r = m.estimate_range(reports, 10, 30)
    assert abs(r.estimate - m.true_range(vals, 10, 30)) < 4 * r.stderr
    u = m.estimate_range(reports, 10, 30, consistent=False)
    assert abs(u.estimate - m.true_range(vals, 10, 30)) < 4 * u.stderr and r.stderr < u.stderr
    assert m.estimate_range(reports, 0, 80).estimate == pytest.approx(1.0) and m.estimate_range(reports, 0, 80).stderr < 1e-6
    rows = m.estimate_rows(reports, truth)
    assert [r["name"] for r in rows] == ["p50", "p90", "p95", "p99"]
    assert m.estimate(reports).estimate.tolist() == q.estimate.tolist()


def test_the_streamed_statistic_and_the_wire_give_the_same_estimate():
    m = make(0, 80, 2, bits=8)
    vals, _ = m.synthetic_population(3000, 4)
    reports = m.simulate(vals, 2)
    stat = m.report_statistic()
    for part in np.array_split(reports, 3):
        stat.add(part)
    other = m.report_statistic().add(reports[:10])
    assert stat.n == 3000 and other.n == 10
    assert stat.estimate_rows() == m.estimate_rows(reports)
    data = m.encode_reports(reports)
    assert (m.decode_reports(data) == reports).all()


def test_corrupted_reports_are_refused():
    m = make(0, 80, 2, bits=8)
    reports = m.simulate(np.linspace(0, 80, 500), 2)
    krr_row = np.where(reports[:, 0] == 0)[0][0]
    lh_row = np.where(reports[:, 0] == m.levels - 1)[0][0]
    for row, col, value, match in [(krr_row, 2, 1, "level-0 report"), (krr_row, 1, 4, "level-0 report"),
                                   (lh_row, 1, 0, f"level-{m.levels - 1} report"), (lh_row, 0, 9, "level t")]:
        bad = reports.copy()
        bad[row, col] = value
        with pytest.raises(ValueError, match=match):
            m.estimate(bad)
    with pytest.raises(ValueError, match="n x 4"):
        m.estimate(reports[:, :3])


@pytest.mark.parametrize("kw, match", [
    (dict(lo=1, hi=1), "lo must be below hi"), (dict(branching=3), "power of two"), (dict(branching=1), "branching"),
    (dict(bits=17), "bits must be in"), (dict(oracle="oue"), "oracle must be one of"),
    (dict(oracle="krr", constant_time=True), "no constant-time form"), (dict(epsilon=0), "epsilon"),
    (dict(epsilon=float("nan")), "epsilon"), (dict(constant_time=1), "constant_time")])
def test_bad_parameters_are_refused(kw, match):
    args = {"lo": 0, "hi": 80, "epsilon": 2, **kw}
    with pytest.raises(ValueError, match=match):
        make(**args)


def test_bad_readings_and_queries_are_refused():
    m = make(0, 80, 2, bits=6)
    for bad in ([float("nan")], [1.0, float("inf")], ["a"], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="readings"):
            m.simulate(bad, 1)
    reports = m.simulate([1.0, 50.0, 70.0], 1)
    with pytest.raises(ValueError, match="a must be at most b"):
        m.estimate_range(reports, 30, 10)
    with pytest.raises(ValueError, match="finite reading"):
        m.estimate_range(reports, float("nan"), 10)
    for probs in ([], [0.0], [1.5], ["x"]):
        with pytest.raises(ValueError, match="probabilities"):
            m.estimate_quantiles(reports, probs)


@pytest.mark.parametrize("kw", [dict(epsilon=2), dict(epsilon=2, constant_time=True), dict(epsilon=3, oracle="krr"),
                                dict(epsilon="1/2", branching=8, bits=7), dict(epsilon=1, bits=12, branching=32)])
def test_the_c_fleet_is_the_numba_fleet_bit_for_bit(kw):
    from _grid_mech_checks import check_keyed_stream_parity
    m = make(0, 80, **{"bits": 8, **kw})
    _, _, _, out = check_keyed_stream_parity(m, bits_vary=not m.constant_time, devices=2000, step=37, row=_row)
    if m.constant_time:        # 4 rounds of uniform_below_ct, the seed's 62 bits, then 32: unless a seed retry
        from fxdp.mechanisms import _fleet
        _, _, bits, _ = _fleet.simulate_detailed(m, m.population(2000, seed=7, shape="uniform")[0], 99)
        assert (bits == 128 + 62 + 32).mean() > 0.99


def test_the_c_form_refuses_every_bad_config_and_input_before_drawing():
    from _grid_mech_checks import check_c_refuses
    good = make(0, 80, 3, bits=8)._cfg_fields()             # k-ary RR at 3 levels, local hashing at the leaves
    good_ct = make(0, 80, 2, bits=8, constant_time=True)._cfg_fields()
    cases = [(good, 257)]                                    # the grid index past 2^bits
    for field, value in [("bits", 0), ("bits", 17), ("log2_branching", 0), ("log2_branching", 17), ("levels", 3),
                         ("levels", 5), ("krr_levels", 5), ("rr_k", 0), ("rr_k", 33), ("rr_k", 6)]:
        cases.append(({**good, field: value}, 5))
    cases.append(({**good, "rr_w0": [0] + good["rr_w0"][1:]}, 5))
    cases.append(({**good, "rr_w0": [good["rr_w0"][0], 1 << 32 - 1, *good["rr_w0"][2:]], "rr_k": 31}, 5))
    cases.append(({**good, "lh": {**good["lh"], "d": 512}}, 5))
    cases.append(({**good, "lh": {**good["lh"], "w": good["lh"]["w"] + 1}}, 5))
    check_c_refuses("fxdp_hierarchical_histogram_cfg", ["fxdp_hierarchical_histogram"], cases)
    ct_cases = [(good_ct, 257), ({**good_ct, "krr_levels": 1, "rr_k": 32, "rr_w0": [1 << 30] + [0] * 15}, 5),
                ({**good_ct, "lh": {**good_ct["lh"], "d": 128}}, 5)]
    check_c_refuses("fxdp_hierarchical_histogram_cfg", ["fxdp_hierarchical_histogram_ct"], ct_cases)


@pytest.mark.parametrize("ct", [False, True])
def test_an_entropy_failure_releases_nothing(ct, monkeypatch):
    from _grid_mech_checks import check_entropy_failure
    check_entropy_failure(make(0, 1, 2, bits=6, constant_time=ct), monkeypatch)


def test_the_cdf_estimate_and_its_plot_data():
    from fxdp import plots
    m = make(0, 80, 4, bits=8)
    c = plots.cdf(m, devices=50_000, seed=3)
    assert c.edges.shape == c.estimate.shape == c.stderr.shape == c.truth.shape == (256,)
    assert c.edges[0] == 80 / 256 and c.edges[-1] == 80 and abs(c.estimate[-1] - 1) < 1e-9 and c.stderr[-1] < 1e-6
    assert (np.abs(c.estimate - c.truth) < 5 * c.stderr + 1e-9).all() and c.coverage > 0.8
    # every edge's standard error is the range estimate's of [lo, edge]
    reports = m.simulate(m.synthetic_population(50_000, 3)[0], 3)
    edges, est, se = m.estimate_cdf(reports, points=5)
    for e, v, s in zip(edges, est, se):
        r = m.estimate_range(reports, 0, e - 1e-9)
        assert r.estimate == pytest.approx(v, abs=1e-12) and r.stderr == pytest.approx(s, rel=1e-9)
    with pytest.raises(ValueError, match="does not estimate a CDF"):
        plots.cdf(fxdp.make_duchi(0, 1, 1))


def test_fxdp_estimate_gives_the_quantiles_asked(tmp_path, capsys):
    """fxdp estimate --quantiles: the rows are the quantiles asked, in that order, equal to
    estimate_quantiles on the same reports; bad probabilities and a kind without quantiles are
    refused with an error naming --quantiles, and nothing is estimated."""
    import json
    from fxdp.cli import main
    cfg = tmp_path / "m.toml"
    cfg.write_text('[mechanism]\nkind = "hierarchical_histogram"\nlo = 0\nhi = 80\nepsilon = 2\nbits = 8\n'
                   '[simulation]\nseed = 3\ndevices = 4000\n')
    reports = tmp_path / "r.bin"
    assert main(["simulate", str(cfg), "--write-reports", str(reports)]) == 0
    capsys.readouterr()
    assert main(["estimate", str(cfg), str(reports), "--quantiles", "0.25,0.75,0.5", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["estimates"]
    m = make(0, 80, 2, bits=8)
    want = m.estimate_quantiles(m.decode_reports(reports.read_bytes()), [0.25, 0.75, 0.5])
    assert [r["name"] for r in rows] == ["p25", "p75", "p50"]
    assert [r["estimate"] for r in rows] == pytest.approx(list(want.estimate), rel=1e-12)
    assert [r["stderr"] for r in rows] == pytest.approx(list(want.stderr), rel=1e-12)
    for bad in ("0.5,1", "0", "a,0.5", "", "nan"):
        assert main(["estimate", str(cfg), str(reports), "--quantiles", bad]) == 2
        err = capsys.readouterr().err
        assert "--quantiles must be probabilities in (0, 1)" in err, (bad, err)
    rr = tmp_path / "rr.toml"
    rr.write_text('[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\n')
    assert main(["estimate", str(rr), str(reports), "--quantiles", "0.5"]) == 2
    assert "--quantiles applies to the range kinds" in capsys.readouterr().err


def test_the_quantiles_a_mechanism_gives_can_be_set():
    m = make(0, 80, 2, bits=8)
    vals, _ = m.synthetic_population(3000, 4)
    reports = m.simulate(vals, 2)
    assert m.quantiles == (0.5, 0.9, 0.95, 0.99)
    m.quantiles = [0.1, 0.5]
    assert m.estimate(reports).labels == ["p10", "p50"]
    assert list(m.estimate(reports).estimate) == list(m.estimate_quantiles(reports, [0.1, 0.5]).estimate)
    assert len(m.true_statistic(vals)) == 2
    assert m.report_statistic().add(reports).estimate_rows() == m.estimate_rows(reports)
    for bad in ([], [0.5, 1.0], "x"):
        with pytest.raises(ValueError, match="quantiles must be"):
            m.quantiles = bad
    assert m.quantiles == (0.1, 0.5)
