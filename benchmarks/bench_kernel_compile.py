"""Compile and throughput check of the sampler fill_/fleet_ kernels (issue 9, item 4).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/bench_kernel_compile.py          # cold
    NUMBA_CACHE_DIR=<same dir>   python benchmarks/bench_kernel_compile.py          # warm
    python benchmarks/bench_kernel_compile.py --throughput [--n 1000000] [--repeat 5]

Without --throughput: imports fxdp.samplers._kernels and calls every fill_* and
fleet_* kernel once on small inputs (canonical argument types, typed_params),
printing the import time and the time of the calls (compilation or cache load
included).  Run it in a fresh process with an empty NUMBA_CACHE_DIR (cold) and
again with that directory populated (warm).  With --throughput: samples/s of a
fill kernels on one keyed stream, best of --repeat (thread CPU time) after a
warm-up.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

t_start = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import numpy as np  # noqa: E402

from fxdp.samplers import _kernels as K  # noqa: E402

t_import = time.perf_counter() - t_start

PARAMS = {
    "uniform_below": [7],
    "bernoulli_dyadic": [3, 2],
    "bernoulli_dyadic_ct": [3, 2],
    "bernoulli_rational": [1, 3],
    "bernoulli_exp": [1, 3],
    "discrete_laplace": [1, 3],
    "discrete_laplace_censored": [1, 3, -2, 2],
    "table_sample_ct": [[1, 2, 3], 2],
}


def dtype_of(name):
    if name in ("bits", "uniform_below"):
        return np.uint64
    if name.startswith("bernoulli"):
        return np.bool_
    return np.int64


def kernels():
    yield "bits", (np.int64(5),), K.fill_bits, K.fleet_bits
    for name, (_, fill, fleet) in K.SAMPLERS.items():
        yield name, K.typed_params(name, PARAMS[name]), fill, fleet


def call_all():
    key = K.seed_key_words(1)
    ids = np.arange(4, dtype=np.uint64)
    for name, ps, fill, fleet in kernels():
        st = K.seed_state(K.new_state(), 1)
        out = np.zeros(8, dtype=dtype_of(name))
        s, n = fill(st, *ps, out)
        assert s == 0 and n == 8, (name, s, n)
        out2 = np.zeros((4, 8), dtype=dtype_of(name))
        sto = np.zeros(4, dtype=np.int64)
        fleet(key, ids, np.int64(0), *ps, np.int64(8), out2, sto)
        assert (sto == 0).all(), name


def throughput(n, repeat):
    """samples/s of every fill kernel, best of ``repeat`` by thread CPU time
    (time.thread_time: steadier than wall time on a shared machine)."""
    params = dict(PARAMS, uniform_below=[1000], bernoulli_dyadic_ct=[1, 32],
                  discrete_laplace=[1, 10], discrete_laplace_censored=[1, 10, -5, 5],
                  table_sample_ct=[[1000, 2000, 3000], 12])
    params["bits"] = [32]
    cases = [("bits", (np.int64(32),), K.fill_bits)]
    cases += [(name, K.typed_params(name, params[name]), fill)
              for name, (_, fill, _) in K.SAMPLERS.items()]
    for name, ps, fill in cases:
        out = np.zeros(n, dtype=dtype_of(name))
        fill(K.seed_state(K.new_state(), 1), *ps, out)
        best = float("inf")
        for _ in range(repeat):
            st = K.seed_state(K.new_state(), 1)
            t0 = time.thread_time()
            s, _ = fill(st, *ps, out)
            best = min(best, time.thread_time() - t0)
            assert s == 0
        print(f"{name:26s} {n / best:10.3g} samples/s  params {params[name]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--throughput", action="store_true")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    if a.throughput:
        throughput(a.n, a.repeat)
        return
    t0 = time.perf_counter()
    call_all()
    t_calls = time.perf_counter() - t0
    print(f"import {t_import:.2f} s  calls {t_calls:.2f} s  total {t_import + t_calls:.2f} s")


if __name__ == "__main__":
    main()
