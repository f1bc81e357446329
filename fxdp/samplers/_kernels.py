"""Layer 2 + 3, Numba kernels: the fast path and the fleet simulator.

Every kernel reads exactly the bits that ``fxdp.samplers.reference`` reads, in
the same order, from the stream that ``fxdp.bitsource`` defines; the parity
and enumeration tests (tests/test_numba_*.py, tests/test_enumeration.py) hold
them to it bit for bit.  Integers only: no floating point anywhere
(tests/test_numba_types.py re-types every kernel and fails on any float).

State
-----
The bit-source state is a ``np.uint32`` array of ``STATE_WORDS`` (38) words.
Words 0..33 have exactly the layout of ``fxdp_rng`` in csrc/fxdp.h::

    key[0..8) nonce[8..11) counter 11 block[12..28) word_pos 28
    bitbuf 29 bitcount 30 mode 31 status 32 block_len 33

Words 34..37 stand for the two pointer fields of the C struct on 64-bit hosts
(so cffi can cast the same memory to ``fxdp_rng *``); the kernels never touch
them and ``new_state`` leaves them zero.  ``bitbuf`` holds the ``bitcount``
unconsumed low bits of the current word, right-aligned, with every bit above
them zero (0 <= bitcount <= 31).  ``mode`` 0 is the keyed ChaCha20 stream, 1
replay (the words in block[0..block_len), then failure); 2 (board hook) is C
only: a kernel that needs a word in hook mode fails with ERR_ENTROPY.

Return convention
-----------------
Every sampler kernel returns ``(status, value)``; ``status`` is an int64 from
``fxdp.errors`` (OK 0, ERR_PARAM 1, ERR_ENTROPY 2, ERR_RANGE 3) and on any
nonzero status ``value`` is 0 (False).  Value types: ``bits``, ``bits64``,
``uniform_below`` -> uint64; Bernoulli kernels -> bool; ``discrete_laplace*``
and ``table_sample_ct`` -> int64.

* ERR_ENTROPY is sticky: the first failed word fetch (exhausted replay,
  keystream counter 0xFFFFFFFF, hook mode) stores it in ``state[STATUS]``;
  every later call on that state returns it without reading anything.
* ERR_PARAM (parameter outside the reference's documented range) is checked
  before any bit is read and leaves the state untouched.
* ERR_RANGE (a result that does not fit: ``discrete_laplace`` with
  U + t V >= 2^64 or |Z| >= 2^63, checked before the sign bit is read;
  ``bernoulli_exp`` with d K >= 2^64; each of probability below 2^-(2^31))
  is returned for that call only; the bits it read stay consumed and the
  state stays usable.  Same conditions and bit use as the C library.

Bulk kernels
------------
``fill_<sampler>(state, params..., out)`` draws ``len(out)`` samples into
``out`` and returns ``(status, count_done)``; on a nonzero status only
``out[:count_done]`` was written.

``fleet_<sampler>(seed_key_words, device_ids, stream, params...,
draws_per_device, out, status_out)`` runs one independent keyed stream per
device in parallel (``numba.prange``): device i uses key = seed_key_words,
nonce = (device_ids[i] low, high, stream), exactly the stream of
``seed_state(state, seed, device_ids[i], stream)``; it fills
``out[i, :draws_per_device]`` and sets ``status_out[i]`` (entries after a
failure are not written).  The per-device body is ``_device_state`` + the
sampler's ``fill`` on the row, so mechanisms can reuse the pattern.

Arguments: pass parameters as numpy scalars of the types in ``PARAM_TYPES``
(``typed_params(name, params)`` converts), so that each kernel has one
compiled specialization and integers >= 2^63 are not squeezed into an int64
signature.

Building blocks for mechanism kernels (stable; fxdp/mechanisms uses them)
------------------------------------------------------------------------
* ``_load(state) -> (buf, c)`` and ``_store(state, buf, c)``: the bit buffer
  as two uint64 locals;
* ``_rd_<x>(state, buf, c, params...) -> (status, value, buf, c)`` for
  ``bits``, ``bits64``, ``uniform_below``, ``dyadic``, ``dyadic_odd``,
  ``dyadic_ct``, ``rational``, ``exp_le1``, ``exp``, ``geometric_e1``, ``laplace``,
  ``laplace_censored``, ``table``: typed (uint64 / int64), already validated
  parameters, no sticky-status check (do it once per release);
* ``_device_state(key_words, device_id, stream)`` (allocates; NRT) and
  ``_seed_into(state, ...)``; ``_block_core`` (the ChaCha20 block as a tuple).

Nothing here compiles at import time; each kernel compiles (or loads from the
on-disk cache) on its first call.

Speed (2-core AMD EPYC at 2 GHz, shared with other jobs; single thread,
benchmarks/bench_samplers.py): ``fill_bernoulli_dyadic`` about 2.3e8
samples/s for k = 32 and for 3/4 (numpy ``rng.random(n) < p``: 1.6e8/s on the
same machine); ``fill_discrete_laplace`` (s = 1, t = 10) about 7.8e6/s (20
bits per sample); ChaCha20 about 240 ns per 64-byte block, which bounds the
bit-hungry samplers (``bits(32)``, ``bernoulli_dyadic_ct`` k = 32: ~6e7/s).

Integer typing note: Numba promotes a uint64 mixed with a signed integer
(including an int literal) to float64.  Every integer expression below is
therefore typed explicitly (``np.uint64`` / ``np.int64`` constants and casts).
"""
from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ..bitsource import derive_key_nonce

# --------------------------------------------------------------------------
# state layout (csrc/fxdp.h, struct fxdp_rng)
STATE_WORDS = 38
SHARED_WORDS = 34
KEY = 0
NONCE = 8
COUNTER = 11
BLOCK = 12
WORD_POS = 28
BITBUF = 29
BITCOUNT = 30
MODE = 31
STATUS = 32
BLOCK_LEN = 33

MODE_CHACHA = 0
MODE_REPLAY = 1
MODE_HOOK = 2

# status codes (fxdp.errors), as int64 so every return path has one type
OK = np.int64(0)
ERR_PARAM = np.int64(1)
ERR_ENTROPY = np.int64(2)
ERR_RANGE = np.int64(3)

LAST_COUNTER = np.uint32(0xFFFFFFFF)

