"""bernoulli_block and bernoulli_block_ct (issue 33, item 1): up to 32 Bernoulli(a / 2^k) lanes per
draw, bit-sliced.  Exactness by enumerating every bit string for small lanes and k; the reference,
the Numba kernel and the host C library bit for bit on one stream; one lane is bernoulli_dyadic;
the constant-time form's bit use is fixed; bad parameters are refused."""
import itertools
import random
from math import prod

import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK, EntropyError
from fxdp.samplers import _kernels as K
from fxdp.samplers import _nb_block as NB
from fxdp.samplers import reference as ref

ffi, lib = native.ffi, native.lib
SEED = 0xB10C_5EED_0000_1111_2222_3333_4444_5555_6666_7777_8888_9999_AAAA
FORMS = {"lazy": (ref.bernoulli_block, NB.bernoulli_block, lib.fxdp_bernoulli_block),
         "ct": (ref.bernoulli_block_ct, NB.bernoulli_block_ct, lib.fxdp_bernoulli_block_ct)}


class _Bits:
    """A bit source over a fixed tuple of bits (MSB first), counting what was read."""

    def __init__(self, bits):
        self.b, self.i = bits, 0

    def bits(self, n):
        v = 0
        for _ in range(n):
            v = 2 * v + self.b[self.i]
            self.i += 1
        return v

    def bits64(self, n):
        return self.bits(n)


def _lane_thresholds(lanes, a_one, a_zero, mask):
    return [a_one if (mask >> (lanes - 1 - l)) & 1 else a_zero for l in range(lanes)]


def _small_params():
    """(lanes, k) with lanes * k <= 9, every threshold pair and every mask."""
    for lanes, kmax in ((1, 5), (2, 3), (3, 3)):
        for k in range(kmax + 1):
            for a_one in range(2**k + 1):
                for a_zero in range(2**k + 1):
                    for mask in range(2**lanes):
                        yield lanes, k, a_one, a_zero, mask


@pytest.mark.parametrize("form", ["lazy", "ct"])
def test_every_bit_string_gives_the_exact_product_distribution(form):
    """Over all 2^(lanes k) strings of lanes * k bits (each read at most that far), the count of each
    outcome word is exactly the product of the lanes' Bernoulli weights: a_l for a 1, 2^k - a_l for
    a 0.  The constant-time form reads exactly lanes * k bits on every string."""
    draw = FORMS[form][0]
    cases = 0
    for lanes, k, a_one, a_zero, mask in _small_params():
        B = lanes * k
        a = _lane_thresholds(lanes, a_one, a_zero, mask)
        counts = {}
        for s in itertools.product((0, 1), repeat=B):
            src = _Bits(s)
            out = draw(src, lanes, a_one, a_zero, k, mask)
            assert src.i <= B
            if form == "ct":
                assert src.i == B
            counts[out] = counts.get(out, 0) + 1
        for out in range(2**lanes):
            want = prod(a[l] if (out >> (lanes - 1 - l)) & 1 else 2**k - a[l] for l in range(lanes))
            assert counts.get(out, 0) == want, (form, lanes, k, a_one, a_zero, mask, out)
        cases += 1
    assert cases == 4422        # sum over (lanes, k) of (2^k + 1)^2 2^lanes


@pytest.mark.parametrize("k", range(0, 8))
def test_one_lane_reads_the_bits_of_bernoulli_dyadic(k):
    """lanes = 1: the outcome and the bits read equal bernoulli_dyadic(a, k) (lazy) and
    bernoulli_dyadic_ct (ct), on every string of k bits and for every a in [0, 2^k]."""
    for a in range(2**k + 1):
        for s in itertools.product((0, 1), repeat=k):
            for single, block in ((ref.bernoulli_dyadic, ref.bernoulli_block),
                                  (ref.bernoulli_dyadic_ct, ref.bernoulli_block_ct)):
                s1, s2 = _Bits(s), _Bits(s)
                assert int(single(s1, a, k)) == block(s2, 1, a, 0, k, 1)
                assert s1.i == s2.i


def _numba_on_string(nb, bits, lanes, a_one, a_zero, k, mask):
    B = len(bits)
    st = K.replay_bits(int("".join(map(str, bits)) or "0", 2), B)
    s, v = nb(st, np.int64(lanes), np.uint64(a_one), np.uint64(a_zero), np.int64(k), np.uint64(mask))
    return int(s), int(v), int(K.bits_used(st))


