"""Subset selection frequency oracle (Wang et al. 2016, "Mutual information optimally local private
discrete distribution estimation"; Ye and Barg 2018, the k-subset mechanism), exact on a dyadic p.

A device holds one item x of a domain of d items and reports a k-subset S of [0, d), sent as its k
item indices in increasing order (k ceil(log2 d) bits, against d for unary encoding).  With
probability p the subset contains x and its other k - 1 members are a uniform (k-1)-subset of the
d - 1 other items; otherwise S is a uniform k-subset of the other items.  So
P(S | x) = p / C(d-1, k-1) if x in S, else (1 - p) / C(d-1, k), and the worst ratio between two
inputs is  p / (1 - p) * (d - k) / k  (an S holding x and not x').  The seeds' choice
p = k e^eps / (k e^eps + d - k) makes that ratio e^eps.

Subset size: k is the integer in [1, d - 1] that minimizes the closed-form variance of the
estimate of an absent item (f = 0, below) at the unrounded p, ties to the smaller k.  It is
floor or ceil of d / (e^eps + 1) (Wang et al.'s and Ye and Barg's optimum), or 1 when that is
below 1 (then subset selection is k-ary randomized response); ``k=`` overrides it.

p is realized as a_p / 2^bits rounded *down* with a certified lower bound on e^eps
(fxdp.conservative.exp_interval), so the realized ratio a_p (d - k) / ((2^bits - a_p) k) never
exceeds e^eps; the privacy map is its log rounded up (log_up), and the exact audit (closed form,
equal to enumeration over all C(d, k) subsets for small d) attains it.  p must exceed k / d
(else the report carries no information: the "nearest valid epsilon" is named).

Sampling, exact (the bit order the reference, Numba and C all read), m = d - 1 other items
indexed 0..m-1 (other index j is item j + [j >= x]):

1. T = a uniform k-subset of [0, m) by Floyd's algorithm: for j = m - k, ..., m - 1,
   t = uniform_below(j + 1) (k = bit_length(j) bits per try, rejection until t <= j), and T gets
   j if t is already in T, else t.  Bounds and bit use depend on (d, k) and the stream only;
2. b = Bernoulli(a_p / 2^bits): ``bernoulli_dyadic`` (lazy) or ``bernoulli_dyadic_ct``
   (constant time: exactly ``bits`` bits);
3. r = uniform_below(k): in the constant-time form always, in the lazy form only when b = 1;
4. S = {j + [j >= x] : j in T}, sorted; if b: the r-th smallest member of S is replaced by x.
   Removing a uniformly chosen member of a uniform k-subset of the others leaves a uniform
   (k-1)-subset of them (each arises from d - k supersets, each picked with 1/k), so S is
   distributed as stated.  Every bit is read before anything is written.

The C form (csrc/fxdp_mech_subset_selection.c) builds T in the caller's output buffer as Floyd's list (no map
on the stack: issue 13's 256 B stack goal; zeroed on an entropy failure), then sorts it, maps it to
items, replaces the r-th smallest by x when b = 1 and moves that one entry into place.  In the
constant-time form each membership test scans the whole list so far with masks, the sort is an
odd-even transposition network (k rounds of fixed compare-exchanges) and the replacement and the
final passes are fixed scans, so no branch, address or shift depends on x, b or the subset (the
lazy form scans and sorts with branches).  Since issue 32 the constant-time form draws Floyd's k
indices and r with the fixed-budget ``uniform_below_ct`` (``uniform_version = 2``, the default:
128 bits per draw, every round run), so its time and bit use depend on (d, k, bits) alone, and a
release fails (RangeError, FXDP_ERR_RANGE, after all the draws) with probability below
(k + 1) (d / 2^32)^4.  ``uniform_version = 1`` pins the rejection draws of the releases before
(their bits; time and bit use then vary with the stream unless every bound m - k + 1, ..., m and k
is a power of two).

Every input is an item index in [0, d); anything else is refused (ValueError, FXDP_ERR_PARAM in C):
subset selection has no "not an item" answer.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import numpy as np

from ...conservative import exp_interval, float_up, log_up
from ...reports import AuditReport, Estimate, Support, ratio_eps, reports_array
from ...samplers import reference as ref
from ...validate import check_int
from .._device import SRC_RNG, _ct_text, _init, _p, u8, u32, u64
from .._oracle import ItemOracle
from ..base import CConfig, answers

MAX_DEVICE_D = 1024          # FXDP_SUBSET_SELECTION_MAX_D in csrc/fxdp.h (a d-bit map on the stack, uint16 out)
MAX_D = 1 << 20              # simulation and the server's estimator
PMF_MAX_SUBSETS = 5000       # output_pmf enumerates the C(d, k) subsets
SRC_SUBSET_SELECTION = SRC_RNG + ["fxdp_bernoulli.c", "fxdp_uniform.c", "fxdp_mech_subset_selection.c"]


def optimal_k(d, e_eps):
    """The k in [1, d - 1] minimizing the f = 0 variance q(1-q)/(p-q)^2 at p = k e/(k e + d - k)
    (e = e^eps, a float), ties to the smaller k (public parameter choice, not a sampling path)."""
    k = np.arange(1, d, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = k * e_eps / (k * e_eps + d - k)
        q = (p * (k - 1) + (1 - p) * k) / (d - 1)
        var = q * (1 - q) / (p - q) ** 2
    var = np.where(np.isfinite(var), var, np.inf)
    return int(np.argmin(var)) + 1


def realize(epsilon, d, k, bits):
    """a_p over 2^bits: p = k e^eps / (k e^eps + d - k) rounded down, so epsilon never grows."""
    lo, _ = exp_interval(epsilon)                          # lo <= e^eps
    return int(math.floor(Fraction(1 << bits) * lo * k / (lo * k + d - k)))


def floyd_subset(src, m, k):
    """Floyd's algorithm: a uniform k-subset of [0, m) (0 <= k <= m), drawing
    uniform_below(j + 1) for j = m - k, ..., m - 1 (the bits every form reads)."""
    chosen = set()
    for j in range(m - k, m):
        t = ref.uniform_below(src, j + 1)
        chosen.add(j if t in chosen else t)
    return chosen


UNIFORM_VERSIONS = (1, 2)
UNIFORM_VERSION = 2          # the constant-time form's draws (issue 32): see SubsetSelection


def floyd_subset_ct(src, m, k):
    """Floyd's algorithm with the fixed-budget draws (uniform_below_ct_or_none): (the k-subset,
    ok); a draw whose budget ran out counts as t = 0 and makes ok False (C: the same bits, one
    FXDP_ERR_RANGE after all the draws)."""
    chosen, ok = set(), True
    for j in range(m - k, m):
        t = ref.uniform_below_ct_or_none(src, j + 1)
        if t is None:
            ok, t = False, 0
        chosen.add(j if t in chosen else t)
    return chosen, ok


def check_uniform_version(v):
    if isinstance(v, bool) or v not in UNIFORM_VERSIONS:
        raise ValueError(f"uniform_version must be one of {UNIFORM_VERSIONS}, got {v!r}")
    return v


class SubsetSelection(ItemOracle):
    """Subset selection over d items (see the module docstring)."""
    kind = "subset_selection"
    report_dtype = "int32"         # decoded reports as simulate returns them (k item indices)
    MAX_D = MAX_D

    def __init__(self, d, epsilon, constant_time=False, bits=32, k=None, uniform_version=UNIFORM_VERSION):
        self._check_args(d, epsilon, bits, constant_time=constant_time)
        self.uniform_version = check_uniform_version(uniform_version)
        # 0 lazy; 1 constant time with rejection draws (before issue 32); 2 with the fixed budget
        self.ct_mode = 0 if not constant_time else (2 if uniform_version == 2 else 1)
        lo, _ = exp_interval(self.epsilon_requested)
        if k is None:
            self.k = optimal_k(self.d, float(lo))
        else:
            self.k = check_int("k", k, 1, self.d - 1)
            self._args["k"] = self.k
        d, k, two_b = self.d, self.k, 1 << self.bits
        self.a_p = realize(self.epsilon_requested, d, k, self.bits)
        if self.a_p * d <= k * two_b or self.a_p >= two_b:
            a = k * two_b // d + 1                          # the least a_p with p > k / d
            nearest = float_up(Fraction(log_up(Fraction(a * (d - k), (two_b - a) * k)))) if a < two_b else None
            raise ValueError(f"epsilon = {float(self.epsilon_requested)!r} is too small for bits = {self.bits}, "
                             f"d = {d}, k = {k}: p rounds to k/d or below; the nearest valid epsilon is "
                             f"{nearest!r} (or use more bits)")
        self.p = Fraction(self.a_p, two_b)
        # q: the probability that an item other than x is in the subset
        self.q = (self.p * (k - 1) + (1 - self.p) * k) / (d - 1)
        self._ratio = Fraction(self.a_p * (d - k), (two_b - self.a_p) * k)
        self._eps = log_up(self._ratio)
        self.index_bits = max(1, (d - 1).bit_length())
        if uniform_version != UNIFORM_VERSION:       # pinned: shown in config() and repr; else unchanged
            self._args["uniform_version"] = uniform_version

    @property
    def output_domain(self):
        return f"SubsetDomain({self.k} increasing item indices in [0, {self.d}))"

    def realized(self):
        return {"p": self.p, "a_p": self.a_p, "bits": self.bits, "k": self.k, "q": self.q,
                "epsilon": self._eps}

    @property
    def bits_per_report(self):
        """k indices of ceil(log2 d) bits each (the device sends uint16s: 16 k)."""
        return self.k * self.index_bits

    # --- releases
    def release(self, src, x):
        """Floyd's k draws, then b, then r (module docstring); a tuple of k increasing items."""
        if self.ct_mode == 2:
            others, ok = floyd_subset_ct(src, self.d - 1, self.k)
            b = ref.bernoulli_dyadic_ct(src, self.a_p, self.bits)
            r = ref.uniform_below_ct_or_none(src, self.k)
            if not ok or r is None:
                from ...errors import RangeError
                raise RangeError("subset_selection: a uniform draw's budget ran out (probability < "
                                 "(k + 1) (d / 2^32)^4); nothing was released")
        else:
            others = floyd_subset(src, self.d - 1, self.k)
            sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
            b = sample(src, self.a_p, self.bits)
            r = ref.uniform_below(src, self.k) if (self.constant_time or b) else 0
        s = sorted(j + (j >= x) for j in others)
        if b:
            del s[r]
            s.append(x)
            s.sort()
        return tuple(int(v) for v in s)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores): values are n item indices in [0, d); device i draws
        from the keyed stream (seed, device_ids[i], stream 0), bit-identical to the C library.
        Returns an n x k int32 matrix of reports (each row increasing); raises ValueError /
        EntropyError (nothing returned)."""
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_subset_selection import fleet_subset_selection
        out = np.zeros((x.shape[0], self.k), dtype=np.int32)
        fleet_subset_selection(key, ids, first_block, np.uint64(self.a_p), np.uint64(self.bits),
                               np.int64(self.d), np.int64(self.k), np.int64(self.ct_mode), x, out, status, bits,
                               self._ahead(key))
        return out

    def _ahead(self, key):
        """Keystream blocks a fleet device computes ahead (with the other devices of its lane group):
        about what one report reads (Floyd's k draws, the coin, r)."""
        from ...samplers._nb_lanes import ahead_blocks
        per_draw = 32 * ref.UNIFORM_CT_ROUNDS if self.ct_mode == 2 else (self.d - 1).bit_length() + 1
        return ahead_blocks((self.k + 1) * per_draw + self.bits, key)

    def simulate_support(self, values, seed, device_ids=None, first_block=None):
        """The support of ``simulate``'s reports without the n x k matrix: equal to
        ``frequency_support(simulate(values, seed, device_ids))`` (the same bits, read by
        ``fleet_subset_selection_counts``: item counts per worker in O(d) memory, O(k) work per
        device after its draws; for large n k, e.g. the variance table at d = 65536).  Raises as
        ``simulate`` does (nothing returned) if any device fails."""
        from .._fleet import check_seed, support_counts
        from ._kernels_subset_selection import CHUNK, fleet_subset_selection_counts
        params = (np.uint64(self.a_p), np.uint64(self.bits), np.int64(self.d), np.int64(self.k), np.int64(self.ct_mode),
                  self._ahead(check_seed(seed)))
        counts, n = support_counts(self, values, seed, device_ids, first_block, CHUNK,
                                   fleet_subset_selection_counts, params)
        return Support(counts, n, self.p, self.q)

    # --- estimation
    def inclusion_counts(self, reports):
        """c_i = the number of reports whose subset holds item i, and n (reports: n x k indices)."""
        y = reports_array(reports)
        if y.ndim != 2 or y.shape[1] != self.k:
            raise ValueError(f"reports must be an n x {self.k} array of item indices in [0, {self.d})")
        if y.size and (y.min() < 0 or y.max() >= self.d):
            raise ValueError(f"reports must be item indices in [0, {self.d})")
        if self.k > 1 and y.size and not (np.diff(y, axis=1) > 0).all():
            raise ValueError("reports: every row must hold k distinct items in increasing order")
        return np.bincount(y.astype(np.int64).ravel(), minlength=self.d), y.shape[0]

    def frequency_support(self, reports):
        """Support counts: c_i, the reports holding item i; p = P(x in S), q = P(i in S | x != i)."""
        c, n = self.inclusion_counts(reports)
        return Support(np.asarray(c, dtype=np.int64), int(n), self.p, self.q)

    def estimate(self, reports):
        """Unbiased item frequencies f_i = (c_i / n - q) / (p - q), c_i the reports holding i.

        A device holding i includes i with probability p, any other device with probability
        q = (p (k - 1) + (1 - p) k) / (d - 1), so E[c_i / n] = q + f_i (p - q) and
        Var(f_i) = (f_i p(1-p) + (1 - f_i) q(1-q)) / (n (p - q)^2) exactly (independent
        devices); the standard error plugs in f_i clipped to [0, 1]."""
        c, n = self.inclusion_counts(reports)
        if n == 0:
            raise ValueError("reports: no reports to estimate from")
        p, q = float(self.p), float(self.q)
        est = (c / n - q) / (p - q)
        return Estimate("frequency", est, np.sqrt(self.variance(np.clip(est, 0.0, 1.0), n)))

    def variance(self, f, n):
        """Closed-form variance of the frequency estimate of an item with true frequency f."""
        p, q = float(self.p), float(self.q)
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)

    # --- device form
    def _check_device(self):
        if self.d > MAX_DEVICE_D:
            raise ValueError(f"d = {self.d}: the C device form holds at most FXDP_SUBSET_SELECTION_MAX_D = {MAX_DEVICE_D} "
                             "items (a d-bit map on the stack)")

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base); d <= FXDP_SUBSET_SELECTION_MAX_D = 1024; the
        output is k uint16_t item indices in increasing order."""
        self._check_device()
        ct = self.constant_time
        return {
            "c_function": "fxdp_subset_selection_ct" if ct else "fxdp_subset_selection",
            "cfg_type": "fxdp_subset_selection_cfg",
            "cfg_init": _init([("a_p", u64(self.a_p)), ("d", u32(self.d)), ("k", u32(self.k)),
                               ("bits", u8(self.bits)), ("uniform_version", u8(self.uniform_version))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint16_t", "count": self.k, "min": 0, "max": self.d - 1, "matrix": True},
            "sources": list(SRC_SUBSET_SELECTION),
            "in_place": True,       # Floyd's list is built in out, zeroed on an entropy failure
            "summary": (f"subset selection over d = {self.d} items, k = {self.k}: the subset holds x "
                        f"w.p. p = {_p(self.p)} ({self.k} uint16 indices per report); epsilon <= {self.epsilon!r}; "
                        + (("constant time in x and b (bit use depends on the stream's rejections only, "
                            f"{self.bits} bits for b), branch-free") if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        self._check_device()
        cfg = native.ffi.new("fxdp_subset_selection_cfg *", {"a_p": self.a_p, "d": self.d, "k": self.k, "bits": self.bits,
                                                "uniform_version": self.uniform_version})
        return CConfig(cfg, [], "fxdp_subset_selection" + ("_ct" if self.constant_time else ""),
                       self.constant_time, "uint32_t", np.uint32, out_ctype="uint16_t", out_dtype=np.uint16,
                       out_count=self.k)

    def fleet_outputs(self, out):
        return out.astype(np.int32, copy=False)

    def release_output(self, out):
        return tuple(int(v) for v in out)

    # --- audit and plots
    def exact_audit(self, d_in=1):
        """For x != x', an S holding x and not x' has P(S|x) / P(S|x') = p/(1-p) (d-k)/k, the
        worst ratio (any other S: 1), exactly."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": 0, "x_prime": 1, "output": [0] + list(range(2, self.k + 1)),
                   "ratio": str(self._ratio), "p": str(self.p)}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method="exact (closed form: p (d - k) / ((1 - p) k))")

    def audit_pairs(self):
        return [(x, xp) for x in range(self.d) for xp in range(self.d) if x != xp]

    def output_pmf(self, x):
        """Exact pmf of the report over all C(d, k) subsets (at most 5000 of them)."""
        if math.comb(self.d, self.k) > PMF_MAX_SUBSETS:
            raise ValueError(f"output_pmf enumerates the C({self.d}, {self.k}) subsets: at most "
                             f"{PMF_MAX_SUBSETS}")
        x = self.check_input(x)
        pin = self.p / math.comb(self.d - 1, self.k - 1)
        pout = (1 - self.p) / math.comb(self.d - 1, self.k)
        return {s: (pin if x in s else pout) for s in combinations(range(self.d), self.k)}

    def output_distribution(self, x, x_prime):
        if math.comb(self.d, self.k) > PMF_MAX_SUBSETS:
            raise ValueError(f"subset selection over d = {self.d}, k = {self.k}: the exact distribution is "
                             f"enumerated only up to {PMF_MAX_SUBSETS} subsets (fxdp.audit gives the closed form)")
        return super().output_distribution(x, x_prime)


