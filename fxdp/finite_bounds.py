"""Layer 0: the Gazeau-Miller-Palamidessi degradation bounds as pure math.

All inputs are exact rationals (``Fraction``; ints and floats are taken
exactly).  Every result that is a privacy figure is rounded *up* (certified:
``fxdp.conservative``); every quantity that enters a bound as an error term
(delta_t, R) is an upper bound.

Theorem 4.5 (the paper, proof in its appendix B): a snapped and truncated
mechanism that satisfies Conditions 1-3 is eps'-DP with

    eps' = eps + ln(1 + R * exp(eps (L + delta_t) / Delta)),
    delta_t = k delta_0 + delta_n,

where L is the largest diameter of a rounding cell and R is the robustness
value of equation (5),

    R = max over cells S of  lambda(S^{+delta_t} minus S^{-delta_t}) / lambda(S^{-delta_t}).

* 1-D, cells = intervals of length L.  The paper (section 5) states
  R = (L + 2 delta_t) / (L - 2 delta_t).  That is lambda(S^{+}) / lambda(S^{-}),
  i.e. definition (5) plus one: evaluating (5) itself gives
  R = 4 delta_t / (L - 2 delta_t), always smaller (``R_tight_1d``).
* Plane, cells = squares of side L (diameter sqrt(2) L).  Section 6:
  R = ((L + 2 delta_t) / (L - 2 delta_t))^2.  Definition (5) with the
  Euclidean delta_t-neighbourhood (area L^2 + 4 L delta_t + pi delta_t^2) and
  the inner square of side L - 2 delta_t gives
  R = (8 L delta_t + (pi - 4) delta_t^2) / (L - 2 delta_t)^2.
* Exponent.  Theorem 4.5 uses L = max diameter of a cell; for squares that
  is sqrt(2) L, which section 6's display writes as L.  The functions here
  follow the theorem (``diameter``); ``paper_bound_planar(..., as_printed=True)``
  evaluates the display literally, for comparison (docs/finite_precision.md).

privacy_map(d_in): for inputs d_in sensitivity-steps apart the same proof
gives eps d_in + ln(1 + R exp(eps (L + delta_t) / Delta)) (``epsilon_prime``).

All bounds require L > 2 delta_t; otherwise ``check_L`` raises ValueError
naming the smallest valid L on the format's grid.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .conservative import exp_interval, float_up, log_up
from .fixmath import pi_bounds

__all__ = [
    "R_paper_1d", "R_tight_1d", "R_paper_planar", "R_tight_planar",
    "epsilon_prime", "paper_bound_1d", "tight_bound_1d", "paper_bound_planar",
    "tight_bound_planar", "check_L", "smallest_valid_L", "sqrt2_up",
    "grid_constants_1d", "grid_constants_planar", "delta_t",
]


def _q(x, name):
    if isinstance(x, bool):
        raise ValueError(f"{name} must be a number, got {x!r}")
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x!r}")
    try:
        return Fraction(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a rational number, got {x!r}") from None


def sqrt2_up(bits=64):
    """A dyadic rational >= sqrt(2) (within 2^-bits)."""
    s = math.isqrt(2 << (2 * bits))
    if s * s < (2 << (2 * bits)):
        s += 1
    return Fraction(s, 1 << bits)


def smallest_valid_L(delta_t, resolution):
    """The smallest multiple of ``resolution`` strictly greater than 2 delta_t."""
    delta_t, resolution = _q(delta_t, "delta_t"), _q(resolution, "resolution")
    return (math.floor(2 * delta_t / resolution) + 1) * resolution


def check_L(L, delta_t, resolution=None):
    """Raise ValueError unless L > 2 delta_t (naming the smallest valid L)."""
    L, delta_t = _q(L, "L"), _q(delta_t, "delta_t")
    if L > 2 * delta_t:
        return
    hint = ""
    if resolution is not None:
        hint = f"; the smallest valid L on this grid is {smallest_valid_L(delta_t, resolution)}"
    raise ValueError(f"L must be > 2*delta_t = {float(2 * delta_t)!r} (Gazeau et al. Thm 4.5 needs "
                     f"L - 2 delta_t > 0), got L = {L}{hint}")


def delta_t(k_delta0, delta_n):
    """delta_t = k delta_0 + delta_n (both upper bounds)."""
    return _q(k_delta0, "k_delta0") + _q(delta_n, "delta_n")


# --------------------------------------------------------------------------
# robustness values R (upper bounds, exact rationals)

def R_paper_1d(L, dt):
    L, dt = _q(L, "L"), _q(dt, "delta_t")
    check_L(L, dt)
    return (L + 2 * dt) / (L - 2 * dt)


def R_tight_1d(L, dt):
    L, dt = _q(L, "L"), _q(dt, "delta_t")
    check_L(L, dt)
    return 4 * dt / (L - 2 * dt)


def R_paper_planar(L, dt):
    return R_paper_1d(L, dt) ** 2


def R_tight_planar(L, dt):
    L, dt = _q(L, "L"), _q(dt, "delta_t")
    check_L(L, dt)
    _, pi_hi = pi_bounds(80)
    return (8 * L * dt + (pi_hi - 4) * dt * dt) / (L - 2 * dt) ** 2


# --------------------------------------------------------------------------
# eps' (conservatively rounded up)

def epsilon_prime(epsilon, sensitivity, R, diameter, dt, d_in=1):
    """eps d_in + ln(1 + R exp(eps (diameter + dt) / sensitivity)), rounded up to a float."""
    eps, sens = _q(epsilon, "epsilon"), _q(sensitivity, "sensitivity")
    R, diam, dt = _q(R, "R"), _q(diameter, "diameter"), _q(dt, "delta_t")
    if eps <= 0 or sens <= 0:
        raise ValueError("epsilon and sensitivity must be > 0")
    if R < 0 or dt < 0:
        raise ValueError("R and delta_t must be >= 0")
    if d_in == 0:
        return 0.0
    _, e_hi = exp_interval(eps * (diam + dt) / sens)
    extra = Fraction(log1p_up(R * e_hi))
    return float_up(eps * d_in + extra)


def log1p_up(y):
    """A float f >= ln(1 + y) for a rational y >= 0, within a few ulps (certified with exp_interval).

    Starts from math.log1p, which keeps full relative precision for tiny y (the generic log_up
    starts from log(float(1 + y)), which loses it near 1)."""
    y = _q(y, "y")
    if y < 0:
        raise ValueError(f"y must be >= 0, got {y}")
    if y == 0:
        return 0.0
    if y > (1 << 60):
        return log_up(1 + y)
    f = math.log1p(float(y))
    x = 1 + y
    while True:
        lo, _ = exp_interval(Fraction(f))
        if lo >= x:
            return f + 0.0
        f = math.nextafter(f, math.inf)


def paper_bound_1d(epsilon, sensitivity, L, dt, d_in=1):
    """Theorem 4.5 with section 5's R = (L + 2 dt)/(L - 2 dt) (as published), rounded up."""
    L = _q(L, "L")
    return epsilon_prime(epsilon, sensitivity, R_paper_1d(L, dt), L, dt, d_in)


