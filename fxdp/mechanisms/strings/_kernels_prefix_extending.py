"""Numba kernels of the Prefix Extending Method (fxdp/mechanisms/strings/prefix_extending.py):
the server's support counts of a list of items over local hashing reports.  Integers only."""
from __future__ import annotations

import numba
import numpy as np

_pjit = numba.njit(cache=True, nogil=True, parallel=True)


@_pjit
def item_support(a, b, y, items, g, prime, out):
    """out[c] = #{i : ((a_i items[c] + b_i) mod prime) mod g == y_i} (a, b < 2^31, items < 2^31:
    the product fits 62 bits)."""
    for c in numba.prange(items.shape[0]):
        v = np.uint64(items[c])
        s = np.int64(0)
        for i in range(a.shape[0]):
            h = ((np.uint64(a[i]) * v + np.uint64(b[i])) % prime) % g
            s += np.int64(h == np.uint64(y[i]))
        out[c] = s
