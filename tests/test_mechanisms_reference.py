"""Mechanisms (reference form): exact distributions by enumeration, audit, privacy maps, bad input."""
import itertools
import math
from fractions import Fraction

import pytest

from fxdp.audit import audit, worst_pair
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import EntropyError
from fxdp.mechanisms import (make_geometric, make_randomized_response, make_randomized_response_bool,
                             make_rappor)


def enumerate_release(release, nbits):
    """Run release(src) on every nbits-bit string; returns ({output: count}, unfinished count).
    A run counts as finished when it used at most nbits bits."""
    counts, unfinished = {}, 0
    for v in range(1 << nbits):
        src = ReplaySource.from_bits(v, nbits)
        try:
            out = release(src)
        except EntropyError:
            unfinished += 1
            continue
        if src.bits_used > nbits:
            unfinished += 1
            continue
        key = tuple(out) if isinstance(out, list) else out
        counts[key] = counts.get(key, 0) + 1
    return counts, unfinished


def assert_interval(counts, unfinished, nbits, pmf):
    total = 1 << nbits
    for y, p in pmf.items():
        c = counts.get(y, 0)
        assert Fraction(c, total) <= p <= Fraction(c + unfinished, total), (y, c, p)
    assert set(counts) <= set(pmf)


@pytest.mark.parametrize("ct", [False, True])
@pytest.mark.parametrize("prob", [0.5, 0.75, Fraction(5, 8), 0.9])
def test_rr_bool_distribution_is_exact(prob, ct):
    m = make_randomized_response_bool(prob, constant_time=ct, bits=8)
    for x in (False, True):
        counts, unfinished = enumerate_release(lambda s: m.release(s, x), 8)
        if ct:
            assert unfinished == 0
            assert {y: Fraction(c, 256) for y, c in counts.items()} == {
                y: p for y, p in m.output_pmf(x).items() if p}
        assert_interval(counts, unfinished, 8, m.output_pmf(x))


@pytest.mark.parametrize("ct", [False, True])
@pytest.mark.parametrize("t,prob", [(2, 0.75), (3, 0.5), (5, Fraction(1, 3)), (4, Fraction(1, 4))])
def test_rr_kary_distribution_is_exact(t, prob, ct):
    m = make_randomized_response(list(range(t)), prob, constant_time=ct, bits=8)
    for x in range(t + 1):
        nbits = 8 if (ct and x < t) else 12
        counts, unfinished = enumerate_release(lambda s: m.release_index(s, x), nbits)
        if ct and x < t:
            assert unfinished == 0
            assert {y: Fraction(c, 256) for y, c in counts.items()} == m.output_pmf(x)
        assert_interval(counts, unfinished, nbits, m.output_pmf(x))
        assert unfinished <= (1 << nbits) // 8


@pytest.mark.parametrize("ct", [False, True])
def test_rappor_distribution_is_exact(ct):
    m = make_rappor(Fraction(1, 2), 1, 2, constant_time=ct, bits=3)
    for x in ([0, 0], [1, 0], [0, 1]):
        counts, unfinished = enumerate_release(lambda s: m.release(s, x), 6)
        pmf = {}
        for y in itertools.product((0, 1), repeat=2):
            p = Fraction(1)
            for xi, yi in zip(x, y):
                p1 = m.bit_pmf(xi)
                p *= p1 if yi else 1 - p1
            pmf[y] = p
        assert_interval(counts, unfinished, 6, pmf)
        if ct:
            assert unfinished == 0


def test_geometric_ct_distribution_is_exact():
    m = make_geometric(2, bounds=(0, 4), constant_time=True, bits=10)
    for x in range(0, 5):
        counts, unfinished = enumerate_release(lambda s: m.release(s, x), 10)
        assert unfinished == 0
        assert {y: Fraction(c, 1024) for y, c in counts.items()} == m.table.output_pmf(x)


# ---- audit: realized <= claimed, and = closed form where the seeds give one ----------

GRID_P = [0.5, 0.55, 0.75, 0.9, 0.999, Fraction(2, 3)]


