"""Empirical variance of every frequency oracle against its closed form (issue 10, "Must measure").

For d in {16, 1024, 65536} and epsilon in {0.5, 1, 2, 4}: one Zipf(1.1) population of n = 10^6
devices per d; each oracle (as ``fxdp.estimate.recommend_frequency_oracle`` realizes it for (epsilon,
d)) runs R independent fleets on it (R = ceil(--items / d), so every row averages about --items
item estimates; seeds: below), each fleet reduced to its support counts (``m.simulate_support``
where the oracle has it: unary encoding, L-OUE and subset selection, the same bits as ``m.simulate``
without the n x d or n x k reports; else ``m.simulate`` in chunks of devices with device ids,
bit-identical to one call, and ``m.frequency_support``).  The ratio is

    sum over fleets and items of (estimate - true share)^2 / sum of m.variance(true share, n),

the empirical mean squared error over the closed-form variance at the population's own shares (the
population is fixed, so the closed form is exact; the goal is a ratio in [0.9, 1.1]).  The ratio's
own standard error is printed beside it (delta method over the per-item terms; for normal
estimates about sqrt(2 / items)).

Work per device (``draws_per_device``): unary encoding draws d Bernoullis, subset selection k
uniform indices, local hashing's estimator hashes every item for every report.  A row that
would need more than --max-draws units of work is run so:

* unary encoding and subset selection: on a fleet of --heavy-n devices (a Zipf population of that
  size; the closed form is exact at every n, and the ratio does not depend on n);
* local hashing: all n devices, but the support counts (O(n) per item) of only --lh-items items,
  the first and the last --lh-items / 2 (``m.frequency_support(reports, items=range(lo, hi))``);
  --lh-items 0 counts all d items (``support_counts_blocked``: about 1 ns per device and item).

The fleets column says how many fleets of how many devices, and the items column how many item
estimates the ratio averages.

    python3 benchmarks/variance_table.py                 # the table of docs/accuracy.md (see there for its time)
    python3 benchmarks/variance_table.py --d 16 --eps 1 --n 100000
    python3 benchmarks/variance_table.py --d 16 --items 512 --oracles HR k-RR --seed-base 1

Seeds.  Every cell (oracle, d, eps) draws its own fleets: fleet j of a cell runs on the int seed
(stream version 2) ``cell_seed(label, d, eps, j, base)`` = the first 16 bytes, big-endian, of
SHA-256("fxdp variance_table base=<base> oracle=<label> d=<d> eps=<eps:g> fleet=<j>"), e.g.
"fxdp variance_table base=0 oracle=OUE d=16 eps=0.5 fleet=3" (base = --seed-base, default 0).
So no two cells share stream bits and their deviations from 1 are independent (with the seeds
0, 1, ... of every cell, one unlucky set of seeds moved a whole column); another --seed-base
gives a fresh, independent set of fleets for every cell.  The populations are fixed per (d, n)
and shared by the cells (the ratio is conditional on them).
"""
from __future__ import annotations

import argparse
import hashlib
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


def cell_seed(label, d, eps, fleet, base=0):
    """The int seed of fleet ``fleet`` of the cell (label, d, eps) (module docstring, Seeds)."""
    text = f"fxdp variance_table base={base} oracle={label} d={d} eps={eps:g} fleet={fleet}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big")


def draws_per_device(row, d):
    """Work per device, in draws or hash evaluations (order of magnitude, for --max-draws): unary
    encoding draws d Bernoullis (L-OUE 2 d), subset selection k uniform indices (``simulate_support``: no
    scan of its d-item map), local hashing's estimator hashes every item for every report (in
    SIMD lanes, ``support_counts_blocked``, about 1 ns a step); the others draw O(1)."""
    if row["kind"] == "subset_selection":
        return row["mechanism"].k
    if row["kind"] == "longitudinal_ue":          # a permanent and an instantaneous draw per item
        return 2 * d
    return d if row["kind"] in ("unary_encoding", "local_hashing") else 1


