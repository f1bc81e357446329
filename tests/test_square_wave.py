"""The Square Wave mechanism on a grid (fxdp/mechanisms/readings/square_wave.py): the window width from the
paper's b, the realized epsilon, exactness by enumeration of every bit string, reference / Numba /
C parity on the keyed stream, the exact audit, the unbiased mean and its closed-form variance
against the continuous SW, the exact transition matrix and EMS, the simulate rows, bad input and
entropy failure."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest

import _grid_mech_checks as G
import fxdp
from _grid_mech_checks import CT, IDS
from fxdp.mechanisms.readings import square_wave as swm


def test_paper_b_is_the_closed_form_and_runs_from_one_half_to_zero():
    for eps in (0.05, 0.5, 1, 2, 4, 8):
        e = math.exp(eps)
        assert swm.paper_b(eps) == pytest.approx((eps * e - e + 1) / (2 * e * (e - 1 - eps)), rel=1e-9)
    assert swm.paper_b(1e-6) == pytest.approx(0.5, abs=1e-6)
    bs = [swm.paper_b(e) for e in (0.01, 0.1, 1, 4, 16)]
    assert all(x > y for x, y in zip(bs, bs[1:])) and bs[-1] < 0.01


@pytest.mark.parametrize("eps", [Fraction(1, 2), 1, 2, 4, 8])
def test_realized_epsilon_never_exceeds_the_request_and_the_window_is_the_papers(eps):
    for bits, k in ((4, 16), (12, 32)):
        m = fxdp.make_square_wave(0, 1, eps, bits=bits, prob_bits=k)
        G.check_band_rounding(m, eps, bits, k)
        target = 2 * swm.paper_b(eps) * m.N
        assert m.w == max(1, min(m.N, round(target)))
        if 1 <= target <= m.N:
            assert abs(m.b - Fraction(target / (2 * m.N))) <= Fraction(1, 4 * m.N)   # nearest: half a cell
        assert m.L == m.N + m.w and m.realized()["b"] == Fraction(m.w, 2 * m.N)


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("bits, k, eps", [(2, 6, 1), (2, 5, 3), (1, 4, 1), (3, 7, 2), (2, 6, "1/2")])
def test_every_bit_string_gives_the_exact_distribution(ct, bits, k, eps):
    """Every string of B bits: the constant-time form reads exactly k + bits bits, so the outcome
    counts are the exact pmf times 2^B.  The lazy form rejection-samples the window cell when w is
    not a power of two: releases that need more than the B bits (ReplaySource pads with zeros to a
    whole word, so they are recognized by bits_used > B; counted) account for the rest."""
    m = fxdp.make_square_wave(0, 10, eps, bits=bits, constant_time=ct, prob_bits=k, bins=2)
    B = k + bits if ct else k + max(bits, 3 * m.w_bits)
    if eps == "1/2":
        assert m.w == 3                       # not a power of two: the lazy window cell is rejection-sampled
    for i in range(m.N + 1):
        counts, fail = G.bit_string_counts(m, i, B, ct, overread_fails=True)
        pmf = m.output_pmf(i)
        if eps == "1/2" and not ct:
            assert fail > 0                   # the bounded branch is exercised
        assert {j for j, p in pmf.items() if p == pmf[i]} >= set(range(i, i + m.w))       # the window
        G.assert_counts_are_the_pmf(pmf, counts, fail, B, ct)


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_reference_numba_and_c_agree_on_the_keyed_stream(ct):
    m = fxdp.make_square_wave(-5, 35, "3/2", constant_time=ct)
    out_nb = G.check_keyed_stream_parity(m, ct_bits=32 + 12 if ct else None, bits_vary=not ct)[3]
    assert out_nb.min() >= 0 and out_nb.max() < m.L


def test_c_and_numba_single_release_match_the_reference():
    from fxdp.mechanisms.readings._kernels_square_wave import release_square_wave
    from fxdp.samplers import _kernels as K
    done = G.check_single_releases(lambda ct: fxdp.make_square_wave(0, 100, 1, bits=6, constant_time=ct),
                                   lambda st, m, ct, i: release_square_wave(st, m.a, m.w, m.prob_bits, m.bits, ct, i))
    for ct, m, st_nb in done:
        assert release_square_wave(st_nb, m.a, 65, m.prob_bits, m.bits, ct, 0)[0] == K.ERR_PARAM     # w past N + 1


@pytest.mark.parametrize("bits, k, eps", [(1, 8, 2), (2, 10, 1), (3, 32, 4)])
def test_audit_closed_form_equals_enumeration(bits, k, eps):
    m = fxdp.make_square_wave(0, 1, eps, bits=bits, prob_bits=k, bins=2)
    rep = G.check_audit_is_the_closed_form(m)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
    assert "window cell" in rep.method


def test_mean_is_unbiased_exactly_and_the_grid_variance_tracks_the_continuous_sw():
    m = fxdp.make_square_wave(0, 1, 1, bits=3, prob_bits=20, bins=2)
    for i in range(m.N + 1):
        pmf = m.output_pmf(i)
        t = Fraction(2 * i, m.N) - 1
        pos = {j: m.alpha * (j + Fraction(1, 2) - Fraction(m.L, 2)) for j in pmf}
        assert sum(p * pos[j] for j, p in pmf.items()) == t                        # unbiased, exactly
        var = sum(p * pos[j] ** 2 for j, p in pmf.items()) - t * t
        assert float(var) == pytest.approx(m.variance([float(m.reading(i))]) * 4)
        # the window is centred on the reading: the output values' mean is affine in it
        assert m.output_values([i + (m.w - 1) / 2])[0] == pytest.approx(float(m.reading(i)))
    G.check_variance_tracks_continuous(fxdp.make_square_wave, shapes=("uniform", "skewed"))


def test_continuous_variance_matches_a_monte_carlo_of_the_continuous_sw():
    """The derived closed form against the continuous SW sampled in float (a test-only model)."""
    m = fxdp.make_square_wave(0, 1, 2)
    e, b = math.exp(2), swm.paper_b(2)
    p, q = e / (2 * b * e + 1), 1 / (2 * b * e + 1)
    rng = np.random.default_rng(5)
    for v in (0.0, 0.3, 1.0):
        n = 400_000
        inside = rng.random(n) < 2 * b * p
        out = np.where(inside, v - b + 2 * b * rng.random(n), 0.0)
        u = rng.random(n) * 1.0                             # outside: length 1 with density q
        out_o = np.where(u < v, u - b, u + b)               # [-b, v - b) and (v + b, 1 + b]
        vt = np.where(inside, out, out_o)
        vhat = (vt - q * (1 + 2 * b) / 2) / (2 * b * (p - q))
        assert abs(vhat.mean() - v) < 5 * vhat.std() / math.sqrt(n)
        assert m.continuous_variance([v]) == pytest.approx(vhat.var(), rel=0.02)


def test_estimator_is_unbiased_with_the_closed_form_variance():
    """100 fleets of 10,000 devices: mean error within 4 standard errors, empirical variance
    within [0.65, 1.4] of the closed form, reported standard error within 10 % of it."""
    m = fxdp.make_square_wave(10, 30, 2, constant_time=True)
    vals, truth = m.population(10_000, seed=1)
    se, var = G.check_unbiased_mean(m, vals, truth, 100, 0.65, 1.4)
    assert (np.abs(se / math.sqrt(var) - 1) < 0.1).all()


@pytest.mark.parametrize("bits, eps, bins", [(3, 1, 2), (4, 2, 4), (3, 4, 8)])
def test_transition_matrix_is_the_exact_average_of_the_pmf_over_each_bin(bits, eps, bins):
    m = fxdp.make_square_wave(0, 1, eps, bits=bits, prob_bits=16, bins=bins)
    count, levels, sizes = m.transition_counts()
    s, e = swm._bin_edges_idx(m.N, m.fine_bins)
    pin = Fraction(m.a, 1 << 16)
    pout = Fraction((1 << 16) - m.band_num, 1 << (16 + bits))
    size, groups = m.cell_groups()
    for r in range(m.fine_bins):
        lv = range(s[r], e[r])
        assert list(lv) == [i for i in range(m.N + 1) if min(m.fine_bins - 1, i * m.fine_bins // m.N) == r]
        for g in range(groups):
            cells = range(g * size, min(m.L, (g + 1) * size))
            exact = sum(m.output_pmf(i)[j] for i in lv for j in cells) / len(lv)
            assert exact == pout * len(cells) + (pin - pout) * Fraction(int(count[g, r]), int(levels[r]))
    assert np.allclose(m.transition_matrix().sum(axis=0), 1.0, atol=1e-12)


def test_transition_counts_with_grouped_output_cells(monkeypatch):
    monkeypatch.setattr(swm, "EMS_MAX_CELLS", 7)
    m = fxdp.make_square_wave(0, 1, 1, bits=4, prob_bits=16, bins=4)
    size, groups = m.cell_groups()
    assert size > 1 and groups <= 7
    count, levels, sizes = m.transition_counts()
    s, e = swm._bin_edges_idx(m.N, m.fine_bins)
    for r in range(m.fine_bins):
        for g in range(groups):
            brute = sum(1 for i in range(s[r], e[r]) for j in range(g * size, min(m.L, (g + 1) * size))
                        if i <= j < i + m.w)
            assert brute == count[g, r]
    assert sizes.sum() == m.L


def test_ems_without_smoothing_recovers_the_distribution_from_exact_counts():
    """Noiseless report counts n M theta: plain EM (maximum likelihood) converges to theta."""
    m = fxdp.make_square_wave(0, 1, 2, bits=8, bins=8)
    mat = m.transition_matrix()
    theta = np.random.default_rng(2).dirichlet(np.ones(m.fine_bins) * 3)
    est, rounds = swm.ems(mat, mat @ theta * 1e6, smooth=False, tol=1e-13, max_iter=200_000)
    coarse = lambda th: th.reshape(m.bins, -1).sum(axis=1)     # noqa: E731
    assert np.abs(coarse(est) - coarse(theta)).sum() < 1e-3 and rounds > 10
    assert np.abs(est - theta).sum() < 0.05            # the fine bins converge slowly (EM), but do
    assert abs(est.sum() - 1) < 1e-12 and (est >= 0).all()


def test_ems_recovers_a_known_distribution_from_a_simulated_fleet():
    """Documented tolerance (docs/mechanisms.md): Beta(2, 5) readings, 200,000 devices, seed 1,
    16 bins; the EMS histogram's L1 distance to the true histogram is below 0.06 at epsilon 2
    and below 0.03 at epsilon 4 (measured 0.036 and 0.010), and far below the uniform guess's."""
    for eps, tol in ((2, 0.06), (4, 0.03)):
        m = fxdp.make_square_wave(0, 40, eps)
        vals, truth = m.synthetic_population(200_000, 1)
        h = m.estimate_distribution(m.simulate(vals, seed=3))
        assert abs(h.estimate.sum() - 1) < 1e-9 and (h.estimate >= 0).all()
        err = np.abs(h.estimate - truth[1:]).sum()
        assert err < tol, (eps, err)
        assert err < 0.25 * np.abs(1 / 16 - truth[1:]).sum()
        assert (h.stderr > 0).all() and (h.stderr < 0.02).all()


