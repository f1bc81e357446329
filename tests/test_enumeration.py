"""Exhaustive enumeration over every bit string: exact distributions, reference and Numba.

Bounded-bit samplers (``bernoulli_dyadic_ct``, ``table_sample_ct``) read
exactly k bits, so running them on all 2^k strings gives every outcome's
probability times 2^k exactly: the counts must equal a (resp. the table
weights) as integers, and every string must use exactly k bits.

Unbounded samplers (rejection loops, lazy comparisons) are run on all 2^B
strings of B bits (``ReplaySource.from_bits`` / ``replay_bits``: the string
zero-padded to a whole word, then failure).  A run *finishes* iff its status is
OK and it used at most B bits; it then depends on those bits only, so the
finished runs of outcome o carry mass_finished(o) = count / 2^B exactly, and
the unfinished runs carry mass_unfinished.  For every outcome o the exact
probability must satisfy

    mass_finished(o) <= P(o) <= mass_finished(o) + mass_unfinished,

with P(o) an exact rational (uniform, Bernoulli(a/2^k), Bernoulli(n/d)) or,
for the exp-based samplers, a certified rational interval [P_lo, P_hi]
(``fxdp.conservative.exp_interval``), checked as mass_finished <= P_hi and
P_lo <= mass_finished + mass_unfinished.  Discrete Laplace:
P(z) = (1-q)/(1+q) q^|z| with q = exp(-s/t); censored: P(Z <= -m) =
P(Z >= m) = q^m / (1+q) for m >= 1.

The reference is enumerated at B = 12 and must agree with Numba string by
string (status, value, bits used); Numba alone goes on to B = 20 (24 in the
slow sweep).
"""
from fractions import Fraction

import numba
import numpy as np
import pytest

from fxdp.bitsource import ReplaySource
from fxdp.conservative import exp_interval
from fxdp.errors import EntropyError, OK
from fxdp.samplers import _kernels as K
from fxdp.samplers import reference as ref
from fxdp.samplers.bounded import make_bounded_laplace_table

SID = {"uniform_below": 0, "bernoulli_dyadic": 1, "bernoulli_dyadic_ct": 2,
       "bernoulli_rational": 3, "bernoulli_exp": 4, "discrete_laplace": 5,
       "discrete_laplace_censored": 6, "table_sample_ct": 7}
B_REF = 12
U64 = 2**64 - 1


@numba.njit(cache=True)
def _enumerate(sid, pu, pi, thr, B, base, counts, per_val, per_stat, per_used):
    """Run sampler ``sid`` on every B-bit string (1 <= B <= 32).

    Finished runs (status OK, bits used <= B) add to counts[value - base];
    returns (unfinished, out_of_range, param_errors).  If per_val has 2^B
    entries, every run's (value, status, bits used) is recorded too.
    """
    st = np.zeros(K.STATE_WORDS, np.uint32)
    words = np.zeros(1, np.uint32)
    n = np.int64(1) << B
    record = per_val.shape[0] == n
    unfinished = np.int64(0)
    outside = np.int64(0)
    bad = np.int64(0)
    for v in range(n):
        words[0] = np.uint32(v << (32 - B))
        K.replay_into(st, words, 1)
        if sid == 0:
            s, x = K.uniform_below(st, pu[0])
            r = np.int64(x)
        elif sid == 1:
            s, b = K.bernoulli_dyadic(st, pu[0], pi[1])
            r = np.int64(b)
        elif sid == 2:
            s, b = K.bernoulli_dyadic_ct(st, pu[0], pi[1])
            r = np.int64(b)
        elif sid == 3:
            s, b = K.bernoulli_rational(st, pu[0], pu[1])
            r = np.int64(b)
        elif sid == 4:
            s, b = K.bernoulli_exp(st, pu[0], pu[1])
            r = np.int64(b)
        elif sid == 5:
            s, r = K.discrete_laplace(st, pu[0], pu[1])
        elif sid == 6:
            s, r = K.discrete_laplace_censored(st, pu[0], pu[1], pi[2], pi[3])
        else:
            s, r = K.table_sample_ct(st, thr, pi[1])
        used = K.bits_used_nb(st)
        if record:
            per_val[v] = r
            per_stat[v] = s
            per_used[v] = used
        if s == 1:
            bad += 1
        if s != 0 or used > B:
            unfinished += 1
        elif r - base < 0 or r - base >= counts.shape[0]:
            outside += 1
        else:
            counts[r - base] += 1
    return unfinished, outside, bad


