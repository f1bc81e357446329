"""Layer 4, Numba kernels: single releases, single-stream bulk releases and
parallel fleet simulation for every mechanism, both forms.

Each kernel reads exactly the bits of the mechanism's reference release
(``fxdp/mechanisms/*.py``: ``release`` / ``release_index`` / ``release_one``),
in the same order, from the stream of ``fxdp.bitsource``; the parity tests
(tests/test_mech_parity.py) hold them bit for bit to the reference and to
the C library (csrc/fxdp_mech_*.c, host fleet loops csrc/host/fxdp_host_mech.c),
including the final stream position.  Integers only.

Kernels
-------
Single release (status first, like the sampler kernels; the state is an
``fxdp.samplers._kernels`` state array; nothing is written on failure):

* ``release_rr_bool(state, a, k, ct, x) -> (status, bool)``
* ``release_rr(state, t, w0, k, thresholds, ct, x) -> (status, int64 index)``
  (x in [0, t], t = "not a category"; in the constant-time form x = t is
  answered with ``uniform_below(t)`` as the host does, see RandomizedResponse)
* ``release_rappor(state, a, bits, ct, x, out) -> status`` (x, out: uint8[k])
* ``release_geometric(state, mode, s, t, lo, hi, thresholds, k, width, x) -> (status, int64)``
* ``release_geometric_vec(..., xs, out) -> status`` (all of out or nothing)

Single stream, many releases (one device releasing a sequence):
``stream_rr_bool(state, a, k, ct, xs, out)`` and
``stream_rr(state, t, w0, k, thresholds, ct, xs, out)`` -> (status, count_done).

Fleet (``numba.prange`` over chunks of devices, ``nogil``): device i starts
the keyed stream (seed, device_ids[i], stream 0) at block ``first_block``
(0 for the real stream; tests move it near the end of the keystream to inject
entropy failure), releases its input and records its status and, if
``bits_out`` is non-empty, its final stream position (``bits_used``).  The
first blocks of 32 devices come from one multi-lane pass, and a device starts
on its first block's words alone (``start_device_fast`` in
fxdp/samplers/_nb_lanes.py; a release that needs more runs again on the keyed
state), which leaves every output, status and position as the keyed path has it:

* ``fleet_rr_bool(key, ids, first_block, a, k, ct, x, out, status, bits_out)``
* ``fleet_rr(key, ids, first_block, t, w0, k, thresholds, ct, x, out, status, bits_out)``
* ``fleet_rappor(key, ids, first_block, a, bits, ct, x, out, status, bits_out)``
* ``fleet_geometric(key, ids, first_block, mode, s, t, lo, hi, thresholds, k, width,
  x, out, status, bits_out)`` (x, out: n x d; scalar releases are d = 1)

Geometric ``mode``: 0 = scale 0 (no noise, no bits), 1 = lazy, 2 = constant time.

Python helpers
--------------
Input validation (``check_seed``, ``check_device_ids``, ``int_array``,
``bits_array``) and error reporting (``_finish``).  The driver that runs a
mechanism's kernel is generic and lives in ``fxdp.mechanisms._fleet``; each
mechanism packs its own parameters (``Mechanism.run_fleet``).  This module
imports no mechanism class.
"""
from __future__ import annotations

import numbers

import numba
import numpy as np

from ..bitsource import Seed
from ..errors import OK as _OK, raise_for_status
from ..samplers import _kernels as K
from ..samplers._nb_lanes import (LANES, fast_bits_used, restart_device, seed_device,
                                  start_device_fast)
from ..samplers._kernels import (BITCOUNT, BLOCK_LEN, COUNTER, ERR_ENTROPY, ERR_PARAM, KEY, MODE,
                                 MODE_CHACHA_FKE, NONCE, OK,
                                 SHARED_WORDS, STATE_WORDS, STATUS, WORD_POS, _load, _rd_dyadic,
                                 _rd_dyadic_ct, _rd_laplace, _rd_table, _rd_uniform_below, _store)

