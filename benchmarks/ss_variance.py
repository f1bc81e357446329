"""Subset selection: empirical variance of the frequency estimates against the closed form.

    python benchmarks/ss_variance.py [--n 1000000] [--d 16,1024] [--eps 0.5,1,2,4] [--reps 40,2]

For each (d, eps): a Zipf(1.1) population of n devices (``m.synthetic_population``), simulated
``reps`` times on the keyed streams (seeds 0..reps-1; Numba fleet, in chunks of 50,000 devices so
that the n x k reports never sit in memory at once), inclusion counts accumulated, the unbiased
estimate (c_i/n - q)/(p - q) formed; the figure is the pooled ratio
mean over reps and items of (estimate - truth)^2 / variance(truth, n), with its standard error
over the reps (1.0 when the closed form is right).  Prints a markdown table (docs/accuracy.md).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import fxdp

CHUNK = 50_000


def ratio(d, eps, n, reps):
    m = fxdp.make_subset_selection(d, eps)
    values, truth = m.synthetic_population(n, seed=1)
    var = m.variance(truth, n)
    p, q = float(m.p), float(m.q)
    ids = np.arange(n, dtype=np.uint64)
    per_rep = []
    for seed in range(reps):
        c = np.zeros(d, dtype=np.int64)
        for lo in range(0, n, CHUNK):
            rep = m.simulate(values[lo:lo + CHUNK], seed, device_ids=ids[lo:lo + CHUNK])
            c += m.inclusion_counts(rep)[0]
        est = (c / n - q) / (p - q)
        per_rep.append(float(np.mean((est - truth) ** 2 / var)))
    r = np.array(per_rep)
    se = float(r.std(ddof=1) / np.sqrt(reps)) if reps > 1 else float("nan")
    return m, float(r.mean()), se


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", default="16,1024")
    ap.add_argument("--eps", default="0.5,1,2,4")
    ap.add_argument("--reps", default="40,2", help="repetitions per d (same order as --d)")
    a = ap.parse_args(argv)
    ds = [int(v) for v in a.d.split(",")]
    reps = [int(v) for v in a.reps.split(",")]
    print(f"n = {a.n:,} devices, Zipf(1.1) population\n")
    print("| d | eps | k | bits per report | closed-form variance (f = 0) | empirical / closed form | reps | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d, r in zip(ds, reps):
        for eps in a.eps.split(","):
            t0 = time.perf_counter()
            m, mean, se = ratio(d, eps, a.n, r)
            dt = time.perf_counter() - t0
            sd = f" ± {se:.3f}" if se == se else ""
            print(f"| {d} | {eps} | {m.k} | {m.bits_per_report} | {m.variance(0.0, a.n):.3e} | {mean:.3f}{sd} | "
                  f"{r} | {dt:.0f} |", flush=True)


if __name__ == "__main__":
    main()
