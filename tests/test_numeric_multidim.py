"""The multi-dimensional numeric form (fxdp/mechanisms/readings/numeric_multidim.py): the paper's k, the
composed privacy map, exactness by enumeration of every bit string, reference / Numba / C parity on
the keyed stream, the exact audit (closed form against enumeration), the per-attribute unbiased
mean and its closed-form variance, bad input, entropy failure, TOML and `fxdp simulate --json`."""
import json
from fractions import Fraction

import numpy as np
import pytest

import _grid_mech_checks as G
import fxdp
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.conservative import exp_le
from fxdp.errors import EntropyError
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms import _fleet
from fxdp.mechanisms.readings.numeric_multidim import paper_report_dims
from fxdp.reports import worst_pair

BASES = ["duchi", "piecewise", "hybrid"]
CT = [False, True]
IDS = ["lazy", "ct"]


def test_paper_report_dims_and_the_composed_epsilon():
    assert [paper_report_dims(e, 10) for e in (1, 2.4, "5/2", 5, 7.4, 7.5, 40)] == [1, 1, 1, 2, 2, 3, 10]
    assert paper_report_dims(40, 3) == 3
    for base in BASES:
        for eps, dims, k in ((1, 4, None), (6, 5, None), (8, 6, 3), ("7/2", 2, 2)):
            m = fxdp.make_numeric_multidim(0, 1, eps, dims, base=base, report_dims=k)
            assert m.k == (k if k is not None else paper_report_dims(Fraction(eps), dims))
            assert m.inner.epsilon_requested == Fraction(eps) / m.k
            # the sum of the k realized per-report epsilons, rounded up, within the request
            assert m._ratio == m.inner._ratio ** m.k and exp_le(m._ratio, Fraction(eps))
            assert m.epsilon <= float(Fraction(eps)) + 1e-12 and m.epsilon == m.privacy_map(1)
            assert m.epsilon >= m.k * float(m.inner._eps) - 1e-9 and m.privacy_map(0) == 0


@pytest.mark.parametrize("base, d, k, B", [("duchi", 2, 1, 5), ("duchi", 2, 2, 9), ("duchi", 3, 2, 13),
                                           ("piecewise", 2, 1, 5), ("hybrid", 2, 1, 12)])
def test_every_bit_string_gives_the_exact_distribution(base, d, k, B):
    """Every string of B bits through the constant-time base (exactly prob_bits + bits bits per
    report); Floyd's uniform_below(j + 1) rejects when j + 1 is not a power of two: releases that
    run out of the B bits are counted, and every outcome's count lies in [pmf 2^B - failures,
    pmf 2^B] (equality when nothing failed).  The rejection draws (uniform_version = 1, pinned); the
    fixed budget (128-bit draws): test_budgeted_form_*."""
    m = fxdp.make_numeric_multidim(0, 1, 2 * k, d, base=base, report_dims=k, bits=1, constant_time=True,
                                   prob_bits=3, uniform_version=1)
    for x in [(0,) * d, (2,) * d, (0, 1, 2)[:d]]:
        # Floyd's rejection reads a varying count: releases past the B bits count as failures
        counts, fail = G.bit_string_counts(m, x, B, exact_bits=False, overread_fails=True)
        pmf = m.output_pmf(x)
        assert sum(pmf.values()) == 1 and set(counts) <= set(pmf)
        if fail == 0:
            assert {o: Fraction(c, 1 << B) for o, c in counts.items()} == pmf
        else:
            for o, p in pmf.items():
                assert p * (1 << B) - fail <= counts[o] <= p * (1 << B)
            assert fail < (1 << B) // 4


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("uv", [1, 2])
def test_reference_numba_and_c_agree_on_the_keyed_stream(base, ct, uv):
    m = fxdp.make_numeric_multidim([-5, 0, 10, 0, 1], [35, 1, 20, 100, 2], 6, 5, base=base, constant_time=ct, bits=8,
                                   uniform_version=uv)
    assert m.k == 2
    # the bit counts vary with Floyd's rejections (and lazy draws); the constant-time form with the
    # fixed budget (uniform_version 2, issue 32) reads 2 x 128 bits for the subset, then the base's fixed bits
    budget = ct and uv == 2
    ct_bits = 2 * 128 + 2 * (m.prob_bits + m.bits) if budget and base != "hybrid" else None
    out_nb = G.check_keyed_stream_parity(m, bits_vary=not budget, ct_bits=ct_bits, devices=5000, step=43,
                                         row=tuple)[3]
    assert out_nb.shape == (5000, 4) and (out_nb[:, 0] < out_nb[:, 1]).all() and out_nb[:, :2].max() == 4
    assert len(set(map(tuple, out_nb[:, :2].tolist()))) == 10          # every 2-subset of 5 occurs


