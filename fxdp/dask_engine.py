"""Layer 6: fleets and report sets beyond one machine, on a Dask cluster (``--engine dask``).

Optional: ``pip install "fxdp[dask]"`` (dask.distributed); the single-machine path never imports
this module.

* ``simulate_statistic(m, values, seed, client)``: the fleet's devices are split into partitions;
  device i draws from keyed stream (seed, i) whichever worker runs it (``m.simulate`` with
  ``device_ids``), so the result is bit-identical to the single-process run for every
  partitioning.  A worker simulates its partition and returns only the mechanism's mergeable
  sufficient statistic (``m.report_statistic()``, never the per-device reports); the client
  merges them pairwise as a tree (log2 partitions rounds, the merges themselves run on workers).
* ``estimate_statistic(m, paths, client)``: one task per report file (the files must be visible
  to every worker: a shared file system, or a LocalCluster); each streams its file through
  ``m.iter_report_chunks`` / the CSV and Parquet readers into a statistic; same tree reduction.

Failures: a task whose worker dies is rerun elsewhere by the scheduler (dask's
``distributed.scheduler.allowed-failures``, 3 by default); past that, or on any task error, the
call raises ``ClusterError`` naming the partition and nothing is returned.  The merged statistic
must hold exactly the devices (or the sum of the files' reports) asked for, else ``ClusterError``:
an estimate is never made over fewer devices than asked.

The mechanism travels to workers as (kind, config()) and is rebuilt there through the registry,
so nothing unpicklable (compiled kernels, cffi objects) is shipped.
"""
from __future__ import annotations

import time

import numpy as np

from .mechanisms.base import check_mechanism


class ClusterError(RuntimeError):
    """A distributed run that could not account for every device or report."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("--engine dask needs dask.distributed: pip install 'fxdp[dask]'") from None
    return distributed


def _rebuild(kind, config):
    from .registry import constructor
    return constructor(kind)(**config)


def _simulate_part(kind, config, values, seed, lo):
    m = _rebuild(kind, config)
    ids = np.arange(lo, lo + len(values), dtype=np.uint64)
    stat = m.report_statistic()
    stat.add(m.simulate(values, seed, device_ids=ids))
    return stat


def _estimate_file(kind, config, path, fmt):
    from .reportfiles import iter_reports
    m = _rebuild(kind, config)
    stat = m.report_statistic()
    for _, reports in iter_reports(m, path, fmt):
        stat.add(reports)
    if stat.n == 0:
        raise ValueError(f"{path}: no reports in the file")
    return stat


def _merge(a, b):
    return a.merge(b)


def connect(scheduler=None, workers=2):
    """A dask.distributed Client: to the scheduler at `scheduler` (e.g. "tcp://host:8786"), or a
    LocalCluster of `workers` single-threaded worker processes when None."""
    distributed = _distributed()
    if scheduler:
        return distributed.Client(scheduler)
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    return distributed.Client(cluster)


def _tree_reduce(client, futures, what):
    distributed = _distributed()
    try:
        while len(futures) > 1:
            nxt = [client.submit(_merge, futures[i], futures[i + 1], pure=False)
                   for i in range(0, len(futures) - 1, 2)]
            if len(futures) % 2:
                nxt.append(futures[-1])
            futures = nxt
        return futures[0].result()
    except distributed.client.FutureCancelledError as e:
        raise ClusterError(f"{what}: a task was cancelled ({e}); nothing estimated") from None
    except distributed.KilledWorker as e:
        raise ClusterError(f"{what}: {e} (workers kept dying; nothing estimated)") from None


def simulate_statistic(m, values, seed, client, partitions=None):
    """The merged sufficient statistic of the fleet `values` (device i = values[i], keyed stream
    (seed, i)) simulated on the cluster in `partitions` parts (default: 4 per worker).  Returns
    (statistic, seconds)."""
    check_mechanism(m, "simulate_statistic")
    n = len(values)
    if n < 1:
        raise ValueError("values: at least one device")
    nworkers = max(1, len(client.scheduler_info().get("workers", {})))
    parts = partitions if partitions is not None else min(n, 4 * nworkers)
    if not isinstance(parts, int) or not 1 <= parts <= n:
        raise ValueError(f"partitions must be an int in [1, {n}], got {partitions!r}")
    kind, config = m.kind, m.config()
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    t0 = time.perf_counter()
    futures = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi > lo:
            # the slice travels inside the task (not scattered to one worker): if the worker running
            # it dies, the scheduler still holds the task's input and reruns it elsewhere
            futures.append(client.submit(_simulate_part, kind, config, values[lo:hi], seed, int(lo), pure=False))
    stat = _tree_reduce(client, futures, f"{m.kind} fleet of {n} devices")
    if stat.n != n:
        raise ClusterError(f"the cluster returned {stat.n} of {n} devices; nothing estimated")
    return stat, time.perf_counter() - t0


def estimate_statistic(m, paths, client, fmt=None, expected=None):
    """The merged statistic of every report in the files (one task per file).  expected: the total
    record count the caller knows (ClusterError if the merged count differs).  Returns
    (statistic, seconds)."""
    check_mechanism(m, "estimate_statistic")
    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("give at least one report file")
    kind, config = m.kind, m.config()
    t0 = time.perf_counter()
    futures = [client.submit(_estimate_file, kind, config, p, fmt, pure=False) for p in paths]
    stat = _tree_reduce(client, futures, f"{len(paths)} report file(s)")
    if expected is not None and stat.n != expected:
        raise ClusterError(f"the cluster counted {stat.n} of {expected} reports; nothing estimated")
    return stat, time.perf_counter() - t0


def estimate_dask(m, paths, client, fmt=None, allow_duplicates=False):
    """``fxdp estimate --engine dask``: the same dictionary as fxdp.reportfiles.estimate_files.
    A file given twice (the same resolved path) is refused unless allow_duplicates; the content
    and batch digests of the local path are not computed here (docs/cli.md)."""
    from pathlib import Path

    from .reportfiles import check_distinct_paths, check_file, guess_format
    paths = [Path(p) for p in paths]
    for p in paths:
        check_file(p, "report file")
    if not allow_duplicates:
        check_distinct_paths(paths)
    stat, seconds = estimate_statistic(m, paths, client, fmt)
    return {"mechanism": repr(m), "reports": stat.n, "files": [str(p) for p in paths],
            "format": guess_format(paths[0], fmt), "fingerprint": f"0x{m.report_fingerprint:08x}",
            "seconds": seconds, "estimates": stat.estimate_rows(None), "engine": "dask"}