def tight_bound_1d(epsilon, sensitivity, L, dt, d_in=1):
    """Theorem 4.5 with R from definition (5): 4 dt / (L - 2 dt), rounded up."""
    L = _q(L, "L")
    return epsilon_prime(epsilon, sensitivity, R_tight_1d(L, dt), L, dt, d_in)


def paper_bound_planar(epsilon, sensitivity, L, dt, d_in=1, as_printed=False):
    """Theorem 4.5 with section 6's R = ((L + 2 dt)/(L - 2 dt))^2.

    The exponent uses the cell diameter sqrt(2) L (Theorem 4.5's L); with
    ``as_printed=True`` it uses the side L, as section 6's display does."""
    L = _q(L, "L")
    diam = L if as_printed else sqrt2_up() * L
    return epsilon_prime(epsilon, sensitivity, R_paper_planar(L, dt), diam, dt, d_in)


def tight_bound_planar(epsilon, sensitivity, L, dt, d_in=1):
    """Theorem 4.5 with R from definition (5) for a square cell, Euclidean neighbourhoods."""
    L = _q(L, "L")
    return epsilon_prime(epsilon, sensitivity, R_tight_planar(L, dt), sqrt2_up() * L, dt, d_in)


# --------------------------------------------------------------------------
# the closeness constants of our uniform grids (exact, conservative)