# As in fxdp.samplers._kernels: helpers that never allocate are compiled without
# reference counting and inlined at IR level; allocating kernels keep NRT.
_ijit = numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
_jit = numba.njit(cache=True, nogil=True, _nrt=False)
_njit_nrt = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)

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

MODE_NONE = 0            # geometric, scale 0
MODE_LAZY = 1
MODE_CT = 2



# --------------------------------------------------------------------------
# helpers

@_ijit
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


@_ijit
def _seed_dev_lanes(state, lanes, key, device_ids, i, lo, hi, first_block):
    """_seed_dev for device i of the chunk [lo, hi), its first block computed with the next
    LANES - 1 devices' in one multi-lane pass (fxdp.samplers._nb_lanes); same state as _seed_dev
    after its first refill, so every draw, status and bit count is unchanged."""
    seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)


@_ijit
def _pos(state):
    """Stream position of a keyed state (bits_used_nb: 512 bits per block, 256 under version 2)."""
    return K.bits_used_nb(state)


@_ijit
def _clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@_ijit
def _sat_add_clamp(x, z, lo, hi):
    """clamp(x + z, lo, hi) for int64 x, z, lo <= hi, with no overflow."""
    if z > _I0 and x > _I64MAX - z:
        return hi
    if z < _I0 and x < _I64MIN - z:
        return lo
    return _clamp(x + z, lo, hi)


# --------------------------------------------------------------------------
# one release, unchecked (typed arguments; the callers validate).  The bit
# buffer travels in (buf, c) as in the sampler kernels: _x_rd(state, buf, c,
# ...) -> (status, value, buf, c); on failure (buf, c) are those before the
# failed fetch, so storing them keeps the stream position the reference has.

@_ijit
def _rr_bool_rd(state, buf, c, a, k, ct, x):
    """x XNOR Bernoulli(a/2^k); a, k uint64; ct, x bool."""
    if ct:
        st, keep, buf, c = _rd_dyadic_ct(state, buf, c, a, k)
    else:
        st, keep, buf, c = _rd_dyadic(state, buf, c, a, k)
    if st != OK:
        return st, False, buf, c
    return OK, x == keep, buf, c


@_ijit
def _rr_rd(state, buf, c, t, w0, k, thresholds, ct, x):
    """RandomizedResponse.release_index; t, w0, k uint64; x int64 in [0, t]."""
    ti = np.int64(t)
    if ct:
        if x == ti:                                  # not a category: uniform (host only)
            st, s, buf, c = _rd_uniform_below(state, buf, c, t)
            if st != OK:
                return st, _I0, buf, c
            return OK, np.int64(s), buf, c
        st, d, buf, c = _rd_table(state, buf, c, thresholds, k)
        if st != OK:
            return st, _I0, buf, c
        y = x + d
        if y >= ti:
            y -= ti
        return OK, y, buf, c
    member = x < ti
    n = t - _U1 if member else t
    st, s, buf, c = _rd_uniform_below(state, buf, c, n)
    if st != OK:
        return st, _I0, buf, c
    si = np.int64(s)
    if member and si >= x:
        si += _I1
    st, honest, buf, c = _rd_dyadic(state, buf, c, w0, k)
    if st != OK:
        return st, _I0, buf, c
    if honest and member:
        return OK, x, buf, c
    return OK, si, buf, c


@_ijit
def _rappor_row(state, a, bits, ct, xrow, outrow):
    """outrow[i] = xrow[i] XOR Bernoulli(a/2^bits), i = 0..k-1; returns the status.
    On failure outrow[:i] holds the first outputs (the callers discard them)."""
    buf, c = _load(state)
    for i in range(xrow.shape[0]):
        if ct:
            st, b, buf, c = _rd_dyadic_ct(state, buf, c, a, bits)
        else:
            st, b, buf, c = _rd_dyadic(state, buf, c, a, bits)
        if st != OK:
            _store(state, buf, c)
            return st
        outrow[i] = xrow[i] ^ np.uint8(1 if b else 0)
    _store(state, buf, c)
    return OK