def test_rows_multiset_and_cli_simulate(capsys, tmp_path):
    from fxdp.cli import main
    m = fxdp.make_square_wave(0, 40, 2, bins=8)
    vals, truth = m.synthetic_population(30_000, 4)
    assert truth.shape == (9,) and abs(truth[1:].sum() - 1) < 1e-12
    assert (truth == m.true_statistic(vals)).all()
    reports = m.simulate(vals, seed=5)
    rows = m.estimate_rows(reports, truth)
    assert [r["name"] for r in rows] == ["mean"] + [f"histogram[{r}]" for r in range(8)]
    assert abs(rows[0]["estimate"] - truth[0]) < 5 * rows[0]["stderr"]
    stat = m.report_statistic()
    stat.add(reports[:10_000]).add(reports[10_000:])
    rows_ms = stat.estimate_rows(truth)
    for a, b in zip(rows, rows_ms):
        assert a["name"] == b["name"] and a["true"] == b["true"]
        assert a["estimate"] == pytest.approx(b["estimate"], rel=1e-9, abs=1e-12)
    cfg = tmp_path / "sw.toml"
    cfg.write_text('[mechanism]\nkind = "square_wave"\nlo = 0\nhi = 40\nepsilon = 2\nbits = 12\n'
                   'constant_time = true\n')
    assert main(["simulate", str(cfg), "--devices", "20000", "--seed", "7", "--json"]) == 0
    d = json.loads(capsys.readouterr()[0])
    names = [r["name"] for r in d["estimates"]]
    assert names[0] == "mean" and len(names) == 1 + swm.DEFAULT_BINS
    for r in d["estimates"]:
        assert set(r) == {"name", "true", "estimate", "stderr"} and r["true"] is not None


