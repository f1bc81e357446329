"""Layer 4, Numba kernels of basic one-time RAPPOR (fxdp.mechanisms.oracles.rappor is the
reference; csrc/fxdp_mech_rappor.c the C).

* ``release_rappor(state, a, bits, ct, x, out) -> status`` (x, out: uint8[k]; every bit flipped
  with probability a / 2^bits)
* ``fleet_rappor(key, ids, first_block, a, bits, ct, x, out, status, bits_out, table)`` (table:
  ``fxdp.samplers._nb_run.dyadic_run_table(a, bits)``; the lazy form reads the flips as one run,
  a byte of the stream at a time, the same bits as flip by flip)
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._nb_lanes import LANES, fast_bits_used, restart_device, start_device_fast
from ...samplers._kernels import (ERR_ENTROPY, ERR_PARAM, OK, STATE_WORDS, STATUS, _load,
                                  _rd_dyadic_ct, _store)
from ...samplers._nb_run import _rd_dyadic_run, run_table
from .._kernels_common import CHUNK, _pos
from ...samplers._nb_jit import ijit, jit, jit_nrt, pjit


# --------------------------------------------------------------------------
# one release, unchecked (typed arguments; the callers validate).  The bit
# buffer travels in (buf, c) as in the sampler kernels: _x_rd(state, buf, c,
# ...) -> (status, value, buf, c); on failure (buf, c) are those before the
# failed fetch, so storing them keeps the stream position the reference has.

@ijit
def _rappor_row(state, a, bits, ct, xrow, outrow, table):
    """outrow[i] = xrow[i] XOR Bernoulli(a/2^bits), i = 0..k-1; returns the status.  Lazy: one run
    read a byte of the stream at a time (table = dyadic_run_table(a, bits); the same bits as bit
    by bit).  On failure outrow holds part of the outputs (the callers discard them)."""
    buf, c = _load(state)
    if ct:
        for i in range(xrow.shape[0]):
            st, b, buf, c = _rd_dyadic_ct(state, buf, c, a, bits)
            if st != OK:
                _store(state, buf, c)
                return st
            outrow[i] = xrow[i] ^ np.uint8(1 if b else 0)
        _store(state, buf, c)
        return OK
    st, buf, c = _rd_dyadic_run(state, buf, c, table, a, bits, outrow, 0, xrow.shape[0])
    _store(state, buf, c)
    if st == OK:
        for i in range(xrow.shape[0]):
            outrow[i] ^= xrow[i]
    return st


# --------------------------------------------------------------------------
# public single releases (state status first; outputs only on success)

@jit_nrt
def release_rappor(state, a, bits, ct, x, out):
    """status; out[:] = the k released bits of x (uint8 0/1 arrays), written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if not K._ok_dyadic(a, bits) or x.shape[0] != out.shape[0]:
        return ERR_PARAM
    tmp = np.empty(x.shape[0], dtype=np.uint8)
    st = _rappor_row(state, np.uint64(a), np.uint64(bits), ct, x, tmp, run_table(np.uint64(a), np.uint64(bits)))
    if st == OK:
        out[:] = tmp
    return st


# --------------------------------------------------------------------------
# fleet: devices in parallel, CHUNK at a time (fxdp.mechanisms._kernels_common)

@jit
def _chunk_rappor(state, lanes, table, key, device_ids, lo, hi, first_block, a, bits, ct, x, out, status,
                  bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st = _rappor_row(state, a, bits, ct, x[i], out[i], table)
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st != OK:                   # a failed device's row stays zero, as before it was drawn
            out[i, :] = 0
        if want_bits:
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@pjit
def fleet_rappor(key, device_ids, first_block, a, bits, ct, x, out, status, bits_out, table):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_rappor(state, lanes, table, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                      a, bits, ct, x, out, status, bits_out)