def test_c_and_numba_single_release_match_the_reference():
    from fxdp import native
    from fxdp.mechanisms.readings._kernels_numeric_multidim import release_numeric_multidim
    from fxdp.samplers import _kernels as K
    for base in BASES:
        for ct in CT:
            m = fxdp.make_numeric_multidim(0, 100, 9, 4, base=base, bits=6, constant_time=ct)
            inner = m.inner
            pm = inner if base == "piecewise" else getattr(inner, "pm", None)
            du = inner if base == "duchi" else getattr(inner, "duchi", None)
            args = (["duchi", "piecewise", "hybrid"].index(base), getattr(inner, "b", 0), pm.a if pm else 0,
                    pm.w if pm else 0, m.prob_bits, m.bits, du.base_num if du else 0, du.slope if du else 0, m.ct_mode,
                    m.d, m.k)
            tmp, out = np.zeros(2 * m.k, dtype=np.int64), np.zeros(2 * m.k, dtype=np.int64)
            for dev in range(20):
                reading = [(dev * 37 + 11 * a) % 101 for a in range(4)]
                x = m.check_input(reading)
                assert dv.c_release(m, native.new_rng_seeded(3, dev), reading) == m.release(ChaCha20Source(3, dev), x)
                st_nb = K.seed_state(K.new_state(), 5, dev)
                src = ChaCha20Source(5, dev)
                for j in range(3):
                    xx = np.array([(v + j) % 65 for v in x], dtype=np.int64)
                    assert release_numeric_multidim(st_nb, *args, xx, tmp, out) == 0
                    assert tuple(out) == m.release(src, tuple(xx))
            out[:] = 7
            assert release_numeric_multidim(st_nb, *args, np.array([0, 65, 0, 0], dtype=np.int64), tmp, out) == K.ERR_PARAM
            assert (out == 7).all()


@pytest.mark.parametrize("base, eps, d, k", [("duchi", 1, 2, 1), ("duchi", 3, 2, 2), ("piecewise", 2, 2, 1),
                                             ("piecewise", 4, 2, 2), ("hybrid", 3, 2, 1), ("hybrid", 4, 3, 2)])
def test_audit_closed_form_equals_enumeration(base, eps, d, k):
    m = fxdp.make_numeric_multidim(0, 1, eps, d, base=base, report_dims=k, bits=1, prob_bits=12)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio == m.inner._ratio ** k
    rep = fxdp.audit(m)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon


