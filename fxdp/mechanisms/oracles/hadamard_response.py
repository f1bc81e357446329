"""Hadamard response frequency oracle (Acharya, Sun and Zhang, AISTATS 2019), exact on a dyadic p.

A device holds one item x of a domain of d items and reports one index y in [0, K), K the
smallest power of two above d (so row x + 1 of the K x K Sylvester-Hadamard matrix
H(r, c) = (-1)^popcount(r & c) exists for every item; row 0, all ones, is never used).
C_x = {y : popcount((x + 1) & y) even} holds K/2 indices; the report is uniform in C_x with
probability p = e^eps / (e^eps + 1) and uniform in its complement otherwise: log2 K bits per
report, against d for unary encoding.

p is realized as a_p / 2^bits rounded *down* (toward 1/2) with certified bounds on e^eps
(fxdp.conservative.exp_interval), so the realized epsilon ln(p / (1 - p)) never exceeds the
request; the privacy map rounds it up (log_up), and the exact audit attains it.

Sampling, exact and branch-free (the bit order the reference, Numba and C all read):

1. y = the next log2 K stream bits (MSB first): uniform in [0, K);
2. b = Bernoulli(a_p / 2^bits): ``bernoulli_dyadic`` (lazy) or ``bernoulli_dyadic_ct``
   (constant time: exactly ``bits`` bits);
3. if [y in C_x] != b: y ^= lowbit(x + 1).  Toggling a bit of x + 1's support flips the parity of
   (x + 1) & y, a bijection between C_x and its complement, so y is uniform in C_x when b = 1
   and in the complement when b = 0.  The C form computes the parity by xor folding and the
   toggle with a mask: no branch on x, y or b.

The constant-time form reads exactly log2 K + bits bits.  The family: reference release, Numba
fleet kernel (``_kernels_hadamard_response.py``), C entry points ``fxdp_hadamard_response[_ct]``
(csrc/fxdp_mech_hadamard_response.c), device spec, the unbiased estimator through a fast Walsh-Hadamard
transform of the report histogram (O(K log K)) with its closed-form variance, the exact audit
(closed form, and by enumeration for small d).

Every input is an item index in [0, d); anything else is refused (ValueError, FXDP_ERR_PARAM in C):
unlike k-ary randomized response, Hadamard response has no "not an item" answer.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import exp_interval, float_up, log_up
from ...reports import AuditReport, Support, ratio_eps, reports_array
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, _p, u8, u32, u64
from .._oracle import ItemOracle
from ..base import CConfig, answers

MAX_DEVICE_D = 65535         # FXDP_HADAMARD_RESPONSE_MAX_D in csrc/fxdp.h (K <= 2^16, uint32 in and out)
MAX_D = (1 << 24) - 1        # simulation and the server's transform (K <= 2^24)
PMF_MAX_D = 4095             # output_pmf / output_distribution enumerate the K outputs
SRC_HADAMARD_RESPONSE = SRC_RNG + ["fxdp_bernoulli.c", "fxdp_mech_hadamard_response.c"]


def realize(epsilon, bits):
    """a_p over 2^bits: p = e^eps / (e^eps + 1) rounded down, so epsilon never grows."""
    lo, _ = exp_interval(epsilon)                          # lo <= e^eps
    return int(math.floor(Fraction(1 << bits) * lo / (lo + 1)))


def log2_k(d):
    """log2 of K, the smallest power of two > d."""
    return int(d).bit_length()


def in_c(x, y):
    """True iff y is in C_x: popcount((x + 1) & y) is even."""
    return bin((x + 1) & y).count("1") % 2 == 0


def fwht(a):
    """Walsh-Hadamard transform in Sylvester order, W[r] = sum_y (-1)^popcount(r & y) a[y]
    (len(a) a power of two; integers stay exact in int64)."""
    a = np.asarray(a)
    n = a.shape[0]
    if n & (n - 1):
        raise ValueError(f"fwht: the length must be a power of two, got {n}")
    h = 1
    while h < n:
        a = a.reshape(-1, 2, h)
        a = np.stack((a[:, 0] + a[:, 1], a[:, 0] - a[:, 1]), axis=1)
        h *= 2
    return a.reshape(n)


class HadamardResponse(ItemOracle):
    """Hadamard response over d items (see the module docstring)."""
    kind = "hadamard_response"
    report_dtype = "int64"         # decoded reports as simulate returns them
    MAX_D = MAX_D

    def __init__(self, d, epsilon, constant_time=False, bits=32):
        self._check_args(d, epsilon, bits, constant_time=constant_time)
        two_k = 1 << self.bits
        self.a_p = realize(self.epsilon_requested, self.bits)
        if not two_k // 2 < self.a_p < two_k:
            half = two_k // 2
            nearest = float_up(Fraction(log_up(Fraction(half + 1, half - 1))))
            raise ValueError(f"epsilon = {float(self.epsilon_requested)!r} is too small for bits = {self.bits}: "
                             f"p rounds to 1/2; the nearest valid epsilon is {nearest!r} (or use more bits)")
        self.log2k = log2_k(self.d)
        self.K = 1 << self.log2k
        self.p = Fraction(self.a_p, two_k)
        self._ratio = Fraction(self.a_p, two_k - self.a_p)
        self._eps = log_up(self._ratio)

    @property
    def output_domain(self):
        return f"AtomDomain(index in [0, {self.K}))"

    def realized(self):
        return {"p": self.p, "a_p": self.a_p, "bits": self.bits, "K": self.K, "log2_K": self.log2k,
                "epsilon": self._eps}

    @property
    def bits_per_report(self):
        return self.log2k

    # --- releases
    def release(self, src, x):
        """y (log2 K bits), then b (the Bernoulli(p) draw), then the toggle (module docstring)."""
        y = src.bits64(self.log2k)
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        b = sample(src, self.a_p, self.bits)
        u = x + 1
        if in_c(x, y) != bool(b):
            y ^= u & -u
        return int(y)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores): values are n item indices in [0, d); device i draws
        from the keyed stream (seed, device_ids[i], stream 0), bit-identical to the C library.
        Returns n int64 reports in [0, K); raises ValueError / EntropyError (nothing returned)."""
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_hadamard_response import fleet_hadamard_response
        out = np.zeros(x.shape[0], dtype=np.int64)
        fleet_hadamard_response(key, ids, first_block, np.uint64(self.a_p), np.uint64(self.bits),
                                np.uint64(self.log2k), bool(self.constant_time), x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    # --- estimation
    def counts_in_c(self, reports):
        """S_x = the number of reports in C_x for every item x, and n: one fast Walsh-Hadamard
        transform of the report histogram (W[r] = 2 S_(r-1) - n)."""
        y = reports_array(reports)
        if y.ndim != 1:
            raise ValueError(f"reports must be a 1-d array of indices in [0, {self.K})")
        if y.size and (y.min() < 0 or y.max() >= self.K):
            raise ValueError(f"reports must be indices in [0, {self.K}) (K = {self.K})")
        return self._counts_from_histogram(np.bincount(y.astype(np.int64), minlength=self.K))

    def _counts_from_histogram(self, hist):
        hist = np.asarray(hist, dtype=np.int64)
        n = int(hist.sum())
        w = fwht(hist)
        return (n + w[1:self.d + 1]) // 2, n

    def frequency_support(self, reports):
        """Support counts: S_x, the reports in C_x; p = P(y in C_x | x), q = 1/2 for any other item."""
        s, n = self.counts_in_c(reports)
        return Support(np.asarray(s, dtype=np.int64), int(n), self.p, Fraction(1, 2))

    def estimate(self, reports):
        """Unbiased item frequencies f_x = (S_x / n - 1/2) / (p - 1/2), S_x the reports in C_x.

        P(y in C_x) = p for a device holding x and 1/2 for any other (two distinct rows of a
        Hadamard matrix agree on half the columns), hence E[S_x / n] = 1/2 + f_x (p - 1/2).
        Var(f_x) = (f_x p(1-p) + (1 - f_x)/4) / (n (p - 1/2)^2) exactly (independent devices);
        the standard error plugs in f_x clipped to [0, 1]."""
        return self.frequency_support(reports).unbiased()

    def estimate_from_histogram(self, hist, s=None, n=None):
        """The estimate from the report histogram (hist[y] = reports equal to y), or from
        (S_x, n) when hist is None: estimate's formula."""
        if hist is not None:
            s, n = self._counts_from_histogram(hist)
        if n == 0:
            raise ValueError("reports: no reports to estimate from")
        return Support(np.asarray(s, dtype=np.int64), int(n), self.p, Fraction(1, 2)).unbiased()

    def report_statistic(self):
        """The report histogram (K counts): streaming estimation in O(K) memory."""
        from .._wire import Histogram
        return Histogram(self, self.report_layout(), self.estimate_from_histogram)

    def variance(self, f, n):
        """Closed-form variance of the frequency estimate of an item with true frequency f."""
        p = float(self.p)
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) / 4) / (n * (p - 0.5) ** 2)

    # --- device form
    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base); d <= FXDP_HADAMARD_RESPONSE_MAX_D = 65535."""
        if self.d > MAX_DEVICE_D:
            raise ValueError(f"d = {self.d}: the C device form holds at most FXDP_HADAMARD_RESPONSE_MAX_D = {MAX_DEVICE_D} items")
        ct = self.constant_time
        return {
            "c_function": "fxdp_hadamard_response_ct" if ct else "fxdp_hadamard_response",
            "cfg_type": "fxdp_hadamard_response_cfg",
            "cfg_init": _init([("a_p", u64(self.a_p)), ("d", u32(self.d)), ("log2k", u8(self.log2k)),
                               ("bits", u8(self.bits))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 1, "min": 0, "max": self.K - 1},
            "sources": list(SRC_HADAMARD_RESPONSE),
            "summary": (f"Hadamard response over d = {self.d} items, K = {self.K}: the report is uniform in "
                        f"C_x = {{y : popcount((x+1) & y) even}} w.p. p = {_p(self.p)}, else in its complement "
                        f"({self.log2k} bits per report); epsilon <= {self.epsilon!r}; "
                        + _ct_text(ct, self.log2k + self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        if self.d > MAX_DEVICE_D:
            raise ValueError(f"d = {self.d}: the C device form holds at most FXDP_HADAMARD_RESPONSE_MAX_D = {MAX_DEVICE_D} items")
        cfg = native.ffi.new("fxdp_hadamard_response_cfg *", {"a_p": self.a_p, "d": self.d, "log2k": self.log2k,
                                               "bits": self.bits})
        return CConfig(cfg, [], "fxdp_hadamard_response" + ("_ct" if self.constant_time else ""),
                       self.constant_time, "uint32_t", np.uint32)

    def release_output(self, out):
        return int(out[0])

    # --- audit and plots
    def exact_audit(self, d_in=1):
        """For x != x', rows x+1 and x'+1 differ, so some y lies in C_x and not in C_x': the worst
        ratio P(y|x) / P(y|x') is p / (1 - p), exactly."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": 0, "x_prime": 1, "output": "any y in C_0 outside C_1 (y = 2)",
                   "ratio": str(self._ratio), "p": str(self.p)}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method="exact (closed form: p / (1 - p))")

    def audit_pairs(self):
        return [(x, xp) for x in range(self.d) for xp in range(self.d) if x != xp]

    def output_pmf(self, x):
        """Exact pmf of the report (K outputs; d <= 4095)."""
        if self.d > PMF_MAX_D:
            raise ValueError(f"output_pmf enumerates the K = {self.K} reports: d <= {PMF_MAX_D}, got {self.d}")
        x = self.check_input(x)
        half = self.K // 2
        pin, pout = self.p / half, (1 - self.p) / half
        return {y: (pin if in_c(x, y) else pout) for y in range(self.K)}

    def output_distribution(self, x, x_prime):
        if self.d > PMF_MAX_D:
            raise ValueError(f"Hadamard response over d = {self.d} items: the exact distribution is "
                             f"enumerated only up to d = {PMF_MAX_D} (fxdp.audit gives the closed form)")
        return super().output_distribution(x, x_prime)


