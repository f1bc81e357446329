"""Server side of the full RAPPOR family (fxdp.mechanisms.memoized.rappor_full); public as
``fxdp.estimate_rappor``.

* ``bloom_counts(reports, m)``: unbiased estimates, per cohort c and Bloom bit
  i, of t_ci = the number of reporting devices of cohort c whose Bloom bit i is
  set, with standard errors.  With q* = P(S=1 | B=1) = (1 - f/2) q + (f/2) p and
  p* = P(S=1 | B=0) = (f/2) q + (1 - f/2) p (the realized dyadic parameters),
  the count Y_ci of reports with bit i set has E[Y_ci] = t_ci q* + (N_c - t_ci) p*,
  so

      t_hat = (Y_ci - N_c p*) / (q* - p*),            q* - p* = (1 - f)(q - p),
      Var(t_hat) = (t q*(1-q*) + (N_c - t) p*(1-p*)) / (q* - p*)^2

  exactly (one report per device: the bits of distinct devices are
  independent).  The reported standard error plugs t_hat, clipped to
  [0, N_c], into the variance; ``bloom_count_stderr`` gives it for known t.
* ``decode(reports, m, candidates)``: candidate-string frequencies by
  non-negative least squares (scipy.optimize.nnls) of the estimated counts
  against the candidates' Bloom vectors (two steps: rows weighted by cohort
  size, then by the variance of the first fit's counts), with an
  optional non-negative "background" column for values outside the candidate
  list; standard errors from the weighted least-squares refit on the selected
  candidates (EPK 2014 section 4: selection, then least squares), z-scores and
  Bonferroni-corrected significance.
* ``audit_rappor_full(m, level)``: the exact audit in the per-bit product form
  for any k, h (``fxdp.audit(m)`` enumerates small supports; both agree).

Floats are fine here: this is statistics on released data.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...conservative import log_up
from ...reports import AuditReport, Estimate


def _check_mechanism(m):
    # by kind, not class: the family's mechanism module imports this one
    if getattr(m, "kind", None) != "rappor_full":
        raise TypeError(f"mechanism must be a full RAPPOR mechanism (make_rappor_full), got {type(m).__name__}")


def _split(reports, m):
    """(cohorts, bits) from (n, k+2) report rows, or from a (cohorts, bits) pair."""
    if isinstance(reports, tuple) and len(reports) == 2:
        cohorts = np.asarray(reports[0])
        bits = np.asarray(reports[1])
        if cohorts.ndim != 1 or bits.ndim != 2 or bits.shape != (cohorts.shape[0], m.k):
            raise ValueError(f"reports: (cohorts (n,), bits (n, {m.k})) expected")
        if cohorts.size and (cohorts.min() < 0 or cohorts.max() >= m.cohorts):
            raise ValueError(f"reports: cohorts must be in [0, {m.cohorts - 1}]")
        if bits.size and (bits.min() < 0 or bits.max() > 1):
            raise ValueError("reports: bits must be 0/1")
        return cohorts.astype(np.int64), bits.astype(np.uint8)
    cohorts, bits = m.split_reports(reports)
    return cohorts.astype(np.int64), bits


def pq_star(m):
    """(p*, q*) as exact Fractions: P(S_i = 1 | B_i = 0) and P(S_i = 1 | B_i = 1)."""
    return m.report_bit_pmf(0)[1], m.report_bit_pmf(1)[1]


@dataclass
class BloomCounts:
    estimate: np.ndarray          # (cohorts, k) unbiased estimates of t_ci
    stderr: np.ndarray            # (cohorts, k) plug-in standard errors
    reports: np.ndarray           # (cohorts,) N_c, reports per cohort
    observed: np.ndarray          # (cohorts, k) Y_ci, reports with bit i set
    p_star: float
    q_star: float

    def as_estimate(self):
        return Estimate("bloom_count", self.estimate, self.stderr)


def bloom_counts(reports, m):
    """Unbiased per-cohort Bloom-bit counts with standard errors (see the module doc)."""
    _check_mechanism(m)
    ps, qs = pq_star(m)
    if ps == qs:
        raise ValueError("f = 1 or p = q: the reports carry no information about the Bloom bits")
    cohorts, bits = _split(reports, m)
    if cohorts.size == 0:
        raise ValueError("reports must not be empty")
    n_c, y = cohort_bit_sums(cohorts, bits, m)
    return bloom_counts_from_sums(y, n_c, m)


def cohort_bit_sums(cohorts, bits, m):
    """(N_c reports per cohort, Y_ci reports of cohort c with bit i set), as float64 arrays."""
    n_c = np.bincount(cohorts, minlength=m.cohorts).astype(np.float64)
    y = np.zeros((m.cohorts, m.k), np.float64)
    order = np.argsort(cohorts, kind="stable")
    present = np.flatnonzero(n_c)
    starts = np.concatenate([[0], np.cumsum(n_c[present])[:-1]]).astype(np.int64)
    y[present] = np.add.reduceat(bits[order].astype(np.int64), starts, axis=0)
    return n_c, y


def bloom_counts_from_sums(y, n_c, m):
    """bloom_counts from the per-cohort sufficient statistic (Y_ci, N_c)."""
    ps, qs = pq_star(m)
    if ps == qs:
        raise ValueError("f = 1 or p = q: the reports carry no information about the Bloom bits")
    y = np.asarray(y, np.float64)
    n_c = np.asarray(n_c, np.float64)
    ps_f, qs_f = float(ps), float(qs)
    d = qs_f - ps_f
    est = (y - n_c[:, None] * ps_f) / d
    t = np.clip(est, 0.0, n_c[:, None])
    var = (t * qs_f * (1 - qs_f) + (n_c[:, None] - t) * ps_f * (1 - ps_f)) / d ** 2
    return BloomCounts(est, np.sqrt(var), n_c, y, ps_f, qs_f)


def bloom_count_stderr(true_counts, reports_per_cohort, m):
    """Exact standard deviation of bloom_counts' estimate for known true counts t_ci."""
    ps, qs = (float(v) for v in pq_star(m))
    t = np.asarray(true_counts, np.float64)
    n_c = np.asarray(reports_per_cohort, np.float64)[:, None]
    return np.sqrt(t * qs * (1 - qs) + (n_c - t) * ps * (1 - ps)) / abs(qs - ps)