def item_windows(d, limit):
    """The items whose support is counted: None (all of [0, d)), or the first and last limit / 2."""
    if d <= limit:
        return None
    return [range(0, limit // 2), range(d - limit // 2, d)]


def fleet_support(m, values, seed, chunk, windows):
    """Support counts (of every item, or of the items in windows, concatenated), n, p and q of one
    fleet on values (device i of the fleet is device id i), simulated in chunks of devices."""
    if hasattr(m, "simulate_support"):               # the whole fleet in O(d) memory
        sup = m.simulate_support(values, seed, device_ids=np.arange(values.size, dtype=np.uint64))
        return sup.counts, sup.n, sup.p, sup.q
    counts, n = None, 0
    for start in range(0, values.size, chunk):
        part = values[start:start + chunk]
        ids = np.arange(start, start + part.size, dtype=np.uint64)
        reports = m.simulate(part, seed, device_ids=ids)
        if windows is None:
            sup = m.frequency_support(reports)
            c = sup.counts
        else:
            sups = [m.frequency_support(reports, items=w) for w in windows]
            sup, c = sups[0], np.concatenate([x.counts for x in sups])
        counts = c if counts is None else counts + c
        n += sup.n
    return counts, n, sup.p, sup.q


def longitudinal_rows(eps, d):
    """L-GRR and L-OUE (their closed form is per round) at epsilon_perm = eps (any number of
    reports) and epsilon_1 = eps / 2 (one report), in recommend_frequency_oracle's row format."""
    from fxdp.registry import constructor
    rows = []
    for kind, size in (("longitudinal_grr", max(1, (d - 1).bit_length())), ("longitudinal_ue", d)):
        try:
            m = constructor(kind)(d=d, epsilon_perm=eps, epsilon_1=eps / 2)
        except ValueError:            # not realizable at 32 bits (or d beyond the form)
            continue
        rows.append({"kind": kind, "config": {}, "epsilon": m.epsilon, "bits_per_report": size, "mechanism": m})
    return rows


def label(row):
    cfg = row["config"]
    extra = {"unary_encoding": lambda: "OUE" if cfg["optimized"] else "SUE",
             "local_hashing": lambda: "OLH" if cfg.get("optimized", True) else "BLH"}
    extra.update({"randomized_response": lambda: "k-RR", "hadamard_response": lambda: "HR",
                  "subset_selection": lambda: "SS", "longitudinal_grr": lambda: "L-GRR (one round)",
                  "longitudinal_ue": lambda: "L-OUE (one round)"})
    return extra.get(row["kind"], lambda: row["kind"])()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[16, 1024, 65536])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1, 2, 4])
    ap.add_argument("--n", type=int, default=10 ** 6)
    ap.add_argument("--items", type=int, default=2048, help="item estimates averaged per row (fleets = items / d)")
    ap.add_argument("--max-draws", type=float, default=4e10)
    ap.add_argument("--heavy-n", type=int, default=10 ** 5,
                    help="devices per fleet of unary encoding and subset selection beyond --max-draws")
    ap.add_argument("--lh-items", type=int, default=4096,
                    help="items whose support local hashing counts beyond --max-draws (0: all d items, "
                         "all n devices)")
    ap.add_argument("--longitudinal", action="store_true",
                    help="L-GRR and L-OUE (one round; epsilon_perm = eps, epsilon_1 = eps / 2) instead of the "
                         "one-shot oracles; L-OUE beyond --max-draws is not run")
    ap.add_argument("--seed-base", type=int, default=0,
                    help="enters every cell's seeds (module docstring, Seeds): another base, other fleets")
    ap.add_argument("--oracles", nargs="+", default=None, help="only these (labels: k-RR OUE SUE OLH BLH HR SS)")
    ap.add_argument("--chunk", type=int, default=50_000)
    ap.add_argument("--report-bytes", type=float, default=2e8, help="report memory per chunk of devices")
    args = ap.parse_args(argv)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: python3 benchmarks/variance_table.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}")
    print(f"n = {args.n} devices per fleet unless the fleets column says otherwise, Zipf(1.1) population; "
          "ratio = empirical MSE / closed-form variance")
    print("| d | eps | oracle | realized eps | fleets x devices | items | closed-form var (mean over items) | "
          "ratio | +- | bits/report | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    populations = {}
    for d in args.d:
        for eps in args.eps:
            rows = longitudinal_rows(eps, d) if args.longitudinal else E.recommend_frequency_oracle(eps, d, args.n)
            for row in rows:
                if args.oracles is not None and label(row) not in args.oracles:
                    continue
                m, fleets, n = row["mechanism"], max(1, math.ceil(args.items / d)), args.n
                windows = None
                if args.longitudinal and draws_per_device(row, d) * n * fleets > args.max_draws:
                    print(f"| {d} | {eps:g} | {label(row)} | {row['epsilon']:.6g} | not run | | | | | "
                          f"{row['bits_per_report']} | |", flush=True)
                    continue
                if draws_per_device(row, d) * n * fleets > args.max_draws:
                    if hasattr(m, "support_counts"):          # local hashing: fewer items, all devices
                        windows = item_windows(d, args.lh_items) if args.lh_items > 0 else None
                    else:                                       # fewer devices, all items
                        n = args.heavy_n
                if (d, n) not in populations:
                    values = zipf_population(d, n)
                    populations[d, n] = values, np.bincount(values, minlength=d) / values.size
                values, truth = populations[d, n]
                if windows is not None:
                    truth = np.concatenate([truth[w.start:w.stop] for w in windows])
                t0 = time.perf_counter()
                chunk = min(args.chunk, max(256, int(args.report_bytes // max(1, m.simulate(values[:1], 0).nbytes))))
                err2, var = [], m.variance(truth, n)
                for j in range(fleets):
                    seed = cell_seed(label(row), d, eps, j, args.seed_base)
                    counts, nn, p, q = fleet_support(m, values, seed, chunk, windows)
                    est = (counts / nn - float(q)) / (float(p) - float(q))
                    err2.append((est - truth) ** 2)
                err2 = np.concatenate(err2)
                v = np.tile(var, fleets)
                ratio = err2.sum() / v.sum()
                se = math.sqrt(float(((err2 - ratio * v) ** 2).sum())) / v.sum()   # delta method
                print(f"| {d} | {eps:g} | {label(row)} | {row['epsilon']:.6g} | {fleets} x {n:.0e} | {err2.size} | "
                      f"{var.mean():.3e} | {ratio:.3f} | {se:.3f} | {row['bits_per_report']} | "
                      f"{time.perf_counter() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
