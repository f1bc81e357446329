"""The multi-lane ChaCha20 of the fleet kernels (fxdp/samplers/_nb_lanes.py) against the scalar
block function and the RFC 8439 vector, and the lane-seeded device state against the scalar one."""
import numba
import numpy as np
import pytest

from fxdp.bitsource import ChaCha20Source, ReplaySource, Seed, derive_key_nonce
from fxdp.errors import ERR_ENTROPY as ENTROPY, EntropyError
from fxdp.mechanisms import (make_geometric, make_hadamard_response, make_local_hashing,
                             make_randomized_response, make_randomized_response_bool, make_rappor)
from fxdp.mechanisms import _fleet
from fxdp.samplers import _kernels as K
from fxdp.samplers import _nb_core as C
from fxdp.samplers import reference as ref
from fxdp.samplers._nb_lanes import LANES, ahead_blocks, lane_blocks, seed_device_ahead, seed_lane


def _scalar(key, dev, counter, stream):
    out = np.zeros(16, np.uint32)
    C.chacha20_block(key, counter, np.array([dev & 0xFFFFFFFF, dev >> 32, stream], np.uint32), out)
    return out


def test_rfc8439_block_vector_through_the_lanes():
    """RFC 8439 section 2.3.2: key 00..1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00, counter 1;
    as a fleet stream that is device id 0x4a000000_09000000, stream 0."""
    key = np.frombuffer(bytes(range(32)), dtype="<u4").astype(np.uint32)
    dev = (0x4A000000 << 32) | 0x09000000
    ids = np.array([7, dev, 3], dtype=np.uint64)
    x = np.zeros((16, LANES), np.uint32)
    lane_blocks(key, ids, 1, 1, np.uint32(1), np.uint32(0), x)
    expect = bytes.fromhex(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e")
    assert x[:, 0].astype("<u4").tobytes() == expect


def test_lane_blocks_compile_for_the_widest_vectors():
    """prefer_wide_vectors puts "prefer-vector-width"="512" on lane_blocks, so that LLVM's tuning
    of some AVX-512 CPUs for 256-bit vectors does not halve its lanes: a fresh (uncached) compile
    carries the attribute in its LLVM IR, and on an AVX-512 host its rounds use zmm registers,
    which the same body compiled without the call does not (so the check can fail)."""
    import llvmlite.binding as ll
    import numba
    fresh = numba.njit(nogil=True)(lane_blocks.py_func)
    key = np.arange(1, 9, dtype=np.uint32)
    ids = np.arange(LANES, dtype=np.uint64)
    x = np.zeros((16, LANES), np.uint32)
    fresh(key, ids, 0, LANES, 0, 0, x)
    ir = "".join(fresh.inspect_llvm().values())
    assert C._WIDE in ir
    avx512 = ll.get_host_cpu_features().get("avx512f", False)
    if avx512:
        assert "zmm" in "".join(fresh.inspect_asm().values())
    y = np.zeros_like(x)
    lane_blocks(key, ids, 0, LANES, np.uint32(0), np.uint32(0), y)
    assert (x == y).all()
    # the same body without the call: no attribute (and on hosts whose CPU LLVM tunes for 256-bit
    # vectors, e.g. Intel Xeon Skylake-SP to Emerald Rapids, no zmm)
    import inspect
    import textwrap
    src = textwrap.dedent(inspect.getsource(lane_blocks.py_func)).replace("    prefer_wide_vectors()\n", "")
    assert "prefer_wide_vectors" not in src.split('"""')[2]
    ns = dict(lane_blocks.py_func.__globals__)
    exec(src.replace("@jit\n", ""), ns)
    plain = numba.njit(nogil=True)(ns["lane_blocks"])
    plain(key, ids, 0, LANES, 0, 0, y)
    assert (x == y).all()
    assert C._WIDE not in "".join(plain.inspect_llvm().values())


@pytest.mark.parametrize("count", [1, 5, LANES])
def test_lane_blocks_equal_the_scalar_block(count):
    rng = np.random.default_rng(count)
    for _ in range(20):
        key = rng.integers(0, 1 << 32, 8, dtype=np.uint64).astype(np.uint32)
        m = LANES + 8
        ids = rng.integers(0, 1 << 63, m, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, m, dtype=np.uint64)
        base = int(rng.integers(0, m - count + 1))
        counter = int(rng.choice([0, 1, 0xFFFFFFFE, int(rng.integers(0, 1 << 32))]))
        stream = int(rng.integers(0, 1 << 32))
        x = np.full((16, LANES), 0xA5A5A5A5, np.uint32)
        lane_blocks(key, ids, base, count, np.uint32(counter), np.uint32(stream), x)
        for l in range(count):
            assert (x[:, l] == _scalar(key, int(ids[base + l]), counter, stream)).all(), (l, counter)


@pytest.mark.parametrize("first_block", [0, 1, 12345, 0xFFFFFFFE, 0xFFFFFFFF])
def test_seed_lane_is_the_scalar_state_after_its_first_refill(first_block):
    key = np.arange(11, 19, dtype=np.uint32)
    ids = np.array([2**40 + 5, 9, 2**63 + 1], dtype=np.uint64)
    x = np.zeros((16, LANES), np.uint32)
    lane_blocks(key, ids, 0, 3, np.uint32(first_block), np.uint32(0), x)
    for l in range(3):
        lane = np.zeros(C.STATE_WORDS, np.uint32)
        seed_lane(lane, key, ids[l], first_block, 0, x, l)
        scalar = C._device_state(key, ids[l], 0)
        scalar[C.COUNTER] = first_block
        # the same words, statuses and positions from here on (across the next refill, or the
        # failure at counter 0xFFFFFFFF)
        assert C.bits_used_nb(lane) == C.bits_used_nb(scalar) == first_block * 512
        for _ in range(40):
            assert C._fetch(lane) == C._fetch(scalar)
            assert C.bits_used_nb(lane) == C.bits_used_nb(scalar)
        assert (lane == scalar).all()


@numba.njit   # no cache: a cached caller keeps an inlined callee's old code
def _ahead_chunk(key, ids, lo, hi, first_block, nb, words, out, pos, status):
    """Devices lo..hi-1 seeded by seed_device_ahead with nb blocks ahead, `words` words fetched from
    each (out[i]), then the bits used and status."""
    state = np.empty(C.STATE_WORDS + 16 * nb, dtype=np.uint32)
    lanes = np.empty((16, LANES), dtype=np.uint32)
    ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, ids, i, lo, hi, first_block, 0)
        for w in range(words):
            st, v = C._fetch(state)
            out[i, w] = v if st == 0 else np.uint64(1 << 40)
        pos[i] = C.bits_used_nb(state)
        status[i] = state[C.STATUS]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("first_block", [0, 7, 0xFFFFFFFB, 0xFFFFFFFF])
