"""Fleet simulation on a Dask LocalCluster against the single-process fleet, in one run (issue 11).

    python3 benchmarks/bench_dask.py [--devices 20000000] [--workers 2] [--partitions 16]

Both runs simulate the same fleet (k-ary randomized response over 8 categories, constant time, a
Zipf population) and reduce it to the mechanism's sufficient statistic; the Dask run ships each
partition's inputs in its task and gets back only the statistic.  Prints devices per second of
each, their ratio, and (docs/scale.md) the core-hours 10^10 devices would take at the measured
per-core rates.  Both are timed after a warm-up (Numba compiled, workers started).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    import numba

    import fxdp
    from fxdp import dask_engine as D
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=20_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partitions", type=int, default=16)
    args = ap.parse_args(argv)
    m = fxdp.make_randomized_response(list(range(8)), "1/2", constant_time=True)
    values, truth = m.synthetic_population(args.devices, 1)
    # single process, all Numba threads
    st = m.report_statistic()
    st.add(m.simulate(values[:1000], 1))
    t0 = time.perf_counter()
    chunk = 1 << 22
    st = m.report_statistic()
    for lo in range(0, values.size, chunk):
        import numpy as np
        ids = np.arange(lo, min(values.size, lo + chunk), dtype=np.uint64)
        st.add(m.simulate(values[lo:lo + chunk], 1, device_ids=ids))
    single = time.perf_counter() - t0
    client = D.connect(workers=args.workers)
    try:
        D.simulate_statistic(m, values[:10_000], 1, client, partitions=args.workers)   # warm the workers
        stat, dask_s = D.simulate_statistic(m, values, 1, client, partitions=args.partitions)
    finally:
        client.close()
        client.cluster.close()
    assert stat.estimate_rows(truth) == st.estimate_rows(truth)
    threads = numba.config.NUMBA_NUM_THREADS
    r1, r2 = args.devices / single, args.devices / dask_s
    print(f"{args.devices:,} devices, {os.cpu_count()} CPUs")
    print(f"single process ({threads} Numba threads): {r1:.3g} devices/s")
    print(f"Dask LocalCluster ({args.workers} single-threaded workers, {args.partitions} partitions): "
          f"{r2:.3g} devices/s = {r2 / r1:.2f}x the single process (bit-identical estimate: checked)")
    per_core = r2 / args.workers
    print(f"10^10 devices at {per_core:.3g} devices/s per worker core: {1e10 / per_core / 3600:.2f} core-hours")


if __name__ == "__main__":
    main()