@_ijit
def _geo_rd(state, buf, c, mode, s, t, lo, hi, thresholds, k, width, x):
    """Geometric.release_one; mode 0/1/2; s, t, k uint64; lo, hi, width, x int64."""
    if mode == MODE_NONE:
        return OK, _clamp(x, lo, hi), buf, c
    if mode == MODE_CT:
        xc = _clamp(x, lo, hi)
        st, idx, buf, c = _rd_table(state, buf, c, thresholds, k)
        if st != OK:
            return st, _I0, buf, c
        return OK, _clamp(xc + (idx - width), lo, hi), buf, c
    st, z, buf, c = _rd_laplace(state, buf, c, s, t)
    if st != OK:
        return st, _I0, buf, c
    return OK, _sat_add_clamp(x, z, lo, hi), buf, c


@_ijit
def _geo_row(state, mode, s, t, lo, hi, thresholds, k, width, xrow, outrow):
    buf, c = _load(state)
    for i in range(xrow.shape[0]):
        st, y, buf, c = _geo_rd(state, buf, c, mode, s, t, lo, hi, thresholds, k, width, xrow[i])
        if st != OK:
            _store(state, buf, c)
            return st
        outrow[i] = y
    _store(state, buf, c)
    return OK


# --------------------------------------------------------------------------
# public single releases (state status first; outputs only on success)

@_jit
def release_rr_bool(state, a, k, ct, x):
    """(status, bool): one binary randomized response of x (a/2^k, k <= 63)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, False
    if not K._ok_dyadic(a, k):
        return ERR_PARAM, False
    buf, c = _load(state)
    st, y, buf, c = _rr_bool_rd(state, buf, c, np.uint64(a), np.uint64(k), ct, x)
    _store(state, buf, c)
    return st, y


@_jit
def release_rr(state, t, w0, k, thresholds, ct, x):
    """(status, int64 index): one k-ary release of index x in [0, t] (t: not a category)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if t < 2 or x < 0 or x > t or not K._ok_dyadic(w0, k):
        return ERR_PARAM, _I0
    if ct and (thresholds.shape[0] != t - 1 or not K._ok_table(thresholds, k)):
        return ERR_PARAM, _I0
    buf, c = _load(state)
    st, y, buf, c = _rr_rd(state, buf, c, np.uint64(t), np.uint64(w0), np.uint64(k), thresholds, ct,
                           np.int64(x))
    _store(state, buf, c)
    return st, y


@_njit_nrt
def release_rappor(state, a, bits, ct, x, out):
    """status; out[:] = the k released bits of x (uint8 0/1 arrays), written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if not K._ok_dyadic(a, bits) or x.shape[0] != out.shape[0]:
        return ERR_PARAM
    tmp = np.empty(x.shape[0], dtype=np.uint8)
    st = _rappor_row(state, np.uint64(a), np.uint64(bits), ct, x, tmp)
    if st == OK:
        out[:] = tmp
    return st


@_jit
def release_geometric(state, mode, s, t, lo, hi, thresholds, k, width, x):
    """(status, int64): one geometric release of the int64 x (mode 0/1/2, see module doc)."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    buf, c = _load(state)
    st, y, buf, c = _geo_rd(state, buf, c, np.int64(mode), np.uint64(s), np.uint64(t), np.int64(lo),
                            np.int64(hi), thresholds, np.uint64(k), np.int64(width), np.int64(x))
    _store(state, buf, c)
    return st, y