def test_bad_input_is_refused_and_nothing_is_released():
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_square_wave(3, 3, 1)
    with pytest.raises(ValueError, match="lo must be below hi"):
        fxdp.make_square_wave(4, 3, 1)
    with pytest.raises(ValueError, match=r"bits must be in \[1, 24\], got 25; the nearest valid value is 24"):
        fxdp.make_square_wave(0, 1, 1, bits=25)
    with pytest.raises(ValueError, match=r"bits must be in \[1, 24\], got 0; the nearest valid value is 1"):
        fxdp.make_square_wave(0, 1, 1, bits=0)
    with pytest.raises(ValueError, match=r"bins must be in \[1, 16\], got 17; the nearest valid value is 16"):
        fxdp.make_square_wave(0, 1, 1, bits=4, bins=17)
    with pytest.raises(ValueError, match="epsilon"):
        fxdp.make_square_wave(0, 1, 0)
    with pytest.raises(ValueError, match=r"too small for prob_bits = 8 at bits = 4.*nearest valid epsilon is"):
        fxdp.make_square_wave(0, 1, Fraction(1, 100), bits=4, prob_bits=8)
    m = fxdp.make_square_wave(0, 10, 1)
    for bad in (float("nan"), float("inf"), float("-inf")):   # 11, -0.5 are clamped (test_numeric_rounding)
        with pytest.raises(ValueError, match="never clamped"):
            m(bad)
        with pytest.raises(ValueError, match="never clamped"):
            m.simulate([1.0, bad], seed=1)
    with pytest.raises(ValueError, match=r"cell indices in \[0, "):
        m.estimate([0, m.L])
    with pytest.raises(ValueError, match=r"cell indices in \[0, "):
        m.estimate_distribution([0, m.L])


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_square_wave(0, 1, 1, bits=8)
    base = {"a": m.a, "w": m.w, "prob_bits": 32, "bits": 8}
    bad_cfgs = [dict(base, bits=0), dict(base, bits=25), dict(base, prob_bits=1), dict(base, prob_bits=33),
                dict(base, a=0), dict(base, w=0), dict(base, w=257), dict(base, a=(1 << 32) // m.w + 1)]
    G.check_c_refuses("fxdp_square_wave_cfg", ("fxdp_square_wave", "fxdp_square_wave_ct"),
                      [(c, 0) for c in bad_cfgs] + [(base, 257), (base, 0xFFFFFFFF)])
    cfg = ffi.new("fxdp_square_wave_cfg *", base)
    for fn in (lib.fxdp_square_wave, lib.fxdp_square_wave_ct):
        assert fn(ffi.NULL, cfg, ffi.new("uint32_t *", 0), ffi.new("uint32_t *")) == 1
        assert fn(native.new_rng_seeded(1, 0), ffi.NULL, ffi.new("uint32_t *", 0), ffi.new("uint32_t *")) == 1


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(ct, monkeypatch):
    G.check_entropy_failure(fxdp.make_square_wave(0, 1, 1, constant_time=ct), monkeypatch)


def test_config_device_spec_and_wire():
    m, spec = G.check_config_and_spec(fxdp.mechanisms.make_square_wave, "square_wave", "fxdp_square_wave_ct", 44)
    assert fxdp.make_square_wave(0, 1, 1, bins=8).config()["bins"] == 8
    assert spec["output"]["max"] == m.L - 1 and "fxdp_mech_square_wave.c" in spec["sources"]
    fields = m.report_layout().fields
    assert [(f.name, f.count, f.lo, f.hi) for f in fields] == [("y", 1, 0, m.L - 1)]
    assert m.report_layout().bits == (m.L - 1).bit_length()          # 13 bits per report at 12 bits
    reports = m.simulate(np.linspace(-20, 60, 500), seed=2)
    assert (m.decode_reports(m.encode_reports(reports)) == reports).all()
