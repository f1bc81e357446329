"""Issue 33's throughput goals, measured in one run: OUE, SUE and subset selection fleets against
multi-freq-ldpy's client and against OpenSSL's ChaCha20 block rate.

For each oracle, d and epsilon: fxdp's fleet (`m.simulate`, lazy and constant-time forms) in
reports/s on one Numba thread and on all of them, the keystream blocks a report reads (ChaCha20
blocks computed: bits used / 256 under stream version 2, / 512 under version 1), the peer's
client (called once per device, as its documentation shows) in reports/s, and the two ratios
the issue sets goals for:

* speed-up = fxdp reports/s (all threads) / peer reports/s (goal: >= 100x);
* keystream share = fxdp reports/s (one thread) x blocks per report / OpenSSL's blocks/s (one
  process; goal for the lazy forms: >= 0.25).

    python3 benchmarks/bench_throughput.py                       # d = 1024, eps 1 and 2
    python3 benchmarks/bench_throughput.py --d 1024 65536 --n 20000

Throughput is the best of --repeat runs of one fleet of --n devices after a warm-up; the peer is
timed on --peer-n devices.  Set PYTHONPATH to another checkout to measure it with the same script.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_frequency import _mfl, zipf_population  # noqa: E402
from bench_mechanisms import best_time, openssl_chacha20_blocks  # noqa: E402


def checkout_commit(module):
    """The commit of the checkout a module is imported from (or "installed")."""
    import subprocess
    try:
        return subprocess.run(["git", "-C", str(Path(module.__file__).parent), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "installed"


def oracles(d, eps):
    import fxdp
    for ct in (False, True):
        yield "OUE", ("unary_encoding", (("optimized", True),)), ct, fxdp.make_unary_encoding(d, eps, constant_time=ct)
        yield "SUE", ("unary_encoding", (("optimized", False),)), ct, fxdp.make_unary_encoding(
            d, eps, optimized=False, constant_time=ct)
        yield "subset selection", ("subset_selection", ()), ct, fxdp.make_subset_selection(d, eps, constant_time=ct)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[1024])
    ap.add_argument("--eps", type=float, nargs="+", default=[1, 2])
    ap.add_argument("--n", type=int, default=40000, help="devices per timed fleet")
    ap.add_argument("--peer-n", type=int, default=1000, help="devices timed in the peer's client loop")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    import numba

    import fxdp
    from fxdp.mechanisms._fleet import simulate_detailed
    peers = _mfl()
    threads = numba.get_num_threads()
    ossl, how = openssl_chacha20_blocks(args.repeat)
    print(f"fxdp {fxdp.__version__} at commit {checkout_commit(fxdp)}; numba threads {threads}; "
          f"os.cpu_count {os.cpu_count()}")
    print(f"OpenSSL ChaCha20: {ossl:.3g} blocks/s ({how})")
    print("| oracle | d | eps | form | blocks/report | fxdp reports/s, 1 thread | all threads | "
          "peer reports/s | speed-up | keystream share |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for d in args.d:
        for eps in args.eps:
            for name, peer_key, ct, m in oracles(d, eps):
                v = zipf_population(d, args.n, 7)
                _, _, bits, _ = simulate_detailed(m, v[:2000], 3)
                per_block = 256 if fxdp.bitsource.STREAM_VERSION == 2 else 512
                blocks = float(np.mean(bits)) / per_block
                numba.set_num_threads(1)
                t1 = best_time(lambda: m.simulate(v, seed=2), args.repeat)
                numba.set_num_threads(threads)
                tn = best_time(lambda: m.simulate(v, seed=2), args.repeat)
                client = peers[peer_key]["client"]
                vp = v[:args.peer_n]
                tp = best_time(lambda: client(vp, d, eps), 1)
                r1, rn, rp = args.n / t1, args.n / tn, args.peer_n / tp
                print(f"| {name} | {d} | {eps:g} | {'ct' if ct else 'lazy'} | {blocks:.1f} | {r1:.3g} | {rn:.3g} | "
                      f"{rp:.3g} | {rn / rp:.0f}x | {r1 * blocks / ossl:.3f} |", flush=True)


if __name__ == "__main__":
    main()
