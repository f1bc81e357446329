"""Microsoft's dBitFlip (Ding, Kulkarni and Yekhanin, "Collecting Telemetry Data Privately",
NeurIPS 2017, section 3) with the memoization of its section 4, exact on dyadic probabilities.

Parameters (``make_dbitflip(d, buckets, epsilon, sampled_buckets=1, constant_time=False, bits=32)``):
``d`` items [0, d) (the paper's domain), ``buckets`` = the paper's k histogram buckets, and
``sampled_buckets`` = the paper's d (the buckets a device reports on).  Item x lies in bucket
v = floor(x * buckets / d) (equal-width buckets, as the paper's histogram over a range; buckets = d
makes every item its own bucket).

A device holds a 256-bit secret K (8 x bits(32); simulation: the keyed stream (seed, device id, 1),
as the longitudinal oracles).  From K alone, once and for all:

1. its **sampled buckets** J = {j_1 < ... < j_s}, s = sampled_buckets distinct buckets uniformly
   at random: Floyd's algorithm on the stream ChaCha20(key = K, nonce (0, 0, 3)): for j = k - s ..
   k - 1, t = uniform_below(j + 1), add j if t is already chosen, else t; then sorted ascending;
2. for each bucket v, its **memoized response** on J: bit i is 1 w.p. p = a_p/2^bits if j_i = v,
   else q = a_q/2^bits, drawn in the order i = 0..s-1 from ChaCha20(key = K, nonce (v, 0, 4)) (lazy:
   bernoulli_dyadic; constant time: bernoulli_dyadic_ct, exactly bits bits each).

A report of item x is (j_1, ..., j_s, b_1, ..., b_s) for x's bucket: the same answer for the same
bucket, round after round, with nothing stored (memoized by derivation).  No round draws anything
from the round's stream (the round stream of a simulated device, the rng of the C entry point
when it is keyed, is never read: bits_used stays 0); the C export entry point derives K from the
sibling of its keyed rng (nonce word 2 = 1), or draws K from any other rng (then nothing is
memoized).

Probabilities: p = e^(eps/2)/(e^(eps/2) + 1), q = 1 - p (the paper's), realized as a_p/2^bits
rounded toward 1/2 with a certified lower bound on e^(eps/2) (unary encoding's SUE realization),
a_q = 2^bits - a_p.  Privacy: J is independent of x and the bits are independent given J, so the
worst ratio of one report is (a_p/a_q)^2 when s >= 2 (J holds both buckets, the bits there
disagree) and a_p/a_q when s = 1 (one bit differs): ``m.epsilon`` is its log rounded up (about
epsilon, or epsilon/2 at s = 1: the paper's parametrization is kept and the exact value reported).
Any number of reports of one item repeat one answer: ``m.epsilon_infinite`` = ``m.epsilon``;
reports of k distinct buckets spend k epsilon (``epsilon_reports``).

Estimator (the paper's, as frequencies): with N_v the reports whose J holds v and Y_v those of
them with the bit of v set, f_v = (k/(n s)) (Y_v - q N_v)/(p - q), unbiased for the share of
bucket v, Var f_v = ((k/s) p q/(p - q)^2 + f_v (k/s - 1))/n exactly (devices independent within a
round).  ``frequency_support``: Y_v with p* = s p/k, q* = s q/k (P(a report supports v)) for IBU.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import numpy as np

from ...bitsource import ChaCha20Source
from ...conservative import float_up, log_up
from ...reports import AuditReport, Estimate, Support, ratio_eps, reports_array, worst_pair
from ...samplers import reference as ref
from ...validate import check_int, check_rational, given
from .._device import SRC_RNG, _init, _p, u8, u32, u64
from .._oracle import MAX_EPSILON
from ..base import CConfig
from .longitudinal import _Longitudinal, provision, secret_from_seed
from ..oracles.subset_selection import UNIFORM_VERSION, check_uniform_version
from ..oracles.unary_encoding import realize as realize_ue

MAX_DEVICE_D = 65536          # FXDP_DBITFLIP_MAX_D: x * buckets < 2^32 on the device
MAX_DEVICE_SAMPLED = 32       # FXDP_DBITFLIP_MAX_S: the sampled buckets live on the stack (uint16 each)
SAMPLE_NONCE_WORD2 = 3        # nonce (0, 0, 3): the sampled buckets
RESPONSE_NONCE_WORD2 = 4      # nonce (v, 0, 4): the memoized response of bucket v
SRC_DBITFLIP = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_dbitflip.c"]
M32 = (1 << 32) - 1


def _keyed(secret, n0, word2):
    if len(secret) != 8 or any(not 0 <= int(w) <= M32 for w in secret):
        raise ValueError("secret must be 8 words in [0, 2^32 - 1]")
    return ChaCha20Source(None, key=[int(w) for w in secret], nonce=[int(n0), 0, word2])


def sample_source(secret):
    """The stream of the sampled buckets: ChaCha20(key = secret, nonce (0, 0, 3))."""
    return _keyed(secret, 0, SAMPLE_NONCE_WORD2)


def response_source(secret, v):
    """The stream of bucket v's memoized response: ChaCha20(key = secret, nonce (v, 0, 4))."""
    return _keyed(secret, v, RESPONSE_NONCE_WORD2)


