"""Longitudinal frequency oracles (fxdp/mechanisms/memoized/longitudinal.py): L-GRR and L-OUE.  Realized
parameters (both privacy levels certified, rounding minimal, the peer's closed forms), exactness by
enumeration of every bit string of both steps, memoization by derivation, reference / Numba / C
parity over several rounds, the exact audit (composed channel and permanent step), the per-round
estimator and its closed-form variance, IBU, bad input and entropy failure."""
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
from fxdp.mechanisms.memoized.longitudinal import permanent_source, provision, secret_from_seed
from fxdp.reports import worst_pair

CT = [False, True]
IDS = ["lazy", "ct"]
MAKERS = [fxdp.make_longitudinal_grr, fxdp.make_longitudinal_ue]
KINDS = ["grr", "ue"]


def _one_step_less_noise(m):
    """The composed ratio with the instantaneous step one dyadic step less noisy (None at the end)."""
    two_k = 1 << m.bits
    if m.kind == "longitudinal_grr":
        return m._composed_ratio(m.v - 1) if m.v > 1 else None
    return m._composed_ratio(m.a_p2 + 1) if m.a_p2 + 1 < two_k else None


@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
@pytest.mark.parametrize("eps_perm, eps_1", [(4, 1), (2, Fraction(1, 2)), (8, 2), (1, "0.9"), (20, 3)])
def test_both_epsilons_are_certified_and_the_instantaneous_step_is_the_least_noisy(make, eps_perm, eps_1):
    for d, bits in [(2, 16), (10, 32), (300, 32)]:
        m = make(d, eps_perm, eps_1, bits=bits)
        assert exp_le(m._ratio, Fraction(eps_1)) and exp_le(m._ratio_perm, eps_perm)
        assert m.epsilon <= float(Fraction(eps_1)) + 1e-15 and m.epsilon_infinite <= eps_perm + 1e-15
        assert m.epsilon < m.epsilon_infinite and m.epsilon == m.privacy_map(1)
        less = _one_step_less_noise(m)
        if less is not None:
            assert not exp_le(less, Fraction(eps_1))
        p, q = m.support_probabilities()
        assert m._ratio == (p / q if m.kind == "longitudinal_grr" else p * (1 - q) / ((1 - p) * q))


def test_permanent_steps_round_toward_more_noise_minimally():
    for eps in (Fraction(1, 2), 1, 3, 9):
        g = fxdp.make_longitudinal_grr(20, eps, Fraction(1, 4))
        assert exp_le(Fraction(g.w0, g.w), eps)
        assert not exp_le(Fraction(g.w0 + 19, g.w - 1), eps)           # w - 1 would exceed eps_perm
        u = fxdp.make_longitudinal_ue(20, eps, Fraction(1, 4))
        two_k = 1 << u.bits
        assert u.a_p1 == two_k // 2 and exp_le(Fraction(two_k - u.a_q1, u.a_q1), eps)
        assert not exp_le(Fraction(two_k - u.a_q1 + 1, u.a_q1 - 1), eps)


