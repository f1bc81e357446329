"""Layer 5: deployment privacy accounting, certified upward (docs/accounting.md).

(Over 700 lines, one module: the shuffling bound, its inversion, the composition accountants and
``deployment`` share the certified arithmetic defined here, ``_e0_up``, ``_exp_down``,
``_ln_up_float`` and the argument checks; a split would put a bound apart from the rounding it is
certified by.)

What a whole deployment promises, from the local epsilon0 that every mechanism reports:

* ``shuffled_epsilon(epsilon0, n, delta)``: the central epsilon of n reports of an
  epsilon0-LDP randomizer passed through a shuffler (or an anonymizing relay): the numerical
  bound of Feldman, McMillan and Talwar, "Hiding among the clones" (FOCS 2021), computed as a
  certified upper bound, beside its floating-point estimate and FMT's closed form.
* ``local_epsilon_for(epsilon, delta, n, mechanism=None)``: the largest epsilon0 whose certified
  shuffled epsilon is within a target; with a mechanism factory, the realizable mechanism.
* ``compose_epsilon(epsilon0, rounds, delta=0)``: R reports of one device: basic composition,
  the advanced composition theorem, and the optimal composition of Kairouz, Oh and Viswanath
  (2015), all rounded up; memoized mechanisms (``m.epsilon_infinite``) are capped there.
* ``deployment(m, devices, rounds, delta, shuffled)``: the table ``fxdp account`` prints.

Certified means: the returned epsilon is never below the true value of the bound.  Every
probability is enclosed by exact integer arithmetic (``fxdp._certified``) or by floating-point
sums of products of exactly representable ratios with an a-priori relative error bound
(IEEE 754 binary64, round to nearest: every +, *, / errs by at most 2^-53 relatively; a
product or sum of m such values by at most gamma_m = m u / (1 - m u), Higham 2002, section
3.1), and the bound is checked at the returned epsilon with every enclosure on the safe side.

(Over 700 lines, one module: the shuffle bound, its certification, the compositions and the
deployment table share the enclosure helpers and the one local epsilon they all take.)
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from . import _certified as cf
from .conservative import float_up
from .validate import check_int

_U = Fraction(1, 1 << 53)


def _gamma(m):
    """gamma_m = m u / (1 - m u) (u = 2^-53), the relative error bound of m roundings."""
    return m * _U / (1 - m * _U)


# ==========================================================================
# parameters
# ==========================================================================

def local_epsilon_of(m, what="fxdp.accounting"):
    """(m.local_epsilon, its source): the epsilon of one release over every pair of inputs the
    device can hold, rounded up -- the only epsilon a shuffle or composition theorem may take.
    ValueError, saying to set bounds, for an unbounded input domain (local_epsilon infinite)."""
    from .mechanisms.base import check_mechanism
    m = check_mechanism(m, what)
    value, d = m.local_epsilon, m.local_d_in
    if value == math.inf:
        hint = ("set bounds (the input domain is unbounded)" if d == math.inf else
                "this configuration has no finite privacy guarantee (fxdp.audit(m, d_in='all'))")
        raise ValueError(f"{what}: {m!r} has local epsilon inf over all inputs (local_d_in = {d}): no "
                         f"deployment bound holds; {hint}")
    return value, f"{m.kind}: m.local_epsilon (all inputs, d_in = {d}; rounded up)"


def _epsilon0(epsilon0, name="epsilon0"):
    """(epsilon0 as a float, its source) from a number (a local epsilon, given by hand) or a
    mechanism (its m.local_epsilon: every pair of inputs, never m.epsilon at d_in = 1)."""
    if hasattr(epsilon0, "privacy_map") and not isinstance(epsilon0, (int, float, Fraction)):
        value, source = local_epsilon_of(epsilon0)
    else:
        value, source = epsilon0, "given (a local epsilon: every pair of inputs)"
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ValueError(f"{name} must be a number > 0 (a local epsilon) or an fxdp mechanism "
                         f"(fxdp.make_<kind>(...)), got {epsilon0!r:.60}")
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{name} must be a number > 0, got nan")
    if value == math.inf:
        raise ValueError(f"{name} is infinite ({source}): no bound holds for a mechanism without a "
                         f"finite local epsilon (regime: epsilon0 < inf)")
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r} (regime: epsilon0 in (0, inf))")
    return value, source


def _delta(delta, name="delta"):
    if isinstance(delta, bool) or not isinstance(delta, (int, float, Fraction)) or \
            (isinstance(delta, float) and not math.isfinite(delta)):
        raise ValueError(f"{name} must be a number in (0, 1), got {delta!r}")
    if not 0 < delta < 1:
        raise ValueError(f"{name} must be in (0, 1), got {delta!r}")
    return Fraction(delta)


def _n(n, name="n"):
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    return check_int(name, n, 2)


def _e0_up(eps0):
    """A dyadic rational E0 >= exp(eps0).  An eps0-DP randomizer is also ln(E0)-DP, so every
    bound below is computed for ln(E0) and holds for eps0."""
    return cf.frac_up(cf.exp_frac_iv(Fraction(eps0))[1], 64)


def _exp_down(eps):
    return cf.frac_down(cf.exp_frac_iv(Fraction(eps))[0], 64)


def _ln_up_float(x):
    """A float >= ln(x) for a rational x >= 1."""
    return float_up(Fraction(cf.ln_frac_iv(x)[1], cf.ONE))


# ==========================================================================
# the FMT 2021 reduction
# ==========================================================================
#
# Theorem 3.2 of FMT: shuffling n reports of an eps0-DP randomizer is (eps, delta)-DP if the
# pair P, Q below is, with C ~ Bin(n-1, e^-eps0), A ~ Bin(C, 1/2), alpha = e^eps0/(1+e^eps0):
#   P = (A+1, C-A) w.p. alpha, (A, C-A+1) otherwise;  Q = the same with alpha and 1-alpha swapped.
# P, Q are symmetric, so delta(eps) = D_{e^eps}(P || Q) = sum_c Pr[C = c] f_c, where, with
# B ~ Bin(c, 1/2), x = e^eps, E0 = e^eps0, beta = (x E0 - 1)/((x + 1)(E0 - 1)) and
# t = floor((c+1) beta) + 1 (the first a where P_c(a) > x Q_c(a)), the conditional divergence is
#   f_c = Pr[B = t-1] (k1 - (x - 1) S1),  k1 = (E0 - x)/(1 + E0),
#   S1 = sum_{j >= 1} Pr[B = t-1+j] / Pr[B = t-1]  (0 when t > c+1: f_c = 0).
# f_c is non-increasing in c (P_{c+1}, Q_{c+1} are P_c, Q_c plus the same independent Bernoulli(1/2):
# post-processing), so a block [c0, c1] of values of C contributes at most Pr[C in block] f_c0.


@dataclass
class _Blocks:
    """The distribution of C ~ Bin(n-1, 1/E0) cut into blocks: starts[i] (the first c of block
    i), mass_hi[i] (an upper bound on Pr[C in block i], the last block including the upper
    tail), mass[i] (the float estimate), low_hi (an upper bound on Pr[C < starts[0]])."""
    starts: list
    mass_hi: list
    mass: list
    low_hi: Fraction
    low: float


def _relative_pmf(N, m, lo, hi, rho):
    """Float array r[k - lo] ~ Pr[C = k] / Pr[C = m] for k in [lo, hi] (C ~ Bin(N, p),
    rho = p / (1 - p) as a float), by products of the ratios outward from m.  Each entry has
    relative error at most gamma_{4|k-m|+4}."""
    r = np.empty(hi - lo + 1)
    r[m - lo] = 1.0
    if hi > m:
        k = np.arange(m, hi, dtype=np.float64)
        r[m - lo + 1:] = np.cumprod(((N - k) / (k + 1)) * rho)
    if m > lo:
        k = np.arange(m - 1, lo - 1, -1, dtype=np.float64)     # b(k)/b(k+1) = (k+1)/((N-k) rho)
        r[:m - lo][::-1] = np.cumprod(((k + 1) / (N - k)) / rho)
    return r


def _blocks(n, E0, delta, frac):
    N = n - 1
    p = 1 / E0
    pf = float(p)
    m = min(N, math.floor((N + 1) * p))
    sd = math.sqrt(N * pf * (1 - pf))
    ksd = math.sqrt(2 * (math.log(1 / float(delta)) + 35)) + 1      # tails far below delta
    half = int(math.ceil(ksd * sd)) + 2
    lo, hi = max(0, m - half), min(N, m + half)
    rho = float(p / (1 - p)) if p < 1 else math.inf
    r = _relative_pmf(N, m, lo, hi, rho)
    keep = r > 1e-280                              # no subnormals: trim the flanks
    idx = np.nonzero(keep)[0]
    lo, hi = lo + int(idx[0]), lo + int(idx[-1])
    r = r[int(idx[0]): int(idx[-1]) + 1]
    W = hi - lo + 1
    g = _gamma(5 * W + 16)
    lnq = cf.ln_frac_iv(p)
    ln1q = cf.ln_frac_iv(1 - p) if p < 1 else (0, 0)
    bm_lo, bm_hi = cf.exp_iv(*cf.ln_binom_pmf_iv(N, m, lnq, ln1q))
    bm_f = math.exp(math.lgamma(N + 1) - math.lgamma(m + 1) - math.lgamma(N - m + 1)
                    + m * math.log(pf) + ((N - m) * math.log1p(-pf) if pf < 1 else 0.0))
    # block starts: width ~ frac * c (f_c changes by ~frac * z^2 / 2 relatively over a block)
    starts = []
    c = lo
    while c <= hi:
        starts.append(c)
        c += max(1, int(frac * c))
    bounds = starts + [hi + 1]
    csum = np.concatenate(([0.0], np.cumsum(r)))   # float estimate only
    mass_hi, mass = [], []
    up = bm_hi * (1 + g)
    for a, b in zip(bounds[:-1], bounds[1:]):
        s = float(np.sum(r[a - lo:b - lo]))        # a sum of b - a floats (gamma_W covers it)
        mass_hi.append(up * Fraction(s))
        mass.append(bm_f * float(csum[b - lo] - csum[a - lo]))
    # tails beyond [lo, hi]: geometric bounds from the ratios at the ends (ratios decrease in k)
    low_hi, low = Fraction(0), 0.0
    if lo > 0:
        qr = Fraction(lo) * (1 - p) / ((N - lo + 1) * p)         # b(k-1)/b(k) <= qr for k <= lo
        low_hi = up * Fraction(float(r[0])) * qr / (1 - qr) if qr < 1 else Fraction(1)
        low = float(low_hi)
    if hi < N:
        s = Fraction(N - hi) * p / ((hi + 1) * (1 - p))           # b(k+1)/b(k) <= s for k >= hi
        tail = up * Fraction(float(r[-1])) * s / (1 - s) if s < 1 else Fraction(1)
        mass_hi[-1] += tail
        mass[-1] += float(tail)
    return _Blocks(starts, mass_hi, mass, low_hi, low)


def _threshold(c, beta):
    """t = floor((c + 1) beta) + 1 for a rational beta."""
    v = (c + 1) * beta
    return v.numerator // v.denominator + 1


_CHUNK = 4096


def _s1(c, k0, tail_tol):
    """(float sum, terms) of sum_{j>=1} prod_{i<j} (c - k0 - i)/(k0 + i + 1): the binomial
    Bin(c, 1/2) probabilities above k0 relative to Pr[B = k0], truncated once a term falls below
    tail_tol times the sum (truncation only lowers it).  Each term is a product of j exact
    integer ratios rounded once each, so its relative error is at most gamma_{2j + chunks}."""
    total, carry, k, terms = 0.0, 1.0, k0, 0
    while k < c:
        L = min(_CHUNK << min(terms // _CHUNK, 6), c - k)
        ks = np.arange(k, k + L, dtype=np.float64)
        v = np.cumprod((c - ks) / (ks + 1)) * carry
        total += float(np.sum(v))
        terms += L
        k += L
        carry = float(v[-1])
        if carry < tail_tol * total or carry < 1e-280:
            break
    return total, terms


def _f_hi(c, x, E0, beta, k1):
    """An upper bound (Fraction) on f_c at x = e^eps (rationals)."""
    t = _threshold(c, beta)
    if t > c + 1:
        return Fraction(0)
    k0 = t - 1
    s, terms = _s1(c, k0, 2.0 ** -70)
    s_lo = Fraction(s) / (1 + _gamma(3 * terms + 200))
    half = (-cf._LN2[1], -cf._LN2[0])              # enclosure of ln(1/2)
    _, b_hi = cf.exp_iv(*cf.ln_binom_pmf_iv(c, k0, half, half))
    inner = k1 - (x - 1) * s_lo
    return b_hi * inner if inner > 0 else Fraction(0)


def _f_float(c, x, E0, beta, k1):
    t = math.floor((c + 1) * beta) + 1
    if t > c + 1:
        return 0.0
    k0 = t - 1
    s, _ = _s1(c, k0, 2.0 ** -55)
    lb = math.lgamma(c + 1) - math.lgamma(k0 + 1) - math.lgamma(c - k0 + 1) - c * math.log(2)
    return max(0.0, math.exp(lb) * (k1 - (x - 1) * s))


def _delta_hi(blocks, x, E0):
    """A certified upper bound on the FMT delta at x = e^eps (x, E0 rationals)."""
    if x >= E0:
        return Fraction(0)
    beta = (x * E0 - 1) / ((x + 1) * (E0 - 1))
    k1 = (E0 - x) / (1 + E0)
    total = blocks.low_hi * k1                     # f_c <= f_0 = k1 below the first block
    for c, mass in zip(blocks.starts, blocks.mass_hi):
        f = _f_hi(c, x, E0, beta, k1)
        if f == 0:
            break                                  # f is non-increasing in c
        total += mass * f
    return total


def _delta_float(blocks, eps, E0f):
    x = math.exp(eps)
    if x >= E0f:
        return 0.0
    beta = (x * E0f - 1) / ((x + 1) * (E0f - 1))
    k1 = (E0f - x) / (1 + E0f)
    total = blocks.low * k1
    for c, mass in zip(blocks.starts, blocks.mass):
        f = _f_float(c, x, E0f, beta, k1)
        if f == 0:
            break
        total += mass * f
    return total


# ==========================================================================
# closed form
# ==========================================================================

def _closed_form(eps0, n, delta, E0):
    """FMT's closed form (the authors' code, closedformanalysis), rounded up, and its regime:
    valid for eps0 <= ln(n / (16 ln(4/delta))).  Returns (value or None, regime text)."""
    ln4d_hi = Fraction(cf.ln_frac_iv(4 / delta)[1], cf.ONE)
    limit = math.log(n / (16 * float(ln4d_hi))) if n > 16 * float(ln4d_hi) else -math.inf
    if not E0 * 16 * ln4d_hi <= n:
        return None, (f"closed form not valid: needs epsilon0 <= ln(n / (16 ln(4/delta))) = "
                      f"{limit:.6g}")
    a = 8 * cf.sqrt_up(E0 * ln4d_hi / n)
    c = 8 * E0 / n
    b = 1 - 1 / E0                                  # >= 1 - e^-eps0
    d = 1 + 1 / (E0 * (1 + a + c))                  # <= 1 + e^(-eps0 - ln(1 + a + c))
    value = _ln_up_float(1 + b * (a + c) / d)
    return value, f"closed form valid: epsilon0 <= ln(n / (16 ln(4/delta))) = {limit:.6g}"


# ==========================================================================
# shuffling
# ==========================================================================

@dataclass
class ShuffledEpsilon:
    """The central epsilon of n shuffled epsilon0-LDP reports at delta.

    certified: certified upper bound of the FMT 2021 numerical bound (never below it);
    float_estimate: the same bound in floating point (bisection to ~1e-10, no directed rounding);
    closed_form: FMT's closed form, rounded up (None outside its regime);
    method, regime, closed_form_regime: what was computed and where it holds."""
    epsilon0: float
    n: int
    delta: float
    certified: float
    float_estimate: float
    closed_form: float | None
    method: str
    regime: str
    closed_form_regime: str
    epsilon0_source: str = "given"
    seconds: float = 0.0
    checks: int = 0

    def to_dict(self):
        return asdict(self)

    def __float__(self):
        return self.certified


_METHOD = ("FMT 2021 numerical bound (Theorem 3.2 reduction to C ~ Bin(n-1, e^-eps0)); certified: exact "
           "integer enclosures of ln, exp, ln k! and a-priori float error bounds, checked at the returned "
           "epsilon")
_FRAC = 0.04       # block width = _FRAC / z^2 * c, z^2 = 2 ln(1/delta) + 2


def _prepare(epsilon0, n, delta):
    eps0, source = _epsilon0(epsilon0)
    n = _n(n)
    d = _delta(delta)
    E0 = _e0_up(eps0)
    zz = 2 * math.log(1 / float(d)) + 2
    blocks = _blocks(n, E0, d, _FRAC / zz)
    return eps0, source, n, d, E0, blocks


def _float_solve(blocks, E0, delta_f, eps_hi):
    """The smallest eps with the float delta <= delta: Illinois (regula falsi) on
    ln delta(eps) - ln delta, bracketed by [0, eps_hi] (delta(eps_hi) = 0), to ~1e-10."""
    E0f = float(E0)

    def h(eps):
        v = _delta_float(blocks, eps, E0f)
        return math.log(v / delta_f) if v > 0 else -math.inf

    lo, hi = 0.0, eps_hi
    flo, fhi = h(lo), -math.inf
    if flo <= 0:
        return 0.0
    side = 0
    for _ in range(200):
        if math.isinf(fhi) or side == 0 and hi - lo > 0.25 * eps_hi:
            x = 0.5 * (lo + hi)
        else:
            x = (lo * fhi - hi * flo) / (fhi - flo)
            if not lo < x < hi:
                x = 0.5 * (lo + hi)
        fx = h(x)
        if fx > 0:
            lo, flo = x, fx
            if side == -1:
                fhi *= 0.5
            side = -1
        else:
            hi, fhi = x, fx
            if side == 1:
                flo *= 0.5
            side = 1
        if hi - lo <= 1e-10 * hi:
            break
    return hi


def _certify(blocks, E0, delta, eps_f, eps_cap):
    """The smallest float eps >= eps_f on a short geometric ladder whose certified delta is <= delta:
    (eps, number of certified checks).  eps_cap: stop (None) past it."""
    checks = 0
    if eps_f == 0:
        checks += 1
        if _delta_hi(blocks, Fraction(1), E0) <= delta:
            return 0.0, checks
        eps_f = 1e-12 * eps_cap
    for tau in (1e-7, 1e-5, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3):
        eps = float_up(Fraction(eps_f) * (1 + Fraction(tau)))
        if eps >= eps_cap:
            eps = eps_cap
        checks += 1
        if _delta_hi(blocks, _exp_down(eps), E0) <= delta:
            return eps, checks
        if eps >= eps_cap:
            break
    return None, checks


def shuffled_epsilon(epsilon0, n, delta):
    """Central epsilon of n shuffled reports of an epsilon0-LDP randomizer, at delta.

    epsilon0: a local epsilon > 0 (the worst case over every pair of inputs), or an fxdp
    mechanism (its ``m.local_epsilon``, rounded up; never ``m.epsilon`` at d_in = 1, a central-DP
    figure for the bounded geometric and the fixed-point Laplace family); n: the number of reports shuffled together (>= 2); delta in (0, 1).
    Returns a ``ShuffledEpsilon``; ``.certified`` is the number to sign.  ValueError names the
    parameter and the regime; if shuffling gives no amplification (the bound is not below
    epsilon0 at this n and delta) it says so instead of returning epsilon0.
    """
    t0 = time.perf_counter()
    eps0, source, n, d, E0, blocks = _prepare(epsilon0, n, delta)
    cf_value, cf_regime = _closed_form(eps0, n, d, E0)
    eps_cap = float(eps0)
    eps_f = _float_solve(blocks, E0, float(d), eps_cap)
    if eps_f >= eps_cap * (1 - 1e-6):
        raise ValueError(f"no amplification: shuffling n={n} reports at epsilon0={eps0!r} does not bring "
                         f"epsilon below epsilon0 at delta={float(d)!r} (regime: the FMT bound amplifies only "
                         f"when n e^-epsilon0 is large against ln(1/delta)); the central epsilon is epsilon0")
    eps_c, checks = _certify(blocks, E0, d, eps_f, eps_cap)
    if eps_c is None or eps_c >= eps_cap:
        raise ValueError(f"no amplification could be certified: n={n}, epsilon0={eps0!r}, delta={float(d)!r} "
                         f"(float estimate {eps_f:.6g}); the central epsilon is epsilon0")
    regime = (f"holds for every epsilon0-LDP randomizer, n >= 2, delta in (0, 1); computed for "
              f"epsilon0' = ln E0 >= epsilon0 (E0 = {float(E0):.17g})")
    return ShuffledEpsilon(float(eps0), n, float(d), eps_c, eps_f, cf_value, _METHOD, regime, cf_regime,
                           source, time.perf_counter() - t0, checks)


def shuffled_delta(epsilon0, n, epsilon, certified=True, layout_delta=1e-9):
    """The FMT delta at a central epsilon: a certified upper bound (Fraction), or the float
    estimate.  layout_delta: the delta whose block layout is used (``shuffled_epsilon(..., delta)``
    uses its own delta; pass it to reproduce its check)."""
    eps0, _, n, _, E0, blocks = _prepare(epsilon0, n, layout_delta)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, Fraction)) or not epsilon >= 0:
        raise ValueError(f"epsilon must be a number >= 0, got {epsilon!r}")
    if certified:
        return _delta_hi(blocks, _exp_down(epsilon), E0)
    return _delta_float(blocks, float(epsilon), float(E0))


# ==========================================================================
# the reverse: the local budget for a central target
# ==========================================================================

@dataclass
class LocalBudget:
    """epsilon0: the largest epsilon0 (float) found whose certified shuffled epsilon is <= target;
    mechanism: the realized mechanism (with a factory), its epsilon0_realized = m.local_epsilon <=
    epsilon0, and the requested value that built it.  float(budget) is epsilon0."""
    epsilon: float
    delta: float
    n: int
    epsilon0: float
    mechanism: object = None
    epsilon0_realized: float | None = None
    requested: float | None = None
    method: str = ""

    def __float__(self):
        return self.epsilon0


def _passes(eps0, n, d, x):
    E0 = _e0_up(eps0)
    zz = 2 * math.log(1 / float(d)) + 2
    return _delta_hi(_blocks(n, E0, d, _FRAC / zz), x, E0) <= d


def local_epsilon_for(epsilon, delta, n, mechanism=None, lo=None, hi=None):
    """The largest local epsilon0 whose certified shuffled epsilon (n reports, delta) is <= epsilon.

    mechanism None: returns the pure bound.  mechanism a factory ``f(epsilon0) -> mechanism``
    (e.g. ``lambda e: fxdp.make_randomized_response_bool(Fraction(...))``, any constructor with
    its other parameters fixed): the factory is searched for the largest requested epsilon0
    whose ``m.local_epsilon`` (every pair of inputs, rounded up) is within the certified
    epsilon0; that mechanism is returned.  Feeding ``m`` (or epsilon0) to ``shuffled_epsilon``
    gives a certified central epsilon <= epsilon.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, Fraction)) or not epsilon > 0 \
            or epsilon == math.inf:
        raise ValueError(f"epsilon must be a number > 0 (the central target), got {epsilon!r}")
    d = _delta(delta)
    n = _n(n)
    x = _exp_down(epsilon)
    # the target in float first: bisection on eps0, each step one float delta at the target
    def ok(e0):
        E0 = _e0_up(e0)
        zz = 2 * math.log(1 / float(d)) + 2
        return _delta_float(_blocks(n, E0, d, _FRAC / zz), float(epsilon), float(E0)) <= float(d)

    lo_e, hi_e = float(epsilon), max(float(epsilon) * 4, 1.0)   # epsilon0 = epsilon always meets it
    while ok(hi_e) and hi_e < 700:
        lo_e, hi_e = hi_e, hi_e * 2
    for _ in range(60):
        mid = 0.5 * (lo_e + hi_e)
        if ok(mid):
            lo_e = mid
        else:
            hi_e = mid
        if hi_e - lo_e < 1e-8 * lo_e:
            break
    # certify downward: the largest eps0 on a short ladder below the float answer that passes
    eps0 = None
    for tau in (1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3, 0.6):
        cand = float(Fraction(lo_e) * (1 - Fraction(tau)))
        if _passes(cand, n, d, x):
            eps0 = cand
            break
    if eps0 is None:
        raise ValueError(f"epsilon={epsilon!r} is out of reach at n={n}, delta={float(d)!r}: no local epsilon0 "
                         f"could be certified (regime: the target must exceed the bound at tiny epsilon0)")
    out = LocalBudget(float(epsilon), float(d), n, eps0,
                      method="certified: the FMT bound at epsilon0 is <= epsilon (checked at e^epsilon rounded down)")
    if mechanism is None:
        return out
    if not callable(mechanism):
        raise ValueError("mechanism must be None or a factory epsilon0 -> fxdp mechanism "
                         f"(e.g. lambda e: fxdp.make_geometric(1 / e)), got {mechanism!r:.60}")
    best, last_error = None, None
    a, b = 0.0, eps0 * 4
    for _ in range(48):                           # largest requested value whose realized eps fits
        r = b if best is None and a == 0.0 and _ == 0 else 0.5 * (a + b)
        try:
            m = mechanism(r)
            e = _epsilon0(m, "the factory's mechanism")[0]
            ok = e <= eps0
        except ValueError as exc:
            ok, e = False, None
            last_error = last_error or exc     # the first refusal says why (e.g. set bounds)
        if ok:
            a = r
            if best is None or e > best[1]:
                best = (m, e, r)
        else:
            b = r
        if b - a < 1e-9 * max(b, 1e-12):
            break
    if best is None:
        why = f"; the first refusal: {last_error}" if last_error is not None else ""
        raise ValueError(f"mechanism: no mechanism from the factory has a local epsilon <= {eps0!r} "
                         f"(regime: the factory must reach small epsilon0 over all inputs){why}")
    out.mechanism, out.epsilon0_realized, out.requested = best
    return out


