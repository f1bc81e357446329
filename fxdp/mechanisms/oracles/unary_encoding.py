"""Unary encoding frequency oracles: symmetric (SUE, basic RAPPOR's one-shot form) and optimized
(OUE, Wang, Blocki, Li and Jha, USENIX Security 2017), exact on dyadic probabilities.

A device holds one item x of a domain of d items and reports d bits: bit i is 1 with probability
p when i = x and q otherwise, one Bernoulli per item, i = 0..d-1 in order.

* OUE: p = 1/2, q = 1/(e^eps + 1), realized as q = a_q/2^bits rounded *up* (q larger: more noise),
  so the realized epsilon ln((1-q)/q) never exceeds the requested one.
* SUE: p = e^(eps/2)/(e^(eps/2) + 1), realized as a_p/2^bits rounded *down* (toward 1/2), q = 1 - p.

Both round with certified bounds on e^eps (fxdp.conservative.exp_interval); the privacy map is
ln(p(1-q) / ((1-p) q)) rounded up, which the exact audit attains.  The family: reference release,
Numba fleet kernel (``_kernels_unary_encoding.py``), C entry points ``fxdp_unary_encoding[_ct]``
(csrc/fxdp_mech_unary_encoding.c), device spec, the unbiased frequency estimator with its closed-form
variance, the exact audit in product form (and by enumeration for small d).

Every input is an item index in [0, d); anything else is refused (ValueError, FXDP_ERR_PARAM in C):
unlike k-ary randomized response, unary encoding has no "not an item" answer.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np

from ...conservative import exp_interval, float_up, log_up
from ...reports import AuditReport, Support, ratio_eps, reports_array
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, _p, u8, u32, u64
from .._oracle import ItemOracle
from ..base import CConfig, answers

MAX_DEVICE_D = 1024          # FXDP_UNARY_ENCODING_MAX_D in csrc/fxdp.h (a 128-byte stack buffer)
MAX_D = 1 << 20              # simulation: outputs are n x d bytes
PLOT_MAX_D = 10              # output_distribution enumerates 2^d reports
SRC_UNARY_ENCODING = SRC_RNG + ["fxdp_bernoulli.c", "fxdp_mech_unary_encoding.c"]


def realize(epsilon, optimized, bits):
    """(a_p, a_q) over 2^bits for the requested epsilon, rounded so epsilon never grows."""
    two_k = 1 << bits
    if optimized:
        lo, _ = exp_interval(epsilon)                      # lo <= e^eps
        a_p = two_k // 2
        a_q = math.ceil(Fraction(two_k) / (lo + 1))        # q >= 1/(e^eps + 1)
    else:
        lo, _ = exp_interval(epsilon / 2)                  # lo <= e^(eps/2)
        a_p = int(math.floor(Fraction(two_k) * lo / (lo + 1)))
        a_q = two_k - a_p
    return int(a_p), int(a_q)


def _epsilon_of(a_p, a_q, bits):
    two_k = 1 << bits
    return Fraction(a_p * (two_k - a_q), (two_k - a_p) * a_q)


class UnaryEncoding(ItemOracle):
    """Unary encoding over d items (see the module docstring)."""
    kind = "unary_encoding"

    @property
    def bits_per_report(self):
        """One bit per item."""
        return self.d
    MAX_D = MAX_D

    def __init__(self, d, epsilon, optimized=True, constant_time=False, bits=32):
        self._check_args(d, epsilon, bits, optimized=optimized, constant_time=constant_time)
        self.a_p, self.a_q = realize(self.epsilon_requested, optimized, self.bits)
        if not 0 < self.a_q < self.a_p < (1 << self.bits):
            half = 1 << (self.bits - 1)
            a_p, a_q = (half, half - 1) if optimized else (half + 1, half - 1)
            nearest = float_up(Fraction(log_up(_epsilon_of(a_p, a_q, self.bits))))
            raise ValueError(f"epsilon = {float(self.epsilon_requested)!r} is too small for bits = {self.bits}: "
                             f"p and q round to the same probability; the nearest valid epsilon is {nearest!r} "
                             "(or use more bits)")
        two_k = 1 << self.bits
        self.p = Fraction(self.a_p, two_k)
        self.q = Fraction(self.a_q, two_k)
        self._ratio = _epsilon_of(self.a_p, self.a_q, self.bits)
        self._eps = log_up(self._ratio)

    @property
    def output_domain(self):
        return f"VectorDomain(AtomDomain(bool), size={self.d})"

    def realized(self):
        return {"p": self.p, "q": self.q, "a_p": self.a_p, "a_q": self.a_q, "bits": self.bits,
                "epsilon": self._eps}

    # --- releases
    def release(self, src, x):
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return [int(sample(src, self.a_p if i == x else self.a_q, self.bits)) for i in range(self.d)]

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores): values are n item indices in [0, d); device i draws
        from the keyed stream (seed, device_ids[i], stream 0), bit-identical to the C library.
        Returns an n x d uint8 matrix of reports; raises ValueError / EntropyError (nothing
        returned)."""
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ...samplers._nb_run import dyadic_run_table
        from ._kernels_unary_encoding import fleet_unary_encoding
        out = np.zeros((x.shape[0], self.d), dtype=np.uint8)
        fleet_unary_encoding(key, ids, first_block, np.uint64(self.a_p), np.uint64(self.a_q), np.uint64(self.bits),
                             bool(self.constant_time), x, out, status, bits, dyadic_run_table(self.a_q, self.bits),
                             self._ahead(key))
        return out

    def _ahead(self, key):
        """Keystream blocks a fleet device computes ahead (with the other devices of its lane group):
        about what one report reads, d * bits constant time, 2 bits an item lazily."""
        from ...samplers._nb_lanes import ahead_blocks
        return ahead_blocks(self.d * (self.bits if self.constant_time else 2), key)

    def simulate_support(self, values, seed, device_ids=None, first_block=None):
        """The support of ``simulate``'s reports without the n x d matrix: equal to
        ``frequency_support(simulate(values, seed, device_ids))`` (same kernel, same bits, column
        sums accumulated per worker in O(d) memory each; for large n d, e.g. the variance table at
        d = 65536).  Raises as ``simulate`` does (nothing returned) if any device fails."""
        from .._fleet import check_seed, support_counts
        from ...samplers._nb_run import dyadic_run_table
        from ._kernels_unary_encoding import CHUNK, fleet_unary_encoding_counts
        params = (np.uint64(self.a_p), np.uint64(self.a_q), np.uint64(self.bits), bool(self.constant_time),
                  dyadic_run_table(self.a_q, self.bits), self._ahead(check_seed(seed)))
        counts, n = support_counts(self, values, seed, device_ids, first_block, CHUNK,
                                   fleet_unary_encoding_counts, params)
        return Support(counts, n, self.p, self.q)

    # --- estimation
    def frequency_support(self, reports):
        """Support counts: Y_i, the reports with bit i set; p and q the realized bit probabilities."""
        y = reports_array(reports)
        if y.ndim != 2 or y.shape[1] != self.d:
            raise ValueError(f"reports must be an n x d = n x {self.d} matrix of bits")
        if y.size and (y.min() < 0 or y.max() > 1):
            raise ValueError("reports must hold 0/1 bits")
        return Support(y.sum(axis=0, dtype=np.int64), y.shape[0], self.p, self.q)

    def estimate(self, reports):
        """Unbiased item frequencies f_i = (Y_i / n - q) / (p - q), Y_i the reports with bit i set.

        Var(f_i) = (f_i p(1-p) + (1 - f_i) q(1-q)) / (n (p - q)^2) exactly (independent devices);
        the standard error plugs in f_i clipped to [0, 1]."""
        return self.frequency_support(reports).unbiased()

    def estimate_from_sums(self, sums, n):
        """The estimate from n and Y_i, the number of reports with bit i set (estimate's formula)."""
        return Support(np.asarray(sums, dtype=np.int64), int(n), self.p, self.q).unbiased()

    def report_statistic(self):
        """Per-bit sums and n (streaming estimation in O(d) memory)."""
        from .._wire import ColumnSums
        return ColumnSums(self, self.report_layout(), self.estimate_from_sums)

    def variance(self, f, n):
        """Closed-form variance of the frequency estimate of an item with true frequency f."""
        p, q = float(self.p), float(self.q)
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)

    # --- device form
    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base); d <= FXDP_UNARY_ENCODING_MAX_D = 1024."""
        if self.d > MAX_DEVICE_D:
            raise ValueError(f"d = {self.d}: the C device form holds at most FXDP_UNARY_ENCODING_MAX_D = {MAX_DEVICE_D} items")
        ct = self.constant_time
        name = "optimized (OUE)" if self.optimized else "symmetric (SUE)"
        return {
            "c_function": "fxdp_unary_encoding_ct" if ct else "fxdp_unary_encoding",
            "cfg_type": "fxdp_unary_encoding_cfg",
            "cfg_init": _init([("a_p", u64(self.a_p)), ("a_q", u64(self.a_q)), ("d", u32(self.d)),
                               ("bits", u8(self.bits))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint8_t", "count": self.d, "min": 0, "max": 1},
            "sources": list(SRC_UNARY_ENCODING),
            "in_place": True,       # drawn into out, zeroed on an entropy failure
            "summary": (f"unary encoding, {name}, over d = {self.d} items: report bit i is 1 w.p. "
                        f"p = {_p(self.p)} for the input's item, q = {_p(self.q)} otherwise; epsilon <= "
                        f"{self.epsilon!r}; " + _ct_text(ct, self.d * self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_unary_encoding_cfg *", {"a_p": self.a_p, "a_q": self.a_q, "d": self.d, "bits": self.bits})
        return CConfig(cfg, [], "fxdp_unary_encoding" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32, out_ctype="uint8_t", out_dtype=np.uint8, out_count=self.d)

    def release_output(self, out):
        return [int(v) for v in out]

    # --- audit and plots
    def exact_audit(self, d_in=1):
        """Bits are independent given x, so for x != x' the ratio P(y|x)/P(y|x') is the product of
        the two items' factors, at most p/q * (1-q)/(1-p), attained at y_x = 1, y_x' = 0."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": 0, "x_prime": 1, "output": "bit 0 = 1, bit 1 = 0, any other bits",
                   "ratio": str(self._ratio), "p": str(self.p), "q": str(self.q)}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method="exact (per-item product form)")

    def audit_pairs(self):
        return [(x, xp) for x in range(self.d) for xp in range(self.d) if x != xp]

    def output_pmf(self, x):
        """Exact pmf of the whole report (2^d outputs; small d only)."""
        if self.d > 16:
            raise ValueError(f"output_pmf enumerates 2^d reports: d <= 16, got {self.d}")
        x = self.check_input(x)
        out = {}
        for y in product((0, 1), repeat=self.d):
            pr = Fraction(1)
            for i, b in enumerate(y):
                pi = self.p if i == x else self.q
                pr *= pi if b else 1 - pi
            out[y] = pr
        return out

    def output_distribution(self, x, x_prime):
        if self.d > PLOT_MAX_D:
            raise ValueError(f"unary encoding over d = {self.d} items has 2^{self.d} reports: the exact distribution "
                             f"is enumerated only up to d = {PLOT_MAX_D} (fxdp.audit gives the worst case in "
                             "product form)")
        return super().output_distribution(x, x_prime)


def _oracle_configs(epsilon, d, bits):
    """``oracle_configs`` (fxdp.mechanisms.base.answers): OUE and SUE."""
    return [{"d": d, "epsilon": epsilon, "optimized": opt, "bits": bits} for opt in (True, False)]


@answers(oracle_configs=_oracle_configs)
def make_unary_encoding(d, epsilon, optimized=True, constant_time=False, bits=32):
    """Unary encoding over d items (2 <= d; the C device form takes d <= 1024): optimized (OUE,
    p = 1/2) or symmetric (SUE); epsilon in (0, 64], realized with dyadic p, q over 2^bits so that
    the realized epsilon (``m.epsilon``) never exceeds the requested one."""
    return UnaryEncoding(d, epsilon, optimized, constant_time, bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'unary_encoding': ('Wang et al. 2017 (OUE, SUE)',
        '`d = 64`, `epsilon = 2`, `optimized = true`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Unary encoding (OUE, SUE): d report bits per release; d = 12 keeps a CT release within one block.
    'unary_encoding_ct': lambda: make_unary_encoding(12, 2, constant_time=True),
    'unary_encoding_sue_lazy': lambda: make_unary_encoding(12, 1, optimized=False),
}
EXPORT_VARIANTS: set[str] = set()
