"""The full RAPPOR client (Erlingsson, Pihur, Korolova, CCS 2014), exact and integer-only.

(Over 700 lines, one module: the client's hashing, PRR, IRR, device state, exact pmfs and protocol
glue share every realized parameter; its kernels and server side are the family's other modules,
``_kernels_rappor_full.py`` and ``rappor_full_estimate.py``.)

A device holds a 256-bit secret K and a cohort c (its whole state; nothing
is memoized in storage).  A report of a value v is

1. **Bloom filter** B (k bits, h hashes, cohort-specific): bit i is set iff
   i = pos_j(c, v) for some j < h, where
   ``pos_j = ((SipHash-2-4(hash_key, u32le(c) || u32le(j) || block(v)) >> 32) * k) >> 32``;
2. **permanent randomized response** B' (memoized per value by derivation):
   B'_i = B_i XOR Bernoulli(f/2), the Bernoulli draws coming from the
   ChaCha20 stream keyed by K with nonce (d_lo, d_hi, 1), where
   ``d = SipHash-2-4(prr_key, u32le(c) || u32le(0xFFFFFFFF) || block(v))`` and
   prr_key = words 0..3 of ChaCha20_block(K, 0, (0, 0, 0));  the same (K, c, v)
   always gives the same B', so the PRR is memoized without storage;
3. **instantaneous randomized response** S: S_i = Bernoulli(q) if B'_i else
   Bernoulli(p), drawn from the report's bit source, i = 0..k-1 in order.

The report is (c, S).  f/2, p, q are dyadic a/2^bits; docs/rappor_full.md
gives the bit use, the epsilon derivation and the rounding rules.

This module is the reference (the test oracle).  The Numba kernels
(``_kernels_rappor_full``) and the C library (``csrc/fxdp_mech_rappor_full.c``)
compute bit-identical results.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np

from ...bitsource import BitSource, ChaCha20Source, chacha20_block, default_source
from ...conservative import float_up, log_up
from ...errors import EntropyError, raise_for_status
from ...samplers import reference as ref
from ...strhash import parse_key
from ...validate import check_int, check_rational, given
from ..base import Mechanism

MAX_K = 1024            # C: FXDP_RAPPOR_FULL_MAX_K (stack buffer of MAX_K / 8 bytes)
MAX_H = 16              # C: FXDP_RAPPOR_FULL_MAX_H
MAX_COHORTS = 1 << 16
MAX_VALUE_BYTES = 256   # the length byte of an encoded value holds 0..255
PRR_HASH_INDEX = 0xFFFFFFFF
DEFAULT_HASH_KEY = b"fxdp rappor full"   # 16 bytes; public (the server hashes candidates with it)
M64 = (1 << 64) - 1
M32 = (1 << 32) - 1

# --------------------------------------------------------------------------
# SipHash-2-4 (Aumasson, Bernstein 2012): 128-bit key, 64-bit output


def _rotl64(x, b):
    return ((x << b) | (x >> (64 - b))) & M64


def _sipround(v0, v1, v2, v3):
    v0 = (v0 + v1) & M64; v1 = _rotl64(v1, 13); v1 ^= v0; v0 = _rotl64(v0, 32)
    v2 = (v2 + v3) & M64; v3 = _rotl64(v3, 16); v3 ^= v2
    v0 = (v0 + v3) & M64; v3 = _rotl64(v3, 21); v3 ^= v0
    v2 = (v2 + v1) & M64; v1 = _rotl64(v1, 17); v1 ^= v2; v2 = _rotl64(v2, 32)
    return v0, v1, v2, v3


def siphash24(key, msg):
    """SipHash-2-4 of the byte string msg under the 16-byte key, as an int < 2^64."""
    key, msg = bytes(key), bytes(msg)
    if len(key) != 16:
        raise ValueError(f"key must be 16 bytes, got {len(key)}")
    k0 = int.from_bytes(key[:8], "little")
    k1 = int.from_bytes(key[8:], "little")
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    n = len(msg)
    end = n - n % 8
    for i in range(0, end, 8):
        m = int.from_bytes(msg[i:i + 8], "little")
        v3 ^= m
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0 ^= m
    m = ((n & 0xFF) << 56) | int.from_bytes(msg[end:], "little")
    v3 ^= m
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def hash_message(cohort, index, block):
    """u32le(cohort) || u32le(index) || block: the message hashed for a Bloom
    position (index = j < h) or for the PRR nonce (index = 0xFFFFFFFF)."""
    return cohort.to_bytes(4, "little") + index.to_bytes(4, "little") + bytes(block)


def reduce_position(digest, k):
    """Position in [0, k) from a 64-bit digest: ((digest >> 32) * k) >> 32 (Lemire's
    multiply-shift; a multiply, not a division, so constant time on every target)."""
    return ((digest >> 32) * k) >> 32


def words_to_key(words):
    """16-byte SipHash key from 4 little-endian 32-bit words."""
    return b"".join(int(w).to_bytes(4, "little") for w in words)


@dataclass(frozen=True)
class RapporFullDevice:
    """A device's whole state: its 256-bit secret (8 words, the ChaCha20 key of its
    PRR) and its cohort.  Provisioned once; never changes."""
    secret: tuple
    cohort: int

    def __repr__(self):  # never print the secret
        return f"RapporFullDevice(cohort={self.cohort}, secret=<hidden>)"


def _parse_hash_key(hash_key):
    try:
        return parse_key(hash_key, 16, DEFAULT_HASH_KEY)
    except TypeError as e:                  # this constructor's contract: ValueError for every bad argument
        raise ValueError(str(e)) from None


def _check_bool(name, v):
    if not isinstance(v, bool):
        raise ValueError(f"{name} must be a bool, got {v!r}")
    return v


def _ratio(a, b):
    """max over outputs y of a(y) / b(y) for two pmfs on {0, 1} (dicts); inf if a puts mass where b has none."""
    best = Fraction(0)
    for y in (0, 1):
        if a[y] == 0:
            continue
        if b[y] == 0:
            return math.inf
        best = max(best, a[y] / b[y])
    return best


def _log_ratio_up(r):
    if r == math.inf:
        return math.inf
    return 0.0 if r <= 1 else log_up(r)


def worst_bloom_split(r10, r01, h, k):
    """The worst (n10, n01) for the product form r10^n10 * r01^n01, over Bloom vectors
    B, B' (each with 1..h set bits among k) where n10 = |B minus B'|, n01 = |B' minus B|:
    (n10, n01) is feasible iff some overlap c = |B and B'| >= 0 has 1 <= n10 + c <= h,
    1 <= n01 + c <= h and n10 + n01 + c <= k.  r10, r01 >= 1 (Fractions or inf).
    Returns (ratio, n10, n01); ratio 1 with (0, 0) when no two Bloom vectors differ (k = 1)."""
    best = (Fraction(1), 0, 0)
    for n10 in range(0, h + 1):
        for n01 in range(0, h + 1):
            if n10 == 0 and n01 == 0:
                continue
            c_lo = max(1 - n10, 1 - n01, 0)
            c_hi = min(h - n10, h - n01, k - n10 - n01)
            if c_lo > c_hi:
                continue
            if (n10 and r10 == math.inf) or (n01 and r01 == math.inf):
                return math.inf, n10, n01
            r = Fraction(r10) ** n10 * Fraction(r01) ** n01
            if r > best[0]:
                best = (r, n10, n01)
    return best


class RapporFull(Mechanism):
    """Full RAPPOR client: Bloom filter + memoized PRR (f) + IRR (p, q); see the module doc.

    Realized parameters (all over 2^bits):
      * flip = f/2 rounded UP (toward 1/2: more permanent noise), f_realized = 2 flip;
      * p and q rounded TOWARD EACH OTHER (the smaller up, the larger down):
        the realized IRR is then a post-processing of the requested one, so no
        epsilon grows; p != q that would meet or cross is rejected.
    epsilon (one report) and epsilon_infinite (any number of reports of one value,
    the PRR alone) follow EPK 2014 and are exact maxima of the per-bit product form
    (docs/rappor_full.md), rounded up.
    """
    kind = "rappor_full"
    input_metric = "DiscreteMetric"

    def __init__(self, k, h, cohorts, f, p, q, constant_time=False, bits=32, value_bytes=32,
                 hash_key=None):
        self.k = check_int("k", k, 1, MAX_K)
        self.h = check_int("h", h, 1, MAX_H)
        if self.h > self.k:
            raise ValueError(f"h must be in [1, min(k, {MAX_H})] = [1, {min(self.k, MAX_H)}], got {self.h}")
        self.cohorts = check_int("cohorts", cohorts, 1, MAX_COHORTS)
        self.f = check_rational("f", f, 0, 1)
        self.p = check_rational("p", p, 0, 1)
        self.q = check_rational("q", q, 0, 1)
        self.constant_time = _check_bool("constant_time", constant_time)
        self.bits = check_int("bits", bits, 1, 32)
        self.value_bytes = check_int("value_bytes", value_bytes, 2, MAX_VALUE_BYTES)
        self.hash_key = _parse_hash_key(hash_key)
        self._args = {"f": given(f), "p": given(p), "q": given(q), "hash_key": hash_key}
        two = 1 << self.bits
        # f/2 rounded up toward 1/2 (f <= 1 keeps a_f <= 2^(bits-1)).
        self.a_f = math.ceil(self.f * two / 2)
        self.flip_prob = Fraction(self.a_f, two)
        self.f_realized = 2 * self.flip_prob
        # p, q rounded toward each other.
        if self.p == self.q:
            self.a_p = self.a_q = math.floor(self.p * two)
        else:
            lo_up = math.ceil(min(self.p, self.q) * two)
            hi_down = math.floor(max(self.p, self.q) * two)
            if lo_up >= hi_down:
                raise ValueError(
                    f"p and q must differ by more than 2^-bits: at bits={self.bits}, p={p!r} and q={q!r} "
                    f"round toward each other to {Fraction(lo_up, two)} and {Fraction(hi_down, two)}, "
                    f"which leaves no signal (use more bits, up to 32, or set p == q)")
            self.a_p, self.a_q = (lo_up, hi_down) if self.p < self.q else (hi_down, lo_up)
        self.p_realized = Fraction(self.a_p, two)
        self.q_realized = Fraction(self.a_q, two)
        self._device = None
        self._compute_epsilons()

    # --- privacy ----------------------------------------------------------------
    def prr_bit_pmf(self, b):
        """{B'_i: probability} given the Bloom bit B_i = b (exact)."""
        phi = self.flip_prob
        one = (1 - phi) if b else phi
        return {1: one, 0: 1 - one}

    def report_bit_pmf(self, b):
        """{S_i: probability} given the Bloom bit B_i = b, PRR and IRR together (exact):
        P(S_i = 1 | B_i = 1) = q* = (1 - f/2) q + (f/2) p, P(S_i = 1 | B_i = 0) = p* = (f/2) q + (1 - f/2) p."""
        prr = self.prr_bit_pmf(b)
        one = prr[1] * self.q_realized + prr[0] * self.p_realized
        return {1: one, 0: 1 - one}

    def _compute_epsilons(self):
        self._worst = {}
        for level, pmf in (("one", self.report_bit_pmf), ("infinite", self.prr_bit_pmf)):
            r10 = _ratio(pmf(1), pmf(0))
            r01 = _ratio(pmf(0), pmf(1))
            ratio, n10, n01 = worst_bloom_split(r10, r01, self.h, self.k)
            self._worst[level] = (ratio, n10, n01, r10, r01)
        self._eps_one = _log_ratio_up(self._worst["one"][0])
        self._eps_inf = _log_ratio_up(self._worst["infinite"][0])

    @property
    def epsilon_infinite(self):
        """epsilon for any number of reports of one value (the PRR bound), rounded up."""
        return self._eps_inf

    def epsilon_reports(self, n):
        """epsilon for n reports of one value: min(n * epsilon, epsilon_infinite), rounded up."""
        n = check_int("n", n, 0)
        if n == 0:
            return 0.0
        one = self._eps_one if self._eps_one in (0.0, math.inf) else float_up(Fraction(self._eps_one) * n)
        return min(one, self._eps_inf)

    def privacy_map(self, d_in):
        """One report: 0 for d_in = 0, else epsilon (any two values are neighbours)."""
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self._eps_one

    def worst_case(self, level="one"):
        """(ratio, n10, n01, r10, r01): the exact worst-case likelihood ratio of one report
        (level "one") or of the PRR (level "infinite") and where it is attained."""
        return self._worst[level]

    # --- description --------------------------------------------------------------
    @property
    def input_domain(self):
        return f"AtomDomain(str | bytes, at most {self.value_bytes - 1} UTF-8 bytes)"

    @property
    def output_domain(self):
        return f"(cohort in [0, {self.cohorts}), VectorDomain(AtomDomain(bool), size={self.k}))"

    def config(self):
        return {"k": self.k, "h": self.h, "cohorts": self.cohorts, "f": self._args["f"],
                "p": self._args["p"], "q": self._args["q"], "constant_time": self.constant_time,
                "bits": self.bits, "value_bytes": self.value_bytes, "hash_key": "0x" + self.hash_key.hex()}

    def realized(self):
        return {"f": self.f_realized, "flip_prob": self.flip_prob, "p": self.p_realized,
                "q": self.q_realized, "a_f": self.a_f, "a_p": self.a_p, "a_q": self.a_q,
                "k_bits": self.bits, "epsilon_one": self._eps_one,
                "epsilon_infinite": self._eps_inf}

    # --- the deterministic parts ------------------------------------------------------
    def encode(self, x):
        """The device input block of a value: [len] || UTF-8 bytes || zero padding (value_bytes bytes)."""
        if isinstance(x, str):
            b = x.encode("utf-8")
        elif isinstance(x, (bytes, bytearray)):
            b = bytes(x)
        else:
            raise ValueError(f"x must be a str or bytes value, got {type(x).__name__}")
        if len(b) > self.value_bytes - 1:
            raise ValueError(f"x must be at most value_bytes - 1 = {self.value_bytes - 1} bytes "
                             f"(UTF-8), got {len(b)}")
        return bytes([len(b)]) + b + bytes(self.value_bytes - 1 - len(b))

    def check_input(self, x):
        return self.encode(x)

    def _check_block(self, block):
        block = bytes(block)
        if len(block) != self.value_bytes:
            raise ValueError(f"block must be exactly value_bytes = {self.value_bytes} bytes, got {len(block)}")
        return block

    def _check_cohort(self, cohort):
        return check_int("cohort", cohort, 0, self.cohorts - 1)

    def bloom_positions(self, cohort, block):
        """The h Bloom positions (with repeats) of an encoded block in a cohort."""
        cohort, block = self._check_cohort(cohort), self._check_block(block)
        return [reduce_position(siphash24(self.hash_key, hash_message(cohort, j, block)), self.k)
                for j in range(self.h)]

    def bloom(self, cohort, block):
        """The Bloom vector B (k bits) of an encoded block in a cohort."""
        pos = set(self.bloom_positions(cohort, block))
        return [1 if i in pos else 0 for i in range(self.k)]

    def provision(self, src):
        """A device from a BitSource: secret = 8 x bits(32), then cohort = (bits(32) * cohorts) >> 32
        (exactly 9 words, constant time; the cohort is public and only needs to be spread, so
        the multiply-shift's bias below cohorts / 2^32 is harmless).  Simulation uses the keyed
        stream (seed, device_id, stream 1)."""
        secret = tuple(src.bits(32) for _ in range(8))
        return RapporFullDevice(secret, (src.bits(32) * self.cohorts) >> 32)

    def device_from_seed(self, seed, device_id=0):
        """The simulated device `device_id` of a fleet with `seed` (stream 1 of its keyed stream)."""
        return self.provision(ChaCha20Source(seed, device_id, 1))

    @property
    def device(self):
        """The device used by __call__/release: provisioned from system entropy on first use."""
        if self._device is None:
            self._device = self.provision(default_source())
        return self._device

    @device.setter
    def device(self, dev):
        if not isinstance(dev, RapporFullDevice):
            raise ValueError("device must be a RapporFullDevice (see provision, device_from_seed)")
        self._check_device(dev)
        self._device = dev

    def _check_device(self, dev):
        if len(dev.secret) != 8 or any(not 0 <= int(w) <= M32 for w in dev.secret):
            raise ValueError("device.secret must be 8 words in [0, 2^32 - 1]")
        self._check_cohort(dev.cohort)

    def prr_source(self, dev, block):
        """The PRR bit source of (device, value): ChaCha20(K, nonce (d_lo, d_hi, 1))."""
        kdf = chacha20_block(list(dev.secret), 0, [0, 0, 0])
        d = siphash24(words_to_key(kdf[:4]), hash_message(dev.cohort, PRR_HASH_INDEX, block))
        return ChaCha20Source(None, key=list(dev.secret), nonce=[d & M32, d >> 32, 1])

    def prr(self, dev, block):
        """The memoized permanent randomized response B' (k bits) of an encoded block."""
        self._check_device(dev)
        block = self._check_block(block)
        return self.prr_from_bloom(self.prr_source(dev, block), self.bloom(dev.cohort, block))

    def prr_from_bloom(self, prr_src, bloom):
        """B'_i = B_i XOR Bernoulli(a_f / 2^bits), i = 0..k-1, from prr_src."""
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return [b ^ int(sample(prr_src, self.a_f, self.bits)) for b in bloom]

    def irr(self, src, prr_bits):
        """S_i = Bernoulli(a_q / 2^bits) if B'_i else Bernoulli(a_p / 2^bits), i = 0..k-1, from src."""
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return [int(sample(src, self.a_q if b else self.a_p, self.bits)) for b in prr_bits]

    def report_block(self, src, block, dev):
        """One report (cohort, S) of an encoded block by device dev, IRR bits from src.
        The PRR bits (k Bernoulli draws) are interleaved with the IRR draws in C and
        Numba; the two sources are independent, so the order between them is immaterial."""
        self._check_device(dev)
        block = self._check_block(block)
        return dev.cohort, self.irr(src, self.prr(dev, block))

    def report(self, src, x, dev):
        """One report (cohort, S) of the value x (str or bytes) by device dev."""
        return self.report_block(src, self.encode(x), dev)

    def check_release_input(self, x):
        """release(src, block) takes an encoded block (check_input's form): bytes of exactly
        value_bytes, a length byte <= value_bytes - 1 and zero padding."""
        if not isinstance(x, (bytes, bytearray)):
            raise ValueError(f"x must be an encoded block (bytes, m.encode(value)), got {type(x).__name__}")
        block = self._check_block(x)
        if block[0] > self.value_bytes - 1 or any(block[1 + block[0]:]):
            raise ValueError("x is not an encoded block: bad length byte or nonzero padding (use m.encode(value))")
        return block

    def release(self, src, x):
        """Reference release of an encoded block (check_input) by self.device."""
        return self.report_block(src, x, self.device)

    def release_row(self, src, block, sibling=None):
        """The export entry point fxdp_rappor_full_release: the device is provisioned from
        `sibling` (the keyed stream (seed, id, 1) when src is (seed, id, 0)) or, if None, from
        src itself; returns the output row [cohort & 0xFF, cohort >> 8, S_0, ..., S_{k-1}]."""
        dev = self.provision(src if sibling is None else sibling)
        cohort, s = self.report_block(src, block, dev)
        return [cohort & 0xFF, cohort >> 8] + s

    def __call__(self, x, rng=None, device=None):
        """One report (cohort, bits) of value x by `device` (default self.device), drawing
        the IRR from rng (default system entropy).  Nothing is returned on EntropyError."""
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        block = self.encode(x)
        dev = self.device if device is None else device
        if not isinstance(dev, RapporFullDevice):
            raise ValueError("device must be a RapporFullDevice or None")
        return self.report_block(rng, block, dev)

    # --- exact audit ----------------------------------------------------------------
    # Inputs of the audit are Bloom patterns (sorted tuples of set positions, 1..h of
    # them): every value's Bloom vector is one, and for a long enough value domain every
    # pattern is some value's.  Outputs are the report bits on the support [0, D),
    # D = min(2h, k), that the patterns use: the bits outside it have the same
    # distribution under both inputs and cancel exactly in every likelihood ratio.
    AUDIT_MAX_WORK = 200_000

    def _support(self):
        return min(2 * self.h, self.k)

    def audit_patterns(self):
        """All Bloom patterns on the audit support when that is small, else None."""
        d = self._support()
        count = sum(math.comb(d, a) for a in range(1, self.h + 1))
        if count ** 2 * (1 << d) > self.AUDIT_MAX_WORK:
            return None
        return [c for a in range(1, self.h + 1) for c in combinations(range(d), a)]

    def audit_pairs(self):
        """Ordered pairs of Bloom patterns: all of them when few, else the worst splits."""
        pats = self.audit_patterns()
        if pats is not None:
            return [(a, b) for a in pats for b in pats if a != b]
        d = self._support()
        if d > 16:
            raise ValueError(f"audit by enumeration needs min(2h, k) <= 16 (here {d}); use "
                             "fxdp.estimate_rappor.audit_rappor_full (exact product form)")
        pairs = []
        for n10 in range(1, min(self.h, d - 1) + 1):
            n01 = min(self.h, d - n10)
            a, b = tuple(range(n10)), tuple(range(n10, n10 + n01))
            pairs += [(a, b), (b, a)]
        return pairs

    def _pattern_pmf(self, pattern, bit_pmf):
        d = self._support()
        pos = set(pattern)
        if not pos or any(not 0 <= i < d for i in pos) or len(pos) > self.h:
            raise ValueError(f"pattern must hold 1..h = {self.h} positions in [0, {d})")
        per = [bit_pmf(1 if i in pos else 0) for i in range(d)]
        out = {(): Fraction(1)}
        for pm in per:
            out = {y + (b,): pr * pm[b] for y, pr in out.items() for b in (0, 1) if pm[b]}
        return out

    def output_pmf(self, x):
        """Exact pmf of the report bits on the audit support for the Bloom pattern x."""
        return self._pattern_pmf(x, self.report_bit_pmf)

    def prr_output_pmf(self, x):
        """Exact pmf of the PRR bits on the audit support for the Bloom pattern x."""
        return self._pattern_pmf(x, self.prr_bit_pmf)

    def value_pmf(self, values, cohort=0, prr_only=False):
        """Exact joint pmfs of the report (or PRR) bits, on the union of the values' Bloom
        positions, for each value in `values` (str/bytes) in `cohort`: {value: pmf}."""
        blocks = [self.encode(v) for v in values]
        sets = [set(self.bloom_positions(cohort, b)) for b in blocks]
        support = sorted(set().union(*sets))
        if len(support) > 16:
            raise ValueError("value_pmf: union of Bloom positions larger than 16 bits")
        bit_pmf = self.prr_bit_pmf if prr_only else self.report_bit_pmf
        res = {}
        for v, s in zip(values, sets):
            out = {(): Fraction(1)}
            for i in support:
                pm = bit_pmf(1 if i in s else 0)
                out = {y + (b,): pr * pm[b] for y, pr in out.items() for b in (0, 1) if pm[b]}
            res[v] = out
        return res

    def prr_mechanism(self):
        """The PRR alone as a mechanism (epsilon = epsilon_infinite): fxdp.audit of it is the
        infinite-report audit."""
        return RapporFullPRR(self)

    # --- fleet simulation (Numba) and the C library ------------------------------------
    def encode_many(self, values):
        """An n x value_bytes uint8 matrix of encoded values (str/bytes), or a matrix of
        device blocks (any integer dtype, entries 0..255, shape (n, value_bytes)) passed through."""
        if isinstance(values, np.ndarray) and values.ndim == 2:
            if values.shape[1] != self.value_bytes or not np.issubdtype(values.dtype, np.integer):
                raise ValueError(f"values: a block matrix must be integers of shape (n, {self.value_bytes})")
            if values.size and (values.min() < 0 or values.max() > 255):
                raise ValueError("values: block matrix entries must be bytes in [0, 255]")
            return np.ascontiguousarray(values, dtype=np.uint8)
        blocks = [self.encode(v) for v in values]
        out = np.frombuffer(b"".join(blocks), dtype=np.uint8) if blocks else np.zeros(0, np.uint8)
        return out.reshape(len(blocks), self.value_bytes).copy()

    def kernel_cfg(self):
        """The configuration vector of the Numba kernels (uint64[11])."""
        from . import _kernels_rappor_full as KR
        return KR.cfg_vector(self)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores).  Device i (id device_ids[i], default i) is
        provisioned from the keyed stream (seed, id, 1) and reports values[i] (str/bytes, or a
        block matrix) with its IRR drawn from (seed, id, 0).  Returns an (n, k + 2) uint8
        matrix of rows [cohort & 0xFF, cohort >> 8, S_0, ..., S_{k-1}] (split_reports splits
        it), bit-identical to the C fxdp_rappor_full_release / fxdp_rappor_full_fleet."""
        from ...samplers import _kernels as K
        from . import _kernels_rappor_full as KR
        blocks = self.encode_many(values)
        n = blocks.shape[0]
        ids = _device_ids(device_ids, n)
        seed_words = K.seed_key_words(seed)
        out = np.zeros((n, self.k + 2), np.uint8)
        status = np.zeros(n, np.int64)
        KR.fleet_release(self.kernel_cfg(), seed_words, ids, blocks, out, status)
        bad = np.flatnonzero(status)
        if bad.size:
            raise_for_status(int(status[bad[0]]), f"rappor_full device {int(ids[bad[0]])}")
        return out

    def split_reports(self, reports):
        """(cohorts uint32 (n,), bits uint8 (n, k)) from simulate's (n, k + 2) report rows."""
        r = np.asarray(reports)
        if r.ndim != 2 or r.shape[1] != self.k + 2:
            raise ValueError(f"reports must be an (n, k + 2) = (n, {self.k + 2}) matrix of report rows")
        cohorts = r[:, 0].astype(np.uint32) | (r[:, 1].astype(np.uint32) << np.uint32(8))
        if cohorts.size and int(cohorts.max()) >= self.cohorts:
            raise ValueError(f"reports: cohort out of range [0, {self.cohorts - 1}]")
        bits = r[:, 2:]
        if bits.size and int(bits.max()) > 1:
            raise ValueError("reports: report bits must be 0/1")
        return cohorts, np.ascontiguousarray(bits, dtype=np.uint8)

    def c_cfg(self, ffi=None):
        """The fxdp_rappor_full_cfg (cffi) of this mechanism for the host C library."""
        if ffi is None:
            from ... import native
            ffi = native.load().ffi
        cfg = ffi.new("fxdp_rappor_full_cfg *")
        cfg.prr_a, cfg.p_a, cfg.q_a = self.a_f, self.a_p, self.a_q
        cfg.k, cfg.h, cfg.cohorts = self.k, self.h, self.cohorts
        cfg.value_bytes, cfg.bits, cfg.constant_time = self.value_bytes, self.bits, int(self.constant_time)
        for i, b in enumerate(self.hash_key):
            cfg.hash_key[i] = b
        return cfg

    def c_cfg_init(self):
        """C initializer of the fxdp_rappor_full_cfg (field order of csrc/fxdp.h)."""
        key = ", ".join(f"0x{b:02x}u" for b in self.hash_key)
        return (f"{{ UINT64_C({self.a_f}), UINT64_C({self.a_p}), UINT64_C({self.a_q}), {{ {key} }}, "
                f"UINT32_C({self.k}), UINT32_C({self.h}), UINT32_C({self.cohorts}), "
                f"UINT32_C({self.value_bytes}), UINT32_C({self.bits}), UINT32_C({int(self.constant_time)}) }}")

    def report_fields(self):
        """The record (docs/wire.md): the cohort's two bytes as the device writes them, each in
        its range (the high byte takes no bits below 257 cohorts), then the k report bits."""
        from .._wire import ReportField
        top = self.cohorts - 1
        return [ReportField("cohort_lo", 1, 0, min(top, 255)), ReportField("cohort_hi", 1, 0, top >> 8),
                ReportField("bits", self.k, 0, 1)]

    def device_spec(self):
        """What firmware export needs: the C entry point, its config and I/O (see docs/rappor_full.md)."""
        return {
            "c_function": "fxdp_rappor_full_release",
            "cfg_type": "fxdp_rappor_full_cfg",
            "cfg_init": self.c_cfg_init(),
            "tables": [],
            "input": {"ctype": "uint8_t", "count": self.value_bytes, "min": 0, "max": 255,
                      "meaning": "the value block: [len] || UTF-8 bytes || zero padding "
                                 "(fxdp_rappor_full_encode); any bytes are a valid input"},
            "output": {"ctype": "uint8_t", "count": self.k + 2,
                       "meaning": "cohort & 0xFF, cohort >> 8, then the report bits S_0..S_{k-1} (0/1)"},
            "device_state": {"ctype": "fxdp_rappor_full_device",
                             "provision": "fxdp_rappor_full_provision once from the DRBG or hook, store "
                                          "it, then fxdp_rappor_full_report per report; "
                                          "fxdp_rappor_full_release derives it from r's key"},
            "sources": ["fxdp_bernoulli.c", "fxdp_mech_rappor_full.c"],
            "workspace": "fxdp_rappor_full_work",   # the export calls the _w form with a static workspace
            "summary": (f"full RAPPOR: k={self.k} Bloom bits, h={self.h}, {self.cohorts} cohorts, "
                        f"f={self.f_realized}, p={self.p_realized}, q={self.q_realized} "
                        f"(over 2^{self.bits}); epsilon one report {self._eps_one}, "
                        f"infinite {self._eps_inf}" + ("; constant time" if self.constant_time else "")),
        }

    # --- protocol: estimation, audit, plots -------------------------------------------
    SYNTHETIC_CANDIDATES = [f"value-{i:02d}" for i in range(8)]
    PLOT_MAX_SUPPORT = 10      # output_distribution enumerates up to 2^10 report patterns

    def synthetic_population(self, devices, seed):
        """A few heavy strings (Zipf-like, SYNTHETIC_CANDIDATES) over a long tail of rare ones;
        the truth is each candidate's share."""
        rng = np.random.default_rng([seed, 0x5EED])
        heavy = np.array([0.2, 0.12, 0.08, 0.05, 0.03, 0.02, 0.0, 0.0])
        pick = rng.random(devices)
        idx = np.searchsorted(np.cumsum(heavy), pick)
        cands = self.encode_many(self.SYNTHETIC_CANDIDATES)
        tail = self.encode_many([f"rare-{i}" for i in range(1000)])
        blocks = np.where((idx < len(heavy))[:, None], cands[np.minimum(idx, len(heavy) - 1)],
                          tail[rng.integers(0, 1000, size=devices)])
        truth = {c: float(np.mean(idx == i)) for i, c in enumerate(self.SYNTHETIC_CANDIDATES)}
        return blocks, truth

    def estimate(self, reports):
        """Unbiased Bloom-bit counts per cohort (fxdp.estimate_rappor.bloom_counts)."""
        from .rappor_full_estimate import bloom_counts
        return bloom_counts(reports, self).as_estimate()

    def report_statistic(self):
        """Per-cohort report and bit counts (streaming estimation in O(cohorts x k) memory)."""
        from .rappor_full_estimate import CohortBitSums
        return CohortBitSums(self)

    def estimate_rows(self, reports, truth=None):
        """Candidate frequencies (decode) of the synthetic candidates against their truth."""
        from .rappor_full_estimate import decode
        return decode(reports, self, self.SYNTHETIC_CANDIDATES).rows(truth)

    def exact_audit(self, d_in=1):
        """Enumeration on the audit support when min(2h, k) <= 16, else the exact per-bit
        product form (fxdp.estimate_rappor.audit_rappor_full); both agree."""
        if d_in == 1 and self._support() > 16:
            from .rappor_full_estimate import audit_rappor_full
            return audit_rappor_full(self)
        return super().exact_audit(d_in)

    def _check_plot_support(self):
        d = self._support()
        if d > self.PLOT_MAX_SUPPORT:
            raise ValueError(f"full RAPPOR: the audit support has min(2h, k) = {d} bits, 2^{d} report patterns: "
                             f"the exact distribution is enumerated only up to {self.PLOT_MAX_SUPPORT} bits "
                             "(fxdp.audit gives the worst case in product form)")

    def default_pair(self):
        self._check_plot_support()
        return super().default_pair()

    def output_distribution(self, x, x_prime):
        from ..distribution import from_pmfs
        self._check_plot_support()
        return from_pmfs(self, x, x_prime, self.output_pmf(x), self.output_pmf(x_prime),
                         note="outputs: report bits on the audit support")

    def bloom_matrix(self, values, cohorts=None):
        """uint8 array (len(cohorts), len(values), k): Bloom vectors of the values (str/bytes or
        an encoded matrix) in each cohort (default all), via the Numba kernel."""
        from . import _kernels_rappor_full as KR
        blocks = self.encode_many(values)
        coh = np.arange(self.cohorts, dtype=np.uint32) if cohorts is None else np.asarray(cohorts, np.uint32)
        if coh.size and int(coh.max()) >= self.cohorts:
            raise ValueError(f"cohorts must be in [0, {self.cohorts - 1}]")
        out = np.zeros((coh.size, blocks.shape[0], self.k), np.uint8)
        KR.bloom_matrix(self.kernel_cfg(), coh, blocks, out)
        return out


