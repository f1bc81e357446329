"""Numba kernels of the Count Mean Sketch (fxdp/mechanisms/strings/count_mean_sketch.py).

Each device reads exactly the bits of ``CountMeanSketch.release``: j = uniform_below(k) (or the
fixed-budget ``uniform_below_ct`` in constant time), then unary encoding's row for the item
h_j(s) over m items (``_ue_row``, fxdp/mechanisms/oracles/_kernels_unary_encoding.py, the same
bits as ``make_unary_encoding(m, eps, optimized=False)``).  The hash is the Numba twin of
fxdp.strhash over the encoded strings (length, bytes, zero padding).  Integers only.

* ``fleet_count_mean_sketch(key, ids, first_block, coeffs, shift, k, a_p, a_q, bits, ct, x, out,
  status, bits_out, table, nb)``: coeffs uint32[k, L + 2] (``strhash_table``), shift = 32 - log2 m,
  x uint8[n, L + 1] encoded strings, out uint8[n, m + 2] the device form (j & 0xFF, j >> 8, the m
  bits; csrc/fxdp_mech_count_mean_sketch.c).
* ``fleet_hadamard_count_mean_sketch(key, ids, first_block, coeffs, shift, k, m, a_q, bits, ct, x, out,
  status, bits_out)``: HCMS, the bits of ``HadamardCountMeanSketch.release`` (j, the row l,
  then one Bernoulli(a_q / 2^bits)); out uint32[n, 3] = (j, l, bit).
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS, _load, _rd_dyadic, _rd_dyadic_ct, _store
from ...samplers._nb_lanes import LANES, seed_device, seed_device_ahead
from ...samplers._nb_strhash import strhash32
from .._kernels_common import CHUNK, _pos, _uniform_draw
from ..oracles._kernels_unary_encoding import _ue_row
from ...samplers._nb_jit import ijit, jit, pjit



@ijit
def _cms_one(state, coeffs, shift, k, a_p, a_q, bits, ct, xrow, outrow, table):
    """(status, j): one device's release into outrow (the bits of CountMeanSketch.release)."""
    st, j = _uniform_draw(state, k, ct)
    if st == OK:
        cell = np.int64(strhash32(coeffs[np.int64(j)], xrow) >> shift)
        st = _ue_row(state, a_p, a_q, bits, ct, cell, outrow, table)
    return st, j


