"""Layer 1 (bit source): continuous health tests on raw entropy bytes, NIST SP 800-90B section 4.4.

This module is the definition and the reference of csrc/fxdp_health.c (docs/health.md):

* the cut-offs, computed exactly (integers and ``Fraction``, no floating point) for a stated
  min-entropy H per byte, held as ``h256`` = H in units of 1/256 bit (1 <= h256 <= 2048);
* ``HealthTest``, a plain reference of the two tests over a stream of bytes (samples);
* ``health_checked(fill, ...)``, a fill callable ``n -> bytes`` (the shape ``os.urandom``,
  ``fxdp.native.new_rng_hook``/``new_rng_drbg`` and ``OSEntropySource(urandom=...)`` use) that
  runs every byte through both tests and raises ``EntropyError`` on a failure, for good.

The tests (alpha = 2^-20 false alarms per test per sample sequence, as SP 800-90B suggests):

* Repetition count test (4.4.1): a run of C or more identical consecutive samples is a failure,
  C = 1 + ceil(20 / H).
* Adaptive proportion test (4.4.2): the samples are cut into windows of W = 512; in each window
  the count B of samples equal to the window's first sample (itself included) reaching C' is a
  failure, C' = 1 + CRITBINOM(W, 2^-H, 1 - alpha), the least c with
  P[Binomial(W, 2^-H) <= c - 1] >= 1 - alpha.

Both run on every sample, the start-up samples included (``STARTUP_SAMPLES`` = 1024 are drawn,
tested and discarded before the first output, SP 800-90B 4.3 item 9).
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

from .errors import EntropyError

APT_WINDOW = 512          # W for non-binary samples (SP 800-90B 4.4.2)
ALPHA_LOG2 = 20           # alpha = 2^-20
H256_MAX = 2048           # 8 bits per byte
STARTUP_SAMPLES = 1024    # tested and discarded at init (SP 800-90B 4.3)
STARTUP_CHUNK = 32        # in fill calls of this many bytes (as fxdp_health_init does)

# Failure reasons (the C struct's `failed` field; csrc/fxdp.h FXDP_HEALTH_*).
OK, BOARD, RCT, APT = 0, 1, 2, 3
REASONS = {OK: "ok", BOARD: "board fill failed", RCT: "repetition count test", APT: "adaptive proportion test"}


def _check_h256(h256):
    if isinstance(h256, bool) or not isinstance(h256, int) or not 1 <= h256 <= H256_MAX:
        raise ValueError(f"h256 (min-entropy per byte in 1/256 bit) must be an integer in [1, {H256_MAX}], "
                         f"got {h256!r}")
    return h256


def h256_from_min_entropy(min_entropy):
    """H in bits per byte (int, Fraction, or a decimal/fraction string) -> h256, rounded DOWN to 1/256 bit
    (a source is never credited more entropy than stated).  ValueError unless 1/256 <= H <= 8."""
    if isinstance(min_entropy, bool) or isinstance(min_entropy, float):
        raise TypeError(f"min_entropy must be an int, Fraction or string (exact), got {min_entropy!r}")
    try:
        h = Fraction(min_entropy)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"min_entropy must be an int, Fraction or string, got {min_entropy!r}") from exc
    h256 = (h * 256).numerator // (h * 256).denominator
    if not (Fraction(1, 256) <= h <= 8) or h256 < 1:
        raise ValueError(f"min_entropy (bits per byte) must be in [1/256, 8], got {min_entropy!r}")
    return h256


def rct_cutoff(h256):
    """Repetition count cut-off C = 1 + ceil(20 / H) = 1 + ceil(20 * 256 / h256) (fxdp_health_rct_cutoff)."""
    _check_h256(h256)
    return 1 + -(-ALPHA_LOG2 * 256 // h256)


def _p_bounds(h256, frac_bits):
    """a with a / 2^frac_bits <= 2^(-h256/256) < (a + 1) / 2^frac_bits (exact: a^256 <= 2^(256 f - h256))."""
    x = 1 << (256 * frac_bits - h256)
    lo, hi = 1, 1 << frac_bits               # lo^256 <= x < hi^256
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid ** 256 <= x:
            lo = mid
        else:
            hi = mid
    return lo


def _tail_at_least(a, d, n, c):
    """P[Binomial(n, a/d) >= c] * d^n, an integer."""
    b = d - a
    return sum(comb(n, k) * a ** k * b ** (n - k) for k in range(max(c, 0), n + 1))


def _critbinom_cutoff(a, d, window, alpha_log2):
    """Least c with P[Binomial(window, a/d) >= c] <= 2^-alpha_log2 (= 1 + CRITBINOM(window, a/d, 1 - alpha)).

    Exact in integers: the tail times d^window is summed from k = window down and compared with
    d^window / 2^alpha_log2."""
    b = d - a
    limit = d ** window                      # compare tail * 2^alpha_log2 with d^window
    tail = 0
    apow, bpow = a ** window, 1              # a^k, b^(window - k) for k = window
    for k in range(window, -1, -1):
        nxt = tail + comb(window, k) * apow * bpow
        if nxt << alpha_log2 > limit:
            return k + 1
        tail = nxt
        if k:
            apow //= a
            bpow *= b
    return 0


def apt_cutoff(h256, window=APT_WINDOW, alpha_log2=ALPHA_LOG2):
    """Adaptive proportion cut-off C = 1 + CRITBINOM(W, 2^-H, 1 - 2^-alpha_log2) for H = h256/256, exact.

    2^-H is irrational unless 256 | h256: it is bracketed by rationals a/2^f < 2^-H < (a+1)/2^f that
    narrow until the cut-off is the same at both ends (it is monotone in p), so the result is exact."""
    _check_h256(h256)
    if isinstance(window, bool) or not isinstance(window, int) or not 2 <= window <= 4096:
        raise ValueError(f"window must be an integer in [2, 4096], got {window!r}")
    if isinstance(alpha_log2, bool) or not isinstance(alpha_log2, int) or not 1 <= alpha_log2 <= 64:
        raise ValueError(f"alpha_log2 must be an integer in [1, 64], got {alpha_log2!r}")
    if h256 % 256 == 0:
        return _critbinom_cutoff(1, 1 << (h256 // 256), window, alpha_log2)
    for frac_bits in (64, 128, 256):
        a, d = _p_bounds(h256, frac_bits), 1 << frac_bits
        c = _critbinom_cutoff(a, d, window, alpha_log2)
        if c == _critbinom_cutoff(a + 1, d, window, alpha_log2):
            return c
    raise ArithmeticError(f"apt_cutoff: could not separate the cut-off for h256={h256}")  # pragma: no cover


def _p_upper(h256):
    """p = 2^-H exactly, or a rational upper bound (within 2^-64)."""
    if h256 % 256 == 0:
        return Fraction(1, 1 << (h256 // 256))
    return Fraction(_p_bounds(h256, 64) + 1, 1 << 64)


def apt_false_alarm(h256, cutoff=None, window=APT_WINDOW):
    """Upper bound (Fraction) on P[one APT window fails] for a source whose every byte value has
    probability at most p = 2^-H: the window's count is 1 + Binomial(W - 1, p_A) with p_A <= p, so
    P[fail] <= P[Binomial(W - 1, p) >= C - 1], evaluated at the upper rational bound of p (never
    under-reported).  (SP 800-90B's CRITBINOM(W, ...) takes W trials, so this can exceed alpha a little.)"""
    c = apt_cutoff(h256, window) if cutoff is None else cutoff
    p = _p_upper(h256)
    n = window - 1
    return Fraction(_tail_at_least(p.numerator, p.denominator, n, c - 1), p.denominator ** n)


def rct_false_alarm(h256):
    """Upper bound (Fraction) on P[the RCT fails at a given sample]: p^(C-1) <= 2^-20 with p = 2^-H
    (upper rational bound of p when 256 does not divide h256)."""
    return _p_upper(h256) ** (rct_cutoff(h256) - 1)


def cutoff_table(h256s=(64, 128, 256, 512, 768, 1024, 1536, 2048)):
    """[(h256, H as a string, rct_cutoff, apt_cutoff)] for docs/health.md."""
    return [(h, str(Fraction(h, 256)), rct_cutoff(h), apt_cutoff(h)) for h in h256s]


class HealthTest:
    """Reference of fxdp_health (csrc/fxdp_health.c): the two tests over a byte stream, sticky.

    ``feed(data)`` is one fill call: every byte of ``data`` goes through both tests (the counters run
    to the end of the call, as in C); if any byte failed, ``failed`` becomes RCT (if the repetition
    count test failed anywhere in the call) or APT, and this and every later ``feed`` raise
    EntropyError."""

    def __init__(self, h256, apt_cutoff_value=None):
        self.h256 = _check_h256(h256)
        self.rct_cutoff = rct_cutoff(h256)
        self.apt_cutoff = apt_cutoff(h256) if apt_cutoff_value is None else apt_cutoff_value
        if isinstance(self.apt_cutoff, bool) or not isinstance(self.apt_cutoff, int) \
                or not 2 <= self.apt_cutoff <= APT_WINDOW + 1:
            raise ValueError(f"apt_cutoff must be an integer in [2, {APT_WINDOW + 1}], got {self.apt_cutoff!r}")
        self.failed = OK
        self.rct_last = self.rct_count = 0      # count 0: no byte yet
        self.apt_first = self.apt_count = self.apt_seen = 0   # seen 0: the next byte opens a window
        self.samples = 0

    def fail(self, reason):
        """Record the first failure (sticky) and raise EntropyError."""
        if self.failed == OK:
            self.failed = reason
        raise EntropyError(f"entropy health test failed: {REASONS[self.failed]}; nothing is released")

    def _step(self, x):
        """One byte through both tests; returns (rct failed, apt failed) at this byte."""
        self.samples += 1
        if self.rct_count != 0 and x == self.rct_last:
            self.rct_count += 1
        else:
            self.rct_last, self.rct_count = x, 1
        if self.apt_seen == 0:
            self.apt_first, self.apt_count = x, 1
        elif x == self.apt_first:
            self.apt_count += 1
        self.apt_seen = (self.apt_seen + 1) % APT_WINDOW
        return self.rct_count >= self.rct_cutoff, self.apt_count >= self.apt_cutoff

    def feed(self, data):
        """Test the bytes of one fill call; EntropyError (sticky) if any failed."""
        if self.failed != OK:
            self.fail(self.failed)
        rct_bad = apt_bad = False
        for x in bytes(data):
            r, a = self._step(x)
            rct_bad, apt_bad = rct_bad or r, apt_bad or a
        if rct_bad or apt_bad:
            self.fail(RCT if rct_bad else APT)


def health_checked(fill, h256, startup=True):
    """Wrap a raw source ``fill(n) -> bytes`` (e.g. os.urandom, a TRNG driver) as a health-tested one.

    The returned callable ``n -> bytes`` returns ``fill(n)`` after every byte passed both tests, and
    raises EntropyError (for good) on a test failure, a fill exception or a short read.  With
    ``startup`` (default) the first call first draws, tests and discards STARTUP_SAMPLES bytes,
    as fxdp_health_init does.  The HealthTest is the callable's ``.health`` attribute."""
    if not callable(fill):
        raise TypeError("fill must be a callable n -> bytes of length n")
    test = HealthTest(h256)
    pending = [startup]

    def _draw(n):
        try:
            data = bytes(fill(n))
        except Exception as exc:  # noqa: BLE001 - any failure of the board source
            test.failed = test.failed or BOARD
            raise EntropyError(f"entropy source failed: {exc}") from exc
        if len(data) != n:
            test.failed = test.failed or BOARD
            raise EntropyError("entropy source returned a short read")
        test.feed(data)
        return data

    def checked(n):
        if test.failed != OK:
            test.fail(test.failed)
        if pending[0]:
            pending[0] = False
            for _ in range(STARTUP_SAMPLES // STARTUP_CHUNK):
                _draw(STARTUP_CHUNK)
        return _draw(n)

    checked.health = test
    return checked


__all__ = ["APT_WINDOW", "ALPHA_LOG2", "STARTUP_SAMPLES", "HealthTest", "apt_cutoff", "apt_false_alarm",
           "cutoff_table", "h256_from_min_entropy", "health_checked", "rct_cutoff", "rct_false_alarm"]