def test_blocks_computed_ahead_are_the_blocks_the_scalar_stream_serves(version, first_block):
    """seed_device_ahead: nb later blocks of every device computed across the lanes (version 2 chains
    the keys of fast key erasure lane by lane) and served by _refill, then its own blocks: the same
    words, bits used and status as the keyed state the scalar path refills, for devices across two
    lane groups, nb from 0 to past the words read, and a stream that runs into counter 0xFFFFFFFF."""
    key = C.seed_key_words(Seed(0x1234_5678_9ABC_DEF0_1357_9BDF, stream_version=version))
    ids = np.array([3, 2**63 + 11, 2**40] + list(range(100, 100 + LANES)), dtype=np.uint64)
    n, words = ids.shape[0], 70              # 70 words: 9 blocks of version 2, 5 of version 1
    want = np.zeros((n, words), np.uint64)
    for i in range(n):
        st = C._device_state(key, ids[i], 0)
        st[C.COUNTER] = first_block
        for w in range(words):
            s, v = C._fetch(st)
            want[i, w] = v if s == 0 else 1 << 40
        want_pos, want_status = C.bits_used_nb(st), int(st[C.STATUS])
        if i == 0:
            first = (want_pos, want_status)
    for nb in (0, 1, 3, 20):
        out = np.zeros((n, words), np.uint64)
        pos = np.zeros(n, np.int64)
        status = np.zeros(n, np.uint32)
        _ahead_chunk(key, ids, 0, n, np.uint32(first_block), nb, words, out, pos, status)
        assert (out == want).all(), nb
        assert (int(pos[-1]), int(status[-1])) == (want_pos, want_status)
        assert (int(pos[0]), int(status[0])) == first
    assert (want[:, -1] == 1 << 40).all() == (first_block >= 0xFFFFFFFB)


def test_ahead_blocks_cover_the_expected_bits():
    v1 = C.seed_key_words(Seed(5, stream_version=1))
    v2 = C.seed_key_words(Seed(5, stream_version=2))
    assert ahead_blocks(0, v2) == 0 and ahead_blocks(256, v2) == 1
    assert ahead_blocks(2048, v2) == 9 and ahead_blocks(2048, v1) == 4
    assert ahead_blocks(10**9, v2) == 128


def _reference_release(m, src, x):
    if m.kind in ("hadamard_response", "local_hashing"):
        return m.release(src, int(x))
    if hasattr(m, "release_index"):
        return m.release_index(src, int(x))
    if hasattr(m, "flip_prob"):                                  # RAPPOR
        return m.release(src, [int(b) for b in x])
    if getattr(m, "vector", False):
        return m.release(src, [int(v) for v in x])
    if hasattr(m, "scale"):
        return m.release(src, int(x))
    return m.release(src, bool(x))


