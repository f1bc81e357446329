"""dBitFlip: empirical variance of the bucket-share estimates against the closed form.

    python benchmarks/dbf_variance.py [--n 1000000] [--d 16,1024,65536] [--eps 0.5,1,2,4]
                                      [--buckets 64] [--sampled 1,4] [--reps 4] [--seed-base B]

For each (d, eps, sampled): buckets = min(d, --buckets) equal-width buckets, a Zipf(1.1) population
of n devices (``m.synthetic_population``), simulated ``reps`` times on the keyed streams (seeds:
below; Numba fleet, in chunks of 50,000 devices, streamed into ``m.report_statistic()``), the
paper's estimate formed; the figure is the pooled ratio mean over reps and buckets of
(estimate - truth)^2 / variance(truth, n), with its standard error over the reps (1.0 when the
closed form is right).  Prints a markdown table (docs/accuracy.md).

Seeds.  Without --seed-base, rep j of every row runs on the int seed j (0..reps-1: the seeds of
the published table, shared by its rows).  With --seed-base B, rep j of the row (d, buckets,
sampled, eps) runs on its own seed ``cell_seed(...)`` = the first 16 bytes, big-endian, of
SHA-256("fxdp dbf_variance base=<B> d=<d> buckets=<k> sampled=<s> eps=<eps:g> rep=<j>"), so no two
rows share stream bits and every base gives fresh, independent fleets (the table of
docs/accuracy.md used no base; its rerun of 2026-12-06, issue 33, used base 1).
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # this checkout's fxdp
import fxdp  # noqa: E402

CHUNK = 50_000


def cell_seed(d, buckets, s, eps, rep, base):
    """The int seed of rep ``rep`` of the row (d, buckets, s, eps) (module docstring, Seeds)."""
    if base is None:
        return rep
    text = f"fxdp dbf_variance base={base} d={d} buckets={buckets} sampled={s} eps={float(eps):g} rep={rep}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big")


def ratio(d, buckets, eps, s, n, reps, base=None):
    m = fxdp.make_dbitflip(d, buckets, eps, sampled_buckets=s)
    values, truth = m.synthetic_population(n, seed=1)
    var = m.variance(truth, n)
    ids = np.arange(n, dtype=np.uint64)
    per_rep = []
    for j in range(reps):
        seed = cell_seed(d, buckets, s, eps, j, base)
        stat = m.report_statistic()
        for lo in range(0, n, CHUNK):
            stat.add(m.simulate(values[lo:lo + CHUNK], seed, device_ids=ids[lo:lo + CHUNK]))
        est = m.estimate_from_counts(stat.Y, stat.N, stat.n).estimate
        per_rep.append(float(np.mean((est - truth) ** 2 / var)))
    r = np.array(per_rep)
    se = float(r.std(ddof=1) / np.sqrt(reps)) if reps > 1 else float("nan")
    return m, float(r.mean()), se


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", default="16,1024,65536")
    ap.add_argument("--eps", default="0.5,1,2,4")
    ap.add_argument("--buckets", type=int, default=64, help="buckets = min(d, this)")
    ap.add_argument("--sampled", default="1,4")
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--seed-base", type=int, default=None,
                    help="per-row hashed seeds with this base (module docstring, Seeds); default: 0..reps-1")
    a = ap.parse_args(argv)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: python3 benchmarks/dbf_variance.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}")
    print(f"n = {a.n:,} devices, Zipf(1.1) population over d items, buckets = min(d, {a.buckets})\n")
    print("| d | buckets | sampled | eps | epsilon (exact) | bits per report | closed-form variance (f = 0) "
          "| empirical / closed form | reps | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in (int(v) for v in a.d.split(",")):
        k = min(d, a.buckets)
        for s in (int(v) for v in a.sampled.split(",")):
            for eps in a.eps.split(","):
                t0 = time.perf_counter()
                m, mean, se = ratio(d, k, eps, s, a.n, a.reps, a.seed_base)
                dt = time.perf_counter() - t0
                sd = f" ± {se:.3f}" if se == se else ""
                print(f"| {d} | {k} | {s} | {eps} | {m.epsilon:.4f} | {m.bits_per_report} | "
                      f"{float(m.variance(0.0, a.n)):.3e} | {mean:.3f}{sd} | {a.reps} | {dt:.0f} |", flush=True)


if __name__ == "__main__":
    main()
