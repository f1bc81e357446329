"""Numba kernels of the Prefix Extending Method (fxdp/mechanisms/strings/prefix_extending.py): the
fleet (bit for bit the reference release: the group, the Numba string hash of its prefix, local
hashing's ``_lh_one``) and the server's support counts of a list of items.  Integers only."""
from __future__ import annotations

import numba
import numpy as np

from ...samplers._kernels import OK, STATE_WORDS
from ...samplers._nb_lanes import LANES, seed_device
from ...samplers._nb_strhash import strhash32
from .._kernels_common import CHUNK, _pos, _uniform_draw
from ..oracles._kernels_local_hashing import _lh_one
from ...samplers._nb_jit import ijit, jit, pjit

ITEM_BITS = 30               # prefix_extending.ITEM_BITS



@pjit
def item_support(a, b, y, items, g, prime, out):
    """out[c] = #{i : ((a_i items[c] + b_i) mod prime) mod g == y_i} (a, b < 2^31, items < 2^31:
    the product fits 62 bits).  For prime = 2^31 - 1 the reduction is two Mersenne folds, and
    mod g (g < 2^16) a multiply and shift (Granlund-Montgomery: exact for dividends below 2^31);
    item_support_plain is the same count with the two divisions (the test's reference)."""
    mersenne = prime == np.uint64(2147483647)
    ell = np.uint64(0)
    while (np.uint64(1) << ell) < g:
        ell += np.uint64(1)
    sh = np.uint64(31) + ell
    mg = ((np.uint64(1) << sh) // g) + np.uint64(1)        # < 2^32 + 1: h mg < 2^63 for h < 2^31
    for c in numba.prange(items.shape[0]):
        v = np.uint64(items[c])
        s = np.int64(0)
        for i in range(a.shape[0]):
            x = np.uint64(a[i]) * v + np.uint64(b[i])
            if mersenne:
                x = (x & prime) + (x >> np.uint64(31))
                x = (x & prime) + (x >> np.uint64(31))
                if x >= prime:
                    x -= prime
                h = x - ((x * mg) >> sh) * g
            else:
                h = (x % prime) % g
            s += np.int64(h == np.uint64(y[i]))
        out[c] = s


@pjit
def item_support_plain(a, b, y, items, g, prime, out):
    for c in numba.prange(items.shape[0]):
        v = np.uint64(items[c])
        s = np.int64(0)
        for i in range(a.shape[0]):
            h = ((np.uint64(a[i]) * v + np.uint64(b[i])) % prime) % g
            s += np.int64(h == np.uint64(y[i]))
        out[c] = s




@ijit
def _pem_one(state, groups, levels, coeffs, a_p, w, bits, g, prime, ct, xrow, tmp):
    """(status, t, a, b, y): one device's release (the bits of PrefixExtending.release); tmp is
    uint8[L + 2] scratch for the group's prefix as an encoded string."""
    st, t = _uniform_draw(state, groups, ct)
    a = b = y = np.uint64(0)
    if st == OK:
        n = levels[np.int64(t)]                  # the group's prefix, hashed as a string
        tmp[0] = np.uint8(n)
        for k in range(1, tmp.shape[0]):
            tmp[k] = xrow[k - 1] if k <= n else np.uint8(0)
        z = np.int64(strhash32(coeffs[np.int64(t)], tmp) >> np.uint32(32 - ITEM_BITS))
        st, a, b, y = _lh_one(state, a_p, w, bits, g, prime, ct, z)
    return st, t, a, b, y


@jit
def _chunk_pem(state, lanes, key, device_ids, lo, hi, first_block, groups, levels, coeffs, a_p, w, bits, g, prime, ct,
               x, tmp, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        seed_device(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        st, t, a, b, y = _pem_one(state, groups, levels, coeffs, a_p, w, bits, g, prime, ct, x[i], tmp)
        status[i] = np.uint8(st)
        if st == OK:
            out[i, 0], out[i, 1], out[i, 2], out[i, 3] = np.int64(t), np.int64(a), np.int64(b), np.int64(y)
        else:
            out[i, :] = 0
        if want_bits:
            bits_out[i] = _pos(state)


@pjit
def fleet_prefix_extending(key, device_ids, first_block, groups, levels, coeffs, a_p, w, bits, g, prime, ct, x, out,
                           status, bits_out):
    """Device i's report (t, a, b, y) into out[i] (int64[n, 4]): the bits of
    ``PrefixExtending.release`` (x: encoded strings uint8[n, L + 1], levels: int64[G] prefix
    lengths, coeffs: the string hash's coefficients uint32[G, L + 3])."""
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        tmp = np.empty(x.shape[1] + 1, dtype=np.uint8)
        _chunk_pem(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block, groups, levels,
                   coeffs, a_p, w, bits, g, prime, ct, x, tmp, out, status, bits_out)
