"""Multi-lane ChaCha20 for the fleet kernels: the first keystream block of LANES devices at once.

A fleet gives every device its own keyed stream (key = the seed's words, nonce = (device id lo,
device id hi, stream)), so the first block of each device is a different ChaCha20 block with the
same key.  ``lane_blocks`` computes LANES of them in one pass over a ``[16, LANES]`` uint32 array,
a lane per column: the per-lane body is scalar code and LLVM vectorizes the lane loop (AVX-512
rotates on a machine that has them).  ``seed_lane`` then
starts a device's state with its block already buffered (counter = first_block + 1, word 0 next),
which is exactly the state the scalar path reaches after its first refill, so every draw, status
and bit count is unchanged (tests/test_fleet_lanes.py; the RFC 8439 vector runs through the lanes).

Why these shapes (measured with benchmarks/bench_mechanisms.py's lane row): LANES a module
constant (compile-time), explicit uint32 arithmetic (Numba widens to 64 bits otherwise and the
keystream goes wrong), one lane loop per double round with the state held in the array, key
words broadcast from scalars and nonces computed from the device ids inside the kernel.
"""
from __future__ import annotations

import numpy as np

from ._nb_core import (AHEAD_LEFT, AHEAD_NEXT, MODE_CHACHA_AHEAD, MODE_CHACHA_FKE_AHEAD, STATE_WORDS,
                       BITBUF, BITCOUNT, BLOCK, BLOCK_LEN, COUNTER, KEY, LAST_COUNTER, MODE, MODE_CHACHA,
                       MODE_CHACHA_FKE, MODE_REPLAY, NONCE, SHARED_WORDS, STATUS, WORD_POS, _C0, _C1, _C2,
                       _C3, _M32, _R7, _R8, _R12, _R16, _U32, fast_key_erasure, _rotl,
                       prefer_wide_vectors)
from ._nb_jit import ijit, jit

LANES = 32          # devices per lane pass (a module constant: the lane loop is vectorized).  Measured
                    # here (AVX-512, one thread, lane blocks/s, flat view): 16: 6.4e7, 32: 7.8e7,
                    # 64: 7.1e7, 128: 6.7e7 (32 lanes = two 512-bit registers per state word)