@pytest.mark.parametrize("prob", GRID_P)
@pytest.mark.parametrize("bits", [4, 8, 32])
def test_audit_rr_bool(prob, bits):
    m = make_randomized_response_bool(prob, bits=bits)
    r = audit(m)
    assert r.epsilon_realized <= r.epsilon_claimed
    p = m.p_realized
    closed = 0.0 if p == Fraction(1, 2) else math.log(p / (1 - p))
    assert math.isclose(r.epsilon_realized, closed, rel_tol=1e-12, abs_tol=1e-15)
    assert r.epsilon_claimed <= math.log(Fraction(prob) / (1 - Fraction(prob))) + 1e-12 or prob == 0.5


@pytest.mark.parametrize("t", [2, 3, 7])
@pytest.mark.parametrize("prob", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("ct", [False, True])
def test_audit_rr_kary(t, prob, ct):
    m = make_randomized_response(list(range(t)), prob, constant_time=ct)
    r = audit(m)
    assert r.epsilon_realized <= r.epsilon_claimed
    p = m.p_realized
    assert math.isclose(r.epsilon_realized, math.log(p * (t - 1) / (1 - p)), rel_tol=1e-12)
    assert r.epsilon_claimed <= math.log(prob * (t - 1) / (1 - prob)) + 1e-12


@pytest.mark.parametrize("f,mm,k", [(0.5, 1, 4), (0.5, 2, 4), (0.25, 2, 3), (1, 1, 3), (0.8, 1, 1)])
def test_audit_rappor_matches_brute_force(f, mm, k):
    m = make_rappor(f, mm, k)
    r = audit(m)
    inputs = [list(x) for x in itertools.product((0, 1), repeat=k) if sum(x) <= mm]

    def pmf(x):
        out = {}
        for y in itertools.product((0, 1), repeat=k):
            p = Fraction(1)
            for xi, yi in zip(x, y):
                p1 = m.bit_pmf(xi)
                p *= p1 if yi else 1 - p1
            out[y] = p
        return out

    pairs = [(tuple(a), tuple(b)) for a in inputs for b in inputs if a != b]
    ratio, _ = worst_pair(pairs, lambda x: pmf(list(x)))
    brute = 0.0 if ratio == 1 else math.log(ratio)
    assert math.isclose(r.epsilon_realized, brute, rel_tol=1e-12, abs_tol=1e-15)
    assert r.epsilon_realized <= r.epsilon_claimed
    if k >= 2 * mm and f < 1:
        q = m.flip_prob
        assert math.isclose(r.epsilon_claimed, 2 * mm * math.log((1 - q) / q), rel_tol=1e-12)


@pytest.mark.parametrize("scale", [0.5, 1, 2.5, 10, Fraction(7, 3)])
@pytest.mark.parametrize("bounds", [(0, 10), (-3, 3)])
@pytest.mark.parametrize("ct", [False, True])
def test_audit_geometric(scale, bounds, ct):
    m = make_geometric(scale, bounds=bounds, constant_time=ct)
    r = audit(m)
    assert r.epsilon_realized <= r.epsilon_claimed <= float(1 / Fraction(scale)) * (1 + 1e-15)
    if not ct:
        assert math.isclose(r.epsilon_realized, float(Fraction(m.s, m.t)), rel_tol=1e-15)


def test_geometric_scale_zero_is_unbounded():
    m = make_geometric(0, bounds=(0, 5))
    assert m.privacy_map(0) == 0 and m.privacy_map(1) == math.inf
    assert audit(m).epsilon_realized == math.inf
    assert m(3) == 3 and m(9) == 5


def test_privacy_maps():
    assert make_randomized_response_bool(0.75).privacy_map(0) == 0
    assert make_randomized_response_bool(0.75).privacy_map(5) == make_randomized_response_bool(0.75).epsilon
    g = make_geometric(4, bounds=(0, 10))
    assert g.privacy_map(3) >= 0.75 and g.privacy_map(3) == 0.75
    with pytest.raises(ValueError, match="d_in"):
        g.privacy_map(-1)


def test_requested_float_is_rounded_toward_privacy():
    m = make_randomized_response_bool(0.7)   # 0.7 is not dyadic: floor at 32 bits
    assert m.p_realized <= Fraction(0.7) and Fraction(0.7) - m.p_realized < Fraction(1, 2**32)
    g = make_geometric(0.7)
    assert g.scale_realized >= Fraction(0.7)
    r = make_rappor(0.3, 1, 4)
    assert r.f_realized >= Fraction(0.3)


# ---- bad input ----------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: make_randomized_response_bool(0.49), "prob"),
    (lambda: make_randomized_response_bool(1.0), "prob"),
    (lambda: make_randomized_response_bool(float("nan")), "prob"),
    (lambda: make_randomized_response_bool("0.7x"), "prob"),   # exact strings ("0.7") are accepted
    (lambda: make_randomized_response_bool(0.7, constant_time=1), "constant_time"),
    (lambda: make_randomized_response_bool(0.7, bits=0), "bits"),
    (lambda: make_randomized_response_bool(0.7, bits=64), "bits"),
    (lambda: make_randomized_response(["a"], 0.7), "categories"),
    (lambda: make_randomized_response(["a", "a"], 0.7), "distinct"),
    (lambda: make_randomized_response("ab", 0.7), "categories"),
    (lambda: make_randomized_response(5, 0.7), "categories"),
    (lambda: make_randomized_response([[1], [2]], 0.7), "hashable"),
    (lambda: make_randomized_response(["a", "b", "c"], 0.3), "prob"),
    (lambda: make_randomized_response(["a", "b", "c"], 1), "prob"),
    (lambda: make_randomized_response(["a", "b", "c"], Fraction(1, 3)), "within t/2"),
    (lambda: make_rappor(0, 1, 4), "f"),
    (lambda: make_rappor(1.5, 1, 4), "f"),
    (lambda: make_rappor(0.5, 0, 4), "m"),
    (lambda: make_rappor(0.5, 5, 4), "m"),
    (lambda: make_rappor(0.5, 1, 0), "k"),
    (lambda: make_geometric(-1), "scale"),
    (lambda: make_geometric(1, bounds=(5, 4)), "lower"),
    (lambda: make_geometric(1, bounds=(0, 2**63)), "upper"),
    (lambda: make_geometric(1, bounds=(0,)), "bounds"),
    (lambda: make_geometric(1, constant_time=True), "bounds"),
    (lambda: make_geometric(1, bounds=(0, 10**6), constant_time=True), "too wide"),
    (lambda: make_geometric(2**33), "scale"),
])
def test_bad_constructor_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_release_input():
    src = ChaCha20Source(1)
    with pytest.raises(ValueError, match="exactly k = 4"):
        make_rappor(0.5, 1, 4)([1, 0, 0], src)
    with pytest.raises(ValueError, match="at most m = 1"):
        make_rappor(0.5, 1, 4)([1, 1, 0, 0], src)
    with pytest.raises(ValueError, match="0/1"):
        make_rappor(0.5, 1, 4)([2, 0, 0, 0], src)
    with pytest.raises(ValueError, match="x must be a bool"):
        make_randomized_response_bool(0.7)("yes", src)
    with pytest.raises(ValueError, match="x must be"):
        make_geometric(1)(2**63, src)
    with pytest.raises(ValueError, match="rng"):
        make_geometric(1)(0, rng=42)
    assert src.bits_used == 0          # nothing drawn for any rejected input


def test_out_of_set_inputs_answer_uniformly():
    m = make_randomized_response(["a", "b", "c"], 0.9)
    assert m.output_pmf(3) == {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}
    with pytest.raises(ValueError, match="not a category"):        # the default since issue 28
        m("zzz", ChaCha20Source(5, 0))
    u = make_randomized_response(["a", "b", "c"], 0.9, unknown="uniform")
    outs = {u("zzz", ChaCha20Source(5, i)) for i in range(60)}
    assert outs == {"a", "b", "c"}


def test_default_rng_is_system_entropy():
    m = make_randomized_response_bool(0.75)
    assert m(True) in (True, False)


def test_fxdp_audit_stays_callable_after_submodule_import():
    import fxdp
    import fxdp.audit  # noqa: F401  (makes the package attribute the submodule)
    assert fxdp.audit(make_randomized_response_bool(0.75)).epsilon_realized == audit(
        make_randomized_response_bool(0.75)).epsilon_realized
