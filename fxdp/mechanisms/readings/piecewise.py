"""The Piecewise mechanism (PM) for a bounded reading (Wang et al., ICDE 2019), exact on a grid.

A device holds a reading x in [lo, hi] as its grid index i in [0, N], N = 2^bits
(``fxdp.mechanisms.readings._numeric``), at position t_i = 2 i / N - 1.  Continuous PM outputs a value
in [-C, C], C = (e^(eps/2) + 1) / (e^(eps/2) - 1): uniform on a band [l(t), r(t)] of width C - 1
with probability e^(eps/2) / (e^(eps/2) + 1), else uniform on the rest, with densities in the
ratio e^eps.  As t runs over [-1, 1] the band's start moves by C + 1, so band width / shift =
(C - 1) / (C + 1) = e^(-eps/2).

Grid form.  The output is a cell j of L = N + w cells (the scaled grid over [-C, C]); the band
of input i is the w cells [i, i + w): its start moves by one cell per input step (N in all), and
w = max(1, round(N e^(-eps/2))) keeps the continuous band-to-shift ratio.  Every cell of the band
has probability A / 2^k and every other cell (2^k - w A) / 2^(k + bits) (k = prob_bits): the band
probability is q = w A / 2^k, dyadic.  The privacy ratio (band cell over outside cell) is
A 2^bits / (2^k - w A); A is the largest integer with that ratio <= e^eps, from a certified
lower bound on e^eps, so A (and the band) is rounded *down*: fewer reports in the band can only
lower the ratio, and the realized epsilon ln(A 2^bits / (2^k - w A)) never exceeds the request
(``m.epsilon``, rounded up; ``fxdp.audit`` exactly).  w is not a privacy parameter (any w is
private at the realized A); it is rounded to the nearest integer (variance only).  Readings are
rounded to the nearest grid level (deterministic, at most half a step; ``_numeric``).

Sampling, exact (the bits the reference, Numba and C read):

* lazy: b = Bernoulli(w A / 2^k) (``bernoulli_dyadic``); if b, j = i + uniform_below(w)
  (rejection: bit_length(w - 1) bits per try), else u = the next `bits` bits and
  j = u + w [u >= i] (uniform on the N cells outside the band);
* constant time: U = the next k bits, u = the next `bits` bits (always k + bits bits); b = [U < w A];
  j = i + floor(U / A) if b (given U < w A, floor(U / A) is uniform on [0, w)), else
  u + w [u >= i].  The C form divides by a fixed-iteration, branch-free restoring division and
  selects j by masks: no branch on i, U, u or b.

Estimator.  The cell's centre c_j = j + 1/2 - L/2 scaled by alpha = 2 / (N kappa),
kappa = q - (1 - q) w / N, is unbiased for t_i: E[c_j | i] = (N t_i / 2) kappa, since the band's
centre is i + w/2 - L/2 = N t_i / 2 and the outside cells' centres sum to minus the band's.
Its variance alpha^2 E[c_j^2 | i] - t_i^2 is summed in closed form (``m.variance``); the standard
error plugs in the empirical second moment of the reports (``m.estimate``).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import exp_interval, float_up, log_up
from ...reports import AuditReport, Estimate, ratio_eps, reports_array
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, u8, u32, u64
from ._numeric import MAX_PROB_BITS, GridNumeric, grid_reading_configs
from ..base import CConfig, answers

SRC_PIECEWISE = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_piecewise.c"]


def band_width(n_steps, epsilon):
    """w = max(1, round(N e^(-eps/2))): the continuous band-to-shift ratio on the grid (float;
    not a privacy parameter)."""
    return max(1, int(round(n_steps * math.exp(-float(epsilon) / 2))))


def realize_a(epsilon, bits, prob_bits, w):
    """The largest A with A 2^bits / (2^k - w A) <= e^eps (certified lower bound on e^eps):
    A = floor(e 2^k / (2^bits + e w)).  ValueError naming the nearest valid epsilon when the
    realized ratio is not above 1 (no information)."""
    lo_e, _ = exp_interval(epsilon)
    two_k, n = 1 << prob_bits, 1 << bits
    a = int(math.floor(lo_e * two_k / (n + lo_e * w)))
    if a < 1 or a * n <= two_k - w * a:
        a_min = two_k // (n + w) + 1                           # the least A with ratio > 1
        nearest = float_up(Fraction(log_up(Fraction(a_min * n, two_k - w * a_min))))
        raise ValueError(f"epsilon = {float(epsilon)!r} is too small for prob_bits = {prob_bits} at bits = {bits}: "
                         f"the band probability rounds to the outside one; the nearest valid epsilon is {nearest!r} "
                         "(or use more prob_bits)")
    return a


def _sq_sum(a, b, shift):
    """sum of (j + shift)^2 for j in [a, b) (float64 arrays a, b)."""
    def s(m):             # sum_{j < m} (j + shift)^2
        return m * shift * shift + shift * m * (m - 1) + (m - 1) * m * (2 * m - 1) / 6.0
    return s(b) - s(a)


class Piecewise(GridNumeric):
    """The Piecewise mechanism on a grid (see the module docstring)."""
    kind = "piecewise"
    report_dtype = "int64"         # decoded reports as simulate returns them (output cells)

    def __init__(self, lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
        self._check_args(lo, hi, epsilon, bits, constant_time, prob_bits)
        k = self.prob_bits
        self.w = band_width(self.N, self.epsilon_requested)
        self.a = realize_a(self.epsilon_requested, self.bits, k, self.w)
        self.L = self.N + self.w
        self.band_num = self.w * self.a                         # q = band_num / 2^k
        self.q = Fraction(self.band_num, 1 << k)
        self._ratio = Fraction(self.a << self.bits, (1 << k) - self.band_num)
        self._eps = log_up(self._ratio)
        self.kappa = self.q - (1 - self.q) * Fraction(self.w, self.N)
        self.alpha = 2 / (self.N * self.kappa)
        self.w_bits = (self.w - 1).bit_length()                 # uniform_below(w) bits per try
        self.q_bits = self.w.bit_length()                       # quotient bits of the CT division

    @property
    def output_domain(self):
        return f"AtomDomain(cell index in [0, {self.L}))"

    def realized(self):
        return {"w": self.w, "A": self.a, "prob_bits": self.prob_bits, "bits": self.bits, "L": self.L,
                "band_probability": self.q, "epsilon": self._eps}

    # --- releases
    def release(self, src, i):
        """One cell index j in [0, N + w) for grid index i (module docstring)."""
        if self.constant_time:
            U = src.bits64(self.prob_bits)
            u = src.bits64(self.bits)
            if U < self.band_num:
                return i + U // self.a
            return u + (self.w if u >= i else 0)
        if ref.bernoulli_dyadic(src, self.band_num, self.prob_bits):
            return i + ref.uniform_below(src, self.w)
        u = src.bits64(self.bits)
        return u + (self.w if u >= i else 0)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba): values are n readings in [lo, hi]; returns n int64 cell
        indices, bit-identical to the C library; raises (nothing returned) on failure."""
        return super().simulate(values, seed, device_ids)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_piecewise import fleet_piecewise
        out = np.zeros(x.shape[0], dtype=np.int64)
        fleet_piecewise(key, ids, first_block, np.uint64(self.a), np.uint64(self.w), np.uint64(self.prob_bits),
                        np.uint64(self.bits), bool(self.constant_time), x, out, status, bits)
        return out

    # --- estimation
    def positions(self, reports):
        """t^_j = alpha (j + 1/2 - L/2) for cell indices j in [0, L) (float64)."""
        j = reports_array(reports)
        if j.ndim != 1:
            raise ValueError(f"reports must be a 1-d array of cell indices in [0, {self.L})")
        if j.min() < 0 or j.max() >= self.L:
            raise ValueError(f"reports must be cell indices in [0, {self.L})")
        return float(self.alpha) * (j + 0.5 - self.L / 2)

    def estimate(self, reports):
        """Unbiased mean of the readings, lo + (hi - lo) (1 + mean t^) / 2; standard error from the
        reports' empirical variance (module docstring)."""
        t = self.positions(reports)
        n = t.shape[0]
        half = float(self.hi - self.lo) / 2
        return Estimate("mean", float(self.lo) + half * (1 + float(t.mean())),
                        half * math.sqrt(float(t.var()) / n))

    def estimate_from_multiset(self, rows, counts):
        """estimate() on distinct reports with their counts (no n-sized array): the weighted mean
        and variance of the positions."""
        t = self.positions(np.asarray(rows).reshape(-1))
        c = np.asarray(counts, dtype=np.float64)
        n = float(c.sum())
        mt = float((t * c).sum() / n)
        vt = float((((t - mt) ** 2) * c).sum() / n)
        half = float(self.hi - self.lo) / 2
        return Estimate("mean", float(self.lo) + half * (1 + mt), half * math.sqrt(vt / n))

    def _second_moment(self, i):
        """E[c_j^2 | i] for grid indices i (float64 array), in closed form."""
        i = np.asarray(i, dtype=np.float64)
        shift = 0.5 - self.L / 2
        band = _sq_sum(i, i + self.w, shift)
        total = _sq_sum(np.zeros(1), np.full(1, float(self.L)), shift)[0]
        p_in = float(self.q) / self.w
        p_out = float(1 - self.q) / self.N
        return p_in * band + p_out * (total - band)

    def variance(self, readings):
        """Closed-form variance of the mean estimate for this population of readings:
        ((hi - lo)/2)^2 mean_i(alpha^2 E[c^2 | i] - t_i^2) / n."""
        i = self.grid_indices(readings)
        if i.size == 0:
            raise ValueError("readings must not be empty")
        t = 2.0 * i / self.N - 1.0
        half = float(self.hi - self.lo) / 2
        per = float(self.alpha) ** 2 * self._second_moment(i) - t * t
        return half * half * float(per.mean()) / i.shape[0]

    def continuous_variance(self, readings):
        """The continuous PM at the requested epsilon: Var(t^ | t) = t^2 / (e^(eps/2) - 1) +
        (e^(eps/2) + 3) / (3 (e^(eps/2) - 1)^2) (Wang et al. 2019, Lemma 1), scaled."""
        i = self.grid_indices(readings)
        t = 2.0 * i / self.N - 1.0
        e = math.exp(float(self.epsilon_requested) / 2)
        half = float(self.hi - self.lo) / 2
        per = t * t / (e - 1) + (e + 3) / (3 * (e - 1) ** 2)
        return half * half * float(per.mean()) / i.shape[0]

    def worst_case_variance(self, n):
        """Variance of the mean of n readings all at the worst grid level (an end of the range)."""
        half = float(self.hi - self.lo) / 2
        ends = np.array([0, self.N])
        per = float(self.alpha) ** 2 * self._second_moment(ends) - 1.0
        return half * half * float(per.max()) / n

    # --- device form
    def _cfg_fields(self):
        return {"a": self.a, "w": self.w, "prob_bits": self.prob_bits, "bits": self.bits}

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base): grid index in, cell index out."""
        ct = self.constant_time
        f = self._cfg_fields()
        return {
            "c_function": "fxdp_piecewise_ct" if ct else "fxdp_piecewise",
            "cfg_type": "fxdp_piecewise_cfg",
            "cfg_init": _init([("a", u64(f["a"])), ("w", u32(f["w"])), ("prob_bits", u8(f["prob_bits"])),
                               ("bits", u8(f["bits"]))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 1, "min": 0, "max": self.L - 1},
            "sources": list(SRC_PIECEWISE),
            "summary": (f"Piecewise mechanism on [{self.lo}, {self.hi}], grid index in [0, {self.N}], output cell in "
                        f"[0, {self.L}): band of w = {self.w} cells w.p. {self.band_num}/2^{self.prob_bits} "
                        f"(~{float(self.q):.6g}); epsilon <= {self.epsilon!r}; "
                        + (_ct_text(ct, self.prob_bits + self.bits) if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_piecewise_cfg *", self._cfg_fields())
        return CConfig(cfg, [], "fxdp_piecewise" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32)

    def release_output(self, out):
        return int(out[0])

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    # --- audit
    def exact_audit(self, d_in=1):
        """For i != i' some cell is in i's band and not in i''s (w >= 1): the worst ratio is the
        band cell's probability over an outside cell's, A 2^bits / (2^k - w A), exactly."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": 0, "x_prime": self.N, "output": 0, "ratio": str(self._ratio)}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method="exact (closed form: band cell / outside cell)")

    def audit_pairs(self):
        if self.bits > 8:
            raise ValueError(f"audit_pairs enumerates the grid: bits <= 8, got {self.bits}")
        return super().audit_pairs()

    def output_pmf(self, i):
        """Exact pmf of the cell for grid index i (an int in [0, 2^bits])."""
        from ...validate import check_int
        i = check_int("i (grid index)", i, 0, self.N)
        p_in = Fraction(self.a, 1 << self.prob_bits)
        p_out = Fraction((1 << self.prob_bits) - self.band_num, 1 << (self.prob_bits + self.bits))
        return {j: (p_in if i <= j < i + self.w else p_out) for j in range(self.L)}