@pytest.mark.parametrize("eps_perm, eps_1", [(4, 1), (2, "0.5"), (6, 3)])
def test_parameters_against_the_peers_closed_forms(eps_perm, eps_1):
    """multi-freq-ldpy's L_OSUE solves the same equation in floats (unrounded): the same p2.  Its L_GRR
    solves e^eps_1 = (p1 p2 + q1 q2) / (p1 q2 + q1 p2), the composed ratio only for k = 2: there the
    p2 agree; for k > 2 its p2 is noisier than needed (exact one-report epsilon below eps_1), while
    fxdp's attains eps_1 up to rounding."""
    e_p, e_1 = np.exp(eps_perm), np.exp(float(Fraction(eps_1)))
    for k in (2, 10):
        g = fxdp.make_longitudinal_grr(k, eps_perm, eps_1)
        p1 = e_p / (e_p + k - 1)
        q1 = (1 - p1) / (k - 1)
        p2 = (q1 - e_1 * p1) / (-p1 * e_1 + k * q1 * e_1 - q1 * e_1 - p1 * (k - 1) + q1)
        assert float(g.p1) == pytest.approx(p1, rel=1e-7)
        assert g.epsilon == pytest.approx(float(Fraction(eps_1)), rel=1e-6)
        if k == 2:
            assert float(g.p2) == pytest.approx(p2, rel=1e-6)
        else:
            assert float(g.p2) > p2 * (1 + 1e-3)
            q2 = (1 - p2) / (k - 1)
            exact = (p1 * p2 + (1 - p1) * q2) / (p1 * q2 + q1 * p2 + (k - 2) * q1 * q2)
            assert np.log(exact) < float(Fraction(eps_1)) - 1e-3
    u = fxdp.make_longitudinal_ue(10, eps_perm, eps_1)
    p2_osue = (1 - e_1 * e_p) / (e_1 - e_p - e_1 * e_p + 1)
    assert float(u.q1) == pytest.approx(1 / (e_p + 1), rel=1e-7)
    assert float(u.p2) == pytest.approx(p2_osue, rel=1e-6)


def _enumerate(step, arg, nbits):
    counts = Counter()
    for s in range(1 << nbits):
        y = step(ReplaySource.from_bits(s, nbits), arg)
        counts[tuple(y) if isinstance(y, list) else y] += 1
    return {y: Fraction(c, 1 << nbits) for y, c in counts.items()}


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("d", [3, 5])
def test_grr_every_bit_string_of_both_steps_gives_the_exact_distribution(ct, d):
    """bits = 4; lazy steps read uniform_below(d - 1) (d - 1 a power of two: no rejection) and at
    most 4 Bernoulli bits, constant-time steps exactly 4 bits.  Each step's outcome counts over all
    strings are its exact pmf times 2^B; composing them gives output_pmf, whose worst ratio is
    the claimed epsilon."""
    m = fxdp.make_longitudinal_grr(d, 2, 1, constant_time=ct, bits=4)
    nbits = 4 if ct else 4 + (d - 2).bit_length()
    for x in range(d):
        perm = _enumerate(m.permanent_step, x, nbits)
        assert perm == {y: pr for y, pr in m.permanent_pmf(x).items() if pr}
        composed = Counter()
        for y1, pr1 in perm.items():
            inst = _enumerate(m.instantaneous_step, y1, nbits)
            assert inst == {y: pr for y, pr in m.instantaneous_pmf(y1).items() if pr}
            for y, pr in inst.items():
                composed[y] += pr1 * pr
        assert dict(composed) == m.output_pmf(x)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio and fxdp.audit(m).epsilon_realized == m.epsilon


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_ue_every_bit_string_of_both_steps_gives_the_exact_distribution(ct):
    m = fxdp.make_longitudinal_ue(3, 2, 1, constant_time=ct, bits=3)
    assert (m.a_q1, m.a_p2) == (1, 6)
    nbits = 9
    for x in range(3):
        perm = _enumerate(m.permanent_step, x, nbits)
        assert perm == m.permanent_pmf(x)
        composed = Counter()
        for b1, pr1 in perm.items():
            inst = _enumerate(m.instantaneous_step, list(b1), nbits)
            assert inst == {y: pr for y, pr in m.instantaneous_pmf(b1).items() if pr}
            for y, pr in inst.items():
                composed[y] += pr1 * pr
        assert dict(composed) == m.output_pmf(x)
    if ct:
        src = ReplaySource.from_bits(0, 9)
        m.instantaneous_step(src, [1, 0, 1])
        assert src.bits_used == 9