@ijit
def _lane_rounds(y):
    """The 20 rounds of ChaCha20 on LANES states held in the flat view y (y[row * LANES + l])."""
    for _ in range(10):
        for l in range(LANES):
            x0 = y[0 * LANES + l]; x1 = y[1 * LANES + l]; x2 = y[2 * LANES + l]; x3 = y[3 * LANES + l]
            x4 = y[4 * LANES + l]; x5 = y[5 * LANES + l]; x6 = y[6 * LANES + l]; x7 = y[7 * LANES + l]
            x8 = y[8 * LANES + l]; x9 = y[9 * LANES + l]; x10 = y[10 * LANES + l]; x11 = y[11 * LANES + l]
            x12 = y[12 * LANES + l]; x13 = y[13 * LANES + l]; x14 = y[14 * LANES + l]; x15 = y[15 * LANES + l]
            # column rounds
            x0 = np.uint32(x0 + x4); x12 = _rotl(x12 ^ x0, _R16)
            x8 = np.uint32(x8 + x12); x4 = _rotl(x4 ^ x8, _R12)
            x0 = np.uint32(x0 + x4); x12 = _rotl(x12 ^ x0, _R8)
            x8 = np.uint32(x8 + x12); x4 = _rotl(x4 ^ x8, _R7)
            x1 = np.uint32(x1 + x5); x13 = _rotl(x13 ^ x1, _R16)
            x9 = np.uint32(x9 + x13); x5 = _rotl(x5 ^ x9, _R12)
            x1 = np.uint32(x1 + x5); x13 = _rotl(x13 ^ x1, _R8)
            x9 = np.uint32(x9 + x13); x5 = _rotl(x5 ^ x9, _R7)
            x2 = np.uint32(x2 + x6); x14 = _rotl(x14 ^ x2, _R16)
            x10 = np.uint32(x10 + x14); x6 = _rotl(x6 ^ x10, _R12)
            x2 = np.uint32(x2 + x6); x14 = _rotl(x14 ^ x2, _R8)
            x10 = np.uint32(x10 + x14); x6 = _rotl(x6 ^ x10, _R7)
            x3 = np.uint32(x3 + x7); x15 = _rotl(x15 ^ x3, _R16)
            x11 = np.uint32(x11 + x15); x7 = _rotl(x7 ^ x11, _R12)
            x3 = np.uint32(x3 + x7); x15 = _rotl(x15 ^ x3, _R8)
            x11 = np.uint32(x11 + x15); x7 = _rotl(x7 ^ x11, _R7)
            # diagonal rounds
            x0 = np.uint32(x0 + x5); x15 = _rotl(x15 ^ x0, _R16)
            x10 = np.uint32(x10 + x15); x5 = _rotl(x5 ^ x10, _R12)
            x0 = np.uint32(x0 + x5); x15 = _rotl(x15 ^ x0, _R8)
            x10 = np.uint32(x10 + x15); x5 = _rotl(x5 ^ x10, _R7)
            x1 = np.uint32(x1 + x6); x12 = _rotl(x12 ^ x1, _R16)
            x11 = np.uint32(x11 + x12); x6 = _rotl(x6 ^ x11, _R12)
            x1 = np.uint32(x1 + x6); x12 = _rotl(x12 ^ x1, _R8)
            x11 = np.uint32(x11 + x12); x6 = _rotl(x6 ^ x11, _R7)
            x2 = np.uint32(x2 + x7); x13 = _rotl(x13 ^ x2, _R16)
            x8 = np.uint32(x8 + x13); x7 = _rotl(x7 ^ x8, _R12)
            x2 = np.uint32(x2 + x7); x13 = _rotl(x13 ^ x2, _R8)
            x8 = np.uint32(x8 + x13); x7 = _rotl(x7 ^ x8, _R7)
            x3 = np.uint32(x3 + x4); x14 = _rotl(x14 ^ x3, _R16)
            x9 = np.uint32(x9 + x14); x4 = _rotl(x4 ^ x9, _R12)
            x3 = np.uint32(x3 + x4); x14 = _rotl(x14 ^ x3, _R8)
            x9 = np.uint32(x9 + x14); x4 = _rotl(x4 ^ x9, _R7)
            y[0 * LANES + l] = x0; y[1 * LANES + l] = x1; y[2 * LANES + l] = x2; y[3 * LANES + l] = x3
            y[4 * LANES + l] = x4; y[5 * LANES + l] = x5; y[6 * LANES + l] = x6; y[7 * LANES + l] = x7
            y[8 * LANES + l] = x8; y[9 * LANES + l] = x9; y[10 * LANES + l] = x10; y[11 * LANES + l] = x11
            y[12 * LANES + l] = x12; y[13 * LANES + l] = x13; y[14 * LANES + l] = x14; y[15 * LANES + l] = x15


@ijit
def _lane_fixed_rows(y, l, ctr, d, st):
    """Lane l's input rows besides the key: the constants (0..3), counter and nonce (12..15)."""
    y[0 * LANES + l] = _C0; y[1 * LANES + l] = _C1; y[2 * LANES + l] = _C2; y[3 * LANES + l] = _C3
    y[12 * LANES + l] = ctr
    y[13 * LANES + l] = np.uint32(d & _M32)
    y[14 * LANES + l] = np.uint32(d >> _U32)
    y[15 * LANES + l] = st


@ijit
def _lane_fixed_rows_add(y, l, ctr, d, st):
    """The final addition of those rows' inputs (the key rows are the caller's)."""
    y[0 * LANES + l] = np.uint32(y[0 * LANES + l] + _C0); y[1 * LANES + l] = np.uint32(y[1 * LANES + l] + _C1)
    y[2 * LANES + l] = np.uint32(y[2 * LANES + l] + _C2); y[3 * LANES + l] = np.uint32(y[3 * LANES + l] + _C3)
    y[12 * LANES + l] = np.uint32(y[12 * LANES + l] + ctr)
    y[13 * LANES + l] = np.uint32(y[13 * LANES + l] + np.uint32(d & _M32))
    y[14 * LANES + l] = np.uint32(y[14 * LANES + l] + np.uint32(d >> _U32))
    y[15 * LANES + l] = np.uint32(y[15 * LANES + l] + st)


