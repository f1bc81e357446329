"""Exact output distributions of a configured mechanism, for plots (layer 4 data, no drawing).

``Mechanism.output_distribution(x, x_prime)`` returns an ``OutputDistribution``;
``fxdp.plots`` draws it.  The helpers build one from two exact pmfs
(``from_pmfs``, ``exact_dist``) or, for the exact discrete Laplace whose
probabilities are irrational, from its closed form (``closed_form``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

CLOSED_FORM_TAIL = 40      # closed forms: cells with P >= ~exp(-40) relative to the mode
MAX_CLOSED_FORM_CELLS = 1 << 21
WINDOW_CELLS = 20          # the zoomed panel: about this many cells each side of the inputs


@dataclass
class OutputDistribution:
    """Output distributions of one mechanism for the inputs x and x_prime.

    outputs: the output values (labels), in plot order; p, p_prime: float arrays of
    P(y | x), P(y | x').  exact: the distribution is rational and ``num``, ``num_prime``
    (Python ints) over ``den`` hold it exactly (``exact_p`` / ``exact_p_prime`` as
    Fractions).  Otherwise ``logp`` / ``logp_prime`` hold natural logs (closed form) and
    ``mass_outside`` the probability (under x, x') of the outputs outside the listed window.
    positions: x coordinates of the outputs (numeric outputs: their value).
    """
    mechanism: str
    x: object
    x_prime: object
    outputs: list
    p: np.ndarray
    p_prime: np.ndarray
    exact: bool
    positions: np.ndarray
    numeric: bool
    num: list | None = None
    num_prime: list | None = None
    den: int | None = None
    logp: np.ndarray | None = None
    logp_prime: np.ndarray | None = None
    mass_outside: tuple = (0.0, 0.0)
    d_in: int = 1
    epsilon_claimed: float | None = None
    window: tuple | None = None        # (lo, hi): the zoomed panel when outputs are dense
    note: str = ""
    zoom: bool = True                  # False: no zoomed panel, however dense the outputs
    log_y: bool = False                # probabilities on a log axis (branches of very unequal mass)
    xlabel: str = "output y"           # the x axis (numeric readings: the reading's units)
    pair_text: str = ""                # the inputs as a title shows them ("" : x = ..., x' = ...)
    x_text: str = ""                   # x and x' as the legend shows them ("": as given)
    x_prime_text: str = ""
    path: str | None = None

    @property
    def exact_p(self):
        return None if not self.exact else [Fraction(a, self.den) for a in self.num]

    @property
    def exact_p_prime(self):
        return None if not self.exact else [Fraction(a, self.den) for a in self.num_prime]

    def __fspath__(self):
        return str(self.path)


def exact_from_pmfs(p, q, order=None):
    """Union support of two {y: Fraction} dicts -> (outputs, num, num', den)."""
    outs = list(order) if order is not None else sorted(set(p) | set(q), key=sort_key)
    den = 1
    for d in (p, q):
        for v in d.values():
            den = den * v.denominator // math.gcd(den, v.denominator)
    num = [int(Fraction(p.get(y, 0)) * den) for y in outs]
    nump = [int(Fraction(q.get(y, 0)) * den) for y in outs]
    return outs, num, nump, den


def sort_key(y):
    if y is None:
        return (2, 0)
    if isinstance(y, (bool, int, Fraction, float)):
        return (0, y)
    return (1, str(y))


def exact_dist(name, x, xp, outs, num, nump, den, positions, numeric, **kw):
    fden = float(den)
    p = np.array([a / fden for a in num]) if den < 1 << 1000 else \
        np.array([float(Fraction(a, den)) for a in num])
    q = np.array([a / fden for a in nump]) if den < 1 << 1000 else \
        np.array([float(Fraction(a, den)) for a in nump])
    return OutputDistribution(name, x, xp, outs, p, q, True, np.asarray(positions, dtype=np.float64), numeric,
                              num=num, num_prime=nump, den=den, **kw)


def log_laplace_censored(g, xg, lo_g, hi_g, log_rho):
    """ln P(output = g) for clamp(xg + Z, lo_g, hi_g), P(Z = z) = (1-rho)/(1+rho) rho^|z|
    (numpy arrays of integer g in [lo_g, hi_g])."""
    if lo_g == hi_g:
        return np.zeros(len(g))
    rho = math.exp(log_rho)
    log_norm = math.log1p(-rho) - math.log1p(rho)
    z = (g - xg).astype(np.float64)
    out = log_norm + np.abs(z) * log_rho
    # censored ends: P(Z <= z) = rho^-z/(1+rho) (z <= 0) or 1 - rho^(z+1)/(1+rho) (z >= 0)
    for edge, sign in ((lo_g, 1), (hi_g, -1)):
        hit = g == edge
        if hit.any():
            zz = sign * (edge - xg)                 # tail P(sign*Z <= zz)
            if zz <= 0:
                val = -zz * log_rho - math.log1p(rho)
            else:
                val = math.log1p(-math.exp((zz + 1) * log_rho) / (1 + rho))
            out = np.where(hit, val, out)
    return out


def closed_form(name, x, xp, lo_g, hi_g, xg, xpg, log_rho, step, res, **kw):
    """The censored discrete Laplace for two grid inputs (irrational: logs and floats), on the
    cells within CLOSED_FORM_TAIL / (s/t) of the inputs (at most MAX_CLOSED_FORM_CELLS)."""
    half = int(math.ceil(CLOSED_FORM_TAIL / -log_rho))
    span = abs(xg - xpg) + 2 * half + 1
    if span > MAX_CLOSED_FORM_CELLS:
        half = max(WINDOW_CELLS, (MAX_CLOSED_FORM_CELLS - abs(xg - xpg)) // 2)
    a = max(lo_g, min(xg, xpg) - half)
    b = min(hi_g, max(xg, xpg) + half)
    g = np.arange(a, b + 1, dtype=np.int64)
    lp = log_laplace_censored(g, xg, lo_g, hi_g, log_rho)
    lq = log_laplace_censored(g, xpg, lo_g, hi_g, log_rho)
    p, q = np.exp(lp), np.exp(lq)
    outside = (max(0.0, 1.0 - math.fsum(p)), max(0.0, 1.0 - math.fsum(q)))
    if res == 1 and step == 1:
        outs = g.tolist()
        pos = g.astype(np.float64)
    else:
        pos = g.astype(np.float64) * float(step * res)        # exact: dyadic values
        outs = pos.tolist()
    return OutputDistribution(name, x, xp, outs, p, q, False, pos, True, logp=lp, logp_prime=lq,
                              mass_outside=outside, **kw)


def from_pmfs(m, x, x_prime, p, q, note="", d_in=None):
    """OutputDistribution of two exact pmfs {y: Fraction} over their union support; tuple outputs
    are labelled as bit strings."""
    outs, num, nump, den = exact_from_pmfs(p, q)
    labels = ["".join(map(str, y)) if isinstance(y, tuple) else y for y in outs]
    d_in = int(x != x_prime) if d_in is None else d_in
    return exact_dist(repr(m), x, x_prime, labels, num, nump, den, list(range(len(outs))), False,
                      d_in=d_in, epsilon_claimed=m.privacy_map(d_in), note=note)


def pyplot():
    """matplotlib.pyplot on the Agg backend; ImportError with the install hint if missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:    # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'fxdp[plot]' (or pip install matplotlib)") \
            from exc
    return plt
