"""_rd_dyadic_run (fxdp/samplers/_nb_run.py): a run of lazy Bernoulli(a / 2^k) draws a byte at a
time reads exactly the bits of the draw-by-draw loop.  Checked against hi - lo calls of the lazy
draw on the same stream (outputs, status, buffer, bits used), over every threshold for small k,
random ones up to k = 63, keyed streams of both versions, and replayed streams cut at every length
(the entropy failure leaves the same state); the automaton table is checked against the bit-by-bit
definition for every state and byte of small cases."""
import random

import numba
import numpy as np
import pytest

from fxdp.bitsource import Seed
from fxdp.errors import OK
from fxdp.samplers import _kernels as K
from fxdp.samplers._nb_run import _rd_dyadic_run, dyadic_run_table
from fxdp.samplers._nb_uniform import _rd_dyadic

SEED = 0x5EED_0F_D7AD1C_0123_4567_89AB_CDEF


@numba.njit   # no cache: a cached caller keeps an inlined callee's old code
def _one_by_one(state, a, k, out, lo, hi):
    buf, c = K._load(state)
    for i in range(lo, hi):
        st, b, buf, c = _rd_dyadic(state, buf, c, np.uint64(a), np.uint64(k))
        if st != OK:
            K._store(state, buf, c)
            return st
        out[i] = np.uint8(1 if b else 0)
    K._store(state, buf, c)
    return OK


@numba.njit   # no cache: a cached caller keeps an inlined callee's old code
def _as_run(state, table, a, k, out, lo, hi):
    buf, c = K._load(state)
    st, buf, c = _rd_dyadic_run(state, buf, c, table, np.uint64(a), np.uint64(k), out, lo, hi)
    K._store(state, buf, c)
    return st


def _both(make_state, a, k, lo, hi, n):
    s1, s2 = make_state(), make_state()
    o1, o2 = np.full(n, 7, np.uint8), np.full(n, 7, np.uint8)
    r1 = _one_by_one(s1, a, k, o1, lo, hi)
    r2 = _as_run(s2, dyadic_run_table(a, k), a, k, o2, lo, hi)
    return (r1, o1, s1), (r2, o2, s2)


def _same(a_side, b_side):
    """Same status, bits used and whole state; the same outputs when the draws succeeded."""
    (r1, o1, s1), (r2, o2, s2) = a_side, b_side
    assert r1 == r2
    assert int(K.bits_used(s1)) == int(K.bits_used(s2))
    assert np.array_equal(s1, s2)                        # buffer, counters, block: the whole state
    if r1 == OK:
        assert np.array_equal(o1, o2)


def _draws(lo, spans=(0, 1, 7, 8, 9, 40, 300)):
    return [(lo, lo + w) for w in spans]


@pytest.mark.parametrize("version", [1, 2])
def test_every_threshold_of_small_k_reads_the_bits_of_the_draw_by_draw_loop(version):
    cases = 0
    for k in range(0, 7):
        for a in range(2**k + 1):
            for lo, hi in _draws(3):
                seed_dev = 1000 * k + a
                mk = lambda: K.seed_state(K.new_state(), Seed(SEED, stream_version=version), seed_dev, 0)  # noqa
                _same(*_both(mk, a, k, lo, hi, hi + 3))
                cases += 1
    assert cases == 7 * sum(2**k + 1 for k in range(7))


def test_every_run_length_near_the_byte_boundaries():
    """Runs of 0..40 draws, where the last bytes meet the 8-draws-left rule (k = 1, a = 1 ends a draw
    at every bit, so a byte there always ends 8 draws)."""
    for k in range(1, 5):
        for a in range(1, 2**k):
            for n in range(41):
                for dev in range(3):
                    _same(*_both(lambda: K.seed_state(K.new_state(), SEED, dev, 7), a, k, 2, 2 + n, n + 12))


def test_random_thresholds_up_to_k_63_on_long_runs():
    rnd = random.Random(33)
    for t in range(300):
        k = rnd.choice([8, 16, 31, 32, 33, 48, 63]) if t % 3 else rnd.randrange(1, 64)
        a = rnd.choice([rnd.randrange(1, 2**k), 2**(k - 1), 1, 2**k - 1, rnd.randrange(1, 2**k) | 1])
        n = rnd.choice([1, 9, 64, 1024, 4099])
        lo = rnd.randrange(0, 3)
        _same(*_both(lambda: K.seed_state(K.new_state(), SEED, t, 1), a, k, lo, lo + n, lo + n))


def test_an_entropy_failure_leaves_the_state_of_the_draw_by_draw_loop():
    """Replayed streams of every length up to 16 words (a replay state's most): the run fails where the loop fails, with
    the same status, buffer and bits used; a stream long enough gives the same outputs."""
    rnd = random.Random(5)
    words = [rnd.getrandbits(32) for _ in range(16)]
    failures = 0
    for a, k in ((1, 2), (3, 3), (0x9E3779B9, 32), (1155094610, 32), (5, 7)):
        for nw in range(0, 17):
            mk = lambda: K.replay_state(np.array(words[:nw], dtype=np.uint32))     # noqa: E731
            b1, b2 = _both(mk, a, k, 0, 300, 300)
            _same(b1, b2)
            failures += b1[0] != OK
    assert failures > 20


def test_the_table_is_the_bit_by_bit_automaton():
    for a, k in ((1, 1), (1, 3), (5, 4), (11, 5), (3, 8), (0x9E3779B9, 32)):
        t = dyadic_run_table(a, k)
        z = (a & -a).bit_length() - 1
        aa, m = a >> z, k - z
        assert t.shape == (m, 256)
        for s0 in range(m):
            for b in range(256):
                s, outs = s0, []
                for j in range(8):
                    u = (b >> (7 - j)) & 1
                    digit = (aa >> (m - 1 - s)) & 1
                    if u != digit:
                        outs.append(digit)
                        s = 0
                    else:
                        s += 1
                        if s == m:
                            outs.append(0)
                            s = 0
                e = int(t[s0, b])
                assert e & 15 == len(outs)
                assert [(e >> (4 + j)) & 1 for j in range(len(outs))] == outs
                assert e >> 12 == s
    assert dyadic_run_table(0, 5).shape == (0, 256) and dyadic_run_table(32, 5).shape == (0, 256)