@jit
def lane_blocks(key, device_ids, base, count, counter, stream, x):
    """x[:, l] = ChaCha20 block `counter` of keyed stream (key, device_ids[base + l], stream) for
    l < count (lanes count..LANES-1 compute a block of device id 0 and are ignored).
    key: uint32[8]; device_ids: uint64[n]; x: uint32[16, LANES] (C order).

    The rounds index x through a flat view, y[row * LANES + l]: with LANES a compile-time constant
    LLVM sees that the sixteen rows are disjoint, so each lane loop needs no run-time alias checks
    and one base register instead of sixteen row pointers (x[row, l] on the 2-d array measured
    4.6e7 blocks/s at 32 lanes, the flat view 7.8e7, on one thread here)."""
    prefer_wide_vectors()
    y = x.reshape(16 * LANES)
    k0 = np.uint32(key[0]); k1 = np.uint32(key[1]); k2 = np.uint32(key[2]); k3 = np.uint32(key[3])
    k4 = np.uint32(key[4]); k5 = np.uint32(key[5]); k6 = np.uint32(key[6]); k7 = np.uint32(key[7])
    ctr = np.uint32(counter)
    st = np.uint32(stream)
    for l in range(LANES):
        d = np.uint64(device_ids[base + l]) if l < count else np.uint64(0)
        _lane_fixed_rows(y, l, ctr, d, st)
        y[4 * LANES + l] = k0; y[5 * LANES + l] = k1; y[6 * LANES + l] = k2; y[7 * LANES + l] = k3
        y[8 * LANES + l] = k4; y[9 * LANES + l] = k5; y[10 * LANES + l] = k6; y[11 * LANES + l] = k7
    _lane_rounds(y)
    for l in range(LANES):
        d = np.uint64(device_ids[base + l]) if l < count else np.uint64(0)
        _lane_fixed_rows_add(y, l, ctr, d, st)
        y[4 * LANES + l] = np.uint32(y[4 * LANES + l] + k0); y[5 * LANES + l] = np.uint32(y[5 * LANES + l] + k1)
        y[6 * LANES + l] = np.uint32(y[6 * LANES + l] + k2); y[7 * LANES + l] = np.uint32(y[7 * LANES + l] + k3)
        y[8 * LANES + l] = np.uint32(y[8 * LANES + l] + k4); y[9 * LANES + l] = np.uint32(y[9 * LANES + l] + k5)
        y[10 * LANES + l] = np.uint32(y[10 * LANES + l] + k6); y[11 * LANES + l] = np.uint32(y[11 * LANES + l] + k7)


@jit
def lane_blocks_fke(prev, device_ids, base, count, counter, stream, x):
    """x[:, l] = ChaCha20 block `counter` of device device_ids[base + l] under version 2's fast key
    erasure: its key is prev[0:8, l], the words 0..7 of the device's previous block (as _refill
    takes them), the nonce (device id lo, hi, stream) as in lane_blocks.  prev, x: uint32[16, LANES]."""
    prefer_wide_vectors()
    y = x.reshape(16 * LANES)
    p = prev.reshape(16 * LANES)
    ctr = np.uint32(counter)
    st = np.uint32(stream)
    for l in range(LANES):
        d = np.uint64(device_ids[base + l]) if l < count else np.uint64(0)
        _lane_fixed_rows(y, l, ctr, d, st)
        for r in range(8):
            y[(4 + r) * LANES + l] = p[r * LANES + l]
    _lane_rounds(y)
    for l in range(LANES):
        d = np.uint64(device_ids[base + l]) if l < count else np.uint64(0)
        _lane_fixed_rows_add(y, l, ctr, d, st)
        for r in range(8):
            y[(4 + r) * LANES + l] = np.uint32(y[(4 + r) * LANES + l] + p[r * LANES + l])


_Z32 = np.uint32(0)


@ijit
def seed_lane(state, key, dev, first_block, stream, x, l):
    """state <- keyed stream (key, dev, stream) at block first_block with that block (x[:, l], from
    lane_blocks) already buffered: the scalar path's state after its first refill.  At
    first_block = 0xFFFFFFFF (a block the stream never generates) nothing is buffered, so the
    first read fails as it does there.  Every word of state is written (the words past the shared
    ones zeroed, as _device_state leaves them).  key: seed words (uint32[9], the last one the stream
    version: 2 applies fast key erasure to the buffered block) or a version-1 key (uint32[8]).

    Each word is stored once (no zero fill that later stores overwrite): this prologue runs once
    per fleet device, and it measured 7 ns against 10-12 ns for the fill-then-overwrite form.  The
    short loops have constant trip counts (LLVM unrolls them) and keep the Numba IR small: every
    fleet kernel inlines this, and written out word by word it cost 13% more cold compile."""
    d = np.uint64(dev)
    state[NONCE] = np.uint32(d & _M32)
    state[NONCE + 1] = np.uint32(d >> _U32)
    state[NONCE + 2] = np.uint32(stream)
    state[BITBUF] = _Z32
    state[BITCOUNT] = _Z32
    state[STATUS] = _Z32
    state[BLOCK_LEN] = np.uint32(16)
    for i in range(SHARED_WORDS, state.shape[0]):
        state[i] = _Z32
    fke = fast_key_erasure(key)
    state[MODE] = np.uint32(MODE_CHACHA_FKE) if fke else np.uint32(MODE_CHACHA)
    fb = np.uint32(first_block)
    if fb == LAST_COUNTER:
        for i in range(8):
            state[KEY + i] = np.uint32(key[i])
        for i in range(16):
            state[BLOCK + i] = _Z32
        state[COUNTER] = fb
        state[WORD_POS] = np.uint32(16)
        return
    state[COUNTER] = np.uint32(fb + np.uint32(1))
    if fke:                           # fast key erasure: words 0..7 are the next key, not served
        for i in range(8):
            state[KEY + i] = x[i, l]
            state[BLOCK + i] = _Z32
        state[WORD_POS] = np.uint32(8)
    else:
        for i in range(8):
            state[KEY + i] = np.uint32(key[i])
            state[BLOCK + i] = x[i, l]
        state[WORD_POS] = _Z32
    for i in range(8, 16):
        state[BLOCK + i] = x[i, l]