# typed constants (module globals are frozen into the compiled code)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_M32 = np.uint64(0xFFFFFFFF)
_GEO_W = np.uint64(12)     # GEO_BITS, the lookahead of _rd_geometric_e1
_U64MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
_I64MAX_U = np.uint64(0x7FFFFFFFFFFFFFFF)
_I0 = np.int64(0)
_I1 = np.int64(1)
_C0 = np.uint32(0x61707865)   # "expand 32-byte k"
_C1 = np.uint32(0x3320646E)
_C2 = np.uint32(0x79622D32)
_C3 = np.uint32(0x6B206574)
_R7 = np.uint32(7)
_R8 = np.uint32(8)
_R12 = np.uint32(12)
_R16 = np.uint32(16)
_R32 = np.uint32(32)

# Compilation modes.  The kernels never allocate, so they are compiled
# without Numba's reference counting (``_nrt=False``): with it, every inlined
# helper that receives the state array increfs/decrefs it with atomic
# operations on the hot path, which cost 3x in throughput.  Small hot helpers
# are inlined at Numba-IR level (``inline="always"``), because a call between
# two compiled functions is never inlined by LLVM.  Only the functions that
# allocate (``_device_state``) and the parallel fleet kernels keep NRT.
_jit = numba.njit(cache=True, nogil=True, _nrt=False)
_ijit = numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
_njit_nrt = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)


# --------------------------------------------------------------------------
# lookahead table for the geometric step of discrete_laplace, derived from the
# reference at import (a few hundred reference runs, about a millisecond)

GEO_BITS = 12


class _NeedMore(Exception):
    pass


class _PrefixSource:
    """Serves the bits of a fixed prefix; asking for more raises _NeedMore."""

    def __init__(self, value, nbits):
        self.value, self.nbits, self.bits_used = value, nbits, 0

    def bits(self, n):
        if self.bits_used + n > self.nbits:
            raise _NeedMore
        self.bits_used += n
        return (self.value >> (self.nbits - self.bits_used)) & ((1 << n) - 1)

    def bits64(self, n):
        return self.bits(n)


def _geometric_table(width=GEO_BITS):
    """T[x] for every width-bit string x: (bits used << 8) | V when the reference
    loop ``V = 0; while bernoulli_exp(1, 1): V += 1`` finishes within the first
    bits of x, else -1.  Built by walking the loop's prefix-free code tree."""
    from .reference import bernoulli_exp as ref_exp

    table = np.full(1 << width, -1, dtype=np.int16)
    todo = [(0, 0)]
    while todo:
        value, nbits = todo.pop()
        src = _PrefixSource(value, nbits)
        try:
            v = 0
            while ref_exp(src, 1, 1):
                v += 1
        except _NeedMore:
            if nbits < width:
                todo += [(2 * value, nbits + 1), (2 * value + 1, nbits + 1)]
            continue
        assert src.bits_used == nbits and v < 256
        shift = width - nbits
        table[value << shift:(value + 1) << shift] = (nbits << 8) | v
    return table


_GEO_TABLE = _geometric_table()
assert int(_GEO_W) == GEO_BITS


# --------------------------------------------------------------------------
# state helpers (plain Python)

def new_state():
    """A zeroed state array (STATE_WORDS uint32 words); seed it before use."""
    return np.zeros(STATE_WORDS, dtype=np.uint32)


def seed_key_words(seed):
    """The 8 ChaCha20 key words of ``seed`` (bitsource.derive_key_nonce) as uint32[8]."""
    key, _ = derive_key_nonce(seed, 0, 0)
    return np.array(key, dtype=np.uint32)


def _check_state(state):
    if not (isinstance(state, np.ndarray) and state.dtype == np.uint32 and state.ndim == 1
            and state.shape[0] >= SHARED_WORDS and state.flags.c_contiguous):
        raise ValueError(f"state must be a contiguous uint32 array of at least {SHARED_WORDS} "
                         f"words (new_state() gives {STATE_WORDS})")


def seed_state(state, seed, device_id=0, stream=0):
    """Set ``state`` to the start of the keyed ChaCha20 stream of (seed, device_id, stream).

    Key and nonce per ``bitsource.derive_key_nonce``; counter 0, empty block
    (word_pos = block_len = 16), empty bit buffer, mode 0, status 0.  Words
    34.. are left alone.  Returns ``state``.
    """
    _check_state(state)
    key, nonce = derive_key_nonce(seed, device_id, stream)
    state[:SHARED_WORDS] = 0
    state[KEY:KEY + 8] = key
    state[NONCE:NONCE + 3] = nonce
    state[WORD_POS] = 16
    state[BLOCK_LEN] = 16
    state[MODE] = MODE_CHACHA
    return state


def keyed_state(key, nonce, counter=0, state=None):
    """A keyed ChaCha20 state from raw key words, nonce words and the next block counter."""
    if state is None:
        state = new_state()
    _check_state(state)
    if len(key) != 8 or len(nonce) != 3:
        raise ValueError("key must have 8 words and nonce 3 words")
    if not 0 <= int(counter) <= 0xFFFFFFFF:
        raise ValueError(f"counter must be in [0, 2^32 - 1], got {counter}")
    state[:SHARED_WORDS] = 0
    state[KEY:KEY + 8] = [int(w) & 0xFFFFFFFF for w in key]
    state[NONCE:NONCE + 3] = [int(w) & 0xFFFFFFFF for w in nonce]
    state[COUNTER] = int(counter)
    state[WORD_POS] = 16
    state[BLOCK_LEN] = 16
    return state


def replay_state(words, state=None):
    """A replay state: serves ``words`` (at most 16, the C block size), then fails.

    Same semantics as ``bitsource.ReplaySource(words)``; use
    ``replay_bits(value, nbits)`` for ``ReplaySource.from_bits``.
    """
    words = [int(w) & 0xFFFFFFFF for w in words]
    if len(words) > 16:
        raise ValueError(f"a replay state holds at most 16 words, got {len(words)}")
    if state is None:
        state = new_state()
    _check_state(state)
    state[:SHARED_WORDS] = 0
    state[BLOCK:BLOCK + len(words)] = words
    state[BLOCK_LEN] = len(words)
    state[MODE] = MODE_REPLAY
    return state


def replay_bits(value, nbits, state=None):
    """Replay state of the nbits-bit string ``value`` (first bit = MSB), zero-padded
    to whole words, like ``ReplaySource.from_bits``."""
    nwords = (nbits + 31) // 32
    padded = int(value) << (32 * nwords - nbits)
    return replay_state([(padded >> (32 * (nwords - 1 - i))) & 0xFFFFFFFF for i in range(nwords)],
                        state)


