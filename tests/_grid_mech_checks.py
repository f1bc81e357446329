"""Checks shared by the tests of the grid numeric mechanisms (test_duchi.py, test_piecewise.py,
test_hybrid.py, test_square_wave.py): each asserts what every kind must satisfy, given the
mechanism and what differs per kind; the test files keep what is specific to their kind."""
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.conservative import exp_le
from fxdp.errors import EntropyError
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms import _fleet
from fxdp.reports import worst_pair

CT = [False, True]
IDS = ["lazy", "ct"]


def check_band_rounding(m, eps, bits, k):
    """A band mechanism (Piecewise, Square Wave) at `bits`, prob_bits = k: its ratio is
    A 2^bits / (2^k - w A), certified below e^eps, A is the largest such numerator, and the
    reported epsilon is the privacy map's, at most the request."""
    two_k = 1 << k
    assert m._ratio == Fraction(m.a << bits, two_k - m.w * m.a)
    assert exp_le(m._ratio, eps)
    assert not exp_le(Fraction((m.a + 1) << bits, two_k - m.w * (m.a + 1)), eps)   # A is the largest
    assert m.epsilon <= float(eps) + 1e-15 and m.epsilon == m.privacy_map(1)


def bit_string_counts(m, x, B, exact_bits, overread_fails=False):
    """Release input x on every string of B bits -> (Counter of outputs, failures).  A release
    fails if it raises EntropyError or, with overread_fails, reads past the B bits (ReplaySource
    pads with zeros to a whole word); with exact_bits every release must read exactly B bits."""
    counts, fail = Counter(), 0
    for s in range(1 << B):
        src = ReplaySource.from_bits(s, B)
        try:
            j = m.release(src, x)
        except EntropyError:
            fail += 1
            continue
        if overread_fails and src.bits_used > B:
            fail += 1
            continue
        counts[j] += 1
        if exact_bits:
            assert src.bits_used == B
    return counts, fail


def assert_counts_are_the_pmf(pmf, counts, fail, B, ct):
    """Outcome counts over all 2^B strings are the exact pmf times 2^B when no release failed;
    otherwise (lazy form only) every count lies in [pmf 2^B - failures, pmf 2^B]."""
    assert sum(pmf.values()) == 1
    if fail == 0:
        assert {j: Fraction(c, 1 << B) for j, c in counts.items() if c} == {j: p for j, p in pmf.items() if p}
    else:
        assert not ct
        for j, p in pmf.items():
            assert p * (1 << B) - fail <= counts[j] <= p * (1 << B)


def check_keyed_stream_parity(m, ct_bits=None, bits_vary=False, device_form=True, devices=20_000, step=97,
                              row=int):
    """`devices` devices (uniform readings, seed 99): the Numba and C fleets agree output for output
    and bit for bit, every step-th device equals the reference on its keyed stream (row(x) turns a
    grid index row or output row into the reference's input or output), every device reads exactly
    ct_bits bits (if given) or a varying count (if bits_vary), and (if device_form) simulate_device
    on the grid indices gives the same outputs.  Returns (vals, ids, idx, out) for the kind's own
    checks."""
    vals, _ = m.population(devices, seed=7, shape="uniform")
    ids = np.arange(devices, dtype=np.uint64) * 977 + 5
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, vals, 99, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, vals, 99, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert (out_nb == out_c).all() and (bits_nb == bits_c).all()
    idx = m.grid_indices(vals)
    for j in range(0, devices, step):
        src = ChaCha20Source(99, int(ids[j]))
        assert m.release(src, row(idx[j])) == row(out_nb[j])
        assert src.bits_used == bits_nb[j]
    if ct_bits is not None:
        assert (bits_nb == ct_bits).all()
    if bits_vary:
        assert len(set(bits_nb.tolist())) > 1
    if device_form:
        assert (m.simulate_device(idx, 99, device_ids=ids) == out_nb).all()
    return vals, ids, idx, out_nb