@ijit
def seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, stream):
    """The fleet loop's prologue for device i of the chunk [lo, hi): at every LANES-th device the
    first blocks of the next (up to) LANES devices go into lanes, then state <- seed_lane."""
    l = (i - lo) % LANES
    if l == 0:
        lane_blocks(key, device_ids, i, min(hi - i, LANES), np.uint32(first_block), np.uint32(stream), lanes)
    seed_lane(state, key, device_ids[i], first_block, stream, lanes, l)


def ahead_blocks(expected_bits, key_words, cap=128):
    """How many blocks after the first a fleet should compute ahead for a release expected to read
    expected_bits bits (a quarter more, at most cap): version 2 serves 256 bits a block, 1 512."""
    per = 256 if int(key_words[-1]) == 2 and key_words.shape[0] > 8 else 512
    return int(min(cap, max(0, -(-int(expected_bits * 5 // 4) // per) - 1)))


@jit
def seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, stream):
    """seed_device, and the device's next ahead.shape[0] blocks served from precomputed lanes
    (state: uint32[STATE_WORDS + 16 nb], ahead: uint32[nb, 16, LANES]).  At every LANES-th device
    the next blocks of the next LANES devices are computed, block by block across the lanes
    (lane_blocks at counters first_block + 1.., or lane_blocks_fke chained from the previous block);
    the device's state is the one seed_device gives, in the ahead mode of its stream (_refill
    serves these blocks, then computes the rest), so every draw, status and bit count is unchanged."""
    nb = ahead.shape[0]
    l = (i - lo) % LANES
    if l == 0:
        cnt = min(hi - i, LANES)
        lane_blocks(key, device_ids, i, cnt, np.uint32(first_block), np.uint32(stream), lanes)
        fke = fast_key_erasure(key)
        for j in range(nb):
            ctr = np.uint32(np.uint32(first_block) + np.uint32(1 + j))
            if fke:
                lane_blocks_fke(lanes if j == 0 else ahead[j - 1], device_ids, i, cnt, ctr, np.uint32(stream), ahead[j])
            else:
                lane_blocks(key, device_ids, i, cnt, ctr, np.uint32(stream), ahead[j])
    seed_lane(state[:STATE_WORDS], key, device_ids[i], first_block, stream, lanes, l)
    if nb > 0 and np.uint32(first_block) != LAST_COUNTER:
        for j in range(nb):
            for w in range(16):
                state[STATE_WORDS + 16 * j + w] = ahead[j, w, l]
        state[AHEAD_LEFT] = np.uint32(nb)
        state[AHEAD_NEXT] = _Z32
        state[MODE] = np.uint32(MODE_CHACHA_FKE_AHEAD) if fast_key_erasure(key) else np.uint32(MODE_CHACHA_AHEAD)


# --------------------------------------------------------------------------
# fast start: most fleet releases read only words of the device's first block.  For them the
# device's state need not be a keyed state: start_device_fast gives it just those words in replay
# mode (the words the keyed state would serve, in the same order, from the same word position),
# so the release reads exactly what it would read on the keyed stream.  If it needs more, the
# replay runs out and fails with ERR_ENTROPY; the caller then restarts the device on the keyed
# state (seed_lane) and runs the release again from the beginning, which reads the same words
# and goes on into the next blocks.  Every output, status and bit count is therefore the keyed
# path's.  The saving is the prologue: 13 (version 2) or 21 (version 1) words stored per device
# instead of all 38.

@ijit
def start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, stream):
    """The fleet loop's prologue for device i of the chunk [lo, hi) (as seed_device): the first
    blocks of the next LANES devices at every LANES-th one, then the device's start.  Returns True
    when the start is the fast one (replay of the first block's served words; restart with
    restart_device on ERR_ENTROPY, position with fast_bits_used), False when it is the keyed
    state (at first_block = 0xFFFFFFFF, where no block is served)."""
    l = (i - lo) % LANES
    if l == 0:
        lane_blocks(key, device_ids, i, min(hi - i, LANES), np.uint32(first_block), np.uint32(stream), lanes)
    if np.uint32(first_block) == LAST_COUNTER:
        restart_device(state, lanes, key, device_ids, i, lo, first_block, stream)
        return False
    state[STATUS] = _Z32
    state[BITBUF] = _Z32
    state[BITCOUNT] = _Z32
    state[BLOCK_LEN] = np.uint32(16)
    state[MODE] = np.uint32(MODE_REPLAY)
    if fast_key_erasure(key):         # words 0..7 are the next key: not served
        state[WORD_POS] = np.uint32(8)
    else:
        state[WORD_POS] = _Z32
        state[BLOCK] = lanes[0, l]; state[BLOCK + 1] = lanes[1, l]; state[BLOCK + 2] = lanes[2, l]
        state[BLOCK + 3] = lanes[3, l]; state[BLOCK + 4] = lanes[4, l]; state[BLOCK + 5] = lanes[5, l]
        state[BLOCK + 6] = lanes[6, l]; state[BLOCK + 7] = lanes[7, l]
    state[BLOCK + 8] = lanes[8, l]; state[BLOCK + 9] = lanes[9, l]; state[BLOCK + 10] = lanes[10, l]
    state[BLOCK + 11] = lanes[11, l]; state[BLOCK + 12] = lanes[12, l]; state[BLOCK + 13] = lanes[13, l]
    state[BLOCK + 14] = lanes[14, l]; state[BLOCK + 15] = lanes[15, l]
    return True


@jit
def restart_device(state, lanes, key, device_ids, i, lo, first_block, stream):
    """Device i's keyed start (seed_lane from the lanes start_device_fast filled), for a release
    that ran out of its fast start's words: run it again from the beginning on this state.
    A call, not inlined: the path is rare, and one compiled copy serves every fleet kernel
    (inlined twice into each of the four mechanism fleets, it cost 4.5 s more CPU time
    in their cold compile: 22.6 s against 18.1 s before the fast start, 18.5 s as a call)."""
    seed_lane(state, key, device_ids[i], first_block, stream, lanes, (i - lo) % LANES)


@ijit
def fast_bits_used(state, key, first_block):
    """Stream bits used by a release that ran on the fast start, as bits_used_nb counts them on
    the keyed state: (first_block + 1) blocks of 512 bits (256 under version 2) less the words
    not yet served and the bits still buffered."""
    per_block = np.int64(256) if fast_key_erasure(key) else np.int64(512)
    return ((np.int64(np.uint32(first_block)) + np.int64(1)) * per_block
            - (np.int64(16) - np.int64(state[WORD_POS])) * np.int64(32) - np.int64(state[BITCOUNT]))


def compile_stream_core():
    """Compile (or load from Numba's cache) the keystream functions every fleet kernel calls,
    at the types the fleet kernels call them with.  A caller that is about to start a second
    process compiling other kernels runs this first, so that the second process loads them
    from the cache instead of compiling them again beside it (about 2.7 s of a cold start on
    a 2-core machine).  tests/test_numba_cache.py checks that these are the signatures the
    fleet kernels use.  Returns True if any of them was compiled (the cache was cold)."""
    from numba import types as T
    from ._nb_core import _block_core, _refill, bits_used_nb
    u32 = T.Array(T.uint32, 1, "C")
    u64 = T.Array(T.uint64, 1, "C")
    u32x2 = T.Array(T.uint32, 2, "C")
    stream0 = T.literal(0)
    _block_core.compile((T.uint64,) * 12)
    _refill.compile((u32,))
    bits_used_nb.compile((u32,))
    lane_blocks.compile((u32, u64, T.int64, T.int64, T.uint32, stream0, u32x2))
    restart_device.compile((u32, u32x2, u32, u64, T.int64, T.int64, T.uint32, stream0))
    return any(sum(d.stats.cache_misses.values())
               for d in (_block_core, _refill, bits_used_nb, lane_blocks, restart_device))
