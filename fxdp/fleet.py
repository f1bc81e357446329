"""Layer 6: fleet simulation driver shared by `fxdp simulate` and `fxdp demo`.

A synthetic population of true values (numpy, seeded: it stands for the
data, not for the privacy path) goes through ``m.simulate`` (the Numba fleet
kernel, bit-identical to the firmware per device), then through the matching
estimator, giving rows {name, true, estimate, stderr}.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from . import estimate as est
from .mechanisms.geometric import Geometric
from .mechanisms.randomized_response import RandomizedResponse, RandomizedResponseBool
from .mechanisms.rappor import Rappor
from .mechanisms.rappor_full import RapporFull

RAPPOR_FULL_CANDIDATES = [f"value-{i:02d}" for i in range(8)]


def synthetic_population(m, devices, seed):
    """True per-device inputs in the mechanism's device form, and the true statistic."""
    rng = np.random.default_rng([seed, 0x5EED])
    if isinstance(m, RandomizedResponseBool):
        values = rng.random(devices) < 0.3
        return values, float(values.mean())
    if isinstance(m, RandomizedResponse):
        weights = 1.0 / np.arange(1, m.t + 1)
        values = rng.choice(m.t, size=devices, p=weights / weights.sum()).astype(np.int64)
        return values, np.bincount(values, minlength=m.t) / devices
    if isinstance(m, Rappor):
        values = np.zeros((devices, m.k), dtype=np.uint8)
        ones = rng.integers(0, m.m + 1, size=devices)
        popular = rng.random(m.k) ** 2                      # some bits far more common than others
        for j in range(m.m):
            cols = rng.choice(m.k, size=devices, p=popular / popular.sum())
            values[np.arange(devices)[ones > j], cols[ones > j]] = 1
        return values, values.sum(axis=0).astype(np.float64)
    if isinstance(m, RapporFull):
        # a few heavy strings (Zipf-like) over a long tail of rare ones
        heavy = np.array([0.2, 0.12, 0.08, 0.05, 0.03, 0.02, 0.0, 0.0])
        pick = rng.random(devices)
        idx = np.searchsorted(np.cumsum(heavy), pick)
        cands = m.encode_many(RAPPOR_FULL_CANDIDATES)
        tail = m.encode_many([f"rare-{i}" for i in range(1000)])
        blocks = np.where((idx < len(heavy))[:, None], cands[np.minimum(idx, len(heavy) - 1)],
                          tail[rng.integers(0, 1000, size=devices)])
        truth = {c: float(np.mean(idx == i)) for i, c in enumerate(RAPPOR_FULL_CANDIDATES)}
        return blocks, truth
    if getattr(m, "finite_precision", False):
        # raw fixed-point inputs in the middle half of the safe range [m, M]
        span = (m.hi - m.lo) // 4
        planar = hasattr(m, "ka") or "planar" in m.kind
        shape = (devices, 2) if planar else devices
        values = rng.integers(m.lo + span, m.hi - span + 1, size=shape).astype(np.int64)
        return values, values.mean(axis=0) / (1 << m.F)
    if isinstance(m, Geometric):
        lo, hi = m.bounds
        lo_v, hi_v = max(lo, -1000), min(hi, 1000)
        mid, span = (lo_v + hi_v) // 2, max((hi_v - lo_v) // 4, 0)
        values = rng.integers(mid - span, mid + span + 1, size=devices).astype(np.int64)
        if m.vector:
            values = values.reshape(devices, 1)
        if m.table is not None and not m.vector:    # bounded, constant time: estimate_rows gives the mean
            return values, float(values.mean())
        return values, float(values.sum())
    raise ValueError(f"no synthetic population for {m.kind}")


def estimate_rows(m, reports, truth):
    if isinstance(m, RandomizedResponseBool):
        return est.rr_bool_frequency(reports, m).as_rows(truth)
    if isinstance(m, RandomizedResponse):
        return est.rr_frequencies(reports, m).as_rows(truth)
    if isinstance(m, Rappor):
        return est.rappor_counts(reports, m).as_rows(truth)
    if isinstance(m, Geometric):
        if m.table is not None and not m.vector:
            return est.bounded_geometric_mean(reports, m).as_rows(truth)
        return est.geometric_sum(reports, m).as_rows(truth)
    if getattr(m, "finite_precision", False):
        return est.fixed_point_mean(reports, m).as_rows(truth)
    if isinstance(m, RapporFull):
        from .estimate_rappor import decode
        return decode(reports, m, RAPPOR_FULL_CANDIDATES).rows(truth)
    raise ValueError(f"no estimator for {m.kind}")


def simulate_fleet(m, devices, seed, chunk=1 << 16, progress=None, population=None):
    """Simulate `devices` devices (ids 0..devices-1) in chunks; returns (values, reports, truth, seconds).

    population: (values, truth) to use instead of synthetic_population(m, devices, seed).
    progress: None shows a progress bar on stderr when it is a terminal.
    """
    values, truth = population if population is not None else synthetic_population(m, devices, seed)
    if len(values) != devices:
        raise ValueError(f"population has {len(values)} values for {devices} devices")
    show = sys.stderr.isatty() if progress is None else progress
    parts, t0 = [], time.perf_counter()
    for start in range(0, devices, chunk):
        stop = min(start + chunk, devices)
        ids = np.arange(start, stop, dtype=np.uint64)
        parts.append(m.simulate(values[start:stop], seed, device_ids=ids))
        if show:
            done = stop / devices
            sys.stderr.write(f"\rsimulating {stop:,}/{devices:,} devices [{'#' * int(30 * done):<30}]")
            sys.stderr.flush()
    if show:
        sys.stderr.write("\n")
    reports = np.concatenate(parts) if parts else np.empty(0)
    return values, reports, truth, time.perf_counter() - t0
