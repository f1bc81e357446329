"""Numba kernels of the Hadamard-response family (fxdp/mechanisms/oracles/hadamard_response.py).

Each kernel reads exactly the bits of ``HadamardResponse.release``: y = the next log2 K
bits (MSB first), then one Bernoulli(a_p / 2^bits), lazy (``_rd_dyadic``) or constant time
(``_rd_dyadic_ct``, exactly ``bits`` bits); then y ^= lowbit(x + 1) when
[popcount((x + 1) & y) even] != b.  Bit-identical to csrc/fxdp_mech_hadamard_response.c; the fleet pattern
(chunks of devices, one state array per chunk, statuses and bit positions) is that of
``fxdp.mechanisms._kernels_common``.  Integers only.

* ``release_hadamard_response(state, a_p, bits, log2k, ct, x) -> (status, y)``
  (y meaningful only on success)
* ``fleet_hadamard_response(key, ids, first_block, a_p, bits, log2k, ct, x, out, status, bits_out)``
  (x: int64[n] items, out: int64[n] reports)
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import OK, STATUS, STATE_WORDS, _load, _rd_bits64, _rd_dyadic, _rd_dyadic_ct, _store
from .._kernels_common import CHUNK, _pos
from ...samplers._nb_lanes import LANES, fast_bits_used, restart_device, start_device_fast
from ...samplers._nb_jit import ijit, jit, pjit


_U0 = np.uint64(0)
_U1 = np.uint64(1)


@ijit
def _parity(v):
    """popcount(v) & 1 for v < 2^32, by xor folding (as the C)."""
    v = v ^ (v >> np.uint64(16))
    v = v ^ (v >> np.uint64(8))
    v = v ^ (v >> np.uint64(4))
    v = v ^ (v >> np.uint64(2))
    v = v ^ (v >> np.uint64(1))
    return v & _U1


@ijit
def _hr_one(state, a_p, bits, log2k, ct, x):
    """(status, y) for item x: y, b, then the toggle (module docstring)."""
    buf, c = _load(state)
    st, y, buf, c = _rd_bits64(state, buf, c, log2k)
    if st != OK:
        _store(state, buf, c)
        return st, _U0
    if ct:
        st, b, buf, c = _rd_dyadic_ct(state, buf, c, a_p, bits)
    else:
        st, b, buf, c = _rd_dyadic(state, buf, c, a_p, bits)
    _store(state, buf, c)
    if st != OK:
        return st, _U0
    u = np.uint64(x) + _U1
    low = u & (~u + _U1)
    inc = _parity(u & y) ^ _U1                          # 1 iff y in C_x
    flip = inc ^ (_U1 if b else _U0)
    y = y ^ (low & (_U0 - flip))
    return OK, y


@jit
def release_hadamard_response(state, a_p, bits, log2k, ct, x):
    """(status, y); y is 0 unless the status is OK."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, np.int64(0)
    if (not K._ok_dyadic(a_p, bits)) or log2k < 1 or log2k > 32 or x < 0 or x >= (np.int64(1) << log2k) - 1:
        return K.ERR_PARAM, np.int64(0)
    st, y = _hr_one(state, np.uint64(a_p), np.uint64(bits), np.uint64(log2k), ct, np.int64(x))
    return st, np.int64(y)


@jit
def _chunk_hr(state, lanes, key, device_ids, lo, hi, first_block, a_p, bits, log2k, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        # the fast start of the common fleets': a release that runs out of the first block's
        # words is run again on the keyed state, so every output, status and position is the same
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, y = _hr_one(state, a_p, bits, log2k, ct, x[i])
            if not (fast and st == K.ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i] = np.int64(y)
        if want_bits:
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@pjit
def fleet_hadamard_response(key, device_ids, first_block, a_p, bits, log2k, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_hr(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a_p, bits, log2k, ct, x, out, status, bits_out)
