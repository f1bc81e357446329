"""HaarHRR (Cormode, Kulkarni and Srivastava, "Answering Range Queries Under Local Differential
Privacy", VLDB 2019): the Haar wavelet coefficients of a reading's one-hot leaf vector, one level
per device, one coefficient through Hadamard randomized response; range counts and quantiles with
exact standard errors; the registered kind ``haar_hrr`` (issue 35).

The leaves are the hierarchical histogram's (``_reading``): 2^h intervals of the grid over [lo, hi],
h = bits.  The Haar coefficient of node v at level l (0 <= l < h, 2^l nodes, node of leaf x:
x >> (h - l)) is c_l[v] = F(left half of v) - F(right half of v), F the share of devices under a
node; a device's own vector at level l is +1 at its node if its leaf is in the left half, -1 if in
the right, 0 elsewhere.  The leaves follow from the coefficients top-down: F(root) = 1,
F(left) = (F(v) + c) / 2, F(right) = (F(v) - c) / 2, so every estimate below is consistent (the
leaves sum to 1) by construction.

The release (the bits, in order).
1. l = uniform_below(h) (``uniform_below_ct`` in the constant-time form): the level.
2. j, a Hadamard row of the level's 2^l coefficients: l bits (uniform_below(2^l)); the
   constant-time form reads h - 1 bits and keeps the low l (the same bits for every level).
3. The signed coefficient's bit, truth = parity(j & node) ^ sign (sign 1 for the right half:
   H[j, node] times the device's +-1, as a bit), through binary randomized response: keep =
   bernoulli_dyadic(a_p, prob_bits) (``bernoulli_dyadic_ct``), b = truth if keep else 1 - truth.
The report is (l, j, b): ceil(log2 h) + l + 1 bits.

Privacy.  l and j do not depend on the reading; given them the bit is binary randomized response
of a bit of the reading, so the worst ratio is p / (1 - p) = a_p / (2^k - a_p), p = e^eps / (e^eps
+ 1) rounded down (toward 1/2: ``realize_p``), over every pair of readings: ``epsilon`` is
ln(a_p / (2^k - a_p)) rounded up, never above the request.  ``exact_audit`` exhibits it (grid
indices 0 and 2^h at level 0, whose signs differ).

The server.  At level l, with S[j] the sum over its n_l reports with row j of (1 - 2 b), the
estimate c^_l = FWHT(S) / (n_l (2 p - 1)) is unbiased for the population's coefficients (a device's
level and row are uniform).  A range's share is (its leaves) / 2^h plus a_l . c_l summed over the
levels, a_l[v] = (range leaves in v's left half - those in its right half) / 2^(h - l), nonzero
only where the range ends inside v; so its variance is exact per level (the reports of a level are
independent given the readings, and y = (1 - 2b) / (2p - 1) is +-1/(2p - 1)):
Var(a . c^_l) = (sum a^2 / (2p - 1)^2 - sum_v a_v^2 F_l(v)) / n_l + (sum_v a_v^2 F_l(v) - (a . c_l)^2)
(1 / n_l - 1 / n), the second term the group's sampling (F_l, c_l plugged in from the estimate).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import log_up
from ...reports import AuditReport, Estimate, reports_array
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, u8, u64
from ..base import CConfig, answers
from ..readings._numeric import MAX_PROB_BITS, check_bits, realize_p
from ._reading import RangeReading

MAX_BITS = 16                      # 2^16 leaves (the row j < 2^15 is one uint32 on the device)
SRC_HAAR_HRR = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_haar_hrr.c"]


def fwht(a):
    """The (unnormalized) Walsh-Hadamard transform along the last axis (a power-of-two length):
    out[..., u] = sum_j (-1)^popcount(u & j) a[..., j]."""
    a = np.array(a, dtype=np.float64)
    m = a.shape[-1]
    h = 1
    while h < m:
        a = a.reshape(a.shape[:-1] + (m // (2 * h), 2, h))
        x, y = a[..., 0, :].copy(), a[..., 1, :].copy()
        a[..., 0, :], a[..., 1, :] = x + y, x - y
        a = a.reshape(a.shape[:-3] + (m,))
        h *= 2
    return a


class HaarHRR(RangeReading):
    """HaarHRR of a reading (see the module docstring)."""
    kind = "haar_hrr"

    def __init__(self, lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
        self._check_args(lo, hi, epsilon, check_bits("bits", bits, 1, MAX_BITS), constant_time, prob_bits)
        self.levels = self.bits
        self.a_p = realize_p(self.epsilon_requested, self.prob_bits)
        two_k = 1 << self.prob_bits
        self.p = Fraction(self.a_p, two_k)
        self._ratio = Fraction(self.a_p, two_k - self.a_p)
        self._eps = log_up(self._ratio)

    # --- description
    @property
    def output_domain(self):
        return f"(level l in [0, {self.levels}), Hadamard row j in [0, 2^l), bit b)"

    @property
    def bits_per_report(self):
        return max(1, (self.levels - 1).bit_length()) + (self.levels - 1) + 1

    def realized(self):
        return {"epsilon": self._eps, "levels": self.levels, "p": self.p, "a_p": self.a_p,
                "prob_bits": self.prob_bits}

    # --- the release
    def release(self, src, x):
        """(l, j, b) for grid index x (module docstring)."""
        h = self.levels
        ct = self.constant_time
        l = ref.uniform_below_ct(src, h) if ct else ref.uniform_below(src, h)
        j = src.bits(h - 1) & ((1 << l) - 1) if ct else src.bits(l)
        truth = self._truth(l, j, x)
        keep = (ref.bernoulli_dyadic_ct if ct else ref.bernoulli_dyadic)(src, self.a_p, self.prob_bits)
        return (int(l), int(j), int(truth if keep else truth ^ 1))

    def _truth(self, l, j, x):
        """The signed coefficient's bit at level l, row j, for grid index x: parity(j & node) ^ sign."""
        leaf = min(int(x), self.N - 1)
        h = self.levels
        return (bin(j & (leaf >> (h - l))).count("1") & 1) ^ ((leaf >> (h - l - 1)) & 1)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_haar_hrr import fleet_haar_hrr
        out = np.zeros((x.shape[0], 3), np.int64)
        fleet_haar_hrr(key, ids, first_block, np.uint64(self.levels), np.uint64(self.a_p), np.uint64(self.prob_bits),
                       bool(self.constant_time), np.int64(self.N), x, out, status, bits)
        return out

    def report_fields(self):
        from .._wire import ReportField
        return [ReportField("l", 1, 0, self.levels - 1), ReportField("j", 1, 0, (1 << (self.levels - 1)) - 1),
                ReportField("b", 1, 0, 1)]

    # --- the device form (csrc/fxdp_mech_haar_hrr.c)
    def device_spec(self, dim=None):
        """The C device form: grid index in, (l, j, b) out (keys: fxdp.mechanisms.base)."""
        ct = self.constant_time
        return {
            "c_function": "fxdp_haar_hrr" + ("_ct" if ct else ""),
            "cfg_type": "fxdp_haar_hrr_cfg",
            "cfg_init": _init([("a_p", u64(self.a_p)), ("prob_bits", u8(self.prob_bits)), ("bits", u8(self.bits))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1, "meaning": f"the grid index in [0, {self.N}]"},
            "output": {"ctype": "uint32_t", "count": 3, "meaning": "(level l, Hadamard row j, bit b)"},
            "sources": list(SRC_HAAR_HRR),
            "summary": (f"HaarHRR on [{self.lo}, {self.hi}], 2^{self.bits} leaves: one of {self.levels} Haar levels, "
                        f"a Hadamard row, the signed coefficient's bit kept w.p. {self.a_p}/2^{self.prob_bits}; "
                        f"epsilon <= {self.epsilon!r}; "
                        + (f"constant time in the reading: 4 rounds of 32 bits, then exactly "
                           f"{self.levels - 1 + self.prob_bits} random bits unless the level's budget runs out"
                           if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_haar_hrr_cfg *", {"a_p": self.a_p, "prob_bits": self.prob_bits, "bits": self.bits})
        return CConfig(cfg, [], "fxdp_haar_hrr" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32, out_ctype="uint32_t", out_dtype=np.uint32, out_count=3)

    # --- the exact audit
    def report_pmf(self, report, i):
        """P(report | grid index i), exactly."""
        l, j, b = (int(c) for c in report)
        h = self.levels
        if not (0 <= l < h and 0 <= j < (1 << l) and b in (0, 1)):
            return Fraction(0)
        truth = self._truth(l, j, i)
        return Fraction(1, h << l) * (self.p if b == truth else 1 - self.p)

    def output_pmf(self, x):
        """The exact report distribution of grid index x (every level, row and bit)."""
        x = self.check_release_input(x)
        return {(l, j, b): self.report_pmf((l, j, b), x) for l in range(self.levels) for j in range(1 << l)
                for b in (0, 1)}

    def exact_audit(self, d_in=1):
        """Closed form: binary randomized response's p / (1 - p), reached at level 0 by grid indices 0
        and 2^h (left and right halves of the root) for the report (0, 0, 0)."""
        if d_in == 0:
            return AuditReport(repr(self), 0.0, 0.0, {}, "closed form (level and row uniform, then binary RR)",
                               d_in=0)
        report = (0, 0, 0)
        ratio = self.report_pmf(report, 0) / self.report_pmf(report, self.N)
        return AuditReport(repr(self), self._eps, log_up(ratio),
                           {"x": 0, "x_prime": self.N, "report": list(report), "ratio": str(ratio)},
                           "closed form (level and row uniform, then binary RR)", d_in=d_in)

    # --- the server
    def count_shapes(self):
        return [(1 << l, 2) for l in range(self.levels)]

    def level_counts(self, reports):
        """Per level: (counts[j, b] of its reports, n_l).  A report out of range (a corrupted file) is
        a ValueError naming it, never a silent estimate."""
        r = reports_array(reports)
        if r.ndim != 2 or r.shape[1] != 3 or r.shape[0] == 0 or r.dtype.kind not in "ui":
            raise ValueError("reports must be an n x 3 integer array of (l, j, b), n >= 1")
        r = r.astype(np.int64)
        l, j, b = r[:, 0], r[:, 1], r[:, 2]
        bad = (l < 0) | (l >= self.levels) | (b < 0) | (b > 1) | (j < 0)
        bad |= ~bad & (j >= (np.int64(1) << np.clip(l, 0, 62)))
        if bad.any():
            raise ValueError(f"reports: (l, j, b) must have l in [0, {self.levels}), j in [0, 2^l), b in {{0, 1}}, "
                             f"got {r[bad][0].tolist()}")
        out = []
        for k in range(self.levels):
            sel = l == k
            c = np.bincount(j[sel] * 2 + b[sel], minlength=2 << k).reshape(1 << k, 2).astype(np.int64)
            out.append((c, int(sel.sum())))
        return out

    def coefficients(self, counts):
        """Per level, the unbiased coefficient estimates c^_l = FWHT(S) / (n_l (2p - 1)) (zeros for
        a level with no reports)."""
        q = 2 * float(self.p) - 1
        out = []
        for c, n_l in counts:
            s = (c[:, 0] - c[:, 1]).astype(np.float64)          # sum of (1 - 2b) per row j
            out.append(fwht(s) / (n_l * q) if n_l else np.zeros(c.shape[0]))
        return out

    def _node_shares(self, coeffs):
        """F_l for every level (the shares under each node, from the coefficients) and the leaves."""
        shares = [np.ones(1)]
        for c in coeffs:
            f = shares[-1]
            shares.append(np.stack([(f + c) / 2, (f - c) / 2], axis=-1).reshape(-1))
        return shares

    def fit_leaves(self, counts):
        """(the leaf shares, (coefficients, node shares per level))."""
        if all(n_l == 0 for _, n_l in counts):
            raise ValueError("reports: no reports to estimate from")
        coeffs = self.coefficients(counts)
        shares = self._node_shares(coeffs)
        return shares[-1], (coeffs, shares)

    def _weights(self, lo, hi):
        """Per level, [Q, 2^l] arrays a_l: the range's leaves in each node's left half minus those in
        its right half, over 2^(h - l) (module docstring), for ranges lo..hi (arrays)."""
        h = self.levels
        lo, hi = np.atleast_1d(lo).astype(np.int64), np.atleast_1d(hi).astype(np.int64)
        out = []
        for l in range(h):
            span = 1 << (h - l)
            half = span >> 1
            nodes = np.arange(1 << l, dtype=np.int64)
            start = nodes * span

            def inside(a, b):      # leaves of [a, b) within [lo, hi]
                return np.clip(np.minimum(b[None, :], hi[:, None] + 1) - np.maximum(a[None, :], lo[:, None]), 0, None)

            left = inside(start, start + half)
            right = inside(start + half, start + span)
            out.append((left - right) / span)
        return out

    def uniform_state(self, n):
        """(counts, state) of n devices split evenly over the levels, readings uniform over the
        leaves (``range_variance``)."""
        counts = [(np.zeros(shape, np.int64), max(1, n // self.levels)) for shape in self.count_shapes()]
        return counts, ([np.zeros(1 << l) for l in range(self.levels)],
                        [np.full(1 << l, 1.0 / (1 << l)) for l in range(self.levels + 1)])

    def leaf_range_stderr(self, counts, state, lo, hi):
        coeffs, shares = state
        n = sum(n_l for _, n_l in counts)
        q2 = (2 * float(self.p) - 1) ** 2
        var = np.zeros(np.atleast_1d(lo).shape[0])
        for l, a in enumerate(self._weights(lo, hi)):
            n_l = counts[l][1]
            if n_l == 0:
                var += np.where(np.any(a != 0, axis=-1), math.inf, 0.0)
                continue
            f = np.clip(shares[l], 0.0, 1.0)
            a2f = (a * a) @ f
            ac = a @ coeffs[l]
            var += ((a * a).sum(axis=-1) / q2 - a2f) / n_l + (a2f - ac * ac) * (1.0 / n_l - 1.0 / n)
        return np.sqrt(np.maximum(var, 0.0))

    def range_from_counts(self, counts, a, b):
        lo_leaf, hi_leaf = self.leaf_range(a, b)
        leaves, state = self.fit_leaves(counts)
        value = float(leaves[lo_leaf: hi_leaf + 1].sum())
        se = float(self.leaf_range_stderr(counts, state, np.array([lo_leaf]), np.array([hi_leaf]))[0])
        return Estimate("range", value, se)


def _range_configs(lo, hi, epsilon, bits):
    """``range_configs`` (fxdp.mechanisms.base.answers): one configuration, lazy."""
    return [{"lo": lo, "hi": hi, "epsilon": epsilon, "bits": bits}]


@answers(range_configs=_range_configs)
def make_haar_hrr(lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS):
    """HaarHRR of a reading in [lo, hi] (lo < hi) on a grid of 2^bits leaves (1 <= bits <= 16): one
    Haar level per device, one Hadamard row of it, the signed coefficient's bit by binary randomized
    response at epsilon in (0, 64] (p = a_p / 2^prob_bits rounded toward 1/2).  Ranges
    (``m.estimate_range``) and quantiles (``m.estimate_quantiles``) with exact standard errors."""
    return HaarHRR(lo, hi, epsilon, bits, constant_time, prob_bits)


README_ROWS = {
    'haar_hrr': ('Cormode, Kulkarni, Srivastava 2019 (HaarHRR)',
        '`lo = 0`, `hi = 80`, `epsilon = 1`, `bits = 8` (readings in [lo, hi]; ranges and quantiles)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # CT: 4 rounds of uniform_below_ct, then 7 + 32 bits.  Lazy at bits = 6: uniform_below(6) retries
    # w.p. 1/4, so its time varies (at bits = 8 the lazy release's instruction count is the same for every
    # draw on the host and the 32-bit ARM and RISC-V targets: nothing in it branches on the stream).
    'haar_hrr_ct': lambda: make_haar_hrr(0, 80, 1, bits=8, constant_time=True),
    'haar_hrr_lazy': lambda: make_haar_hrr(0, 80, 1, bits=6),
}
EXPORT_VARIANTS: set[str] = set()

__all__ = ["HaarHRR", "make_haar_hrr"]
