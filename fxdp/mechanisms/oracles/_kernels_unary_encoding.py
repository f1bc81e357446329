"""Numba kernels of the unary-encoding family (fxdp/mechanisms/oracles/unary_encoding.py).

Each kernel reads exactly the bits of ``UnaryEncoding.release``: one
Bernoulli(a_i / 2^bits) per item, i = 0..d-1 in order, a_i = a_p for the
input's item and a_q for the others, lazy (``_rd_dyadic``; the a_q items as runs read a byte
at a time, ``fxdp.samplers._nb_run``, the same bits) or constant time (``_rd_dyadic_ct``,
exactly ``bits`` bits each).  Bit-identical to
csrc/fxdp_mech_unary_encoding.c; the fleet pattern (chunks of devices, one state array per
chunk, statuses and bit positions) is that of ``fxdp.mechanisms._kernels_common``.  Integers only.

* ``release_unary_encoding(state, a_p, a_q, bits, ct, x, out) -> status``
  (out: uint8[d], written only on success)
* ``fleet_unary_encoding(key, ids, first_block, a_p, a_q, bits, ct, x, out, status, bits_out, table, nb)``
  (x: int64[n] items, out: uint8[n, d], table: ``dyadic_run_table(a_q, bits)``, nb: keystream
  blocks computed ahead across devices, ``fxdp.samplers._nb_lanes.ahead_blocks``)
* ``fleet_unary_encoding_counts(key, ids, first_block, a_p, a_q, bits, ct, table, nb, x, counts, status)``
  (counts: int64[w, d], zero; the devices of worker row r add their bits to counts[r]: the
  column sums of ``fleet_unary_encoding``'s out over devices with status OK, in O(w d) memory)
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import OK, STATE_WORDS, STATUS, _load, _rd_dyadic, _rd_dyadic_ct, _store
from ...samplers._nb_run import _rd_dyadic_run, run_table
from .._kernels_common import CHUNK, _pos
from ...samplers._nb_lanes import LANES, seed_device_ahead
from ...samplers._nb_jit import ijit, jit, jit_nrt, pjit



@ijit
def _ue_row(state, a_p, a_q, bits, ct, x, outrow, table):
    """outrow[i] = Bernoulli((i == x ? a_p : a_q) / 2^bits), i = 0..d-1; returns the status.
    Lazy: the items other than x as runs a byte of the stream at a time (table =
    dyadic_run_table(a_q, bits); the same bits as item by item).  On failure outrow holds part of
    the outputs (the callers discard them)."""
    buf, c = _load(state)
    if ct:
        for i in range(outrow.shape[0]):
            st, b, buf, c = _rd_dyadic_ct(state, buf, c, a_p if i == x else a_q, bits)
            if st != OK:
                _store(state, buf, c)
                return st
            outrow[i] = np.uint8(1 if b else 0)
        _store(state, buf, c)
        return OK
    st, buf, c = _rd_dyadic_run(state, buf, c, table, a_q, bits, outrow, 0, x)
    if st == OK:
        st, b, buf, c = _rd_dyadic(state, buf, c, a_p, bits)
        if st == OK:
            outrow[x] = np.uint8(1 if b else 0)
            st, buf, c = _rd_dyadic_run(state, buf, c, table, a_q, bits, outrow, x + 1, outrow.shape[0])
    _store(state, buf, c)
    return st


@jit_nrt
def release_unary_encoding(state, a_p, a_q, bits, ct, x, out):
    """status; out[:] = the d report bits for item x, written only on success."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st
    if not (K._ok_dyadic(a_p, bits) and K._ok_dyadic(a_q, bits)) or x < 0 or x >= out.shape[0]:
        return K.ERR_PARAM
    tmp = np.empty(out.shape[0], dtype=np.uint8)
    st = _ue_row(state, np.uint64(a_p), np.uint64(a_q), np.uint64(bits), ct, np.int64(x), tmp,
                 run_table(np.uint64(a_q), np.uint64(bits)))
    if st == OK:
        out[:] = tmp
    return st


@jit
def _chunk_ue(state, lanes, ahead, table, key, device_ids, lo, hi, first_block, a_p, a_q, bits, ct, x, out, status,
              bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        st = _ue_row(state, a_p, a_q, bits, ct, x[i], out[i], table)
        status[i] = np.uint8(st)
        if st != OK:                   # a failed device's row stays zero, as before it was drawn
            out[i, :] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_unary_encoding(key, device_ids, first_block, a_p, a_q, bits, ct, x, out, status, bits_out, table, nb):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        _chunk_ue(state, lanes, ahead, table, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a_p, a_q, bits, ct, x, out, status, bits_out)


@jit
def _chunk_ue_counts(state, lanes, ahead, tmp, table, key, device_ids, lo, hi, first_block, a_p, a_q, bits, ct, x, row,
                     status):
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        st = _ue_row(state, a_p, a_q, bits, ct, x[i], tmp, table)
        status[i] = np.uint8(st)
        if st == OK:
            for j in range(tmp.shape[0]):
                row[j] += np.int64(tmp[j])


@pjit
def fleet_unary_encoding_counts(key, device_ids, first_block, a_p, a_q, bits, ct, table, nb, x, counts, status):
    # the same device chunks as fleet_unary_encoding (so the same lane groups); worker row r
    # takes chunks r, r + w, r + 2w, ... and is the only writer of counts[r]
    n = device_ids.shape[0]
    nch = (n + CHUNK - 1) // CHUNK
    w = counts.shape[0]
    for r in numba.prange(w):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        tmp = np.empty(counts.shape[1], dtype=np.uint8)
        for ch in range(r, nch, w):
            _chunk_ue_counts(state, lanes, ahead, tmp, table, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK),
                             first_block,
                             a_p, a_q, bits, ct, x, counts[r], status)
