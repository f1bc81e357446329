"""Numeric readings under local DP (issue 17): the empirical variance of each grid mechanism's mean
estimate against its own closed form, and the closed form against the continuous mechanism's.

For every epsilon in {0.5, 1, 2, 4} and population (uniform, skewed = Beta(2, 5)) on [0, 1]:
`--reps` fleets of `--devices` devices (seeds 0..reps-1, one fixed population) through the Numba
fleet kernel; the empirical variance of the mean estimate over the fleets divided by the grid
mechanism's closed form (``m.variance``), with its sampling band (a ratio from R fleets has a
standard deviation of about sqrt(2 / (R - 1))), and the grid's cost against the continuous
mechanism (``m.variance / m.continuous_variance - 1``).

    python3 benchmarks/bench_numeric.py --devices 1000000 --reps 200 [--json out.json]

Mechanisms: Duchi et al., Piecewise and Hybrid (``make_duchi``, ``make_piecewise``, ``make_hybrid``,
bits = 12; ``--kinds`` to choose).  The variance of a mean is exactly the per-device variance over n,
so a smaller --devices with more --reps checks the same closed form more tightly for the same time.
"""
from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

import fxdp

EPSILONS = (0.5, 1, 2, 4)
SHAPES = ("uniform", "skewed")


def variance_rows(devices, reps, bits=12, kinds=("duchi",)):
    rows = []
    for kind in kinds:
        make = getattr(fxdp, f"make_{kind}")
        for eps in EPSILONS:
            m = make(0, 1, eps, bits=bits)
            for shape in SHAPES:
                vals, truth = m.population(devices, seed=11, shape=shape)
                t0 = time.perf_counter()
                est = np.array([m.estimate(m.simulate(vals, seed=s)).estimate for s in range(reps)])
                secs = time.perf_counter() - t0
                closed = m.variance(vals)
                ratio = float(est.var(ddof=1) / closed)
                rows.append({"kind": kind, "epsilon": eps, "epsilon_realized": m.epsilon, "population": shape,
                             "devices": devices, "reps": reps, "truth": truth,
                             "mean_error": float(est.mean() - truth),
                             "variance_closed_form": closed,
                             "variance_continuous": m.continuous_variance(vals),
                             "empirical_over_closed_form": ratio,
                             "ratio_sd": math.sqrt(2 / (reps - 1)),
                             "grid_cost_percent": 100 * (closed / m.continuous_variance(vals) - 1),
                             "seconds": secs})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--kinds", default="duchi,piecewise,hybrid")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = variance_rows(args.devices, args.reps, kinds=tuple(args.kinds.split(",")))
    print("| mechanism | eps | population | variance (grid, closed form) | continuous | grid cost | "
          "empirical / closed form (+- 1 sd) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kind']} | {r['epsilon']} | {r['population']} | {r['variance_closed_form']:.4g} | "
              f"{r['variance_continuous']:.4g} | {r['grid_cost_percent']:.2e} % | "
              f"{r['empirical_over_closed_form']:.3f} (+- {r['ratio_sd']:.3f}) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
