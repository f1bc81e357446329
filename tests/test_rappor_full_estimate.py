"""Server side of the full RAPPOR client on simulated fleets (fixed seeds): the Bloom-bit
count estimator is unbiased with the stated standard errors, and NNLS decoding recovers
the frequencies of heavy candidates.

Tolerances: with M estimated counts, z = (estimate - truth) / theoretical stderr has
E[z] = 0 and E[z^2] = 1; we require |mean z| < 4 / sqrt(M) and |mean z^2 - 1| < 4 sqrt(2 / M)
(4 sigma of the sample mean of ~N(0, 1) and chi-square(1) variables; the counts are
independent given the population).  Decoded heavy-hitter shares must lie within 4
standard errors of the truth."""
from fractions import Fraction as F

import numpy as np
import pytest

from fxdp.estimate_rappor import bloom_count_stderr, bloom_counts, decode, pq_star
from fxdp.mechanisms import make_rappor_full

SEED = 20140609


def population(m, n, heavy, shares, tail_size, seed):
    rng = np.random.default_rng(seed)
    tail = [f"tail/{i}" for i in range(tail_size)]
    vocab = list(heavy) + tail
    probs = np.concatenate([shares, np.full(tail_size, (1 - sum(shares)) / tail_size)])
    idx = rng.choice(len(vocab), size=n, p=probs)
    vblocks = m.encode_many(vocab)
    return vocab, vblocks, idx


def true_counts(m, reports, vblocks, idx):
    cohorts, _ = m.split_reports(reports)
    bloom = m.bloom_matrix(vblocks)                                   # (C, V, k)
    t = np.zeros((m.cohorts, m.k))
    np.add.at(t, cohorts.astype(np.int64), bloom[cohorts, idx].astype(np.float64))
    return t


@pytest.mark.parametrize("ct", [False, True])
def test_bloom_count_error_matches_theory(ct):
    m = make_rappor_full(32, 2, 16, F(1, 2), F(1, 4), F(3, 4), constant_time=ct, bits=16)
    vocab, vblocks, idx = population(m, 150_000, ["a", "b", "c"], [0.3, 0.2, 0.1], 200, SEED)
    reports = m.simulate(vblocks[idx], SEED + ct)
    bc = bloom_counts(reports, m)
    truth = true_counts(m, reports, vblocks, idx)
    sd = bloom_count_stderr(truth, bc.reports, m)
    z = ((bc.estimate - truth) / sd).ravel()
    M = z.size
    assert abs(z.mean()) < 4 / np.sqrt(M)
    assert abs((z ** 2).mean() - 1) < 4 * np.sqrt(2 / M)
    # the plug-in standard errors are close to the theoretical ones
    assert np.allclose(bc.stderr, sd, rtol=0.05)
    # q* - p* = (1 - f)(q - p) exactly
    ps, qs = pq_star(m)
    assert qs - ps == (1 - m.f_realized) * (m.q_realized - m.p_realized)
    # (cohorts, bits) input gives the same
    cohorts, bits = m.split_reports(reports)
    assert np.array_equal(bloom_counts((cohorts, bits), m).estimate, bc.estimate)
    assert bc.reports.sum() == 150_000 and np.array_equal(bc.observed.sum(), bits.sum())


def test_decode_recovers_heavy_candidates():
    m = make_rappor_full(64, 2, 32, F(1, 2), F(1, 2), F(3, 4))            # EPK's f, p, q
    heavy = ["apple", "banana", "cherry", "durian", "elderberry", "fig"]
    shares = np.array([0.2, 0.15, 0.1, 0.08, 0.05, 0.04])
    decoys = [f"decoy/{i}" for i in range(20)]
    n = 200_000
    vocab, vblocks, idx = population(m, n, heavy, shares, 3000, SEED)
    reports = m.simulate(vblocks[idx], SEED)
    d = decode(reports, m, heavy + decoys)
    true = np.bincount(idx, minlength=len(vocab))[:len(heavy)] / n
    est, se = d.fraction[:6], d.stderr[:6]
    assert (se > 0).all() and (se < 0.01).all()
    assert (np.abs(est - true) <= 4 * se).all(), (est, true, se)
    assert d.significant[:6].all()
    assert (d.fraction[6:] < 0.02).all()
    assert d.significant[6:].sum() <= 1
    assert np.allclose(d.count, d.fraction * n) and d.n == n
    rows = d.rows(dict(zip(heavy, true)))
    assert rows[0]["name"] == "apple" and rows[0]["true"] == true[0]
    # without the background column the unmodelled tail inflates the candidates
    d0 = decode(reports, m, heavy + decoys, background=False)
    assert d0.background == 0.0 and d0.fraction[:6].sum() > d.fraction[:6].sum()


def test_estimator_rejects_what_it_cannot_estimate():
    m = make_rappor_full(16, 2, 4, 1, F(1, 4), F(3, 4))
    reports = m.simulate(["a", "b"], 1)
    with pytest.raises(ValueError, match="no information"):
        bloom_counts(reports, m)
    m = make_rappor_full(16, 2, 4, F(1, 2), F(1, 4), F(3, 4))
    reports = m.simulate(["a", "b"], 1)
    with pytest.raises(TypeError, match="full RAPPOR"):
        bloom_counts(reports, object())
    with pytest.raises(ValueError, match="empty"):
        bloom_counts(reports[:0], m)
    with pytest.raises(ValueError, match="candidates must not be empty"):
        decode(reports, m, [])
    with pytest.raises(ValueError, match="distinct"):
        decode(reports, m, ["a", "a"])
    with pytest.raises(ValueError, match="alpha"):
        decode(reports, m, ["a"], alpha=0)
    with pytest.raises(ValueError, match="cohorts must be"):
        bloom_counts((np.array([4]), np.zeros((1, 16), np.uint8)), m)
    with pytest.raises(ValueError, match="0/1"):
        bloom_counts((np.array([0]), np.full((1, 16), 2, np.uint8)), m)
