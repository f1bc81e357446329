"""Compile and throughput check of the sampler fill_/fleet_ kernels (issue 9, item 4).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/bench_kernel_compile.py          # cold
    NUMBA_CACHE_DIR=<same dir>   python benchmarks/bench_kernel_compile.py          # warm
    python benchmarks/bench_kernel_compile.py --throughput [--n 1000000] [--repeat 5]

Without --throughput: imports fxdp.samplers._kernels and calls every fill_* and
fleet_* kernel once on small inputs (canonical argument types, typed_params),
printing the import time and the time of the calls (compilation or cache load
included).  Run it in a fresh process with an empty NUMBA_CACHE_DIR (cold) and
again with that directory populated (warm).  With --throughput: samples/s of a
few fill kernels on one keyed stream, best of --repeat after a warm-up.
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
    cases = [("bits", (np.int64(32),), K.fill_bits),
             ("bernoulli_dyadic", K.typed_params("bernoulli_dyadic", [3, 2]), K.fill_bernoulli_dyadic),
             ("bernoulli_dyadic_ct", K.typed_params("bernoulli_dyadic_ct", [1, 32]),
              K.fill_bernoulli_dyadic_ct),
             ("discrete_laplace", K.typed_params("discrete_laplace", [1, 10]), K.fill_discrete_laplace),
             ("table_sample_ct", K.typed_params("table_sample_ct", [[1000, 2000, 3000], 12]),
              K.fill_table_sample_ct)]
    for name, ps, fill in cases:
        out = np.zeros(n, dtype=dtype_of(name))
        st = K.seed_state(K.new_state(), 1)
        fill(st, *ps, out)
        best = float("inf")
        for _ in range(repeat):
            st = K.seed_state(K.new_state(), 1)
            t0 = time.perf_counter()
            s, _ = fill(st, *ps, out)
            best = min(best, time.perf_counter() - t0)
            assert s == 0
        print(f"{name:22s} {n / best:12.4g} samples/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--throughput", action="store_true")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
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
