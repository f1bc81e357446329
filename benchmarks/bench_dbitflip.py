"""dBitFlip against multi-freq-ldpy's dBitFlipPM (the `bench` extra), on the same population and
epsilon, in one run.

At each (d, buckets, sampled, eps):

* MSE of the bucket-share estimate over `--trials` fleets of `--n` devices drawn from one Zipf(1.1)
  population: fxdp's `m.estimate` (the paper's estimator) on `m.simulate` against the same
  estimator on the peer's reports (its client `dBitFlipPM_Client` called once per device, with its
  own float p = e^(eps/2)/(e^(eps/2) + 1)); the peer's own aggregator `dBitFlipPM_Aggregator_MI`
  clips and renormalizes, so its MSE is shown apart.  The peer maps x to bucket int(x / (d/b)), fxdp
  to x * b // d: the same buckets.
* The exact one-report epsilon of both (the ratio (p/q)^2 for s >= 2, p/q for s = 1).
* Reports per second: fxdp's fleet (`m.simulate`, Numba, one thread) against the peer's client loop.

    python3 benchmarks/bench_dbitflip.py                 # d = 1024, buckets 16 and 64, s 1 and 4, eps 1 and 4
    python3 benchmarks/bench_dbitflip.py --n 20000 --trials 10
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fxdp  # noqa: E402


def zipf_population(d, n, seed):
    rng = np.random.default_rng([seed, 0x5EED])
    w = 1.0 / np.arange(1, d + 1) ** 1.1
    return rng.choice(d, size=n, p=w / w.sum()).astype(np.int64)


def paper_estimate(Y, N, n, b, s, p):
    q = 1 - p
    return (b / (n * s)) * (Y - q * N) / (p - q)


def run(d, b, s, eps, n, trials, seed):
    from multi_freq_ldpy.long_freq_est.dBitFlipPM import dBitFlipPM_Aggregator_MI, dBitFlipPM_Client
    m = fxdp.make_dbitflip(d, b, eps, sampled_buckets=s)
    values = zipf_population(d, n, seed)
    truth = m.true_statistic(values)
    e = math.exp(float(eps) / 2)
    p_peer = e / (e + 1)
    err_f, err_p, err_mi = [], [], []
    m.simulate(values[:10], seed=0)                     # compile (cached) before timing
    dBitFlipPM_Client(int(values[0]), d, b, s, float(eps))
    t_f = t_p = 0.0
    for t in range(trials):
        t0 = time.perf_counter()
        est = m.estimate(m.simulate(values, seed=1000 * seed + t)).estimate
        t_f += time.perf_counter() - t0
        np.random.seed(1000 * seed + t)
        t0 = time.perf_counter()
        rep = np.array([dBitFlipPM_Client(int(v), d, b, s, float(eps)) for v in values])
        t_p += time.perf_counter() - t0
        Y, N = (rep == 1).sum(axis=0), (rep >= 0).sum(axis=0)
        err_f.append(np.mean((est - truth) ** 2))
        err_p.append(np.mean((paper_estimate(Y, N, n, b, s, p_peer) - truth) ** 2))
        if t == 0:
            err_mi.append(np.mean((dBitFlipPM_Aggregator_MI(rep, b, s, float(eps)) - truth) ** 2))
    ratio = np.array(err_f) / np.array(err_p)        # per fleet, for the standard error
    bit = p_peer / (1 - p_peer)
    peer_eps = 2 * math.log(bit) if s >= 2 else math.log(bit)
    return {"mse_fxdp": float(np.mean(err_f)), "mse_peer": float(np.mean(err_p)), "mse_peer_mi": float(err_mi[0]),
            "ratio": float(np.mean(err_f) / np.mean(err_p)),
            "ratio_se": float(ratio.std(ddof=1) / math.sqrt(trials)) if trials > 1 else float("nan"),
            "closed_form": float(np.mean(m.variance(truth, n))), "eps_fxdp": m.epsilon, "eps_peer": peer_eps,
            "rate_fxdp": n * trials / t_f, "rate_peer": n * trials / t_p}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", type=int, default=1024)
    ap.add_argument("--buckets", default="16,64")
    ap.add_argument("--sampled", default="1,4")
    ap.add_argument("--eps", default="1,4")
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--trials", type=int, default=5)
    a = ap.parse_args(argv)
    numba.set_num_threads(1)
    print(f"d = {a.d}, n = {a.n:,} devices per fleet, {a.trials} fleets, Zipf(1.1); multi-freq-ldpy dBitFlipPM\n")
    print("| buckets | s | eps | epsilon fxdp / peer | MSE fxdp | MSE peer (same estimator) | ratio | "
          "closed form | MSE peer MI (clipped, normalized) | reports/s fxdp | peer | speedup |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for b in (int(v) for v in a.buckets.split(",")):
        for s in (int(v) for v in a.sampled.split(",")):
            for eps in a.eps.split(","):
                r = run(a.d, b, s, eps, a.n, a.trials, seed=b * 100 + s)
                print(f"| {b} | {s} | {eps} | {r['eps_fxdp']:.4f} / {r['eps_peer']:.4f} | {r['mse_fxdp']:.3e} | "
                      f"{r['mse_peer']:.3e} | {r['ratio']:.3f} +- {r['ratio_se']:.3f} | {r['closed_form']:.3e} | "
                      f"{r['mse_peer_mi']:.3e} | {r['rate_fxdp']:.3g} | {r['rate_peer']:.3g} | "
                      f"{r['rate_fxdp'] / r['rate_peer']:.0f}x |", flush=True)


if __name__ == "__main__":
    main()