def _oracle_configs(epsilon, d, bits):
    """``oracle_configs`` (fxdp.mechanisms.base.answers): k indices of ceil(log2 d) bits, k chosen
    by the constructor.  Registered after k-ary RR, so that at k = 1 (where subset selection is
    k-ary RR, with the same variance) k-ary RR ranks first."""
    return [{"d": d, "epsilon": epsilon, "bits": bits}]


@answers(oracle_configs=_oracle_configs)
def make_subset_selection(d, epsilon, constant_time=False, bits=32, k=None, uniform_version=UNIFORM_VERSION):
    """Subset selection over d items (2 <= d; the C device form takes d <= 1024): epsilon in
    (0, 64], k the variance-optimal subset size (floor or ceil of d / (e^eps + 1), at least 1)
    unless given, p = P(x in S) realized as a_p / 2^bits rounded down so that the realized epsilon
    (``m.epsilon``) never exceeds the requested one; each report is k increasing item indices.

    uniform_version (constant_time=True only; issue 32, docs/constant_time.md): 2 (the default)
    draws Floyd's k indices and r with the fixed-budget ``uniform_below_ct`` (k + 1 draws of 128
    bits, constant in the stream; a release fails with RangeError / FXDP_ERR_RANGE with probability
    below (k + 1) (d / 2^32)^4 <= 2^-78 for d <= 1024); 1 pins the rejection draws of the releases
    before issue 32 (their bits, not constant in the stream).  The lazy form is the same for both."""
    return SubsetSelection(d, epsilon, constant_time, bits, k, uniform_version)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'subset_selection': ('Wang et al. 2016; Ye, Barg 2018',
        '`d = 64`, `epsilon = 2`, `constant_time = true` (`k = 5` overrides the optimal subset size)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Subset selection: k uint16 indices per release.  The constant-time form's time and bit use do not
    # depend on x or on whether x is in the subset, but Floyd's uniform draws reject with a probability
    # that varies with the stream, and this check varies the stream: its CT case therefore takes d = 3,
    # k = 2, whose bounds (1, 2 and r below 2) are powers of two (34 bits per release; every code path
    # runs: membership, the shift past x, the replacement).  tests/test_subset_selection.py checks, at
    # d = 100 and 1024, that the counts and bits are independent of x and b on a fixed stream.
    'subset_selection_ct': lambda: make_subset_selection(3, 2, constant_time=True, k=2),
    # Since issue 32 the constant-time form draws with the fixed budget (uniform_version 2: 128 bits per
    # uniform draw, whatever the stream), so a case where the rejection draws would reject is constant
    # too: d = 1024, k = 3 (bounds 1021, 1022, 1023 and 3; 544 bits per release).
    'subset_selection_ct_d1024': lambda: make_subset_selection(1024, 1, constant_time=True, k=3),
    'subset_selection_lazy': lambda: make_subset_selection(40, 1),
    # k = 1 with m = d - 1 = 64 (a power of two: no rejection): the map spans three words, so the
    # shift past x crosses words in the constant-time check too (k-ary RR in effect; not on AVR)
    'subset_selection_ct_3words': lambda: make_subset_selection(65, 4, constant_time=True, k=1),
}
EXPORT_VARIANTS = {'subset_selection_ct_3words'}
