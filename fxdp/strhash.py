"""Layer 1: the keyed string hash family of the string sketches (issue 34), the reference.

For a byte string s of at most L = max_length bytes (L <= 255), hash index j and width m = 2^l:

    x = (len(s), s[0], ..., s[len(s) - 1], 0, ..., 0)          L + 1 symbols of 8 bits
    b, a_0, ..., a_L = words 0 .. L + 1 of the ChaCha20 keystream with the 32-byte public
                       hash_key, counter 0, 1, ... and nonce (j, L, TAG)
    h_j(s) = ((b + sum_i a_i x_i) mod 2^32) >> (32 - l)

The length symbol makes every string of at most L bytes a distinct vector (zero padding alone
would not tell "a" from "a\\0").  For uniform coefficients this is multiply-add-shift over vectors
(Dietzfelbinger 1996; Thorup, "High speed hashing for integers and strings", 2015): strongly
universal when the word size 32 is at least the symbol size 8 plus l - 1, so for every width up to
2^25: for s != t and any u, v, Pr[h(s) = u and h(t) = v] = 1/m^2; in particular two distinct
strings collide with probability exactly 1/m.  tests/test_strhash.py checks the family by
enumerating every coefficient vector at small word sizes (and that the bound fails where the word
is too short).  The coefficients come from ChaCha20, so the statement holds for the real key as
far as ChaCha20 is a pseudorandom function; the key is public (the server hashes candidates with
it), so a value chosen to collide with another under the published key is not excluded: the
bound is over the key, as in the Count Mean Sketch's analysis.  The family is linear in the
string's bytes, so under one key the collisions of structured strings come in groups: pairs with
the same byte differences collide together.  3,000 strings "event-0" ... "event-2999" in a width
of 2^10 give 4,433 colliding pairs on average over 64 hash indices (4,393 expected), but one
index's count has a standard deviation of about 1,000 against 71 for random strings; a sketch
that averages over its k hash indices, each with its own coefficients, averages that out.

Cheap on a small device: L + 1 multiplications of a byte by a 32-bit word and
ceil((L + 2) / 16) ChaCha20 blocks for the coefficients of one hash index.  The C twin
(fxdp_strhash32, csrc/fxdp_strhash.c) reads every one of the L bytes and masks those past the
length, so its time and memory accesses do not depend on the string or its length; the Numba
twin is fxdp.samplers._nb_strhash.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .bitsource import chacha20_block

MAX_LENGTH = 255                       # the length is one 8-bit symbol
MAX_LOG2_WIDTH = 25                    # 32 >= 8 + l - 1: strongly universal up to 2^25
TAG = int.from_bytes(b"FXSH", "little")
DEFAULT_HASH_KEY = b"fxdp string hash family, key v1."     # 32 bytes, public


def parse_key(hash_key, nbytes: int, default: bytes, name: str = "hash_key") -> bytes:
    """A public hash key of nbytes bytes: bytes, or 2 nbytes hex digits (0x optional); None is
    default.  ValueError (a str or bytes of another length, bad hex) or TypeError (another type)."""
    if hash_key is None:
        return default
    if isinstance(hash_key, (bytes, bytearray)):
        key = bytes(hash_key)
    elif isinstance(hash_key, str):
        digits = hash_key[2:] if hash_key[:2] in ("0x", "0X") else hash_key
        try:
            key = bytes.fromhex(digits)
        except ValueError:
            raise ValueError(f"{name} must be {nbytes} bytes or {2 * nbytes} hex digits, got {hash_key!r}") from None
    else:
        raise TypeError(f"{name} must be {nbytes} bytes or {2 * nbytes} hex digits, got {type(hash_key).__name__}")
    if len(key) != nbytes:
        raise ValueError(f"{name} must be {nbytes} bytes ({2 * nbytes} hex digits), got {len(key)} bytes")
    return key


def parse_hash_key(hash_key) -> bytes:
    """The string hash's 32-byte key (bytes, or 64 hex digits); None is DEFAULT_HASH_KEY."""
    return parse_key(hash_key, 32, DEFAULT_HASH_KEY)


def encoded_rows(values, check, max_length: int) -> np.ndarray:
    """Strings as encoded rows uint8[n, max_length + 1] (``encode``), each through check (the
    mechanism's input check, returning bytes of at most max_length)."""
    if isinstance(values, (str, bytes)):
        raise TypeError("values must be a sequence of strings (bytes or str), got a single string")
    vals = list(values)
    rows = np.zeros((len(vals), max_length + 1), np.uint8)
    for i, v in enumerate(vals):
        b = check(v)
        rows[i, 0] = len(b)
        rows[i, 1:1 + len(b)] = np.frombuffer(b, np.uint8)
    return rows


def encode_strings(values, max_length: int) -> np.ndarray:
    """``encoded_rows(values, check_value, max_length)`` without a Python loop over the bytes: when
    every value is bytes (or every value a str, UTF-8 encoded), the rows are filled by numpy from
    the values joined; otherwise, or when a value is empty or too long, the checked loop runs and
    raises ``check_value``'s error for the first bad value.  The same rows either way."""
    if isinstance(values, (str, bytes)):
        raise TypeError("values must be a sequence of strings (bytes or str), got a single string")
    given = values if isinstance(values, list) else list(values)
    vals, n = given, len(given)
    if n and all(type(v) is str for v in vals):
        vals = list(map(str.encode, vals))
    elif not all(isinstance(v, bytes) for v in vals):
        vals = None
    if vals is not None:
        lengths = np.fromiter(map(len, vals), np.int64, n)
        if n == 0 or (lengths.min() >= 1 and lengths.max() <= max_length):
            rows = np.zeros((n, max_length + 1), np.uint8)
            rows[:, 0] = lengths
            if n:
                buf = np.frombuffer(b"".join(vals), np.uint8)
                starts = np.cumsum(lengths) - lengths
                pos = np.arange(buf.size) - np.repeat(starts, lengths)
                rows[np.repeat(np.arange(n), lengths), pos + 1] = buf
            return rows
    return encoded_rows(given if vals is None else vals, lambda v: check_value(v, max_length), max_length)


