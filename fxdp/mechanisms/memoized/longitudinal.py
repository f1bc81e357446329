"""Longitudinal (memoized) frequency oracles: L-GRR and L-OUE (Arcolezi, Couchot, Al Bouna and Xiao,
"Improving the utility of locally differentially private protocols for longitudinal and
multidimensional frequency estimates", 2022), exact on dyadic probabilities.

A device reports an item of [0, d) round after round.  Each report chains two randomizers:

1. the **permanent** response y1 of item x, memoized *by derivation*: it is drawn from the ChaCha20
   stream keyed by the device's 256-bit secret K with nonce (x, 0, 2), so the same (K, x) always
   gives the same y1 and nothing is stored (item indices need no hashing; full RAPPOR's model);
2. the **instantaneous** response y2 of y1, drawn afresh each round from the device's own round
   stream (simulation: the keyed stream (seed, device id, 0), rounds drawn consecutively).

K is 8 x bits(32) from a bit source, once per device (simulation: the keyed stream (seed, device
id, 1); the export entry points derive it from the sibling of their rng's keyed stream).

* ``longitudinal_grr`` (L-GRR): both steps are k-ary (generalized) randomized response over d
  items.  Permanent: the truth w.p. w0/2^bits, each other item w/2^bits, w0 + (d-1) w = 2^bits,
  w = ceil(2^bits / (e^eps_perm + d - 1)).  Instantaneous: the same with (v0, v).  Report: an item.
* ``longitudinal_ue`` (L-OUE in this module's name; the paper's L-OSUE, multi-freq-ldpy's
  ``L_OSUE``): OUE for the permanent step (bit i is 1 w.p. p1 = 1/2 at the item, q1 = a_q1/2^bits
  elsewhere, q1 rounded up from 1/(e^eps_perm + 1)), SUE for the instantaneous one (bit i of the
  report is 1 w.p. p2 = a_p2/2^bits if the permanent bit is 1, 1 - p2 if it is 0).  Report: d bits.

Parameters.  The permanent step is realized from eps_perm so that its epsilon never exceeds it
(``epsilon_infinite``: what any number of reports of one item reveal).  The instantaneous step is
then the *least noisy* dyadic one (v smallest, a_p2 largest, found by bisection on exact Fractions)
whose composed channel has an exact one-report ratio certified <= e^eps_1
(``fxdp.conservative.exp_le``); ``epsilon`` is its log rounded up.  Reports of distinct items spend
epsilon_infinite per distinct item (each has its own memoized permanent response).

Bit use, lazy forms (reference = Numba = C): a GRR step on input x draws s = uniform_below(d - 1),
s += 1 if s >= x, honest = bernoulli_dyadic(w0, bits) and answers x if honest else s; a UE step
draws one bernoulli_dyadic per item, i = 0..d-1.  Constant-time forms: a GRR step draws u =
bits(bits) and answers (x + #{j < d-1 : w0 + j w <= u}) mod d by a full branch-free scan; a UE step
draws bernoulli_dyadic_ct per item (exactly bits bits each).  The permanent draws read the
permanent stream, the instantaneous ones the round stream (so a round's bits_used is the
instantaneous step's alone: bits per report in CT form, d bits per report for UE).
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np

from ...bitsource import BitSource, ChaCha20Source, default_source
from ...conservative import exp_interval, exp_le, float_up, log_up
from ...reports import AuditReport, Support, ratio_eps, reports_array, worst_pair
from ...samplers import reference as ref
from ...validate import check_int, check_rational, given
from .._device import SRC_RNG, _ct_text, _init, _p, u8, u32, u64
from .._oracle import ItemOracle
from ..base import CConfig, Mechanism
from ..oracles.unary_encoding import realize as realize_ue

MAX_GRR_DEVICE_D = 65536      # FXDP_LONGITUDINAL_GRR_MAX_D: the constant-time scan is O(d)
MAX_UE_DEVICE_D = 1024        # FXDP_LONGITUDINAL_UE_MAX_D: two d-bit stack buffers
MAX_ROUNDS = 1 << 20
PERMANENT_NONCE_WORD2 = 2     # nonce (x, 0, 2) of the permanent stream
SECRET_STREAM = 1             # the keyed stream (seed, id, 1) provisions the secret
SRC_LONGITUDINAL = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_longitudinal.c"]
M32 = (1 << 32) - 1


# --------------------------------------------------------------------------
# the device: its secret and its permanent stream

def provision(src):
    """A device secret from a BitSource: 8 x bits(32) (exactly 256 bits, constant time)."""
    return tuple(src.bits(32) for _ in range(8))


def secret_from_seed(seed, device_id=0):
    """The secret of the simulated device `device_id` of a fleet with `seed` (stream 1)."""
    return provision(ChaCha20Source(seed, device_id, SECRET_STREAM))


def permanent_source(secret, x):
    """The permanent stream of (device, item x): ChaCha20(key = secret, nonce (x, 0, 2))."""
    if len(secret) != 8 or any(not 0 <= int(w) <= M32 for w in secret):
        raise ValueError("secret must be 8 words in [0, 2^32 - 1]")
    return ChaCha20Source(None, key=[int(w) for w in secret], nonce=[int(x), 0, PERMANENT_NONCE_WORD2])


def sibling_source(src):
    """The secret's stream for an export release on src: the keyed stream with src's key and
    nonce words 0, 1 and word 2 = 1 when src is a ChaCha20Source (fresh, counter 0), else src."""
    if isinstance(src, ChaCha20Source):
        return ChaCha20Source(None, key=src.key, nonce=[src.nonce[0], src.nonce[1], SECRET_STREAM],
                              version=src.version)
    return src


# --------------------------------------------------------------------------
# the GRR step

def grr_step(src, x, d, w0, w, bits, ct):
    """One k-ary randomized response of x in [0, d) with weights (w0 for x, w for each other)/2^bits."""
    if ct:
        u = src.bits(bits)
        off = sum(1 for j in range(d - 1) if w0 + j * w <= u)
        return (x + off) % d
    s = ref.uniform_below(src, d - 1)
    if s >= x:
        s += 1
    honest = ref.bernoulli_dyadic(src, w0, bits)
    return x if honest else s


def realize_grr(epsilon, d, bits):
    """(w0, w) over 2^bits for k-ary RR at epsilon: w = ceil(2^bits / (e^eps + d - 1)) (more noise),
    so w0/w = 2^bits/w - (d - 1) <= e^eps."""
    lo, _ = exp_interval(epsilon)
    two_k = 1 << bits
    w = math.ceil(Fraction(two_k) / (lo + d - 1))
    return int(two_k - (d - 1) * w), int(w)


def _bisect_last(lo, hi, ok):
    """Largest v in [lo, hi] with ok(v), ok monotone (True then False); None if ok(lo) is False."""
    if lo > hi or not ok(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


class _Longitudinal(ItemOracle):
    """What L-GRR and L-UE share: arguments, the device secret, rounds, the two privacy levels."""
    MAX_D = 1 << 20

    def _check_long_args(self, d, epsilon_perm, epsilon_1, constant_time, bits, max_bits):
        self.d = check_int("d", d, 2, self.MAX_D)
        self.epsilon_perm_requested = check_rational("epsilon_perm", epsilon_perm, 0, 64, lo_open=True)
        self.epsilon_1_requested = check_rational("epsilon_1", epsilon_1, 0, self.epsilon_perm_requested,
                                                  lo_open=True, hi_open=True)
        self.epsilon_requested = self.epsilon_1_requested
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        self.constant_time = constant_time
        self.bits = check_int("bits", bits, 2, max_bits)
        self._args = {"d": self.d, "epsilon_perm": given(epsilon_perm), "epsilon_1": given(epsilon_1),
                      "constant_time": constant_time, "bits": self.bits}
        self._secret = None

    def _set_ratios(self, one, perm):
        self._ratio, self._ratio_perm = one, perm
        self._eps = log_up(one)
        self._eps_inf = log_up(perm)

    # --- privacy
    @property
    def epsilon_infinite(self):
        """epsilon of any number of reports of one item (the permanent step), rounded up."""
        return self._eps_inf

    def epsilon_reports(self, n, distinct_items=1):
        """epsilon of n reports holding `distinct_items` distinct items: min(n eps, k eps_inf) for
        k distinct items (each has its own memoized permanent response), rounded up."""
        n = check_int("n", n, 0)
        k = check_int("distinct_items", distinct_items, 0, n)
        if n == 0:
            return 0.0
        if k == 0:
            raise ValueError("distinct_items must be >= 1 when n >= 1")
        return min(float_up(Fraction(self._eps) * n), float_up(Fraction(self._eps_inf) * k))

    def permanent_mechanism(self):
        """The permanent step alone as a mechanism (epsilon = epsilon_infinite); fxdp.audit of it is
        the infinitely-many-reports audit."""
        return LongitudinalPermanent(self)

    # --- the device
    @property
    def secret(self):
        """The device secret used by __call__/release: from system entropy on first use."""
        if self._secret is None:
            self._secret = provision(default_source())
        return self._secret

    @secret.setter
    def secret(self, value):
        value = tuple(int(w) for w in value)
        permanent_source(value, 0)          # validates
        self._secret = value

    def permanent(self, secret, x):
        """The memoized permanent response of item x by the device with this secret."""
        return self.permanent_step(permanent_source(secret, self.check_input(x)), x)

    def report(self, src, x, secret):
        """One report of item x by the device `secret`, its instantaneous draws from src."""
        x = self.check_input(x)
        return self.instantaneous_step(src, self.permanent_step(permanent_source(secret, x), x))

    release_checks_input = True     # report() checks x

    def release(self, src, x):
        """One report of x by self.secret's device, the round's draws from src."""
        return self.report(src, x, self.secret)

    def release_export(self, src, x):
        """What the C export entry point fxdp_longitudinal_*[_ct](r, cfg, x, out) computes: the
        device secret provisioned from sibling_source(src), then one report drawn from src."""
        secret = provision(sibling_source(src))
        return self.report(src, x, secret)

    def __call__(self, x, rng=None, secret=None):
        """One report of x by the device `secret` (default self.secret), drawn from rng (default
        system entropy)."""
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        return self.report(rng, x, self.secret if secret is None else secret)

    # --- fleet simulation
    def round_inputs(self, values, rounds):
        """(x int64 (rounds, n), squeeze): values (n,) fixed per device (rounds times; rounds None:
        one round, squeezed) or (rounds, n) items per round."""
        from .._fleet import int_array
        arr = np.asarray(values)
        if arr.ndim == 2:
            x = int_array(f"values (items in [0, {self.d - 1}])", arr.reshape(-1), 1, 0, self.d - 1)
            x = x.reshape(arr.shape)
            if rounds is not None and check_int("rounds", rounds, 1, MAX_ROUNDS) != x.shape[0]:
                raise ValueError(f"rounds = {rounds} but values has {x.shape[0]} rows (one per round)")
            if x.shape[0] < 1 or x.shape[0] > MAX_ROUNDS:
                raise ValueError(f"values must have 1..{MAX_ROUNDS} rows (rounds)")
            return np.ascontiguousarray(x), False
        x = self.fleet_inputs(values)
        r = 1 if rounds is None else check_int("rounds", rounds, 1, MAX_ROUNDS)
        return np.array(np.broadcast_to(x, (r, x.shape[0])), order="C"), rounds is None   # writable: one kernel signature

    def simulate_detailed(self, values, seed, rounds=None, device_ids=None, first_block=None):
        """(out, status uint8 (n,), bits_used int64 (n,), ids): the fleet kernel without raising
        (first_block: where every round stream starts, None = 0; tests move it to run out)."""
        from .._fleet import check_first_block
        from .._fleet import check_device_ids, check_seed
        key = check_seed(seed)
        x, squeeze = self.round_inputs(values, rounds)
        n = x.shape[1]
        ids = check_device_ids(device_ids, n)
        fb = np.uint32(check_first_block(first_block))
        status = np.zeros(n, np.uint8)
        bits = np.zeros(n, np.int64)
        out = self._run_rounds(key, ids, fb, x, status, bits)
        return (out[0] if squeeze else out), status, bits, ids

    def simulate(self, values, seed, rounds=None, device_ids=None):
        """Fleet simulation (Numba, all cores).  Device i (id device_ids[i], default i) holds the
        secret of the keyed stream (seed, id, 1) and draws its rounds' instantaneous responses
        consecutively from the keyed stream (seed, id, 0).  values: (n,) items, one per device,
        reported in each of `rounds` rounds, or a (rounds, n) matrix of items per round.  Returns
        one round's reports ((n,) items for GRR, (n, d) bits for UE) when rounds is None and
        values is 1-D, else (rounds, n) / (rounds, n, d).  Bit-identical to the reference
        (``report``) and to C; raises ValueError / EntropyError (nothing returned)."""
        from .._fleet import _finish
        out, status, _, ids = self.simulate_detailed(values, seed, rounds, device_ids)
        return _finish(out, status, None, ids, f"{self.kind}.simulate")

    def run_fleet(self, key, ids, first_block, x, status, bits):
        """One round through the generic driver (fxdp.mechanisms._fleet; x: (n,) items)."""
        return self._run_rounds(key, ids, first_block, x.reshape(1, -1), status, bits)[0]

    # --- estimation
    def estimate(self, reports):
        """Unbiased frequencies of one round's reports, f_i = (Y_i/n - q*)/(p* - q*), with
        Var(f_i) = (f_i p*(1-p*) + (1-f_i) q*(1-q*)) / (n (p* - q*)^2) exactly: p*, q* the composed
        channel's support probabilities (``support_probabilities``); devices are independent
        within a round.  The standard error plugs in f_i clipped to [0, 1]."""
        return self.frequency_support(reports).unbiased()

    def estimate_rounds(self, reports):
        """One Estimate per round of simulate's (rounds, n[, d]) reports."""
        r = np.asarray(reports)
        return [self.estimate(r[i]) for i in range(r.shape[0])]

    def variance(self, f, n):
        """Closed-form variance of one round's frequency estimate of an item with frequency f."""
        p, q = (float(v) for v in self.support_probabilities())
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)

    # --- audit
    def exact_audit(self, d_in=1):
        """The one-report epsilon of the composed channel (enumeration of output_pmf for small d,
        else the closed form; they agree) and, in the witness, the permanent step's exact
        epsilon against epsilon_infinite."""
        if d_in != 1:
            return super().exact_audit(d_in)
        if self.d <= self.AUDIT_ENUM_D:
            ratio, wit = worst_pair(self.audit_pairs(), self.output_pmf)
            perm, _ = worst_pair(self.audit_pairs(), self.permanent_pmf)
            method = "exact enumeration (composed channel; permanent step)"
        else:
            ratio, perm, wit = self._ratio, self._ratio_perm, self._closed_witness()
            method = "exact (closed form of the composed channel; permanent step)"
        witness = dict(wit) if isinstance(wit, dict) else {"pair": wit}
        witness.update({"ratio": str(ratio), "permanent_ratio": str(perm),
                        "epsilon_infinite_realized": ratio_eps(perm),
                        "epsilon_infinite_claimed": self._eps_inf})
        return AuditReport(repr(self), self.epsilon, ratio_eps(ratio), witness, method=method)

    def audit_pairs(self):
        return [(x, xp) for x in range(self.d) for xp in range(self.d) if x != xp]

    def realized_common(self):
        return {"epsilon": self._eps, "epsilon_infinite": self._eps_inf, "bits": self.bits}


