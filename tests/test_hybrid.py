"""The Hybrid mechanism on a grid (fxdp/mechanisms/hybrid.py): the branch probability and the
realized epsilon, exactness by enumeration of every bit string, reference / Numba / C parity,
the exact audit, the unbiased mean and its closed-form variance, bad input."""
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import EntropyError
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms import _fleet
from fxdp.reports import worst_pair

CT = [False, True]
IDS = ["lazy", "ct"]


def test_beta_and_epsilon():
    for eps in (0.5, 0.61, 1, 2, 4):
        m = fxdp.make_hybrid(0, 1, eps)
        want = 0.0 if eps <= 0.61 else 1 - math.exp(-eps / 2)
        assert abs(float(m.beta) - want) <= 2.0 ** -32
        assert m.epsilon <= eps + 1e-15
        if m.b == 0:
            assert m.epsilon == m.duchi.epsilon
        else:
            assert m.epsilon == max(m.duchi.epsilon, m.pm.epsilon)


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_every_bit_string_gives_the_exact_distribution(ct):
    """bits = 1, prob_bits = 4, eps = 2 (w = 1: no rejection): every string of the most bits a
    release reads; the constant-time form reads exactly 3 k + 2 bits bits."""
    m = fxdp.make_hybrid(0, 10, 2, bits=1, constant_time=ct, prob_bits=4)
    B = 3 * 4 + 2 * 1 if ct else 4 + 4 + 1
    assert m.pm.w == 1
    for i in range(m.N + 1):
        counts = Counter()
        for s in range(1 << B):
            src = ReplaySource.from_bits(s, B)
            counts[m.release(src, i)] += 1
            if ct:
                assert src.bits_used == B
        assert {j: Fraction(c, 1 << B) for j, c in counts.items()} == {j: p for j, p in m.output_pmf(i).items() if p}


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_hybrid(-5, 35, 2, constant_time=ct)
    vals, _ = m.population(20_000, seed=7, shape="uniform")
    ids = np.arange(20_000, dtype=np.uint64) * 977 + 5
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, vals, 99, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, vals, 99, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert (out_nb == out_c).all() and (bits_nb == bits_c).all()
    assert (out_nb >= m.L).any() and (out_nb < m.L).any()
    idx = m.grid_indices(vals)
    for j in range(0, 20_000, 97):
        src = ChaCha20Source(99, int(ids[j]))
        assert m.release(src, int(idx[j])) == out_nb[j]
        assert src.bits_used == bits_nb[j]
    if ct:
        assert (bits_nb == 3 * 32 + 2 * 12).all()
    from fxdp import native
    for dev in range(20):
        assert dv.c_release(m, native.new_rng_seeded(3, dev), float(vals[dev])) == \
            m.release(ChaCha20Source(3, dev), int(idx[dev]))


def test_audit_closed_form_equals_enumeration():
    for eps, bits in ((2, 2), (0.5, 2), (4, 1)):
        m = fxdp.make_hybrid(0, 1, eps, bits=bits, prob_bits=12)
        ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
        rep = fxdp.audit(m)
        assert ratio == m._ratio and rep.epsilon_realized == m.epsilon


def test_estimator_is_unbiased_with_the_closed_form_variance():
    for ct in CT:
        m = fxdp.make_hybrid(10, 30, 2, constant_time=ct)
        vals, truth = m.synthetic_population(20_000, seed=1)
        est = np.array([m.estimate(m.simulate(vals, seed=s)).estimate for s in range(200)])
        var = m.variance(vals)
        assert abs(est.mean() - truth) < 4 * math.sqrt(var / 200)
        assert 0.7 < est.var(ddof=1) / var < 1.35
    for eps in (0.5, 1, 2, 4):
        m = fxdp.make_hybrid(0, 1, eps)
        v, _ = m.population(10_000, seed=3, shape="uniform")
        assert abs(m.variance(v) / m.continuous_variance(v) - 1) < 0.02


def test_bad_input_is_refused_and_c_releases_nothing():
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_hybrid(1, 0, 1)
    m = fxdp.make_hybrid(0, 10, 2)
    with pytest.raises(ValueError, match="never clamped"):
        m(float("nan"))
    with pytest.raises(ValueError, match=r"symbols in \[0, "):
        m.estimate([m.L + 2])
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    good = m._cfg_fields()
    bads = [dict(good, b=1 << 32), dict(good, pm=dict(good["pm"], bits=11)),
            dict(good, duchi=dict(good["duchi"], a_p=0)), dict(good, pm=dict(good["pm"], w=0))]
    for cfg_d, x in [(c, 0) for c in bads] + [(good, 4097)]:
        cfg = ffi.new("fxdp_hm_cfg *", cfg_d)
        out = ffi.new("uint32_t *", 77)
        r = native.new_rng_seeded(1, 0)
        for fn in (lib.fxdp_hybrid, lib.fxdp_hybrid_ct):
            assert fn(r, cfg, ffi.new("uint32_t *", x), out) == 1 and out[0] == 77
            assert native.bits_used(r) == 0


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    m = fxdp.make_hybrid(0, 1, 2, constant_time=ct)
    x = np.arange(64) / 64          # on the grid: no rounding draws, the release itself fails
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()


def test_config_and_kind():
    m = fxdp.mechanisms.make_hybrid(-20, 60, 2, constant_time=True)
    assert m.kind == "hybrid" and m.config()["epsilon"] == 2
    assert m.device_spec()["c_function"] == "fxdp_hybrid_ct"
    assert "exactly 120 random bits" in m.device_spec()["summary"]


def test_grid_crossover_and_switch_point_match_the_paper():
    """The worst-case crossover of Duchi and Piecewise (continuous ~1.29) and the Hybrid switch
    point (paper: 0.61), from the grid closed forms at bits = 12 (benchmarks/bench_numeric.py)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_numeric.py"
    spec = importlib.util.spec_from_file_location("bench_numeric", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert abs(bench.crossover() - 1.29) < 0.01
    assert abs(bench.hybrid_switch() - 0.61) < 0.01


def test_recommend_numeric_ranks_by_the_worst_case_closed_forms():
    """Duchi wins at small epsilon, Piecewise/Hybrid at large; Hybrid is never worse than both."""
    small = fxdp.recommend_numeric(0, 40, 0.5, 10**6)
    large = fxdp.recommend_numeric(0, 40, 4, 10**6)
    assert small[0]["kind"] in ("duchi", "hybrid") and large[0]["kind"] in ("piecewise", "hybrid")
    for rows in (small, large):
        v = {r["kind"]: r["variance"] for r in rows}
        assert v["hybrid"] <= min(v["duchi"], v["piecewise"]) * 1.0001
        # ranked by the worst-case MSE (bias included: the fixed-point Laplace's clamping)
        assert [r["mse"] for r in rows] == sorted(r["mse"] for r in rows)
        assert v["duchi"] == pytest.approx(fxdp.make_duchi(0, 40, rows[0]["config"]["epsilon"]).worst_case_variance(10**6))
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.recommend_numeric(5, 5, 1, 10)
