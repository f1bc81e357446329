"""ChaCha20 bit-source core of the Numba kernels: state layout, status codes,
typed constants and compilation modes, the plain-Python state helpers, the
ChaCha20 block, the buffered bit reader (``_fetch``, ``_load``/``_store``,
``_rd_bits``/``_rd_bits64``), fleet device seeding, and the integer range
check every parameter check uses.

Part of ``fxdp.samplers._kernels`` (which re-exports every name and documents
the state, return and bulk-kernel conventions); import from there.
"""
from __future__ import annotations

import numba
import numba.extending
import numpy as np

from .. import _numba_cache
from ..bitsource import derive_key_nonce, seed_parts
from ._nb_jit import ijit, jit, jit_nrt

_numba_cache.announce_compiles()     # a terminal sees one line while a kernel compiles (once per machine)

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
MODE_CHACHA_FKE = 3     # stream version 2: fast key erasure (docs/bitstream.md)
# Numba fleets only (fxdp.samplers._nb_lanes.seed_device_ahead): MODE_CHACHA / MODE_CHACHA_FKE whose
# next AHEAD_LEFT blocks were computed in advance, many devices at once, and stored after the
# state's STATE_WORDS words (block j at STATE_WORDS + 16 j, from AHEAD_NEXT on).  _refill serves
# them instead of computing them, leaving every other word as it would; then the mode is the plain one.
MODE_CHACHA_AHEAD = 4
MODE_CHACHA_FKE_AHEAD = 5
AHEAD_LEFT = 34
AHEAD_NEXT = 35

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

# Compilation modes (jit, ijit, jit_nrt, pjit): fxdp/samplers/_nb_jit.py.

_WIDE = '"prefer-vector-width"="512"'


@numba.extending.intrinsic
def prefer_wide_vectors(typingctx):
    """Compile the calling function for the CPU's widest vector registers (LLVM's function
    attribute "prefer-vector-width"="512"; emits no instruction).  LLVM tunes some AVX-512 CPUs
    (Intel Xeon from Skylake-SP to Emerald Rapids) for 256-bit vectors, which halves the lanes of a
    vectorized loop; the fleet's multi-lane ChaCha20 measured about 1.4x more blocks/s with 512
    on an Emerald Rapids VM (median of five alternating runs; docs/benchmarks.md, issue 12).  Integer code only, so results are the same bits either way.  Numba-IR
    inlined callers (``ijit``) mark the function they are inlined into."""
    def codegen(context, builder, signature, args):
        # llvmlite knows no string attributes; the set renders its items verbatim
        set.add(builder.function.attributes, _WIDE)
        return context.get_dummy_value()
    return numba.core.types.none(), codegen


# --------------------------------------------------------------------------
# state helpers (plain Python)

def new_state():
    """A zeroed state array (STATE_WORDS uint32 words); seed it before use."""
    return np.zeros(STATE_WORDS, dtype=np.uint32)


def seed_key_words(seed):
    """The seed words of ``seed`` (an int or a bitsource.Seed) as uint32[9]: the 8 ChaCha20 key
    words (bitsource.derive_key_nonce), then the stream version (1 or 2).  Every fleet kernel
    takes this array and seeds its devices from it (``_seed_into``, ``seed_lane``)."""
    key, _ = derive_key_nonce(seed, 0, 0)
    _, version = seed_parts(seed)
    return np.array(list(key) + [version], dtype=np.uint32)


def _mode_of_version(version):
    return MODE_CHACHA_FKE if int(version) == 2 else MODE_CHACHA


def _check_state(state):
    if not (isinstance(state, np.ndarray) and state.dtype == np.uint32 and state.ndim == 1
            and state.shape[0] >= SHARED_WORDS and state.flags.c_contiguous):
        raise ValueError(f"state must be a contiguous uint32 array of at least {SHARED_WORDS} "
                         f"words (new_state() gives {STATE_WORDS})")


