"""Numeric readings under local DP (issue 17): the empirical variance of each grid mechanism's mean
estimate against its own closed form, and the closed form against the continuous mechanism's.

For every epsilon in {0.5, 1, 2, 4} and population (uniform, skewed = Beta(2, 5)) on [0, 1]:
`--reps` fleets of `--devices` devices (seeds first_seed..first_seed+reps-1, `--first-seed`, default
0; one fixed population) through the Numba
fleet kernel; the empirical variance of the mean estimate over the fleets divided by the grid
mechanism's closed form (``m.variance``), with its sampling band (a ratio from R fleets has a
standard deviation of about sqrt(2 / (R - 1))), and the grid's cost against the continuous
mechanism (``m.variance / m.continuous_variance - 1``).

    python3 benchmarks/bench_numeric.py --devices 1000000 --reps 200 [--json out.json]

Mechanisms: Duchi et al., Piecewise and Hybrid (``make_duchi``, ``make_piecewise``, ``make_hybrid``,
bits = 12; ``--kinds`` to choose, e.g. ``--kinds square_wave``).  ``--ems``: Square Wave's EMS
histogram error instead (one fleet of --devices per epsilon and population, 16 bins).  ``--compare``:
the mean-squared error of the mean estimate of Duchi, Piecewise, Hybrid, the bounded geometric and the
fixed-point Laplace on one integer population in [10, 30] at each epsilon, in one run, each built from
its ``fxdp.recommend_numeric`` row (same epsilon, realized never above it) and estimated by its own
estimator; the MSE is against the population's true mean, so the clamped mechanisms' bias counts:

    nice -n 10 python3 benchmarks/bench_numeric.py --compare --devices 10000 --reps 100  The variance of a mean is exactly the per-device variance over n,
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


def variance_rows(devices, reps, bits=12, kinds=("duchi",), first_seed=0):
    rows = []
    for kind in kinds:
        make = getattr(fxdp, f"make_{kind}")
        for eps in EPSILONS:
            m = make(0, 1, eps, bits=bits)
            for shape in SHAPES:
                vals, truth = m.population(devices, seed=11, shape=shape)
                t0 = time.perf_counter()
                est = np.array([m.estimate(m.simulate(vals, seed=s)).estimate
                                for s in range(first_seed, first_seed + reps)])
                secs = time.perf_counter() - t0
                closed = m.variance(vals)
                ratio = float(est.var(ddof=1) / closed)
                rows.append({"kind": kind, "epsilon": eps, "epsilon_realized": m.epsilon, "population": shape,
                             "devices": devices, "reps": reps, "first_seed": first_seed, "truth": truth,
                             "mean_error": float(est.mean() - truth),
                             "variance_closed_form": closed,
                             "variance_continuous": m.continuous_variance(vals),
                             "empirical_over_closed_form": ratio,
                             "ratio_sd": math.sqrt(2 / (reps - 1)),
                             "grid_cost_percent": 100 * (closed / m.continuous_variance(vals) - 1),
                             "seconds": secs})
    return rows


def ems_rows(devices, bins=16, seed=1):
    """Square Wave's EMS histogram against the truth: for each epsilon and population on [0, 40],
    one fleet of `devices` devices; the L1 distance of the EMS histogram (``bins`` bins) to the true
    one, the largest bin error, the largest bootstrap standard error, and the uniform guess's L1."""
    rows = []
    for eps in EPSILONS:
        m = fxdp.make_square_wave(0, 40, eps, bins=bins)
        for shape in SHAPES:
            vals, _ = m.population(devices, seed=seed, shape=shape)
            truth = m.true_statistic(vals)[1:]
            reports = m.simulate(vals, seed=seed + 2)
            t0 = time.perf_counter()
            h = m.estimate_distribution(reports)
            secs = time.perf_counter() - t0
            err = np.abs(h.estimate - truth)
            rows.append({"epsilon": eps, "population": shape, "devices": devices, "bins": bins,
                         "l1": float(err.sum()), "max_bin_error": float(err.max()),
                         "max_stderr": float(h.stderr.max()), "l1_uniform_guess": float(np.abs(1 / bins - truth).sum()),
                         "seconds": secs})
    return rows


COMPARE_RANGE = (10, 30)        # --compare: whole degrees, the thermostat's range (fxdp demo)


def compare_population(devices, shape, seed=11):
    """Integer readings in COMPARE_RANGE (every mechanism takes them as they are): "uniform", or
    "skewed" = round(lo + (hi - lo) Beta(2, 5)); seeded."""
    lo, hi = COMPARE_RANGE
    rng = np.random.default_rng([seed, 0xC0DE])
    u = rng.random(devices) if shape == "uniform" else rng.beta(2.0, 5.0, devices)
    return np.rint(lo + (hi - lo) * u).astype(np.int64)


def _device_values(m, readings):
    """Readings as the mechanism's simulate takes them: raw fixed point for the fixed-point Laplace."""
    if m.kind == "laplace_fixed":
        return readings * np.int64(1 << m.F)
    return readings


