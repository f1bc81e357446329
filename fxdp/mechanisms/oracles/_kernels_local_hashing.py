"""Numba kernels of the local-hashing family (fxdp/mechanisms/oracles/local_hashing.py).

Each release kernel reads exactly the bits of ``LocalHashing.release``: a = 1 +
uniform_below(P - 1), b = uniform_below(P), then lazy: s = uniform_below(g - 1) and one lazy
Bernoulli(a_p / 2^bits); constant time: U = the next ``bits`` bits, offset 0 if U < a_p else
1 + (U - a_p) // w (the C form counts the same offset with a branch-free threshold scan; the
simulation need not be constant time).  Bit-identical to csrc/fxdp_mech_local_hashing.c; the fleet pattern
(chunks of devices, one state array per chunk, statuses and bit positions) is that of
``fxdp.mechanisms._kernels_common``.  Integers only.

* ``release_local_hashing(state, a_p, w, bits, g, prime, ct, x) -> (status, a, b, y)``
* ``fleet_local_hashing(key, ids, first_block, a_p, w, bits, g, prime, ct, x, out, status, bits_out)``
  (x: int64[n] items, out: int64[n, 3] reports (a, b, y))
* ``support_counts(a, b, y, d, g, prime) -> int64[d]``: the server's support counts, O(n d)
* ``support_counts_blocked(a, b, y, d, g, prime) -> int64[d]``: the same counts, devices in
  blocks of ``_BLOCK`` with the item loop outside, so the per-device steps are branch-free and
  run in SIMD lanes (several times faster at large d; ``support_counts`` stays the reference)
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._kernels import (OK, STATUS, STATE_WORDS, _load, _rd_bits64, _rd_dyadic, _rd_uniform_below,
                                  _store)
from ...samplers._nb_lanes import LANES, fast_bits_used, restart_device, start_device_fast
from .._kernels_common import CHUNK, _pos
from ...samplers._nb_jit import ijit, jit, pjit


_U0 = np.uint64(0)
_U1 = np.uint64(1)
_COUNT_CHUNKS = 64         # report chunks of support_counts (one count row each)


@ijit
def _lh_one(state, a_p, w, bits, g, prime, ct, x):
    """(status, a, b, y) for item x (module docstring)."""
    buf, c = _load(state)
    st, a, buf, c = _rd_uniform_below(state, buf, c, prime - _U1)
    if st != OK:
        _store(state, buf, c)
        return st, _U0, _U0, _U0
    a = a + _U1
    st, b, buf, c = _rd_uniform_below(state, buf, c, prime)
    if st != OK:
        _store(state, buf, c)
        return st, _U0, _U0, _U0
    hx = ((a * np.uint64(x) + b) % prime) % g
    if ct:
        st, u, buf, c = _rd_bits64(state, buf, c, bits)
        _store(state, buf, c)
        if st != OK:
            return st, _U0, _U0, _U0
        t = _U0 if u < a_p else _U1 + (u - a_p) // w
        y = (hx + t) % g
    else:
        st, s, buf, c = _rd_uniform_below(state, buf, c, g - _U1)
        if st != OK:
            _store(state, buf, c)
            return st, _U0, _U0, _U0
        st, honest, buf, c = _rd_dyadic(state, buf, c, a_p, bits)
        _store(state, buf, c)
        if st != OK:
            return st, _U0, _U0, _U0
        y = hx if honest else (hx + _U1 + s) % g
    return OK, a, b, y


@jit
def release_local_hashing(state, a_p, w, bits, g, prime, ct, x):
    """(status, a, b, y); a, b, y are 0 unless the status is OK."""
    st = np.int64(state[STATUS])
    if st != OK:
        return st, np.int64(0), np.int64(0), np.int64(0)
    if (not K._ok_dyadic(a_p, bits)) or bits < 1 or g < 2 or g > prime or prime < 3 or x < 0 or x >= prime:
        return K.ERR_PARAM, np.int64(0), np.int64(0), np.int64(0)
    a_p, w, g = np.uint64(a_p), np.uint64(w), np.uint64(g)
    if w < _U1 or a_p <= w or w > (_U1 << np.uint64(bits)) // g or a_p + (g - _U1) * w != (_U1 << np.uint64(bits)):
        return K.ERR_PARAM, np.int64(0), np.int64(0), np.int64(0)
    st, a, b, y = _lh_one(state, a_p, w, np.uint64(bits), g, np.uint64(prime), ct, np.int64(x))
    return st, np.int64(a), np.int64(b), np.int64(y)


@jit
def _chunk_lh(state, lanes, key, device_ids, lo, hi, first_block, a_p, w, bits, g, prime, ct, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        # the fast start of the common fleets': a release that runs out of the first block's
        # words is run again on the keyed state, so every output, status and position is the same
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, a, b, y = _lh_one(state, a_p, w, bits, g, prime, ct, x[i])
            if not (fast and st == K.ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i, 0] = np.int64(a)
            out[i, 1] = np.int64(b)
            out[i, 2] = np.int64(y)
        if want_bits:
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@pjit
def fleet_local_hashing(key, device_ids, first_block, a_p, w, bits, g, prime, ct, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_lh(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                  a_p, w, bits, g, prime, ct, x, out, status, bits_out)


@jit
def _count_rows(a, b, y, lo, hi, d, g, prime, row):
    """row[v] += #{i in [lo, hi) : h_{a_i, b_i}(v) = y_i}.  z = (a v + b) mod P and r = z mod g
    are carried from v to v + 1 (z += a, minus P on a wrap; r likewise mod g): additions only."""
    p_mod_g = prime % g
    for i in range(lo, hi):
        ai, z, yi = a[i], b[i], y[i]
        a_mod_g = ai % g
        r = z % g
        for v in range(d):
            if r == yi:
                row[v] += 1
            z += ai
            r += a_mod_g
            if r >= g:
                r -= g
            if z >= prime:
                z -= prime
                r -= p_mod_g
                if r < 0:
                    r += g


@pjit
def _support_counts(a, b, y, d, g, prime, rows):
    n = a.shape[0]
    nch = rows.shape[0]
    size = (n + nch - 1) // nch
    for ch in numba.prange(nch):
        _count_rows(a, b, y, ch * size, min(n, (ch + 1) * size), d, g, prime, rows[ch])


def support_counts(a, b, y, d, g, prime):
    """int64[d]: S_v = #{i : ((a_i v + b_i) mod prime) mod g = y_i} (a, b, y: int64[n], validated)."""
    # one count row per chunk of reports, at most 2^25 counts in all
    nch = max(1, min(_COUNT_CHUNKS, len(a), (1 << 25) // int(d)))
    rows = np.zeros((nch, int(d)), dtype=np.int64)
    _support_counts(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64), np.asarray(y, dtype=np.int64),
                    np.int64(d), np.int64(g), np.int64(prime), rows)
    return rows.sum(axis=0)


# --------------------------------------------------------------------------
# blocked support counts: the same S_v, item loop outside, devices inside

_BLOCK = 2048              # devices per block: 5 uint32 arrays of 8 KiB, within L1 + L2
_BLOCKED_MAX_PRIME = 1 << 31   # z + a < 2^32 must hold in uint32


@jit
def _count_block(a, b, y, lo, hi, d, g, prime, row, z, r, av, am, yb):
    """row[v] += #{i in [lo, hi) : h_{a_i, b_i}(v) = y_i} for v in [0, d), as ``_count_rows``, with
    the devices of the block in the inner loop: z = (a v + b) mod P and r = z mod g are carried
    per device from v to v + 1 by selects, not branches (a wrap of z subtracts P mod g from r).
    z, r, av, am, yb: uint32 scratch of at least hi - lo entries."""
    nb = hi - lo
    gg = np.uint32(g)
    pp = np.uint32(prime)
    g_minus_pmg = np.uint32(g - prime % g)          # in [1, g]: adding it subtracts P mod g, mod g
    for t in range(nb):
        i = lo + t
        av[t] = np.uint32(a[i])
        am[t] = np.uint32(a[i] % g)
        z[t] = np.uint32(b[i])
        r[t] = np.uint32(b[i] % g)
        yb[t] = np.uint32(y[i])
    for v in range(d):
        acc = np.uint32(0)
        for t in range(nb):
            rt = r[t]
            acc += np.uint32(rt == yb[t])
            zt = np.uint32(z[t] + av[t])                 # < 2^32: a, z < P < 2^31
            wrap = zt >= pp
            z[t] = np.uint32(zt - pp) if wrap else zt
            r1 = np.uint32(rt + am[t])
            r1 = np.uint32(r1 - gg) if r1 >= gg else r1
            r2 = np.uint32(r1 + g_minus_pmg)
            r2 = np.uint32(r2 - gg) if r2 >= gg else r2
            r[t] = r2 if wrap else r1
        row[v] += np.int64(acc)


@pjit
def _support_counts_blocked(a, b, y, d, g, prime, rows, block):
    n = a.shape[0]
    nblocks = (n + block - 1) // block
    nw = rows.shape[0]
    for w in numba.prange(nw):                          # worker w: blocks w, w + nw, ...; only writer of rows[w]
        z = np.empty(block, dtype=np.uint32)
        r = np.empty(block, dtype=np.uint32)
        av = np.empty(block, dtype=np.uint32)
        am = np.empty(block, dtype=np.uint32)
        yb = np.empty(block, dtype=np.uint32)
        for k in range(w, nblocks, nw):
            _count_block(a, b, y, k * block, min(n, (k + 1) * block), d, g, prime, rows[w], z, r, av, am, yb)


def support_counts_blocked(a, b, y, d, g, prime, workers=None):
    """int64[d], equal to ``support_counts(a, b, y, d, g, prime)`` (a, b, y: int64[n], validated;
    prime < 2^31).  workers: count rows (default: numba's thread count)."""
    if prime >= _BLOCKED_MAX_PRIME:
        raise ValueError(f"prime must be below 2^31, got {prime}")
    n = len(a)
    nw = max(1, min(int(workers or numba.get_num_threads()), (n + _BLOCK - 1) // _BLOCK))
    rows = np.zeros((nw, int(d)), dtype=np.int64)
    _support_counts_blocked(np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(b, dtype=np.int64),
                            np.ascontiguousarray(y, dtype=np.int64), np.int64(d), np.int64(g), np.int64(prime),
                            rows, np.int64(_BLOCK))
    return rows.sum(axis=0)
