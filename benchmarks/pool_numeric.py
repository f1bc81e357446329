"""Pool independent runs of bench_numeric.py (issue 17's n = 10^6 variance rows) into the rows of docs/accuracy.md.

    python3 benchmarks/pool_numeric.py benchmarks/results/duchi_n1e6_seed0.json benchmarks/results/duchi_n1e6_seed300.json ...

Each file is one ``bench_numeric.py --json`` run of the same kind, devices and reps with its own
``--first-seed`` (disjoint fleet seeds).  With equal reps, the mean of the runs' ratios is the pooled
within-run variance over the closed form (R runs x (reps - 1) degrees of freedom), so its sampling
sd is about sqrt(2 / (R (reps - 1))).  Prints one row per (kind, epsilon, population) in docs/accuracy.md's
format, with each run's ratio in seed order.
"""
from __future__ import annotations

import json
import math
import sys

NAMES = {"duchi": "Duchi", "piecewise": "Piecewise", "hybrid": "Hybrid", "square_wave": "Square Wave (mean)"}


def pool(paths):
    """{(kind, eps, population): [row of each run]} in first-seed order; ValueError when the runs do
    not match (kind, devices, reps) or share fleet seeds."""
    runs = sorted((json.load(open(p))["rows"] for p in paths), key=lambda rows: rows[0]["first_seed"])
    seeds = [rows[0]["first_seed"] for rows in runs]
    reps = {r["reps"] for rows in runs for r in rows}
    if len(reps) != 1 or any(b - a < next(iter(reps)) for a, b in zip(seeds, seeds[1:])):
        raise ValueError(f"runs must have equal reps and disjoint seeds, got first seeds {seeds}, reps {reps}")
    cells = {}
    for rows in runs:
        for r in rows:
            cells.setdefault((r["kind"], r["epsilon"], r["population"]), []).append(r)
    for key, rs in cells.items():
        if len(rs) != len(runs) or len({r["devices"] for r in rs}) != 1:
            raise ValueError(f"cell {key} is not in every run with the same devices")
    return cells


def main(argv=None):
    paths = (argv if argv is not None else sys.argv[1:])
    cells = pool(paths)
    shapes = ("uniform", "skewed")
    keys = sorted({(k, e) for k, e, _ in cells}, key=lambda ke: (ke[0], ke[1]))
    for kind, eps in keys:
        u, s = (cells[(kind, eps, sh)] for sh in shapes)
        n = u[0]["devices"]
        n_txt = f"10^{round(math.log10(n))}" if 10 ** round(math.log10(n)) == n else f"{n:,}"
        fleets = len(u) * u[0]["reps"]
        mean = [sum(r["empirical_over_closed_form"] for r in rs) / len(rs) for rs in (u, s)]
        cont_same = all(f"{r[0]['variance_closed_form']:.4g}" == f"{r[0]['variance_continuous']:.4g}"
                        for r in (u, s))      # equal to the 4 digits printed
        cont = "same" if cont_same else f"{u[0]['variance_continuous']:.4g} / {s[0]['variance_continuous']:.4g}"
        runs_txt = "; ".join(" / ".join(f"{r['empirical_over_closed_form']:.3f}" for r in rs) for rs in (u, s))
        print(f"| {NAMES.get(kind, kind)}, n = {n_txt} ({fleets} fleets) | {eps} | "
              f"{u[0]['variance_closed_form']:.4g} / {s[0]['variance_closed_form']:.4g} | {cont} | "
              f"{u[0]['grid_cost_percent']:+.1e} % | **{mean[0]:.3f} / {mean[1]:.3f}** (runs: {runs_txt}) |")


if __name__ == "__main__":
    main()