def bits_used(state):
    """Stream bits consumed so far (derived, not stored).

    Keyed ChaCha20 mode (started at counter 0):
        counter*512 - (block_len - word_pos)*32 - bitcount
    (block_len is 16; a fresh state has word_pos = 16, so 0).  Replay mode:
        word_pos*32 - bitcount.
    Matches ``BitSource.bits_used`` of the reference, also after a failure
    (a failed fetch consumes nothing).
    """
    s = [int(x) for x in state[:SHARED_WORDS]]
    if s[MODE] == MODE_REPLAY:
        return s[WORD_POS] * 32 - s[BITCOUNT]
    return s[COUNTER] * 512 - (s[BLOCK_LEN] - s[WORD_POS]) * 32 - s[BITCOUNT]


def status_of(state):
    """The sticky status word of ``state`` (0 while healthy)."""
    return int(state[STATUS])


# --------------------------------------------------------------------------
# ChaCha20 (RFC 8439 section 2.3)

@_ijit
def _rotl(v, n):
    """32-bit rotate left of v (holding a 32-bit value) by n in 1..31 (uint32)."""
    return np.uint32((v << n) | (v >> (_R32 - n)))


@_ijit
def _add(a, b):
    """a + b mod 2^32 (uint32)."""
    return np.uint32(a + b)


@_jit
def _block_core(k0, k1, k2, k3, k4, k5, k6, k7, ctr, n0, n1, n2):
    """The 16 block-function output words (a tuple of uint64 values < 2^32) for
    (key, counter, nonce) given as 12 integers < 2^32.

    Scalars in, tuple out: passing an array into a non-inlined Numba function
    makes the (inlined) caller incref/decref it on the hot path.  The rounds
    run in uint32 (25% faster than masked uint64)."""
    i0 = np.uint32(k0)
    i1 = np.uint32(k1)
    i2 = np.uint32(k2)
    i3 = np.uint32(k3)
    i4 = np.uint32(k4)
    i5 = np.uint32(k5)
    i6 = np.uint32(k6)
    i7 = np.uint32(k7)
    i12 = np.uint32(ctr)
    i13 = np.uint32(n0)
    i14 = np.uint32(n1)
    i15 = np.uint32(n2)
    x0 = _C0
    x1 = _C1
    x2 = _C2
    x3 = _C3
    x4 = i0
    x5 = i1
    x6 = i2
    x7 = i3
    x8 = i4
    x9 = i5
    x10 = i6
    x11 = i7
    x12 = i12
    x13 = i13
    x14 = i14
    x15 = i15
    for _ in range(10):
        # column rounds
        x0 = _add(x0, x4); x12 = _rotl(x12 ^ x0, _R16)
        x8 = _add(x8, x12); x4 = _rotl(x4 ^ x8, _R12)
        x0 = _add(x0, x4); x12 = _rotl(x12 ^ x0, _R8)
        x8 = _add(x8, x12); x4 = _rotl(x4 ^ x8, _R7)
        x1 = _add(x1, x5); x13 = _rotl(x13 ^ x1, _R16)
        x9 = _add(x9, x13); x5 = _rotl(x5 ^ x9, _R12)
        x1 = _add(x1, x5); x13 = _rotl(x13 ^ x1, _R8)
        x9 = _add(x9, x13); x5 = _rotl(x5 ^ x9, _R7)
        x2 = _add(x2, x6); x14 = _rotl(x14 ^ x2, _R16)
        x10 = _add(x10, x14); x6 = _rotl(x6 ^ x10, _R12)
        x2 = _add(x2, x6); x14 = _rotl(x14 ^ x2, _R8)
        x10 = _add(x10, x14); x6 = _rotl(x6 ^ x10, _R7)
        x3 = _add(x3, x7); x15 = _rotl(x15 ^ x3, _R16)
        x11 = _add(x11, x15); x7 = _rotl(x7 ^ x11, _R12)
        x3 = _add(x3, x7); x15 = _rotl(x15 ^ x3, _R8)
        x11 = _add(x11, x15); x7 = _rotl(x7 ^ x11, _R7)
        # diagonal rounds
        x0 = _add(x0, x5); x15 = _rotl(x15 ^ x0, _R16)
        x10 = _add(x10, x15); x5 = _rotl(x5 ^ x10, _R12)
        x0 = _add(x0, x5); x15 = _rotl(x15 ^ x0, _R8)
        x10 = _add(x10, x15); x5 = _rotl(x5 ^ x10, _R7)
        x1 = _add(x1, x6); x12 = _rotl(x12 ^ x1, _R16)
        x11 = _add(x11, x12); x6 = _rotl(x6 ^ x11, _R12)
        x1 = _add(x1, x6); x12 = _rotl(x12 ^ x1, _R8)
        x11 = _add(x11, x12); x6 = _rotl(x6 ^ x11, _R7)
        x2 = _add(x2, x7); x13 = _rotl(x13 ^ x2, _R16)
        x8 = _add(x8, x13); x7 = _rotl(x7 ^ x8, _R12)
        x2 = _add(x2, x7); x13 = _rotl(x13 ^ x2, _R8)
        x8 = _add(x8, x13); x7 = _rotl(x7 ^ x8, _R7)
        x3 = _add(x3, x4); x14 = _rotl(x14 ^ x3, _R16)
        x9 = _add(x9, x14); x4 = _rotl(x4 ^ x9, _R12)
        x3 = _add(x3, x4); x14 = _rotl(x14 ^ x3, _R8)
        x9 = _add(x9, x14); x4 = _rotl(x4 ^ x9, _R7)
    return (np.uint64(_add(x0, _C0)), np.uint64(_add(x1, _C1)), np.uint64(_add(x2, _C2)),
            np.uint64(_add(x3, _C3)), np.uint64(_add(x4, i0)), np.uint64(_add(x5, i1)),
            np.uint64(_add(x6, i2)), np.uint64(_add(x7, i3)), np.uint64(_add(x8, i4)),
            np.uint64(_add(x9, i5)), np.uint64(_add(x10, i6)), np.uint64(_add(x11, i7)),
            np.uint64(_add(x12, i12)), np.uint64(_add(x13, i13)), np.uint64(_add(x14, i14)),
            np.uint64(_add(x15, i15)))


