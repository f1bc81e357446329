"""The hierarchical histogram (Cormode, Kulkarni and Srivastava, "Answering Range Queries Under
Local Differential Privacy", VLDB 2019) of a bounded reading: range counts and quantiles with
standard errors; the registered kind ``hierarchical_histogram`` (issue 35): the reference release,
its privacy map and exact audit, the Numba fleet (``_kernels_hierarchical_histogram.py``), the wire
codec and the server's estimators (constrained inference and quantiles: ``_ranges.py``).

The grid and the leaves.  A reading lies in [lo, hi], on the numeric-reading family's grid
(fxdp.mechanisms.readings._numeric): the device holds its grid index i in [0, N], N = 2^bits (the
reading lo + i (hi - lo) / N).  The histogram's N leaves are the grid's intervals: leaf j holds the
readings in [lo + j step, lo + (j + 1) step), the last one also hi, so a device's leaf is
min(i, N - 1).  A host reading maps to the index of the interval holding it, floor((x - lo) N /
(hi - lo)) clamped to [0, N] (``bin_indices``), not to the nearest level and not by the family's
randomized rounding: a leaf is a bin, and a reading belongs to exactly one.

The tree.  branching B = 2^b (a power of two, so a node is a shift of the leaf: no division on
the device); h = ceil(bits / b) levels; level t (0 <= t < h) has d_t = 2^min(bits, (t + 1) b)
nodes, and the leaf's node at level t is leaf >> (bits - log2 d_t).  The root (every device) is
not reported: its share is 1.

The release (the bits, in order).
1. t = uniform_below(h) (``uniform_below_ct`` in the constant-time form): the level, independent
   of the reading.
2. The level's node through the level's frequency oracle at the full epsilon:
   * k-ary randomized response over the d_t nodes (fxdp.mechanisms.oracles.randomized_response, its
     lazy form: uniform_below(d_t - 1), then bernoulli_dyadic(w0, k)), report (t, y, 0, 0); or
   * local hashing (OLH, fxdp.mechanisms.oracles.local_hashing: the seed a, b, then its response),
     over the d_t nodes, report (t, a, b, y).
   ``oracle="auto"`` takes, per level, whichever has the smaller closed-form variance at the
   realized parameters (k-ary RR at the top levels, while d_t < about 3 e^eps + 2; OLH below);
   "krr" or "olh" take one for every level.  OUE, whose variance OLH matches within its integer g,
   is not offered: its report is d_t bits, up to 2^bits.
   The constant-time form is local hashing at every level, drawn from one config over N items: its
   constant-time release reads the same bits and runs the same instructions whatever the item
   and however many nodes the level has, while k-ary RR's constant-time table scan grows with d_t,
   which would reveal the level's size, and so the level, through the time.

Privacy.  The level does not depend on the reading, so two readings' report probabilities differ
only by the level's oracle: epsilon = the largest of the levels' realized epsilons, each at most
the request (each oracle rounds toward more noise), over every pair of readings (the local epsilon).
``exact_audit`` exhibits the level, two readings and a report that reach it.

The server.  ``level_estimates``: each level's node shares from its n_t reports (k-ary RR's or
local hashing's unbiased estimator); they estimate the population's shares (a device's level is
uniform), with the variance of the oracle plus that of the group being a random sample.
``estimate_range(reports, a, b)``: the share of devices whose reading's leaf lies in [leaf(a),
leaf(b)], consistent (constrained inference, default) or unbiased (the sum of the fewest nodes
covering it).  ``estimate_quantiles(reports, probs)``: the quantiles in the reading's units with
95 % intervals.  ``estimate(reports)``: the quantiles p50, p90, p95, p99.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import exp_interval, log_up
from ...reports import AuditReport, Estimate, reports_array
from ...samplers import reference as ref
from ...validate import check_int
from .._device import SRC_RNG, _ct_text, _init, u8, u32, u64
from ..base import CConfig, answers
from ..oracles.local_hashing import LocalHashing
from ..oracles.randomized_response import RandomizedResponse
from ..readings._numeric import MAX_PROB_BITS, check_bits
from . import _ranges
from ._reading import RangeReading, bin_positions

MAX_BITS = 16                      # 2^16 leaves: local hashing's server scores every node of a level
MAX_KRR_NODES = 1 << 16            # k-ary RR levels: at most 2^16 categories
ORACLES = ("auto", "krr", "olh")
SRC_HIERARCHICAL_HISTOGRAM = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_local_hashing.c",
                                        "fxdp_mech_hierarchical_histogram.c"]


class HierarchicalHistogram(RangeReading):
    """The hierarchical histogram of a reading (see the module docstring)."""
    kind = "hierarchical_histogram"

    def __init__(self, lo, hi, epsilon, branching=4, bits=12, oracle="auto", constant_time=False,
                 prob_bits=MAX_PROB_BITS):
        self._check_args(lo, hi, epsilon, check_bits("bits", bits, 1, MAX_BITS), constant_time, prob_bits)
        b = check_int("branching", branching, 2, 1 << 16)
        if b & (b - 1):
            lower = 1 << (b.bit_length() - 1)
            raise ValueError(f"branching must be a power of two in [2, 65536] (a node is a shift of the leaf on the "
                             f"device), got {b}; the nearest valid values are {lower} and {2 * lower}")
        if oracle not in ORACLES:
            raise ValueError(f"oracle must be one of {', '.join(map(repr, ORACLES))}, got {oracle!r}")
        if constant_time and oracle == "krr":
            raise ValueError("oracle = 'krr' has no constant-time form here: k-ary RR's constant-time scan grows "
                             "with the level's size and would reveal the level; use oracle = 'olh' or 'auto' "
                             "(local hashing at every level)")
        self.branching, self.log2_branching, self.oracle = b, b.bit_length() - 1, oracle
        self._args.update({"branching": b, "oracle": oracle})
        self.levels = -(-self.bits // self.log2_branching)
        self.sizes = [1 << min(self.bits, (t + 1) * self.log2_branching) for t in range(self.levels)]
        self.shifts = [self.bits - s.bit_length() + 1 for s in self.sizes]
        eps = self.epsilon_requested
        try:
            self.lh = LocalHashing(self.N, eps, True, constant_time, self.prob_bits)
            lh_error = None
        except ValueError as e:                  # epsilon past local hashing's g <= 2^16: k-ary RR only
            self.lh, lh_error = None, e
        self.rr = []
        if not constant_time and oracle != "olh":
            lo_e, _ = exp_interval(eps)
            for t, d in enumerate(self.sizes):
                if d > MAX_KRR_NODES:
                    break
                try:
                    rr = RandomizedResponse(range(d), Fraction(lo_e) / (lo_e + d - 1), False, min(self.prob_bits, 32))
                except ValueError as e:
                    if oracle == "krr":
                        raise ValueError(f"oracle = 'krr': level {t} ({d} nodes) cannot be realized: {e}") from None
                    break
                if oracle == "auto" and self.lh is not None \
                        and float(rr.variance(0.0, 1)) >= float(self.lh.variance(0.0, 1)):
                    break
                self.rr.append(rr)
        if oracle == "krr" and len(self.rr) < self.levels:
            raise ValueError(f"oracle = 'krr': level {len(self.rr)} has {self.sizes[len(self.rr)]} nodes, more than "
                             f"k-ary RR's {MAX_KRR_NODES}")
        if len(self.rr) < self.levels and self.lh is None:
            raise ValueError(f"epsilon = {float(eps)!r}: level {len(self.rr)} ({self.sizes[len(self.rr)]} nodes) "
                             f"needs local hashing, which cannot realize it: {lh_error}")
        self.krr_levels = len(self.rr)
        self._ratio = max([Fraction(r.w0, r.w) for r in self.rr]
                          + ([self.lh._ratio] if self.krr_levels < self.levels else []))
        self._eps = log_up(self._ratio)

    # --- description
    @property
    def output_domain(self):
        return (f"(level t in [0, {self.levels}), then k-ary RR's (y, 0, 0) for t < {self.krr_levels} or local "
                f"hashing's (a, b, y))")

    @property
    def bits_per_report(self):
        rr = [max(1, (d - 1).bit_length()) for d in self.sizes[: self.krr_levels]]
        lh = [self.lh.bits_per_report] if self.krr_levels < self.levels else []
        return max(1, (self.levels - 1).bit_length()) + max(rr + lh)

    def level_oracle(self, t):
        """"krr" or "olh": the oracle of level t."""
        return "krr" if t < self.krr_levels else "olh"

    def realized(self):
        return {"epsilon": self._eps, "levels": self.levels, "nodes": list(self.sizes),
                "oracles": [self.level_oracle(t) for t in range(self.levels)],
                "krr": [r.realized() for r in self.rr],
                "olh": self.lh.realized() if self.krr_levels < self.levels else None}

    # --- the release
    def release(self, src, x):
        """(t, u, v, y) for grid index x: the level, then its oracle's report of the level's node
        ((y, 0, 0) from k-ary RR, (a, b, y) from local hashing)."""
        t = ref.uniform_below_ct(src, self.levels) if self.constant_time else ref.uniform_below(src, self.levels)
        node = min(x, self.N - 1) >> self.shifts[t]
        if t < self.krr_levels:
            return (int(t), int(self.rr[t].release_index(src, node)), 0, 0)
        a, b, y = self.lh._release(src, node)
        return (int(t), a, b, y)

    def _fleet_params(self):
        rr_t = np.zeros(self.levels, np.uint64)
        rr_w0 = np.zeros(self.levels, np.uint64)
        for t, r in enumerate(self.rr):
            rr_t[t], rr_w0[t] = r.t, r.w0
        rr_k = self.rr[0].bits if self.rr else 32
        return rr_t, rr_w0, rr_k

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_hierarchical_histogram import fleet_hierarchical_histogram
        lh = self.lh
        a_p, w, lbits, g, prime = (lh.a_p, lh.w, lh.bits, lh.g, lh.prime) if lh is not None else (0, 0, 0, 2, 3)
        rr_t, rr_w0, rr_k = self._fleet_params()
        out = np.zeros((x.shape[0], 4), np.int64)
        fleet_hierarchical_histogram(key, ids, first_block, np.uint64(self.levels), np.array(self.shifts, np.int64),
                                     np.int64(self.krr_levels), rr_t, rr_w0, np.uint64(rr_k), np.uint64(a_p),
                                     np.uint64(w), np.uint64(lbits), np.uint64(g), np.uint64(prime),
                                     bool(self.constant_time), np.int64(self.N), x, out, status, bits)
        return out

    def report_fields(self):
        from .._wire import ReportField
        has_lh = self.krr_levels < self.levels
        p, g = (self.lh.prime, self.lh.g) if has_lh else (1, 1)
        u_hi = max([p - 1] * has_lh + [d - 1 for d in self.sizes[: self.krr_levels]])
        return [ReportField("t", 1, 0, self.levels - 1), ReportField("u", 1, 0, u_hi),
                ReportField("v", 1, 0, p - 1), ReportField("y", 1, 0, g - 1)]

    # --- the device form (csrc/fxdp_mech_hierarchical_histogram.c)
    def _cfg_fields(self):
        lh = self.lh
        w0 = [r.w0 for r in self.rr] + [0] * (MAX_BITS - self.krr_levels)
        lh_fields = ({"a_p": lh.a_p, "w": lh.w, "d": lh.d, "g": lh.g, "bits": lh.bits}
                     if self.krr_levels < self.levels else {"a_p": 0, "w": 0, "d": 0, "g": 0, "bits": 0})
        return {"lh": lh_fields, "rr_w0": w0, "rr_k": self.rr[0].bits if self.rr else 0,
                "krr_levels": self.krr_levels, "levels": self.levels, "log2_branching": self.log2_branching,
                "bits": self.bits}

    def device_spec(self, dim=None):
        """The C device form: grid index in, (t, u, v, y) out (keys: fxdp.mechanisms.base)."""
        f = self._cfg_fields()
        lh = _init([("a_p", u64(f["lh"]["a_p"])), ("w", u64(f["lh"]["w"])), ("d", u32(f["lh"]["d"])),
                    ("g", u32(f["lh"]["g"])), ("bits", u8(f["lh"]["bits"]))])
        w0 = "{ " + ", ".join(u32(v) for v in f["rr_w0"]) + " }"
        ct = self.constant_time
        oracles = ", ".join(f"{self.level_oracle(t)} ({d})" for t, d in enumerate(self.sizes))
        return {
            "c_function": "fxdp_hierarchical_histogram" + ("_ct" if ct else ""),
            "cfg_type": "fxdp_hierarchical_histogram_cfg",
            "cfg_init": _init([("lh", lh), ("rr_w0", w0), ("rr_k", u8(f["rr_k"])), ("krr_levels", u8(f["krr_levels"])),
                               ("levels", u8(f["levels"])), ("log2_branching", u8(f["log2_branching"])),
                               ("bits", u8(f["bits"]))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1, "meaning": f"the grid index in [0, {self.N}]"},
            "output": {"ctype": "uint32_t", "count": 4,
                       "meaning": "(t, y, 0, 0) at a k-ary RR level, (t, a, b, y) at a local hashing level"},
            "sources": list(SRC_HIERARCHICAL_HISTOGRAM),
            "summary": (f"hierarchical histogram on [{self.lo}, {self.hi}], 2^{self.bits} leaves, branching "
                        f"{self.branching}: one of {self.levels} levels, its node by {oracles}; epsilon <= "
                        f"{self.epsilon!r}; "
                        + ("constant time in the reading and the level (local hashing's seed: 62 bits unless a "
                           "retry, p < 2^-29)" if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_hierarchical_histogram_cfg *", self._cfg_fields())
        return CConfig(cfg, [], "fxdp_hierarchical_histogram" + ("_ct" if self.constant_time else ""),
                       self.constant_time, "uint32_t", np.uint32, out_ctype="uint32_t", out_dtype=np.uint32,
                       out_count=4)

    # --- the exact audit
    def report_pmf(self, report, i):
        """P(report | grid index i), exactly."""
        t, u, v, y = (int(c) for c in report)
        if not 0 <= t < self.levels:
            return Fraction(0)
        node = min(int(i), self.N - 1) >> self.shifts[t]
        if t < self.krr_levels:
            r = self.rr[t]
            if v or y or not 0 <= u < r.t:
                return Fraction(0)
            return Fraction(r.w0 if u == node else r.w, self.levels << r.bits)
        lh = self.lh
        if not (1 <= u < lh.prime and 0 <= v < lh.prime and 0 <= y < lh.g):
            return Fraction(0)
        seed = Fraction(1, self.levels * lh.prime * (lh.prime - 1))
        return seed * (lh.p if y == lh.hash(u, v, node) else lh.q)

    def output_pmf(self, x):
        """The exact report distribution of grid index x (k-ary RR levels only: local hashing's
        seeds are P (P - 1) outputs; ``exact_audit`` has the closed form)."""
        if self.krr_levels < self.levels:
            raise ValueError("output_pmf enumerates k-ary RR levels only (oracle = 'krr'); local hashing's reports "
                             "number P (P - 1) g per level: fxdp.audit gives the closed form")
        x = self.check_release_input(x)
        return {(t, u, 0, 0): self.report_pmf((t, u, 0, 0), x) for t in range(self.levels) for u in range(self.sizes[t])}

    def exact_audit(self, d_in=1):
        """Closed form: the worst ratio is the worst level's oracle ratio (the level is independent
        of the reading).  The witness: grid indices 0 and N (their leaves differ at every level), at
        the level with the largest ratio, and a report where the oracle's p meets its q."""
        if d_in == 0:
            return AuditReport(repr(self), 0.0, 0.0, {}, "closed form (level uniform, then the level's oracle)",
                               d_in=0)
        ratios = [Fraction(r.w0, r.w) for r in self.rr] + ([self.lh._ratio] * (self.levels - self.krr_levels)
                                                          if self.krr_levels < self.levels else [])
        t = max(range(self.levels), key=lambda k: ratios[k])
        node = (self.N - 1) >> self.shifts[t]
        if t < self.krr_levels:
            report = (t, 0, 0, 0)
        else:
            lh = self.lh
            # a seed separating the two nodes: a x + b wraps mod P for a near P (node 3 and g = 3 need it)
            a, b = next((a, b) for a in [*range(1, 65), *range(lh.prime - 1, lh.prime - 65, -1)] for b in range(64)
                        if lh.hash(a, b, node) != lh.hash(a, b, 0))
            report = (t, a, b, lh.hash(a, b, 0))
        ratio = self.report_pmf(report, 0) / self.report_pmf(report, self.N)
        return AuditReport(repr(self), self._eps, log_up(ratio),
                           {"x": 0, "x_prime": self.N, "report": list(report), "level": t,
                            "oracle": self.level_oracle(t), "ratio": str(ratio)},
                           "closed form (level uniform, then the level's oracle)", d_in=d_in)

    # --- the server: each level's node shares
    def split_levels(self, reports):
        """Each level's reports, validated: [int64 [n_t, 3]] of (u, v, y).  A report out of its
        level's ranges (a corrupted file) is a ValueError naming it, never a silent estimate."""
        r = reports_array(reports)
        if r.ndim != 2 or r.shape[1] != 4 or r.shape[0] == 0 or r.dtype.kind not in "ui":
            raise ValueError("reports must be an n x 4 integer array of (t, u, v, y), n >= 1")
        r = r.astype(np.int64)
        t = r[:, 0]
        if t.min() < 0 or t.max() >= self.levels:
            raise ValueError(f"reports: level t must be in [0, {self.levels}), got {int(t[(t < 0) | (t >= self.levels)][0])}")
        out = []
        for k in range(self.levels):
            rows = r[t == k, 1:]
            if k < self.krr_levels:
                bad = (rows[:, 0] < 0) | (rows[:, 0] >= self.sizes[k]) | (rows[:, 1] != 0) | (rows[:, 2] != 0)
                what = f"(y, 0, 0) with y in [0, {self.sizes[k]})"
            else:
                p, g = self.lh.prime, self.lh.g
                bad = ((rows[:, 0] < 1) | (rows[:, 0] >= p) | (rows[:, 1] < 0) | (rows[:, 1] >= p) | (rows[:, 2] < 0)
                       | (rows[:, 2] >= g))
                what = f"(a, b, y) with a in [1, {p}), b in [0, {p}), y in [0, {g})"
            if bad.any():
                raise ValueError(f"reports: a level-{k} report must be {what}, got {rows[bad][0].tolist()}")
            out.append(rows)
        return out

    def level_counts(self, reports):
        """The sufficient statistic: per level, (support counts of its d_t nodes, n_t)."""
        counts = []
        for k, rows in enumerate(self.split_levels(reports)):
            if k < self.krr_levels:
                c = np.bincount(rows[:, 0], minlength=self.sizes[k]).astype(np.int64)
            elif rows.shape[0]:
                c, _ = self.lh.support_counts(rows, range(0, self.sizes[k]))
                c = np.asarray(c, np.int64)
            else:
                c = np.zeros(self.sizes[k], np.int64)
            counts.append((c, int(rows.shape[0])))
        return counts

    def _pq(self, t):
        if t < self.krr_levels:
            r = self.rr[t]
            p = float(r.p_realized)
            return p, (1 - p) / (r.t - 1)
        return float(self.lh.p), float(self.lh.q_star)

    def level_estimates(self, counts):
        """Per level: the unbiased node shares (S / n_t - q) / (p - q) (zeros for a level with no
        reports), from ``level_counts``."""
        out = []
        for t, (c, n_t) in enumerate(counts):
            p, q = self._pq(t)
            out.append((c / n_t - q) / (p - q) if n_t else np.zeros(self.sizes[t]))
        return out

    def level_variances(self, counts):
        """Per level, the data-independent weight of constrained inference: a node's variance at
        its average share 1 / d_t (the oracle's closed form at n_t, plus the group's sampling
        term); inf for a level with no reports."""
        n = sum(n_t for _, n_t in counts)
        out = []
        for t, (_, n_t) in enumerate(counts):
            out.append(float(self._node_variance(t, np.array([1.0 / self.sizes[t]]), n_t, n)[0]) if n_t else math.inf)
        return out

    def _oracle_variance(self, t, f, n_t):
        """Level t's oracle variance of a node's estimate at share f (its closed form at n_t)."""
        p, q = self._pq(t)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n_t * (p - q) ** 2)

    def _node_variance(self, t, f, n_t, n):
        f = np.clip(np.asarray(f, np.float64), 0.0, 1.0)
        return self._oracle_variance(t, f, n_t) + f * (1 - f) * (1.0 / n_t - 1.0 / n)

    def weighted_variance(self, t, w, f, n_t, n):
        """Var(w . f_t) of level t's estimates for node weights w (an array [d_t], or [Q, d_t] for Q
        weightings at once), at true shares f (the estimates, clipped): k-ary RR's exactly (its
        reports are one multinomial draw per device), local hashing's as the sum of the nodes'
        variances (its estimates are uncorrelated up to the hash's collision term), plus the
        group's sampling variance."""
        w = np.asarray(w, np.float64)
        if n_t == 0:
            return np.where(np.any(w != 0, axis=-1), math.inf, 0.0) if w.ndim > 1 else \
                (math.inf if np.any(w) else 0.0)
        f = np.clip(np.asarray(f, np.float64), 0.0, 1.0)
        f = f / f.sum() if f.sum() > 0 else np.full(f.shape, 1.0 / f.shape[0])
        p, q = self._pq(t)
        w2 = w * w
        sampling = (w2 @ f - (w @ f) ** 2) * (1.0 / n_t - 1.0 / n)
        if t < self.krr_levels:
            pi = f * (p - q) + q
            wsum = w.sum(axis=-1)
            # E over devices of (w_x (p - q) + q W)^2 = (p - q)^2 f.w^2 + 2 (p - q) q W f.w + q^2 W^2
            second = (p - q) ** 2 * (w2 @ f) + 2 * (p - q) * q * wsum * (w @ f) + (q * wsum) ** 2
            per = np.maximum(w2 @ pi - second, 0.0)
            return per / (n_t * (p - q) ** 2) + sampling
        return w2 @ self._oracle_variance(t, f, n_t) + sampling

    def _stderr(self, counts, fit, var, lo, hi):
        """Standard errors of the consistent estimates of leaves lo..hi (scalars or sequences)."""
        w = _ranges.consistent_weights(self.sizes, var, lo, hi)
        n = sum(n_t for _, n_t in counts)
        return np.sqrt(sum(self.weighted_variance(t, w[t], fit[t], counts[t][1], n) for t in range(self.levels)))

    def _fit(self, counts):
        est = self.level_estimates(counts)
        var = self.level_variances(counts)
        if all(v == math.inf for v in var):
            raise ValueError("reports: no reports to estimate from")
        return est, var

    def count_shapes(self):
        return list(self.sizes)

    def fit_leaves(self, counts):
        """(the consistent leaf shares, (fit, var)): constrained inference on every level."""
        est, var = self._fit(counts)
        fit = _ranges.consistent(est, var)
        return fit[-1], (fit, var)

    def uniform_state(self, n):
        """(counts, fit state) of n devices split evenly over the levels, readings uniform over the
        leaves (``range_variance``)."""
        counts = [(np.zeros(d, np.int64), max(1, n // self.levels)) for d in self.sizes]
        var = self.level_variances(counts)
        return counts, ([np.full(d, 1.0 / d) for d in self.sizes], var)

    def leaf_range_stderr(self, counts, state, lo, hi):
        fit, var = state
        return np.atleast_1d(self._stderr(counts, fit, var, lo, hi))

    def range_from_counts(self, counts, a, b, consistent=True):
        lo_leaf, hi_leaf = self.leaf_range(a, b)
        est, var = self._fit(counts)
        n = sum(n_t for _, n_t in counts)
        fit = _ranges.consistent(est, var)
        if consistent:
            value = float(fit[-1][lo_leaf: hi_leaf + 1].sum())
            se = float(self._stderr(counts, fit, var, lo_leaf, hi_leaf))
        else:
            weights = [np.zeros(d) for d in self.sizes]
            for t, node in _ranges.canonical_nodes(self.sizes, lo_leaf, hi_leaf):
                weights[t][node] = 1.0
            value = float(sum(w @ e for w, e in zip(weights, est)))
            se = math.sqrt(sum(self.weighted_variance(t, weights[t], fit[t], counts[t][1], n)
                               for t in range(self.levels)))
        return Estimate("range", value, se)

    def estimate_range(self, reports, a, b, consistent=True):
        """The share of devices whose reading's leaf lies in [leaf(a), leaf(b)]: the readings in
        [lo + leaf(a) step, lo + (leaf(b) + 1) step) (hi included in the last leaf), as an Estimate
        with its standard error; ``consistent`` (default) after constrained inference, else the
        unbiased sum of the fewest nodes covering the range."""
        return super().estimate_range(reports, a, b, consistent=consistent)

def _range_configs(lo, hi, epsilon, bits):
    """``range_configs`` (fxdp.mechanisms.base.answers): branching 2, 4, 8 and 16, the oracles by
    variance, lazy."""
    return [{"lo": lo, "hi": hi, "epsilon": epsilon, "branching": b, "bits": bits} for b in (2, 4, 8, 16)]


@answers(range_configs=_range_configs)
def make_hierarchical_histogram(lo, hi, epsilon, branching=4, bits=12, oracle="auto", constant_time=False,
                                prob_bits=MAX_PROB_BITS):
    """The hierarchical histogram of a reading in [lo, hi] (lo < hi) on a grid of 2^bits leaves
    (1 <= bits <= 16): one level of a tree of ``branching`` (a power of two) per device, reported
    at epsilon in (0, 64] through k-ary randomized response or local hashing (``oracle``: "auto"
    picks per level by closed-form variance; the constant-time form uses local hashing).  Ranges
    (``m.estimate_range``) and quantiles (``m.estimate_quantiles``) with standard errors."""
    return HierarchicalHistogram(lo, hi, epsilon, branching, bits, oracle, constant_time, prob_bits)


README_ROWS = {
    'hierarchical_histogram': ('Cormode, Kulkarni, Srivastava 2019',
        '`lo = 0`, `hi = 80`, `epsilon = 2`, `branching = 4`, `bits = 8` (readings in [lo, hi]; ranges and quantiles)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # CT: local hashing at all 4 levels (exactly 128 + 62 + 32 bits unless a seed retry); lazy at eps 3:
    # k-ary RR at the top 3 levels (4, 16, 64 nodes), local hashing at the leaves (its bits vary).
    'hierarchical_histogram_ct': lambda: make_hierarchical_histogram(0, 80, 2, bits=8, constant_time=True),
    'hierarchical_histogram_lazy': lambda: make_hierarchical_histogram(0, 80, 3, bits=8),
}
EXPORT_VARIANTS: set[str] = set()

__all__ = ["HierarchicalHistogram", "make_hierarchical_histogram"]
