"""Layer 5: exact privacy audit of a configured mechanism.

``audit(m)`` computes the exact output distribution of the implementation
as configured (its realized dyadic or integer parameters, not the requested
float ones), compares every pair of neighbouring inputs, and reports the
worst-case log-ratio with its witness next to the claimed epsilon.

Probabilities are exact Fractions, or, where the implementation's
distribution is irrational (exact discrete Laplace noise), ratios taken in
closed form from its integer parameters.  ``epsilon_realized`` is rounded up.
"""
from __future__ import annotations

import math
import sys
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from .conservative import float_up, log_up
from .mechanisms.geometric import Geometric
from .mechanisms.rappor import Rappor
from .mechanisms.rappor_full import RapporFull
from .samplers.bounded import exact_max_ratio

MAX_ENUMERATED_INPUTS = 4096


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


def _ratio_eps(ratio):
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


MAX_LOCAL_SPAN = 64       # d_in > 1 on the constant-time geometric: inputs enumerated pairwise


def audit(m, d_in=1):
    """Exact realized epsilon of mechanism m with its witness.

    d_in is the input distance.  1 (the default) compares neighbouring
    inputs.  Larger d_in is supported for the geometric mechanism, whose
    metric is |x - x'| (L1 for the vector form): with d_in = hi - lo it is the
    local-DP guarantee of one report over every pair of inputs in the
    bounds; the claimed value is then m.privacy_map(d_in).
    """
    from .validate import check_int
    d_in = check_int("d_in", d_in, 1)
    if d_in != 1:
        if not isinstance(m, Geometric):
            raise ValueError(f"d_in must be 1 for {m.kind}, got {d_in}: only the geometric mechanism "
                             "audits larger input distances")
        return _audit_geometric_distance(m, repr(m), d_in)
    name = repr(m)
    if getattr(m, "finite_precision", False):
        from .finite.audit_finite import audit_finite
        return audit_finite(m)
    if isinstance(m, RapporFull) and min(2 * m.h, m.k) > 16:
        # too many Bloom patterns to enumerate: the exact per-bit product form
        from .estimate_rappor import audit_rappor_full
        return audit_rappor_full(m)
    if isinstance(m, Rappor):
        return _audit_rappor(m, name)
    if isinstance(m, Geometric):
        return _audit_geometric(m, name)
    ratio, witness = worst_pair(m.audit_pairs(), m.output_pmf)
    return AuditReport(name, m.epsilon, _ratio_eps(ratio), witness)


def _audit_rappor(m, name):
    """Outputs factor over bits, so P(y|x)/P(y|x') = r^(#bits where x, x' differ and
    y matches x) * r^-(... y matches x'), r = (1-q)/q: the max over y is r^|x xor x'|,
    and the max over the input domain (k bits, at most m ones) is |x xor x'| = min(2m, k)."""
    q = m.flip_prob
    r = (1 - q) / q
    other = min(m.m, m.k - m.m)
    x = [1] * m.m + [0] * (m.k - m.m)
    xp = [0] * m.m + [1] * other + [0] * (m.k - m.m - other)
    d = m.m + other                                  # = min(2m, k)
    # ln(r^d) rounded up: exactly via the rational power when small, else d * log_up(r) rounded up
    eps = _ratio_eps(r ** d) if d <= 64 else float_up(Fraction(log_up(r)) * d)
    witness = {"x": x, "x_prime": xp, "output": x, "p": f"P(y|x') * ((1-q)/q)^{d}", "q": str(q)}
    return AuditReport(name, m.epsilon, eps, witness, method="exact (bitwise product form)")


