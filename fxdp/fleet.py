"""Layer 5: fleet simulation driver shared by `fxdp simulate` and `fxdp demo`.

A synthetic population of true values (numpy, seeded: it stands for the
data, not for the privacy path) goes through ``m.simulate`` (the Numba fleet
kernel, bit-identical to the firmware per device), then through the matching
estimator, giving rows {name, true, estimate, stderr}.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from .bitsource import seed_parts
from .mechanisms.base import check_mechanism


def synthetic_population(m, devices, seed):
    """True per-device inputs in the mechanism's device form, and the true statistic."""
    return check_mechanism(m, "synthetic_population").synthetic_population(devices, seed)


def estimate_rows(m, reports, truth):
    """Rows {name, true, estimate, stderr} of m's default estimator against the truth."""
    return check_mechanism(m, "estimate_rows").estimate_rows(reports, truth)


def simulate_fleet(m, devices, seed, chunk=1 << 16, progress=None, population=None):
    """Simulate `devices` devices (ids 0..devices-1) in chunks; returns (values, reports, truth, seconds).

    population: (values, truth) to use instead of synthetic_population(m, devices, seed).
    progress: None shows a progress bar on stderr when it is a terminal.
    """
    check_mechanism(m, "simulate_fleet")
    if population is None:                 # the population's numpy seed is the seed's value (any version)
        population = synthetic_population(m, devices, seed_parts(seed)[0])
    values, truth = population
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
