"""The generic fleet driver: one simulation loop for every mechanism, through the protocol.

``simulate_detailed(m, values, seed, ...)`` validates a fleet's inputs
(``m.fleet_inputs``), the seed, the device ids and the first keystream block,
runs the mechanism's own fleet kernel (``m.run_fleet``) and returns
``(out, status, bits_used, ids)`` without raising for a device failure (status
holds it; the parity tests compare all four with the C host fleet).
``simulate`` returns the outputs, or raises (``fxdp.EntropyError``,
``fxdp.RangeError``, ``ValueError``) and returns nothing if any device failed.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..bitsource import Seed
from ..errors import OK as _OK, raise_for_status
from ..samplers import _kernels as K

_FIRST_BLOCK = 0         # first keystream block of every device (tests move it to inject entropy failure)


def check_first_block(fb):
    """first_block None (the real stream's 0) or an int in [0, 2^32 - 1]."""
    fb = _FIRST_BLOCK if fb is None else int(fb)
    if not 0 <= fb <= 0xFFFFFFFF:
        raise ValueError(f"first_block must be in [0, 2^32 - 1], got {fb}")
    return fb


def writable(x):
    """x, or a writable copy of a read-only array (np.broadcast_to, a memory map, an Arrow column).
    Numba compiles a kernel once per argument type, and a read-only array is a type of its own: a
    fleet over read-only inputs would compile its kernel a second time (10-20 s for the largest)."""
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        return x.copy()
    return x


def simulate_detailed(m, values, seed, device_ids=None, first_block=None, want_bits=True, device_form=False):
    """Run m's fleet kernel.  Returns (out, status, bits_used, ids); inputs validated first
    (ValueError).  out has the shape simulate returns.  device_form: values are already in the
    device form (``m.device_inputs``) rather than what ``m.simulate`` takes (``m.fleet_inputs``)."""
    key = check_seed(seed)
    fb = np.uint32(check_first_block(first_block))
    x = writable(m.device_inputs(values) if device_form else m.fleet_inputs(values))
    n = x.shape[0]
    ids = check_device_ids(device_ids, n)
    status = np.zeros(n, dtype=np.uint8)
    bits = np.zeros(n if want_bits else 0, dtype=np.int64)
    out = m.fleet_outputs(m.run_fleet(key, ids, fb, x, status, bits))
    return out, status, (bits if want_bits else None), ids


def simulate(m, values, seed, device_ids=None, first_block=None, device_form=False):
    """Fleet outputs of m, or an exception (nothing returned) if any device failed."""
    out, status, _, ids = simulate_detailed(m, values, seed, device_ids, first_block, want_bits=False,
                                            device_form=device_form)
    return _finish(out, status, None, ids, f"{m.kind}.simulate")


def support_counts(m, values, seed, device_ids, first_block, chunk, kernel, params):
    """Item counts of m's reports from a counting fleet kernel (same bits as the report fleet):
    ``kernel(key, ids, first_block, *params, x, counts, status)`` adds each device's report to its
    worker's row of counts (workers from numba's threads and chunk); raises as ``simulate`` does
    (nothing returned) if any device fails.  Returns (summed counts over items, n)."""
    import numba
    key = check_seed(seed)
    fb = np.uint32(check_first_block(first_block))
    x = writable(m.fleet_inputs(values))
    ids = check_device_ids(device_ids, x.shape[0])
    status = np.zeros(x.shape[0], dtype=np.uint8)
    workers = max(1, min(numba.get_num_threads(), -(-x.shape[0] // chunk)))
    counts = np.zeros((workers, m.d), dtype=np.int64)
    kernel(key, ids, fb, *params, x, counts, status)
    _finish(None, status, None, ids, f"{m.kind}.simulate_support")
    return counts.sum(axis=0), int(x.shape[0])


# --------------------------------------------------------------------------
# input checks and error reporting, for every family

def check_seed(seed):
    """seed: an integer in [0, 2^256) or a bitsource.Seed -> its seed words (uint32[9]: the 8
    key words of bitsource.derive_key_nonce, then the stream version)."""
    if isinstance(seed, Seed):
        return K.seed_key_words(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed must be an integer in [0, 2^256 - 1] or a fxdp.Seed, got {seed!r}")
    return K.seed_key_words(int(seed))


def check_device_ids(device_ids, n):
    """device_ids: None (0..n-1) or n integers in [0, 2^64 - 1] -> contiguous uint64 array."""
    if device_ids is None:
        return np.arange(n, dtype=np.uint64)
    arr = np.asarray(device_ids)
    if not isinstance(device_ids, np.ndarray) and arr.dtype.kind == "f":
        arr = np.array(list(device_ids), dtype=object)     # big Python ints became floats
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"device_ids must be a 1-d sequence of {n} device ids (one per device), "
                         f"got shape {arr.shape}")
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    if arr.dtype == object:
        vals = list(arr)
        if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in vals):
            raise ValueError("device_ids must be integers in [0, 2^64 - 1]")
        if any(not 0 <= int(v) <= (1 << 64) - 1 for v in vals):
            raise ValueError("device_ids must be in [0, 2^64 - 1]")
        return np.array([int(v) for v in vals], dtype=np.uint64)
    if arr.dtype.kind == "u":
        return np.ascontiguousarray(arr, dtype=np.uint64)
    if arr.dtype.kind == "i":
        if arr.min() < 0:
            raise ValueError(f"device_ids must be in [0, 2^64 - 1], got {int(arr.min())}")
        return np.ascontiguousarray(arr, dtype=np.uint64)
    raise ValueError(f"device_ids must be integers in [0, 2^64 - 1], got dtype {arr.dtype}")


def int_array(name, values, ndim, lo, hi):
    """values as an int64 array of ndim dimensions with every entry in [lo, hi] (ints only)."""
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if arr.size == 0:                     # np.asarray([]) is float64: nothing to check
        return np.zeros(arr.shape, dtype=np.int64)
    if arr.dtype == object:
        try:
            flat = [v for v in arr.ravel()]
        except TypeError:
            raise ValueError(f"{name} must hold integers") from None
        if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in flat):
            raise ValueError(f"{name} must hold integers in [{lo}, {hi}]")
        if any(not lo <= int(v) <= hi for v in flat):
            raise ValueError(f"{name} entries must be in [{lo}, {hi}]")
        return np.array([int(v) for v in flat], dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integers in [{lo}, {hi}], got dtype {arr.dtype}")
    if arr.size:
        mn, mx = int(arr.min()), int(arr.max())
        if mn < lo or mx > hi:
            bad = mn if mn < lo else mx
            raise ValueError(f"{name} entries must be in [{lo}, {hi}], got {bad}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def bits_array(name, values, ndim):
    """0/1 (or bool) array -> uint8 array."""
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if arr.dtype == np.bool_:
        return np.ascontiguousarray(arr, dtype=np.uint8)
    return np.ascontiguousarray(int_array(name, arr, ndim, 0, 1), dtype=np.uint8)


def _finish(out, status, bits, ids, what):
    bad = np.flatnonzero(status != _OK)
    if bad.size:
        i = int(bad[0])
        try:
            raise_for_status(int(status[i]), f"{what}: device {int(ids[i])}")
        except Exception as exc:  # add the count, keep the type
            exc.args = (f"{exc.args[0]} ({bad.size} of {status.size} devices failed; "
                        "no output released)",)
            raise
    return out