def _args(sampler, params):
    pu = np.zeros(4, np.uint64)
    pi = np.zeros(4, np.int64)
    thr = np.zeros(0, np.uint64)
    if sampler == "table_sample_ct":
        thr = np.array(params[0], np.uint64)
        pi[1] = params[1]
    else:
        for j, p in enumerate(params):
            if p >= 0:
                pu[j] = p
            if -2**63 <= p < 2**63:
                pi[j] = p
    return pu, pi, thr


def numba_enum(sampler, params, B, base, size, record=False):
    """-> (counts dict {outcome: finished count}, unfinished count, per-string arrays or None)."""
    pu, pi, thr = _args(sampler, params)
    counts = np.zeros(size, np.int64)
    m = (1 << B) if record else 0
    per = (np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64))
    unfinished, outside, bad = _enumerate(SID[sampler], pu, pi, thr, B, base, counts, *per)
    assert outside == 0 and bad == 0
    found = {base + i: int(c) for i, c in enumerate(counts) if c}
    return found, int(unfinished), (per if record else None)


def reference_enum(sampler, params, B):
    """Reference on every B-bit string -> (counts, unfinished, [(value, status, used)])."""
    fn = getattr(ref, sampler)
    counts, unfinished, runs = {}, 0, []
    for v in range(1 << B):
        src = ReplaySource.from_bits(v, B)
        try:
            x = int(fn(src, *params))
            status = OK
        except EntropyError:
            x, status = 0, 2
        runs.append((x, status, src.bits_used))
        if status != OK or src.bits_used > B:
            unfinished += 1
        else:
            counts[x] = counts.get(x, 0) + 1
    return counts, unfinished, runs


# ---- exact probabilities -------------------------------------------------------------

def _exp_iv(q):
    return exp_interval(Fraction(q))


def prob_interval(sampler, params, o):
    """Certified [lo, hi] containing P(outcome o)."""
    if sampler == "uniform_below":
        n = params[0]
        p = Fraction(1, n) if 0 <= o < n else Fraction(0)
        return p, p
    if sampler in ("bernoulli_dyadic", "bernoulli_dyadic_ct"):
        a, k = params
        p = Fraction(a, 1 << k)
        p = p if o == 1 else 1 - p
        return p, p
    if sampler == "bernoulli_rational":
        n, d = params
        p = Fraction(n, d) if o == 1 else 1 - Fraction(n, d)
        return p, p
    if sampler == "bernoulli_exp":
        n, d = params
        lo, hi = _exp_iv(Fraction(-n, d))
        return (lo, hi) if o == 1 else (1 - hi, 1 - lo)
    if sampler in ("discrete_laplace", "discrete_laplace_censored"):
        s, t = params[0], params[1]
        q_lo, q_hi = _exp_iv(Fraction(-s, t))
        if sampler == "discrete_laplace_censored":
            lo_b, hi_b = params[2], params[3]
            if not lo_b <= o <= hi_b:
                return Fraction(0), Fraction(0)
            if lo_b == hi_b:
                return Fraction(1), Fraction(1)

            def tail_ge(m):             # P(Z >= m)
                if m >= 1:              # q^m / (1 + q), increasing in q
                    return q_lo**m / (1 + q_lo), q_hi**m / (1 + q_hi)
                lo, hi = tail_ge(1 - m)  # 1 - P(Z <= m - 1) = 1 - P(Z >= 1 - m)
                return 1 - hi, 1 - lo

            if o == lo_b:
                return tail_ge(-lo_b)   # P(Z <= lo) = P(Z >= -lo)
            if o == hi_b:
                return tail_ge(hi_b)
        z = abs(o)
        # (1-q)/(1+q) decreases in q, q^z increases
        lo = (1 - q_hi) / (1 + q_hi) * q_lo**z
        hi = (1 - q_lo) / (1 + q_lo) * q_hi**z
        return lo, hi
    raise AssertionError(sampler)