@pytest.mark.parametrize("form", ["lazy", "ct"])
def test_numba_and_c_match_the_reference_string_by_string(form):
    """Every string of lanes * k bits for lanes * k <= 8 (a subset of the thresholds): Numba and C
    give the reference's outcome and read as many bits (a replay of the string, then failure)."""
    rf, nb, cf = FORMS[form]
    out = ffi.new("uint32_t *")
    n = 0
    for lanes, k, a_one, a_zero, mask in _small_params():
        if lanes * k > 8 or (a_one + 3 * a_zero + mask) % 3:
            continue
        for s in itertools.product((0, 1), repeat=lanes * k):
            src = _Bits(s)
            want = rf(src, lanes, a_one, a_zero, k, mask)
            st, v, used = _numba_on_string(nb, s, lanes, a_one, a_zero, k, mask)
            assert (st, v, used) == (OK, want, src.i), (form, lanes, k, a_one, a_zero, mask, s)
            value = int("".join(map(str, s)) or "0", 2)
            r = _c_replay(value, lanes * k)
            assert cf(r, lanes, a_one, a_zero, k, mask, out) == OK
            assert out[0] == want
            n += 1
    assert n > 1000


def _c_replay(value, nbits):
    nwords = max(1, (nbits + 31) // 32)
    padded = value << (32 * nwords - nbits)
    words = [(padded >> (32 * (nwords - 1 - i))) & 0xFFFFFFFF for i in range(nwords)]
    return native.new_rng_replay(words)


def _random_params(rnd):
    lanes = rnd.choice([1, 2, 3, 7, 8, 16, 31, 32, rnd.randint(1, 32)])
    k = rnd.choice([0, 1, 2, 5, 16, 31, 32, 33, 63, rnd.randint(0, 63)])
    pick = lambda: rnd.choice([0, 2**k, 2**(k - 1) if k else 1, rnd.randint(0, 2**k)])  # noqa: E731
    return lanes, k, pick(), pick()


@pytest.mark.parametrize("form", ["lazy", "ct"])
def test_three_implementations_agree_on_one_stream(form):
    """400 parameter sets, 25 draws each (random masks), one ChaCha20 stream per implementation:
    the same outputs, and the same bits used after every draw."""
    rf, nb, cf = FORMS[form]
    rnd = random.Random(33)
    src = ChaCha20Source(SEED, 11, 2)
    st = K.seed_state(K.new_state(), SEED, 11, 2)
    r = native.new_rng_seeded(SEED, 11, 2)
    out = ffi.new("uint32_t *")
    for _ in range(400):
        lanes, k, a_one, a_zero = _random_params(rnd)
        for _ in range(25):
            mask = rnd.getrandbits(lanes)
            want = rf(src, lanes, a_one, a_zero, k, mask)
            s, v = nb(st, np.int64(lanes), np.uint64(a_one), np.uint64(a_zero), np.int64(k), np.uint64(mask))
            assert (int(s), int(v)) == (OK, want)
            assert cf(r, lanes, a_one, a_zero, k, mask, out) == OK and out[0] == want
            assert int(K.bits_used(st)) == src.bits_used
            assert (r.counter, r.word_pos, r.bitbuf, r.bitcount) == (src.counter, src._pos, src._buf, src._nbuf)
    assert src.bits_used > 10**5


def test_constant_time_bits_do_not_depend_on_the_mask_or_the_digits():
    """ct: exactly k * lanes bits for every mask (the lazy form's count varies with both)."""
    rnd = random.Random(5)
    for lanes, k, a_one, a_zero in [(32, 20, 3 << 17, 1 << 15), (17, 9, 300, 11), (1, 63, 2**62 + 1, 5)]:
        src = ChaCha20Source(SEED, 3, 0)
        lazy_used = set()
        for _ in range(200):
            before = src.bits_used
            ref.bernoulli_block_ct(src, lanes, a_one, a_zero, k, rnd.getrandbits(lanes))
            assert src.bits_used - before == k * lanes
            before = src.bits_used
            ref.bernoulli_block(src, lanes, a_one, a_zero, k, rnd.getrandbits(lanes))
            lazy_used.add(src.bits_used - before)
        assert len(lazy_used) > 1


def test_block_frequencies_at_scale():
    """Numba, 32 lanes, 20,000 draws (640,000 lane outcomes) with the hot lane at a random position:
    each lane's frequency within 5 standard errors of a_l / 2^k (fixed seed; the threshold gives a
    false alarm with probability < 10^-5 per lane)."""
    k, a_one, a_zero, lanes, n = 16, 40000, 9000, 32, 20_000
    rnd = np.random.default_rng(7)
    hot = rnd.integers(0, lanes, n)
    masks = (np.uint64(1) << (np.uint64(lanes - 1) - hot.astype(np.uint64))).astype(np.uint64)
    out = np.zeros(n, np.uint32)
    st = K.seed_state(K.new_state(), SEED, 1, 0)
    s, done = NB.fill_bernoulli_block(st, lanes, a_one, a_zero, k, masks, False, out)
    assert (s, done) == (OK, n)
    bits = ((out[:, None] >> np.arange(lanes - 1, -1, -1, dtype=np.uint32)) & 1).astype(bool)
    is_hot = bits[np.arange(n), hot]
    p1, p0 = a_one / 2**k, a_zero / 2**k
    assert abs(is_hot.mean() - p1) < 5 * (p1 * (1 - p1) / n) ** 0.5
    cold = bits.sum() - is_hot.sum()
    m = n * (lanes - 1)
    assert abs(cold / m - p0) < 5 * (p0 * (1 - p0) / m) ** 0.5


@pytest.mark.parametrize("args,what", [
    ((0, 1, 1, 1, 0), "lanes"), ((33, 1, 1, 1, 0), "lanes"), ((4, 1, 1, 64, 0), "k"),
    ((4, 5, 1, 2, 0), "a_one"), ((4, 1, 5, 2, 0), "a_zero"), ((4, 1, 1, 2, 16), "mask"),
    ((32, 1, 1, 2, 2**32), "mask")])
def test_bad_parameters_are_refused_everywhere(args, what):
    lanes, a_one, a_zero, k, mask = args
    r = native.new_rng_seeded(SEED, 0, 0)
    out = ffi.new("uint32_t *", 7)
    if mask < 2**32:
        for cf in (lib.fxdp_bernoulli_block, lib.fxdp_bernoulli_block_ct):
            assert cf(r, lanes, a_one, a_zero, k, mask, out) == ERR_PARAM and out[0] == 7
    for nb in (NB.bernoulli_block, NB.bernoulli_block_ct):
        st = K.seed_state(K.new_state(), SEED, 0, 0)
        s, _ = nb(st, np.int64(lanes), np.uint64(a_one), np.uint64(a_zero), np.int64(k), np.uint64(mask))
        assert int(s) == ERR_PARAM and int(K.bits_used(st)) == 0
    with pytest.raises(ValueError, match=what):
        native.bernoulli_block(r, lanes, a_one, a_zero, k, [mask])


def test_null_pointers_and_entropy_failure():
    out = ffi.new("uint32_t *", 7)
    r = native.new_rng_seeded(SEED, 0, 0)
    assert lib.fxdp_bernoulli_block(ffi.NULL, 4, 1, 1, 2, 0, out) == ERR_PARAM
    assert lib.fxdp_bernoulli_block_ct(r, 4, 1, 1, 2, 0, ffi.NULL) == ERR_PARAM
    # the ct form needs 32 * 20 bits: a one-word replay fails part-way, out untouched
    r = _c_replay(0x12345678, 32)
    assert lib.fxdp_bernoulli_block_ct(r, 32, 3, 1 << 19, 20, 0xF0F0F0F0, out) == ERR_ENTROPY and out[0] == 7
    st = K.replay_bits(0x12345678, 32)
    s, _ = NB.bernoulli_block_ct(st, np.int64(32), np.uint64(3), np.uint64(1 << 19), np.int64(20),
                                 np.uint64(0xF0F0F0F0))
    assert int(s) == ERR_ENTROPY
    src = ReplaySource.from_bits(0x12345678, 32)
    with pytest.raises(EntropyError):
        ref.bernoulli_block_ct(src, 32, 3, 1 << 19, 20, 0xF0F0F0F0)


def test_native_wrapper_draws_a_mask_array():
    """native.bernoulli_block: one draw per mask, in order, on one stream (the C library)."""
    masks = [0, 1, 0x80000000, 0xFFFFFFFF, 12345]
    r = native.new_rng_seeded(SEED, 4, 0)
    got = native.bernoulli_block(r, 32, 3 << 14, 1 << 12, 16, masks)
    src = ChaCha20Source(SEED, 4, 0)
    assert list(got) == [ref.bernoulli_block(src, 32, 3 << 14, 1 << 12, 16, m) for m in masks]
    got = native.bernoulli_block(native.new_rng_seeded(SEED, 4, 0), 32, 3 << 14, 1 << 12, 16, masks,
                                 constant_time=True)
    src = ChaCha20Source(SEED, 4, 0)
    assert list(got) == [ref.bernoulli_block_ct(src, 32, 3 << 14, 1 << 12, 16, m) for m in masks]