@_jit
def chacha20_block(key, counter, nonce, out):
    """RFC 8439 block function: key uint32[8], counter (< 2^32), nonce uint32[3] -> out uint32[16]."""
    blk = _block_core(np.uint64(key[0]), np.uint64(key[1]), np.uint64(key[2]), np.uint64(key[3]),
                      np.uint64(key[4]), np.uint64(key[5]), np.uint64(key[6]), np.uint64(key[7]),
                      np.uint64(counter) & _M32,
                      np.uint64(nonce[0]), np.uint64(nonce[1]), np.uint64(nonce[2]))
    for i in range(16):
        out[i] = np.uint32(blk[i])


# --------------------------------------------------------------------------
# bit source
#
# Internally the bit buffer lives in two local uint64 variables ``buf`` and
# ``c`` (= state[BITBUF], state[BITCOUNT]) that every ``_rd_*`` helper takes
# and returns: ``_rd_x(state, buf, c, params) -> (status, value, buf, c)``.
# A fill loop thus keeps the buffer in registers and writes it back to the
# state once, at the end (or on failure); only a word fetch touches the array.
# On failure the returned (buf, c) are those before the failed fetch (a failed
# fetch consumes nothing, as in the reference).

@_ijit
def _mask(c):
    """(1 << c) - 1 for c in 0..63 (uint64)."""
    return (_U1 << c) - _U1


@_jit
def _refill(state):
    """Load the next block into state.block -> status.  Keyed mode only, and
    never for counter 0xFFFFFFFF; otherwise the sticky ERR_ENTROPY is set."""
    if state[MODE] != MODE_CHACHA or state[COUNTER] == LAST_COUNTER:
        state[STATUS] = np.uint32(ERR_ENTROPY)
        return ERR_ENTROPY
    ctr = state[COUNTER]
    blk = _block_core(np.uint64(state[0]), np.uint64(state[1]), np.uint64(state[2]),
                      np.uint64(state[3]), np.uint64(state[4]), np.uint64(state[5]),
                      np.uint64(state[6]), np.uint64(state[7]), np.uint64(ctr),
                      np.uint64(state[8]), np.uint64(state[9]), np.uint64(state[10]))
    for i in range(16):
        state[BLOCK + i] = np.uint32(blk[i])
    state[COUNTER] = ctr + np.uint32(1)
    state[BLOCK_LEN] = np.uint32(16)
    state[WORD_POS] = np.uint32(0)
    return OK


@_ijit
def _fetch(state):
    """Next 32-bit word of the source -> (status, word as uint64).

    Keyed mode generates block ``counter`` when the block is used up (never
    counter 0xFFFFFFFF); replay serves block[0..block_len).  A failure sets the
    sticky status and consumes nothing.  (Only this fast path is inlined; the
    refill is a call once per 16 words.)
    """
    pos = np.int64(state[WORD_POS])
    if pos >= np.int64(state[BLOCK_LEN]):
        st = _refill(state)
        if st != OK:
            return st, _U0
        pos = _I0
    state[WORD_POS] = np.uint32(pos + _I1)
    return OK, np.uint64(state[BLOCK + pos])


@_ijit
def _load(state):
    return np.uint64(state[BITBUF]), np.uint64(state[BITCOUNT])


@_ijit
def _store(state, buf, c):
    state[BITBUF] = np.uint32(buf)
    state[BITCOUNT] = np.uint32(c)


@_ijit
def _rd_bits(state, buf, c, n):
    """Next n (0..32, uint64) bits, first bit most significant."""
    if n <= c:
        c = c - n
        return OK, buf >> c, buf & _mask(c), c
    need = n - c
    st, w = _fetch(state)
    if st != OK:
        return st, _U0, buf, c
    out = (buf << need) | (w >> (_U32 - need))
    c = _U32 - need
    return OK, out, w & _mask(c), c


@_ijit
def _rd_bits64(state, buf, c, n):
    """Next n (0..64, uint64) bits: bits(n - 32) << 32 | bits(32) for n > 32.

    (One inlined read site in a two-pass loop, to keep compile time down.)"""
    m = n - _U32 if n > _U32 else n
    acc = _U0
    while True:
        st, x, buf, c = _rd_bits(state, buf, c, m)
        if st != OK:
            return st, _U0, buf, c
        acc = (acc << m) | x
        n = n - m
        if n == _U0:
            return OK, acc, buf, c
        m = _U32


@_jit
def bits_used_nb(state):
    """``bits_used`` inside compiled code (int64)."""
    if state[MODE] == MODE_REPLAY:
        return np.int64(state[WORD_POS]) * 32 - np.int64(state[BITCOUNT])
    return (np.int64(state[COUNTER]) * 512
            - (np.int64(state[BLOCK_LEN]) - np.int64(state[WORD_POS])) * 32
            - np.int64(state[BITCOUNT]))


@_jit
def _seed_into(state, key_words, device_id, stream):
    """Keyed-stream start for (key words, device_id, stream); words 34.. untouched."""
    for i in range(SHARED_WORDS):
        state[i] = np.uint32(0)
    for i in range(8):
        state[KEY + i] = np.uint32(key_words[i])
    dev = np.uint64(device_id)
    state[NONCE + 0] = np.uint32(dev & _M32)
    state[NONCE + 1] = np.uint32(dev >> _U32)
    state[NONCE + 2] = np.uint32(np.uint64(stream) & _M32)
    state[WORD_POS] = np.uint32(16)
    state[BLOCK_LEN] = np.uint32(16)


@_njit_nrt
def _device_state(key_words, device_id, stream):
    """A fresh STATE_WORDS state for one fleet device (the per-device loop prologue)."""
    state = np.zeros(STATE_WORDS, dtype=np.uint32)
    _seed_into(state, key_words, device_id, stream)
    return state


@_jit
def replay_into(state, words, nwords):
    """Compiled ``replay_state``: serve words[0..nwords) (nwords <= 16), then fail."""
    for i in range(SHARED_WORDS):
        state[i] = np.uint32(0)
    for i in range(nwords):
        state[BLOCK + i] = np.uint32(words[i])
    state[BLOCK_LEN] = np.uint32(nwords)
    state[MODE] = np.uint32(MODE_REPLAY)


# --------------------------------------------------------------------------
# samplers, internal forms: typed (uint64 / int64) valid parameters, buffer
# in (buf, c); no status or parameter checks.