def _exp_neg_lower(x):
    """A rational lower bound on exp(-x), x >= 0 rational."""
    lo, _ = exp_interval(-_q(x, "x"), 96)
    return lo


def grid_constants_1d(scale, D, k):
    """Closeness constants of the 1-D inverse-CDF noise on the k-bit midpoint grid.

    u = (j + 1/2) / 2^k; the noise magnitude is scale * (-ln(w / 2^k)) for odd w
    in [1, 2^k).  Region used: U_r = {|n(u)| <= D}.  A grid cell (odd w) meets
    U_r iff (w + 1) / 2^k >= exp(-D/scale); ``w_min`` is a lower bound on the
    smallest such w.  On the union of those cells |dn/du| <= 2 scale 2^k /
    (w_min - 1) = k_lip, and delta_0 = 2^-(k+1) (the distance from a uniform
    real to its cell's midpoint), so k delta_0 = scale / (w_min - 1).

    Returns a dict with w_min, k_lip, delta_0, k_delta0 (Fractions) or raises
    ValueError when the extreme cell (w = 1) meets U_r (k too small for D)."""
    scale, D = _q(scale, "scale"), _q(D, "D")
    lo = _exp_neg_lower(D / scale)
    w_min = math.floor((1 << k) * lo) - 1
    if w_min % 2 == 0:
        w_min -= 1
    if w_min < 3:
        raise ValueError(f"uniform_bits = {k} is too small for the truncation range: the outermost "
                         f"uniform cell reaches |noise| <= {float(D):.6g} (need 2^k exp(-D/scale) > 4; "
                         f"increase uniform_bits or narrow the bounds)")
    k_lip = 2 * scale * (1 << k) / (w_min - 1)
    delta0 = Fraction(1, 1 << (k + 1))
    return {"w_min": w_min, "k_lip": k_lip, "delta_0": delta0, "k_delta0": k_lip * delta0}


def grid_constants_planar(scale, R_U, kr, ka):
    """Closeness constants of the planar noise (radius = scale (E1 + E2), E_i = -ln u_i,
    u_i = (2 i + 1) / 2^(kr+1), angle (2 j + 1) / 2^(ka+1) turns).

    Region U_r = {r <= R_U}.  A cell (w1, w2) meets it iff (w1+1)(w2+1) >= 4^(kr+1) exp(-R_U/scale).
    Over such cells, with the sup-norm on the uniforms:
      radial:  |r(u) - r(v)| <= scale (1/(w1 - 1) + 1/(w2 - 1)) <= scale S_max,
               S_max = 1/(w_min - 1) + 1/(w_max - 1)  (w_min: smallest w1 with w2 = w_max);
      angular: |displacement| <= 2 pi R_E 2^-(ka+1), R_E = R_U + 2 scale S_max.
    Returns w_min, w_max, S_max, R_E, k_delta0 (sum of both), delta_0 (the larger cell half-width),
    k_lip = k_delta0 / delta_0, and the region threshold C (cells with (w1+1)(w2+1) >= C)."""
    scale, R_U = _q(scale, "scale"), _q(R_U, "R_U")
    n = kr + 1
    lo = _exp_neg_lower(R_U / scale)
    C = math.floor((1 << (2 * n)) * lo)
    w_max = (1 << n) - 1
    w_min = -(-C // (w_max + 1)) - 1          # smallest w1 with (w1 + 1)(w_max + 1) >= C
    if w_min % 2 == 0:
        w_min -= 1
    if w_min < 3:
        raise ValueError(f"radius_bits = {kr} is too small for the truncation box: the outermost "
                         f"radius cell reaches r <= {float(R_U):.6g}; increase radius_bits or narrow the bounds")
    S_max = Fraction(1, w_min - 1) + Fraction(1, w_max - 1)
    R_E = R_U + 2 * scale * S_max
    _, pi_hi = pi_bounds(80)
    d0r, d0a = Fraction(1, 1 << n), Fraction(1, 1 << (ka + 1))
    kd0 = scale * S_max + 2 * pi_hi * R_E * d0a
    d0 = max(d0r, d0a)
    return {"w_min": w_min, "w_max": w_max, "S_max": S_max, "R_E": R_E, "C": C,
            "k_delta0": kd0, "delta_0": d0, "k_lip": kd0 / d0,
            "delta_0_radius": d0r, "delta_0_angle": d0a}