def test_the_permanent_response_is_memoized_by_derivation():
    m = fxdp.make_longitudinal_grr(50, 3, 1)
    secret = secret_from_seed(7, 3)
    assert secret == provision(ChaCha20Source(7, 3, 1))
    first = [m.permanent(secret, x) for x in range(50)]
    assert first == [m.permanent(secret, x) for x in range(50)]                 # same (K, x), same y1
    assert first == [m.permanent_step(permanent_source(secret, x), x) for x in range(50)]
    other = [m.permanent(secret_from_seed(7, 4), x) for x in range(50)]
    assert first != other                                                         # another device
    for x in (5, 9, 5):                       # a report is the instantaneous step of the memoized y1
        assert m.report(ChaCha20Source(7, x), x, secret) == m.instantaneous_step(ChaCha20Source(7, x), first[x])
    u = fxdp.make_longitudinal_ue(12, 3, 1)
    assert u.permanent(secret, 4) == u.permanent(secret, 4) != u.permanent(secret, 5)


def _reference_rounds(m, x, seed, ids):
    """(reports (rounds, n[, d]), bits_used (n,)) from the reference, device by device."""
    rounds, n = x.shape
    out, used = [[None] * n for _ in range(rounds)], []
    for i in range(n):
        secret = secret_from_seed(seed, int(ids[i]))
        src = ChaCha20Source(seed, int(ids[i]))
        for r in range(rounds):
            out[r][i] = m.report(src, int(x[r, i]), secret)
        used.append(src.bits_used)
    return np.array(out), np.array(used)


def _c_rounds(m, x, seed, ids, first_block=0):
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    rounds, n = x.shape
    cc = m.c_config()
    xin = np.ascontiguousarray(x, dtype=np.uint32)
    out = np.zeros((rounds, n) if cc.out_count is None else (rounds, n, cc.out_count), dtype=cc.out_dtype)
    status = np.zeros(n, np.uint8)
    bits = np.zeros(n, np.uint64)
    fn = lib.fxdp_longitudinal_grr_rounds if m.kind == "longitudinal_grr" else lib.fxdp_longitudinal_ue_rounds
    key = np.array(fxdp.samplers._kernels.seed_key_words(seed), dtype=np.uint32)
    fn(ffi.from_buffer("uint32_t[]", key), ffi.from_buffer("uint64_t[]", ids), n, rounds, first_block, cc.cfg,
       int(cc.constant_time), ffi.from_buffer("uint32_t[]", xin), ffi.from_buffer(f"{cc.out_ctype}[]", out),
       ffi.from_buffer("uint8_t[]", status), ffi.from_buffer("uint64_t[]", bits))
    return out, status, bits.astype(np.int64)


@pytest.mark.parametrize("ct", CT, ids=IDS)
@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
def test_reference_numba_and_c_agree_over_rounds(make, ct):
    """Fixed items for 4 rounds, then a (rounds, n) matrix whose items change and come back (a
    returning item reuses its memoized permanent response)."""
    d = 13
    m = make(d, "5/2", 1, constant_time=ct)
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
        assert (out == c_out).all() and (bits == c_bits).all()
        sub = np.arange(0, n, 61)
        ref_out, ref_bits = _reference_rounds(m, x[:, sub], 21, ids[sub])
        assert (ref_out == out[:, sub]).all() and (ref_bits == bits[sub]).all()
        per_round = m.bits if m.kind == "longitudinal_grr" else d * m.bits
        if ct:
            assert (bits == x.shape[0] * per_round).all()
        else:
            assert len(set(bits.tolist())) > 1
        assert (m.simulate(values, 21, rounds=rounds, device_ids=ids) == out).all()
    one = m.simulate(fixed, 21, device_ids=ids)                      # rounds=None: one round, squeezed
    assert one.shape == ((n,) if m.kind == "longitudinal_grr" else (n, d))
    assert (one == m.simulate(fixed, 21, rounds=1, device_ids=ids)[0]).all()
    c_out, c_st, c_bits, _ = dv.c_fleet(m, fixed, 21, device_ids=ids)    # the one-round host fleet
    assert (c_out == one).all()


