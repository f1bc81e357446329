"""Shared report types and the generic exact enumeration, below the mechanisms.

Mechanism families (``fxdp.mechanisms``) build these objects
through the protocol (``Mechanism.exact_audit``, ``Mechanism.estimate``); the
upper layers (``fxdp.audit``, ``fxdp.estimate``) re-export them.  They live
here so that nothing below the upper layers has to import them from above.

* ``AuditReport``: what ``fxdp.audit(m)`` returns (stable attribute names).
* ``Estimate``: a server-side point estimate with its standard error.
* ``worst_pair(pairs, pmf)``: the exact worst likelihood ratio over neighbouring
  pairs and outputs (Fractions), with its witness.
* ``ratio_eps(ratio)``: ln(ratio) rounded up (0 for ratio <= 1, inf for inf).
* ``Support``: a frequency oracle's per-item support counts and its exact support
  probabilities, the sufficient statistic of its unbiased estimator and of IBU.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from .conservative import log_up


@dataclass
class AuditReport:
    mechanism: str
    epsilon_claimed: float
    epsilon_realized: float            # math.inf when unbounded
    witness: dict = field(default_factory=dict)
    method: str = "exact enumeration"
    epsilon_bound_paper: float | None = None
    epsilon_bound_tight: float | None = None
    d_in: object = 1                   # the input distance audited: an int, or "all" (local DP)

    def to_dict(self):
        d = asdict(self)
        if d["epsilon_bound_paper"] is None:
            del d["epsilon_bound_paper"], d["epsilon_bound_tight"]
        d["epsilon_label"] = self.label
        return d

    @property
    def label(self):
        """Which epsilon this is: 'epsilon (d_in = N)' or 'local epsilon (all inputs)'."""
        return epsilon_label(self.d_in)

    def __str__(self):
        lines = [f"mechanism          {self.mechanism}",
                 f"audited            {self.label}",
                 f"epsilon claimed    {self.epsilon_claimed!r}",
                 f"epsilon realized   {self.epsilon_realized!r}   ({self.method})"]
        if self.epsilon_bound_paper is not None:
            lines += [f"bound (paper)      {self.epsilon_bound_paper!r}",
                      f"bound (tight)      {self.epsilon_bound_tight!r}"]
        lines.append(f"witness            {self.witness}")
        return "\n".join(lines)


@dataclass
class Estimate:
    name: str
    estimate: object       # float or numpy array
    stderr: object         # same shape: estimated standard error
    labels: list | None = None   # the rows' names (k-ary RR: its categories); None: name, name[i]

    def as_rows(self, truth=None):
        est = np.atleast_1d(self.estimate)
        se = np.atleast_1d(self.stderr)
        tru = np.atleast_1d(truth) if truth is not None else [None] * len(est)
        if self.labels is not None and len(self.labels) == len(est):
            names = [str(v) for v in self.labels]
        else:
            names = [self.name] if len(est) == 1 else [f"{self.name}[{i}]" for i in range(len(est))]
        return [{"name": n, "true": (None if t is None else float(t)), "estimate": float(e), "stderr": float(s)}
                for n, t, e, s in zip(names, tru, est, se)]


@dataclass
class Support:
    """What a frequency oracle's reports say about each item of [0, d).

    ``counts[i]``: the reports that *support* item i (k-ary RR: report == i; unary encoding:
    bit i set; Hadamard response: report in C_i; local hashing: h(i) == y; subset selection:
    i in the subset).  ``p``: P(a report supports i | the device holds i); ``q``: P(it supports
    i | the device holds another item); exact Fractions of the realized mechanism.

    Each device supports item i independently with probability p or q, so counts[i] is a sum
    of n independent Bernoullis and Var(counts[i]) = n (f_i p(1-p) + (1-f_i) q(1-q)) exactly."""
    counts: np.ndarray     # int64[d]
    n: int                 # reports
    p: Fraction
    q: Fraction

    def unbiased(self):
        """The unbiased frequencies f_i = (counts[i]/n - q)/(p - q) with the closed-form standard
        error, f_i clipped to [0, 1] in the plug-in."""
        p, q = float(self.p), float(self.q)
        est = (np.asarray(self.counts, dtype=np.float64) / self.n - q) / (p - q)
        return Estimate("frequency", est, np.sqrt(self.variance(np.clip(est, 0.0, 1.0))))

    def variance(self, f):
        """Var of one item's unbiased frequency estimate at true frequency f (over n reports)."""
        p, q = float(self.p), float(self.q)
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (self.n * (p - q) ** 2)


def reports_array(reports, dtype=np.int64):
    """Reports as a non-empty numpy array (ValueError when empty)."""
    arr = np.asarray(reports)
    if arr.size == 0:
        raise ValueError("reports must not be empty")
    return arr.astype(dtype, copy=False)


