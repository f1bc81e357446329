"""Cold compile time and fleet rate of export cases (tests/export_fake/cases.py), two checkouts
measured alternately in one run.

    python3 benchmarks/bench_fleet_compile.py --base /path/to/other/checkout \\
        --cases treehist_ct dbitflip_ct --rounds 2 [--n 300000] [--repeat 5]

For each case and round, each checkout runs in a fresh process with an empty Numba cache
(NUMBA_CACHE_DIR): the CPU seconds of the case's first ``simulate_device`` on 1,000 devices (the
fleet kernel's cold compile, almost all of it), then, with that cache warm and one Numba thread,
the best of --repeat fleets of --n devices in reports/s (process CPU time, so that other load on
a shared machine counts less).  The outputs of the two checkouts must be the same bits (an
SHA-256 of the first 1,000 devices' outputs is compared).  The order alternates by round.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = r'''
import hashlib, os, sys, time
root, case, n, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path[:0] = [root, root + "/tests/export_fake"]
import numpy as np
from cases import make
from fxdp.export import harness as H
import fxdp.export as E
m = make(case); spec = E.device_spec(m)
model = H.input_model(m, spec)
devs = np.arange(0, max(n, 1000), dtype=np.uint64)
values = model.for_simulate(devs, H.SALT_PARITY)
t = time.process_time()
first = m.simulate_device(values[:1000], 7, device_ids=devs[:1000])
cold = time.process_time() - t
digest = hashlib.sha256(repr(first).encode()).hexdigest()[:16]
best = float("inf")
for _ in range(repeat):
    t = time.process_time()
    m.simulate_device(values[:n], 7, device_ids=devs[:n])
    best = min(best, time.process_time() - t)
print(f"{cold:.2f} {n / best:.4e} {digest}")
'''


def run(root, case, n, repeat):
    with tempfile.TemporaryDirectory(prefix="fxdp-bench-compile-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", FXDP_QUIET="1")
        p = subprocess.run([sys.executable, "-c", CHILD, str(root), case, str(n), str(repeat)],
                           env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{root} {case} failed:\n{p.stderr[-3000:]}")
    cold, rate, digest = p.stdout.split()[-3:]
    return float(cold), float(rate), digest


def git_head(root):
    p = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return p.stdout.strip() + ("+changes" if dirty else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the other checkout (the 'before' column)")
    ap.add_argument("--cases", nargs="+", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--n", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    roots = {"before": Path(args.base).resolve(), "after": HERE}
    print(f"# before {git_head(roots['before'])}, after {git_head(roots['after'])}; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} at the start; n = {args.n}, best of {args.repeat}, one thread",
          flush=True)
    res = {}
    for r in range(args.rounds):
        for case in args.cases:
            order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            for side in order:
                cold, rate, digest = run(roots[side], case, args.n, args.repeat)
                res.setdefault((case, side), []).append((cold, rate, digest))
                print(f"round {r + 1} {side:6s} {case:36s} cold {cold:6.2f} CPU s  {rate:.3e} reports/s  {digest}",
                      flush=True)
    print("\n| case | cold compile before (CPU s) | after | fleet rate before (reports/s, 1 thread) | after |")
    print("|---|---|---|---|---|")
    same = True
    for case in args.cases:
        b, a = res[(case, "before")], res[(case, "after")]
        same &= len({x[2] for x in a + b}) == 1

        def span(xs, fmt):
            lo, hi = min(xs), max(xs)
            return fmt.format(lo) if lo == hi else fmt.format(lo) + "-" + fmt.format(hi)
        print(f"| {case} | {span([x[0] for x in b], '{:.1f}')} | {span([x[0] for x in a], '{:.1f}')} | "
              f"{span([x[1] for x in b], '{:.2e}')} | {span([x[1] for x in a], '{:.2e}')} |")
    print(f"\nsame outputs before and after: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
