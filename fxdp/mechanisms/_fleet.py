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

import numpy as np

from ._kernels_mech import _finish, check_device_ids, check_seed

_FIRST_BLOCK = 0         # first keystream block of every device (tests move it to inject entropy failure)


def check_first_block(fb):
    """first_block None (the real stream's 0) or an int in [0, 2^32 - 1]."""
    fb = _FIRST_BLOCK if fb is None else int(fb)
    if not 0 <= fb <= 0xFFFFFFFF:
        raise ValueError(f"first_block must be in [0, 2^32 - 1], got {fb}")
    return fb


def simulate_detailed(m, values, seed, device_ids=None, first_block=None, want_bits=True, device_form=False):
    """Run m's fleet kernel.  Returns (out, status, bits_used, ids); inputs validated first
    (ValueError).  out has the shape simulate returns.  device_form: values are already in the
    device form (``m.device_inputs``) rather than what ``m.simulate`` takes (``m.fleet_inputs``)."""
    key = check_seed(seed)
    fb = np.uint32(check_first_block(first_block))
    x = m.device_inputs(values) if device_form else m.fleet_inputs(values)
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
    x = m.fleet_inputs(values)
    ids = check_device_ids(device_ids, x.shape[0])
    status = np.zeros(x.shape[0], dtype=np.uint8)
    workers = max(1, min(numba.get_num_threads(), -(-x.shape[0] // chunk)))
    counts = np.zeros((workers, m.d), dtype=np.int64)
    kernel(key, ids, fb, *params, x, counts, status)
    _finish(None, status, None, ids, f"{m.kind}.simulate_support")
    return counts.sum(axis=0), int(x.shape[0])