@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
def test_c_device_api_and_export_release_match_the_reference(make):
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    grr = make is fxdp.make_longitudinal_grr
    name = "grr" if grr else "ue"
    for ct in CT:
        m = make(9, 3, 1, constant_time=ct)
        cc = m.c_config()
        report = getattr(lib, f"fxdp_longitudinal_{name}_report" + ("_ct" if ct else ""))
        for dev_id in range(12):
            dev = ffi.new("fxdp_longitudinal_device *")
            assert lib.fxdp_longitudinal_provision(native.new_rng_seeded(4, dev_id, 1), dev) == 0
            secret = secret_from_seed(4, dev_id)
            assert tuple(dev.secret) == secret
            r = native.new_rng_seeded(4, dev_id)
            src = ChaCha20Source(4, dev_id)
            for x in (dev_id % 9, 8, dev_id % 9):
                out = ffi.new("uint32_t *") if grr else ffi.new("uint8_t[]", 9)
                assert report(cc.cfg, dev, r, ffi.new("uint32_t *", x), out) == 0
                got = out[0] if grr else list(out)
                assert got == m.report(src, x, secret)
            assert native.bits_used(r) == src.bits_used
            # the export entry point: the secret from the sibling stream (seed, id, 1)
            assert dv.c_release(m, native.new_rng_seeded(4, dev_id), 2) == m.release_export(ChaCha20Source(4, dev_id), 2)
        # from a non-keyed rng (replay: 16 words) the export entry point draws a fresh secret from it
        if grr or not ct:                     # (L-OUE's constant-time form needs more than 16 words)
            words = [(0x9E3779B9 * (i + 1)) & 0xFFFFFFFF for i in range(16)]
            want = m.release_export(ReplaySource(words), 4)
            assert dv.c_release(m, native.new_rng_replay(words), 4) == want


@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
def test_audit_checks_both_levels(make):
    m = make(5, 3, 1, bits=16)
    rep = fxdp.audit(m)
    assert rep.epsilon_realized == rep.epsilon_claimed == m.epsilon
    assert rep.witness["epsilon_infinite_realized"] == rep.witness["epsilon_infinite_claimed"] == m.epsilon_infinite
    assert "enumeration" in rep.method
    perm = fxdp.audit(m.permanent_mechanism())
    assert perm.epsilon_realized == perm.epsilon_claimed == m.epsilon_infinite
    big = make(40, 3, 1, bits=16)                                   # closed form beyond enumeration
    rep = fxdp.audit(big)
    assert rep.epsilon_realized == big.epsilon and "closed form" in rep.method
    assert fxdp.audit(big.permanent_mechanism()).epsilon_realized == big.epsilon_infinite
    assert m.epsilon_reports(1) == m.epsilon and m.epsilon_reports(10**6) == m.epsilon_infinite
    assert m.epsilon_reports(10**6, distinct_items=3) <= 3 * m.epsilon_infinite * (1 + 1e-15)
    assert m.epsilon_reports(2) == pytest.approx(2 * m.epsilon)


@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
def test_estimator_is_unbiased_with_the_closed_form_variance(make):
    """200 fleets of 5,000 devices (one fixed Zipf population, seeds 0..199), d = 6, both forms: the
    mean error of every item is within 4 standard errors of 0 and the empirical variance over the
    fleets is within [0.7, 1.35] of the composed channel's closed form (a 3.5 sd band of a
    chi-square with 199 degrees of freedom over 199)."""
    for ct in CT:
        m = make(6, 3, 1, constant_time=ct)
        values, truth = m.synthetic_population(5_000, seed=1)
        est = np.array([m.estimate(m.simulate(values, seed=s)).estimate for s in range(200)])
        var = m.variance(truth, 5_000)
        err = est - truth
        assert (np.abs(err.mean(axis=0)) < 4 * np.sqrt(var / 200)).all()
        ratio = err.var(axis=0, ddof=1) / var
        assert ((ratio > 0.7) & (ratio < 1.35)).all(), ratio