class LongitudinalGRR(_Longitudinal):
    """L-GRR over d items (see the module docstring)."""
    report_dtype = "int64"         # decoded reports as simulate returns them (items)
    kind = "longitudinal_grr"
    AUDIT_ENUM_D = 12

    def __init__(self, d, epsilon_perm, epsilon_1, constant_time=False, bits=32):
        self._check_long_args(d, epsilon_perm, epsilon_1, constant_time, bits, 32)
        two_k = 1 << self.bits
        if self.d > two_k // 2:
            raise ValueError(f"d = {self.d}: at most 2^(bits-1) = {two_k // 2} items at bits = {self.bits}")
        self.w0, self.w = realize_grr(self.epsilon_perm_requested, self.d, self.bits)
        if self.w0 <= self.w:
            w = -(-two_k // self.d) - 1                 # the noisiest w with w0 > w: the least epsilon
            nearest = log_up(Fraction(two_k - (self.d - 1) * w, w)) if w >= 1 else None
            raise ValueError(f"epsilon_perm = {float(self.epsilon_perm_requested)!r} is too small for d = {self.d}, "
                             f"bits = {self.bits}: the permanent probabilities round to uniform; the nearest valid "
                             f"epsilon_perm is {nearest!r} (or use more bits)")
        self.p1, self.q1 = Fraction(self.w0, two_k), Fraction(self.w, two_k)

        def ok(v_neg):
            return exp_le(self._composed_ratio(-v_neg), self.epsilon_1_requested)
        v_max = two_k // self.d
        v_neg = _bisect_last(-v_max, -1, ok)        # the smallest v (least noise) that is private enough
        if v_neg is None:
            raise ValueError(f"epsilon_1 = {float(self.epsilon_1_requested)!r} is too small for d = {self.d}, bits = "
                             f"{self.bits}: no dyadic instantaneous step reaches it; the nearest valid epsilon_1 is "
                             f"{log_up(self._composed_ratio(v_max))!r} (or use more bits)")
        self.v = -v_neg
        self.v0 = two_k - (self.d - 1) * self.v
        self.p2, self.q2 = Fraction(self.v0, two_k), Fraction(self.v, two_k)
        self._set_ratios(self._composed_ratio(self.v), Fraction(self.w0, self.w))

    def _composed(self, v):
        """(P, Q): P(report = x | x), P(report = y | x) for y != x, with instantaneous weight v."""
        two_k = 1 << self.bits
        p1, q1 = self.p1, self.q1
        p2, q2 = Fraction(two_k - (self.d - 1) * v, two_k), Fraction(v, two_k)
        return p1 * p2 + (1 - p1) * q2, p1 * q2 + q1 * p2 + (self.d - 2) * q1 * q2

    def _composed_ratio(self, v):
        big, small = self._composed(v)
        return big / small

    def support_probabilities(self):
        """(p*, q*): P(report = i | item i), P(report = i | another item), exact."""
        return self._composed(self.v)

    @property
    def output_domain(self):
        return f"AtomDomain(item index in [0, {self.d}))"

    def realized(self):
        p, q = self.support_probabilities()
        return {"w0": self.w0, "w": self.w, "v0": self.v0, "v": self.v, "p1": self.p1, "q1": self.q1,
                "p2": self.p2, "q2": self.q2, "p_star": p, "q_star": q, **self.realized_common()}

    def permanent_step(self, src, x):
        return grr_step(src, x, self.d, self.w0, self.w, self.bits, self.constant_time)

    def instantaneous_step(self, src, y1):
        return grr_step(src, y1, self.d, self.v0, self.v, self.bits, self.constant_time)

    def _run_rounds(self, key, ids, fb, x, status, bits):
        from ._kernels_longitudinal import fleet_longitudinal_grr
        out = np.zeros(x.shape, np.int64)
        fleet_longitudinal_grr(key, ids, fb, np.uint64(self.d), np.uint64(self.w0), np.uint64(self.w),
                               np.uint64(self.v0), np.uint64(self.v), np.uint64(self.bits),
                               bool(self.constant_time), x, out, status, bits)
        return out

    def frequency_support(self, reports):
        """Support counts of one round: the reports equal to each item; p*, q* of the composed channel."""
        y = reports_array(reports)
        if y.ndim != 1:
            raise ValueError("reports must be one round's n items (simulate(...)[r] for round r)")
        if y.min() < 0 or y.max() >= self.d:
            raise ValueError(f"reports must be items in [0, {self.d - 1}]")
        p, q = self.support_probabilities()
        return Support(np.bincount(y, minlength=self.d).astype(np.int64), int(y.size), p, q)

    def _step_pmf(self, x, big, small):
        two_k = 1 << self.bits
        return {y: Fraction(big if y == x else small, two_k) for y in range(self.d)}

    def permanent_pmf(self, x):
        return self._step_pmf(x, self.w0, self.w)

    def instantaneous_pmf(self, y1):
        return self._step_pmf(y1, self.v0, self.v)

    def output_pmf(self, x):
        """Exact pmf of one report of x (the composed channel)."""
        p, q = self.support_probabilities()
        return {y: (p if y == x else q) for y in range(self.d)}

    def _closed_witness(self):
        p, q = self.support_probabilities()
        return {"x": 0, "x_prime": 1, "output": 0, "p_star": str(p), "q_star": str(q)}

    # --- device form
    def _cfg_fields(self):
        return [("d", u32(self.d)), ("w0", u32(self.w0)), ("w", u32(self.w)), ("v0", u32(self.v0)),
                ("v", u32(self.v)), ("bits", u8(self.bits))]

    def device_spec(self, dim=None):
        """The C device form: fxdp_longitudinal_grr[_ct], d <= FXDP_LONGITUDINAL_GRR_MAX_D = 65536."""
        if self.d > MAX_GRR_DEVICE_D:
            raise ValueError(f"d = {self.d}: the C device form holds at most FXDP_LONGITUDINAL_GRR_MAX_D = "
                             f"{MAX_GRR_DEVICE_D} items")
        ct = self.constant_time
        return {
            "c_function": "fxdp_longitudinal_grr_ct" if ct else "fxdp_longitudinal_grr",
            "cfg_type": "fxdp_longitudinal_grr_cfg",
            "cfg_init": _init(self._cfg_fields()),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 1, "min": 0, "max": self.d - 1},
            "sources": list(SRC_LONGITUDINAL),
            "workspace": "fxdp_lgrr_work",    # the export calls the _w form with a static workspace
            "summary": (f"longitudinal GRR over d = {self.d} items: permanent GRR p1 = {_p(self.p1)} memoized "
                        f"from the device secret, instantaneous GRR p2 = {_p(self.p2)}; epsilon one report <= "
                        f"{self.epsilon!r}, any number <= {self._eps_inf!r}; " + _ct_text(ct, self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_longitudinal_grr_cfg *", {"d": self.d, "w0": self.w0, "w": self.w, "v0": self.v0,
                                                      "v": self.v, "bits": self.bits})
        return CConfig(cfg, [], "fxdp_longitudinal_grr" + ("_ct" if self.constant_time else ""),
                       self.constant_time, "uint32_t", np.uint32, out_ctype="uint32_t", out_dtype=np.uint32)

    def release_output(self, out):
        return int(out[0])

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)


