"""Full RAPPOR client (EPK 2014): parameters and their rounding, epsilon formulas, exact
audit, exhaustive enumeration of the per-bit distributions, PRR memoization, parity
reference / Numba / C (10^5 devices Numba vs C), entropy failure, bad input."""
import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

import fxdp
from fxdp import native
from fxdp.audit import audit
from fxdp.bitsource import ChaCha20Source, FailingSource, ReplaySource
from fxdp.config import mechanism_from_table, mechanism_to_table
from fxdp.errors import EntropyError
from fxdp.estimate_rappor import audit_rappor_full
from fxdp.mechanisms import make_rappor_full
from fxdp.mechanisms.memoized import _kernels_rappor_full as KR
from fxdp.mechanisms.memoized.rappor_full import RapporFullDevice, worst_bloom_split
from fxdp.samplers import _kernels as K

F = Fraction
SEED = 0x5EED_2014


# --------------------------------------------------------------------------
# helpers

def c_fleet(m, seed, ids, blocks):
    """fxdp_rappor_full_fleet through cffi -> (rows (n, k+2) uint8, status (n,) uint8)."""
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    ids = np.ascontiguousarray(ids, np.uint64)
    blocks = np.ascontiguousarray(blocks, np.uint8)
    n = ids.shape[0]
    out = np.zeros((n, m.k + 2), np.uint8)
    status = np.full(n, 0xFF, np.uint8)
    from fxdp.samplers import _kernels as K
    seed_words = ffi.new("uint32_t[9]", K.seed_key_words(seed).tolist())    # key words + stream version
    st = lib.fxdp_rappor_full_fleet(m.c_cfg(ffi), seed_words, ffi.from_buffer("uint64_t[]", ids),
                                    ffi.from_buffer("uint8_t[]", blocks), n,
                                    ffi.from_buffer("uint8_t[]", out), ffi.from_buffer("uint8_t[]", status))
    assert st == 0
    return out, status


def ref_rows(m, seed, ids, blocks):
    return np.array([m.release_row(ChaCha20Source(seed, int(i), 0), bytes(b), ChaCha20Source(seed, int(i), 1))
                     for i, b in zip(ids, blocks)], dtype=np.uint8).reshape(len(ids), m.k + 2)


def requested_ratio(f, p, q, h, k, level):
    """Worst-case likelihood ratio with the *requested* (unrounded) rationals."""
    phi = F(f) / 2

    def pmf(b):
        one = (1 - phi) if b else phi
        if level == "one":
            one = one * F(q) + (1 - one) * F(p)
        return {1: one, 0: 1 - one}

    def ratio(a, b):
        best = F(0)
        for y in (0, 1):
            if a[y]:
                if b[y] == 0:
                    return math.inf
                best = max(best, a[y] / b[y])
        return best

    return worst_bloom_split(ratio(pmf(1), pmf(0)), ratio(pmf(0), pmf(1)), h, k)[0]


def random_values(rng, n, maxlen=20):
    """n random strings of at most maxlen UTF-8 bytes (some multi-byte characters)."""
    alphabet = list("abcdefghijklmnopqrstuvwxyz0123456789\u00e9\u4e2d")
    out = []
    for _ in range(n):
        s = "".join(rng.choice(alphabet, size=rng.integers(0, maxlen + 1)))
        while len(s.encode()) > maxlen:
            s = s[:-1]
        out.append(s)
    return out


# --------------------------------------------------------------------------
# parameters, rounding, epsilon

def test_paper_example_epsilons():
    """EPK 2014's running example (h = 2, f = 1/2, p = 1/2, q = 3/4): eps_1 = 1.0743, eps_inf = 4.3944."""
    m = make_rappor_full(128, 2, 64, F(1, 2), F(1, 2), F(3, 4))
    assert m.realized()["f"] == F(1, 2) and m.p_realized == F(1, 2) and m.q_realized == F(3, 4)
    f, p, q, h = 0.5, 0.5, 0.75, 2
    qs = 0.5 * f * (p + q) + (1 - f) * q          # the paper's q*, p*
    ps = 0.5 * f * (p + q) + (1 - f) * p
    eps1 = h * math.log(qs * (1 - ps) / (ps * (1 - qs)))
    epsinf = 2 * h * math.log((1 - f / 2) / (f / 2))
    assert m.epsilon >= eps1 and m.epsilon == pytest.approx(eps1, rel=1e-14)
    assert m.epsilon_infinite >= epsinf and m.epsilon_infinite == pytest.approx(epsinf, rel=1e-14)
    assert round(m.epsilon, 4) == 1.0743 and round(m.epsilon_infinite, 4) == 4.3944
    assert m.privacy_map(0) == 0.0 and m.privacy_map(3) == m.epsilon
    assert m.epsilon_reports(1) == m.epsilon
    assert m.epsilon_reports(2) >= 2 * m.epsilon
    assert m.epsilon_reports(10**6) == m.epsilon_infinite
    assert m.epsilon_reports(0) == 0.0


