"""Duchi et al.'s one-bit mechanism for a bounded reading (Duchi, Jordan and Wainwright, JASA
2018), exact on a fixed-point grid.

A device holds a reading x in [lo, hi] as its grid index i in [0, N], N = 2^bits
(``fxdp.mechanisms.readings._numeric``: N + 1 levels, lo and hi on the grid), at position
t_i = 2 i / N - 1 in [-1, 1].  It reports one bit y with

    P(y = 1 | i) = 1/2 + t_i (p - 1/2) = ((2^k - a_p) 2^bits + (2 a_p - 2^k) i) / 2^(k + bits),

p = a_p / 2^k (k = prob_bits) the probability at the top of the range, so P(y = 1) runs
linearly from 1 - p (at lo) to p (at hi).  Continuous Duchi reports +-B, B = (e^eps + 1) /
(e^eps - 1), with P(+B) = 1/2 + t (e^eps - 1) / (2 (e^eps + 1)): the same law at
p = e^eps / (e^eps + 1).

Rounding, and why.  p is realized as a_p / 2^k rounded *down* (toward 1/2) from a certified
lower bound on e^eps (``_numeric.realize_p``): the worst ratio of any two inputs' output
probabilities is P(y = 1 | N) / P(y = 1 | 0) = p / (1 - p), so rounding p toward 1/2 can only
shrink the realized epsilon ln(a_p / (2^k - a_p)) (reported by ``m.epsilon``, rounded up, and by
``fxdp.audit`` exactly).  The grid puts t_i on a dyadic grid (N + 1 levels), so every P(y = 1 | i)
is exactly the dyadic above: no rounding there.  Readings are rounded to the nearest grid level
(deterministic, at most half a step; ``_numeric``).

Sampling (the bits the reference, Numba and C all read): y = Bernoulli(num_i / 2^(k + bits)),
num_i as above: ``bernoulli_dyadic`` (lazy, about 2 bits) or ``bernoulli_dyadic_ct`` (exactly
k + bits bits).  The C form computes num_i by a masked shift-and-add over the `bits` bits of i
(no multiply, no branch on i), so the constant-time form's time and bit use do not depend on the
reading.

Estimator.  t^_j = (2 y_j - 1) / (2p - 1) is unbiased for t_j, and t^_j^2 = B^2 with
B = 1 / (2p - 1) always, so the mean of n readings, lo + (hi - lo) (1 + mean t^) / 2, has the
closed-form variance ((hi - lo) / 2)^2 (B^2 - mean t_j^2) / n (``m.variance``); the standard
error plugs in mean t^2 >= (mean t)^2 (clipped to [-1, 1]), an upper bound.  The continuous
mechanism's is the same with B = (e^eps + 1) / (e^eps - 1) (``m.continuous_variance``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...conservative import log_up
from ...reports import AuditReport, Estimate, ratio_eps, reports_array
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, _p, u8, u64
from ._numeric import MAX_PROB_BITS, GridNumeric, grid_reading_configs, realize_p
from ..base import CConfig, answers

SRC_DUCHI = SRC_RNG + ["fxdp_bernoulli.c", "fxdp_mech_duchi.c"]
PMF_MAX_BITS = 12            # output_pmf / audit_pairs enumerate the grid


class Duchi(GridNumeric):
    """Duchi et al.'s one-bit mechanism on a grid (see the module docstring)."""
    kind = "duchi"
    output_domain = "AtomDomain(bit: 1 = +B, 0 = -B)"

    def __init__(self, lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
        self._check_args(lo, hi, epsilon, bits, constant_time, prob_bits)
        k = self.prob_bits
        self.a_p = realize_p(self.epsilon_requested, k)
        self.p = Fraction(self.a_p, 1 << k)
        self._ratio = Fraction(self.a_p, (1 << k) - self.a_p)
        self._eps = log_up(self._ratio)
        self.base_num = ((1 << k) - self.a_p) << self.bits       # num_0: P(y = 1 | lo) 2^(k + bits)
        self.slope = 2 * self.a_p - (1 << k)                     # num_(i+1) - num_i
        self.total_bits = k + self.bits

    def realized(self):
        return {"p": self.p, "a_p": self.a_p, "prob_bits": self.prob_bits, "bits": self.bits,
                "B": 1 / (2 * self.p - 1), "epsilon": self._eps}

    @property
    def bits_per_report(self):
        return 1

    def numerator(self, i):
        """num_i: P(y = 1 | grid index i) = num_i / 2^(prob_bits + bits)."""
        return self.base_num + self.slope * i

    # --- releases
    def release(self, src, i):
        """One bit for grid index i: Bernoulli(num_i / 2^(k + bits)) (module docstring)."""
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return int(sample(src, self.numerator(i), self.total_bits))

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba): values are n readings in [lo, hi] (rounded to the grid);
        device i draws from the keyed stream (seed, device_ids[i], stream 0), bit-identical to the
        C library.  Returns n uint8 bits; raises ValueError / EntropyError (nothing returned)."""
        return super().simulate(values, seed, device_ids)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_duchi import fleet_duchi
        out = np.zeros(x.shape[0], dtype=np.uint8)
        fleet_duchi(key, ids, first_block, np.uint64(self.base_num), np.uint64(self.slope),
                    np.uint64(self.total_bits), bool(self.constant_time), x, out, status, bits)
        return out

    # --- estimation
    @property
    def B(self):
        """1 / (2p - 1): |t^| of every report (exact)."""
        return 1 / (2 * self.p - 1)

    def positions(self, reports):
        """t^_j = (2 y_j - 1) B for reports y_j in {0, 1} (float64)."""
        y = reports_array(reports)
        if y.ndim != 1:
            raise ValueError("reports must be a 1-d array of bits (0 or 1)")
        if y.min() < 0 or y.max() > 1:
            raise ValueError("reports must be bits (0 or 1)")
        return (2.0 * y - 1.0) * float(self.B)

    def estimate(self, reports):
        """Unbiased mean of the readings, lo + (hi - lo) (1 + mean t^) / 2, with the standard error
        of the closed form at mean t^2 >= (mean t)^2 (an upper bound; module docstring)."""
        t = self.positions(reports)
        n = t.shape[0]
        mt = float(t.mean())
        half = float(self.hi - self.lo) / 2
        var_t = (float(self.B) ** 2 - min(1.0, mt * mt)) / n
        return Estimate("mean", float(self.lo) + half * (1 + mt), half * np.sqrt(var_t))

    def estimate_from_multiset(self, rows, counts):
        """estimate() on distinct reports with their counts (no n-sized array)."""
        t = self.positions(np.asarray(rows).reshape(-1))
        c = np.asarray(counts, dtype=np.float64)
        n = float(c.sum())
        mt = float((t * c).sum() / n)
        half = float(self.hi - self.lo) / 2
        var_t = (float(self.B) ** 2 - min(1.0, mt * mt)) / n
        return Estimate("mean", float(self.lo) + half * (1 + mt), half * np.sqrt(var_t))

    def variance(self, readings):
        """Closed-form variance of the mean estimate for this population of readings (on the grid):
        ((hi - lo)/2)^2 (B^2 - mean t_i^2) / n."""
        t = self._t_of(readings)
        half = float(self.hi - self.lo) / 2
        return half * half * (float(self.B) ** 2 - float(np.mean(t * t))) / t.shape[0]

    def continuous_variance(self, readings):
        """The same for continuous Duchi at the requested epsilon: B = (e^eps + 1) / (e^eps - 1)."""
        t = self._t_of(readings)
        e = np.exp(float(self.epsilon_requested))
        half = float(self.hi - self.lo) / 2
        return half * half * (((e + 1) / (e - 1)) ** 2 - float(np.mean(t * t))) / t.shape[0]

    def worst_case_variance(self, n):
        """Variance of the mean of n readings at t = 0 (the worst case): ((hi - lo)/2)^2 B^2 / n."""
        half = float(self.hi - self.lo) / 2
        return half * half * float(self.B) ** 2 / n

    def _t_of(self, readings):
        i = self.grid_indices(readings)
        if i.size == 0:
            raise ValueError("readings must not be empty")
        return 2.0 * i / self.N - 1.0

    # --- device form
    def _cfg_fields(self):
        return {"a_p": self.a_p, "prob_bits": self.prob_bits, "bits": self.bits}

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base): grid index in, one bit out."""
        ct = self.constant_time
        f = self._cfg_fields()
        return {
            "c_function": "fxdp_duchi_ct" if ct else "fxdp_duchi",
            "cfg_type": "fxdp_duchi_cfg",
            "cfg_init": _init([("a_p", u64(f["a_p"])), ("prob_bits", u8(f["prob_bits"])), ("bits", u8(f["bits"]))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint8_t", "count": 1, "min": 0, "max": 1},
            "sources": list(SRC_DUCHI),
            "summary": (f"Duchi et al. one-bit mechanism on [{self.lo}, {self.hi}], grid index in [0, {self.N}]: "
                        f"P(y = 1) runs linearly from 1 - p to p, p = {_p(self.p)}; epsilon <= {self.epsilon!r}; "
                        + _ct_text(ct, self.total_bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_duchi_cfg *", self._cfg_fields())
        return CConfig(cfg, [], "fxdp_duchi" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32, out_ctype="uint8_t", out_dtype=np.uint8)

    def release_output(self, out):
        return int(out[0])

    # --- audit
    def exact_audit(self, d_in=1):
        """The worst ratio is at the two ends: P(y = 1 | hi) / P(y = 1 | lo) = p / (1 - p), exactly
        (P(y = 1 | i) is monotone in i; y = 0 gives the same ratio the other way round)."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": 0, "x_prime": self.N, "output": 0, "ratio": str(self._ratio), "p": str(self.p)}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method="exact (closed form: p / (1 - p))")

    def audit_pairs(self):
        if self.bits > PMF_MAX_BITS:
            raise ValueError(f"audit_pairs enumerates the grid: bits <= {PMF_MAX_BITS}, got {self.bits}")
        return super().audit_pairs()

    def output_pmf(self, i):
        """Exact pmf of the bit for grid index i (an int in [0, 2^bits])."""
        from ...validate import check_int
        i = check_int("i (grid index)", i, 0, self.N)
        one = Fraction(self.numerator(i), 1 << self.total_bits)
        return {1: one, 0: 1 - one}


@answers(reading_configs=grid_reading_configs)
def make_duchi(lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
    """Duchi et al.'s one-bit mechanism for readings in [lo, hi] (lo < hi) on a grid of 2^bits + 1
    levels (1 <= bits <= 24): epsilon in (0, 64], realized with p = a_p / 2^prob_bits
    (2 <= prob_bits <= 32) rounded toward 1/2 so the realized epsilon (``m.epsilon``) never exceeds
    the request.  One bit per report; ``m.estimate(reports)`` is the unbiased mean."""
    return Duchi(lo, hi, epsilon, bits, constant_time, prob_bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'duchi': ('Duchi, Jordan, Wainwright 2018',
        '`lo = -20`, `hi = 60`, `epsilon = 1`, `bits = 12`, `constant_time = true` (readings in [lo, hi], on a grid of 2^bits + 1 levels)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Duchi et al.'s one-bit mechanism on a grid (grid index in, one bit out): the CT case reads
    # exactly prob_bits + bits = 44 bits; the lazy case at prob_bits = 3 and bits = 2 (5 levels) so the
    # lazy Bernoulli's early exits are taken by some of the timed releases and its count varies.
    'duchi_ct': lambda: make_duchi(-20, 60, 2, constant_time=True),
    'duchi_lazy': lambda: make_duchi(0, 1, 1, bits=2, prob_bits=3),
}
EXPORT_VARIANTS: set[str] = set()