def sample_buckets(src, k, s, budget=False):
    """s distinct buckets of [0, k), uniform, ascending (Floyd's algorithm, module docstring).
    budget (the constant-time form at uniform_version 2, issue 32): each draw by the fixed-budget
    uniform_below_ct; RangeError after all s draws if one ran out of rounds (t = 0 for it, as in C)."""
    chosen, ok = [], True
    for j in range(k - s, k):
        if budget:
            t = ref.uniform_below_ct_or_none(src, j + 1)
            if t is None:
                ok, t = False, 0
        else:
            t = ref.uniform_below(src, j + 1)
        chosen.append(j if t in chosen else t)
    if not ok:
        from ...errors import RangeError
        raise RangeError("dbitflip: a sampled bucket's draw ran out of its budget (probability < "
                         "sampled (buckets / 2^32)^4, the same for every report of this device); nothing released")
    return sorted(chosen)


class DBitFlip(_Longitudinal):
    """dBitFlip over d items in `buckets` buckets, `sampled_buckets` bits per report (module docstring)."""
    kind = "dbitflip"
    report_dtype = "int64"        # decoded reports as simulate returns them: (n, 2 s) buckets then bits
    AUDIT_ENUM_OUTPUTS = 4096
    MAX_D = 1 << 20

    def __init__(self, d, buckets, epsilon, sampled_buckets=1, constant_time=False, bits=32,
                 uniform_version=UNIFORM_VERSION):
        self.d = check_int("d", d, 2, self.MAX_D)
        self.k = check_int("buckets", buckets, 2, self.d)
        self.s = check_int("sampled_buckets", sampled_buckets, 1, self.k)
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, MAX_EPSILON, lo_open=True)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        self.constant_time = constant_time
        self.bits = check_int("bits", bits, 2, 63)
        self._args = {"d": self.d, "buckets": self.k, "epsilon": given(epsilon), "sampled_buckets": self.s,
                      "constant_time": constant_time, "bits": self.bits}
        self.uniform_version = check_uniform_version(uniform_version)
        # 0 lazy; 1 constant time, buckets by rejection (before issue 32); 2 with the fixed budget
        self.ct_mode = 0 if not constant_time else (2 if uniform_version == 2 else 1)
        if uniform_version != UNIFORM_VERSION:       # pinned: shown in config() and repr
            self._args["uniform_version"] = uniform_version
        self._secret = None
        two_k = 1 << self.bits
        self.a_p, self.a_q = realize_ue(self.epsilon_requested, False, self.bits)
        if not 0 < self.a_q < self.a_p < two_k:
            half = two_k // 2
            nearest = float_up(2 * Fraction(log_up(Fraction(half + 1, half - 1))))
            raise ValueError(f"epsilon = {float(self.epsilon_requested)!r} is too small for bits = {self.bits}: "
                             f"p = e^(eps/2)/(e^(eps/2) + 1) rounds to 1/2; the nearest valid epsilon is "
                             f"{nearest!r} (or use more bits)")
        self.p, self.q = Fraction(self.a_p, two_k), Fraction(self.a_q, two_k)
        bit_ratio = Fraction(self.a_p, self.a_q)
        ratio = bit_ratio ** 2 if self.s >= 2 else bit_ratio
        self._set_ratios(ratio, ratio)

    # --- the bucket map and privacy
    def bucket(self, x):
        """The bucket of item x: floor(x * buckets / d)."""
        return self.check_input(x) * self.k // self.d

    def bucket_of(self, values):
        """Buckets of an array of items (int64)."""
        return (self.fleet_inputs(values) * self.k) // self.d

    def epsilon_reports(self, n, distinct_items=1):
        """epsilon of n reports holding `distinct_items` distinct items (at most that many distinct
        buckets, each answered once and for all): min(n, distinct_items) epsilon, rounded up."""
        n = check_int("n", n, 0)
        k = check_int("distinct_items", distinct_items, 0, n)
        if n == 0:
            return 0.0
        if k == 0:
            raise ValueError("distinct_items must be >= 1 when n >= 1")
        return float_up(Fraction(self._eps) * min(n, k))

    def permanent_mechanism(self):
        """The mechanism itself: every report is the memoized answer, so what any number of reports
        of one item reveal is one report (epsilon_infinite = epsilon)."""
        return self

    # --- the device
    def permanent_step(self, src, x):
        """A report of x with every draw from one stream src: J, then the bits of x's bucket
        (the device draws them from two streams of its secret; this form is enumerated)."""
        v = self.bucket(x)
        J = sample_buckets(src, self.k, self.s, self.ct_mode == 2)
        return J + self.respond(src, J, v)

    def respond(self, src, J, v):
        """The bits on the sampled buckets J for bucket v, drawn from src in order."""
        draw = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return [int(draw(src, self.a_p if j == v else self.a_q, self.bits)) for j in J]

    def sampled(self, secret):
        """The device's sampled buckets (ascending), from its secret."""
        return sample_buckets(sample_source(secret), self.k, self.s, self.ct_mode == 2)

    def permanent(self, secret, x):
        """The memoized report of item x by the device with this secret."""
        v = self.bucket(x)
        J = self.sampled(secret)
        return J + self.respond(response_source(secret, v), J, v)

    def report(self, src, x, secret):
        """One report of item x by the device `secret`: its memoized answer (src, the round's
        stream, is not read: dBitFlip draws nothing per round)."""
        return self.permanent(secret, x)

    # --- fleet simulation
    def _run_rounds(self, key, ids, fb, x, status, bits):
        from ._kernels_dbitflip import fleet_dbitflip
        out = np.zeros(x.shape + (2 * self.s,), np.int64)
        fleet_dbitflip(key, ids, fb, np.uint64(self.d), np.uint64(self.k), np.uint64(self.s), np.uint64(self.a_p),
                       np.uint64(self.a_q), np.uint64(self.bits), np.int64(self.ct_mode), x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    def release_output(self, out):
        return [int(v) for v in out]

    # --- reports on the wire (docs/wire.md)
    def report_fields(self):
        """(bucket x s, bit x s): the sampled buckets in [0, buckets), then their bits."""
        from .._wire import ReportField
        return [ReportField("bucket", self.s, 0, self.k - 1), ReportField("bit", self.s, 0, 1)]

    @property
    def bits_per_report(self):
        return self.s * ((self.k - 1).bit_length() + 1)

    # --- estimation
    def true_statistic(self, values):
        """Each bucket's share."""
        return self.truth_from_tally(self.truth_tally(values))

    def truth_tally(self, values):
        """Each bucket's count, then the number of devices (tally[:-1] / tally[-1] is the truth)."""
        v = self.bucket_of(values)
        return np.append(np.bincount(v, minlength=self.k), v.shape[0]).astype(np.int64)

    def bucket_counts(self, reports):
        """(Y, N, n): per bucket v, the reports whose sampled buckets hold v with its bit set (Y)
        and all those holding v (N); n reports of one round."""
        r = reports_array(reports)
        if r.ndim != 2 or r.shape[1] != 2 * self.s:
            raise ValueError(f"reports must be one round's n x 2 sampled_buckets = n x {2 * self.s} array "
                             "(buckets, then bits)")
        r = r.astype(np.int64, copy=False)
        J, b = r[:, :self.s], r[:, self.s:]
        if r.shape[0] and (J.min() < 0 or J.max() >= self.k or b.min() < 0 or b.max() > 1
                           or (self.s > 1 and (np.diff(J, axis=1) <= 0).any())):
            raise ValueError(f"reports must hold increasing buckets in [0, {self.k - 1}] and 0/1 bits")
        N = np.bincount(J.ravel(), minlength=self.k).astype(np.int64)
        Y = np.bincount(J[b == 1], minlength=self.k).astype(np.int64)
        return Y, N, r.shape[0]

    def estimate_from_counts(self, Y, N, n):
        """The paper's unbiased estimate from the bucket counts (module docstring), with the
        closed-form standard error at f clipped to [0, 1]."""
        if n == 0:
            raise ValueError("reports: no reports to estimate from")
        p, q = float(self.p), float(self.q)
        est = (self.k / (n * self.s)) * (np.asarray(Y, np.float64) - q * np.asarray(N, np.float64)) / (p - q)
        return Estimate("frequency", est, np.sqrt(self.variance(np.clip(est, 0.0, 1.0), n)))

    def estimate(self, reports):
        """Unbiased bucket frequencies of one round's reports (the paper's estimator)."""
        return self.estimate_from_counts(*self.bucket_counts(reports))

    def variance(self, f, n):
        """Closed-form variance of one round's estimate of a bucket with share f:
        ((k/s) p q/(p - q)^2 + f (k/s - 1))/n."""
        p, q = float(self.p), float(self.q)
        f = np.asarray(f, dtype=np.float64)
        ks = self.k / self.s
        return (ks * p * q / (p - q) ** 2 + f * (ks - 1)) / n

    def support_probabilities(self):
        """(p*, q*): P(a report supports bucket v | bucket v), P(... | another bucket), exact."""
        return self.s * self.p / self.k, self.s * self.q / self.k

    def frequency_support(self, reports):
        """Y_v (sampled and set) with p* = s p/k, q* = s q/k, for IBU."""
        Y, _, n = self.bucket_counts(reports)
        p, q = self.support_probabilities()
        return Support(Y, int(n), p, q)

    def report_statistic(self):
        """(Y, N, n) per bucket, mergeable (O(buckets) memory)."""
        return BucketCounts(self)

    # --- audit
    @property
    def output_domain(self):
        return (f"TupleDomain(sampled buckets: {self.s} increasing in [0, {self.k}), "
                f"bits: VectorDomain(AtomDomain(bool), size={self.s}))")

    def realized(self):
        return {"a_p": self.a_p, "a_q": self.a_q, "p": self.p, "q": self.q, "buckets": self.k,
                "sampled_buckets": self.s, **self.realized_common()}

    def _enumerable(self):
        size = math.comb(self.k, self.s) << self.s
        if size > self.AUDIT_ENUM_OUTPUTS or self.d > 16:
            raise ValueError(f"the exact pmf enumerates C(buckets, s) 2^s = {size} reports of d = {self.d} "
                             f"items: at most {self.AUDIT_ENUM_OUTPUTS} reports and 16 items (fxdp.audit gives "
                             "the closed form)")

    def output_pmf(self, x):
        """Exact pmf of one report of x (small parameters): J uniform over s-subsets, independent bits."""
        self._enumerable()
        v = self.bucket(x)
        w = Fraction(1, math.comb(self.k, self.s))
        out = {}
        for J in combinations(range(self.k), self.s):
            for b in product((0, 1), repeat=self.s):
                pr = w
                for j, bit in zip(J, b):
                    one = self.p if j == v else self.q
                    pr *= one if bit else 1 - one
                out[tuple(J) + b] = pr
        return out

    permanent_pmf = output_pmf

    def audit_pairs(self):
        return [(x, xp) for x in range(self.d) for xp in range(self.d) if x != xp]

    def exact_audit(self, d_in=1):
        """Enumeration of output_pmf for small parameters, else the closed form (a_p/a_q)^2 (s >= 2)
        or a_p/a_q (s = 1); epsilon_infinite is the same (one memoized answer per bucket)."""
        if d_in != 1:
            return super(_Longitudinal, self).exact_audit(d_in)
        try:
            self._enumerable()
            ratio, wit = worst_pair(self.audit_pairs(), self.output_pmf)
            method = "exact enumeration"
        except ValueError:
            ratio = self._ratio
            x1 = -(-self.d // self.k)                 # the least item of bucket 1
            out = ("J holds buckets 0 and 1, bit 1 at bucket 0 and 0 at bucket 1" if self.s >= 2
                   else "J = {0}, bit 1")
            wit = {"x": 0, "x_prime": x1, "output": out}
            method = "exact (closed form)"
        witness = dict(wit) if isinstance(wit, dict) else {"pair": wit}
        witness.update({"ratio": str(ratio), "epsilon_infinite_realized": ratio_eps(ratio),
                        "epsilon_infinite_claimed": self._eps_inf})
        return AuditReport(repr(self), self.epsilon, ratio_eps(ratio), witness, method=method)

    def output_distribution(self, x, x_prime):
        self._enumerable()
        return super().output_distribution(x, x_prime)

    # --- device form
    def _device_check(self):
        if self.d > MAX_DEVICE_D or self.s > MAX_DEVICE_SAMPLED:
            raise ValueError(f"d = {self.d}, sampled_buckets = {self.s}: the C device form holds at most "
                             f"FXDP_DBITFLIP_MAX_D = {MAX_DEVICE_D} items and FXDP_DBITFLIP_MAX_S = {MAX_DEVICE_SAMPLED} "
                             "sampled buckets")

    def _cfg_dict(self):
        return {"a_p": self.a_p, "d": self.d, "buckets": self.k, "sampled": self.s, "bits": self.bits,
                "uniform_version": self.uniform_version}

    def device_spec(self, dim=None):
        """The C device form: fxdp_dbitflip[_ct], d <= 65536, sampled_buckets <= 32; out = 2 s uint32
        (the sampled buckets ascending, then their bits)."""
        self._device_check()
        ct = self.constant_time
        return {
            "c_function": "fxdp_dbitflip_ct" if ct else "fxdp_dbitflip",
            "cfg_type": "fxdp_dbitflip_cfg",
            "cfg_init": _init([("a_p", u64(self.a_p)), ("d", u32(self.d)), ("buckets", u32(self.k)),
                               ("sampled", u8(self.s)), ("bits", u8(self.bits)),
                               ("uniform_version", u8(self.uniform_version))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 2 * self.s},
            "sources": list(SRC_DBITFLIP),
            "workspace": "fxdp_dbitflip_work",     # the export calls the _w form with a static workspace
            "summary": (f"dBitFlip over d = {self.d} items in {self.k} buckets, {self.s} sampled buckets "
                        f"memoized from the device secret, bit 1 w.p. p = {_p(self.p)} at the item's bucket, "
                        f"q = {_p(self.q)} elsewhere ({self.bits_per_report} bits per report); epsilon one report "
                        f"<= {self.epsilon!r}, any number of one item <= {self._eps_inf!r}; "
                        + (f"constant time in x (exactly {self.s * self.bits} bits per response, branch-free; "
                           "the sampled buckets' draws depend on the secret only)" if ct else
                           "lazy (not constant time: time and bits used depend on the draw)")),
        }

    def c_config(self, dim=None):
        from ... import native
        self._device_check()
        cfg = native.ffi.new("fxdp_dbitflip_cfg *", self._cfg_dict())
        return CConfig(cfg, [], "fxdp_dbitflip" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32, out_ctype="uint32_t", out_dtype=np.uint32, out_count=2 * self.s)

    def harness_inputs(self):
        return {"kind": "index", "n": self.d}


class BucketCounts:
    """dBitFlip's mergeable sufficient statistic: per bucket Y (sampled and set) and N (sampled), n."""

    def __init__(self, mechanism):
        self.m = mechanism
        self.Y = np.zeros(mechanism.k, np.int64)
        self.N = np.zeros(mechanism.k, np.int64)
        self._n = 0

    @property
    def n(self) -> int:
        return self._n

    def add(self, reports):
        Y, N, n = self.m.bucket_counts(reports)
        self.Y += Y
        self.N += N
        self._n += int(n)
        return self

    def merge(self, other):
        self.Y += other.Y
        self.N += other.N
        self._n += other.n
        return self

    def estimate_rows(self, truth=None):
        return self.m.estimate_from_counts(self.Y, self.N, self._n).as_rows(truth)


def make_dbitflip(d, buckets, epsilon, sampled_buckets=1, constant_time=False, bits=32, uniform_version=UNIFORM_VERSION):
    """dBitFlip (Ding et al. 2017) over d items (2 <= d <= 2^20; C device form d <= 65536) in `buckets`
    equal-width buckets (2 <= buckets <= d; item x in bucket x * buckets // d): each device samples
    `sampled_buckets` (the paper's d; 1..buckets, C form <= 32) distinct buckets once and reports a bit
    per sampled bucket, 1 w.p. e^(eps/2)/(e^(eps/2)+1) at its bucket, 1/(e^(eps/2)+1) elsewhere, memoized
    per bucket from the device secret.  ``m.epsilon`` (one report; about epsilon, epsilon/2 when
    sampled_buckets = 1) = ``m.epsilon_infinite`` (any number of reports of one item); epsilon in
    (0, 64], probabilities over 2^bits, bits in 2..63.  uniform_version (constant_time=True only,
    issue 32): 2 (default) draws the sampled buckets with the fixed-budget uniform_below_ct (128 bits
    each, the same time for every secret; the device fails for good, RangeError / FXDP_ERR_RANGE,
    with probability below sampled (buckets / 2^32)^4 <= 2^-59); 1 pins the rejection draws of the
    releases before issue 32 (docs/constant_time.md)."""
    return DBitFlip(d, buckets, epsilon, sampled_buckets, constant_time, bits, uniform_version)


__all__ = ["make_dbitflip", "DBitFlip", "BucketCounts", "sample_buckets", "sample_source", "response_source",
           "provision", "secret_from_seed"]

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'dbitflip': ('Ding, Kulkarni, Yekhanin 2017',
        '`d = 1024`, `buckets = 32`, `epsilon = 2`, `sampled_buckets = 4`, `constant_time = true` (item x in bucket x * buckets // d; estimates per bucket)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # dBitFlip: every release provisions the secret (a block) and derives the sampled-bucket and response
    # streams (two more).  Floyd's draws of the sampled buckets reject with a probability that varies
    # with the secret (never with x), and this check varies the secret: the CT case takes buckets = 2,
    # sampled = 2 (bounds 1 and 2: no rejection; membership, choice and exchange sort still run).
    # tests/test_dbitflip.py checks that the CT count is independent of x on a fixed device.
    'dbitflip_ct': lambda: make_dbitflip(12, 2, 2, sampled_buckets=2, constant_time=True),
    # Since issue 32 the CT form draws its sampled buckets with the fixed budget (uniform_version 2): the
    # same time for every secret also at buckets = 64, sampled = 3 (bounds 62, 63: the rejection draws reject).
    'dbitflip_ct_b64': lambda: make_dbitflip(256, 64, 2, sampled_buckets=3, constant_time=True),
    'dbitflip_lazy': lambda: make_dbitflip(40, 8, 2, sampled_buckets=3, bits=3),
}
EXPORT_VARIANTS: set[str] = set()