@_ijit
def _bit_length(x):
    """bit_length of a uint64 (0 for 0)."""
    if x == _U0:
        return _U0
    return _U64 - np.uint64(leading_zeros(x))


@_ijit
def _rd_uniform_below(state, buf, c, n):
    """n >= 1: k = bit_length(n - 1) bits per try until x < n."""
    k = _bit_length(n - _U1)
    while True:
        st, x, buf, c = _rd_bits64(state, buf, c, k)
        if st != OK:
            return st, _U0, buf, c
        if x < n:
            return OK, x, buf, c


@_ijit
def _rd_dyadic_odd(state, buf, c, aa, m):
    """Lazy Bernoulli(aa / 2^m), aa odd, 1 <= m <= 63 (aa < 2^m).

    Reads exactly the bits of the reference's digit-by-digit loop, without a
    per-bit loop: the j = min(c, m) buffered stream bits are XORed with the
    next j digits of aa; the leading set bit of the XOR (count leading zeros)
    is the first difference, and only the bits up to and including it are
    consumed.  A new word is fetched only when the buffer is empty and digits
    remain, exactly when the reference's ``bits(1)`` would fetch.  When all
    remaining digits are buffered (small k, or the tail of a large one) the
    result is computed branch-free, so its randomness costs no mispredicted
    branch.
    """
    while True:
        if c == _U0:
            st, w = _fetch(state)
            if st != OK:
                return st, False, buf, c
            buf = w
            c = _U32
        if m <= c:
            # every remaining digit is buffered: finish without a data-dependent
            # branch (L = 0 when U agrees with all m digits: U >= p, m bits used)
            x = (buf >> (c - m)) ^ aa
            L = _U64 - np.uint64(leading_zeros(x))
            c = c - (m - L + np.uint64(L != _U0))
            # digit 1 against bit 0 at the first difference means U < p
            return OK, (((aa << _U1) >> L) & _U1) == _U1, buf & _mask(c), c
        sb = buf                                 # all c buffered bits (c < m)
        db = (aa >> (m - c)) & _mask(c)          # against the next c digits of p
        x = sb ^ db
        if x != _U0:
            L = _bit_length(x)                   # first difference at position c - L
            c = c - (c - L + _U1)
            return OK, ((db >> (L - _U1)) & _U1) == _U1, buf & _mask(c), c
        m = m - c
        aa = aa & _mask(m)                       # the digits still to compare
        buf = _U0
        c = _U0


@_ijit
def _rd_dyadic(state, buf, c, a, k):
    """a, k uint64 with k <= 63, a <= 2^k."""
    if a == _U0:
        return OK, False, buf, c
    if a == (_U1 << k):
        return OK, True, buf, c
    z = np.uint64(trailing_zeros(a))
    return _rd_dyadic_odd(state, buf, c, a >> z, k - z)


@_ijit
def _rd_dyadic_ct(state, buf, c, a, k):
    st, x, buf, c = _rd_bits64(state, buf, c, k)
    if st != OK:
        return st, False, buf, c
    return OK, x < a, buf, c


@_ijit
def _rd_rational(state, buf, c, n, d):
    """n, d uint64 with 1 <= d, n <= d.  Digits of n/d by long division, one bit each."""
    if n == _U0:
        return OK, False, buf, c
    if n == d:
        return OK, True, buf, c
    r = n
    while True:
        if r >= d - r:
            digit = _U1
            r = r - (d - r)
        else:
            digit = _U0
            r = r + r
        if c == _U0:
            st, w = _fetch(state)
            if st != OK:
                return st, False, buf, c
            buf = w
            c = _U32
        c = c - _U1
        b = buf >> c
        buf = buf & _mask(c)
        if b != digit:
            return OK, digit == _U1, buf, c
        if r == _U0:
            return OK, False, buf, c


@_jit
def _rd_exp_le1(state, buf, c, n, d):
    """exp(-n/d), 0 <= n <= d < 2^32: K = 1; while bernoulli_rational(n, d K): K += 1; K odd.

    d K is kept as a running sum (no multiply or divide); ERR_RANGE if it
    would pass 2^64 - 1 (K > 2^32: probability below 1/(2^32)!)."""
    k = _U1
    dk = d
    while True:
        st, b, buf, c = _rd_rational(state, buf, c, n, dk)
        if st != OK:
            return st, False, buf, c
        if not b:
            return OK, (k & _U1) == _U1, buf, c
        k = k + _U1
        if dk > _U64MAX - d:
            return ERR_RANGE, False, buf, c
        dk = dk + d


@_ijit
def _rd_exp(state, buf, c, n, d):
    """exp(-n/d), n < 2^32, 1 <= d < 2^32 (uint64): floor(n/d) times exp(-1), then exp(-frac)."""
    if n < d:                                   # the common case: no division
        return _rd_exp_le1(state, buf, c, n, d)
    whole = n // d
    frac = n - whole * d
    i = _U0
    while i < whole:
        st, b, buf, c = _rd_exp_le1(state, buf, c, _U1, _U1)
        if st != OK:
            return st, False, buf, c
        if not b:
            return OK, False, buf, c
        i = i + _U1
    return _rd_exp_le1(state, buf, c, frac, d)


@_ijit
def _rd_geometric_e1(state, buf, c):
    """V = number of successes before the first failure of bernoulli_exp(1, 1):
    the loop ``V = 0; while bernoulli_exp(1, 1): V += 1`` of discrete_laplace,
    reading exactly its bits.

    Fast path (about 96%): look the next GEO_BITS bits up in ``_GEO_TABLE``
    (the reference's own outcome and bit count for every GEO_BITS-bit string).
    The lookahead is the buffer plus, if that is short, the next word of the
    current block *peeked* without consuming it; the word is consumed only if
    the bits used reach into it, which is exactly when the reference would
    fetch it.  Otherwise (the loop needs more bits, or the block or replay is
    used up) the plain loop runs from the same position.
    """
    if c >= _GEO_W:
        e = np.int64(_GEO_TABLE[buf >> (c - _GEO_W)])
        if e >= _I0:
            used = np.uint64(e >> 8)
            c = c - used
            return OK, np.uint64(e & 255), buf & _mask(c), c
    else:
        pos = np.int64(state[WORD_POS])
        if pos < np.int64(state[BLOCK_LEN]):
            w = np.uint64(state[BLOCK + pos])
            cw = c + _U32
            e = np.int64(_GEO_TABLE[((buf << _U32) | w) >> (cw - _GEO_W)])
            if e >= _I0:
                used = np.uint64(e >> 8)
                if used <= c:
                    c = c - used
                    return OK, np.uint64(e & 255), buf & _mask(c), c
                state[WORD_POS] = np.uint32(pos + _I1)
                c = cw - used
                return OK, np.uint64(e & 255), w & _mask(c), c
    v = _U0
    while True:
        st, b, buf, c = _rd_exp_le1(state, buf, c, _U1, _U1)
        if st != OK:
            return st, _U0, buf, c
        if not b:
            return OK, v, buf, c
        if v == _U64MAX:
            return ERR_RANGE, _U0, buf, c
        v = v + _U1


