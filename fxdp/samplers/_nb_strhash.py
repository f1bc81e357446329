"""Numba twin of the keyed string hash family (fxdp.strhash, the reference; csrc/fxdp_strhash.c):
the coefficients of a hash index from ChaCha20, and h = (b + sum_i a_i x_i) mod 2^32 over rows of
encoded strings (fxdp.strhash.encode: the length, the bytes, zero padding)."""
from __future__ import annotations

import numpy as np

from ..strhash import TAG
from ._nb_core import chacha20_block
from ._nb_jit import jit, jit_nrt

_TAG = np.uint32(TAG)


SCRATCH_WORDS = 19


@jit
def strhash_coefficients(key, j, max_length, out, scratch):
    """out[0 .. max_length + 2) = (b, a_0, ..., a_L) of hash index j: keystream words of
    ChaCha20(key uint32[8], counter 0, 1, ..., nonce (j, max_length, TAG)); scratch is
    uint32[SCRATCH_WORDS] (the kernels allocate nothing)."""
    nonce = scratch[:3]
    blk = scratch[3:19]
    nonce[0] = np.uint32(j)
    nonce[1] = np.uint32(max_length)
    nonce[2] = _TAG
    n = max_length + 2
    ctr = 0
    i = 0
    while i < n:
        chacha20_block(key, ctr, nonce, blk)
        for w in range(16):
            if i < n:
                out[i] = blk[w]
                i += 1
        ctr += 1


@jit_nrt
def strhash_table(key, hashes, max_length):
    """uint32[hashes, max_length + 2]: every hash index's coefficients."""
    out = np.empty((hashes, max_length + 2), np.uint32)
    scratch = np.empty(SCRATCH_WORDS, np.uint32)
    for j in range(hashes):
        strhash_coefficients(key, j, max_length, out[j], scratch)
    return out


@jit
def strhash32(coeffs, x):
    """(b + sum_i a_i x_i) mod 2^32 for one encoded string x (uint8[L + 1])."""
    acc = np.uint32(coeffs[0])
    for i in range(x.shape[0]):
        acc = np.uint32(acc + np.uint32(coeffs[i + 1]) * np.uint32(x[i]))
    return acc


@jit
def strhash32_rows(coeffs, rows, out):
    """out[r] = strhash32(coeffs, rows[r]) for every row of encoded strings (uint8[n, L + 1])."""
    for r in range(rows.shape[0]):
        out[r] = strhash32(coeffs, rows[r])