@dataclass
class Decoded:
    candidates: list
    fraction: np.ndarray          # estimated share of devices holding each candidate (NNLS)
    stderr: np.ndarray            # its standard error (WLS refit on the selected set; 0 if not selected)
    count: np.ndarray             # fraction * number of reports
    count_stderr: np.ndarray
    z: np.ndarray                 # fraction / stderr (0 where not selected)
    significant: np.ndarray       # z above the Bonferroni-corrected one-sided normal quantile
    background: float             # NNLS weight of the uniform background column (0 if disabled)
    other_fraction: float         # background / (expected share of set Bloom bits of a random value)
    n: int
    threshold: float
    extra: dict = field(default_factory=dict)

    def rows(self, truth=None):
        """[{"name", "true", "estimate", "stderr"}] for reports (fractions)."""
        truth = truth or {}
        return [{"name": str(c), "true": (None if c not in truth else float(truth[c])),
                 "estimate": float(f), "stderr": float(s)}
                for c, f, s in zip(self.candidates, self.fraction, self.stderr)]


def _norm_isf(alpha):
    """Upper-tail standard normal quantile (bisection on erfc; alpha in (0, 1/2])."""
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(mid / math.sqrt(2)) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def decode(reports, m, candidates, background=True, alpha=0.05, counts=None):
    """Candidate-string frequencies by NNLS (see the module doc).

    reports: (n, k+2) report rows (m.simulate) or (cohorts, bits).  candidates:
    distinct str/bytes values.  Returns a Decoded.
    """
    try:
        from scipy.optimize import nnls
    except ImportError:
        raise ImportError("candidate decoding needs scipy: pip install 'fxdp[server]'") from None

    _check_mechanism(m)
    cands = list(candidates)
    if not cands:
        raise ValueError("candidates must not be empty")
    if len(set(cands)) != len(cands):
        raise ValueError("candidates must be distinct")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    bc = bloom_counts(reports, m) if counts is None else counts
    n = int(bc.reports.sum())
    keep = bc.reports > 0
    bloom = m.bloom_matrix(cands).astype(np.float64)              # (C, V, k)
    coh = np.flatnonzero(keep)
    a = (bloom[coh] * bc.reports[coh, None, None]).transpose(0, 2, 1).reshape(-1, len(cands))
    if background:
        a = np.hstack([a, np.repeat(bc.reports[coh], m.k)[:, None]])
    y = bc.estimate[coh].reshape(-1)
    n_rows = np.repeat(bc.reports[coh], m.k)
    # Two-step weighted NNLS.  Weighting a row by its own plug-in stderr would correlate
    # the weights with that row's noise (rows that came out high get less weight) and bias
    # every share low; so: step 1 weights by cohort size only, step 2 by the variance of
    # the step-1 fitted counts.
    w = 1.0 / np.sqrt(n_rows)
    x, _ = nnls(a * w[:, None], y * w, maxiter=50 * a.shape[1])
    fitted = np.clip(a @ x, 0.0, n_rows)
    d2 = (bc.q_star - bc.p_star) ** 2
    var = (fitted * bc.q_star * (1 - bc.q_star) + (n_rows - fitted) * bc.p_star * (1 - bc.p_star)) / d2
    w = 1.0 / np.sqrt(np.maximum(var, 1e-12))
    x, _ = nnls(a * w[:, None], y * w, maxiter=50 * a.shape[1])
    frac = x[:len(cands)]
    bg = float(x[len(cands)]) if background else 0.0
    sel = np.flatnonzero(x > 0)
    stderr_all = np.zeros(a.shape[1])
    if sel.size:
        aw = a[:, sel] * w[:, None]
        cov = np.linalg.pinv(aw.T @ aw)
        stderr_all[sel] = np.sqrt(np.maximum(np.diag(cov), 0.0))
    stderr = stderr_all[:len(cands)]
    z = np.divide(frac, stderr, out=np.zeros_like(frac), where=stderr > 0)
    thr = _norm_isf(alpha / len(cands))
    p_set = 1.0 - (1.0 - 1.0 / m.k) ** m.h        # a uniformly hashed value sets a given bit
    return Decoded(cands, frac, stderr, frac * n, stderr * n, z, z > thr, bg,
                   bg / p_set if background else 0.0, n, thr)


