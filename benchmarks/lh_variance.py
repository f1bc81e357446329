"""Local hashing (OLH, BLH): empirical variance of the frequency estimates against the closed form.

    python benchmarks/lh_variance.py [--d 16,1024] [--eps 0.5,1,2,4] [--n 1000000] [--reps 10] [--blh]

For each (d, eps): one Zipf(1.1) population of n devices (``m.synthetic_population``), ``reps``
fleets on seeds 0, 1, ... (``m.simulate``, Numba) and the support-count estimator.  The figure is
the pooled ratio sum over items and fleets of (estimate - truth)^2 over the sum of the closed-form
variances ``m.variance(truth, n)``: 1 in expectation; with reps x d terms its standard deviation is
about sqrt(2 / (reps d)) (printed).  Also prints the wall time of one simulation and one
estimation (O(n d) support counting).
"""
from __future__ import annotations

import argparse
import math
import time

import fxdp


def measure(d, eps, n, reps, optimized):
    m = fxdp.make_local_hashing(d, eps, optimized=optimized)
    values, truth = m.synthetic_population(n, seed=1)
    num = den = 0.0
    t_sim = t_est = 0.0
    for s in range(reps):
        t0 = time.perf_counter()
        y = m.simulate(values, seed=s)
        t1 = time.perf_counter()
        e = m.estimate(y).estimate
        t2 = time.perf_counter()
        t_sim, t_est = t_sim + t1 - t0, t_est + t2 - t1
        num += float(((e - truth) ** 2).sum())
        den += float(m.variance(truth, n).sum())
    return {"d": d, "eps": eps, "g": m.g, "bits": m.bits_per_report, "ratio": num / den,
            "sd": math.sqrt(2.0 / (reps * d)), "sim_s": t_sim / reps, "est_s": t_est / reps,
            "var0": float(m.variance(0.0, n))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", default="16,1024")
    ap.add_argument("--eps", default="0.5,1,2,4")
    ap.add_argument("--n", type=int, default=10**6)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--blh", action="store_true", help="binary local hashing (g = 2) instead of OLH")
    args = ap.parse_args()
    fxdp.make_local_hashing(16, 1).estimate(fxdp.make_local_hashing(16, 1).simulate([0, 1], seed=0))  # compile
    print(f"{'BLH' if args.blh else 'OLH'}, n = {args.n}, {args.reps} fleets per row, Zipf(1.1)")
    print("| d | eps | g | bits/report | empirical / closed-form variance | sd of the ratio | "
          "closed form at f = 0 | simulate (s) | estimate (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in map(int, args.d.split(",")):
        for eps in args.eps.split(","):
            r = measure(d, eps, args.n, args.reps, not args.blh)
            print(f"| {d} | {eps} | {r['g']} | {r['bits']} | {r['ratio']:.3f} | {r['sd']:.3f} | {r['var0']:.3g} | "
                  f"{r['sim_s']:.2f} | {r['est_s']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
