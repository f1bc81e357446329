"""Layer 4, Numba kernels: the toolbox every family's kernels share.

Each family's kernels live beside it (``fxdp/mechanisms/<group>/_kernels_<kind>.py``) and read
exactly the bits of the family's reference release, in the same order, from the stream of
``fxdp.bitsource``; the parity tests hold them bit for bit to the reference and to the C library.
Integers only: every kernel compiles through the integer-only check of
``fxdp.samplers._nb_jit``.  This module holds what they share: the seeding of one fleet
device's keyed stream (``_seed_dev``, ``_seed_dev_lanes``: the first blocks of 32 devices come
from one multi-lane pass, fxdp/samplers/_nb_lanes.py), its stream position (``_pos``), the
saturating clamps and ``CHUNK``; and, outside the privacy path, ``categorical_fill`` (the inverse-CDF
draw of a synthetic population, on doubles).  The Python fleet driver and its input checks are
``fxdp.mechanisms._fleet``.

A fleet runs ``numba.prange`` over chunks of CHUNK devices and calls a plain compiled chunk body
with one state array per chunk: no per-device allocation, and the parallel function's IR stays
small (inlining the whole sampler into a parfor makes Numba's parallel passes very slow to
compile).  Why one chunk/fleet pair per family rather than one generic driver (as
fxdp/samplers/_nb_drivers.py has for the samplers): the driver would take the release row as a
first-class function, and Numba's IR inliner refuses to call it with *args ("Calling a closure
with *args is unsupported"), so a driver needs one copy per parameter count; and scalar and row
outputs are stored differently.  A closure factory is no way out either: its kernels never hit
the on-disk cache (benchmarks/kernel_fold.md).
"""
from __future__ import annotations


import numpy as np

from ..samplers import _kernels as K
from ..samplers._nb_lanes import seed_device
from ..samplers._kernels import BLOCK_LEN, COUNTER, KEY, MODE, MODE_CHACHA_FKE, NONCE, SHARED_WORDS, WORD_POS
from ..samplers._nb_jit import float_jit, ijit


_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_M32 = np.uint64(0xFFFFFFFF)
_I0 = np.int64(0)
_I1 = np.int64(1)
_I64MIN = np.int64(-(1 << 63))
_I64MAX = np.int64((1 << 63) - 1)
_UB0 = np.uint8(0)

CHUNK = 256              # devices per prange work item (one state array per item)


# --------------------------------------------------------------------------
# helpers

@ijit
def _seed_dev(state, key, dev, first_block):
    """state <- start of the keyed stream (key, device dev, stream 0) at block first_block; key:
    seed words (uint32[9], the last one the stream version) or a version-1 key (uint32[8])."""
    for i in range(SHARED_WORDS):
        state[i] = np.uint32(0)
    for i in range(8):
        state[KEY + i] = key[i]
    d = np.uint64(dev)
    state[NONCE] = np.uint32(d & _M32)
    state[NONCE + 1] = np.uint32(d >> _U32)
    state[COUNTER] = np.uint32(first_block)
    state[WORD_POS] = np.uint32(16)
    state[BLOCK_LEN] = np.uint32(16)
    if K.fast_key_erasure(key):
        state[MODE] = np.uint32(MODE_CHACHA_FKE)


@ijit
def _seed_dev_lanes(state, lanes, key, device_ids, i, lo, hi, first_block):
    """_seed_dev for device i of the chunk [lo, hi), its first block computed with the next
    LANES - 1 devices' in one multi-lane pass (fxdp.samplers._nb_lanes); same state as _seed_dev
    after its first refill, so every draw, status and bit count is unchanged."""
    seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)


@ijit
def _uniform_draw(state, n, ct):
    """(status, v): v = uniform_below(n), or the fixed-budget uniform_below_ct when ct (ERR_RANGE
    when no round accepted), from the state's stream (buffer loaded and stored back)."""
    buf, c = K._load(state)
    if ct:
        st, v, buf, c = K._rd_uniform_below_ct(state, buf, c, n)
    else:
        st, v, buf, c = K._rd_uniform_below(state, buf, c, n)
    K._store(state, buf, c)
    return st, v


@ijit
def _pos(state):
    """Stream position of a keyed state (bits_used_nb: 512 bits per block, 256 under version 2)."""
    return K.bits_used_nb(state)


@ijit
def _clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@ijit
def _sat_add_clamp(x, z, lo, hi):
    """clamp(x + z, lo, hi) for int64 x, z, lo <= hi, with no overflow."""
    if z > _I0 and x > _I64MAX - z:
        return hi
    if z < _I0 and x < _I64MIN - z:
        return lo
    return _clamp(x + z, lo, hi)


# --------------------------------------------------------------------------
# synthetic populations

@float_jit     # off the privacy path: draws a synthetic population's true values from doubles
def categorical_fill(u, cdf, out):
    """out[i]: the first index of cdf with cdf > u[i] (numpy's searchsorted, side right: the
    inverse-CDF draw of numpy's Generator.choice).  Synthetic populations
    (fxdp.mechanisms._oracle.categorical_part), not a release: doubles allowed here.  Up to 32
    entries every one is compared (the loop vectorizes: about 2 ns a device at 8); beyond, a binary
    search without a data-dependent branch."""
    m = cdf.shape[0]
    if m <= 32:
        for i in range(u.shape[0]):
            x = u[i]
            a = 0
            for j in range(m):
                a += cdf[j] <= x
            out[i] = a
        return
    for i in range(u.shape[0]):
        x = u[i]
        base, n = 0, m                   # the answer stays in [base, base + n]
        while n > 1:
            half = n >> 1
            base += half * (cdf[base + half] <= x)
            n -= half
        out[i] = base + (cdf[base] <= x)