def check_interval(sampler, params, counts, unfinished, B, support):
    total = 1 << B
    assert sum(counts.values()) + unfinished == total
    unf = Fraction(unfinished, total)
    for o in set(support) | set(counts):
        lo, hi = prob_interval(sampler, params, o)
        fin = Fraction(counts.get(o, 0), total)
        assert fin <= hi, (o, float(fin), float(hi))
        assert lo <= fin + unf, (o, float(lo), float(fin + unf))
    return unf


# ---- bounded-bit samplers: exact counts ----------------------------------------------------

@pytest.mark.parametrize("k", list(range(0, 13)))
def test_bernoulli_dyadic_ct_exact(k):
    a_values = range(0, (1 << k) + 1) if k <= 8 else sorted({0, 1, 2, 3, 5, (1 << k) // 3, (1 << k) - 1,
                                                             1 << (k - 1), 1 << k, 0x2AB & ((1 << k) - 1)})
    for a in a_values:
        if k == 0:
            st = K.replay_state([])
            s, b = K.bernoulli_dyadic_ct(st, np.uint64(a), np.int64(0))
            assert (s, int(b), K.bits_used(st)) == (OK, int(a == 1), 0)
            assert ref.bernoulli_dyadic_ct(ReplaySource([]), a, 0) == (a == 1)
            continue
        counts, unf, per = numba_enum("bernoulli_dyadic_ct", [a, k], k, 0, 2, record=True)
        assert unf == 0 and counts.get(1, 0) == a and counts.get(0, 0) == (1 << k) - a
        assert (per[2] == k).all()                      # constant bit use
        if k <= 8:
            rc, ru, runs = reference_enum("bernoulli_dyadic_ct", [a, k], k)
            assert ru == 0 and rc.get(1, 0) == a
            assert runs == list(zip(per[0].tolist(), per[1].tolist(), per[2].tolist()))


TABLES = [(2, (0, 8), 10), (1, (0, 1), 8), (0.5, (0, 3), 12), (5, (-2, 2), 9), (3, (0, 10), 11),
          (1, (-1, 1), 12), (10, (0, 0), 8)]


@pytest.mark.parametrize("scale,bounds,k", TABLES)
def test_table_sample_ct_exact(scale, bounds, k):
    t = make_bounded_laplace_table(scale, bounds, k=k)
    thr = list(t.thresholds)
    counts, unf, per = numba_enum("table_sample_ct", [thr, k], k, 0, len(t.weights), record=True)
    assert unf == 0
    assert [counts.get(j, 0) for j in range(len(t.weights))] == list(t.weights)
    assert (per[2] == k).all()
    rc, ru, runs = reference_enum("table_sample_ct", [thr, k], k)
    assert ru == 0 and [rc.get(j, 0) for j in range(len(t.weights))] == list(t.weights)
    assert runs == list(zip(per[0].tolist(), per[1].tolist(), per[2].tolist()))


# ---- unbounded samplers: certified intervals --------------------------------------------------

def _laplace_range(s, t, B):
    zmax = (t * (B + 1)) // s + 2              # V <= B, U < t
    return -zmax, 2 * zmax + 1


