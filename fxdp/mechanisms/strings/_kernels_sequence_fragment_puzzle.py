"""Numba kernels of the Sequence Fragment Puzzle (fxdp/mechanisms/strings/sequence_fragment_puzzle.py):
the fleets (bit for bit the reference release: the position, the word hash, the fragment sketch's
release, then the word sketch's, each the Count Mean Sketch's per-device kernel) and the server's
scores of every fragment.  Integers only on the fleet paths.

* ``fleet_sfp_cms(key, ids, first_block, G, rco, fco, fshift, fk, wco, wshift, wk, fa_p, fa_q, wa_p,
  wa_q, bits, ct, x, out, status, bits_out, ftable, wtable, nb, mf)``: out uint8[n, 1 + (m_f + 2) +
  (m + 2)] (p, the fragment's j bytes and bits, the word's).
* ``fleet_sfp_hcms(key, ids, first_block, G, rco, fco, fshift, fk, wco, wshift, wk, fm, fa_q, wm,
  wa_q, bits, ct, x, out, status, bits_out)``: out uint32[n, 7] (p, j_f, l_f, b_f, j_w, l_w, b_w).
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS
from ...samplers._nb_lanes import LANES, seed_device, seed_device_ahead
from ...samplers._nb_strhash import strhash32
from .._kernels_common import CHUNK, _pos, _uniform_draw
from ._kernels_count_mean_sketch import _cms_one, _hcms_one
from ...samplers._nb_jit import float_pjit, ijit, jit, pjit



@ijit
def _fragment(state, G, rco, ct, xrow, frag):
    """(status, p): p = uniform_below(G), frag = the fragment string (3, r, x[2p] ^ r, x[2p + 1] ^
    rot4(r)) encoded (bytes past the vector read as 0)."""
    st, p = _uniform_draw(state, G, ct)
    if st == OK:
        r = np.uint8(strhash32(rco, xrow) >> np.uint32(24))
        a = np.int64(2 * p)
        frag[0] = np.uint8(3)
        frag[1] = r
        frag[2] = (xrow[a] if a < xrow.shape[0] else np.uint8(0)) ^ r
        frag[3] = (xrow[a + 1] if a + 1 < xrow.shape[0] else np.uint8(0)) ^ _rot4(r)
    return st, p


@ijit
def _rot4(r):
    return np.uint8(((r << np.uint8(4)) | (r >> np.uint8(4))) & np.uint8(0xFF))


@jit
def _chunk_sfp_cms(state, lanes, ahead, frag, key, device_ids, lo, hi, first_block, G, rco, fco, fshift, fk, wco,
                   wshift, wk, fa_p, fa_q, wa_p, wa_q, bits, ct, x, out, status, bits_out, ftable, wtable, mf):
    want_bits = bits_out.shape[0] > 0
    w0 = 3 + mf                           # the word sketch's report: out[i, w0..]
    for i in range(lo, hi):
        seed_device_ahead(state, lanes, ahead, key, device_ids, i, lo, hi, first_block, 0)
        st, p = _fragment(state, G, rco, ct, x[i], frag)
        row = out[i]
        if st == OK:
            st, jf = _cms_one(state, fco, fshift, fk, fa_p, fa_q, bits, ct, frag, row[3:w0], ftable)
            row[1] = np.uint8(np.uint64(jf) & np.uint64(0xFF))
            row[2] = np.uint8(np.uint64(jf) >> np.uint64(8))
        if st == OK:
            st, jw = _cms_one(state, wco, wshift, wk, wa_p, wa_q, bits, ct, x[i], row[w0 + 2:], wtable)
            row[w0] = np.uint8(np.uint64(jw) & np.uint64(0xFF))
            row[w0 + 1] = np.uint8(np.uint64(jw) >> np.uint64(8))
        row[0] = np.uint8(p)
        status[i] = np.uint8(st)
        if st != OK:                   # a failed device's report stays zero
            row[:] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_sfp_cms(key, device_ids, first_block, G, rco, fco, fshift, fk, wco, wshift, wk, fa_p, fa_q, wa_p, wa_q,
                  bits, ct, x, out, status, bits_out, ftable, wtable, nb, mf):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS + 16 * nb, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        ahead = np.empty((nb, 16, LANES), dtype=np.uint32)
        frag = np.empty(4, dtype=np.uint8)
        _chunk_sfp_cms(state, lanes, ahead, frag, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                       G, rco, fco, fshift, fk, wco, wshift, wk, fa_p, fa_q, wa_p, wa_q, bits, ct, x, out, status,
                       bits_out, ftable, wtable, mf)


@jit
def _chunk_sfp_hcms(state, lanes, frag, key, device_ids, lo, hi, first_block, G, rco, fco, fshift, fk, wco, wshift,
                    wk, fm, fa_q, wm, wa_q, bits, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        st, p = _fragment(state, G, rco, ct, x[i], frag)
        row = out[i]
        if st == OK:
            st = _hcms_one(state, fco, fshift, fk, fm, fa_q, bits, ct, frag, row[1:4])
        if st == OK:
            st = _hcms_one(state, wco, wshift, wk, wm, wa_q, bits, ct, x[i], row[4:7])
        row[0] = np.uint32(p)
        status[i] = np.uint8(st)
        if st != OK:
            row[:] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_sfp_hcms(key, device_ids, first_block, G, rco, fco, fshift, fk, wco, wshift, wk, fm, fa_q, wm, wa_q, bits,
                   ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        frag = np.empty(4, dtype=np.uint8)
        _chunk_sfp_hcms(state, lanes, frag, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block, G,
                        rco, fco, fshift, fk, wco, wshift, wk, fm, fa_q, wm, wa_q, bits, ct, x, out, status, bits_out)


# --- the server: the fragment sketch's score of every fragment

@float_pjit     # the server's estimate: sums the debiased (float) cell estimates of the sketch
def fragment_scores(x, coeffs, shift, rs, c0s, c1s, ps, out):
    """out[i, (a * len(c0s) + b) * len(c1s) + c] = sum_j x[ps[i], j, h_j(fragment)], the fragment of
    r = rs[a] and bytes c0s[b], c1s[c] being (r, c0 ^ r, c1 ^ rot4(r)):
    the fragment sketch's summed cell estimates of the reports of position ps[i] (x float64[G, k,
    m]) for every fragment of the given word hashes and bytes."""
    k = x.shape[1]
    n0, n1 = c0s.shape[0], c1s.shape[0]
    for idx in numba.prange(rs.shape[0] * n0):
        row = np.empty(4, np.uint8)
        cells = np.empty(k, np.int64)
        r = np.uint8(rs[idx // n0])
        row[0] = np.uint8(3)
        row[1] = r
        row[2] = np.uint8(c0s[idx % n0]) ^ r
        for c in range(n1):
            row[3] = np.uint8(c1s[c]) ^ _rot4(r)
            for j in range(k):
                cells[j] = np.int64(strhash32(coeffs[j], row) >> shift)
            col = idx * n1 + c
            for i in range(ps.shape[0]):
                s = 0.0
                for j in range(k):
                    s += x[ps[i], j, cells[j]]
                out[i, col] = s