def epsilon_label(d_in):
    """The name every printed epsilon carries: 'epsilon (d_in = 1)', 'local epsilon (all inputs)'."""
    return "local epsilon (all inputs)" if d_in == "all" else f"epsilon (d_in = {d_in})"


def ratio_eps(ratio):
    """ln(ratio) rounded up; 0 for ratio <= 1, inf for an unbounded ratio."""
    if ratio == math.inf:
        return math.inf
    return 0.0 if ratio <= 1 else log_up(ratio)


def worst_over_all(inputs, pmf):
    """Max over every pair of inputs (x, x') and every output y of P(y|x)/P(y|x'), by one pass
    per output: the pairs are unconstrained, so the worst ratio at y is max_x P(y|x) / min_x P(y|x)
    (an output that some input never yields is an infinite ratio).  Returns (ratio, witness)."""
    inputs = list(inputs)
    pmfs = [pmf(x) for x in inputs]
    outputs = set()
    for p in pmfs:
        outputs.update(p)
    best, witness = Fraction(1), {}
    for y in sorted(outputs, key=repr):
        vals = [p.get(y, 0) for p in pmfs]
        i_hi = max(range(len(vals)), key=vals.__getitem__)
        i_lo = min(range(len(vals)), key=vals.__getitem__)
        hi_v, lo_v = vals[i_hi], vals[i_lo]
        if lo_v == 0:
            return math.inf, {"x": inputs[i_hi], "x_prime": inputs[i_lo], "output": y, "p": str(hi_v),
                              "p_prime": "0"}
        if hi_v / lo_v > best:
            best = hi_v / lo_v
            witness = {"x": inputs[i_hi], "x_prime": inputs[i_lo], "output": y, "p": str(hi_v),
                       "p_prime": str(lo_v)}
    return best, witness


def window_extrema(a, w, axis=-1):
    """(max, min) of every window of w consecutive entries of the integer array a along axis
    (van Herk / Gil-Werman: prefix and suffix extrema per block of w, O(n)); window i covers
    a[i : i + w], so each result has n - w + 1 entries along axis.  Exact (integers)."""
    a = np.moveaxis(np.asarray(a, dtype=np.int64), axis, -1)
    n = a.shape[-1]
    if not 1 <= w <= n:
        raise ValueError(f"window w must be in [1, {n}], got {w}")
    nb = -(-n // w)
    info = np.iinfo(np.int64)
    out = []
    for acc, fill in ((np.maximum, info.min), (np.minimum, info.max)):
        b = np.full(a.shape[:-1] + (nb * w,), fill, dtype=np.int64)
        b[..., :n] = a
        b = b.reshape(a.shape[:-1] + (nb, w))
        pre = acc.accumulate(b, axis=-1).reshape(a.shape[:-1] + (nb * w,))
        suf = acc.accumulate(b[..., ::-1], axis=-1)[..., ::-1].reshape(a.shape[:-1] + (nb * w,))
        i = np.arange(n - w + 1)
        out.append(np.moveaxis(acc(suf[..., i], pre[..., i + w - 1]), -1, axis))
    return out[0], out[1]


def worst_ratio_index(hi, lo):
    """(index, Fraction) of the largest hi[i] / lo[i] over integer arrays (math.inf where lo is 0
    and hi is not): screened in float64, decided exactly among the near-maximal entries."""
    hi, lo = np.asarray(hi, dtype=np.int64).ravel(), np.asarray(lo, dtype=np.int64).ravel()
    zero = np.nonzero((lo == 0) & (hi > 0))[0]
    if zero.size:
        return int(zero[0]), math.inf
    ok = lo > 0
    if not ok.any():
        return None, Fraction(1)
    r = np.where(ok, hi.astype(np.float64) / np.where(ok, lo, 1).astype(np.float64), 0.0)
    top = float(r.max())
    cand = np.nonzero(r >= top * (1 - 1e-9))[0]
    best = max(cand, key=lambda i: Fraction(int(hi[i]), int(lo[i])))
    return int(best), Fraction(int(hi[best]), int(lo[best]))


def worst_pair(pairs, pmf):
    """Max over pairs (x, x') and outputs y of P(y|x)/P(y|x'); returns (ratio, witness)."""
    best, witness = Fraction(1), {}
    cache = {}
    for x, xp in pairs:
        p = cache.get(x) or cache.setdefault(x, pmf(x))
        q = cache.get(xp) or cache.setdefault(xp, pmf(xp))
        for y, py in p.items():
            qy = q.get(y, 0)
            if py > 0 and qy == 0:
                return math.inf, {"x": x, "x_prime": xp, "output": y, "p": str(py), "p_prime": "0"}
            if py / qy > best:
                best = py / qy
                witness = {"x": x, "x_prime": xp, "output": y, "p": str(py), "p_prime": str(qy)}
    return best, witness
