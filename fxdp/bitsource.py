"""Layer 1, reference implementation: where random bits come from and in which order.

This module is the *definition* of the bit stream; the Numba kernels
(`fxdp.samplers._kernels`) and the C library (`csrc/fxdp_rng.c`) must consume
bits identically.  See docs/bitstream.md.

Bit order
---------
A source produces 32-bit words w0, w1, ...  The bit stream is
b0 b1 b2 ... with b[32*i + j] = bit (31 - j) of w_i, i.e. every word is read
most significant bit first.  ``bits(n)`` (0 <= n <= 32) returns the next n
stream bits as an integer, first bit most significant; ``bits64(n)`` does the
same for n <= 64 (it is ``bits(n-32) << 32 | bits(32)`` for n > 32, which is the
same stream read).

Keyed ChaCha20 stream (simulation, test vectors, on-device DRBG)
------------------------------------------------------------------
The words are the RFC 8439 ChaCha20 block-function outputs (the 16 state words
after the final addition, i.e. the keystream serialized as little-endian
words), for block counters 0, 1, 2, ... (counter 0xFFFFFFFF is never used:
the stream ends after 2^32 - 1 blocks with an EntropyError).

Stream versions (a seed carries the rule it was made under; ``Seed``):
  * version 1: the plain keystream above (16 words per block).
  * version 2 (fast key erasure, Bernstein 2017; the default for new seeds):
    block j = ChaCha20(K_j, counter j, nonce); its words 0..7 become the next
    key K_{j+1} (K_0 = the seed's key) and only words 8..15 are output, so
    8 words per block.  Whoever reads a device's state at block j learns
    K_j and the unread rest of block j-1's output, but not any earlier
    output: ChaCha20 cannot be run backwards from K_j.
  Raw (key, nonce) streams (memoized permanent responses derived from a
  device secret, RFC vectors) are plain keystreams unless version=2 is asked
  for: they are deterministic functions of a key the device must keep.

Key and nonce from ``(seed, device_id, stream)``:
  * ``seed``      integer in [0, 2^256):  key word i = (seed >> 32 i) & 0xFFFFFFFF
                  (the 32-byte little-endian encoding of seed is the key);
  * ``device_id`` integer in [0, 2^64):   nonce word 0 = low 32 bits, word 1 = high 32 bits;
  * ``stream``    integer in [0, 2^32):   nonce word 2 (sub-streams of one device,
                  e.g. RAPPOR's permanent randomized response uses stream 1).
"""
from __future__ import annotations

import os

from .errors import EntropyError

MASK32 = 0xFFFFFFFF
_SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"
LAST_COUNTER = 0xFFFFFFFF  # never generated: the keyed stream has 2^32 - 1 blocks
STREAM_VERSIONS = (1, 2)   # 1: plain keystream; 2: fast key erasure (docs/bitstream.md)
STREAM_VERSION = 2         # the rule a bare integer seed selects


def _rotl(x, n):
    return ((x << n) & MASK32) | (x >> (32 - n))


