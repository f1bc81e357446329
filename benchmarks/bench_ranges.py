"""Range queries and quantiles (issue 35 item 4): fxdp's hierarchical histogram and HaarHRR against
the Python reference implementation of the paper's hierarchical mechanism (LDP-hierarchical-mechanism,
``pip install ldp-hierarchical-mechanism``, over pure-LDP's unary encoding), on one population.

For each epsilon: the mean squared error of ``--queries`` random range queries (widths uniform in
10-90 % of the domain, shares of devices) and of the quantiles p50 and p95 (reading units), over
``--trials`` fleets; for fxdp also the mean of the stated variance (stderr^2) of the same queries,
so the ratio empirical MSE / stated variance checks the closed forms; and the client rate (devices
per second) and server time of each side.  The peer's client is a Python loop per device, so it runs
on ``--peer-n`` devices (a sample of the population) and its rate is per device.

    python3 benchmarks/bench_ranges.py [--n 1000000] [--peer-n 100000] [--eps 0.5 1 2 4] [--trials 5]
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import fxdp

LO, HI, BITS = 0.0, 80.0, 10


def queries(rng, k, leaves):
    """k random leaf ranges [a, b] with widths uniform in 10-90 % of the leaves."""
    w = rng.integers(int(0.1 * leaves), int(0.9 * leaves) + 1, k)
    a = rng.integers(0, leaves - w + 1)
    return a, a + w - 1


def run_fxdp(m, readings, leaves_true, qa, qb, trials, seed):
    step = (HI - LO) / (1 << BITS)
    truth_r = np.array([np.mean((leaves_true >= a) & (leaves_true <= b)) for a, b in zip(qa, qb)])
    truth_q = np.quantile(readings, [0.5, 0.95], method="inverted_cdf")
    se2, e2, eq2, t_client, t_server = [], [], [], 0.0, 0.0
    for t in range(trials):
        t0 = time.perf_counter()
        reports = m.simulate(readings, seed + t)
        t_client += time.perf_counter() - t0
        t0 = time.perf_counter()
        counts = m.level_counts(reports)
        for a, b, tr in zip(qa, qb, truth_r):
            e = m.range_from_counts(counts, LO + a * step, LO + b * step)
            e2.append((e.estimate - tr) ** 2)
            se2.append(e.stderr ** 2)
        q = m.quantiles_from_counts(counts, [0.5, 0.95])
        eq2.append((q.estimate - truth_q) ** 2)
        t_server += time.perf_counter() - t0
    return {"mse": float(np.mean(e2)), "stated": float(np.mean(se2)), "q_mse": np.mean(eq2, axis=0),
            "rate": trials * readings.shape[0] / t_client, "server_s": t_server / trials}


def _import_peer():
    """The peer's tree.  pure-LDP imports statsmodels for its RAPPOR server, which the hierarchical
    mechanism never uses; where that import fails (statsmodels 0.14.4, which the peer pins, against a
    newer pandas or scipy) a stub stands in for ``statsmodels.api``."""
    try:
        from hierarchical_mechanism_LDP import Private_TreeBary
    except (ImportError, TypeError):
        import types
        for name in list(sys.modules):
            if name.startswith(("statsmodels", "pure_ldp", "hierarchical_mechanism_LDP")):
                del sys.modules[name]
        stub = types.ModuleType("statsmodels")
        stub.api = types.ModuleType("statsmodels.api")
        sys.modules["statsmodels"], sys.modules["statsmodels.api"] = stub, stub.api
        from hierarchical_mechanism_LDP import Private_TreeBary
    return Private_TreeBary


def run_peer(leaves, qa, qb, eps, trials, seed):
    Private_TreeBary = _import_peer()
    n_leaves = 1 << BITS
    truth_r = np.array([np.mean((leaves >= a) & (leaves <= b)) for a, b in zip(qa, qb)])
    step = (HI - LO) / n_leaves
    truth_q = LO + step * np.quantile(leaves, [0.5, 0.95], method="inverted_cdf")
    e2, eq2, t_client, t_server = [], [], 0.0, 0.0
    for t in range(trials):
        np.random.seed(seed + t)
        tree = Private_TreeBary(n_leaves, 4, eps, on_all_levels=False)
        t0 = time.perf_counter()
        tree.update_tree(leaves)
        t_client += time.perf_counter() - t0
        t0 = time.perf_counter()
        tree.compute_attributes()
        tree.post_process()
        for a, b, tr in zip(qa, qb, truth_r):
            e2.append((tree.get_range_query(int(a), int(b) + 1, normalized=True) - tr) ** 2)
        eq2.append((LO + step * np.array([tree.get_quantile(0.5), tree.get_quantile(0.95)]) - truth_q) ** 2)
        t_server += time.perf_counter() - t0
    return {"mse": float(np.mean(e2)), "q_mse": np.mean(eq2, axis=0), "rate": trials * leaves.shape[0] / t_client,
            "server_s": t_server / trials}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--peer-n", type=int, default=100_000)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1, 2, 4])
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026)
    hh0 = fxdp.make_hierarchical_histogram(LO, HI, 1, bits=BITS)
    readings, _ = hh0.population(args.n, seed=1)
    leaves = hh0.leaf_of(hh0.bin_indices(readings))
    qa, qb = queries(rng, args.queries, 1 << BITS)
    peer_idx = rng.choice(args.n, size=min(args.peer_n, args.n), replace=False)
    print(f"# bench_ranges: n = {args.n:,} Beta(2, 5) readings on [{LO:g}, {HI:g}], {1 << BITS} leaves; "
          f"{args.queries} range queries (widths 10-90 %), {args.trials} trials; peer on {len(peer_idx):,} devices\n")
    print("| eps | mechanism | range MSE | stated variance | MSE / stated | p50 MSE | p95 MSE | client (devices/s) "
          "| server (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for eps in args.eps:
        rows = []
        for name, m in (("hierarchical_histogram (b = 4)", fxdp.make_hierarchical_histogram(LO, HI, eps, bits=BITS)),
                        ("haar_hrr", fxdp.make_haar_hrr(LO, HI, eps, bits=BITS))):
            m.simulate(readings[:1000], 0)                            # compile outside the timing
            r = run_fxdp(m, readings, leaves, qa, qb, args.trials, 100)
            rows.append((name, r))
            print(f"| {eps:g} | {name} | {r['mse']:.3g} | {r['stated']:.3g} | {r['mse'] / r['stated']:.2f} | "
                  f"{r['q_mse'][0]:.3g} | {r['q_mse'][1]:.3g} | {r['rate']:,.0f} | {r['server_s']:.2f} |")
        if not args.no_peer:
            try:
                p = run_peer(leaves[peer_idx], qa, qb, eps, args.trials, 100)
            except Exception as e:                                    # noqa: BLE001 - report and go on
                print(f"| {eps:g} | LDP-hierarchical-mechanism | failed: {type(e).__name__}: {e} | | | | | | |")
                continue
            scale = len(peer_idx) / args.n         # its MSE at n devices, by 1/n scaling
            print(f"| {eps:g} | LDP-hierarchical-mechanism 0.1.3 (b = 4, OUE), at n (x {scale:g}) | "
                  f"{p['mse'] * scale:.3g} | | | {p['q_mse'][0] * scale:.3g} | {p['q_mse'][1] * scale:.3g} | "
                  f"{p['rate']:,.0f} | {p['server_s']:.2f} |")
            print(f"|  | fxdp / peer client rate | {rows[0][1]['rate'] / p['rate']:,.0f}x (HH), "
                  f"{rows[1][1]['rate'] / p['rate']:,.0f}x (Haar) | | | | | | |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