@pytest.mark.parametrize("k,h", [(16, 1), (64, 2), (128, 4), (1024, 16), (8, 4)])
@pytest.mark.parametrize("f,p,q", [(F(1, 2), F(1, 2), F(3, 4)), (F(1, 4), F(1, 4), F(3, 4)),
                                   (F(3, 4), F(3, 4), F(1, 4)), (F(1, 8), F(0), F(1, 2))])
def test_epsilon_closed_forms(k, h, f, p, q):
    """With 2h <= k the claimed epsilons are exactly (rounded up) EPK's formulas for the
    realized dyadics: h ln(q*(1-p*)/(p*(1-q*))) (or its mirror when q < p) and 2h ln((1-f/2)/(f/2))."""
    m = make_rappor_full(k, h, 4, f, p, q, bits=16)
    phi = m.flip_prob
    qs = (1 - phi) * m.q_realized + phi * m.p_realized
    ps = phi * m.q_realized + (1 - phi) * m.p_realized
    r = qs * (1 - ps) / (ps * (1 - qs))
    r = max(r, 1 / r)
    assert m.epsilon == fxdp.conservative.log_up(r ** h)
    assert m.epsilon_infinite == fxdp.conservative.log_up(((1 - phi) / phi) ** (2 * h))
    assert math.isclose(m.epsilon, h * math.log(float(r)), rel_tol=1e-13)


def test_small_k_bounds_the_differing_bits():
    """2h > k: two Bloom vectors differ in at most k bits; eps_inf = k ln((1-f/2)/(f/2))."""
    m = make_rappor_full(3, 2, 1, F(1, 2), F(1, 2), F(3, 4), bits=8)
    assert m.worst_case("infinite")[1:3] in ((2, 1), (1, 2))
    assert m.epsilon_infinite == fxdp.conservative.log_up(F(3) ** 3)
    # a single bit: every value has the same Bloom vector
    m1 = make_rappor_full(1, 1, 1, 0, 0, 1)
    assert m1.epsilon == 0.0 and m1.epsilon_infinite == 0.0


@pytest.mark.parametrize("bits", [4, 8, 16, 32])
def test_rounding_never_increases_epsilon(bits):
    rng = np.random.default_rng(bits)
    for _ in range(40):
        f, p, q = (float(v) for v in rng.random(3))
        if rng.random() < 0.2:
            f = 1.0
        try:
            m = make_rappor_full(32, 2, 1, f, p, q, bits=bits)
        except ValueError as e:
            assert "p and q" in str(e)
            continue
        two = 1 << bits
        assert m.flip_prob >= F(f) / 2 and m.flip_prob - F(f) / 2 < F(1, two)
        lo, hi = sorted((F(p), F(q)))
        rlo, rhi = sorted((m.p_realized, m.q_realized))
        assert lo <= rlo <= rhi <= hi                      # toward each other, never crossing
        assert (m.p_realized < m.q_realized) == (p < q)
        for level in ("one", "infinite"):
            assert m.worst_case(level)[0] <= requested_ratio(f, p, q, 2, 32, level)


def test_edges():
    # p = q: the IRR alone is pure noise; any realized common value is fine
    m = make_rappor_full(16, 2, 1, F(1, 2), 0.3, 0.3, bits=8)
    assert m.p_realized == m.q_realized and m.epsilon == 0.0 and m.epsilon_infinite > 0
    # q = 1 and p = 0 are representable exactly (google/rappor: UB at probability 1.0)
    m = make_rappor_full(16, 2, 1, F(1, 2), 0, 1, bits=8)
    assert m.a_q == 256 and m.a_p == 0 and m.q_realized == 1
    assert m.epsilon == fxdp.conservative.log_up(F(3) ** 4)        # then S = B', epsilon = the PRR's
    assert m.epsilon == m.epsilon_infinite
    # f = 0: no permanent noise, infinitely many reports reveal B
    m = make_rappor_full(16, 2, 1, 0, F(1, 4), F(3, 4))
    assert m.flip_prob == 0 and m.epsilon_infinite == math.inf and math.isfinite(m.epsilon)
    assert m.epsilon == fxdp.conservative.log_up(F(9) ** 2)
    m = make_rappor_full(16, 2, 1, 0, 0, 1)
    assert m.epsilon == math.inf and m.epsilon_reports(5) == math.inf
    # f = 1: B' is a fair coin whatever B
    m = make_rappor_full(16, 2, 1, 1, 0, 1)
    assert m.flip_prob == F(1, 2) and m.epsilon == 0.0 and m.epsilon_infinite == 0.0
    # bits = 1: f rounds up to 1
    m = make_rappor_full(16, 2, 1, F(1, 4), 0, 1, bits=1)
    assert m.f_realized == 1 and m.epsilon == 0.0
    # p > q works (mirrored IRR)
    m = make_rappor_full(16, 2, 1, F(1, 2), F(3, 4), F(1, 2))
    assert m.epsilon == make_rappor_full(16, 2, 1, F(1, 2), F(1, 4), F(1, 2)).epsilon