@pytest.mark.parametrize("base", BASES)
def test_estimator_is_exactly_unbiased_by_enumeration(base):
    """E[(d/k) t^_a [a in S]] = t_a exactly, from the exact output pmf, and the closed-form
    variance is the exact one."""
    m = fxdp.make_numeric_multidim(0, 1, 6, 3, base=base, bits=2, prob_bits=16)
    assert m.k == 2
    for x in [(0, 2, 4), (4, 1, 3)]:
        pmf = m.output_pmf(x)
        for a in range(3):
            t_true = Fraction(2 * x[a], m.N) - 1
            ez, ez2 = Fraction(0), Fraction(0)
            for o, p in pmf.items():
                attrs, ys = o[:m.k], o[m.k:]
                if a in attrs:
                    t_hat = Fraction(m.inner.positions(np.array([ys[attrs.index(a)]]))[0]) * Fraction(m.d, m.k)
                    ez += p * t_hat
                    ez2 += p * t_hat * t_hat
            assert abs(float(ez - t_true)) < 1e-9
            readings = np.array([[float(m.lo_list[b] + m.step_of(b) * x[b]) for b in range(3)]])
            assert float(ez2 - t_true ** 2) / 4 == pytest.approx(m.variance(readings)[a], rel=1e-9)


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """200 fleets of 4,000 devices (Piecewise, 4 attributes, k = 2, per-attribute ranges): every
    attribute's mean error within 4 standard errors, empirical variance within [0.7, 1.35] of the
    closed form, the reported standard error within 10 % of it; the grid's closed form within 2 %
    of the continuous mechanism's."""
    m = fxdp.make_numeric_multidim([0, 10, -1, 0], [1, 30, 1, 100], 5, 4)
    vals, truth = m.synthetic_population(4000, seed=1)
    ests = [m.estimate(m.simulate(vals, seed=s)) for s in range(200)]
    est = np.array([e.estimate for e in ests])
    var = m.variance(vals)
    assert var.shape == (4,)
    assert (np.abs(est.mean(axis=0) - truth) < 4 * np.sqrt(var / 200)).all()
    ratio = est.var(axis=0, ddof=1) / var
    assert ((0.7 < ratio) & (ratio < 1.35)).all(), ratio
    se = np.array([e.stderr for e in ests])
    assert (np.abs(se / np.sqrt(var) - 1) < 0.1).all()
    assert (np.abs(var / m.continuous_variance(vals) - 1) < 0.02).all()
    rows = m.estimate_from_multiset(*np.unique(m.simulate(vals, seed=3), axis=0, return_counts=True))
    direct = m.estimate(m.simulate(vals, seed=3))
    assert np.allclose(rows.estimate, direct.estimate) and np.allclose(rows.stderr, direct.stderr)


def test_bad_input_is_refused_and_nothing_is_released():
    mk = fxdp.make_numeric_multidim
    with pytest.raises(ValueError, match=r"dims must be in \[1, 256\], got 0; the nearest valid value is 1"):
        mk(0, 1, 1, 0)
    with pytest.raises(ValueError, match=r"report_dims must be in \[1, 3\], got 4"):
        mk(0, 1, 1, 3, report_dims=4)
    with pytest.raises(ValueError, match="base must be one of duchi, piecewise, hybrid"):
        mk(0, 1, 1, 3, base="square")
    with pytest.raises(ValueError, match="lo must be below hi for every attribute.*attribute 1"):
        mk([0, 5], [1, 5], 1, 2)
    with pytest.raises(ValueError, match="sequence of dims = 3 numbers, got 2"):
        mk([0, 1], 2, 1, 3)
    with pytest.raises(ValueError, match=r"epsilon / report_dims = 1/200 / 1 per report: .*nearest valid epsilon"):
        mk(0, 1, "1/200", 2, base="duchi", bits=4, prob_bits=8)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 64\]"):
        mk(0, 1, 0, 2)
    m = mk(0, 10, 1, 3)
    for bad in ([[float("nan"), 1, 1]], [[1, 1, float("inf")]]):
        with pytest.raises(ValueError, match="NaN and infinity are refused"):
            m.simulate(bad, seed=1)
    with pytest.raises(ValueError, match=r"n x 3 array"):
        m.simulate([1, 2, 3], seed=1)
    with pytest.raises(ValueError, match=r"increasing indices in \[0, 3\)"):
        m.estimate([[3, 0]])


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_numeric_multidim(0, 1, 6, 3, base="hybrid", bits=8)
    good = m._cfg_fields()
    bad = [dict(good, d=0), dict(good, k=0), dict(good, k=4), dict(good, d=257, k=2), dict(good, base=3),
           dict(good, hm=dict(good["hm"], b=1 << 32)), dict(good, hm=dict(good["hm"], pm=dict(good["hm"]["pm"], w=0)))]
    cases = [(c, [0, 0, 0]) for c in bad] + [(good, [0, 257, 0]), (good, [0, 0, 0xFFFFFFFF])]
    for base in (0, 1):          # the Duchi and Piecewise bases check only their own part
        cases.append((dict(good, base=base), [0, 257, 0]))
    for cfg_d, x in cases:
        cfg = ffi.new("fxdp_numeric_multidim_cfg *", cfg_d)
        xin = ffi.new("uint32_t[]", x + [0] * 300)
        out = ffi.new("uint32_t[]", [77] * 4)
        for fn in (lib.fxdp_numeric_multidim, lib.fxdp_numeric_multidim_ct):
            r = native.new_rng_seeded(1, 0)
            assert fn(r, cfg, xin, out) == 1, cfg_d
            assert list(out) == [77] * 4 and native.bits_used(r) == 0
    cfg = ffi.new("fxdp_numeric_multidim_cfg *", good)
    assert lib.fxdp_numeric_multidim(native.new_rng_seeded(1, 0), cfg, ffi.new("uint32_t[]", [0, 256, 0]),
                               ffi.new("uint32_t[]", 4)) == 0


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    m = fxdp.make_numeric_multidim(0, 1, 6, 4, constant_time=ct)
    x = np.tile((np.arange(64) / 64)[:, None], (1, 4))      # on the grid: the release itself fails
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()