@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
def test_every_round_is_estimated_and_ibu_runs_on_the_support(make):
    m = make(8, 4, 1)
    values, truth = m.synthetic_population(40_000, seed=2)
    reports = m.simulate(values, seed=5, rounds=3)
    ests = m.estimate_rounds(reports)
    assert len(ests) == 3
    se = np.sqrt(m.variance(truth, 40_000))
    for e in ests:
        assert (np.abs(e.estimate - truth) < 5 * se).all()
        assert e.stderr == pytest.approx(se, rel=0.2)
    assert not np.array_equal(ests[0].estimate, ests[1].estimate)
    ibu = fxdp.estimate.ibu(reports[0], m)
    assert ibu.estimate.sum() == pytest.approx(1) and (ibu.estimate >= 0).all()
    assert np.abs(ibu.estimate - truth).max() < 0.05
    rows = m.estimate_rows(reports[1], truth)
    assert [r["name"] for r in rows] == [f"frequency[{i}]" for i in range(8)]


def test_longitudinal_ue_beats_grr_at_a_large_domain():
    """Closed forms at n = 10^6, eps_perm = 4, eps_1 = 1, d = 1024: L-OUE's variance is far below L-GRR's."""
    g = fxdp.make_longitudinal_grr(1024, 4, 1)
    u = fxdp.make_longitudinal_ue(1024, 4, 1)
    assert u.variance(0.0, 10**6) * 20 < g.variance(0.0, 10**6)


def test_bad_input_is_refused_and_nothing_is_released():
    for make in MAKERS:
        with pytest.raises(ValueError, match=r"d must be in \[2, "):
            make(1, 2, 1)
        with pytest.raises(ValueError, match=r"epsilon_perm must be in \(0, 64\]"):
            make(4, 0, 1)
        with pytest.raises(ValueError, match=r"epsilon_1 must be in \(0, 2\)"):
            make(4, 2, 2)
        with pytest.raises(ValueError, match=r"epsilon_1 must be in \(0, 2\)"):
            make(4, 2, 0)
        with pytest.raises(ValueError, match="constant_time must be a bool"):
            make(4, 2, 1, constant_time=1)
        m = make(4, 2, 1)
        for bad in (4, -1, 1.0, True, "1"):
            with pytest.raises(ValueError, match=r"x \(item index\)"):
                m(bad)
        with pytest.raises(ValueError, match=r"items in \[0, 3\]|item indices in \[0, 3\]"):
            m.simulate([0, 4], seed=1)
        with pytest.raises(ValueError, match=r"items in \[0, 3\]"):
            m.simulate([[0, 1], [2, 4]], seed=1)
        with pytest.raises(ValueError, match="rounds = 3 but values has 2 rows"):
            m.simulate([[0, 1], [2, 3]], seed=1, rounds=3)
        with pytest.raises(ValueError, match=r"rounds must be in \[1, "):
            m.simulate([0, 1], seed=1, rounds=0)
    with pytest.raises(ValueError, match=r"bits must be in \[2, 32\]"):
        fxdp.make_longitudinal_grr(4, 2, 1, bits=33)
    with pytest.raises(ValueError, match=r"too small for d = 8, bits = 4.*nearest valid epsilon_perm is"):
        fxdp.make_longitudinal_grr(8, "0.01", "0.005", bits=4)
    with pytest.raises(ValueError, match=r"epsilon_1 = .* too small for bits = 4.*nearest valid epsilon_1 is"):
        fxdp.make_longitudinal_ue(4, 3, "0.001", bits=4)
    # the named values are valid and the least reachable ones: just below them is refused
    for make, kw, name in [(fxdp.make_longitudinal_grr, dict(d=7, epsilon_perm="0.01", epsilon_1="0.005"),
                            "epsilon_perm"),
                           (fxdp.make_longitudinal_grr, dict(d=7, epsilon_perm=3, epsilon_1="0.001"), "epsilon_1"),
                           (fxdp.make_longitudinal_ue, dict(d=4, epsilon_perm=3, epsilon_1="0.001"), "epsilon_1")]:
        with pytest.raises(ValueError) as ei:
            make(bits=4, **kw)
        nearest = float(str(ei.value).split(f"nearest valid {name} is ")[1].split(" ")[0])
        ok = dict(kw, **{name: nearest})
        if name == "epsilon_perm":
            ok["epsilon_1"] = nearest / 2
        m = make(bits=4, **ok)
        assert (m.epsilon_infinite if name == "epsilon_perm" else m.epsilon) <= nearest
        with pytest.raises(ValueError, match="too small"):
            make(bits=4, **dict(ok, **{name: nearest * 0.999}))
    with pytest.raises(ValueError, match="FXDP_LONGITUDINAL_UE_MAX_D"):
        fxdp.make_longitudinal_ue(1025, 2, 1).device_spec()
    with pytest.raises(ValueError, match="FXDP_LONGITUDINAL_GRR_MAX_D"):
        fxdp.make_longitudinal_grr(65537, 2, 1).device_spec()
    with pytest.raises(ValueError, match=r"items in \[0, 7\]"):
        fxdp.make_longitudinal_grr(8, 2, 1).estimate([0, 8])
    with pytest.raises(ValueError, match="n x d = n x 8"):
        fxdp.make_longitudinal_ue(8, 2, 1).estimate(np.zeros((3, 7), np.uint8))