# ==========================================================================
# repeated reports
# ==========================================================================

@dataclass
class Composition:
    """R reports at epsilon0 each (pure), at a total delta: basic (R eps0), advanced (Dwork,
    Rothblum, Vadhan 2010), optimal (Kairouz, Oh, Viswanath 2015; None past MAX_KOV_ROUNDS),
    memoized (epsilon_infinite cap, when the mechanism memoizes), best = the smallest (all are
    upper bounds, rounded up)."""
    epsilon0: float
    rounds: int
    delta: float
    basic: float
    advanced: float | None
    optimal: float | None
    memoized: float | None
    best: float
    regime: dict = field(default_factory=dict)

    def to_dict(self):
        return asdict(self)


MAX_KOV_ROUNDS = 1024


def _kov_x(E0, k, delta):
    """The smallest X = e^eps with delta_k(X) <= delta for k-fold composition of E0-randomized
    response (which dominates any k-fold composition of ln(E0)-DP mechanisms, KOV 2015 Thm 3.3):
    delta_k(X) = sum_l C(k,l) [E0^(k-l) - X E0^l]_+ / (1 + E0)^k, exact (integers)."""
    e, d = E0.numerator, E0.denominator          # E0 = e / d; scale every term by d^k
    dn, dd = delta.numerator, delta.denominator
    D = (e + d) ** k
    A = B = 0
    binom = 1
    epow_hi = e ** k                              # e^(k-l)
    dpow_lo = 1                                   # d^l
    epow_lo = 1                                   # e^l
    dpow_hi = d ** k                              # d^(k-l)
    for i in range(1, k // 2 + 2):
        l = i - 1                                 # add the term l = i - 1
        A += binom * epow_hi * dpow_lo
        B += binom * epow_lo * dpow_hi
        binom = binom * (k - l) // (l + 1)
        epow_hi //= e
        dpow_lo *= d
        epow_lo *= e
        dpow_hi //= d
        # interval for X: [max(1, E0^(k-2i)), E0^(k-2i+2)]; g(X) = (A - X B) / D there
        p = k - 2 * i
        if p > 0:
            xn, xd = e ** p, d ** p
        else:
            xn, xd = 1, 1
        # g(X_lo) > delta  <=>  (A xd - xn B) dd > dn D xd
        if (A * xd - xn * B) * dd > dn * D * xd:
            return Fraction(A * dd - dn * D, B * dd)
        if p <= 0:
            return Fraction(1)
    return Fraction(1)


def compose_epsilon(epsilon0, rounds, delta=0):
    """Per-device epsilon after `rounds` reports at epsilon0 each (pure DP), at total delta.

    epsilon0: a local epsilon > 0 or a mechanism (its m.local_epsilon; a memoizing mechanism's
    ``epsilon_infinite``, over all inputs too, caps every bound).  delta = 0: basic composition (exact for pure DP);
    delta in (0, 1): also the advanced composition theorem and the optimal composition of
    Kairouz, Oh and Viswanath (rounds <= MAX_KOV_ROUNDS).  Everything is rounded up.
    """
    eps0, source = _epsilon0(epsilon0)
    rounds = check_int("rounds", rounds, 1)
    if isinstance(delta, bool) or not isinstance(delta, (int, float, Fraction)) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    d = Fraction(delta)
    basic = float_up(Fraction(eps0) * rounds)
    regime = {"basic": "always (pure epsilon0-DP reports)"}
    advanced = optimal = None
    if d > 0 and rounds > 1:
        E0 = _e0_up(eps0)
        ln1d = Fraction(cf.ln_frac_iv(1 / d)[1], cf.ONE)
        adv = cf.sqrt_up(2 * rounds * ln1d) * Fraction(eps0) + rounds * Fraction(eps0) * (E0 - 1)
        advanced = float_up(adv)
        regime["advanced"] = "Dwork, Rothblum, Vadhan 2010: sqrt(2R ln(1/delta)) eps0 + R eps0 (e^eps0 - 1)"
        if rounds <= MAX_KOV_ROUNDS:
            optimal = _ln_up_float(_kov_x(E0, rounds, d))
            regime["optimal"] = "Kairouz, Oh, Viswanath 2015 Thm 3.3, exact integer sums"
        else:
            regime["optimal"] = f"not computed: rounds > {MAX_KOV_ROUNDS} (exact sums too large)"
    elif rounds == 1:
        regime["optimal"] = "one report: epsilon0"
        optimal = float(eps0)
    cap = getattr(epsilon0, "epsilon_infinite", None) if not source.startswith("given") else None
    memoized = None
    if cap is not None:
        memoized = float(cap)
        regime["memoized"] = ("the mechanism memoizes: any number of reports of one value leak at most "
                              "epsilon_infinite")
    best = min(v for v in (basic, advanced, optimal, memoized) if v is not None)
    return Composition(float(eps0), rounds, float(d), basic, advanced, optimal, memoized, best, regime)


def shuffled_composition(epsilon0, n, rounds, delta):
    """R rounds, each shuffled among n reports, at a total delta.  Delta split (documented):
    optimal/advanced: delta/(2R) to each round's shuffle and delta/2 to the composition
    (1 - (1 - d_r)^R (1 - d_c) <= R d_r + d_c, KOV 2015 Thm 3.3); basic: delta/R to each round.
    Returns (per-round ShuffledEpsilon at delta/(2R), Composition over rounds, best)."""
    n = _n(n)
    rounds = check_int("rounds", rounds, 1)
    d = _delta(delta)
    if rounds == 1:
        s = shuffled_epsilon(epsilon0, n, d)
        return s, None, s.certified
    s_basic = shuffled_epsilon(epsilon0, n, d / rounds)
    basic = float_up(Fraction(s_basic.certified) * rounds)
    s = shuffled_epsilon(epsilon0, n, d / (2 * rounds))
    comp = compose_epsilon(s.certified, rounds, d / 2)
    best = min(basic, comp.best)
    comp.regime["shuffled_basic"] = f"R x shuffled epsilon at delta/R = {basic!r}"
    return s, comp, best


# ==========================================================================
# the deployment table (fxdp account)
# ==========================================================================

def deployment(m, devices, rounds=1, delta=1e-8, shuffled=False, audit=None, audit_neighbours=None):
    """The rows of ``fxdp account``.  Every bound takes the local epsilon (every pair of inputs):
    ``local_epsilon_claimed`` (m.local_epsilon) and ``local_epsilon_realized`` (``audit``: the
    exact report of ``fxdp.audit(m, d_in="all")``, passed in by the caller; ValueError for a
    report at another d_in).  The exact realized local epsilon (rounded up) is the epsilon0 fed
    to the bounds; without an audit, or when the audit is an estimate, the claimed one.  The
    d_in = 1 figures (``epsilon_claimed`` = m.epsilon, ``epsilon_realized`` from
    ``audit_neighbours``) are shown beside them, for the difference, and never used."""
    from .mechanisms.base import check_mechanism
    check_mechanism(m, "fxdp.accounting.deployment")
    devices = _n(devices, "devices")
    rounds = check_int("rounds", rounds, 1)
    d = _delta(delta)
    t0 = time.perf_counter()
    local_claimed, _ = local_epsilon_of(m, "fxdp account")
    if audit is not None and getattr(audit, "d_in", 1) != "all":
        raise ValueError(f"audit must be the local audit, fxdp.audit(m, d_in='all'), got one at d_in = {audit.d_in}")
    estimate = audit is not None and bool(getattr(audit, "extra", {}).get("estimate", False))
    local_realized = float(audit.epsilon_realized) if audit is not None else None
    eps0 = local_realized if (audit is not None and not estimate) else local_claimed
    if eps0 == math.inf:
        raise ValueError(f"fxdp account: the exact realized local epsilon of {m!r} is inf "
                         f"(witness {audit.witness}): no deployment bound holds")
    if audit_neighbours is None and m.local_d_in == 1 and audit is not None and not estimate:
        audit_neighbours = audit                 # d_in = 1 covers every pair: the same audit
    out = {"mechanism": repr(m), "devices": devices, "rounds": rounds, "delta": float(d),
           "epsilon_claimed": float(m.privacy_map(1)),        # shown beside, never used below
           "epsilon_realized": None if audit_neighbours is None else float(audit_neighbours.epsilon_realized),
           "local_d_in": m.local_d_in, "local_epsilon_claimed": local_claimed,
           "local_epsilon_realized": local_realized,
           "local_epsilon_method": None if audit is None else audit.method,
           "epsilon0_used": eps0,
           "epsilon0_source": ("local epsilon (all inputs), exact realized" if eps0 == local_realized and not estimate
                               else "local epsilon (all inputs), claimed (m.local_epsilon)")}
    cap = getattr(m, "epsilon_infinite", None)
    comp = compose_epsilon(eps0, rounds, d if rounds > 1 else 0)
    local_budget = comp.best if cap is None else min(comp.best, float(cap))
    out["local_budget"] = {"basic": comp.basic, "advanced": comp.advanced, "optimal": comp.optimal,
                           "memoized": None if cap is None else float(cap), "best": local_budget,
                           "regime": comp.regime | ({"memoized": "epsilon_infinite (memoized responses)"}
                                                    if cap is not None else {})}
    if shuffled:
        try:
            s1 = shuffled_epsilon(eps0, devices, d)
            out["shuffled"] = {"certified": s1.certified, "float_estimate": s1.float_estimate,
                               "closed_form": s1.closed_form, "regime": s1.regime,
                               "closed_form_regime": s1.closed_form_regime, "method": s1.method}
        except ValueError as exc:
            out["shuffled"] = {"certified": None, "float_estimate": None, "closed_form": None,
                               "regime": str(exc), "closed_form_regime": "", "method": _METHOD}
        if rounds > 1 and cap is not None:
            out["central_budget"] = {"per_round": out["shuffled"]["certified"], "per_round_delta": float(d),
                                     "best": local_budget,
                                     "regime": "memoized responses: the rounds share one memoized response, so "
                                               "per-round shuffled bounds do not compose; the local budget stands"}
        elif rounds > 1 and out["shuffled"]["certified"] is not None:
            try:
                s, c2, best = shuffled_composition(eps0, devices, rounds, d)
                central = min(best, local_budget)
                out["central_budget"] = {"per_round": s.certified, "per_round_delta": s.delta,
                                         "best": central,
                                         "regime": "per-round shuffled epsilon at delta/(2R), composed at delta/2 "
                                                   "(KOV), or at delta/R each (basic); capped by the local budget"}
            except ValueError as exc:
                out["central_budget"] = {"per_round": None, "per_round_delta": float(d) / (2 * rounds),
                                         "best": local_budget, "regime": f"no amplification per round: {exc}"}
        else:
            c = out["shuffled"]["certified"]
            out["central_budget"] = {"per_round": c, "per_round_delta": float(d),
                                     "best": local_budget if c is None else min(c, local_budget),
                                     "regime": "one round" if rounds == 1 else "no amplification: local budget"}
    out["seconds"] = time.perf_counter() - t0
    return out