def test_config_toml_cli_rows_and_device_spec(capsys, tmp_path):
    from fxdp.cli import main
    from fxdp.config import dumps, load_config
    m = fxdp.make_numeric_multidim([0, -20], [100, 60], 6, 2, base="hybrid", constant_time=True)
    assert m.kind == "numeric_multidim" and m.config() == {"lo": [0, -20], "hi": [100, 60], "epsilon": 6, "dims": 2,
                                                          "base": "hybrid", "bits": 12, "constant_time": True}
    p = tmp_path / "md.toml"
    p.write_text(dumps(m))
    assert repr(load_config(str(p)).mechanism) == repr(m)
    spec = m.device_spec()
    assert spec["c_function"] == "fxdp_numeric_multidim_ct" and spec["input"]["count"] == 2
    assert spec["output"]["count"] == 4 and "fxdp_mech_numeric_multidim.c" in spec["sources"]
    assert m.decode_reports(m.encode_reports(m.simulate(m.population(50, 1)[0], seed=2))).shape == (50, 4)
    code = main(["simulate", str(p), "--devices", "20000", "--seed", "7", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["name"] for r in d["estimates"]] == ["mean[0]", "mean[1]"]
    for row in d["estimates"]:
        assert abs(row["estimate"] - row["true"]) < 5 * row["stderr"]


def test_budgeted_form_is_constant_and_fails_the_same_way_everywhere():
    """uniform_version 2 (the default, issue 32): the subset's k draws read 128 bits each whatever the
    stream; words that reject in every round (d = 3, k = 1: bound 3, w = 0) fail in the reference,
    Numba and C alike (RangeError / FXDP_ERR_RANGE, nothing released); uniform_version 1 pins the old
    draws (config and repr show it)."""
    from fxdp import native
    from fxdp.errors import RangeError
    from fxdp.mechanisms.readings._kernels_numeric_multidim import release_numeric_multidim
    from fxdp.samplers import _kernels as K
    m = fxdp.make_numeric_multidim(0, 1, 2, 3, base="duchi", report_dims=1, bits=1, constant_time=True, prob_bits=3)
    assert m.ct_mode == 2 and "uniform_version" not in m.config()
    m1 = fxdp.make_numeric_multidim(0, 1, 2, 3, base="duchi", report_dims=1, bits=1, constant_time=True,
                                    prob_bits=3, uniform_version=1)
    assert m1.config()["uniform_version"] == 1 and "uniform_version=1" in repr(m1)
    du = m.inner
    args = (0, 0, 0, 0, m.prob_bits, m.bits, du.base_num, du.slope, m.ct_mode, m.d, m.k)
    x = (0, 1, 2)
    for words, fails in (([0, 0, 0, 0, 0x80000000], True), ([0, 0, 0, 0x55555556, 0x80000000], False)):
        src = ReplaySource(words)
        tmp, out = np.zeros(2, np.int64), np.full(2, -1, np.int64)
        st = K.replay_state(words)
        s_nb = release_numeric_multidim(st, *args, np.array(x, np.int64), tmp, out)
        r = native.new_rng_replay(words)
        o = native.ffi.new("uint32_t[2]", [7, 7])
        s_c = native.lib.fxdp_numeric_multidim_ct(r, m.c_config().cfg, native.ffi.new("uint32_t[3]", list(x)), o)
        if fails:
            with pytest.raises(RangeError):
                m.release(src, x)
            assert s_nb == K.ERR_RANGE and s_c == 3 and (out == -1).all() and list(o) == [0, 0]
        else:
            want = m.release(src, x)
            assert s_nb == 0 and s_c == 0 and tuple(out) == want == tuple(o)