def _audit_geometric(m, name):
    lo, hi = m.bounds
    if m.scale == 0:
        if lo == hi:
            return AuditReport(name, m.epsilon, 0.0, {}, method="exact (no noise)")
        x = lo
        return AuditReport(name, m.epsilon, math.inf,
                           {"x": x, "x_prime": x + 1, "output": x, "p": "1", "p_prime": "0"},
                           method="exact (no noise)")
    if m.table is not None:
        tb = m.table
        if hi - lo + 1 <= MAX_ENUMERATED_INPUTS // 16:
            pairs = [(x, x + 1) for x in range(lo, hi)] + [(x + 1, x) for x in range(lo, hi)]
            ratio, witness = worst_pair(pairs, tb.output_pmf)
            method = "exact enumeration of every input pair and output"
        else:
            ratio = exact_max_ratio(tb.weights, tb.width, (lo, hi), (lo, hi))
            witness = {"note": "structured exact scan (interior weights and censored tails)"}
            method = "exact (structured scan of the integer weights)"
        return AuditReport(name, m.epsilon, _ratio_eps(ratio), witness, method=method)
    # Exact CKS sampler: P(z) = (1-rho)/(1+rho) rho^|z| with rho = exp(-s/t) exactly; every
    # adjacent-input ratio of the censored output is rho^-1, rho or 1, so the worst case is
    # exp(s/t), attained e.g. at the lower bound.
    if lo == hi:
        return AuditReport(name, m.epsilon, 0.0, {}, method="exact (single output)")
    eps = float_up(Fraction(m.s, m.t))
    witness = {"x": lo, "x_prime": lo + 1, "output": lo,
               "p": "1/(1+rho)", "p_prime": "rho/(1+rho)", "rho": f"exp(-{m.s}/{m.t})"}
    return AuditReport(name, m.epsilon, eps, witness, method="exact (closed form of the exact sampler)")


def _audit_geometric_distance(m, name, d_in):
    """Geometric at input distance d_in > 1, exactly.

    Constant-time table: the worst ratio R1(d) over input pairs at distance
    exactly d (every pair within the bounds, every output) is enumerated in
    Fractions for d <= d_in.  A scalar input takes the max over d <= d_in; a vector spreads d_in over coordinates (L1), whose ratios multiply,
    so R(d) = max_j R1(j) R(d - j).  Lazy (exact CKS noise): every ratio at
    distance d is at most rho^-d, attained at the lower bound, so epsilon =
    d s / t (with d clipped to the span for a scalar input)."""
    claimed = m.privacy_map(d_in)
    lo, hi = m.bounds
    span = hi - lo
    if m.scale == 0 or span == 0:
        rep = _audit_geometric(m, name)
        return AuditReport(name, claimed, rep.epsilon_realized, rep.witness, rep.method)
    if m.table is None:
        d = d_in if m.vector else min(d_in, span)
        eps = float_up(Fraction(d * m.s, m.t))
        witness = {"x": lo, "x_prime": lo + d, "output": lo, "ratio": f"exp({d}*{m.s}/{m.t})"}
        return AuditReport(name, claimed, eps, witness,
                           method=f"exact (closed form of the exact sampler, d_in = {d_in})")
    if span + 1 > MAX_LOCAL_SPAN:
        raise ValueError(f"d_in > 1 audits need bounds spanning at most {MAX_LOCAL_SPAN} values, "
                         f"got {span + 1}")
    pmf = {x: m.table.output_pmf(x) for x in range(lo, hi + 1)}
    best = {}                               # d -> (ratio, witness) at distance exactly d
    for x in range(lo, hi + 1):
        for xp in range(lo, hi + 1):
            d = abs(x - xp)
            if d == 0 or d > d_in:
                continue
            r, w = worst_pair([(x, xp)], pmf.__getitem__)
            if d not in best or r > best[d][0]:
                best[d] = (r, w)
    if not m.vector:
        ratio, witness = max(best.values(), key=lambda t: t[0])
        method = f"exact enumeration of every input pair at distance <= {d_in} and every output"
    else:
        R = {0: (Fraction(1), [])}
        for d in range(1, d_in + 1):
            R[d] = max(((best[j][0] * R[d - j][0], [best[j][1]] + R[d - j][1])
                        for j in range(1, min(d, span) + 1)), key=lambda t: t[0])
        ratio, parts = R[d_in]
        witness = {"coordinates": parts}
        method = f"exact (per-coordinate enumeration, L1 distance {d_in} split over coordinates)"
    return AuditReport(name, claimed, _ratio_eps(ratio), witness, method=method)


class _CallableModule(type(sys.modules[__name__])):
    """``fxdp.audit(m)`` is the public API, but importing this submodule makes the package
    attribute ``fxdp.audit`` the module itself; letting the module be called keeps both
    ``fxdp.audit(m)`` and ``from fxdp.audit import audit`` working, without importing the
    audit (and every mechanism) eagerly in ``import fxdp``."""

    def __call__(self, *args, **kwargs):
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
