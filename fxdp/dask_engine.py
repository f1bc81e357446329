"""Layer 6: fleets and report sets beyond one machine, on a Dask cluster (``--engine dask``).

Optional: ``pip install "fxdp[dask]"`` (dask.distributed); the single-machine path never imports
this module.

* ``simulate_synthetic(m, devices, seed, client)``: the fleet of ``fxdp simulate`` without
  ``--values``.  Each partition (a range lo..hi-1 of device ids) generates its own devices' true
  values on its worker (``m.synthetic_part``: the frequency oracles and randomized response draw
  only those devices; other kinds draw the whole population and slice it), so a task carries only
  (kind, config, devices, seed, lo, hi) and the graph no data.  Device i draws from keyed stream
  (seed, i) whichever worker runs it, so the result is bit-identical to the single-process run for
  every partitioning.  A partition returns the mechanism's mergeable sufficient statistic
  (``m.report_statistic()``) and the tally of the truth (``m.truth_tally``; a kind without one
  has the truth computed by the partition holding device 0); the client merges them pairwise as a
  tree (log2 partitions rounds, the merges themselves run on workers).
* ``simulate_values_file(m, path, columns, seed, client)``: ``fxdp simulate --values FILE`` with
  each partition reading its own row range of the file on its worker (Parquet: whole row groups;
  .npy: a memory map; the file must be visible to every worker).  The client reads the file once
  too, for the range check and the truth.
* ``simulate_statistic(m, values, seed, client)``: values held by the caller; each partition's
  slice travels inside its task.
* ``estimate_statistic(m, paths, client)``: one task per report file (the files must be visible
  to every worker: a shared file system, or a LocalCluster); each streams its file through
  ``m.iter_report_chunks`` / the CSV and Parquet readers into a statistic; same tree reduction.

Each task runs the fleet kernels on one Numba thread: a worker thread is one core (start workers
with one thread each, one per core).  ``warm(client, m)`` loads the mechanism's kernels on every
worker (from Numba's on-disk cache, or compiling them once per worker where there is none).

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

from .bitsource import seed_parts
from .mechanisms.base import check_mechanism


class ClusterError(RuntimeError):
    """A distributed run that could not account for every device or report."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("--engine dask needs dask.distributed: pip install 'fxdp[dask]'") from None
    return distributed


CHUNK = 1 << 22              # devices simulated at once inside a partition (bounded memory)
WAIT_SECONDS = 30           # connect(scheduler): how long to wait for the scheduler and a first worker
MAX_PART = 1 << 24           # the default partitioning keeps a partition at most this many devices


def _rebuild(kind, config):
    from .registry import constructor
    return constructor(kind)(**config)


def _one_thread():
    """The task's fleet kernels on one Numba thread: Dask's worker threads are the parallelism."""
    import numba
    if numba.get_num_threads() != 1:
        numba.set_num_threads(1)


def _simulate_into(m, stat, values, seed, lo):
    for a in range(0, len(values), CHUNK):
        part = values[a:a + CHUNK]
        ids = np.arange(lo + a, lo + a + len(part), dtype=np.uint64)
        stat.add(m.simulate(part, seed, device_ids=ids))
    return stat


def _simulate_part(kind, config, values, seed, lo):
    _one_thread()
    m = _rebuild(kind, config)
    return _simulate_into(m, m.report_statistic(), values, seed, lo)


class Part:
    """What a partition of a synthetic or file fleet returns: the mechanism's statistic, the
    truth's tally (``m.truth_tally``, an int64 array that adds up) or, for a kind without one, the
    whole population's truth (carried by one partition)."""

    def __init__(self, stat, tally=None, truth=None):
        self.stat, self.tally, self.truth = stat, tally, truth

    def merge(self, other):
        self.stat.merge(other.stat)
        if other.tally is not None:
            self.tally = other.tally.copy() if self.tally is None else self.tally + other.tally
        if self.truth is None:
            self.truth = other.truth
        return self

    def truth_of(self, m):
        return m.truth_from_tally(self.tally) if self.tally is not None else self.truth


def _synthetic_part(kind, config, devices, seed, lo, hi):
    _one_thread()
    m = _rebuild(kind, config)
    value = seed_parts(seed)[0]                 # the population's numpy seed (as fxdp.fleet)
    values = m.synthetic_part(devices, value, lo, hi)
    tally = m.truth_tally(values)
    truth = None
    if tally is None and lo == 0:
        truth = m.synthetic_population(devices, value)[1]
    return Part(_simulate_into(m, m.report_statistic(), values, seed, lo), tally, truth)


def _file_part(kind, config, path, columns, clamp, seed, lo, hi):
    from .reportfiles import check_value_range, read_value_rows
    _one_thread()
    m = _rebuild(kind, config)
    values = read_value_rows(path, columns, lo, hi)
    values, _ = check_value_range(m, values, clamp, str(path))
    return Part(_simulate_into(m, m.report_statistic(), values, seed, lo), m.truth_tally(values))


def _warm(kind, config):
    t0 = time.perf_counter()
    _one_thread()
    m = _rebuild(kind, config)
    try:
        values = m.synthetic_part(2, 0, 0, 2)
    except NotImplementedError:                 # no synthetic population: nothing to warm with
        return time.perf_counter() - t0
    m.report_statistic().add(m.simulate(values, 0, device_ids=np.arange(2, dtype=np.uint64)))
    return time.perf_counter() - t0


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