def chacha20_block(key, counter, nonce):
    """RFC 8439 section 2.3 block function: 8 key words, 32-bit counter, 3 nonce words -> 16 words."""
    s = list(_SIGMA) + list(key) + [counter] + list(nonce)
    x = s[:]

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & MASK32; x[d] = _rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & MASK32; x[b] = _rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & MASK32; x[d] = _rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & MASK32; x[b] = _rotl(x[b] ^ x[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return [(x[i] + s[i]) & MASK32 for i in range(16)]


class Seed:
    """A simulation seed and the stream version it selects (docs/bitstream.md).

    A bare integer seed means ``Seed(value)``, the current rule (STREAM_VERSION);
    ``Seed(value, stream_version=1)`` replays configs and vectors made before
    version 2 bit for bit.
    """

    __slots__ = ("value", "stream_version")

    def __init__(self, value, stream_version=STREAM_VERSION):
        _check_int("seed", value, 0, (1 << 256) - 1)
        check_stream_version(stream_version)
        self.value = value
        self.stream_version = stream_version

    def __repr__(self):
        return f"Seed({self.value}, stream_version={self.stream_version})"

    def __eq__(self, other):
        return (isinstance(other, Seed) and self.value == other.value
                and self.stream_version == other.stream_version)

    def __hash__(self):
        return hash((self.value, self.stream_version))


def check_stream_version(version):
    """version in STREAM_VERSIONS, else ValueError naming them."""
    if isinstance(version, bool) or not isinstance(version, int) or version not in STREAM_VERSIONS:
        raise ValueError(f"stream_version must be one of {STREAM_VERSIONS}, got {version!r}")
    return version


def seed_parts(seed):
    """(value, stream version) of an integer seed (current version) or a Seed; ValueError else."""
    if isinstance(seed, Seed):
        return seed.value, seed.stream_version
    _check_int("seed", seed, 0, (1 << 256) - 1)
    return int(seed), STREAM_VERSION


def derive_key_nonce(seed, device_id=0, stream=0):
    """The documented (seed, device_id, stream) -> (key words, nonce words) rule (any version)."""
    seed, _ = seed_parts(seed)
    _check_int("device_id", device_id, 0, (1 << 64) - 1)
    _check_int("stream", stream, 0, MASK32)
    key = [(seed >> (32 * i)) & MASK32 for i in range(8)]
    nonce = [device_id & MASK32, device_id >> 32, stream]
    return key, nonce


def _check_int(name, value, lo, hi):
    from .validate import fmt_int
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{fmt_int(lo)}, {fmt_int(hi)}], got {value!r}")


class BitSource:
    """Bit buffer over a word source; subclasses implement ``_next_word``.

    The buffer holds the unconsumed low-order bits of the current word.  Once a
    word source fails, the source is dead: every later call raises EntropyError.
    """

    def __init__(self):
        self._buf = 0        # unconsumed bits of the current word (right-aligned)
        self._nbuf = 0       # how many
        self.bits_used = 0   # total stream bits consumed so far
        self._failed = False

    def _next_word(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _word(self):
        if self._failed:
            raise EntropyError("bit source has failed before; no further output")
        try:
            return self._next_word()
        except EntropyError:
            self._failed = True
            raise

    def bits(self, n):
        """Next n (0..32) bits of the stream, first bit most significant."""
        if not 0 <= n <= 32:
            raise ValueError(f"n must be in [0, 32], got {n}")
        if self._failed:
            raise EntropyError("bit source has failed before; no further output")
        if n <= self._nbuf:
            self._nbuf -= n
            out = self._buf >> self._nbuf
            self._buf &= (1 << self._nbuf) - 1
        else:
            need = n - self._nbuf
            w = self._word()
            out = (self._buf << need) | (w >> (32 - need))
            self._nbuf = 32 - need
            self._buf = w & ((1 << self._nbuf) - 1)
        self.bits_used += n
        return out

    def bits64(self, n):
        """Next n (0..64) bits, first bit most significant."""
        if not 0 <= n <= 64:
            raise ValueError(f"n must be in [0, 64], got {n}")
        if n <= 32:
            return self.bits(n)
        hi = self.bits(n - 32)
        return (hi << 32) | self.bits(32)


class ChaCha20Source(BitSource):
    """Deterministic keyed stream: ChaCha20 words for (seed, device_id, stream).

    The stream version comes from the seed (an int: STREAM_VERSION; a Seed: its
    own); a raw ``key``/``nonce`` stream is version 1 unless ``version`` says
    otherwise.  ``key`` is the current key: under version 2 it changes at every
    block (fast key erasure).
    """

    def __init__(self, seed, device_id=0, stream=0, *, key=None, nonce=None, counter=0, version=None):
        super().__init__()
        if key is None:
            _, seed_version = seed_parts(seed)
            key, nonce = derive_key_nonce(seed, device_id, stream)
        else:
            seed_version = 1
        self.version = seed_version if version is None else check_stream_version(version)
        self.key, self.nonce, self.counter = list(key), list(nonce), counter
        self._block, self._pos = [], 16

    def _next_word(self):
        if self._pos == 16:
            if self.counter == LAST_COUNTER:
                raise EntropyError("ChaCha20 stream exhausted (2^32 - 1 blocks)")
            self._block = chacha20_block(self.key, self.counter, self.nonce)
            self.counter += 1
            self._pos = 0
            if self.version == 2:      # fast key erasure: words 0..7 are the next key, never output
                self.key = self._block[:8]
                self._pos = 8
        w = self._block[self._pos]
        self._pos += 1
        return w

    def reseed(self, fresh_words):
        """The DRBG reseed of C ``fxdp_rng_reseed`` (version 2 only): key ^= the 8 fresh words
        (32 bytes of the board's fill, little-endian), the buffered block words are dropped (the
        bit buffer's unread bits stay)."""
        if self.version != 2:
            raise ValueError("reseed applies to a version-2 (fast-key-erasure) stream")
        fresh = [int(w) & MASK32 for w in fresh_words]
        if len(fresh) != 8:
            raise ValueError(f"fresh_words must be 8 words, got {len(fresh)}")
        self.key = [k ^ f for k, f in zip(self.key, fresh)]
        self._pos = 16


class OSEntropySource(BitSource):
    """System entropy (os.urandom), read 64 bytes at a time; the default source.

    Any OS error becomes EntropyError.
    """

    def __init__(self, urandom=os.urandom):
        super().__init__()
        self._urandom = urandom
        self._words = []

    def _next_word(self):
        if not self._words:
            try:
                raw = self._urandom(64)
            except Exception as exc:  # noqa: BLE001 - any failure of the OS source
                raise EntropyError(f"os.urandom failed: {exc}") from exc
            if len(raw) != 64:
                raise EntropyError("os.urandom returned a short read")
            self._words = [int.from_bytes(raw[i:i + 4], "little") for i in range(60, -4, -4)]
        return self._words.pop()


class ReplaySource(BitSource):
    """Serves the given 32-bit words, then fails (EntropyError). For enumeration and tests."""

    def __init__(self, words):
        super().__init__()
        self._words = [int(w) & MASK32 for w in words]
        self._i = 0

    @classmethod
    def from_bits(cls, value, nbits):
        """Serve the nbits-bit string ``value`` (first bit = MSB), zero-padded to whole words."""
        nwords = (nbits + 31) // 32
        padded = value << (32 * nwords - nbits)
        return cls([(padded >> (32 * (nwords - 1 - i))) & MASK32 for i in range(nwords)])

    def _next_word(self):
        if self._i == len(self._words):
            raise EntropyError("replay source exhausted")
        self._i += 1
        return self._words[self._i - 1]


class FailingSource(BitSource):
    """Wraps a source and fails at word number ``fail_at`` (0-based): entropy-failure injection."""

    def __init__(self, inner, fail_at):
        super().__init__()
        self._inner, self._left = inner, fail_at

    def _next_word(self):
        if self._left == 0:
            raise EntropyError("injected entropy failure")
        self._left -= 1
        return self._inner._next_word()


def default_source():
    return OSEntropySource()