def check_single_releases(make, release_nb, grid=65):
    """For both forms, m = make(ct) on [0, 100]: 30 devices' C single release equals the
    reference's, three Numba releases release_nb(state, m, ct, i) on one stream equal the
    reference's, and index `grid` (past the grid) is ERR_PARAM.  Returns [(ct, m, state)]."""
    from fxdp import native
    from fxdp.samplers import _kernels as K
    done = []
    for ct in CT:
        m = make(ct)
        for dev in range(30):
            reading = (dev * 37) % 101
            i = m.grid_index(reading)
            assert dv.c_release(m, native.new_rng_seeded(3, dev), reading) == m.release(ChaCha20Source(3, dev), i)
            st_nb = K.seed_state(K.new_state(), 5, dev)
            src = ChaCha20Source(5, dev)
            for j in range(3):                                   # three releases on one stream
                s, y = release_nb(st_nb, m, ct, (i + j) % grid)
                assert s == 0 and y == m.release(src, (i + j) % grid)
        assert release_nb(st_nb, m, ct, grid)[0] == K.ERR_PARAM
        done.append((ct, m, st_nb))
    return done


def check_audit_is_the_closed_form(m):
    """The exact audit: the worst pair's ratio over the pmfs is the closed form m._ratio and the
    audit realizes m.epsilon.  Returns the audit report."""
    import fxdp
    rep = fxdp.audit(m)
    ratio, _ = worst_pair(m.audit_pairs(), m.output_pmf)
    assert ratio == m._ratio
    assert rep.epsilon_realized == m.epsilon
    return rep


def check_unbiased_mean(m, vals, truth, fleets, var_lo, var_hi):
    """`fleets` fleets (seeds 0..fleets-1) on one population: the mean error is within 4 standard
    errors and the empirical variance within (var_lo, var_hi) of the closed form.
    Returns (reported standard errors, closed-form variance)."""
    ests = [m.estimate(m.simulate(vals, seed=s)) for s in range(fleets)]
    est = np.array([e.estimate for e in ests])
    var = m.variance(vals)
    assert abs(est.mean() - truth) < 4 * math.sqrt(var / fleets)
    ratio = est.var(ddof=1) / var
    assert var_lo < ratio < var_hi, ratio
    return np.array([e.stderr for e in ests]), var


def check_variance_tracks_continuous(make, shapes=("uniform",)):
    """At epsilon 0.5, 1, 2, 4 on [0, 1]: the grid's closed-form variance is within 2 % of the
    continuous mechanism's on 10,000 readings of each shape."""
    for eps in (0.5, 1, 2, 4):
        m = make(0, 1, eps)
        for shape in shapes:
            vals, _ = m.population(10_000, seed=3, shape=shape)
            assert abs(m.variance(vals) / m.continuous_variance(vals) - 1) < 0.02


def check_c_refuses(cfg_type, fns, cfgs_and_inputs, out_type="uint32_t *"):
    """Each (cfg dict, input) is refused by every C entry point in fns with FXDP_ERR_PARAM (1):
    the output keeps its sentinel 77 and no random bit is read."""
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    for cfg_d, x in cfgs_and_inputs:
        cfg = ffi.new(f"{cfg_type} *", cfg_d)
        xin = ffi.new("uint32_t *", x)
        out = ffi.new(out_type, 77)
        r = native.new_rng_seeded(1, 0)
        for name in fns:
            assert getattr(lib, name)(r, cfg, xin, out) == 1
            assert out[0] == 77
            assert native.bits_used(r) == 0


def check_entropy_failure(m, monkeypatch):
    """With the keystream run out (first block 0xFFFFFFFF), 64 on-grid readings: the Numba fleet
    raises and releases nothing, the C fleet reports FXDP_ERR_ENTROPY (2) for every device and
    writes nothing."""
    x = np.arange(64) / 64          # on the grid: no rounding draws, the release itself fails
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)      # the keystream has run out
    with pytest.raises(EntropyError, match="64 of 64 devices failed; no output released"):
        m.simulate(x, seed=1)
    out, st, _, _ = dv.c_fleet(m, x, 1, first_block=0xFFFFFFFF)
    assert (st == 2).all() and (out == 0).all()


def check_config_and_spec(make, kind, c_function, random_bits):
    """make(-20, 60, 2, constant_time=True): its kind, its config, its C entry point and the
    exact random bit count its device spec states.  Returns (m, spec)."""
    m = make(-20, 60, 2, constant_time=True)
    assert m.kind == kind and m.config() == {"lo": -20, "hi": 60, "epsilon": 2, "bits": 12,
                                             "constant_time": True}
    spec = m.device_spec()
    assert spec["c_function"] == c_function and f"exactly {random_bits} random bits" in spec["summary"]
    return m, spec