def compare_rows(devices, reps, epsilons=EPSILONS, shapes=SHAPES):
    """The MSE of each numeric mechanism's mean estimate over `reps` fleets of `devices` devices
    (seeds 0..reps-1) on one population per shape, at each epsilon, with recommend_numeric's
    worst-case MSE beside it."""
    from fxdp.registry import constructor
    lo, hi = COMPARE_RANGE
    rows = []
    for eps in epsilons:
        ranked = fxdp.recommend_numeric(lo, hi, eps, devices, integer_readings=True)
        for shape in shapes:
            readings = compare_population(devices, shape)
            truth = float(readings.mean())
            for r in ranked:
                m = constructor(r["kind"])(**r["config"])
                x = _device_values(m, readings)
                t0 = time.perf_counter()
                est = np.array([float(m.estimate(m.simulate(x, seed=s)).estimate) for s in range(reps)])
                err = est - truth
                rows.append({"kind": r["kind"], "epsilon": eps, "epsilon_realized": float(r["epsilon"]),
                             "population": shape, "devices": devices, "reps": reps, "truth": truth,
                             "mse": float(np.mean(err ** 2)), "bias": float(err.mean()),
                             "variance": float(est.var(ddof=1)), "mse_worst_case_formula": float(r["mse"]),
                             "seconds": time.perf_counter() - t0})
    return rows


def worst_case(m):
    """Worst-case per-device variance of the position t^ over the grid levels (closed form)."""
    n = m.N
    levels = np.arange(n + 1)
    readings = float(m.lo) + float(m.hi - m.lo) * levels / n
    return max(m.variance(readings[k:k + 1]) for k in range(0, n + 1, max(1, n // 64))) * 4 / float(m.hi - m.lo) ** 2


def crossover(bits=12, lo=0.3, hi=3.0, tol=1e-4):
    """The epsilon where the grid Duchi and the grid Piecewise mechanisms have equal worst-case
    variance (continuous: ~1.29), by bisection on the closed forms."""
    def diff(eps):
        return worst_case(fxdp.make_duchi(0, 1, eps, bits=bits)) - worst_case(fxdp.make_piecewise(0, 1, eps, bits=bits))
    a, b = lo, hi
    while b - a > tol:
        mid = (a + b) / 2
        if diff(mid) < 0:          # Duchi still better
            a = mid
        else:
            b = mid
    return (a + b) / 2


def hybrid_switch(bits=12, lo=0.2, hi=1.5, tol=1e-4):
    """The largest epsilon at which mixing in Piecewise with beta = 1 - e^(-eps/2) does not lower
    the worst-case variance below Duchi alone (the paper's eps* ~ 0.61), on the grid closed forms."""
    def gain(eps):
        du, pm = fxdp.make_duchi(0, 1, eps, bits=bits), fxdp.make_piecewise(0, 1, eps, bits=bits)
        beta = 1 - math.exp(-eps / 2)
        i = np.arange(0, pm.N + 1, max(1, pm.N // 256))
        t = 2.0 * i / pm.N - 1
        v_pm = float(pm.alpha) ** 2 * pm._second_moment(i) - t * t
        v_du = float(du.B) ** 2 - t * t
        return np.max(v_du) - np.max(beta * v_pm + (1 - beta) * v_du)
    a, b = lo, hi
    while b - a > tol:
        mid = (a + b) / 2
        if gain(mid) <= 0:
            a = mid
        else:
            b = mid
    return (a + b) / 2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--kinds", default="duchi,piecewise,hybrid")
    ap.add_argument("--json", default=None)
    ap.add_argument("--first-seed", type=int, default=0,
                    help="fleet seeds first_seed .. first_seed + reps - 1 (independent runs to pool)")
    ap.add_argument("--ems", action="store_true", help="only Square Wave's EMS histogram error table")
    ap.add_argument("--compare", action="store_true",
                    help="only the MSE of Duchi, Piecewise, Hybrid, bounded geometric, fixed-point Laplace")
    args = ap.parse_args(argv)
    if args.compare:
        t0 = time.perf_counter()
        rows = compare_rows(args.devices, args.reps)
        print(f"{args.reps} fleets of {args.devices:,} devices, readings in {list(COMPARE_RANGE)}; "
              f"{time.perf_counter() - t0:.0f} s")
        print("| eps | population | mechanism | realized eps | MSE of the mean | bias | variance | "
              "worst-case MSE (recommend_numeric) |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['epsilon']} | {r['population']} | {r['kind']} | {r['epsilon_realized']:.4f} | "
                  f"{r['mse']:.3g} | {r['bias']:+.3g} | {r['variance']:.3g} | {r['mse_worst_case_formula']:.3g} |")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"compare_rows": rows}, f, indent=1)
        return
    if args.ems:
        rows = ems_rows(args.devices)
        print("| eps | population | L1 (EMS) | largest bin error | largest bootstrap stderr | L1 (uniform guess) | "
              "EMS seconds |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['epsilon']} | {r['population']} | {r['l1']:.4f} | {r['max_bin_error']:.4f} | "
                  f"{r['max_stderr']:.4f} | {r['l1_uniform_guess']:.3f} | {r['seconds']:.2f} |")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"ems_rows": rows}, f, indent=1)
        return
    rows = variance_rows(args.devices, args.reps, kinds=tuple(args.kinds.split(",")), first_seed=args.first_seed)
    print("| mechanism | eps | population | variance (grid, closed form) | continuous | grid cost | "
          "empirical / closed form (+- 1 sd) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kind']} | {r['epsilon']} | {r['population']} | {r['variance_closed_form']:.4g} | "
              f"{r['variance_continuous']:.4g} | {r['grid_cost_percent']:.2e} % | "
              f"{r['empirical_over_closed_form']:.3f} (+- {r['ratio_sd']:.3f}) |")
    cross = crossover()
    switch = hybrid_switch()
    print(f"worst-case crossover Duchi / Piecewise on the grid (bits = 12): eps = {cross:.4f} (continuous: 1.29)")
    print(f"Hybrid switch point on the grid (mixing in Piecewise starts to pay): eps = {switch:.4f} (paper: 0.61)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "crossover_duchi_piecewise": cross, "hybrid_switch": switch}, f, indent=1)


if __name__ == "__main__":
    main()