@jit
def _chunk_cms(state, lanes, ahead, table, key, device_ids, lo, hi, first_block, coeffs, shift, k, a_p, a_q, bits,
               ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        st, j = _cms_one(state, coeffs, shift, k, a_p, a_q, bits, ct, x[i], out[i, 2:], table)
        out[i, 0] = np.uint8(np.uint64(j) & np.uint64(0xFF))
        out[i, 1] = np.uint8(np.uint64(j) >> np.uint64(8))
        status[i] = np.uint8(st)
        if st != OK:                   # a failed device's report stays zero
            out[i, :] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_count_mean_sketch(key, device_ids, first_block, coeffs, shift, k, a_p, a_q, bits, ct, x, out, status,
                            bits_out, table, nb):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        _chunk_cms(state, lanes, ahead, table, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                   coeffs, shift, k, a_p, a_q, bits, ct, x, out, status, bits_out)


@ijit
def _hcms_one(state, coeffs, shift, k, m, a_q, bits, ct, xrow, outrow):
    """status; one device's HCMS release (the bits of HadamardCountMeanSketch.release): outrow[0..3)
    = (j, l, bit), written only on success."""
    st, j = _uniform_draw(state, k, ct)
    l = np.uint64(0)
    if st == OK:
        st, l = _uniform_draw(state, m, ct)
    buf, c = _load(state)
    if st == OK:
        cell = strhash32(coeffs[np.int64(j)], xrow) >> shift
        w = _parity32(np.uint32(l) & cell)
        if ct:
            st, f, buf, c = _rd_dyadic_ct(state, buf, c, a_q, bits)
        else:
            st, f, buf, c = _rd_dyadic(state, buf, c, a_q, bits)
        if st == OK:
            outrow[0], outrow[1], outrow[2] = np.uint32(j), np.uint32(l), np.uint32(w ^ (1 if f else 0))
    _store(state, buf, c)
    return st


@jit
def _chunk_hcms(state, lanes, key, device_ids, lo, hi, first_block, coeffs, shift, k, m, a_q, bits, ct, x, out, status,
                bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        st = _hcms_one(state, coeffs, shift, k, m, a_q, bits, ct, x[i], out[i])
        status[i] = np.uint8(st)
        if st != OK:
            out[i, 0], out[i, 1], out[i, 2] = np.uint32(0), np.uint32(0), np.uint32(0)
        if want_bits:
            bits_out[i] = _pos(state)


@jit
def _parity32(v):
    v ^= v >> np.uint32(16)
    v ^= v >> np.uint32(8)
    v ^= v >> np.uint32(4)
    v ^= v >> np.uint32(2)
    v ^= v >> np.uint32(1)
    return np.uint8(v & np.uint32(1))


@pjit
def fleet_hadamard_count_mean_sketch(key, device_ids, first_block, coeffs, shift, k, m, a_q, bits, ct, x, out,
                                     status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_hcms(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block, coeffs, shift, k, m,
                    a_q, bits, ct, x, out, status, bits_out)


# --- the server's side: the sketch from the reports, the candidates' cells

@jit
def sketch_counts(js, bits, counts):
    """counts[j][u] += bits[i][u] for every report i of index j = js[i] (counts int64[k, m])."""
    for i in range(js.shape[0]):
        row = counts[np.int64(js[i])]
        b = bits[i]
        for u in range(b.shape[0]):
            row[u] += np.int64(b[u])


@jit
def sketch_rows(rows, counts, n_j):
    """The sketch of device-form CMS reports rows uint8[n, m + 2] (j & 0xFF, j >> 8, the m bits):
    counts[j] += the bits, n_j[j] += 1.  Returns -1, or the first row whose j is >= k or whose bits
    are not 0/1 (the sketch then holds the rows before it)."""
    k = counts.shape[0]
    m = counts.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        j = np.int64(r[0]) | (np.int64(r[1]) << 8)
        if j >= k:
            return i
        row = counts[j]
        seen = np.uint8(0)
        for u in range(m):                 # one pass: add, and OR the bits to find one above 1
            b = r[u + 2]
            row[u] += np.int64(b)
            seen |= b
        if seen > np.uint8(1):
            return i                       # the caller raises: the partial sketch is discarded
        n_j[j] += 1
    return -1


@jit
def hadamard_sign_rows(rows, signs, n_j):
    """The HCMS sketch of device-form reports rows uint32[n, 3] = (j, l, b): signs[j][l] += 1 - 2 b,
    n_j[j] += 1.  Returns -1, or the first row out of range (j >= k, l >= m or b > 1)."""
    k = signs.shape[0]
    m = signs.shape[1]
    for i in range(rows.shape[0]):
        j, l, b = np.int64(rows[i, 0]), np.int64(rows[i, 1]), np.int64(rows[i, 2])
        if j >= k or l >= m or b > 1:
            return i
        signs[j, l] += np.int64(1) - np.int64(2) * b
        n_j[j] += 1
    return -1


@jit
def hadamard_signs(js, ls, bs, signs):
    """signs[j][l] += 1 - 2 b for every report (j, l, b) (signs int64[k, m])."""
    for i in range(js.shape[0]):
        signs[np.int64(js[i]), np.int64(ls[i])] += np.int64(1) - np.int64(2) * np.int64(bs[i])


@jit
def candidate_cells(coeffs, rows, shift, out):
    """out[c][j] = h_j(candidate c) (rows: encoded candidates uint8[C, L + 1]; out int64[C, k])."""
    for c in range(rows.shape[0]):
        for j in range(coeffs.shape[0]):
            out[c, j] = np.int64(strhash32(coeffs[j], rows[c]) >> shift)


# --- fleets that keep only the sketch (O(w k m) memory, w workers)

@jit
def _chunk_cms_sketch(state, lanes, ahead, table, key, device_ids, lo, hi, first_block, coeffs, shift, k, a_p, a_q,
                      bits, ct, x, tmp, counts, n_j, status):
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        st, j = _cms_one(state, coeffs, shift, k, a_p, a_q, bits, ct, x[i], tmp, table)
        status[i] = np.uint8(st)
        if st == OK:
            row = counts[np.int64(j)]
            for u in range(tmp.shape[0]):
                row[u] += np.int64(tmp[u])
            n_j[np.int64(j)] += 1


@pjit
def fleet_count_mean_sketch_counts(key, device_ids, first_block, coeffs, shift, k, a_p, a_q, bits, ct, x, counts, n_j,
                                   status, table, nb):
    """The sketch of fleet_count_mean_sketch's reports: worker row r adds its devices' bits to
    counts[r] (int64[w, k, m], zero) and their indices to n_j[r] (int64[w, k]); the same device
    chunks, so the same bits."""
    n = device_ids.shape[0]
    nch = (n + CHUNK - 1) // CHUNK
    w = counts.shape[0]
    for r in numba.prange(w):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        tmp = np.empty(counts.shape[2], dtype=np.uint8)
        for ch in range(r, nch, w):
            _chunk_cms_sketch(state, lanes, ahead, table, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK),
                              first_block, coeffs, shift, k, a_p, a_q, bits, ct, x, tmp, counts[r], n_j[r], status)