def test_p_q_too_close_is_rejected():
    with pytest.raises(ValueError, match="p and q must differ"):
        make_rappor_full(16, 2, 1, F(1, 2), 0.3, 0.301, bits=8)
    with pytest.raises(ValueError, match="p and q must differ"):
        make_rappor_full(16, 2, 1, F(1, 2), F(1, 3), F(1, 3) + F(1, 10**12), bits=32)
    make_rappor_full(16, 2, 1, F(1, 2), F(1, 4), F(1, 4) + F(1, 256), bits=8)   # exactly one step: ok


# --------------------------------------------------------------------------
# exact audit

AUDIT_GRID = [
    dict(k=16, h=2, f=F(1, 2), p=F(1, 2), q=F(3, 4)),
    dict(k=8, h=1, f=F(1, 4), p=F(1, 4), q=F(3, 4)),
    dict(k=3, h=2, f=F(1, 2), p=F(1, 8), q=F(7, 8)),
    dict(k=32, h=3, f=0.3, p=0.2, q=0.9),
    dict(k=32, h=2, f=0, p=F(1, 4), q=F(3, 4)),
    dict(k=32, h=2, f=1, p=F(1, 4), q=F(3, 4)),
    dict(k=32, h=2, f=F(1, 2), p=0.4, q=0.4),
    dict(k=32, h=2, f=F(1, 2), p=0, q=1),
    dict(k=32, h=2, f=F(1, 2), p=F(7, 8), q=F(1, 8)),
    dict(k=64, h=5, f=F(1, 2), p=F(1, 2), q=F(3, 4)),
]


