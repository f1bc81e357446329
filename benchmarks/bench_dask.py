"""Fleet simulation on a Dask LocalCluster against the single process, in one run (issues 11, 33).

    python3 benchmarks/bench_dask.py [--devices 20000000] [--workers 2 4] [--partitions P]

The fleet is ``fxdp simulate``'s: k-ary randomized response over 8 categories, constant time, its
synthetic Zipf population (seed 1), reduced to the mechanism's sufficient statistic.

* single process, end to end: what ``fxdp simulate --engine local`` does (the population drawn,
  then the fleet in chunks on all Numba threads, then the statistic);
* single process, fleet only: the same with the population drawn before the clock starts;
* Dask: ``fxdp.dask_engine.simulate_synthetic`` on a LocalCluster of N single-threaded workers
  (each partition draws its own devices on its worker; only statistics come back), timed after
  ``warm`` (whose seconds per worker are printed: Numba's cache loaded, or compiled once per host).

The three run in turn, --repeat rounds for each cluster (so that a ratio compares runs made under
the same load), and the best of each is kept; the per-round ratios to the fleet only are printed too.

Prints devices per second, the cluster's ratio to both single-process figures, whether the
estimate is bit-identical (the merged statistic's arrays and the estimate rows), whether Dask
warned about a large graph, and the core-hours 10^10 devices would take at the measured rate per
worker.  Keep the default sizes for docs/scale.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _single(m, devices, seed, values=None, chunk=1 << 22):
    import numpy as np
    t0 = time.perf_counter()
    if values is None:
        values, truth = m.synthetic_population(devices, seed)
    st = m.report_statistic()
    for lo in range(0, devices, chunk):
        ids = np.arange(lo, min(devices, lo + chunk), dtype=np.uint64)
        st.add(m.simulate(values[lo:lo + chunk], seed, device_ids=ids))
    return st, time.perf_counter() - t0


def main(argv=None):
    import numba
    import numpy as np

    import fxdp
    from fxdp import dask_engine as D
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=20_000_000)
    ap.add_argument("--workers", type=int, nargs="+", default=[2])
    ap.add_argument("--partitions", type=int, help="default: dask_engine's (4 per worker)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each; the best is kept")
    args = ap.parse_args(argv)
    m = fxdp.make_randomized_response(list(range(8)), "1/2", constant_time=True)
    n, seed = args.devices, 1
    _single(m, 1000, seed)                                    # compiled / cache loaded
    values, truth = m.synthetic_population(n, seed)
    ref = _single(m, n, seed)[0]
    threads = numba.config.NUMBA_NUM_THREADS
    print(f"{n:,} devices, {os.cpu_count()} CPUs, load average {_load()}; fxdp commit {_commit()}")
    for w in args.workers:
        client = D.connect(workers=w)
        try:
            warm = D.warm(client, m)
            e2e, fleet, dask_s = [], [], []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for _ in range(args.repeat):                  # interleaved: each round under the same load
                    e2e.append(_single(m, n, seed)[1])
                    fleet.append(_single(m, n, seed, values)[1])
                    stat, got_truth, s = D.simulate_synthetic(m, n, seed, client, args.partitions)
                    dask_s.append(s)
            large = [str(x.message)[:80] for x in caught if "large graph" in str(x.message).lower()]
        finally:
            client.close()
            client.cluster.close()
        same = (np.array_equal(stat.hist, ref.hist) and np.array_equal(got_truth, truth)
                and stat.estimate_rows(got_truth) == ref.estimate_rows(truth))
        r_e2e, r_fleet, r = n / min(e2e), n / min(fleet), n / min(dask_s)
        paired = sorted(f / d for f, d in zip(fleet, dask_s))
        parts = args.partitions or min(n, max(4 * w, -(-n // D.MAX_PART)))
        print(f"single process ({threads} Numba threads): end to end {r_e2e:.3g} devices/s, "
              f"fleet only (population drawn beforehand) {r_fleet:.3g} devices/s")
        print(f"Dask LocalCluster, {w} single-threaded workers, {parts} partitions: {r:.3g} devices/s = "
              f"{r / r_e2e:.2f}x the single process end to end, {r / r_fleet:.2f}x its fleet only "
              f"(per round: {', '.join(f'{x:.2f}' for x in paired)}); "
              f"bit-identical estimate: {'yes' if same else 'NO'}; large-graph warning: {large or 'none'}; "
              f"warm-up per worker: {', '.join(f'{v:.2f} s' for v in warm.values())}; load average {_load()}")
        per_worker = r / w
        print(f"  10^10 devices at {per_worker:.3g} devices/s per worker: {1e10 / per_worker / 3600:.2f} worker-hours")


def _load():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def _commit():
    import subprocess
    try:
        here = Path(__file__).resolve().parent
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=here, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "../fxdp", "."],
                               capture_output=True, text=True, cwd=here, check=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    main()
