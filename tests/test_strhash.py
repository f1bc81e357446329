"""The keyed string hash family of the string sketches (fxdp.strhash, issue 34): the family is
strongly universal, checked by enumerating every coefficient vector at small word sizes; the
reference, the Numba twin and the C twin agree on shared known-answer vectors and on random
strings; the C form ignores the bytes past the length; bad input is refused."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from fxdp import native
from fxdp import strhash as S
from fxdp.samplers import _nb_strhash as N

VECTORS = json.loads((Path(__file__).parent / "strhash_vectors.json").read_text())["cases"]


def _pair_counts(word_bits, sym_bits, log2_width, length):
    """For every pair of distinct vectors of `length` symbols of sym_bits, the counts of
    (h(x), h(y)) over every coefficient vector (b, a_0, ..., a_{length-1}) in [2^word_bits]^(length+1)."""
    keys = np.arange(1 << word_bits, dtype=np.int64)
    grids = np.meshgrid(*([keys] * (length + 1)), indexing="ij")
    coeffs = [g.ravel() for g in grids]                   # (b, a_0, ...) as arrays: every key at once
    xs = list(itertools.product(range(1 << sym_bits), repeat=length))
    h = {x: S.multiply_add_shift(coeffs, x, word_bits, log2_width) for x in xs}
    m = 1 << log2_width
    for x, y in itertools.combinations(xs, 2):
        yield np.bincount(h[x] * m + h[y], minlength=m * m), coeffs[0].size


@pytest.mark.parametrize("word_bits, sym_bits, log2_width, length", [
    (6, 2, 3, 2), (5, 2, 4, 2), (4, 2, 3, 2), (6, 2, 5, 2), (5, 1, 5, 3), (4, 3, 2, 2)])
def test_multiply_add_shift_is_strongly_universal_when_the_word_is_long_enough(word_bits, sym_bits, log2_width,
                                                                                 length):
    """word_bits >= sym_bits + log2_width - 1 (the real family: 32 >= 8 + l - 1 for l <= 25): every
    pair of distinct vectors has every pair of outputs for exactly 1/m^2 of the keys."""
    assert word_bits >= sym_bits + log2_width - 1
    m = 1 << log2_width
    for counts, n_keys in _pair_counts(word_bits, sym_bits, log2_width, length):
        assert counts.min() == counts.max() == n_keys // (m * m)


@pytest.mark.parametrize("word_bits, sym_bits, log2_width, length", [(4, 2, 4, 2), (3, 2, 3, 2), (5, 3, 4, 2)])
def test_the_enumeration_fails_where_the_word_is_too_short(word_bits, sym_bits, log2_width, length):
    """The check above can fail: one bit short of the condition, some pair is not uniform."""
    assert word_bits < sym_bits + log2_width - 1
    assert any(c.min() != c.max() for c, _ in _pair_counts(word_bits, sym_bits, log2_width, length))


def test_the_length_symbol_keeps_padded_strings_apart():
    assert S.encode(b"a", 4) != S.encode(b"a\x00", 4)
    assert S.encode(b"", 3) == bytes(4)
    assert len(S.encode(b"abc", 255)) == 256


def test_known_answers_reference_numba_and_c():
    ffi, lib = native.ffi, native.lib
    out = ffi.new("uint32_t *")
    scratch = np.empty(N.SCRATCH_WORDS, np.uint32)
    for c in VECTORS:
        key, s, j, L = bytes.fromhex(c["hash_key"]), bytes.fromhex(c["value"]), c["j"], c["max_length"]
        assert S.hash32(key, j, s, L) == c["hash32"], c
        coeffs = np.empty(L + 2, np.uint32)
        N.strhash_coefficients(np.array(S.key_words(key), np.uint32), j, L, coeffs, scratch)
        assert int(N.strhash32(coeffs, np.frombuffer(S.encode(s, L), np.uint8))) == c["hash32"], c
        block = ffi.new("uint8_t[]", s + bytes(L - len(s)) if L > len(s) else s)
        assert lib.fxdp_strhash32(ffi.new("uint32_t[8]", S.key_words(key)), j, block, len(s), L, out) == 0
        assert out[0] == c["hash32"], c
    assert len({c["hash32"] for c in VECTORS}) > 0.9 * len(VECTORS)


def test_random_strings_agree_and_c_ignores_the_bytes_past_the_length():
    ffi, lib = native.ffi, native.lib
    rng = np.random.default_rng(34)
    key = bytes(rng.integers(0, 256, 32, dtype=np.uint8))
    kw = ffi.new("uint32_t[8]", S.key_words(key))
    out = ffi.new("uint32_t *")
    for L in (1, 7, 16, 31, 32, 33, 100, 255):
        table = N.strhash_table(np.array(S.key_words(key), np.uint32), 3, L)
        strs = [bytes(rng.integers(0, 256, rng.integers(0, L + 1), dtype=np.uint8)) for _ in range(40)]
        rows = np.array([list(S.encode(s, L)) for s in strs], np.uint8)
        for j in range(3):
            got = np.empty(len(strs), np.uint32)
            N.strhash32_rows(table[j], rows, got)
            want = [S.hash32(key, j, s, L) for s in strs]
            assert [int(v) for v in got] == want
            for s, w in zip(strs, want):
                junk = bytes(rng.integers(0, 256, L - len(s), dtype=np.uint8))
                assert lib.fxdp_strhash32(kw, j, ffi.new("uint8_t[]", s + junk), len(s), L, out) == 0
                assert out[0] == w


def _colliding_pairs(strs, hashes, log2_width=10):
    rows = np.array([list(S.encode(s, 32)) for s in strs], np.uint8)
    table = N.strhash_table(np.array(S.key_words(S.DEFAULT_HASH_KEY), np.uint32), hashes, 32)
    out = []
    for j in range(hashes):
        h = np.empty(len(strs), np.uint32)
        N.strhash32_rows(table[j], rows, h)
        counts = np.bincount(h >> np.uint32(32 - log2_width), minlength=1 << log2_width)
        out.append(int((counts * (counts - 1) // 2).sum()))
    return np.array(out)


def test_collisions_under_the_published_key_are_at_the_bound():
    """3,000 distinct strings into a width of 2^10 under DEFAULT_HASH_KEY, 64 hash indices: the
    colliding pairs against C(3000, 2)/1024 = 4,393, the expectation of a strongly universal
    family.  Random strings: each index within 6 standard deviations of the count as if the pairs
    were independent (sd about sqrt(4,393) = 66).  Structured strings ("event-0" ... "event-2999",
    a few bytes apart): under one key the collisions of a linear family come in groups (pairs
    with the same byte differences collide together), so one index's count spreads far more
    (sd about 1,000 here); their mean over the 64 indices, each with its own coefficients (what
    the Count Mean Sketch averages over), is within 5 of its standard errors."""
    rng = np.random.default_rng(1)
    random_strings = list({bytes(rng.integers(97, 123, 8, dtype=np.uint8)) for _ in range(3000)})[:3000]
    assert len(random_strings) == 3000
    pairs = _colliding_pairs(random_strings, 64)
    assert np.abs(pairs - 4393).max() < 6 * 66, pairs
    pairs = _colliding_pairs([f"event-{i}".encode() for i in range(3000)], 64)
    assert abs(pairs.mean() - 4393) < 5 * pairs.std() / 8, (pairs.mean(), pairs.std())
    assert pairs.std() > 300                   # the grouping is real: the docs state it


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="value must be bytes or str"):
        S.to_bytes(12, 32)
    with pytest.raises(ValueError, match="33 bytes long; max_length is 32"):
        S.to_bytes("x" * 33, 32)
    assert S.to_bytes("é", 2) == b"\xc3\xa9"
    with pytest.raises(ValueError, match="2 bytes long; max_length is 1"):
        S.to_bytes("é", 1)
    with pytest.raises(ValueError, match=r"max_length must be in \[1, 255\]"):
        S.check_max_length(256)
    with pytest.raises(TypeError, match="max_length must be an int"):
        S.check_max_length(True)
    with pytest.raises(ValueError, match="32 bytes"):
        S.parse_hash_key(b"short")
    with pytest.raises(ValueError, match="64 hex digits"):
        S.parse_hash_key("zz")
    assert S.parse_hash_key("0x" + bytes(range(32)).hex()) == bytes(range(32))
    with pytest.raises(ValueError, match=r"log2_width must be in \[1, 25\]"):
        S.hash_to_width(S.DEFAULT_HASH_KEY, 0, b"a", 4, 26)
    ffi, lib = native.ffi, native.lib
    kw, out, blk = ffi.new("uint32_t[8]"), ffi.new("uint32_t *"), ffi.new("uint8_t[]", 8)
    out[0] = 7
    for args in ((kw, 0, blk, 9, 8, out), (kw, 0, blk, 0, 0, out), (kw, 0, blk, 0, 256, out),
                 (ffi.NULL, 0, blk, 0, 8, out), (kw, 0, ffi.NULL, 0, 8, out), (kw, 0, blk, 0, 8, ffi.NULL)):
        assert lib.fxdp_strhash32(*args) == 1          # FXDP_ERR_PARAM
    assert out[0] == 7                                   # nothing written


def test_encode_strings_is_the_checked_loop():
    """The numpy fill gives the rows of the checked loop for bytes, str, mixed, numpy bytes and a
    generator, and the loop's error for the first bad value (empty, too long, not a string)."""
    cases = [[b"a", b"\x00\x00", b"xyz\x00", b"\xff" * 8], ["a", "Grüße", "ab\x00"], [b"a", "b", np.bytes_(b"cd")],
             []]
    for vals in cases:
        want = S.encoded_rows(vals, lambda v: S.check_value(v, 8), 8)
        assert np.array_equal(S.encode_strings(vals, 8), want)
        assert np.array_equal(S.encode_strings(iter(vals), 8), want)
    for bad, match in (([b"ok", b""], "empty string"), (["ok", "x" * 9], "9 bytes long"), ([b"ok", 3], "bytes or str"),
                       ((v for v in [b"ok", b""]), "empty string")):
        with pytest.raises(ValueError, match=match):
            S.encode_strings(bad, 8)
    with pytest.raises(TypeError, match="a single string"):
        S.encode_strings("abc", 8)