@pytest.mark.parametrize("cfg", AUDIT_GRID, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
@pytest.mark.parametrize("bits", [8, 32])
def test_audit_realized_le_claimed(cfg, bits):
    m = make_rappor_full(cfg["k"], cfg["h"], 2, cfg["f"], cfg["p"], cfg["q"], bits=bits)
    one = audit(m)                             # enumerates Bloom patterns and outputs exactly
    inf = audit(m.prr_mechanism())
    assert one.epsilon_claimed == m.epsilon and inf.epsilon_claimed == m.epsilon_infinite
    assert one.epsilon_realized <= one.epsilon_claimed
    assert inf.epsilon_realized <= inf.epsilon_claimed
    assert one.epsilon_realized == one.epsilon_claimed          # the bound is attained
    assert inf.epsilon_realized == inf.epsilon_claimed
    assert m.epsilon <= m.epsilon_infinite                     # one report never leaks more than the PRR
    for level, rep in (("one", one), ("infinite", inf)):
        pr = audit_rappor_full(m, level)
        assert pr.epsilon_realized == rep.epsilon_realized and pr.epsilon_claimed == rep.epsilon_claimed


def test_audit_product_form_for_large_h():
    m = make_rappor_full(1024, 16, 8, F(1, 8), F(1, 4), F(3, 4))
    for level in ("one", "infinite"):
        rep = audit_rappor_full(m, level)
        assert rep.epsilon_realized <= rep.epsilon_claimed
        assert rep.witness["n10"] == rep.witness["n01"] == 16
    # fxdp.audit dispatches to the product form when the patterns are too many to enumerate
    assert audit(m).epsilon_realized == audit_rappor_full(m, "one").epsilon_realized


def test_audit_over_real_values():
    """Two real strings with disjoint, collision-free Bloom sets in a cohort attain the
    pattern worst case: the value-level audit equals the claim."""
    m = make_rappor_full(32, 2, 4, F(1, 2), F(1, 2), F(3, 4))
    cands = [f"value-{i}" for i in range(50)]
    sets = {v: set(m.bloom_positions(1, m.encode(v))) for v in cands}
    a, b = next((a, b) for a in cands for b in cands
                if a != b and len(sets[a]) == 2 and len(sets[b]) == 2 and not sets[a] & sets[b])
    for prr_only, claim in ((False, m.epsilon), (True, m.epsilon_infinite)):
        pm = m.value_pmf([a, b], cohort=1, prr_only=prr_only)
        ratio = max(pm[x][y] / pm[xp][y] for x, xp in ((a, b), (b, a)) for y in pm[x])
        assert fxdp.conservative.log_up(ratio) == claim
    # a colliding pair (shared position) leaks less
    c, d = next((c, d) for c in cands for d in cands if c != d and len(sets[c] & sets[d]) == 1
                and len(sets[c]) == 2 and len(sets[d]) == 2)
    pm = m.value_pmf([c, d], cohort=1)
    ratio = max(pm[c][y] / pm[d][y] for y in pm[c])
    assert fxdp.conservative.log_up(ratio) < m.epsilon


# --------------------------------------------------------------------------
# exhaustive enumeration: the implementation realizes exactly the rational pmfs

@pytest.mark.parametrize("ct", [False, True])
@pytest.mark.parametrize("f,p,q", [(F(3, 8), F(1, 8), F(5, 8)), (F(1, 4), F(0), F(1)), (F(1), F(3, 8), F(3, 8))])
def test_per_bit_distributions_by_enumeration(ct, f, p, q):
    """Every bits-bit stream for the PRR flip and for the IRR draw (bits = 3): the counts of
    the reference's outputs are exactly 2^6 times the claimed rationals, for B_i = 0 and 1.
    (The lazy sampler reads at most 3 bits, so every run finishes within the strings.)"""
    bits = 3
    m = make_rappor_full(1, 1, 1, f, p, q, constant_time=ct, bits=bits)
    for b in (0, 1):
        prr_counts = {0: 0, 1: 0}
        rep_counts = {0: 0, 1: 0}
        for u, v in product(range(1 << bits), repeat=2):
            bp = m.prr_from_bloom(ReplaySource.from_bits(u, bits), [b])
            prr_counts[bp[0]] += 1
            s = m.irr(ReplaySource.from_bits(v, bits), bp)
            rep_counts[s[0]] += 1
        total = 1 << (2 * bits)
        assert {y: F(c, total) for y, c in prr_counts.items()} == m.prr_bit_pmf(b)
        assert {y: F(c, total) for y, c in rep_counts.items()} == m.report_bit_pmf(b)


def test_whole_report_distribution_by_enumeration():
    """k = 2, h = 1, bits = 2, constant time: all 2^4 PRR streams x 2^4 IRR streams; the joint
    distribution of the two report bits is the product of the per-bit pmfs."""
    m = make_rappor_full(2, 1, 1, F(1, 2), F(1, 4), F(3, 4), constant_time=True, bits=2)
    bloom = [1, 0]
    counts = {}
    for u, v in product(range(16), repeat=2):
        s = tuple(m.irr(ReplaySource.from_bits(v, 4), m.prr_from_bloom(ReplaySource.from_bits(u, 4), bloom)))
        counts[s] = counts.get(s, 0) + 1
    for y0, y1 in product((0, 1), repeat=2):
        assert F(counts.get((y0, y1), 0), 256) == m.report_bit_pmf(1)[y0] * m.report_bit_pmf(0)[y1]


# --------------------------------------------------------------------------
# memoized PRR, devices

def test_prr_is_memoized_per_value():
    m = make_rappor_full(64, 2, 8, F(1, 2), F(1, 4), F(3, 4))
    dev = m.device_from_seed(SEED, 7)
    blk = m.encode("memo")
    prr = m.prr(dev, blk)
    assert m.prr(dev, blk) == prr                              # deterministic: nothing stored
    assert sum(prr) > 0
    # many reports of the value, different IRR streams: every one is an IRR of the same B'
    for s in range(5):
        src = ChaCha20Source(SEED, 7, 100 + s)
        cohort, bits = m.report(src, "memo", dev)
        assert cohort == dev.cohort and len(bits) == 64
    # other values, devices, cohorts give other streams
    assert m.prr(dev, m.encode("memo2")) != prr
    assert m.prr(m.device_from_seed(SEED, 8), blk) != prr
    other = RapporFullDevice(dev.secret, (dev.cohort + 1) % 8)
    assert m.prr(other, blk) != prr
    assert "secret" in repr(dev) and str(dev.secret[0]) not in repr(dev)


def test_prr_flip_rate_over_a_fleet():
    """Over 4000 C devices the PRR of one value flips bits at rate f/2 (4 sigma)."""
    m = make_rappor_full(64, 2, 1, F(3, 8), F(1, 4), F(3, 4))
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    cfg = m.c_cfg(ffi)
    blk = m.encode("flip-rate")
    bloom = np.array(m.bloom(0, blk))
    out = ffi.new(f"uint8_t[{m.k}]")
    dev = ffi.new("fxdp_rappor_full_device *")
    n = 4000
    prrs = bytearray()
    for i in range(n):
        lib.fxdp_rappor_full_provision(cfg, native.new_rng_seeded(SEED, i, 1), dev)
        assert lib.fxdp_rappor_full_prr(cfg, dev, blk, out) == 0
        prrs += ffi.buffer(out)
    flips = int((np.frombuffer(bytes(prrs), np.uint8).reshape(n, m.k) != bloom).sum())
    phi = float(m.flip_prob)
    total = n * m.k
    assert abs(flips / total - phi) < 4 * math.sqrt(phi * (1 - phi) / total)


def test_call_uses_a_provisioned_device_and_system_entropy():
    m = make_rappor_full(32, 2, 16, F(1, 2), F(1, 4), F(3, 4))
    cohort, bits = m("hello")
    assert 0 <= cohort < 16 and len(bits) == 32 and set(bits) <= {0, 1}
    assert m("again")[0] == cohort                              # the same device
    dev = m.device_from_seed(1, 2)
    assert m("x", rng=ChaCha20Source(1, 2, 0), device=dev) == m.report(ChaCha20Source(1, 2, 0), "x", dev)
    m.device = dev
    assert m.release(ChaCha20Source(1, 2, 0), m.encode("x")) == m.report(ChaCha20Source(1, 2, 0), "x", dev)


def test_provisioning_rule():
    """secret = 8 words of the stream, cohort = (9th word * cohorts) >> 32."""
    m = make_rappor_full(32, 2, 1000, F(1, 2), F(1, 4), F(3, 4))
    src = ChaCha20Source(SEED, 3, 1)
    words = [src.bits(32) for _ in range(9)]
    dev = m.device_from_seed(SEED, 3)
    assert list(dev.secret) == words[:8] and dev.cohort == (words[8] * 1000) >> 32


# --------------------------------------------------------------------------
# parity: reference, Numba, C

PARITY_CONFIGS = [
    dict(k=16, h=2, cohorts=4, f=F(1, 2), p=F(1, 2), q=F(3, 4)),
    dict(k=16, h=2, cohorts=4, f=F(1, 2), p=F(1, 2), q=F(3, 4), constant_time=True),
    dict(k=33, h=3, cohorts=7, f=0.3, p=0.15, q=0.85, bits=13),
    dict(k=33, h=3, cohorts=7, f=0.3, p=0.15, q=0.85, bits=13, constant_time=True),
    dict(k=8, h=1, cohorts=1, f=0, p=0, q=1, bits=1),
    dict(k=8, h=8, cohorts=3, f=1, p=1, q=0, constant_time=True, value_bytes=2),
    dict(k=100, h=4, cohorts=65536, f=F(1, 3), p=F(1, 3), q=F(1, 3)),
]


@pytest.mark.parametrize("cfg", PARITY_CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_parity_reference_numba_c(cfg):
    m = make_rappor_full(**cfg)
    rng = np.random.default_rng(11)
    vals = random_values(rng, 120, maxlen=min(20, m.value_bytes - 1))
    ids = np.concatenate([np.arange(60, dtype=np.uint64), rng.integers(0, 2**64 - 1, 60, dtype=np.uint64)])
    blocks = m.encode_many(vals)
    want = ref_rows(m, SEED, ids, blocks)
    got_nb = m.simulate(vals, SEED, device_ids=ids)
    got_c, status = c_fleet(m, SEED, ids, blocks)
    assert (status == 0).all()
    assert np.array_equal(got_nb, want)
    assert np.array_equal(got_c, want)


@pytest.mark.parametrize("ct", [False, True])
def test_parity_numba_c_at_scale(ct):
    """10^5 devices, Numba fleet kernel vs the C library: zero mismatches."""
    m = make_rappor_full(32, 2, 16, F(1, 2), F(1, 4), F(3, 4), constant_time=ct, bits=32 if ct else 16)
    n = 100_000
    rng = np.random.default_rng(5)
    vocab = m.encode_many(random_values(rng, 500))
    blocks = vocab[rng.integers(0, len(vocab), n)]
    ids = np.arange(n, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(ct)
    got_nb = m.simulate(blocks, SEED, device_ids=ids)
    got_c, status = c_fleet(m, SEED, ids, blocks)
    assert (status == 0).all()
    mismatches = int((got_nb != got_c).any(axis=1).sum())
    assert mismatches == 0
    cohorts, bits = m.split_reports(got_nb)
    assert cohorts.max() < 16 and bits.shape == (n, 32)


def test_release_semantics_in_every_rng_mode():
    """fxdp_rappor_full_release: keyed stream -> device from the sibling stream 1; other modes
    (replay, hook) -> device drawn from r itself.  C, Numba and the reference agree."""
    m = make_rappor_full(8, 2, 5, F(1, 2), F(1, 4), F(3, 4), constant_time=True, bits=8)
    blk = m.encode("modes")
    words = [int(w) for w in np.random.default_rng(1).integers(0, 2**32, 16)]   # 9 + 8*8/32 = 11 words
    want = m.release_row(ReplaySource(words), blk)
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    out = ffi.new(f"uint8_t[{m.k + 2}]")
    assert lib.fxdp_rappor_full_release(native.new_rng_replay(words), m.c_cfg(ffi), blk, out) == 0
    assert list(out) == want
    row = np.zeros(m.k + 2, np.uint8)
    assert KR.release(m.kernel_cfg(), K.replay_state(words), np.frombuffer(blk, np.uint8).copy(), row) == 0
    assert row.tolist() == want
    stream = iter(np.array(words, "<u4").tobytes())
    rng = native.new_rng_hook(lambda n: bytes(next(stream) for _ in range(n)))
    assert lib.fxdp_rappor_full_release(rng, m.c_cfg(ffi), blk, out) == 0
    assert list(out) == want


# --------------------------------------------------------------------------
# entropy failure mid-report: nothing released, failure sticky

@pytest.mark.parametrize("ct", [False, True])
def test_entropy_failure_releases_nothing(ct):
    m = make_rappor_full(64, 2, 4, F(1, 2), F(1, 4), F(3, 4), constant_time=ct, bits=16)
    dev = m.device_from_seed(SEED, 1)
    blk = m.encode("secret value")
    full = ChaCha20Source(SEED, 1, 0)
    m.report_block(full, blk, dev)
    words_needed = -(-full.bits_used // 32)
    assert words_needed >= 2
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    cfg = m.c_cfg(ffi)
    cdev = ffi.new("fxdp_rappor_full_device *")
    cdev.secret = list(dev.secret)
    cdev.cohort = dev.cohort
    src = ChaCha20Source(SEED, 1, 0)
    stream_words = [src.bits(32) for _ in range(min(words_needed, 16))]
    for j in range(words_needed):
        # reference: raises, returns nothing
        with pytest.raises(EntropyError):
            m.report_block(FailingSource(ChaCha20Source(SEED, 1, 0), j), blk, dev)
        # C: replay of j words (the first j words of the same stream), then a hook failing after j words
        if j <= 16:
            out = ffi.new(f"uint8_t[{m.k}]", [0xA5] * m.k)
            rng = native.new_rng_replay(stream_words[:j])
            assert lib.fxdp_rappor_full_report(cfg, cdev, rng, blk, out) == 2
            assert list(out) == [0xA5] * m.k
            assert lib.fxdp_rappor_full_report(cfg, cdev, rng, blk, out) == 2       # sticky
            assert list(out) == [0xA5] * m.k
            # Numba: the same
            state = K.replay_state(stream_words[:j])
            nout = np.full(m.k, 0xA5, np.uint8)
            assert KR.report(m.kernel_cfg(), np.array(dev.secret, np.uint32), np.uint32(dev.cohort), state,
                             np.frombuffer(blk, np.uint8).copy(), nout) == 2
            assert (nout == 0xA5).all()
            assert KR.report(m.kernel_cfg(), np.array(dev.secret, np.uint32), np.uint32(dev.cohort), state,
                             np.frombuffer(blk, np.uint8).copy(), nout) == 2
        budget = [j]

        def fill(n, budget=budget):
            if budget[0] == 0:
                raise OSError("board TRNG failed")
            budget[0] -= 1
            return bytes(n)
        out = ffi.new(f"uint8_t[{m.k}]", [0xA5] * m.k)
        rng = native.new_rng_hook(fill)
        assert lib.fxdp_rappor_full_report(cfg, cdev, rng, blk, out) == 2
        assert list(out) == [0xA5] * m.k
    # with every word available the report completes and matches the reference
    if words_needed <= 16:
        out = ffi.new(f"uint8_t[{m.k}]")
        assert lib.fxdp_rappor_full_report(cfg, cdev, native.new_rng_replay(stream_words), blk, out) == 0
        assert list(out) == m.report_block(ChaCha20Source(SEED, 1, 0), blk, dev)[1]


def test_entropy_failure_in_release_and_provisioning():
    m = make_rappor_full(16, 2, 4, F(1, 2), F(1, 4), F(3, 4), constant_time=True, bits=8)
    blk = m.encode("v")
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    cfg = m.c_cfg(ffi)
    for j in range(0, 14):          # 9 provisioning words + 16 x 8 IRR bits = 13 words
        words = list(range(1, j + 1))
        out = ffi.new(f"uint8_t[{m.k + 2}]", [0xA5] * (m.k + 2))
        st = lib.fxdp_rappor_full_release(native.new_rng_replay(words), cfg, blk, out)
        row = np.full(m.k + 2, 0xA5, np.uint8)
        nst = KR.release(m.kernel_cfg(), K.replay_state(words), np.frombuffer(blk, np.uint8).copy(), row)
        if j < 13:
            assert st == nst == 2 and list(out) == [0xA5] * (m.k + 2) and (row == 0xA5).all()
            with pytest.raises(EntropyError):
                m.release_row(ReplaySource(words), blk)
        else:
            assert st == nst == 0 and list(out) == row.tolist() == m.release_row(ReplaySource(words), blk)
    dev = ffi.new("fxdp_rappor_full_device *", {"secret": [7] * 8, "cohort": 3})
    assert lib.fxdp_rappor_full_provision(cfg, native.new_rng_replay(list(range(8))), dev) == 2
    assert list(dev.secret) == [7] * 8 and dev.cohort == 3        # untouched
    with pytest.raises(EntropyError):
        m.provision(ReplaySource(list(range(8))))


def test_python_call_raises_on_entropy_failure():
    m = make_rappor_full(16, 2, 4, F(1, 2), F(1, 4), F(3, 4))
    m.device = m.device_from_seed(1, 1)
    with pytest.raises(EntropyError):
        m("x", rng=ReplaySource([]))


# --------------------------------------------------------------------------
# bad input

@pytest.mark.parametrize("kwargs,match", [
    (dict(k=0), "k must be"), (dict(k=1025), "k must be"), (dict(k=1.5), "k must be"), (dict(k=True), "k must be"),
    (dict(h=0), "h must be"), (dict(h=17), "h must be"), (dict(k=4, h=5), "h must be"),
    (dict(cohorts=0), "cohorts must be"), (dict(cohorts=65537), "cohorts must be"),
    (dict(f=-0.1), "f must be"), (dict(f=1.5), "f must be"), (dict(f=float("nan")), "f must be"),
    (dict(f="1/2x"), "f must be"),     # exact strings ("1/2") are accepted
    (dict(p=-1), "p must be"), (dict(p=1.01), "p must be"), (dict(p=float("inf")), "p must be"),
    (dict(q=2), "q must be"), (dict(q=None), "q must be"),
    (dict(bits=0), "bits must be"), (dict(bits=33), "bits must be"),
    (dict(value_bytes=1), "value_bytes must be"), (dict(value_bytes=257), "value_bytes must be"),
    (dict(constant_time=1), "constant_time must be"),
    (dict(hash_key="00"), "hash_key must be 16 bytes"), (dict(hash_key="zz" * 16), "hash_key must be"),
    (dict(hash_key=b"short"), "hash_key must be 16 bytes"), (dict(hash_key=5), "hash_key must be"),
])
def test_bad_constructor_input(kwargs, match):
    args = dict(k=16, h=2, cohorts=4, f=F(1, 2), p=F(1, 4), q=F(3, 4))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        make_rappor_full(**args)


def test_bad_release_input():
    m = make_rappor_full(16, 2, 4, F(1, 2), F(1, 4), F(3, 4), value_bytes=8)
    m.device = m.device_from_seed(1, 1)
    with pytest.raises(ValueError, match="str or bytes"):
        m(5)
    with pytest.raises(ValueError, match="at most value_bytes - 1 = 7"):
        m("12345678")
    with pytest.raises(ValueError, match="at most value_bytes - 1 = 7"):
        m("\u00e9\u00e9\u00e9\u00e9")                          # 8 UTF-8 bytes
    m("1234567")
    with pytest.raises(ValueError, match="rng"):
        m("x", rng=object())
    with pytest.raises(ValueError, match="device"):
        m("x", device="dev")
    with pytest.raises(ValueError, match="block must be exactly"):
        m.bloom_positions(0, b"abc")
    with pytest.raises(ValueError, match="cohort must be"):
        m.bloom_positions(4, m.encode("x"))
    with pytest.raises(ValueError, match="cohort must be"):
        m.prr(RapporFullDevice((0,) * 8, 9), m.encode("x"))
    with pytest.raises(ValueError, match="secret"):
        m.prr(RapporFullDevice((0,) * 7, 0), m.encode("x"))
    with pytest.raises(ValueError, match="device must be"):
        m.device = (1, 2)
    with pytest.raises(ValueError, match="d_in"):
        m.privacy_map(-1)
    with pytest.raises(ValueError, match="n must be"):
        m.epsilon_reports(-1)
    with pytest.raises(ValueError, match="device_ids"):
        m.simulate(["a", "b"], 1, device_ids=[1])
    with pytest.raises(ValueError, match="device_ids"):
        m.simulate(["a", "b"], 1, device_ids=[-1, 2])
    with pytest.raises(ValueError, match="seed"):
        m.simulate(["a"], -1)
    with pytest.raises(ValueError, match="block matrix"):
        m.simulate(np.zeros((2, 7), np.uint8), 1)
    with pytest.raises(ValueError, match="bytes in"):
        m.simulate(np.full((2, 8), 256), 1)
    with pytest.raises(ValueError, match="report rows"):
        m.split_reports(np.zeros((2, 16), np.uint8))


def test_c_rejects_bad_parameters_and_writes_nothing():
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    m = make_rappor_full(16, 2, 4, F(1, 2), F(1, 4), F(3, 4), bits=8)
    blk = m.encode("x")
    bad = [("k", 0), ("k", 1025), ("h", 0), ("h", 17), ("h", 17), ("cohorts", 0), ("cohorts", 65537),
           ("value_bytes", 1), ("value_bytes", 257), ("bits", 0), ("bits", 33), ("constant_time", 2),
           ("prr_a", 129), ("p_a", 257), ("q_a", 1 << 40)]
    for field, value in bad:
        cfg = m.c_cfg(ffi)
        setattr(cfg, field, value)
        assert lib.fxdp_rappor_full_check(cfg) == 1, field
        out = ffi.new("uint8_t[32]", [0xA5] * 32)
        dev = ffi.new("fxdp_rappor_full_device *", {"secret": [1] * 8, "cohort": 0})
        rng = native.new_rng_seeded(1, 1, 0)
        assert lib.fxdp_rappor_full_report(cfg, dev, rng, blk, out) == 1
        assert lib.fxdp_rappor_full_release(rng, cfg, blk, out) == 1
        assert lib.fxdp_rappor_full_prr(cfg, dev, blk, out) == 1
        assert list(out) == [0xA5] * 32
        assert native.bits_used(rng) == 0                        # nothing drawn
    cfg = m.c_cfg(ffi)
    cfg.h = 17
    cfg.k = 16
    assert lib.fxdp_rappor_full_check(cfg) == 1
    cfg = m.c_cfg(ffi)
    out = ffi.new("uint8_t[32]", [0xA5] * 32)
    dev = ffi.new("fxdp_rappor_full_device *", {"secret": [1] * 8, "cohort": 4})    # cohort >= cohorts
    assert lib.fxdp_rappor_full_report(cfg, dev, native.new_rng_seeded(1, 1, 0), blk, out) == 1
    assert lib.fxdp_rappor_full_prr(cfg, dev, blk, out) == 1
    null = ffi.NULL
    dev.cohort = 0
    assert lib.fxdp_rappor_full_report(null, dev, native.new_rng_seeded(1, 1, 0), blk, out) == 1
    assert lib.fxdp_rappor_full_report(cfg, null, native.new_rng_seeded(1, 1, 0), blk, out) == 1
    assert lib.fxdp_rappor_full_report(cfg, dev, null, blk, out) == 1
    assert lib.fxdp_rappor_full_report(cfg, dev, native.new_rng_seeded(1, 1, 0), null, out) == 1
    assert lib.fxdp_rappor_full_report(cfg, dev, native.new_rng_seeded(1, 1, 0), blk, null) == 1
    assert lib.fxdp_rappor_full_release(null, cfg, blk, out) == 1
    assert lib.fxdp_rappor_full_provision(cfg, null, dev) == 1
    assert lib.fxdp_rappor_full_bloom(cfg, 4, blk, ffi.new("uint32_t[2]")) == 1
    assert list(out) == [0xA5] * 32
    enc = ffi.new("uint8_t[32]", [0xA5] * 32)
    assert lib.fxdp_rappor_full_encode(cfg, b"x" * 32, 32, enc) == 1                 # too long for value_bytes 32
    assert lib.fxdp_rappor_full_encode(cfg, null, 3, enc) == 1
    assert list(enc) == [0xA5] * 32
    assert lib.fxdp_rappor_full_encode(cfg, null, 0, enc) == 0 and list(enc) == [0] * 32
    assert lib.fxdp_rappor_full_fleet(null, ffi.new("uint32_t[9]"), null, null, 0, null, null) == 1
    assert lib.fxdp_rappor_full_fleet(cfg, ffi.new("uint32_t[9]"), null, null, 1, null, null) == 1
    assert lib.fxdp_rappor_full_fleet(cfg, ffi.new("uint32_t[9]"), null, null, 0, null, null) == 0


# --------------------------------------------------------------------------
# configuration, export description

def test_config_round_trip_and_device_spec():
    from fxdp.export import device_spec
    m = make_rappor_full(32, 2, 8, F(1, 2), F(1, 4), F(3, 4), constant_time=True, bits=16,
                         value_bytes=12, hash_key=bytes(range(16)))
    table = mechanism_to_table(m)
    assert table["kind"] == "rappor_full" and table["hash_key"] == "0x" + bytes(range(16)).hex()
    m2 = mechanism_from_table(table)
    assert m2.config() == m.config() and m2.realized() == m.realized()
    # a key of decimal digits only survives the TOML round trip (the 0x prefix)
    digits = "00112233445566778899001122334455"
    m3 = mechanism_from_table(mechanism_to_table(make_rappor_full(16, 2, 1, F(1, 2), 0, 1, hash_key=digits)))
    assert m3.hash_key == bytes.fromhex(digits)
    spec = device_spec(m)
    assert spec.c_function == "fxdp_rappor_full_release"
    assert spec.input == {**spec.input, "ctype": "uint8_t", "count": 12}
    assert spec.output["count"] == 34
    d = m.describe()
    assert d["kind"] == "rappor_full" and d["realized"]["a_q"] == 3 << 14