def seed_state(state, seed, device_id=0, stream=0):
    """Set ``state`` to the start of the keyed ChaCha20 stream of (seed, device_id, stream).

    Key and nonce per ``bitsource.derive_key_nonce``; counter 0, empty block
    (word_pos = block_len = 16), empty bit buffer, mode MODE_CHACHA (stream
    version 1) or MODE_CHACHA_FKE (version 2, the default of an int seed),
    status 0.  Words 34.. are left alone.  Returns ``state``.
    """
    _check_state(state)
    key, nonce = derive_key_nonce(seed, device_id, stream)
    _, version = seed_parts(seed)
    state[:SHARED_WORDS] = 0
    state[KEY:KEY + 8] = key
    state[NONCE:NONCE + 3] = nonce
    state[WORD_POS] = 16
    state[BLOCK_LEN] = 16
    state[MODE] = _mode_of_version(version)
    return state


def keyed_state(key, nonce, counter=0, state=None, version=1):
    """A keyed ChaCha20 state from raw key words, nonce words and the next block counter
    (version 1: the plain keystream, as bitsource.ChaCha20Source(key=...); 2: fast key erasure)."""
    from ..bitsource import check_stream_version
    check_stream_version(version)
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
    state[MODE] = _mode_of_version(version)
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
    (block_len is 16; a fresh state has word_pos = 16, so 0); version 2 (fast
    key erasure) outputs 8 words per block: counter*256 - (16 - word_pos)*32
    - bitcount.  Replay mode:
        word_pos*32 - bitcount.
    Matches ``BitSource.bits_used`` of the reference, also after a failure
    (a failed fetch consumes nothing).
    """
    s = [int(x) for x in state[:SHARED_WORDS]]
    if s[MODE] == MODE_REPLAY:
        return s[WORD_POS] * 32 - s[BITCOUNT]
    if s[MODE] in (MODE_CHACHA_FKE, MODE_CHACHA_FKE_AHEAD):
        return s[COUNTER] * 256 - (16 - s[WORD_POS]) * 32 - s[BITCOUNT]
    return s[COUNTER] * 512 - (s[BLOCK_LEN] - s[WORD_POS]) * 32 - s[BITCOUNT]


def status_of(state):
    """The sticky status word of ``state`` (0 while healthy)."""
    return int(state[STATUS])


# --------------------------------------------------------------------------
# ChaCha20 (RFC 8439 section 2.3)

@ijit
def _rotl(v, n):
    """32-bit rotate left of v (holding a 32-bit value) by n in 1..31 (uint32)."""
    return np.uint32((v << n) | (v >> (_R32 - n)))


@ijit
def _add(a, b):
    """a + b mod 2^32 (uint32)."""
    return np.uint32(a + b)


@jit
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


@jit
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

@ijit
def _mask(c):
    """(1 << c) - 1 for c in 0..63 (uint64)."""
    return (_U1 << c) - _U1


@jit
def _refill(state):
    """Load the next block into state.block -> status.  Keyed modes only, and
    never for counter 0xFFFFFFFF; otherwise the sticky ERR_ENTROPY is set.
    Version 2 (MODE_CHACHA_FKE): words 0..7 become the key and are not served
    (word_pos = 8).  The ahead modes serve the next precomputed block (the
    same block: only where it comes from differs)."""
    mode = state[MODE]
    plain = mode
    if mode == MODE_CHACHA_AHEAD:
        plain = np.uint32(MODE_CHACHA)
    elif mode == MODE_CHACHA_FKE_AHEAD:
        plain = np.uint32(MODE_CHACHA_FKE)
    if (plain != MODE_CHACHA and plain != MODE_CHACHA_FKE) or state[COUNTER] == LAST_COUNTER:
        state[STATUS] = np.uint32(ERR_ENTROPY)
        return ERR_ENTROPY
    ctr = state[COUNTER]
    if plain != mode:
        base = STATE_WORDS + 16 * np.int64(state[AHEAD_NEXT])
        for i in range(16):
            state[BLOCK + i] = state[base + i]
        state[AHEAD_NEXT] = state[AHEAD_NEXT] + np.uint32(1)
        state[AHEAD_LEFT] = state[AHEAD_LEFT] - np.uint32(1)
        if state[AHEAD_LEFT] == np.uint32(0):
            state[MODE] = plain
    else:
        blk = _block_core(np.uint64(state[0]), np.uint64(state[1]), np.uint64(state[2]),
                          np.uint64(state[3]), np.uint64(state[4]), np.uint64(state[5]),
                          np.uint64(state[6]), np.uint64(state[7]), np.uint64(ctr),
                          np.uint64(state[8]), np.uint64(state[9]), np.uint64(state[10]))
        for i in range(16):
            state[BLOCK + i] = np.uint32(blk[i])
    state[COUNTER] = ctr + np.uint32(1)
    state[BLOCK_LEN] = np.uint32(16)
    if plain == MODE_CHACHA_FKE:
        for i in range(8):
            state[KEY + i] = state[BLOCK + i]
            state[BLOCK + i] = np.uint32(0)
        state[WORD_POS] = np.uint32(8)
    else:
        state[WORD_POS] = np.uint32(0)
    return OK


@ijit
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
        pos = np.int64(state[WORD_POS])
    state[WORD_POS] = np.uint32(pos + _I1)
    return OK, np.uint64(state[BLOCK + pos])


@ijit
def _load(state):
    return np.uint64(state[BITBUF]), np.uint64(state[BITCOUNT])


@ijit
def _store(state, buf, c):
    state[BITBUF] = np.uint32(buf)
    state[BITCOUNT] = np.uint32(c)


@ijit
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


@ijit
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


@jit
def bits_used_nb(state):
    """``bits_used`` inside compiled code (int64)."""
    if state[MODE] == MODE_REPLAY:
        return np.int64(state[WORD_POS]) * 32 - np.int64(state[BITCOUNT])
    if state[MODE] == MODE_CHACHA_FKE or state[MODE] == MODE_CHACHA_FKE_AHEAD:
        return (np.int64(state[COUNTER]) * 256 - (16 - np.int64(state[WORD_POS])) * 32
                - np.int64(state[BITCOUNT]))
    return (np.int64(state[COUNTER]) * 512
            - (np.int64(state[BLOCK_LEN]) - np.int64(state[WORD_POS])) * 32
            - np.int64(state[BITCOUNT]))


@ijit
def fast_key_erasure(key_words):
    """True when seed words (uint32[9]: 8 key words, then the stream version) select version 2;
    a bare version-1 key (uint32[8]) never does."""
    return key_words.shape[0] > 8 and key_words[8] == 2


@jit
def _seed_into(state, key_words, device_id, stream):
    """Keyed-stream start for (key words, device_id, stream); words 34.. untouched.  key_words:
    uint32[8] (version 1) or seed words uint32[9] whose last word is the stream version."""
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
    if fast_key_erasure(key_words):
        state[MODE] = np.uint32(MODE_CHACHA_FKE)


@jit_nrt
def _device_state(key_words, device_id, stream):
    """A fresh STATE_WORDS state for one fleet device (the per-device loop prologue)."""
    state = np.zeros(STATE_WORDS, dtype=np.uint32)
    _seed_into(state, key_words, device_id, stream)
    return state


@jit
def replay_into(state, words, nwords):
    """Compiled ``replay_state``: serve words[0..nwords) (nwords <= 16), then fail."""
    for i in range(SHARED_WORDS):
        state[i] = np.uint32(0)
    for i in range(nwords):
        state[BLOCK + i] = np.uint32(words[i])
    state[BLOCK_LEN] = np.uint32(nwords)
    state[MODE] = np.uint32(MODE_REPLAY)


# --------------------------------------------------------------------------
# integer range checks (no mixed signedness), used by every parameter check

@ijit
def _neg(x):
    """x < 0 for a signed or unsigned integer without mixing signedness (x ^ x is a typed 0)."""
    return x < (x ^ x)


@ijit
def _in_range(x, lo, hi):
    """lo <= x <= hi for an integer x of any signedness; lo, hi uint64."""
    if _neg(x):
        return False
    u = np.uint64(x)
    return u >= lo and u <= hi


_U32MAX = np.uint64(0xFFFFFFFF)