def _oracle_configs(epsilon, d, bits):
    """``oracle_configs`` (fxdp.mechanisms.base.answers)."""
    return [{"d": d, "epsilon": epsilon, "bits": bits}]


@answers(oracle_configs=_oracle_configs)
def make_hadamard_response(d, epsilon, constant_time=False, bits=32):
    """Hadamard response over d items (2 <= d; the C device form takes d <= 65535): epsilon in
    (0, 64], realized with a dyadic p = a_p / 2^bits rounded toward 1/2 so that the realized epsilon
    (``m.epsilon``) never exceeds the requested one; log2 K bits per report, K the smallest power of
    two above d."""
    return HadamardResponse(d, epsilon, constant_time, bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'hadamard_response': ('Acharya, Sun, Zhang 2019',
        '`d = 1000`, `epsilon = 2`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Hadamard response: one index of log2 K bits per release; d = 100 (K = 128) and d = 12 (K = 16).
    # The lazy case uses bits = 3 (p = 5/8): with 32 bits the lazy Bernoulli is decided within the
    # 32 - log2 K bits left in the first word almost always, so its instruction count is flat on the
    # host (its bit use still varies); at 3 bits the "U agrees with every digit" exit (probability
    # 1/8) is taken by some of the timed releases, and the check that the lazy form varies applies.
    'hadamard_response_ct': lambda: make_hadamard_response(100, 2, constant_time=True),
    'hadamard_response_lazy': lambda: make_hadamard_response(12, 1, bits=3),
}
EXPORT_VARIANTS: set[str] = set()