def test_c_refuses_bad_parameters_and_inputs_without_writing():
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    g = fxdp.make_longitudinal_grr(10, 3, 1)
    base = {"d": 10, "w0": g.w0, "w": g.w, "v0": g.v0, "v": g.v, "bits": 32}
    bad = [dict(base, d=1), dict(base, d=11), dict(base, w=g.w + 1), dict(base, v0=g.v0 - 1), dict(base, bits=1),
           dict(base, bits=33), dict(base, w=0), dict(base, v=0)]
    u = fxdp.make_longitudinal_ue(10, 3, 1)
    ubase = {"a_p1": u.a_p1, "a_q1": u.a_q1, "a_p2": u.a_p2, "d": 10, "bits": 32}
    ubad = [dict(ubase, d=1), dict(ubase, d=1025), dict(ubase, a_q1=0), dict(ubase, a_q1=u.a_p1),
            dict(ubase, a_p2=1 << 31), dict(ubase, a_p2=1 << 32), dict(ubase, bits=1), dict(ubase, bits=64)]
    cases = ([("grr", c, 0) for c in bad] + [("grr", base, 10), ("grr", base, 0xFFFFFFFF)] +
             [("ue", c, 0) for c in ubad] + [("ue", ubase, 10)])
    for kind, cfg_d, x in cases:
        cfg = ffi.new(f"fxdp_longitudinal_{kind}_cfg *", cfg_d)
        out = ffi.new("uint32_t *", 77) if kind == "grr" else ffi.new("uint8_t[]", [77] * 10)
        for suffix in ("", "_ct"):
            r = native.new_rng_seeded(1, 0)
            xin = ffi.new("uint32_t *", x)
            assert getattr(lib, f"fxdp_longitudinal_{kind}{suffix}")(r, cfg, xin, out) == 1   # FXDP_ERR_PARAM
            dev = ffi.new("fxdp_longitudinal_device *")
            assert getattr(lib, f"fxdp_longitudinal_{kind}_report{suffix}")(cfg, dev, r, xin, out) == 1
            assert out[0] == 77 and native.bits_used(r) == 0
    assert lib.fxdp_longitudinal_provision(ffi.NULL, ffi.new("fxdp_longitudinal_device *")) == 1