@answers(reading_configs=grid_reading_configs)
def make_piecewise(lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
    """The Piecewise mechanism for readings in [lo, hi] (lo < hi) on a grid of 2^bits + 1 levels
    (1 <= bits <= 24): output one of 2^bits + w cells (w ~ 2^bits e^(-eps/2)); band probability
    w A / 2^prob_bits with A rounded down so the realized epsilon (``m.epsilon``) never exceeds
    the request.  ``m.estimate(reports)`` is the unbiased mean."""
    return Piecewise(lo, hi, epsilon, bits, constant_time, prob_bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'piecewise': ('Wang et al. 2019',
        '`lo = 0`, `hi = 40`, `epsilon = 2`, `bits = 12`, `constant_time = true` (readings in [lo, hi]; output one of 2^bits + w cells)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Piecewise mechanism on a grid (grid index in, cell index out): the CT case reads exactly
    # prob_bits + bits = 40 bits; the lazy case (w = 7 at bits = 4: rejection-sampled band cell) varies.
    'piecewise_ct': lambda: make_piecewise(0, 40, 2, bits=8, constant_time=True),
    'piecewise_lazy': lambda: make_piecewise(0, 1, 2, bits=4, prob_bits=8),
}
EXPORT_VARIANTS: set[str] = set()