@_jit
def _rd_laplace(state, buf, c, s, t):
    """CKS 2020 Alg. 2 with scale t/s; s, t in [1, 2^32) (uint64) -> (status, int64, buf, c)."""
    while True:
        st, u, buf, c = _rd_uniform_below(state, buf, c, t)
        if st != OK:
            return st, _I0, buf, c
        st, keep, buf, c = _rd_exp(state, buf, c, u, t)
        if st != OK:
            return st, _I0, buf, c
        if not keep:
            continue
        st, v, buf, c = _rd_geometric_e1(state, buf, c)
        if st != OK:
            return st, _I0, buf, c
        # u, t < 2^32: u + t v cannot wrap while v < 2^32.  Range errors come
        # before the sign bit is read (as in csrc/fxdp_laplace.c).
        if v > _M32 and v > (_U64MAX - u) // t:
            return ERR_RANGE, _I0, buf, c
        y = u + t * v
        if s != _U1:
            y = y // s
        if y > _I64MAX_U:
            return ERR_RANGE, _I0, buf, c
        st, sign, buf, c = _rd_bits(state, buf, c, _U1)
        if st != OK:
            return st, _I0, buf, c
        if sign == _U1 and y == _U0:
            continue
        if sign == _U1:
            return OK, -np.int64(y), buf, c
        return OK, np.int64(y), buf, c


@_ijit
def _rd_laplace_censored(state, buf, c, s, t, lo, hi):
    st, z, buf, c = _rd_laplace(state, buf, c, s, t)
    if st != OK:
        return st, _I0, buf, c
    if z < lo:
        return OK, lo, buf, c
    if z > hi:
        return OK, hi, buf, c
    return OK, z, buf, c


@_ijit
def _rd_table(state, buf, c, thresholds, k):
    """Index = number of thresholds <= x for x = bits(k); full branch-free scan."""
    st, x, buf, c = _rd_bits(state, buf, c, k)
    if st != OK:
        return st, _I0, buf, c
    cnt = _I0
    for i in range(thresholds.shape[0]):
        cnt += np.int64(np.uint64(thresholds[i]) <= x)
    return OK, cnt, buf, c


# --------------------------------------------------------------------------
# parameter checks (True = valid); the ranges of fxdp.samplers.reference

@_ijit
def _neg(x):
    """x < 0 for a signed or unsigned integer without mixing signedness (x ^ x is a typed 0)."""
    return x < (x ^ x)


@_ijit
def _in_range(x, lo, hi):
    """lo <= x <= hi for an integer x of any signedness; lo, hi uint64."""
    if _neg(x):
        return False
    u = np.uint64(x)
    return u >= lo and u <= hi


_U32MAX = np.uint64(0xFFFFFFFF)


@_jit
def _ok_uniform(n):
    return _in_range(n, _U1, _U64MAX)


@_jit
def _ok_dyadic(a, k):
    if not _in_range(k, _U0, _U63):
        return False
    return _in_range(a, _U0, _U1 << np.uint64(k))


@_jit
def _ok_rational(n, d):
    if not _in_range(d, _U1, _U64MAX):
        return False
    return _in_range(n, _U0, np.uint64(d))


@_jit
def _ok_exp(n, d):
    return _in_range(n, _U0, _U32MAX) and _in_range(d, _U1, _U32MAX)


@_jit
def _ok_laplace(s, t):
    return _in_range(s, _U1, _U32MAX) and _in_range(t, _U1, _U32MAX)


@_jit
def _ok_bounds(lo, hi):
    """lo <= hi as int64 values (each must fit int64)."""
    if not _neg(lo) and np.uint64(lo) > _I64MAX_U:
        return False
    if not _neg(hi) and np.uint64(hi) > _I64MAX_U:
        return False
    return np.int64(lo) <= np.int64(hi)


@_jit
def _ok_table(thresholds, k):
    if not _in_range(k, _U1, _U32):
        return False
    lim = (_U1 << np.uint64(k)) - _U1
    for i in range(thresholds.shape[0]):
        if not _in_range(thresholds[i], _U0, lim):
            return False
    return True


# --------------------------------------------------------------------------
# generic drivers, one per loop shape
#
# ``rd`` is the sampler's ``_rd_<x>`` reader, passed as a first-class
# function; every driver is ``inline="always"``, so after Numba's IR inlining
# ``rd`` resolves to the global reader and is inlined too: the compiled kernel
# is the hand-written loop it replaces (same throughput).  The typed parameters
# follow ``out`` / ``zero`` positionally.
#
# Why one copy per arity (1, 2 and 4 parameters) and not ``rd(state, buf, c,
# *params)``: Numba's IR inliner rejects a star-args call to an inlinable
# function ("Calling a closure with *args is unsupported"), and the readers
# must be inlined (a call keeps buf/c out of registers).  The fleet driver
# calls the (not inlined) fill kernel, so it takes the parameters as a tuple.
#
# Why the public kernels are plain module-level functions and not made by a
# factory (``make_fill(rd)`` returning an ``@njit`` closure): Numba's on-disk
# cache keys a closure by a pickle of its cell contents, and a pickled
# Dispatcher carries a per-process uuid4, so such a kernel never hits the cache
# in a new process (it recompiles and appends one more .nbc file per process;
# checked with NUMBA_DEBUG_CACHE=1 on Numba 0.68).  The inline drivers are
# never compiled on their own, so they need no cache entry.

@_ijit
def _draw1(rd, state, ok, zero, p0):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, zero
    if not ok:
        return ERR_PARAM, zero
    buf, c = _load(state)
    st, v, buf, c = rd(state, buf, c, p0)
    _store(state, buf, c)
    return st, v