def canonical_rows(rows, max_length: int, name: str = "values") -> np.ndarray:
    """Encoded rows (the device form, uint8[n, max_length + 1]) checked and made canonical: row[0]
    (the length) in [1, max_length], the bytes past it set to zero (the C hash reads and masks them,
    so any bytes there give the same hash).  ValueError naming the first bad row."""
    arr = np.asarray(rows)
    if arr.ndim != 2 or arr.shape[1] != max_length + 1 or arr.dtype.kind not in "ui":
        raise ValueError(f"{name} as encoded rows must be an integer array of shape (n, {max_length + 1}) "
                         f"([length, bytes..., zero padding]), got {arr.dtype} {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 255):
        raise ValueError(f"{name}: encoded rows hold bytes, 0..255")
    out = arr.astype(np.uint8)
    lengths = out[:, 0].astype(np.int64)
    bad = np.nonzero((lengths < 1) | (lengths > max_length))[0]
    if bad.size:
        raise ValueError(f"{name}: row {int(bad[0])} has length {int(lengths[bad[0]])}; a string is 1 to "
                         f"max_length = {max_length} bytes long")
    out[:, 1:][np.arange(1, max_length + 1)[None, :] > lengths[:, None]] = 0
    return out


def row_bytes(row) -> bytes:
    """The string of one canonical encoded row."""
    return bytes(np.asarray(row[1:1 + int(row[0])], np.uint8))


def key_words(hash_key: bytes) -> tuple[int, ...]:
    """The ChaCha20 key: 8 little-endian words."""
    return tuple(int.from_bytes(hash_key[4 * i: 4 * i + 4], "little") for i in range(8))


def check_max_length(max_length) -> int:
    if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)):
        raise TypeError(f"max_length must be an int in [1, {MAX_LENGTH}], got {type(max_length).__name__}")
    if not 1 <= int(max_length) <= MAX_LENGTH:
        raise ValueError(f"max_length must be in [1, {MAX_LENGTH}], got {max_length}")
    return int(max_length)


def to_bytes(value, max_length: int, name: str = "value") -> bytes:
    """A value as the bytes the device hashes: bytes as they are, a str UTF-8 encoded; at most
    max_length bytes."""
    if isinstance(value, str):
        b = value.encode("utf-8")
    elif isinstance(value, (bytes, bytearray, memoryview, np.bytes_)):
        b = bytes(value)
    else:
        raise ValueError(f"{name} must be bytes or str, got {type(value).__name__}")
    if len(b) > max_length:
        raise ValueError(f"{name} is {len(b)} bytes long; max_length is {max_length}")
    return b


def check_value(value, max_length: int, name: str = "value") -> bytes:
    """A device's string input: to_bytes, and not empty (the sketches' input domain)."""
    b = to_bytes(value, max_length, name)
    if not b:
        raise ValueError(f"{name} must be 1 to {max_length} bytes long, got an empty string")
    return b


def encode(s: bytes, max_length: int) -> bytes:
    """The vector x: the length, then the bytes, zero-padded to max_length + 1 symbols."""
    return bytes([len(s)]) + s + bytes(max_length - len(s))


@lru_cache(maxsize=4096)
def coefficients(hash_key: bytes, j: int, max_length: int) -> tuple[int, ...]:
    """(b, a_0, ..., a_L) of hash index j: the first L + 2 keystream words."""
    key, words, counter = key_words(hash_key), [], 0
    while len(words) < max_length + 2:
        words += chacha20_block(key, counter, (j, max_length, TAG))
        counter += 1
    return tuple(words[: max_length + 2])


def hash32(hash_key: bytes, j: int, s: bytes, max_length: int) -> int:
    """(b + sum_i a_i x_i) mod 2^32 for hash index j."""
    c = coefficients(hash_key, j, max_length)
    acc = c[0]
    for a, x in zip(c[1:], encode(s, max_length)):
        acc += a * x
    return acc & 0xFFFFFFFF


def hash_to_width(hash_key: bytes, j: int, s: bytes, max_length: int, log2_width: int) -> int:
    """h_j(s) in [0, 2^log2_width): the top log2_width bits of hash32."""
    if not 1 <= log2_width <= MAX_LOG2_WIDTH:
        raise ValueError(f"log2_width must be in [1, {MAX_LOG2_WIDTH}], got {log2_width}")
    return hash32(hash_key, j, s, max_length) >> (32 - log2_width)


def multiply_add_shift(coeffs, x, word_bits: int, log2_width: int) -> int:
    """The family itself at any word size (the enumeration test's subject):
    ((b + sum_i a_i x_i) mod 2^word_bits) >> (word_bits - log2_width), coeffs = (b, a_0, ...)."""
    acc = coeffs[0]
    for a, xi in zip(coeffs[1:], x):
        acc = acc + a * xi                 # not in place: coeffs may be arrays (every key at once)
    return (acc % (1 << word_bits)) >> (word_bits - log2_width)


__all__ = ["DEFAULT_HASH_KEY", "MAX_LENGTH", "MAX_LOG2_WIDTH", "TAG", "canonical_rows", "check_max_length", "coefficients", "encode_strings", "row_bytes",
           "check_value", "encode", "encoded_rows", "hash32", "parse_key", "hash_to_width", "key_words", "multiply_add_shift", "parse_hash_key", "to_bytes"]