# --------------------------------------------------------------------------
# exact audit in product form


def audit_rappor_full(m, level="one"):
    """Exact realized epsilon of one report (level "one") or of the PRR, i.e. of any
    number of reports of one value (level "infinite"), for any k and h.

    Each output bit depends only on its own Bloom bit, so for Bloom vectors B, B'
    the worst likelihood ratio over outputs is r10^|B \\ B'| * r01^|B' \\ B|, where
    r10 = max_y P(y | 1)/P(y | 0) and r01 = max_y P(y | 0)/P(y | 1) come from the exact
    per-bit pmfs (Fractions over 2^bits); the worst pair of Bloom vectors (1..h set
    bits among k) is the largest feasible such product.  Rounded up with log_up."""
    _check_mechanism(m)
    if level not in ("one", "infinite"):
        raise ValueError(f"level must be 'one' or 'infinite', got {level!r}")
    pmf = m.report_bit_pmf if level == "one" else m.prr_bit_pmf
    ratio, n10, n01, r10, r01 = m.worst_case(level)
    claimed = m.epsilon if level == "one" else m.epsilon_infinite
    name = repr(m) + ("" if level == "one" else " [infinite reports: PRR]")
    if n10 == 0 and n01 == 0:
        return AuditReport(name, claimed, 0.0, {}, method="exact (no two Bloom vectors differ)")
    c = 1 if (n10 == 0 or n01 == 0) else 0
    x = tuple(range(n10 + c))
    xp = tuple(range(n10, n10 + c + n01)) if c == 0 else tuple([0] + list(range(n10 + 1, n10 + 1 + n01)))

    def arg(a, b):
        best, by = None, 0
        for yv in (0, 1):
            if a[yv] == 0:
                continue
            r = math.inf if b[yv] == 0 else a[yv] / b[yv]
            if best is None or r > best:
                best, by = r, yv
        return by

    y10, y01 = arg(pmf(1), pmf(0)), arg(pmf(0), pmf(1))
    eps = math.inf if ratio == math.inf else (0.0 if ratio <= 1 else log_up(Fraction(ratio)))
    witness = {"x": x, "x_prime": xp,
               "output": f"bit = {y10} on x minus x_prime, {y01} on x_prime minus x, anything elsewhere",
               "ratio": str(ratio), "r10": str(r10), "r01": str(r01), "n10": n10, "n01": n01}
    return AuditReport(name, claimed, eps, witness, method="exact (per-bit product form)")


__all__ = ["BloomCounts", "Decoded", "bloom_counts", "bloom_count_stderr", "decode", "pq_star",
           "audit_rappor_full"]


class CohortBitSums:
    """Full RAPPOR's mergeable sufficient statistic for streaming estimation (fxdp estimate,
    --engine dask): per cohort, the number of reports and of reports with each bit set: O(cohorts
    x k) memory however many reports.  estimate_rows decodes the synthetic candidates from it, as
    RapporFull.estimate_rows does from the reports (the same bloom counts, hence the same rows)."""

    def __init__(self, m):
        self.m = m
        self.y = np.zeros((m.cohorts, m.k), np.int64)
        self.n_c = np.zeros(m.cohorts, np.int64)

    @property
    def n(self):
        return int(self.n_c.sum())

    def add(self, reports):
        cohorts, bits = _split(reports, self.m)
        n_c, y = cohort_bit_sums(cohorts, bits, self.m)
        self.n_c += n_c.astype(np.int64)
        self.y += y.astype(np.int64)
        return self

    def merge(self, other):
        self.n_c += other.n_c
        self.y += other.y
        return self

    def estimate_rows(self, truth=None):
        if self.n == 0:
            raise ValueError("reports: no reports to estimate from")
        counts = bloom_counts_from_sums(self.y, self.n_c, self.m)
        return decode(None, self.m, self.m.SYNTHETIC_CANDIDATES, counts=counts).rows(truth)