class RapporFullPRR(Mechanism):
    """The permanent randomized response of a RapporFull alone: what an observer of any
    number of reports of one value can at most learn.  Its epsilon is epsilon_infinite."""
    kind = "rappor_full_prr"
    input_metric = "DiscreteMetric"

    def __init__(self, parent):
        self.parent = parent
        self.constant_time = parent.constant_time

    input_domain = property(lambda self: self.parent.input_domain)
    output_domain = property(lambda self: f"VectorDomain(AtomDomain(bool), size={self.parent.k})")

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self.parent.epsilon_infinite

    def config(self):
        return self.parent.config()

    def __repr__(self):
        return repr(self.parent) + ".prr_mechanism()"

    def realized(self):
        return self.parent.realized()

    def release(self, src, x):
        raise ValueError("the PRR is derived from the device secret, not drawn: use RapporFull.prr")

    def audit_pairs(self):
        return self.parent.audit_pairs()

    def output_pmf(self, x):
        return self.parent.prr_output_pmf(x)


def _device_ids(device_ids, n):
    if device_ids is None:
        return np.arange(n, dtype=np.uint64)
    ids = np.asarray(device_ids)
    if ids.shape != (n,):
        raise ValueError(f"device_ids must have one id per value ({n}), got shape {ids.shape}")
    if ids.size and (not np.issubdtype(ids.dtype, np.integer) or (ids.dtype.kind == "i" and ids.min() < 0)):
        raise ValueError("device_ids must be integers in [0, 2^64 - 1]")
    return np.ascontiguousarray(ids.astype(np.uint64))