@pytest.mark.parametrize("make", MAKERS, ids=KINDS)
@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_entropy_failure_releases_nothing(make, ct, monkeypatch):
    m = make(12, 3, 1, constant_time=ct)
    x = np.arange(64) % 12
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)      # every round stream has run out
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1, rounds=2)
    out, st, _ = _c_rounds(m, np.stack([x, x]), 1, np.arange(64, dtype=np.uint64), first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()
    with pytest.raises(EntropyError):
        m.report(ReplaySource([]), 3, secret_from_seed(1, 0))
    with pytest.raises(EntropyError):
        m.release_export(ReplaySource([1, 2, 3]), 3)                 # the secret needs 8 words


def test_config_kinds_and_device_spec():
    g = fxdp.make_longitudinal_grr(64, 4, 1, constant_time=True)
    assert g.kind == "longitudinal_grr" and g.config() == {"d": 64, "epsilon_perm": 4, "epsilon_1": 1,
                                                           "constant_time": True, "bits": 32}
    spec = g.device_spec()
    assert spec["c_function"] == "fxdp_longitudinal_grr_ct" and "exactly 32 random bits" in spec["summary"]
    u = fxdp.make_longitudinal_ue(16, 4, 1)
    assert u.device_spec()["c_function"] == "fxdp_longitudinal_ue" and u.device_spec()["output"]["count"] == 16
    assert fxdp.registry.get("longitudinal_ue").exportable
    assert fxdp.make_longitudinal_ue(**u.config()).realized() == u.realized()


@pytest.mark.parametrize("seed", [1, 20261125])
def test_c_fuzz_under_sanitizers(tmp_path, seed):
    """tests/c/fuzz_long.c under AddressSanitizer + UndefinedBehaviorSanitizer: random (also invalid)
    configurations, inputs, NULL pointers and rng modes; FXDP_ERR_PARAM exactly for invalid calls,
    outputs written only on FXDP_OK and in range, the export release equal to a report by the device
    the sibling stream provisions."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
    import ctest_support as cs
    exe = cs.compile_c(tmp_path / "fuzz_long", [cs.HERE / "fuzz_long.c", *cs.LIB_SOURCES, cs.CSRC / "fxdp_mech_longitudinal.c"],
                       ["-std=c99", "-g", "-O1", "-Wall", "-Wextra", "-Werror", *cs.SANITIZE])
    res = cs.run([exe, seed, 40_000], env={"ASAN_OPTIONS": "abort_on_error=0:detect_leaks=0",
                                          "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"})
    out = res.stdout + res.stderr
    assert res.returncode == 0 and "runtime error" not in out and "AddressSanitizer" not in out, out[-4000:]
    assert " 0 failed" in res.stdout, out[-4000:]
    ok = int(res.stdout.split("(")[1].split(" ok")[0])
    assert ok > 5_000, res.stdout                   # the valid calls really release


@pytest.mark.parametrize("ct", CT, ids=IDS)
def test_ue_simulate_support_equals_the_support_of_simulate(ct):
    # the O(d)-memory round (variance table at d = 65536) against one round's n x d reports' column
    # sums, over several device chunks (the last one partial), both stream versions
    m = fxdp.make_longitudinal_ue(37, 3, 1, constant_time=ct)
    x = (np.arange(1500) * 7) % 37
    ids = np.arange(1000, 2500, dtype=np.uint64)
    for seed in (3, fxdp.Seed(3, stream_version=1)):
        want = m.frequency_support(m.simulate(x, seed, device_ids=ids))
        got = m.simulate_support(x, seed, device_ids=ids)
        assert got.n == want.n == 1500 and (got.p, got.q) == (want.p, want.q) == m.support_probabilities()
        assert got.counts.dtype == np.int64 and (got.counts == want.counts).all()
        assert got.counts.sum() > 0


def test_ue_simulate_support_releases_nothing_on_entropy_failure_or_bad_input(monkeypatch):
    m = fxdp.make_longitudinal_ue(20, 3, 1)
    with pytest.raises(ValueError, match="values"):
        m.simulate_support([0, 20], seed=1)
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)      # every round stream has run out
    with pytest.raises(EntropyError, match="300 of 300 devices failed; no output released"):
        m.simulate_support(np.arange(300) % 20, seed=1)
