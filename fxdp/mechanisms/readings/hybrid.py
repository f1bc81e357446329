"""The Hybrid mechanism (HM) for a bounded reading (Wang et al., ICDE 2019), exact on a grid: with
probability beta the Piecewise mechanism, else Duchi et al.'s, both at the full epsilon.

beta = 1 - e^(-eps/2) for eps > 0.61 and 0 below (the paper's switch point eps* ~ 0.61, under which
Duchi alone has the lower worst-case variance), realized as b / 2^prob_bits rounded to the nearest:
beta is not a privacy parameter, since each branch is eps-DP on its own and the two branches'
outputs are distinct symbols, so the worst ratio of HM is the larger of the two branches' ratios
(``fxdp.audit``: exactly the max of the two closed forms).  Everything else, and every rounding,
is the branches' own (``duchi``, ``piecewise``).

Output: a cell j in [0, L) of the Piecewise branch, or L + y for Duchi's bit y (L + 2 symbols).

Sampling (the bits the reference, Numba and C read): c = Bernoulli(b / 2^prob_bits) then, lazy,
only the chosen branch's draws; constant time, both branches' constant-time draws (Piecewise's
first), the output selected by a mask: exactly 3 prob_bits + 2 bits bits.

Estimator: the chosen branch's unbiased position (Piecewise's alpha c_j or Duchi's +-B), so the
mean is unbiased and its variance is beta E_PM[t^2] + (1 - beta) B^2 - t^2 per reading
(``m.variance``, closed form).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...reports import AuditReport, Estimate, ratio_eps, reports_array
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, u8, u32, u64
from ._numeric import MAX_PROB_BITS, GridNumeric, grid_reading_configs
from ..base import CConfig, answers
from .duchi import Duchi
from .piecewise import Piecewise

SWITCH_EPSILON = 0.61        # Wang et al. 2019: beta = 0 (Duchi alone) at or below it
SRC_HYBRID = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_duchi.c", "fxdp_mech_piecewise.c", "fxdp_mech_hybrid.c"]


def realize_beta(epsilon, prob_bits):
    """b with beta = b / 2^prob_bits ~ 1 - e^(-eps/2) above the switch point, 0 at or below it."""
    if float(epsilon) <= SWITCH_EPSILON:
        return 0
    return int(round((1 << prob_bits) * (1 - math.exp(-float(epsilon) / 2))))


class Hybrid(GridNumeric):
    """The Hybrid mechanism on a grid (see the module docstring)."""
    kind = "hybrid"
    report_dtype = "int64"         # decoded reports as simulate returns them (output cells)

    def __init__(self, lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
        self._check_args(lo, hi, epsilon, bits, constant_time, prob_bits)
        self.pm = Piecewise(lo, hi, epsilon, bits, constant_time, prob_bits)
        self.duchi = Duchi(lo, hi, epsilon, bits, constant_time, prob_bits)
        self.b = realize_beta(self.epsilon_requested, self.prob_bits)
        self.beta = Fraction(self.b, 1 << self.prob_bits)
        self.L = self.pm.L
        # a branch chosen with probability 0 releases nothing: beta = 0 is Duchi's epsilon alone
        self._ratio = self.duchi._ratio if self.b == 0 else max(self.pm._ratio, self.duchi._ratio)
        self._eps = self.duchi._eps if self.b == 0 else max(self.pm._eps, self.duchi._eps)

    @property
    def output_domain(self):
        return f"AtomDomain(symbol in [0, {self.L + 2}): PM cell < {self.L}, else {self.L} + Duchi bit)"

    def realized(self):
        return {"beta": self.beta, "b": self.b, "prob_bits": self.prob_bits, "bits": self.bits,
                "piecewise": self.pm.realized(), "duchi": self.duchi.realized(), "epsilon": self._eps}

    # --- releases
    def release(self, src, i):
        """One symbol for grid index i (module docstring)."""
        if self.constant_time:
            c = ref.bernoulli_dyadic_ct(src, self.b, self.prob_bits)
            j = self.pm._release(src, i)
            y = self.duchi._release(src, i)
            return j if c else self.L + y
        if ref.bernoulli_dyadic(src, self.b, self.prob_bits):
            return self.pm._release(src, i)
        return self.L + self.duchi._release(src, i)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba): values are n readings in [lo, hi]; returns n int64 symbols,
        bit-identical to the C library; raises (nothing returned) on failure."""
        return super().simulate(values, seed, device_ids)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_hybrid import fleet_hybrid
        out = np.zeros(x.shape[0], dtype=np.int64)
        pm, du = self.pm, self.duchi
        fleet_hybrid(key, ids, first_block, np.uint64(self.b), np.uint64(pm.a), np.uint64(pm.w),
                     np.uint64(self.prob_bits), np.uint64(self.bits), np.uint64(du.base_num), np.uint64(du.slope),
                     bool(self.constant_time), x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    # --- estimation
    def positions(self, reports):
        """Each report's unbiased position: Piecewise's alpha c_j, or Duchi's (2y - 1) B."""
        s = reports_array(reports)
        if s.ndim != 1:
            raise ValueError(f"reports must be a 1-d array of symbols in [0, {self.L + 2})")
        if s.min() < 0 or s.max() >= self.L + 2:
            raise ValueError(f"reports must be symbols in [0, {self.L + 2})")
        t = float(self.pm.alpha) * (s + 0.5 - self.L / 2)
        duchi = s >= self.L
        t[duchi] = (2.0 * (s[duchi] - self.L) - 1.0) * float(self.duchi.B)
        return t

    def estimate(self, reports):
        """Unbiased mean of the readings, with the standard error from the reports' variance."""
        t = self.positions(reports)
        half = float(self.hi - self.lo) / 2
        return Estimate("mean", float(self.lo) + half * (1 + float(t.mean())),
                        half * math.sqrt(float(t.var()) / t.shape[0]))

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

    def variance(self, readings):
        """Closed form: ((hi - lo)/2)^2 mean_i(beta E_PM[t^2 | i] + (1 - beta) B^2 - t_i^2) / n."""
        i = self.grid_indices(readings)
        if i.size == 0:
            raise ValueError("readings must not be empty")
        t = 2.0 * i / self.N - 1.0
        beta = float(self.beta)
        pm2 = float(self.pm.alpha) ** 2 * self.pm._second_moment(i)
        per = beta * pm2 + (1 - beta) * float(self.duchi.B) ** 2 - t * t
        half = float(self.hi - self.lo) / 2
        return half * half * float(per.mean()) / i.shape[0]

    def worst_case_variance(self, n):
        """Variance of the mean of n readings all at the worst grid level: the per-reading variance
        is linear in t^2 (both branches' are), so the worst is at t = 0 or at an end."""
        mid = self.N // 2
        readings = [float(self.reading(i)) for i in (0, mid, self.N)]
        return max(self.variance([r]) for r in readings) / n

    def continuous_variance(self, readings):
        """The continuous HM at the requested epsilon (same beta rule): beta Var_PM + (1 - beta)
        Var_Duchi, the branches' continuous closed forms."""
        beta = 0.0 if float(self.epsilon_requested) <= SWITCH_EPSILON else 1 - math.exp(-float(self.epsilon_requested) / 2)
        return beta * self.pm.continuous_variance(readings) + (1 - beta) * self.duchi.continuous_variance(readings)

    # --- device form
    def _cfg_fields(self):
        return {"b": self.b, "pm": self.pm._cfg_fields(), "duchi": self.duchi._cfg_fields()}

    def device_spec(self, dim=None):
        """The C device form: grid index in, one symbol out (PM cell, or L + Duchi bit)."""
        ct = self.constant_time
        pm, du = self.pm, self.duchi
        pm_init = _init([("a", u64(pm.a)), ("w", u32(pm.w)), ("prob_bits", u8(pm.prob_bits)), ("bits", u8(pm.bits))])
        du_init = _init([("a_p", u64(du.a_p)), ("prob_bits", u8(du.prob_bits)), ("bits", u8(du.bits))])
        return {
            "c_function": "fxdp_hybrid_ct" if ct else "fxdp_hybrid",
            "cfg_type": "fxdp_hybrid_cfg",
            "cfg_init": _init([("b", u64(self.b)), ("pm", pm_init), ("duchi", du_init)]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 1, "min": 0, "max": self.L + 1},
            "sources": list(SRC_HYBRID),
            "summary": (f"Hybrid mechanism on [{self.lo}, {self.hi}]: Piecewise (cells < {self.L}) w.p. "
                        f"{self.b}/2^{self.prob_bits}, else Duchi ({self.L} + bit); epsilon <= {self.epsilon!r}; "
                        + (_ct_text(ct, 3 * self.prob_bits + 2 * self.bits) if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_hybrid_cfg *", self._cfg_fields())
        return CConfig(cfg, [], "fxdp_hybrid" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32)

    def release_output(self, out):
        return int(out[0])

    # --- audit
    def exact_audit(self, d_in=1):
        """The branches' outputs are distinct symbols, so the worst ratio is the larger of the
        two closed forms (a branch chosen with probability 0 contributes nothing)."""
        if d_in != 1:
            return super().exact_audit(d_in)
        ratio = self._ratio
        witness = {"x": 0, "x_prime": self.N, "ratio": str(ratio),
                   "branch": "piecewise" if self.b and ratio == self.pm._ratio else "duchi"}
        return AuditReport(repr(self), self.epsilon, ratio_eps(ratio), witness,
                           method="exact (closed form: max of the branches)")

    def audit_pairs(self):
        if self.bits > 8:
            raise ValueError(f"audit_pairs enumerates the grid: bits <= 8, got {self.bits}")
        return super().audit_pairs()

    def output_pmf(self, i):
        """Exact pmf of the symbol for grid index i (symbols of probability 0 left out)."""
        beta = self.beta
        out = {j: beta * p for j, p in self.pm.output_pmf(i).items()}
        out.update({self.L + y: (1 - beta) * p for y, p in self.duchi.output_pmf(i).items()})
        return {s: p for s, p in out.items() if p}          # beta = 0: no Piecewise symbol at all


@answers(reading_configs=grid_reading_configs)
def make_hybrid(lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
    """The Hybrid mechanism for readings in [lo, hi] (lo < hi) on a grid of 2^bits + 1 levels:
    Piecewise with probability beta = 1 - e^(-eps/2) (0 at eps <= 0.61), else Duchi, both at
    epsilon; the realized epsilon (``m.epsilon``) is the larger of the two branches'."""
    return Hybrid(lo, hi, epsilon, bits, constant_time, prob_bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'hybrid': ('Wang et al. 2019',
        '`lo = 0`, `hi = 40`, `epsilon = 2`, `bits = 12`, `constant_time = true` (Piecewise with probability 1 - e^(-eps/2), else Duchi)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Hybrid mechanism (Piecewise or Duchi): the CT case reads exactly 3 prob_bits + 2 bits = 112 bits;
    # the lazy case at bits = 4, prob_bits = 8 (w = 6: rejection-sampled band cell in the PM branch).
    'hybrid_ct': lambda: make_hybrid(0, 40, 2, bits=8, constant_time=True),
    'hybrid_lazy': lambda: make_hybrid(0, 1, 2, bits=4, prob_bits=8),
}
EXPORT_VARIANTS: set[str] = set()