def make_rappor_full(k, h, cohorts, f, p, q, constant_time=False, bits=32, value_bytes=32, hash_key=None):
    """Full RAPPOR client (EPK 2014): k Bloom bits (1..1024), h hashes (1..min(k, 16)),
    cohorts (1..65536), PRR f in [0, 1], IRR p, q in [0, 1]; probabilities over 2^bits
    (bits 1..32); values are str/bytes of at most value_bytes - 1 (1..255) UTF-8 bytes;
    hash_key: the public 16-byte SipHash key of the Bloom positions (bytes, or 32 hex digits with an
    optional 0x prefix; config() writes the prefix so TOML never reads the key as a number)."""
    return RapporFull(k, h, cohorts, f, p, q, constant_time, bits, value_bytes, hash_key)


__all__ = ["make_rappor_full", "RapporFull", "RapporFullDevice", "RapporFullPRR", "siphash24",
           "hash_message", "reduce_position", "EntropyError"]

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'rappor_full': ('Erlingsson, Pihur, Korolova 2014',
        '`k = 32`, `h = 2`, `cohorts = 8`, `f = 0.5`, `p = 0.25`, `q = 0.75`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Full RAPPOR (Bloom filter + memoized PRR + IRR): small parameters, since every release
    # provisions a device and generates 4 ChaCha20 blocks (~250,000 cycles on the AVR).
    'rappor_full_ct': lambda: make_rappor_full(4, 1, 2, 0.5, 0.25, 0.75, constant_time=True, bits=8, value_bytes=2),
    # the lazy form, the same parameters (a variant: not on the AVR)
    'rappor_full_lazy': lambda: make_rappor_full(4, 1, 2, 0.5, 0.25, 0.75, bits=8, value_bytes=2),
}
EXPORT_VARIANTS = {'rappor_full_lazy'}