UNBOUNDED = [
    # (sampler, params, B for Numba, max unfinished mass allowed at that B)
    ("uniform_below", [1], 20, 0), ("uniform_below", [2], 20, 0), ("uniform_below", [3], 20, 2**-9),
    ("uniform_below", [5], 20, 2**-4), ("uniform_below", [7], 20, 2**-10), ("uniform_below", [10], 20, 2**-3),
    ("uniform_below", [100], 20, 2**-4), ("uniform_below", [257], 20, 0.3),
    ("uniform_below", [1000], 20, 2**-10),
    ("bernoulli_dyadic", [0, 8], 16, 0), ("bernoulli_dyadic", [256, 8], 16, 0),
    ("bernoulli_dyadic", [1, 1], 16, 0), ("bernoulli_dyadic", [3, 4], 16, 0),
    ("bernoulli_dyadic", [93, 8], 16, 0), ("bernoulli_dyadic", [40, 7], 16, 0),
    ("bernoulli_dyadic", [3006477107, 32], 20, 2**-19), ("bernoulli_dyadic", [2**62 + 5, 63], 20, 2**-19),
    ("bernoulli_rational", [1, 3], 20, 2**-19), ("bernoulli_rational", [2, 7], 20, 2**-19),
    ("bernoulli_rational", [5, 8], 20, 0), ("bernoulli_rational", [12345, 99991], 20, 2**-19),
    ("bernoulli_rational", [1, U64], 20, 2**-19), ("bernoulli_rational", [2**63, U64], 20, 2**-19),
    ("bernoulli_exp", [0, 1], 20, 0), ("bernoulli_exp", [1, 1], 20, 2**-8),
    ("bernoulli_exp", [1, 10], 20, 2**-8), ("bernoulli_exp", [7, 3], 20, 2**-6),
    ("bernoulli_exp", [3, 4], 20, 2**-8), ("bernoulli_exp", [5, 1], 20, 2**-6),
    ("discrete_laplace", [1, 1], 20, 2**-3), ("discrete_laplace", [1, 2], 20, 0.3),
    ("discrete_laplace", [2, 3], 20, 0.3), ("discrete_laplace", [3, 2], 20, 2**-2),
    ("discrete_laplace", [5, 1], 20, 2**-3),
    ("discrete_laplace_censored", [1, 2, -2, 2], 20, 0.3),
    ("discrete_laplace_censored", [1, 1, 0, 0], 20, 2**-3),
    ("discrete_laplace_censored", [1, 1, 1, 3], 20, 2**-3),
    ("discrete_laplace_censored", [2, 3, -4, -1], 20, 0.3),
]


def _range_for(sampler, params, B):
    if sampler == "uniform_below":
        return 0, params[0], range(params[0])
    if sampler.startswith("bernoulli"):
        return 0, 2, range(2)
    s, t = params[0], params[1]
    base, size = _laplace_range(s, t, B)
    if sampler == "discrete_laplace_censored":
        return base, size, range(params[2], params[3] + 1)
    return base, size, range(-3, 4)


def _id(c):
    return f"{c[0]}-" + "-".join(str(p) for p in c[1])


@pytest.mark.parametrize("case", UNBOUNDED, ids=[_id(c) for c in UNBOUNDED])
def test_unbounded_reference_and_numba(case):
    sampler, params, B, max_unf = case
    # reference at B_REF, string by string equal to Numba, then its own interval check
    base, size, support = _range_for(sampler, params, B_REF)
    rc, ru, runs = reference_enum(sampler, params, B_REF)
    counts, unf, per = numba_enum(sampler, params, B_REF, base, size, record=True)
    assert runs == list(zip(per[0].tolist(), per[1].tolist(), per[2].tolist()))
    assert (rc, ru) == (counts, unf)
    check_interval(sampler, params, rc, ru, B_REF, support)
    # Numba at B bits
    base, size, support = _range_for(sampler, params, B)
    counts, unf, _ = numba_enum(sampler, params, B, base, size)
    mass_unf = check_interval(sampler, params, counts, unf, B, support)
    assert mass_unf <= max_unf          # the check is informative, not vacuous


SLOW = [("discrete_laplace", [1, 1], 24), ("discrete_laplace", [2, 3], 24), ("bernoulli_exp", [7, 3], 24),
        ("uniform_below", [1000], 24), ("discrete_laplace_censored", [1, 2, -2, 2], 24),
        ("bernoulli_rational", [12345, 99991], 24)]


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[_id(c) for c in SLOW])
def test_unbounded_numba_24_bits(case):
    sampler, params, B = case
    base, size, support = _range_for(sampler, params, B)
    counts, unf, _ = numba_enum(sampler, params, B, base, size)
    check_interval(sampler, params, counts, unf, B, support)


def test_interval_check_detects_a_biased_sampler():
    """Self-test of the harness: a sampler that is slightly off fails the interval check."""
    counts, unf, _ = numba_enum("bernoulli_rational", [1, 3], 20, 0, 2)
    with pytest.raises(AssertionError):
        check_interval("bernoulli_rational", [1000, 3001], counts, unf, 20, range(2))
    counts, unf, _ = numba_enum("discrete_laplace", [1, 1], 20, *_laplace_range(1, 1, 20))
    with pytest.raises(AssertionError):
        check_interval("discrete_laplace", [13, 10], counts, unf, 20, range(-3, 4))
