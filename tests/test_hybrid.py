"""The Hybrid mechanism on a grid (fxdp/mechanisms/readings/hybrid.py): the branch probability and the
realized epsilon, exactness by enumeration of every bit string, reference / Numba / C parity,
the exact audit, the unbiased mean and its closed-form variance, bad input."""
import math

import pytest

import _grid_mech_checks as G
import fxdp
from _grid_mech_checks import CT, IDS
from fxdp.bitsource import ChaCha20Source
from fxdp.mechanisms import _device as dv


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
        counts, fail = G.bit_string_counts(m, i, B, ct)
        assert fail == 0                      # no release runs out of the B bits
        G.assert_counts_are_the_pmf(m.output_pmf(i), counts, fail, B, ct)


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_hybrid(-5, 35, 2, constant_time=ct)
    vals, _, idx, out_nb = G.check_keyed_stream_parity(m, ct_bits=3 * 32 + 2 * 12 if ct else None,
                                                       device_form=False)
    assert (out_nb >= m.L).any() and (out_nb < m.L).any()
    from fxdp import native
    for dev in range(20):
        assert dv.c_release(m, native.new_rng_seeded(3, dev), float(vals[dev])) == \
            m.release(ChaCha20Source(3, dev), int(idx[dev]))


def test_audit_closed_form_equals_enumeration():
    for eps, bits in ((2, 2), (0.5, 2), (4, 1)):
        G.check_audit_is_the_closed_form(fxdp.make_hybrid(0, 1, eps, bits=bits, prob_bits=12))


def test_estimator_is_unbiased_with_the_closed_form_variance():
    for ct in CT:
        m = fxdp.make_hybrid(10, 30, 2, constant_time=ct)
        vals, truth = m.synthetic_population(20_000, seed=1)
        G.check_unbiased_mean(m, vals, truth, 200, 0.7, 1.35)
    G.check_variance_tracks_continuous(fxdp.make_hybrid)


def test_bad_input_is_refused_and_c_releases_nothing():
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_hybrid(1, 0, 1)
    m = fxdp.make_hybrid(0, 10, 2)
    with pytest.raises(ValueError, match="never clamped"):
        m(float("nan"))
    with pytest.raises(ValueError, match=r"symbols in \[0, "):
        m.estimate([m.L + 2])
    good = m._cfg_fields()
    bads = [dict(good, b=1 << 32), dict(good, pm=dict(good["pm"], bits=11)),
            dict(good, duchi=dict(good["duchi"], a_p=0)), dict(good, pm=dict(good["pm"], w=0))]
    G.check_c_refuses("fxdp_hybrid_cfg", ("fxdp_hybrid", "fxdp_hybrid_ct"), [(c, 0) for c in bads] + [(good, 4097)])


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    G.check_entropy_failure(fxdp.make_hybrid(0, 1, 2, constant_time=ct), monkeypatch)


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
