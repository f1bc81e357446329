"""uniform_below_ct (issue 32): the constant-time uniform index with a fixed budget of
UNIFORM_CT_ROUNDS = 4 rounds of Lemire's multiply-and-reject, in the reference, the Numba
kernels and C (fxdp_uniform_below_ct_u32), bit for bit, including the budget's failure.
Vectors: tests/vectors/uniform_below_ct.json (and v2/), tests/test_vectors.py; instruction
counts: tests/test_constant_time.py."""
import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import ERR_RANGE, OK, RangeError
from fxdp.samplers import _kernels as K
from fxdp.samplers import reference as ref

R = ref.UNIFORM_CT_ROUNDS


def test_rounds_agree():
    assert R == K.UNIFORM_CT_ROUNDS == 4
    lib = native.load().lib
    assert lib.FXDP_UNIFORM_CT_ROUNDS == 4 if hasattr(lib, "FXDP_UNIFORM_CT_ROUNDS") else True


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 10, 64, 100, 1000, 1021, 1024, 4095, 65535, 65536])
def test_accepted_words_are_exactly_uniform(n):
    """Every value v in {0..n-1} has exactly floor(2^32 / n) accepted words w (w n >> 32 = v and
    w n mod 2^32 >= 2^32 mod n), counted exactly over the words of each value."""
    t = (1 << 32) % n
    want = (1 << 32) // n
    for v in range(n):
        lo_w = -(-(v << 32) // n)                  # first w with (w n) >> 32 = v
        hi_w = -(-((v + 1) << 32) // n)            # one past the last
        # lo(w) = w n - v 2^32 runs over an arithmetic progression of step n
        first = lo_w * n - (v << 32)
        # count w in [lo_w, hi_w) with first + (w - lo_w) n >= t
        skip = 0 if first >= t else -(-(t - first) // n)
        assert max(0, hi_w - lo_w - skip) == want, (n, v)


@pytest.mark.parametrize("n", [1, 3, 1000, 65535])
def test_bits_are_fixed(n):
    src = ChaCha20Source(123, device_id=4)
    for i in range(200):
        ref.uniform_below_ct(src, n)
        assert src.bits_used == 32 * R * (i + 1)
    st = K.seed_state(K.new_state(), 123, 4)
    out = np.zeros(200, np.uint64)
    assert K.fill_uniform_below_ct(st, np.uint64(n), out) == (OK, 200)
    assert K.bits_used(st) == 32 * R * 200


def test_failure_bound():
    """Per round the rejection probability is t/2^32 with t = 2^32 mod n < n, so the budget fails
    with probability (t/2^32)^4 < (n/2^32)^4 <= 2^-64 for every n <= 2^16; 0 for powers of two."""
    worst = max((1 << 32) % n for n in range(1, (1 << 16) + 1))
    assert worst < (1 << 16)
    assert (worst / 2**32) ** R <= 2.0 ** -64
    assert all((1 << 32) % (1 << j) == 0 for j in range(33))


def _three(words, n):
    """(status, value, bits used) from the reference, Numba and C on the replayed words."""
    src = ReplaySource(words)
    try:
        r = (OK, ref.uniform_below_ct(src, n))
    except RangeError:
        r = (ERR_RANGE, None)
    r = r + (src.bits_used,)
    st = K.replay_state(words)
    s, v = K.uniform_below_ct(st, np.uint64(n))
    nb = (int(s), int(v) if s == OK else None, K.bits_used(st))
    mod = native.load()
    rng = native.new_rng_replay(words)
    out = mod.ffi.new("uint32_t *")
    s = mod.lib.fxdp_uniform_below_ct_u32(rng, n, out)
    c = (int(s), int(out[0]) if s == OK else None, 32 * len(words) - _unread_bits(rng))
    return r, nb, c


def _unread_bits(rng):
    return (rng.block_len - rng.word_pos) * 32 + rng.bitcount


@pytest.mark.parametrize("words,n,want", [
    ([0, 0, 0, 0], 3, (ERR_RANGE, None)),               # w = 0 is the one rejected word for n = 3
    ([0, 0, 0, 0x80000000], 3, (OK, 1)),                # the last round accepts
    ([0, 0xFFFFFFFF, 0, 0], 3, (OK, 2)),                # the second round, later ones ignored
    ([0x55555555, 0, 0, 0], 3, (OK, 0)),
    ([0, 0, 0, 0], 1024, (OK, 0)),                      # a power of two never rejects
    ([1, 0, 0, 0], 2**31 + 1, (OK, 0)),                 # lo = 2^31 + 1 >= t
    ([0xFFFFFFFF] * 4, 2**31 + 1, (OK, 2**31)),         # lo = 2^31 - 1 = t: accepted, n - 1
    ([2, 2, 2, 2], 2**31 + 1, (ERR_RANGE, None)),       # lo = 2 < t = 2^31 - 1 in every round
])
def test_three_implementations_on_replayed_words(words, n, want):
    r, nb, c = _three(words, n)
    assert r == nb == c
    assert r[:2] == want
    assert r[2] == 32 * R                  # every round read its word, failure or not


def test_budget_failure_is_not_sticky():
    st = K.replay_state([0, 0, 0, 0, 7, 0, 0, 0])
    assert K.uniform_below_ct(st, np.uint64(3))[0] == ERR_RANGE
    assert K.uniform_below_ct(st, np.uint64(3)) == (OK, 0)
    rng = native.new_rng_replay([0, 0, 0, 0, 7, 0, 0, 0])
    with pytest.raises(RangeError):
        native.uniform_below_ct(rng, 3, 1)
    assert native.uniform_below_ct(rng, 3, 1).tolist() == [0]


@pytest.mark.parametrize("n", [3, 1000, 3 * 2**20 + 1, 2**31 + 1])
def test_numba_and_c_agree_at_scale(n):
    """10^5 draws (n = 2^31 + 1: about half the rounds reject, so the budget fails about once
    in 16 draws: both stop at the same draw with ERR_RANGE)."""
    count = 100_000
    st = K.seed_state(K.new_state(), 99, 3)
    out = np.zeros(count, np.uint64)
    s, done = K.fill_uniform_below_ct(st, np.uint64(n), out)
    rng = native.new_rng_seeded(99, 3)
    if s == OK:
        assert native.uniform_below_ct(rng, n, count).tolist() == out.tolist()
    else:
        assert s == ERR_RANGE and n == 2**31 + 1
        assert native.uniform_below_ct(rng, n, int(done)).tolist() == out[:done].tolist()
        with pytest.raises(RangeError):
            native.uniform_below_ct(rng, n, 1)
    src = ChaCha20Source(99, device_id=3)
    m = min(int(done), 2000)
    assert [ref.uniform_below_ct(src, n) for _ in range(m)] == out[:m].tolist()


def test_parameter_range():
    st = K.seed_state(K.new_state(), 1)
    assert K.uniform_below_ct(st, np.uint64(0))[0] == 1
    assert K.uniform_below_ct(st, np.uint64(2**32))[0] == 1
    with pytest.raises(ValueError):
        native.uniform_below_ct(native.new_rng_seeded(1), 0, 1)
    with pytest.raises(ValueError):
        native.uniform_below_ct(native.new_rng_seeded(1), 2**32, 1)
