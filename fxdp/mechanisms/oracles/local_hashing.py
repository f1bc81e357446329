"""Local hashing frequency oracles (Wang, Blocki, Li, Jha, USENIX Security 2017): optimized (OLH,
g = round(e^eps) + 1) and binary (BLH, g = 2), exact on a dyadic p.

A device holds one item x of a domain of d items.  It draws a hash function h from a universal
family, hashes x into [0, g) and reports (h, y) with y = generalized randomized response (GRR)
of h(x) over [0, g): y = h(x) with probability p, else each other value with probability q.

The hash family (Carter and Wegman 1979), exact and cheap on an 8-bit MCU:

    h_{a,b}(x) = ((a x + b) mod P) mod g,   P = 2^31 - 1 (a Mersenne prime),
    a uniform in [1, P), b uniform in [0, P),

drawn per device from its keyed stream by the exact rejection sampler ``uniform_below``
(a = 1 + uniform_below(P - 1), b = uniform_below(P); 31 bits a try, a retry with probability
2^-30 for a, 2^-31 for b) and sent with the report: the report is (a, b, y), 62 + ceil(log2 g) bits.  On the
device a x (< 2^62) is four 16 x 16-bit limb products, the reduction mod P is shifts and adds
(2^31 = 1 mod P), and the reduction mod g a fixed 31-step restoring division: no divide, no
long multiply, no branch on x.

Universality.  For x != x' in [0, P) the map (a, b) -> (r, s) = (a x + b, a x' + b) mod P is
a bijection from [1, P) x [0, P) onto the pairs r != s of [0, P)^2.  So h(x) = h(x') with
probability exactly

    c = sum_j n_j (n_j - 1) / (P (P - 1)),   n_j = #{r in [0, P) : r mod g = j},

the same for every pair x != x' (``collision_probability``), and c <= 1/g (n_j <= ceil(P/g)).
For P = 2^31 - 1 and g <= 2^16, 1/g - c < 2^-30.  tests/test_local_hashing.py checks c by
enumerating every (a, b) for small primes and domains.  The estimator uses this exact c, not
1/g, so it is exactly unbiased.  d <= P (distinct items stay distinct mod P).

Realized parameters.  g is an integer: round(e^eps) + 1 (OLH; from the certified lower bound
on e^eps) or 2 (BLH), at most MAX_G = 2^16.  q = w / 2^bits and p = a_p / 2^bits with
a_p = 2^bits - (g - 1) w, w = ceil(2^bits / (lo + g - 1)) for a certified lo <= e^eps, so the
realized epsilon ln(a_p / w) never exceeds the request (the smallest such w, so p is as large
as the rounding allows); the privacy map rounds ln(a_p / w) up (log_up) and the exact audit
attains a_p / w (some seed separates any two items).  Privacy does not depend on the hash: the
seed is independent of x, so P(a, b, y | x) / P(a, b, y | x') <= p / q for every output.

Sampling (the bit order the reference, Numba and C all read):

1. a = 1 + uniform_below(P - 1), b = uniform_below(P) (public: they are sent);
2. lazy: s = uniform_below(g - 1), then honest = bernoulli_dyadic(a_p, bits);
   y = h(x) if honest else (h(x) + 1 + s) mod g;
   constant time: U = the next ``bits`` bits; the offset t = #{j in [1, g) : U >= a_p + (j-1) w}
   (0 with probability p, each j w.p. q), y = (h(x) + t) mod g.  The C form counts t with a
   branch-free scan of the g - 1 thresholds.

Constant time means: time and bit use independent of x (and of the response).  The seed draw's
retries depend only on the seed's own draws, which are independent of x and published with the
report; outside a retry (probability < 2^-29 per report) the constant-time form reads exactly
62 + bits bits.

Estimation: S_v = #{reports with h_{a,b}(v) = y} (``support_counts``, a Numba kernel, O(n d)
additions: h(v + 1) follows from h(v) by adding a mod P), E[S_v / n] = f_v p + (1 - f_v) q*,
q* = c p + (1 - c) q; the estimate (S_v / n - q*) / (p - q*) is unbiased with variance
(f p (1 - p) + (1 - f) q* (1 - q*)) / (n (p - q*)^2).

Every input is an item index in [0, d); anything else is refused (ValueError, FXDP_ERR_PARAM in
C): unlike k-ary randomized response, local hashing has no "not an item" answer.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import exp_interval, float_up, log_down, log_up
from ...reports import AuditReport, Estimate, Support, ratio_eps, reports_array
from ...samplers import reference as ref
from ...validate import check_int
from .._device import SRC_RNG, _ct_text, _init, _p, u8, u32, u64
from .._oracle import ItemOracle
from ..base import CConfig, answers

MERSENNE_P = (1 << 31) - 1      # the hash prime of every device form (FXDP_LOCAL_HASHING_PRIME)
MAX_G = 1 << 16                 # FXDP_LOCAL_HASHING_MAX_G in csrc/fxdp.h
MAX_D = MERSENNE_P              # FXDP_LOCAL_HASHING_MAX_D: items must stay distinct mod P
SEED_BITS = 62                  # a and b, 31 bits each (without retries)
PMF_MAX_OUTPUTS = 200_000       # output_pmf enumerates P (P - 1) g outputs (small test primes only)
SRC_LOCAL_HASHING = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_local_hashing.c"]


def hash_value(a, b, x, g, prime=MERSENNE_P):
    """h_{a,b}(x) = ((a x + b) mod prime) mod g."""
    return ((a * x + b) % prime) % g


def collision_probability(g, prime=MERSENNE_P):
    """P(h(x) = h(x')) for any x != x' in [0, prime), a uniform in [1, prime), b in [0, prime):
    sum_j n_j (n_j - 1) / (prime (prime - 1)), exactly (module docstring)."""
    m, r = divmod(prime, g)                   # r residues hold m + 1 values, g - r hold m
    pairs = r * (m + 1) * m + (g - r) * m * (m - 1)
    return Fraction(pairs, prime * (prime - 1))


def realize(epsilon, bits, optimized):
    """(g, a_p, w): g = round(e^eps) + 1 (optimized) or 2, q = w / 2^bits the smallest dyadic
    with p / q = a_p / w <= e^eps, a_p = 2^bits - (g - 1) w."""
    lo, _ = exp_interval(epsilon)                          # lo <= e^eps
    g = int(math.floor(lo + Fraction(1, 2))) + 1 if optimized else 2
    two_k = 1 << bits
    w = int(math.ceil(Fraction(two_k) / (lo + g - 1)))
    return g, two_k - (g - 1) * w, w


def _is_prime(n):
    return n >= 2 and all(n % k for k in range(2, math.isqrt(n) + 1))


class LocalHashing(ItemOracle):
    """Local hashing over d items (see the module docstring).  ``prime`` other than 2^31 - 1 (a
    small prime, for the enumeration tests) has no device form."""
    kind = "local_hashing"
    MAX_D = MAX_D

    def __init__(self, d, epsilon, optimized=True, constant_time=False, bits=32, *, prime=MERSENNE_P):
        self._check_args(d, epsilon, bits, optimized=optimized, constant_time=constant_time)
        if prime != MERSENNE_P:
            prime = check_int("prime", prime, 3, 251)
            if not _is_prime(prime):
                raise ValueError(f"prime must be 2^31 - 1 or a prime in [3, 251], got {prime}")
            self._args["prime"] = prime
        if self.d > prime:
            raise ValueError(f"d must be in [2, {prime}] for the hash prime {prime}, got {self.d}")
        self.prime = prime
        g, a_p, w = realize(self.epsilon_requested, self.bits, optimized)
        eps_f = float(self.epsilon_requested)
        if g > min(MAX_G, prime):
            top = min(MAX_G, prime)
            nearest = log_down(top - 1)
            raise ValueError(f"epsilon = {eps_f!r} gives g = round(e^eps) + 1 = {g} hash values, more than "
                             f"{top}: the nearest valid epsilon is {nearest!r}")
        if a_p <= w:
            two_k = 1 << self.bits
            w_best = -(-two_k // g) - 1                      # the largest w with a_p > w
            nearest = float_up(Fraction(log_up(Fraction(two_k - (g - 1) * w_best, w_best)))) if w_best else None
            raise ValueError(f"epsilon = {eps_f!r} is too small for bits = {self.bits}: p rounds to q "
                             f"(g = {g}); the nearest valid epsilon is {nearest!r} (or use more bits)")
        self.g, self.a_p, self.w = g, a_p, w
        two_k = 1 << self.bits
        self.p, self.q = Fraction(a_p, two_k), Fraction(w, two_k)
        self.collision = collision_probability(g, prime)
        self.q_star = self.collision * self.p + (1 - self.collision) * self.q
        self._ratio = Fraction(a_p, w)
        self._eps = log_up(self._ratio)

    @property
    def output_domain(self):
        return f"(hash seed a in [1, {self.prime}), b in [0, {self.prime}), y in [0, {self.g}))"

    def realized(self):
        return {"g": self.g, "p": self.p, "q": self.q, "a_p": self.a_p, "w": self.w, "bits": self.bits,
                "prime": self.prime, "collision": self.collision, "epsilon": self._eps}

    @property
    def bits_per_report(self):
        return 2 * (self.prime - 1).bit_length() + (self.g - 1).bit_length()

    # --- releases
    def hash(self, a, b, x):
        return hash_value(a, b, x, self.g, self.prime)

    def release(self, src, x):
        """(a, b, y): the seed, then the GRR of h(x) (module docstring, steps 1 and 2)."""
        a = 1 + ref.uniform_below(src, self.prime - 1)
        b = ref.uniform_below(src, self.prime)
        hx = self.hash(a, b, x)
        if self.constant_time:
            u = src.bits64(self.bits)
            t = 0 if u < self.a_p else 1 + (u - self.a_p) // self.w
            y = (hx + t) % self.g
        else:
            s = ref.uniform_below(src, self.g - 1)
            honest = ref.bernoulli_dyadic(src, self.a_p, self.bits)
            y = hx if honest else (hx + 1 + s) % self.g
        return (int(a), int(b), int(y))

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores): values are n item indices in [0, d); device i draws
        from the keyed stream (seed, device_ids[i], stream 0), bit-identical to the C library.
        Returns an n x 3 int64 array of reports (a, b, y); raises ValueError / EntropyError
        (nothing returned)."""
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_local_hashing import fleet_local_hashing
        out = np.zeros((x.shape[0], 3), dtype=np.int64)
        fleet_local_hashing(key, ids, first_block, np.uint64(self.a_p), np.uint64(self.w), np.uint64(self.bits),
                            np.uint64(self.g), np.uint64(self.prime), bool(self.constant_time), x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    # --- reports on the wire (docs/wire.md)
    report_dtype = "int64"         # decoded reports as simulate returns them

    def report_fields(self):
        """(a, b, y): the hash seed a in [1, P), b in [0, P), and y in [0, g)."""
        from .._wire import ReportField
        return [ReportField("a", 1, 1, self.prime - 1), ReportField("b", 1, 0, self.prime - 1),
                ReportField("y", 1, 0, self.g - 1)]

    # --- estimation
    def _reports(self, reports):
        r = reports_array(reports)
        if r.ndim != 2 or r.shape[1] != 3:
            raise ValueError("reports must be an n x 3 array of (a, b, y)")
        r = r.astype(np.int64, copy=False)
        if r.size and (r[:, 0].min() < 1 or r[:, 0].max() >= self.prime or r[:, 1].min() < 0
                       or r[:, 1].max() >= self.prime or r[:, 2].min() < 0 or r[:, 2].max() >= self.g):
            raise ValueError(f"reports must hold a in [1, {self.prime}), b in [0, {self.prime}), "
                             f"y in [0, {self.g})")
        return r

    def support_counts(self, reports, items=None):
        """S_v = #{reports (a, b, y) with h_{a,b}(v) = y} for every item v, and n (Numba, O(n d),
        devices in SIMD lanes: ``_kernels_local_hashing.support_counts_blocked``).
        items: None (all of [0, d)) or a range(lo, hi) of items, 0 <= lo < hi <= d, step 1: then
        S_v for v in it only (O(n (hi - lo)); the variance table at d = 65536 samples items so)."""
        from ._kernels_local_hashing import support_counts_blocked
        r = self._reports(reports)
        lo, hi = self._item_window(items)
        a = np.ascontiguousarray(r[:, 0])
        # h_{a,b}(lo + u) = h_{a,b'}(u) with b' = (a lo + b) mod P: the kernel counts u in [0, hi - lo)
        # (a, b < 2^31 and lo < d < 2^31: a lo + b < 2^63, exact in int64)
        b = np.ascontiguousarray((a * lo + r[:, 1]) % self.prime) if lo else np.ascontiguousarray(r[:, 1])
        # the blocked kernel (devices in SIMD lanes); _kernels_local_hashing.support_counts is its reference
        counts = support_counts_blocked(a, b, np.ascontiguousarray(r[:, 2]), hi - lo, self.g, self.prime)
        return counts, r.shape[0]

    def _item_window(self, items):
        if items is None:
            return 0, self.d
        if not isinstance(items, range) or items.step != 1 or not 0 <= items.start < items.stop <= self.d:
            raise ValueError(f"items must be None or a range(lo, hi) with 0 <= lo < hi <= d = {self.d}, step 1, "
                             f"got {items!r}")
        return items.start, items.stop

    def frequency_support(self, reports, items=None):
        """Support counts S_v with p = P(h(x) = y | x) and q* = P(h(v) = y | x != v) (exact);
        items as in ``support_counts`` (the counts are then those of the items in the range)."""
        s, n = self.support_counts(reports, items)
        return Support(np.asarray(s, dtype=np.int64), int(n), self.p, self.q_star)

    def estimate(self, reports):
        """Unbiased item frequencies f_v = (S_v / n - q*) / (p - q*) (module docstring); the
        standard error plugs f_v clipped to [0, 1] into the closed-form variance."""
        s, n = self.support_counts(reports)
        if n == 0:
            raise ValueError("reports: no reports to estimate from")
        p, qs = float(self.p), float(self.q_star)
        est = (s / n - qs) / (p - qs)
        return Estimate("frequency", est, np.sqrt(self.variance(np.clip(est, 0.0, 1.0), n)))

    def variance(self, f, n):
        """Closed-form variance of the frequency estimate of an item with true frequency f:
        (f p (1 - p) + (1 - f) q* (1 - q*)) / (n (p - q*)^2)."""
        p, qs = float(self.p), float(self.q_star)
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) * qs * (1 - qs)) / (n * (p - qs) ** 2)

    # --- device form
    def _device_check(self):
        if self.prime != MERSENNE_P:
            raise ValueError(f"prime = {self.prime}: the C device form hashes mod 2^31 - 1 only")

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base); d <= FXDP_LOCAL_HASHING_MAX_D = 2^31 - 1,
        g <= FXDP_LOCAL_HASHING_MAX_G = 65536; out = (a, b, y)."""
        self._device_check()
        ct = self.constant_time
        name = "optimized (OLH)" if self.optimized else "binary (BLH)"
        return {
            "c_function": "fxdp_local_hashing_ct" if ct else "fxdp_local_hashing",
            "cfg_type": "fxdp_local_hashing_cfg",
            "cfg_init": _init([("a_p", u64(self.a_p)), ("w", u64(self.w)), ("d", u32(self.d)), ("g", u32(self.g)),
                               ("bits", u8(self.bits))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 3},
            "sources": list(SRC_LOCAL_HASHING),
            "summary": (f"local hashing, {name}, over d = {self.d} items: hash h(x) = ((a x + b) mod 2^31-1) mod "
                        f"g = {self.g}, report (a, b, y), y = h(x) w.p. p = {_p(self.p)}, each other value w.p. "
                        f"q = {_p(self.q)} ({self.bits_per_report} bits per report); epsilon <= {self.epsilon!r}; "
                        + (f"constant time in x (seed: 62 bits unless a retry, p < 2^-29; then exactly "
                           f"{self.bits} bits, branch-free)" if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        self._device_check()
        cfg = native.ffi.new("fxdp_local_hashing_cfg *", {"a_p": self.a_p, "w": self.w, "d": self.d, "g": self.g,
                                               "bits": self.bits})
        return CConfig(cfg, [], "fxdp_local_hashing" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32, out_count=3)

    def release_output(self, out):
        return tuple(int(v) for v in out)

    # --- audit and plots
    def exact_audit(self, d_in=1):
        """The seed is independent of x, so P(a, b, y | x) / P(a, b, y | x') is p/q, 1 or q/p.  Every
        pair x != x' has a seed with h(x) != h(x') (the seeds map onto all pairs r != s mod P), so
        the worst ratio is p / q = a_p / w, exactly; for (0, 1) the seed (1, 0) gives h = 0, 1."""
        if d_in != 1:
            return super().exact_audit(d_in)
        witness = {"x": 0, "x_prime": 1, "output": "(a, b, y) = (1, 0, 0): h(0) = 0, h(1) = 1",
                   "ratio": str(self._ratio), "p": str(self.p), "q": str(self.q)}
        return AuditReport(repr(self), self.epsilon, ratio_eps(self._ratio), witness,
                           method="exact (closed form: p / q)")

    def audit_pairs(self):
        return [(x, xp) for x in range(self.d) for xp in range(self.d) if x != xp]

    def _enumerable(self):
        size = self.prime * (self.prime - 1) * self.g
        if size > PMF_MAX_OUTPUTS:
            raise ValueError(f"the exact output distribution has P (P - 1) g = {size} outputs; it is enumerated "
                             f"only for small test primes (prime=...) up to {PMF_MAX_OUTPUTS} (fxdp.audit gives "
                             f"the closed form)")

    def output_pmf(self, x):
        """Exact pmf of the report (a, b, y) (small test primes only)."""
        self._enumerable()
        x = self.check_input(x)
        seed = Fraction(1, self.prime * (self.prime - 1))
        pin, pout = seed * self.p, seed * self.q
        return {(a, b, y): (pin if y == self.hash(a, b, x) else pout)
                for a in range(1, self.prime) for b in range(self.prime) for y in range(self.g)}

    def output_distribution(self, x, x_prime):
        self._enumerable()
        return super().output_distribution(x, x_prime)


def _oracle_configs(epsilon, d, bits):
    """``oracle_configs`` (fxdp.mechanisms.base.answers): OLH and BLH; a report sends the hash
    seed and y in [0, g) (``bits_per_report``)."""
    return [{"d": d, "epsilon": epsilon, "optimized": opt, "bits": bits} for opt in (True, False)]


@answers(oracle_configs=_oracle_configs)
def make_local_hashing(d, epsilon, optimized=True, constant_time=False, bits=32):
    """Local hashing over d items (2 <= d <= 2^31 - 1): optimized (OLH, g = round(e^eps) + 1 hash
    values, at most 65536) or binary (BLH, g = 2); epsilon in (0, 64], realized with dyadic
    p = a_p / 2^bits, q = w / 2^bits so that the realized epsilon ln(a_p / w) (``m.epsilon``)
    never exceeds the requested one.  Reports are (a, b, y): 62 + ceil(log2 g) bits."""
    return LocalHashing(d, epsilon, optimized, constant_time, bits)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'local_hashing': ('Wang, Blocki, Li, Jha 2017 (OLH, BLH)',
        '`d = 1000`, `epsilon = 2`, `optimized = true`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Local hashing: the report is (a, b, y), three uint32s.  CT: OLH at d = 1024, eps = 2 (g = 8: the
    # footprint case of issue 10); lazy: OLH at eps = 1 (g = 4: uniform_below(3) retries w.p. 1/4 and
    # the lazy Bernoulli's length varies, so the check that the lazy form varies applies).
    'local_hashing_ct': lambda: make_local_hashing(1024, 2, constant_time=True),
    'local_hashing_lazy': lambda: make_local_hashing(100, 1),
}
EXPORT_VARIANTS: set[str] = set()
