"""Basic one-time RAPPOR (seed 002): every bit of a k-bit vector flips with probability f/2.

The whole family: reference release, Numba fleet kernel glue
(``_kernels_rappor.fleet_rappor``), C entry point (csrc/fxdp_mech_rappor.c), device
spec, the per-bit count estimator and the exact audit in product form.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import float_up, log_up
from ...reports import AuditReport, Estimate, ratio_eps, reports_array
from ...samplers import reference as ref
from ...validate import check_int, check_rational, given
from .._device import SRC_RAPPOR, _ct_text, _init, _p, u8, u32, u64
from ..base import CConfig, Mechanism, expect_kind

RAPPOR_MAX_K = 1024          # FXDP_RAPPOR_MAX_K in csrc/fxdp.h
PLOT_MAX_K = 10              # output_distribution enumerates up to 2^10 bit vectors


class Rappor(Mechanism):
    """Input: exactly k bits with at most m ones.  Each output bit is x_i XOR
    Bernoulli(a/2^bits) with a/2^bits = f/2 rounded *up* (more flipping, so
    epsilon never grows); realized f = a/2^(bits-1).  epsilon = 2m ln((2-f)/f).

    The output always has exactly k bits, whatever the input (opendp#2930
    let the output length follow the input's).  Device form: bits drawn for
    i = 0..k-1 in order, one Bernoulli each.
    """
    kind = "rappor"
    input_metric = "DiscreteDistance"

    def __init__(self, f, m, k, constant_time=False, bits=32):
        self.f = check_rational("f", f, 0, 1, lo_open=True)
        self.m = check_int("m", m, 1, 1 << 16)
        self.k = check_int("k", k, 1, 1 << 16)
        if self.m > self.k:
            raise ValueError(f"m must be in [1, k] = [1, {self.k}], got {self.m}")
        self.bits = check_int("bits", bits, 1, 63)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        self.constant_time, self._f_arg = constant_time, given(f)
        two_k = 1 << self.bits
        self.a = -((-self.f * two_k) // 2)           # ceil(f/2 * 2^bits)
        self.a = min(self.a, two_k // 2)
        self.flip_prob = Fraction(self.a, two_k)
        self.f_realized = 2 * self.flip_prob
        if self.a == two_k // 2:
            self._eps = 0.0
        else:
            self._eps = float_up(Fraction(log_up(Fraction(two_k - self.a, self.a))) * 2 * self.m)

    @property
    def input_domain(self):
        return f"VectorDomain(AtomDomain(bool), size={self.k}, ones<={self.m})"

    @property
    def output_domain(self):
        return f"VectorDomain(AtomDomain(bool), size={self.k})"

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self._eps

    def config(self):
        return {"f": self._f_arg, "m": self.m, "k": self.k,
                "constant_time": self.constant_time, "bits": self.bits}

    def realized(self):
        return {"f": self.f_realized, "flip_prob": self.flip_prob, "a": self.a, "k_bits": self.bits}

    def check_input(self, x):
        try:
            bits = [int(v) for v in x]
        except (TypeError, ValueError):
            raise ValueError(f"x must be a sequence of {self.k} bits (0/1 or bool)") from None
        if len(bits) != self.k:
            raise ValueError(f"x must have exactly k = {self.k} bits, got {len(bits)}")
        if any(b not in (0, 1) for b in bits):
            raise ValueError("x must contain only 0/1 or bool values")
        if sum(bits) > self.m:
            raise ValueError(f"x must have at most m = {self.m} ones, got {sum(bits)}")
        return bits

    def release(self, src, x):
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return [b ^ int(sample(src, self.a, self.bits)) for b in x]

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores, GIL released): values is an n x k 0/1 matrix,
        each row with at most m ones; device i draws its k flips from the keyed stream
        (seed, device_ids[i], stream 0), bit-identical to the C library.  Returns an
        n x k uint8 matrix; raises ValueError / EntropyError (nothing returned)."""
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def fleet_inputs(self, values):
        from .._fleet import bits_array
        x = bits_array("values", values, 2)
        if x.shape[1] != self.k:
            raise ValueError(f"values must be an n x k = n x {self.k} bit matrix (exactly k bits per "
                             f"device), got shape {x.shape}")
        if x.shape[0]:
            ones = x.sum(axis=1, dtype=np.int64)
            if int(ones.max()) > self.m:
                i = int(np.argmax(ones))
                raise ValueError(f"values: every row must have at most m = {self.m} ones, row {i} has "
                                 f"{int(ones[i])}")
        return x

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ...samplers._nb_run import dyadic_run_table
        from ._kernels_rappor import fleet_rappor
        out = np.zeros((x.shape[0], self.k), dtype=np.uint8)
        fleet_rappor(key, ids, first_block, np.uint64(self.a), np.uint64(self.bits), bool(self.constant_time),
                     x, out, status, bits, dyadic_run_table(self.a, self.bits))
        return out

    # --- estimation
    def estimate(self, reports):
        """Unbiased per-bit counts N_i from basic RAPPOR reports (an n x k 0/1 matrix).

        Seed 002: N_i = (Y_i - n f/2) / (1 - f).  Each Y_i is a sum of n Bernoullis
        of variance q(1 - q) (q = f/2, the same whether the bit was set or not), so
        Var(N_i) = n q (1 - q) / (1 - f)^2 exactly, and the expected squared error
        summed over bits is k n (f/2 - f^2/4) / (1 - f)^2.  (Seed 002's Theorem 2.5
        states k n (f/2 - f^2/4), which is the error of Y, not of N: it omits the
        1/(1 - f)^2 of the debiasing.  tests/test_estimators.py measures both.)
        """
        f = float(self.f_realized)
        if f >= 1:
            raise ValueError("f = 1 makes every bit a fair coin: nothing to estimate")
        y = reports_array(reports)
        if y.ndim != 2 or y.shape[1] != self.k:
            raise ValueError(f"reports must be an n x {self.k} matrix of bits")
        return self.estimate_from_sums(y.sum(axis=0), y.shape[0])

    def estimate_from_sums(self, sums, n):
        """The estimate from n and Y_i, the number of reports with bit i set (estimate's formula)."""
        f = float(self.f_realized)
        if f >= 1:
            raise ValueError("f = 1 makes every bit a fair coin: nothing to estimate")
        counts = np.asarray(sums, dtype=np.int64).astype(np.float64)
        est = (counts - n * f / 2) / (1 - f)
        se = np.full(self.k, rappor_stderr(f, n))
        return Estimate("count", est, se)

    def report_statistic(self):
        """Per-bit sums and n (streaming estimation in O(k) memory)."""
        from .._wire import ColumnSums
        return ColumnSums(self, self.report_layout(), self.estimate_from_sums)

    def synthetic_population(self, devices, seed):
        rng = np.random.default_rng([seed, 0x5EED])
        values = np.zeros((devices, self.k), dtype=np.uint8)
        ones = rng.integers(0, self.m + 1, size=devices)
        popular = rng.random(self.k) ** 2                      # some bits far more common than others
        for j in range(self.m):
            cols = rng.choice(self.k, size=devices, p=popular / popular.sum())
            values[np.arange(devices)[ones > j], cols[ones > j]] = 1
        return values, self.true_statistic(values)

    def true_statistic(self, values):
        """The number of devices holding each bit."""
        return self.fleet_inputs(values).sum(axis=0).astype(np.float64)

    # --- device form
    def device_spec(self, dim=None):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base);
        k must be at most FXDP_RAPPOR_MAX_K (1024)."""
        ct = self.constant_time
        if self.k > RAPPOR_MAX_K:
            raise ValueError(f"k = {self.k}: the C device form holds at most FXDP_RAPPOR_MAX_K = {RAPPOR_MAX_K} "
                             "bits per report")
        return {
            "c_function": "fxdp_rappor_ct" if ct else "fxdp_rappor",
            "cfg_type": "fxdp_rappor_cfg",
            "cfg_init": _init([("a", u64(self.a)), ("bits", u8(self.bits)), ("k", u32(self.k)),
                               ("m", u32(self.m))]),
            "tables": [],
            "input": {"ctype": "uint8_t", "count": self.k},
            "output": {"ctype": "uint8_t", "count": self.k, "min": 0, "max": 1},
            "sources": list(SRC_RAPPOR),
            "in_place": True,       # drawn into out, zeroed on an entropy failure
            "summary": (f"basic RAPPOR: {self.k} input bits (0/1 bytes, at most m = {self.m} ones), each flipped "
                        f"w.p. f/2 = a/2^{self.bits} = {_p(self.flip_prob)} (f = {_p(self.f_realized)}); "
                        f"epsilon <= {self.epsilon!r}; " + _ct_text(ct, self.k * self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_rappor_cfg *", {"a": self.a, "bits": self.bits, "k": self.k, "m": self.m})
        return CConfig(cfg, [], "fxdp_rappor" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint8_t", np.uint8)

    def release_output(self, out):
        return [int(v) for v in out]

    def harness_inputs(self):
        return {"kind": "bits", "ones": self.m, "sim_dtype": "uint8", "sim_flat": False}

    # --- audit and plots
    def exact_audit(self, d_in=1):
        """Outputs factor over bits, so P(y|x)/P(y|x') = r^(#bits where x, x' differ and
        y matches x) * r^-(... y matches x'), r = (1-q)/q: the max over y is r^|x xor x'|,
        and the max over the input domain (k bits, at most m ones) is |x xor x'| = min(2m, k)."""
        if d_in != 1:
            return super().exact_audit(d_in)
        q = self.flip_prob
        r = (1 - q) / q
        other = min(self.m, self.k - self.m)
        x = [1] * self.m + [0] * (self.k - self.m)
        xp = [0] * self.m + [1] * other + [0] * (self.k - self.m - other)
        d = self.m + other                                  # = min(2m, k)
        # ln(r^d) rounded up: exactly via the rational power when small, else d * log_up(r) rounded up
        eps = ratio_eps(r ** d) if d <= 64 else float_up(Fraction(log_up(r)) * d)
        witness = {"x": x, "x_prime": xp, "output": x, "p": f"P(y|x') * ((1-q)/q)^{d}", "q": str(q)}
        return AuditReport(repr(self), self.epsilon, eps, witness, method="exact (bitwise product form)")

    def output_distribution(self, x, x_prime):
        from ..distribution import exact_dist, exact_from_pmfs
        if self.k > PLOT_MAX_K:
            raise ValueError(f"basic RAPPOR with k = {self.k} bits has 2^{self.k} outputs: the exact distribution "
                             f"is enumerated only up to k = {PLOT_MAX_K} (the loss factors over bits: "
                             "fxdp.audit gives the worst case in product form)")
        x, xp = self.check_input(x), self.check_input(x_prime)
        outs = [tuple((j >> i) & 1 for i in range(self.k)) for j in range(1 << self.k)]

        def pmf(v):
            res = {}
            for y in outs:
                pr = Fraction(1)
                for xi, yi in zip(v, y):
                    b1 = self.bit_pmf(xi)
                    pr *= b1 if yi else 1 - b1
                res[y] = pr
            return res
        _, num, nump, den = exact_from_pmfs(pmf(x), pmf(xp), order=outs)
        labels = ["".join(map(str, y)) for y in outs]
        d_in = int(x != xp)
        return exact_dist(repr(self), x, xp, labels, num, nump, den, list(range(len(outs))), False,
                          d_in=d_in, epsilon_claimed=self.privacy_map(d_in),
                          note="outputs: bit vectors y_0 y_1 ... y_(k-1)")

    def bit_pmf(self, xi):
        """P(y_i = 1 | x_i)."""
        return 1 - self.flip_prob if xi else self.flip_prob


def rappor_counts(reports, mechanism):
    """Unbiased per-bit counts N_i from basic RAPPOR reports (an n x k 0/1 matrix)."""
    return expect_kind(mechanism, ("rappor",), "rappor_counts").estimate(reports)


def rappor_stderr(f, n):
    """Standard error of one debiased RAPPOR bit count over n reports (realized f)."""
    q = f / 2
    return math.sqrt(n * q * (1 - q)) / (1 - f)


def make_rappor(f, m, k, constant_time=False, bits=32):
    """Basic RAPPOR: f in (0, 1], at most m ones among exactly k input bits."""
    return Rappor(f, m, k, constant_time, bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'rappor': ('Erlingsson, Pihur, Korolova 2014 (basic one-time)',
        '`f = 0.5`, `m = 1`, `k = 64`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    'rappor_ct': lambda: make_rappor(0.5, 2, 8, constant_time=True),
    'rappor_lazy': lambda: make_rappor(0.5, 2, 8),
}
EXPORT_VARIANTS: set[str] = set()
