"""Generic drivers of the sampler kernels, one per loop shape: single draw
(``_draw<arity>``), fill (``_fill<arity>``) and fleet (``_fleet``).

Part of ``fxdp.samplers._kernels`` (which re-exports every name); the sampler
families (``_nb_uniform``, ``_nb_laplace``) bind them to their readers.
"""
from __future__ import annotations

import numba
import numpy as np

from ._nb_core import ERR_PARAM, OK, STATE_WORDS, STATUS, _I0, _load, _store
from ._nb_lanes import LANES, seed_device
from ._nb_jit import ijit

FLEET_CHUNK = 256        # devices per prange work item (one state and one lane array per item)

# --------------------------------------------------------------------------
# generic drivers, one per loop shape
#
# ``rd`` is the sampler's ``_rd_<x>`` reader, passed as a first-class
# function; every driver is ``inline="always"``, so after Numba's IR inlining
# ``rd`` resolves to the global reader and is inlined too: the compiled kernel
# is the hand-written loop it replaces.  ``ok`` is the sampler's parameter
# check, called as ``ok(*args)`` on the raw arguments after the sticky-status
# check, as the hand-written kernels did (evaluating it first, in the caller,
# compiled fill_table_sample_ct 13% slower); the typed reader parameters
# ``p0..`` follow.  ``ok`` must be a plain ``jit`` function: like the reader
# below, an ``inline="always"`` one cannot be called with star-args.
#
# Two fill kernels stay written out (see there): fill_bernoulli_dyadic (its
# prelude hoists the odd-numerator reduction) and fill_uniform_below; through
# the driver their loops ran 5% and 3.5% slower (same instructions, other
# register allocation; benchmarks/kernel_fold.md).
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

@ijit
def _draw1(rd, state, zero, ok, args, p0):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, zero
    if not ok(*args):
        return ERR_PARAM, zero
    buf, c = _load(state)
    st, v, buf, c = rd(state, buf, c, p0)
    _store(state, buf, c)
    return st, v


@ijit
def _draw2(rd, state, zero, ok, args, p0, p1):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, zero
    if not ok(*args):
        return ERR_PARAM, zero
    buf, c = _load(state)
    st, v, buf, c = rd(state, buf, c, p0, p1)
    _store(state, buf, c)
    return st, v


@ijit
def _draw4(rd, state, zero, ok, args, p0, p1, p2, p3):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, zero
    if not ok(*args):
        return ERR_PARAM, zero
    buf, c = _load(state)
    st, v, buf, c = rd(state, buf, c, p0, p1, p2, p3)
    _store(state, buf, c)
    return st, v


@ijit
def _fill1(rd, state, out, ok, args, p0):
    """(status, count_done): len(out) draws of rd into out, the bit buffer in registers."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not ok(*args):
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


@ijit
def _fill2(rd, state, out, ok, args, p0, p1):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not ok(*args):
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


@ijit
def _fill4(rd, state, out, ok, args, p0, p1, p2, p3):
    st = np.int64(state[STATUS])
    if st != OK:
        return st, _I0
    if not ok(*args):
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


@ijit
def _fleet(fill, seed_key_words, device_ids, stream, draws_per_device, out, status_out, params):
    """One keyed stream per device, in parallel (inline it into a ``parallel=True`` kernel):
    device i runs ``fill(state, *params, out[i, :draws_per_device])``.  Devices go in chunks of
    FLEET_CHUNK; within one, the first keystream blocks of LANES devices are computed at once
    (``_nb_lanes``), which leaves every draw, status and bit count as the scalar path has it."""
    n = device_ids.shape[0]
    for ch in numba.prange((n + FLEET_CHUNK - 1) // FLEET_CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        lo = ch * FLEET_CHUNK
        hi = min(n, lo + FLEET_CHUNK)
        for i in range(lo, hi):
            seed_device(state, lanes, seed_key_words, device_ids, i, lo, hi, 0, stream)
            st, _ = fill(state, *params, out[i, :draws_per_device])
            status_out[i] = st