@_njit_nrt
def release_geometric_vec(state, mode, s, t, lo, hi, thresholds, k, width, x, out):
    """status; out[:] = the released vector (int64), written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if x.shape[0] != out.shape[0]:
        return ERR_PARAM
    tmp = np.empty(x.shape[0], dtype=np.int64)
    st = _geo_row(state, np.int64(mode), np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi),
                  thresholds, np.uint64(k), np.int64(width), x, tmp)
    if st == OK:
        out[:] = tmp
    return st


# --------------------------------------------------------------------------
# one stream, many releases: (status, count_done); out[:count_done] written

@_jit
def stream_rr_bool(state, a, k, ct, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    aa = np.uint64(a)
    kk = np.uint64(k)
    buf, c = _load(state)
    for i in range(xs.shape[0]):
        st, y, buf, c = _rr_bool_rd(state, buf, c, aa, kk, ct, xs[i])
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = y
    _store(state, buf, c)
    return OK, np.int64(xs.shape[0])


@_jit
def stream_rr(state, t, w0, k, thresholds, ct, xs, out):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    tt = np.uint64(t)
    ww = np.uint64(w0)
    kk = np.uint64(k)
    buf, c = _load(state)
    for i in range(xs.shape[0]):
        st, y, buf, c = _rr_rd(state, buf, c, tt, ww, kk, thresholds, ct, xs[i])
        if st != OK:
            _store(state, buf, c)
            return st, np.int64(i)
        out[i] = y
    _store(state, buf, c)
    return OK, np.int64(xs.shape[0])


# --------------------------------------------------------------------------
# fleets: device i on the keyed stream (seed, device_ids[i], 0), devices in
# parallel.  The prange loop runs over chunks of CHUNK devices and calls a
# plain compiled chunk body with one state array per chunk: no per-device
# allocation, and the parallel function's IR stays small (inlining the whole
# sampler into a parfor makes Numba's parallel passes very slow to compile).
#
# Why one chunk/fleet pair per family rather than one generic driver (as
# fxdp/samplers/_nb_drivers.py has for the samplers): the driver would take the
# release row as a first-class function, and Numba's IR inliner refuses to call
# it with *args ("Calling a closure with *args is unsupported"), so a driver
# needs one copy per parameter count.  The rows here take 3 (rr_bool, rappor),
# 4 (unary encoding, in _kernels_unary_encoding.py), 5 (rr) and 8 (geometric) parameters,
# and scalar and row outputs are stored differently: a per-arity driver would
# hold as many copies as it removes.  A closure factory is no way out either:
# its kernels never hit the on-disk cache (benchmarks/kernel_fold.md).

@_jit
def _chunk_rr_bool(state, lanes, key, device_ids, lo, hi, first_block, a, k, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, y, buf, c = _rr_bool_rd(state, _U0, _U0, a, k, ct, x[i])
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i] = y
        if want_bits:
            _store(state, buf, c)
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@_jit
def _chunk_rr(state, lanes, key, device_ids, lo, hi, first_block, t, w0, k, thresholds, ct, x, out, status,
              bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, y, buf, c = _rr_rd(state, _U0, _U0, t, w0, k, thresholds, ct, x[i])
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i] = y
        if want_bits:
            _store(state, buf, c)
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@_jit
def _chunk_rappor(state, lanes, tmp, key, device_ids, lo, hi, first_block, a, bits, ct, x, out, status,
                  bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st = _rappor_row(state, a, bits, ct, x[i], tmp)
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            for j in range(tmp.shape[0]):
                out[i, j] = tmp[j]
        if want_bits:
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@_jit
def _chunk_geometric(state, lanes, tmp, key, device_ids, lo, hi, first_block, mode, s, t, lo_b, hi_b,
                     thresholds, k, width, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st = _geo_row(state, mode, s, t, lo_b, hi_b, thresholds, k, width, x[i], tmp)
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            for j in range(tmp.shape[0]):
                out[i, j] = tmp[j]
        if want_bits:
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@_pjit
def fleet_rr_bool(key, device_ids, first_block, a, k, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_rr_bool(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                       a, k, ct, x, out, status, bits_out)


@_pjit
def fleet_rr(key, device_ids, first_block, t, w0, k, thresholds, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_rr(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  t, w0, k, thresholds, ct, x, out, status, bits_out)


@_pjit
def fleet_rappor(key, device_ids, first_block, a, bits, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        tmp = np.empty(x.shape[1], dtype=np.uint8)
        _chunk_rappor(state, lanes, tmp, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                      a, bits, ct, x, out, status, bits_out)


@_pjit
def fleet_geometric(key, device_ids, first_block, mode, s, t, lo, hi, thresholds, k, width,
                    x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        tmp = np.empty(x.shape[1], dtype=np.int64)
        _chunk_geometric(state, lanes, tmp, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK),
                         first_block, mode, s, t, lo, hi, thresholds, k, width, x, out, status,
                         bits_out)


# --------------------------------------------------------------------------
# Python driver: validation, parameter packing, error reporting

_EMPTY_U32 = np.zeros(0, dtype=np.uint32)


def check_seed(seed):
    """seed: an integer in [0, 2^256) or a bitsource.Seed -> its seed words (uint32[9]: the 8
    key words of bitsource.derive_key_nonce, then the stream version)."""
    if isinstance(seed, Seed):
        return K.seed_key_words(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed must be an integer in [0, 2^256 - 1] or a fxdp.Seed, got {seed!r}")
    return K.seed_key_words(int(seed))


def check_device_ids(device_ids, n):
    """device_ids: None (0..n-1) or n integers in [0, 2^64 - 1] -> contiguous uint64 array."""
    if device_ids is None:
        return np.arange(n, dtype=np.uint64)
    arr = np.asarray(device_ids)
    if not isinstance(device_ids, np.ndarray) and arr.dtype.kind == "f":
        arr = np.array(list(device_ids), dtype=object)     # big Python ints became floats
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"device_ids must be a 1-d sequence of {n} device ids (one per device), "
                         f"got shape {arr.shape}")
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    if arr.dtype == object:
        vals = list(arr)
        if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in vals):
            raise ValueError("device_ids must be integers in [0, 2^64 - 1]")
        if any(not 0 <= int(v) <= (1 << 64) - 1 for v in vals):
            raise ValueError("device_ids must be in [0, 2^64 - 1]")
        return np.array([int(v) for v in vals], dtype=np.uint64)
    if arr.dtype.kind == "u":
        return np.ascontiguousarray(arr, dtype=np.uint64)
    if arr.dtype.kind == "i":
        if arr.min() < 0:
            raise ValueError(f"device_ids must be in [0, 2^64 - 1], got {int(arr.min())}")
        return np.ascontiguousarray(arr, dtype=np.uint64)
    raise ValueError(f"device_ids must be integers in [0, 2^64 - 1], got dtype {arr.dtype}")


def int_array(name, values, ndim, lo, hi):
    """values as an int64 array of ndim dimensions with every entry in [lo, hi] (ints only)."""
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if arr.size == 0:                     # np.asarray([]) is float64: nothing to check
        return np.zeros(arr.shape, dtype=np.int64)
    if arr.dtype == object:
        try:
            flat = [v for v in arr.ravel()]
        except TypeError:
            raise ValueError(f"{name} must hold integers") from None
        if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in flat):
            raise ValueError(f"{name} must hold integers in [{lo}, {hi}]")
        if any(not lo <= int(v) <= hi for v in flat):
            raise ValueError(f"{name} entries must be in [{lo}, {hi}]")
        return np.array([int(v) for v in flat], dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integers in [{lo}, {hi}], got dtype {arr.dtype}")
    if arr.size:
        mn, mx = int(arr.min()), int(arr.max())
        if mn < lo or mx > hi:
            bad = mn if mn < lo else mx
            raise ValueError(f"{name} entries must be in [{lo}, {hi}], got {bad}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def bits_array(name, values, ndim):
    """0/1 (or bool) array -> uint8 array."""
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if arr.dtype == np.bool_:
        return np.ascontiguousarray(arr, dtype=np.uint8)
    return np.ascontiguousarray(int_array(name, arr, ndim, 0, 1), dtype=np.uint8)


def _finish(out, status, bits, ids, what):
    bad = np.flatnonzero(status != _OK)
    if bad.size:
        i = int(bad[0])
        try:
            raise_for_status(int(status[i]), f"{what}: device {int(ids[i])}")
        except Exception as exc:  # add the count, keep the type
            exc.args = (f"{exc.args[0]} ({bad.size} of {status.size} devices failed; "
                        "no output released)",)
            raise
    return out
