"""Numba kernels of the toy family: the fleet, on the toolbox every family's kernels use
(fxdp/mechanisms/_kernels_common.py, fxdp.samplers._kernels).  Device i runs CoinFlip.release on
the keyed stream (seed, device_ids[i], 0) from block first_block, the same bits in the same order
as the reference and as fxdp_coin_flip (fxdp_mech_coin_flip.c)."""
import numba
import numpy as np

from fxdp.mechanisms._kernels_common import CHUNK, _U0, _pos
from fxdp.samplers._kernels import ERR_ENTROPY, OK, STATE_WORDS, _rd_dyadic, _store
from fxdp.samplers._nb_jit import ijit, jit, pjit
from fxdp.samplers._nb_lanes import LANES, fast_bits_used, restart_device, start_device_fast


@ijit
def _coin_flip_rd(state, buf, c, a, k, x):
    """x if Bernoulli(a / 2^k) else not x: (status, output, buf, c)."""
    st, keep, buf, c = _rd_dyadic(state, buf, c, a, k)
    if st != OK:
        return st, False, buf, c
    return OK, x == keep, buf, c


@jit
def _chunk_coin_flip(state, lanes, key, device_ids, lo, hi, first_block, a, k, x, out, status, bits_out):
    want_bits = bits_out.shape[0] > 0
    for i in range(lo, hi):
        # a device starts on the words of a multi-lane first block; one that needs more runs again
        fast = start_device_fast(state, lanes, key, device_ids, i, lo, hi, first_block, 0)
        while True:
            st, y, buf, c = _coin_flip_rd(state, _U0, _U0, a, k, x[i])
            if not (fast and st == ERR_ENTROPY):
                break
            restart_device(state, lanes, key, device_ids, i, lo, first_block, 0)
            fast = False
        status[i] = np.uint8(st)
        if st == OK:
            out[i] = y
        if want_bits:
            _store(state, buf, c)
            bits_out[i] = fast_bits_used(state, key, first_block) if fast else _pos(state)


@pjit
def fleet_coin_flip(key, device_ids, first_block, a, k, x, out, status, bits_out):
    n = device_ids.shape[0]
    for ch in numba.prange((n + CHUNK - 1) // CHUNK):
        state = np.empty(STATE_WORDS, dtype=np.uint32)
        lanes = np.empty((16, LANES), dtype=np.uint32)
        _chunk_coin_flip(state, lanes, key, device_ids, ch * CHUNK, min(n, (ch + 1) * CHUNK), first_block,
                         a, k, x, out, status, bits_out)
