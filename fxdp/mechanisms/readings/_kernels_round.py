"""Numba kernel of the numeric mechanisms' randomized rounding (fxdp/mechanisms/readings/_numeric.py,
``randomized_round``): off-grid readings -> grid indices, drawn from each device's rounding
stream (the keyed stream (seed, device id, ROUND_STREAM)), bit-identical to the reference.

* ``fleet_round(key, ids, first_block, frac_bits, ct, fine, out, status, bits_out)``
  (fine: int64[n, d] fixed-point positions i 2^frac_bits + f; out: int64[n, d] grid indices)

Per device, attribute by attribute in order: i = fine >> frac_bits, f = the low frac_bits bits;
if f != 0, i += Bernoulli(f / 2^frac_bits) (lazy ``_rd_dyadic``, or ``_rd_dyadic_ct``: exactly
frac_bits bits); an on-grid reading draws nothing.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS, _load, _rd_dyadic, _rd_dyadic_ct, _store
from ...samplers._nb_lanes import LANES, seed_device
from .._kernels_common import CHUNK, _pos
from ...samplers._nb_jit import jit, pjit



@jit
def _chunk_round(state, lanes, key, device_ids, lo, hi, first_block, stream, frac_bits, ct, fine, out, status,
                 bits_out):
    want_bits = bits_out.shape[0] > 0
    mask = (np.int64(1) << frac_bits) - 1
    for n in range(lo, hi):
        seed_device(state, lanes, key, device_ids, n, lo, hi, first_block, stream)
        st = OK
        for a in range(fine.shape[1]):
            i = fine[n, a] >> frac_bits
            f = fine[n, a] & mask
            if f != 0:
                buf, c = _load(state)
                if ct:
                    st, up, buf, c = _rd_dyadic_ct(state, buf, c, np.uint64(f), np.uint64(frac_bits))
                else:
                    st, up, buf, c = _rd_dyadic(state, buf, c, np.uint64(f), np.uint64(frac_bits))
                _store(state, buf, c)
                if st != OK:
                    break
                if up:
                    i += 1
            out[n, a] = i
        status[n] = np.uint8(st)
        if want_bits:
            bits_out[n] = _pos(state)


@pjit
def fleet_round(key, device_ids, first_block, stream, frac_bits, ct, fine, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_round(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block, stream,
                     frac_bits, ct, fine, out, status, bits_out)
