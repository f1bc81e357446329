"""Empirical variance of every frequency oracle against its closed form (issue 10, "Must measure").

For d in {16, 1024, 65536} and epsilon in {0.5, 1, 2, 4}: one Zipf(1.1) population of n = 10^6
devices per d; each oracle (as ``fxdp.estimate.recommend_frequency_oracle`` realizes it for (epsilon,
d)) runs R independent fleets on it (seeds 0..R-1, R = ceil(--items / d), so every row averages
about --items item estimates), each fleet simulated in chunks of devices (``m.simulate`` with device
ids, bit-identical to one call) and reduced to its support counts.  The ratio is

    sum over fleets and items of (estimate - true share)^2 / sum of m.variance(true share, n),

the empirical mean squared error over the closed-form variance at the population's own shares (the
population is fixed, so the closed form is exact; the goal is a ratio in [0.9, 1.1]).  The ratio's
own standard error is printed beside it (from the spread of the per-item ratios).

Oracles whose fleet needs more than --max-draws units of work per row (unary encoding, subset
selection and local hashing cost about d per device: 6.6e10 at d = 65536) are not run; the row
says so.

    python3 benchmarks/variance_table.py                 # the README table (about 10 minutes on 2 cores)
    python3 benchmarks/variance_table.py --d 16 --eps 1 --n 100000
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fxdp import estimate as E  # noqa: E402


def zipf_population(d, n, seed=20261125):
    rng = np.random.default_rng([seed, d])
    w = 1.0 / np.arange(1, d + 1) ** 1.1
    return rng.choice(d, size=n, p=w / w.sum()).astype(np.int64)


def draws_per_device(row, d):
    """Work per device, in draws or hash evaluations (order of magnitude, for --max-draws): unary
    encoding draws d Bernoullis, subset selection scans a d-item map, local hashing's estimator
    hashes every item for every report; the others draw O(1)."""
    return d if row["kind"] in ("unary_encoding", "subset_selection", "local_hashing") else 1


def fleet_support(m, values, seed, chunk):
    counts, n = None, 0
    for start in range(0, values.size, chunk):
        part = values[start:start + chunk]
        ids = np.arange(start, start + part.size, dtype=np.uint64)
        sup = m.frequency_support(m.simulate(part, seed, device_ids=ids))
        counts = sup.counts if counts is None else counts + sup.counts
        n += sup.n
    return counts, n, sup.p, sup.q


def label(row):
    cfg = row["config"]
    extra = {"unary_encoding": lambda: "OUE" if cfg["optimized"] else "SUE",
             "local_hashing": lambda: "OLH" if cfg.get("optimized", True) else "BLH"}
    return extra.get(row["kind"], lambda: row["kind"])()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[16, 1024, 65536])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1, 2, 4])
    ap.add_argument("--n", type=int, default=10 ** 6)
    ap.add_argument("--items", type=int, default=2048, help="item estimates averaged per row")
    ap.add_argument("--max-draws", type=float, default=4e10)
    ap.add_argument("--chunk", type=int, default=50_000)
    args = ap.parse_args(argv)
    print(f"n = {args.n} devices per fleet, Zipf(1.1) population; ratio = empirical MSE / closed-form variance")
    print("| d | eps | oracle | realized eps | fleets | closed-form var (mean over items) | ratio | +- | bits/report | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in args.d:
        values = zipf_population(d, args.n)
        truth = np.bincount(values, minlength=d) / values.size
        for eps in args.eps:
            for row in E.recommend_frequency_oracle(eps, d, args.n):
                m, fleets = row["mechanism"], max(1, math.ceil(args.items / d))
                if draws_per_device(row, d) * args.n * fleets > args.max_draws:
                    print(f"| {d} | {eps:g} | {label(row)} | {row['epsilon']:.6g} | - | - | not run: "
                          f"{draws_per_device(row, d) * args.n * fleets:.1e} draws > --max-draws | | "
                          f"{row['bits_per_report']} | |", flush=True)
                    continue
                t0 = time.perf_counter()
                err2, var = [], m.variance(truth, args.n)
                for s in range(fleets):
                    counts, n, p, q = fleet_support(m, values, s, args.chunk)
                    est = (counts / n - float(q)) / (float(p) - float(q))
                    err2.append((est - truth) ** 2)
                err2 = np.concatenate(err2)
                v = np.tile(var, fleets)
                ratio = err2.sum() / v.sum()
                se = math.sqrt(float(((err2 - ratio * v) ** 2).sum())) / v.sum()   # delta method
                print(f"| {d} | {eps:g} | {label(row)} | {row['epsilon']:.6g} | {fleets} | {var.mean():.3e} | "
                      f"{ratio:.3f} | {se:.3f} | {row['bits_per_report']} | {time.perf_counter() - t0:.0f} |",
                      flush=True)


if __name__ == "__main__":
    main()