class LongitudinalUE(_Longitudinal):
    """L-OUE (OUE permanent, SUE instantaneous; the paper's L-OSUE) over d items (module docstring)."""
    kind = "longitudinal_ue"
    AUDIT_ENUM_D = 6
    MAX_D = 1 << 16

    def __init__(self, d, epsilon_perm, epsilon_1, constant_time=False, bits=32):
        self._check_long_args(d, epsilon_perm, epsilon_1, constant_time, bits, 63)
        two_k = 1 << self.bits
        self.a_p1, self.a_q1 = realize_ue(self.epsilon_perm_requested, True, self.bits)
        if not 0 < self.a_q1 < self.a_p1:
            raise ValueError(f"epsilon_perm = {float(self.epsilon_perm_requested)!r} is too small for bits = "
                             f"{self.bits}: q1 rounds to 1/2; the nearest valid epsilon_perm is "
                             f"{float_up(Fraction(log_up(Fraction(two_k // 2 + 1, two_k // 2 - 1))))!r} "
                             "(or use more bits)")
        self.p1, self.q1 = Fraction(self.a_p1, two_k), Fraction(self.a_q1, two_k)
        a = _bisect_last(two_k // 2 + 1, two_k - 1,
                         lambda a: exp_le(self._composed_ratio(a), self.epsilon_1_requested))
        if a is None:
            raise ValueError(f"epsilon_1 = {float(self.epsilon_1_requested)!r} is too small for bits = {self.bits}: "
                             f"the instantaneous p2 rounds to 1/2; the nearest valid epsilon_1 is "
                             f"{float_up(Fraction(log_up(self._composed_ratio(two_k // 2 + 1))))!r} "
                             "(or use more bits)")
        self.a_p2 = a
        self.p2 = Fraction(a, two_k)
        self.q2 = 1 - self.p2
        self._set_ratios(self._composed_ratio(a), self.p1 * (1 - self.q1) / ((1 - self.p1) * self.q1))

    def _composed(self, a_p2):
        p2 = Fraction(a_p2, 1 << self.bits)
        q2 = 1 - p2
        return self.p1 * p2 + (1 - self.p1) * q2, self.q1 * p2 + (1 - self.q1) * q2

    def _composed_ratio(self, a_p2):
        ps, qs = self._composed(a_p2)
        return ps * (1 - qs) / ((1 - ps) * qs)

    def support_probabilities(self):
        """(p*, q*): P(report bit i = 1 | item i), P(bit i = 1 | another item), exact."""
        return self._composed(self.a_p2)

    @property
    def output_domain(self):
        return f"VectorDomain(AtomDomain(bool), size={self.d})"

    def realized(self):
        p, q = self.support_probabilities()
        return {"a_p1": self.a_p1, "a_q1": self.a_q1, "a_p2": self.a_p2, "p1": self.p1, "q1": self.q1,
                "p2": self.p2, "q2": self.q2, "p_star": p, "q_star": q, **self.realized_common()}

    def _draw(self, src, a):
        return int((ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic)(src, a, self.bits))

    def permanent_step(self, src, x):
        return [self._draw(src, self.a_p1 if i == x else self.a_q1) for i in range(self.d)]

    def instantaneous_step(self, src, b1):
        two_k = 1 << self.bits
        return [self._draw(src, self.a_p2 if b else two_k - self.a_p2) for b in b1]

    def _run_rounds(self, key, ids, fb, x, status, bits):
        from ._kernels_longitudinal import fleet_longitudinal_ue
        out = np.zeros(x.shape + (self.d,), np.uint8)
        fleet_longitudinal_ue(key, ids, fb, np.uint64(self.a_p1), np.uint64(self.a_q1), np.uint64(self.a_p2),
                              np.uint64(self.bits), bool(self.constant_time), x, out, status, bits)
        return out

    def simulate_support(self, values, seed, device_ids=None, first_block=None):
        """The support of one round of ``simulate``'s reports (values: (n,) items) without the n x d
        matrix: equal to ``frequency_support(simulate(values, seed, device_ids=device_ids))`` (the same
        bits; column sums per worker in O(d) memory, for large n d such as the variance table at
        d = 65536).  Raises as ``simulate`` does (nothing returned) if any device fails."""
        from .._fleet import support_counts
        from ._kernels_longitudinal import CHUNK, fleet_longitudinal_ue_counts
        params = (np.uint64(self.a_p1), np.uint64(self.a_q1), np.uint64(self.a_p2), np.uint64(self.bits),
                  bool(self.constant_time))
        counts, n = support_counts(self, values, seed, device_ids, first_block, CHUNK, fleet_longitudinal_ue_counts,
                                   params)
        p, q = self.support_probabilities()
        return Support(counts, n, p, q)

    def frequency_support(self, reports):
        """Support counts of one round: the reports with bit i set; p*, q* of the composed channel."""
        y = reports_array(reports)
        if y.ndim != 2 or y.shape[1] != self.d:
            raise ValueError(f"reports must be one round's n x d = n x {self.d} matrix of bits")
        if y.min() < 0 or y.max() > 1:
            raise ValueError("reports must hold 0/1 bits")
        p, q = self.support_probabilities()
        return Support(y.sum(axis=0, dtype=np.int64), y.shape[0], p, q)

    def _vector_pmf(self, x, per_bit):
        out = {}
        for y in product((0, 1), repeat=self.d):
            pr = Fraction(1)
            for i, b in enumerate(y):
                one = per_bit(i)
                pr *= one if b else 1 - one
            out[y] = pr
        return out

    def _check_enum(self):
        if self.d > 12:
            raise ValueError(f"the pmf enumerates 2^d reports: d <= 12, got {self.d}")

    def permanent_pmf(self, x):
        self._check_enum()
        return self._vector_pmf(x, lambda i: self.p1 if i == x else self.q1)

    def instantaneous_pmf(self, b1):
        self._check_enum()
        return self._vector_pmf(None, lambda i: self.p2 if b1[i] else self.q2)

    def output_pmf(self, x):
        """Exact pmf of one report of x (2^d outputs, small d): independent bits, p* at x, q* elsewhere."""
        self._check_enum()
        p, q = self.support_probabilities()
        return self._vector_pmf(x, lambda i: p if i == x else q)

    def _closed_witness(self):
        p, q = self.support_probabilities()
        return {"x": 0, "x_prime": 1, "output": "bit 0 = 1, bit 1 = 0, any other bits",
                "p_star": str(p), "q_star": str(q)}

    def output_distribution(self, x, x_prime):
        if self.d > 10:
            raise ValueError(f"longitudinal UE over d = {self.d} items has 2^{self.d} reports: the exact distribution "
                             "is enumerated only up to d = 10 (fxdp.audit gives the worst case in product form)")
        return super().output_distribution(x, x_prime)

    # --- device form
    def device_spec(self, dim=None):
        """The C device form: fxdp_longitudinal_ue[_ct], d <= FXDP_LONGITUDINAL_UE_MAX_D = 1024."""
        if self.d > MAX_UE_DEVICE_D:
            raise ValueError(f"d = {self.d}: the C device form holds at most FXDP_LONGITUDINAL_UE_MAX_D = "
                             f"{MAX_UE_DEVICE_D} items")
        ct = self.constant_time
        return {
            "c_function": "fxdp_longitudinal_ue_ct" if ct else "fxdp_longitudinal_ue",
            "cfg_type": "fxdp_longitudinal_ue_cfg",
            "cfg_init": _init([("a_p1", u64(self.a_p1)), ("a_q1", u64(self.a_q1)), ("a_p2", u64(self.a_p2)),
                               ("d", u32(self.d)), ("bits", u8(self.bits))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint8_t", "count": self.d, "min": 0, "max": 1},
            "sources": list(SRC_LONGITUDINAL),
            "in_place": True,       # drawn into out, zeroed on an entropy failure
            "workspace": "fxdp_lue_work",     # the export calls the _w form with a static workspace
            "summary": (f"longitudinal UE over d = {self.d} items: permanent OUE (p1 = 1/2, q1 = {_p(self.q1)}) "
                        f"memoized from the device secret, instantaneous SUE p2 = {_p(self.p2)}; epsilon one report "
                        f"<= {self.epsilon!r}, any number <= {self._eps_inf!r}; " + _ct_text(ct, self.d * self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_longitudinal_ue_cfg *", {"a_p1": self.a_p1, "a_q1": self.a_q1, "a_p2": self.a_p2,
                                                     "d": self.d, "bits": self.bits})
        return CConfig(cfg, [], "fxdp_longitudinal_ue" + ("_ct" if self.constant_time else ""),
                       self.constant_time, "uint32_t", np.uint32, out_ctype="uint8_t", out_dtype=np.uint8,
                       out_count=self.d)

    def release_output(self, out):
        return [int(v) for v in out]


class LongitudinalPermanent(Mechanism):
    """The permanent step of a longitudinal oracle alone: what an observer of any number of reports
    of one item can at most learn.  Its epsilon is the parent's epsilon_infinite."""
    input_metric = "DiscreteMetric"

    def __init__(self, parent):
        self.parent = parent
        self.kind = parent.kind + "_permanent"
        self.constant_time = parent.constant_time

    input_domain = property(lambda self: self.parent.input_domain)
    output_domain = property(lambda self: self.parent.output_domain)

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self.parent.epsilon_infinite

    def config(self):
        return self.parent.config()

    def __repr__(self):
        return repr(self.parent) + ".permanent_mechanism()"

    def realized(self):
        return self.parent.realized()

    def check_input(self, x):
        return self.parent.check_input(x)

    def release(self, src, x):
        """The permanent step drawn from src (a device draws it from its permanent stream)."""
        return self.parent.permanent_step(src, x)

    def audit_pairs(self):
        return self.parent.audit_pairs()

    def output_pmf(self, x):
        return self.parent.permanent_pmf(x)

    def exact_audit(self, d_in=1):
        if d_in == 1 and self.parent.d > self.parent.AUDIT_ENUM_D:
            return AuditReport(repr(self), self.epsilon, ratio_eps(self.parent._ratio_perm),
                               {"ratio": str(self.parent._ratio_perm)}, method="exact (closed form)")
        return super().exact_audit(d_in)


def make_longitudinal_grr(d, epsilon_perm, epsilon_1, constant_time=False, bits=32):
    """L-GRR over d items (2 <= d <= 2^(bits-1); C device form d <= 65536): a memoized permanent k-ary
    RR at epsilon_perm (any number of reports of one item: ``m.epsilon_infinite`` <= epsilon_perm)
    chained with an instantaneous k-ary RR so that one report has ``m.epsilon`` <= epsilon_1
    (0 < epsilon_1 < epsilon_perm <= 64); probabilities over 2^bits, bits in 2..32."""
    return LongitudinalGRR(d, epsilon_perm, epsilon_1, constant_time, bits)


def make_longitudinal_ue(d, epsilon_perm, epsilon_1, constant_time=False, bits=32):
    """L-OUE over d items (2 <= d <= 65536; C device form d <= 1024): a memoized permanent OUE at
    epsilon_perm chained with an instantaneous SUE so that one report has ``m.epsilon`` <= epsilon_1
    (0 < epsilon_1 < epsilon_perm <= 64); probabilities over 2^bits, bits in 2..63."""
    return LongitudinalUE(d, epsilon_perm, epsilon_1, constant_time, bits)


__all__ = ["make_longitudinal_grr", "make_longitudinal_ue", "LongitudinalGRR", "LongitudinalUE",
           "LongitudinalPermanent", "provision", "secret_from_seed", "permanent_source"]

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'longitudinal_grr': ('Arcolezi et al. 2022', '`d = 16`, `epsilon_perm = 4`, `epsilon_1 = 1`, `constant_time = true`'),
    'longitudinal_ue': ('Arcolezi et al. 2022 (L-OSUE)', '`d = 64`, `epsilon_perm = 4`, `epsilon_1 = "1/2"`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # a release: provision (a block), permanent stream (one), round (one): ~160,000 AVR cycles;
    # d = 12 keeps a constant-time L-OUE release within one block of each stream
    'longitudinal_grr_ct': lambda: make_longitudinal_grr(10, 4, 1, constant_time=True),
    'longitudinal_grr_lazy': lambda: make_longitudinal_grr(10, 4, 1),
    'longitudinal_ue_ct': lambda: make_longitudinal_ue(12, 4, 1, constant_time=True),
    'longitudinal_ue_lazy': lambda: make_longitudinal_ue(12, 4, 1),
}
EXPORT_VARIANTS = {'longitudinal_grr_lazy', 'longitudinal_ue_lazy'}
