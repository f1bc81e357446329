"""Samplers benchmark: fxdp's exact Numba samplers against numpy's inexact float ones.

    python benchmarks/bench_samplers.py [--n 2000000] [--repeat 5]

One table, measured in one run on this machine, single thread:
samples/s of each fxdp sampler (``fill_*`` kernel on one keyed ChaCha20 stream,
bits generated included), samples/s of the numpy equivalent
(``rng.random(n) < p`` for Bernoulli, ``rng.geometric(p) - rng.geometric(p)``
for discrete Laplace, ``rng.integers`` for uniform), their ratio, the random
bits fxdp consumed per sample and the Shannon entropy of the output
distribution (the lower bound on bits per sample for any exact sampler).
Best of ``--repeat`` runs after a warm-up (JIT compilation excluded).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fxdp.samplers import _kernels as K  # noqa: E402
from fxdp.samplers.bounded import make_bounded_laplace_table  # noqa: E402


def best_rate(fn, n, repeat):
    fn()  # warm-up (compilation, caches)
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def h_bernoulli(p):
    return 0.0 if p in (0, 1) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def h_discrete_laplace(s, t):
    rho = math.exp(-s / t)
    c = (1 - rho) / (1 + rho)
    h, z = -c * math.log2(c), 1
    while True:
        pz = c * rho ** z
        if pz < 1e-300:
            break
        h -= 2 * pz * math.log2(pz)
        z += 1
    return h


def h_table(weights, k):
    return -sum(w / 2**k * math.log2(w / 2**k) for w in weights)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    n, rep = args.n, args.repeat
    rng = np.random.default_rng(1)
    table = make_bounded_laplace_table(10, (0, 100), k=32)
    thr = np.asarray(table.thresholds, dtype=np.uint32)
    a32 = 3221225472  # 0.75 * 2^32

    rows = []

    def fx(name, kernel, params, dtype, np_fn, entropy):
        state = K.seed_state(K.new_state(), 2026)
        out = np.empty(n, dtype=dtype)
        used = []

        def run():
            K.seed_state(state, 2026)
            st, cnt = kernel(state, *params, out)
            assert st == 0 and cnt == n
            used.append(K.bits_used(state))

        rate = best_rate(run, n, rep)
        np_rate = best_rate(np_fn, n, rep) if np_fn else None
        rows.append((name, rate, np_rate, used[-1] / n, entropy))

    p = 0.75
    fx("bernoulli_dyadic 3/4 (lazy)", K.fill_bernoulli_dyadic, (np.uint64(3), np.uint64(2)), np.bool_,
       lambda: rng.random(n) < p, h_bernoulli(p))
    fx("bernoulli_dyadic a/2^32 (lazy)", K.fill_bernoulli_dyadic, (np.uint64(a32 + 12345), np.uint64(32)),
       np.bool_, lambda: rng.random(n) < p, h_bernoulli(p))
    fx("bernoulli_dyadic_ct a/2^32", K.fill_bernoulli_dyadic_ct, (np.uint64(a32), np.uint64(32)), np.bool_,
       lambda: rng.random(n) < p, h_bernoulli(p))
    fx("bernoulli_rational 1/3", K.fill_bernoulli_rational, (np.uint64(1), np.uint64(3)), np.bool_,
       lambda: rng.random(n) < 1 / 3, h_bernoulli(1 / 3))
    fx("bernoulli_exp exp(-1/2)", K.fill_bernoulli_exp, (np.uint64(1), np.uint64(2)), np.bool_,
       lambda: rng.random(n) < math.exp(-0.5), h_bernoulli(math.exp(-0.5)))
    fx("uniform_below 1000", K.fill_uniform_below, (np.uint64(1000),), np.uint64,
       lambda: rng.integers(0, 1000, n), math.log2(1000))
    for scale in (1, 10, 100):
        q = 1 - math.exp(-1 / scale)
        fx(f"discrete_laplace scale {scale}", K.fill_discrete_laplace, (np.uint64(1), np.uint64(scale)),
           np.int64, lambda q=q: rng.geometric(q, n) - rng.geometric(q, n), h_discrete_laplace(1, scale))
    fx("bounded table (CT) scale 10, [0,100]", K.fill_table_sample_ct, (thr, np.uint64(32)), np.int64,
       lambda: rng.geometric(1 - math.exp(-0.1), n) - rng.geometric(1 - math.exp(-0.1), n),
       h_table(table.weights, 32))

    print(f"fxdp samplers vs numpy (inexact floats), n = {n:,}, best of {rep}, single thread")
    hdr = f"{'sampler':<38} {'fxdp /s':>11} {'numpy /s':>11} {'ratio':>7} {'bits/sample':>12} {'entropy':>8}"
    print(hdr)
    print("-" * len(hdr))
    for name, rate, np_rate, bits, ent in rows:
        ratio = rate / np_rate if np_rate else float("nan")
        print(f"{name:<38} {rate:>11.3e} {np_rate:>11.3e} {ratio:>7.2f} {bits:>12.2f} {ent:>8.2f}")


if __name__ == "__main__":
    main()