@_ijit
def _draw2(rd, state, ok, zero, p0, p1):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, zero
    if not ok:
        return ERR_PARAM, zero
    buf, c = _load(state)
    st, v, buf, c = rd(state, buf, c, p0, p1)
    _store(state, buf, c)
    return st, v


@_ijit
def _draw4(rd, state, ok, zero, p0, p1, p2, p3):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, zero
    if not ok:
        return ERR_PARAM, zero
    buf, c = _load(state)
    st, v, buf, c = rd(state, buf, c, p0, p1, p2, p3)
    _store(state, buf, c)
    return st, v


@_ijit
def _fill1(rd, state, ok, out, p0):
    """(status, count_done): len(out) draws of rd into out, the bit buffer in registers."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not ok:
        return ERR_PARAM, _I0
    buf, c = _load(state)
    for i in range(out.shape[0]):
        st, v, buf, c = rd(state, buf, c, p0)
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = v
    _store(state, buf, c)
    return OK, np.int64(out.shape[0])


@_ijit
def _fill2(rd, state, ok, out, p0, p1):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not ok:
        return ERR_PARAM, _I0
    buf, c = _load(state)
    for i in range(out.shape[0]):
        st, v, buf, c = rd(state, buf, c, p0, p1)
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = v
    _store(state, buf, c)
    return OK, np.int64(out.shape[0])


@_ijit
def _fill4(rd, state, ok, out, p0, p1, p2, p3):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not ok:
        return ERR_PARAM, _I0
    buf, c = _load(state)
    for i in range(out.shape[0]):
        st, v, buf, c = rd(state, buf, c, p0, p1, p2, p3)
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = v
    _store(state, buf, c)
    return OK, np.int64(out.shape[0])


@_ijit
def _fleet(fill, seed_key_words, device_ids, stream, draws_per_device, out, status_out, params):
    """One keyed stream per device, in parallel (inline it into a ``parallel=True`` kernel):
    device i runs ``fill(state, *params, out[i, :draws_per_device])``."""
    for i in numba.prange(device_ids.shape[0]):
        state = _device_state(seed_key_words, device_ids[i], stream)
        st, _ = fill(state, *params, out[i, :draws_per_device])
        status_out[i] = st


# --------------------------------------------------------------------------
# public single-draw kernels: (status, value)

@_jit
def bits(state, n):
    """(status, next n bits as uint64), n in [0, 32]."""
    return _draw1(_rd_bits, state, _in_range(n, _U0, _U32), _U0, np.uint64(n))


@_jit
def bits64(state, n):
    """(status, next n bits as uint64), n in [0, 64]."""
    return _draw1(_rd_bits64, state, _in_range(n, _U0, _U64), _U0, np.uint64(n))


@_jit
def uniform_below(state, n):
    """(status, x) with x uniform on {0..n-1}, n in [1, 2^64 - 1] (uint64 value)."""
    return _draw1(_rd_uniform_below, state, _ok_uniform(n), _U0, np.uint64(n))


@_jit
def bernoulli_dyadic(state, a, k):
    """(status, bool) True w.p. a/2^k, lazy (not constant time).  k in [0, 63], a in [0, 2^k]."""
    return _draw2(_rd_dyadic, state, _ok_dyadic(a, k), False, np.uint64(a), np.uint64(k))


@_jit
def bernoulli_dyadic_ct(state, a, k):
    """(status, bool) True w.p. a/2^k; always reads exactly k bits.  k in [0, 63], a in [0, 2^k]."""
    return _draw2(_rd_dyadic_ct, state, _ok_dyadic(a, k), False, np.uint64(a), np.uint64(k))


@_jit
def bernoulli_rational(state, n, d):
    """(status, bool) True w.p. n/d.  d in [1, 2^64 - 1], n in [0, d]."""
    return _draw2(_rd_rational, state, _ok_rational(n, d), False, np.uint64(n), np.uint64(d))


@_jit
def bernoulli_exp(state, n, d):
    """(status, bool) True w.p. exp(-n/d).  n in [0, 2^32 - 1], d in [1, 2^32 - 1]."""
    return _draw2(_rd_exp, state, _ok_exp(n, d), False, np.uint64(n), np.uint64(d))


@_jit
def discrete_laplace(state, s, t):
    """(status, int64 z), P(z) proportional to exp(-|z| s/t).  s, t in [1, 2^32 - 1]."""
    return _draw2(_rd_laplace, state, _ok_laplace(s, t), _I0, np.uint64(s), np.uint64(t))


@_jit
def discrete_laplace_censored(state, s, t, lo, hi):
    """(status, int64) discrete_laplace(s, t) saturated to [lo, hi] (int64, lo <= hi)."""
    return _draw4(_rd_laplace_censored, state, _ok_laplace(s, t) and _ok_bounds(lo, hi), _I0,
                  np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi))


@_jit
def table_sample_ct(state, thresholds, k):
    """(status, int64 index): one k-bit draw x (k in [1, 32]), index = #{thresholds <= x}.

    ``thresholds``: integer array, every entry in [0, 2^k) (checked, ERR_PARAM)."""
    return _draw2(_rd_table, state, _ok_table(thresholds, k), _I0, thresholds, np.uint64(k))


# --------------------------------------------------------------------------
# fill kernels: (status, count_done); out[:count_done] written.  The bit
# buffer stays in registers for the whole loop.

@_jit
def fill_bits(state, n, out):
    return _fill1(_rd_bits, state, _in_range(n, _U0, _U32), out, np.uint64(n))


@_jit
def fill_uniform_below(state, n, out):
    return _fill1(_rd_uniform_below, state, _ok_uniform(n), out, np.uint64(n))


@_jit
def fill_bernoulli_dyadic(state, a, k, out):
    # Not just _fill2(_rd_dyadic, ...): the reduction of a/2^k to an odd
    # numerator (and the constant cases a = 0, a = 2^k, which read nothing) is
    # hoisted out of the loop, so the checks come first here.
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not _ok_dyadic(a, k):
        return ERR_PARAM, _I0
    aa = np.uint64(a)
    kk = np.uint64(k)
    if aa == _U0 or aa == (_U1 << kk):          # reads nothing
        const = aa != _U0
        for i in range(out.shape[0]):
            out[i] = const
        return OK, np.int64(out.shape[0])
    z = np.uint64(trailing_zeros(aa))
    return _fill2(_rd_dyadic_odd, state, True, out, aa >> z, kk - z)


@_jit
def fill_bernoulli_dyadic_ct(state, a, k, out):
    return _fill2(_rd_dyadic_ct, state, _ok_dyadic(a, k), out, np.uint64(a), np.uint64(k))


@_jit
def fill_bernoulli_rational(state, n, d, out):
    return _fill2(_rd_rational, state, _ok_rational(n, d), out, np.uint64(n), np.uint64(d))


@_jit
def fill_bernoulli_exp(state, n, d, out):
    return _fill2(_rd_exp, state, _ok_exp(n, d), out, np.uint64(n), np.uint64(d))


@_jit
def fill_discrete_laplace(state, s, t, out):
    return _fill2(_rd_laplace, state, _ok_laplace(s, t), out, np.uint64(s), np.uint64(t))


@_jit
def fill_discrete_laplace_censored(state, s, t, lo, hi, out):
    return _fill4(_rd_laplace_censored, state, _ok_laplace(s, t) and _ok_bounds(lo, hi), out,
                  np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi))


@_jit
def fill_table_sample_ct(state, thresholds, k, out):
    return _fill2(_rd_table, state, _ok_table(thresholds, k), out, thresholds, np.uint64(k))


# --------------------------------------------------------------------------
# fleet kernels: one keyed stream per device, devices in parallel (_fleet)
#
# Per-device body (reuse it for mechanisms):
#     state = _device_state(seed_key_words, device_ids[i], stream)
#     ... draws from `state` with the internal or fill kernels ...
#     status_out[i] = status

@_pjit
def fleet_bits(seed_key_words, device_ids, stream, n, draws_per_device, out, status_out):
    _fleet(fill_bits, seed_key_words, device_ids, stream, draws_per_device, out, status_out, (n,))


@_pjit
def fleet_uniform_below(seed_key_words, device_ids, stream, n, draws_per_device, out, status_out):
    _fleet(fill_uniform_below, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n,))


@_pjit
def fleet_bernoulli_dyadic(seed_key_words, device_ids, stream, a, k, draws_per_device, out,
                           status_out):
    _fleet(fill_bernoulli_dyadic, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (a, k))


@_pjit
def fleet_bernoulli_dyadic_ct(seed_key_words, device_ids, stream, a, k, draws_per_device, out,
                              status_out):
    _fleet(fill_bernoulli_dyadic_ct, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (a, k))


@_pjit
def fleet_bernoulli_rational(seed_key_words, device_ids, stream, n, d, draws_per_device, out,
                             status_out):
    _fleet(fill_bernoulli_rational, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n, d))


@_pjit
def fleet_bernoulli_exp(seed_key_words, device_ids, stream, n, d, draws_per_device, out,
                        status_out):
    _fleet(fill_bernoulli_exp, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (n, d))


@_pjit
def fleet_discrete_laplace(seed_key_words, device_ids, stream, s, t, draws_per_device, out,
                           status_out):
    _fleet(fill_discrete_laplace, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (s, t))


@_pjit
def fleet_discrete_laplace_censored(seed_key_words, device_ids, stream, s, t, lo, hi,
                                    draws_per_device, out, status_out):
    _fleet(fill_discrete_laplace_censored, seed_key_words, device_ids, stream, draws_per_device,
           out, status_out, (s, t, lo, hi))


@_pjit
def fleet_table_sample_ct(seed_key_words, device_ids, stream, thresholds, k, draws_per_device,
                          out, status_out):
    _fleet(fill_table_sample_ct, seed_key_words, device_ids, stream, draws_per_device, out,
           status_out, (thresholds, k))


# name -> (single-draw kernel, fill kernel, fleet kernel); params follow the
# reference's positional order.  PARAM_TYPES gives the canonical argument
# types: pass parameters through ``typed_params`` (a Python int >= 2^63 would
# otherwise be squeezed into an already compiled int64 signature by Numba's
# dispatcher and fail with OverflowError; canonical types also keep each
# kernel to one compiled specialization).
SAMPLERS = {
    "uniform_below": (uniform_below, fill_uniform_below, fleet_uniform_below),
    "bernoulli_dyadic": (bernoulli_dyadic, fill_bernoulli_dyadic, fleet_bernoulli_dyadic),
    "bernoulli_dyadic_ct": (bernoulli_dyadic_ct, fill_bernoulli_dyadic_ct, fleet_bernoulli_dyadic_ct),
    "bernoulli_rational": (bernoulli_rational, fill_bernoulli_rational, fleet_bernoulli_rational),
    "bernoulli_exp": (bernoulli_exp, fill_bernoulli_exp, fleet_bernoulli_exp),
    "discrete_laplace": (discrete_laplace, fill_discrete_laplace, fleet_discrete_laplace),
    "discrete_laplace_censored": (discrete_laplace_censored, fill_discrete_laplace_censored,
                                  fleet_discrete_laplace_censored),
    "table_sample_ct": (table_sample_ct, fill_table_sample_ct, fleet_table_sample_ct),
}

_TBL = "table"
PARAM_TYPES = {
    "bits": (np.int64,),
    "bits64": (np.int64,),
    "uniform_below": (np.uint64,),
    "bernoulli_dyadic": (np.uint64, np.int64),
    "bernoulli_dyadic_ct": (np.uint64, np.int64),
    "bernoulli_rational": (np.uint64, np.uint64),
    "bernoulli_exp": (np.uint64, np.uint64),
    "discrete_laplace": (np.uint64, np.uint64),
    "discrete_laplace_censored": (np.uint64, np.uint64, np.int64, np.int64),
    "table_sample_ct": (_TBL, np.int64),
}


def typed_params(sampler, params):
    """``params`` (Python ints, lists) as the canonical numpy scalars / uint64 table array.

    Raises ValueError for a value that does not fit its type (the kernels
    then check the sampler's own ranges and return ERR_PARAM)."""
    types = PARAM_TYPES[sampler]
    if len(params) != len(types):
        raise ValueError(f"{sampler} takes {len(types)} parameters, got {len(params)}")
    out = []
    for p, t in zip(params, types):
        if t is _TBL:
            out.append(np.ascontiguousarray(np.asarray(p, dtype=np.uint64)))
            continue
        p = int(p)
        info = np.iinfo(t)
        if not info.min <= p <= info.max:
            raise ValueError(f"{sampler}: parameter {p} does not fit {info.dtype}")
        out.append(t(p))
    return tuple(out)