def _fast_start_cases(g, n):
    """Mechanisms whose fleet kernels start devices on the fast (replay) start, with releases
    inside the first block (RR, Hadamard response, local hashing), across blocks under either version (RAPPOR, constant time: 32
    bits per bit; the lazy geometric vector now and then) and on both forms."""
    rows = np.zeros((n, 24), dtype=np.uint8)
    rows[np.arange(n), g.integers(0, 24, n)] = 1
    return [
        (make_randomized_response_bool(0.75), g.random(n) < 0.3),
        (make_randomized_response_bool(0.75, constant_time=True), g.random(n) < 0.3),
        (make_randomized_response(list("abcdefg"), 0.5), g.integers(0, 8, n)),
        (make_randomized_response(list("abcdefg"), 0.5, constant_time=True), g.integers(0, 8, n)),
        (make_rappor(0.4, 1, 24, constant_time=True), rows),
        (make_rappor(0.4, 1, 24), rows),
        (make_geometric(10, (0, 100), vector=True), g.integers(0, 101, (n, 6))),
        (make_geometric(10, (0, 100), constant_time=True), g.integers(0, 101, n)),
        (make_hadamard_response(40, 1.0), g.integers(0, 40, n)),
        (make_hadamard_response(40, 1.0, constant_time=True), g.integers(0, 40, n)),
        (make_local_hashing(100, 1.0), g.integers(0, 100, n)),
        (make_local_hashing(100, 1.0, constant_time=True), g.integers(0, 100, n)),
    ]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("first_block", [0, 7, 0xFFFFFFFE, 0xFFFFFFFF])
def test_fast_start_fleets_follow_the_reference(version, first_block):
    """The mechanism fleets (fxdp/mechanisms/_kernels_common.py) start a device on its first block's served words in
    replay mode and restart it on the keyed state when the release needs more
    (start_device_fast / restart_device): outputs, statuses and bits used equal the plain-Python
    reference's on a keyed source that starts at first_block, for devices of the lane tail too
    (n = 2 LANES + 7)."""
    seed = Seed(0x1234_5678_9ABC_DEF0, stream_version=version)
    n = 2 * LANES + 7
    g = np.random.default_rng([version, first_block])
    ids = g.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    per_block = 256 if version == 2 else 512
    within = beyond = failed = 0
    for m, x in _fast_start_cases(g, n):
        out, st, bits, _ = _fleet.simulate_detailed(m, x, seed, device_ids=ids, first_block=first_block)
        out = np.asarray(out).reshape(n, -1)
        for i in range(n):
            key, nonce = derive_key_nonce(seed, int(ids[i]), 0)
            src = ChaCha20Source(None, key=key, nonce=nonce, counter=first_block, version=version)
            try:
                y = _reference_release(m, src, x[i])
            except EntropyError:
                assert st[i] == ENTROPY, (m.kind, i)
                failed += 1
                continue
            assert st[i] == 0, (m.kind, i, int(st[i]))
            assert out[i].tolist() == (list(y) if isinstance(y, (list, tuple)) else [y]), (m.kind, i)
            assert int(bits[i]) == first_block * per_block + src.bits_used, (m.kind, i)
            if src.bits_used <= per_block:
                within += 1
            else:
                beyond += 1
    # both paths ran: releases inside the first block, and releases that needed the restart (which
    # fail when the next block would be the stream's last counter)
    if first_block < 0xFFFFFFFE:
        assert within > 0 and beyond > 0 and failed == 0
    elif first_block == 0xFFFFFFFE:
        assert within > 0 and failed > 0
    else:
        assert within == beyond == 0 and failed > 0


_UNIFORM_NS = [1, 2, 3, 5, 7, 9, 10, 11, 16, 17, 100, 255, 257, 65535, 65537, (1 << 31) + 1,
               (1 << 32) - 1, 1 << 32, (1 << 32) + 1, (1 << 40) + 3]


@pytest.mark.parametrize("n", _UNIFORM_NS)
def test_uniform_below_fast_road_reads_the_reference_bits(n):
    """uniform_below's k <= 32 road (the first try's word fetched up front, two buffered tries
    selected without a branch) against the reference's try-by-try loop: from every buffer fill
    (0..31 bits left after a bits(j) draw), on words that accept at once, reject once, reject
    twice, or run the replay out at every try; values, bits used and failures agree, and so does
    a second draw from the buffer the first one left."""
    rnd = np.random.default_rng(n % 1000003)
    k = (n - 1).bit_length()
    word_sets = [[int(w) for w in rnd.integers(0, 1 << 32, 3, dtype=np.uint64)] for _ in range(6)]
    word_sets += [[0xFFFFFFFF] * 3, [0xFFFFFFFF], [], [0x0000FFFF, 0xFFFF0000], [0xF0F0F0F0] * 2]
    for words in word_sets:
        for j in range(0, 33):
            src = ReplaySource(words)
            st = C.replay_state(words)
            try:
                src.bits(j)
                ok = True
            except EntropyError:
                ok = False
            sj, _ = K.bits(st, j)
            assert (sj == 0) == ok
            if not ok:
                continue
            for draw in range(2):
                try:
                    want, werr = ref.uniform_below(src, n), 0
                except EntropyError:
                    want, werr = 0, ENTROPY
                s, v = K.uniform_below(st, n)
                assert (int(s), int(v)) == (werr, want), (words, j, draw, k)
                assert K.bits_used(st) == src.bits_used, (words, j, draw)
                if werr:
                    break
