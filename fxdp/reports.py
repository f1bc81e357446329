"""Shared report types and the generic exact enumeration, below the mechanisms.

Mechanism families (``fxdp.mechanisms``, ``fxdp.finite``) build these objects
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

    def to_dict(self):
        d = asdict(self)
        if d["epsilon_bound_paper"] is None:
            del d["epsilon_bound_paper"], d["epsilon_bound_tight"]
        return d

    def __str__(self):
        lines = [f"mechanism          {self.mechanism}",
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


def ratio_eps(ratio):
    """ln(ratio) rounded up; 0 for ratio <= 1, inf for an unbounded ratio."""
    if ratio == math.inf:
        return math.inf
    return 0.0 if ratio <= 1 else log_up(ratio)


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
