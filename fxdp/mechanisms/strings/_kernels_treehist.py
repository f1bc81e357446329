"""Numba kernels of TreeHist (fxdp/mechanisms/strings/treehist.py): the fleet, bit for bit the
reference release (the Prefix Extending Method's per-device kernel, then the Hadamard Count Mean
Sketch's).  Integers only.

``fleet_treehist(key, ids, first_block, groups, levels, pco, a_p, w, lbits, g, prime, wco, wshift, k,
m, a_q, bits, ct, x, out, status, bits_out)``: out int64[n, 7] = (t, a, b, y, j, l, bit).
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS
from ...samplers._nb_lanes import LANES, seed_device
from .._kernels_common import CHUNK, _pos
from ._kernels_count_mean_sketch import _hcms_one
from ._kernels_prefix_extending import _pem_one
from ...samplers._nb_jit import jit, pjit



@jit
def _chunk_treehist(state, lanes, tmp, word, key, device_ids, lo, hi, first_block, groups, levels, pco, a_p, w, lbits,
                    g, prime, wco, wshift, k, m, a_q, bits, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        st, t, a, b, y = _pem_one(state, groups, levels, pco, a_p, w, lbits, g, prime, ct, x[i], tmp)
        if st == OK:
            st = _hcms_one(state, wco, wshift, k, m, a_q, bits, ct, x[i], word)
        status[i] = np.uint8(st)
        if st == OK:
            out[i, 0], out[i, 1], out[i, 2], out[i, 3] = np.int64(t), np.int64(a), np.int64(b), np.int64(y)
            out[i, 4], out[i, 5], out[i, 6] = np.int64(word[0]), np.int64(word[1]), np.int64(word[2])
        else:
            out[i, :] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_treehist(key, device_ids, first_block, groups, levels, pco, a_p, w, lbits, g, prime, wco, wshift, k, m, a_q,
                   bits, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        tmp = np.empty(x.shape[1] + 1, dtype=np.uint8)
        word = np.empty(3, dtype=np.uint32)
        _chunk_treehist(state, lanes, tmp, word, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                        groups, levels, pco, a_p, w, lbits, g, prime, wco, wshift, k, m, a_q, bits, ct, x, out,
                        status, bits_out)