def warm(client, m):
    """Load m's fleet kernels on every worker: one tiny fleet each, first on one worker per host
    (which compiles the kernels if Numba's on-disk cache there lacks them, and writes it), then on
    the others, which load that cache (the workers of one host share it: the package's
    ``__pycache__``, or ``NUMBA_CACHE_DIR``) instead of each compiling every kernel.  Returns
    {worker address: seconds}."""
    check_mechanism(m, "warm")
    workers = client.scheduler_info().get("workers", {})
    first = {}
    for addr, info in sorted(workers.items()):
        first.setdefault(info.get("host", addr), addr)
    rest = [a for a in sorted(workers) if a not in first.values()]
    out = client.run(_warm, m.kind, m.config(), workers=list(first.values()))
    if rest:
        out.update(client.run(_warm, m.kind, m.config(), workers=rest))
    return out


def connect(scheduler=None, workers=2):
    """A dask.distributed Client: to the scheduler at `scheduler` (e.g. "tcp://host:8786"), or a
    LocalCluster of `workers` single-threaded worker processes when None."""
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise ValueError(f"scheduler must be an address such as 'tcp://host:8786', got {scheduler!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    distributed = _distributed()
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=WAIT_SECONDS)
        except OSError as e:
            raise ClusterError(f"no Dask scheduler answered at {scheduler} ({e})") from None
        try:
            client.wait_for_workers(1, timeout=WAIT_SECONDS)
        except TimeoutError:
            client.close()
            raise ClusterError(f"the scheduler at {scheduler} has no worker (waited {WAIT_SECONDS} s)") from None
        return client
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


def _partition(n, client, partitions):
    """Bounds of the partitions of n devices: `partitions` parts, default 4 per worker and at most
    MAX_PART devices each."""
    if partitions is None:
        nworkers = max(1, len(client.scheduler_info().get("workers", {})))
        parts = min(n, max(4 * nworkers, -(-n // MAX_PART)))
    else:
        parts = partitions
    if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= n:
        raise ValueError(f"partitions must be an int in [1, {n}] (at most one per device), got {partitions!r}")
    return np.linspace(0, n, parts + 1).astype(np.int64)


def _check_devices(devices):
    if isinstance(devices, bool) or not isinstance(devices, (int, np.integer)) or devices < 1:
        raise ValueError(f"devices must be an int >= 1, got {devices!r}")
    return int(devices)


def simulate_synthetic(m, devices, seed, client, partitions=None):
    """The fleet of m's synthetic population of `devices` devices (``m.synthetic_population(
    devices, seed value)``, device i keyed (seed, i)), each partition generating its own devices on
    its worker: the graph carries no data.  partitions: default 4 per worker, at most MAX_PART
    devices each.  Returns (statistic, truth, seconds); bit-identical to the single process."""
    check_mechanism(m, "simulate_synthetic")
    n = _check_devices(devices)
    bounds = _partition(n, client, partitions)
    kind, config = m.kind, m.config()
    t0 = time.perf_counter()
    futures = [client.submit(_synthetic_part, kind, config, n, seed, int(lo), int(hi), pure=False)
               for lo, hi in zip(bounds[:-1], bounds[1:])]
    part = _tree_reduce(client, futures, f"{m.kind} fleet of {n} devices")
    if part.stat.n != n:
        raise ClusterError(f"the cluster returned {part.stat.n} of {n} devices; nothing estimated")
    return part.stat, part.truth_of(m), time.perf_counter() - t0


def simulate_values_file(m, path, columns, seed, client, partitions=None, clamp=False, devices=None,
                         truth=None):
    """``fxdp simulate --values FILE --engine dask``: each partition reads rows lo..hi-1 of the file
    on its worker (fxdp.reportfiles.read_value_rows; the file must be visible to every worker) and
    clamps them as the local path does.  devices: the file's row count (read from its metadata when
    None); truth: the population's truth when the caller has it, else merged from the partitions'
    tallies (a kind without a tally needs it given).  Returns (statistic, truth, seconds)."""
    from pathlib import Path

    from .reportfiles import value_rows
    check_mechanism(m, "simulate_values_file")
    path = Path(path).resolve()                   # the workers' working directory may differ
    n = value_rows(path) if devices is None else _check_devices(devices)
    bounds = _partition(n, client, partitions)
    kind, config = m.kind, m.config()
    t0 = time.perf_counter()
    futures = [client.submit(_file_part, kind, config, str(path), columns, bool(clamp), seed, int(lo), int(hi),
                             pure=False) for lo, hi in zip(bounds[:-1], bounds[1:])]
    part = _tree_reduce(client, futures, f"{m.kind} fleet of {n} devices from {path}")
    if part.stat.n != n:
        raise ClusterError(f"the cluster returned {part.stat.n} of {n} devices; nothing estimated")
    if truth is None:
        if part.tally is None:
            raise ValueError(f"{m.kind}: its truth is not a sum over devices; give truth=")
        truth = m.truth_from_tally(part.tally)
    return part.stat, truth, time.perf_counter() - t0


def simulate_statistic(m, values, seed, client, partitions=None):
    """The merged sufficient statistic of the fleet `values` held by the caller (device i =
    values[i], keyed stream (seed, i)) simulated on the cluster in `partitions` parts (default: 4
    per worker); each part's slice travels in its task (simulate_synthetic and
    simulate_values_file keep the data off the graph).  Returns (statistic, seconds)."""
    check_mechanism(m, "simulate_statistic")
    n = len(values)
    if n < 1:
        raise ValueError("values: at least one device")
    bounds = _partition(n, client, partitions)
    kind, config = m.kind, m.config()
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
