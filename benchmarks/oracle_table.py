"""Every frequency oracle at d in {16, 1024, 65536}, against the peers, in one run (issue 33, item 5).

Two tables, printed as Markdown:

1. Throughput.  For each oracle, form (lazy, constant time), d and epsilon: fxdp's fleet in
   reports/s on all Numba threads, making the reports (`m.simulate`, as a peer's client does) and,
   where the kind has it, only their support counts (`m.simulate_support`, what `fxdp simulate`
   and the estimators use; best of --repeat fleets after a warm-up, each fleet sized to take about
   --target seconds), the bits a report carries on the wire, and each peer's client called once
   per device as its documentation shows (multi-freq-ldpy 0.2.5, pure-ldp 1.2.0; timed on as many
   devices as fit in about --target seconds), with the speed-up fxdp / peer.
2. Accuracy at d = 65,536 and n = --mse-n devices (10^6 by default), one Zipf(1.1) population, for
   the oracles fxdp and a peer both implement: MSE over the d items of the peer's own estimator
   on its reports and of the same estimator on fxdp's support counts (as bench_frequency.py
   does), the ratio, and the seconds each client took.  A peer whose client would take more than
   --peer-cap seconds for the n devices, client and estimator together (projected from their
   timed rates), is not run, and the row says so with the projection.

fxdp runs at its realized epsilon (never above the request; the `eps` column is the realized
one-report epsilon), the peers at the requested float epsilon.  dBitFlip has buckets = d and one
sampled bucket (its report's epsilon is half the request).  The peers' local hashing clients
hash str(x) with xxhash, which refuses a str since xxhash 3: this script restores xxhash 2's
behaviour (hash the UTF-8 bytes) for them (`xxhash_accepts_str`); L-GRR and L-OUE have eps_perm = 2 eps
and eps_1 = eps.  pure-ldp's Hadamard response is its high-privacy form only for eps <= 1.

    python3 benchmarks/oracle_table.py                                  # the whole run
    python3 benchmarks/oracle_table.py --d 16 1024 --eps 1 --no-mse     # the throughput table only
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_frequency import _mfl, _pure, zipf_population  # noqa: E402
from bench_throughput import checkout_commit  # noqa: E402


def oracles(d, eps):
    """(name, peer key or None, constant_time, mechanism) for every frequency oracle over d items."""
    import fxdp
    from fxdp import estimate as E
    rec = {(r["kind"], r["config"].get("optimized")): r for r in E.recommend_frequency_oracle(eps, d, 1)}
    for ct in (False, True):
        k_rr = rec[("randomized_response", None)]["mechanism"]      # its eps-optimal prob, as recommended
        yield "k-ary RR", ("randomized_response", ()), ct, fxdp.make_randomized_response(
            k_rr.categories, k_rr._prob_arg, constant_time=ct)
        yield "OUE", ("unary_encoding", (("optimized", True),)), ct, fxdp.make_unary_encoding(d, eps, constant_time=ct)
        yield "SUE", ("unary_encoding", (("optimized", False),)), ct, fxdp.make_unary_encoding(
            d, eps, optimized=False, constant_time=ct)
        yield "OLH", ("local_hashing", (("optimized", True),)), ct, fxdp.make_local_hashing(d, eps, constant_time=ct)
        yield "BLH", ("local_hashing", (("optimized", False),)), ct, fxdp.make_local_hashing(
            d, eps, optimized=False, constant_time=ct)
        yield "subset selection", ("subset_selection", ()), ct, fxdp.make_subset_selection(d, eps, constant_time=ct)
        yield "Hadamard response", ("hadamard_response", ()), ct, fxdp.make_hadamard_response(d, eps, constant_time=ct)
        yield "dBitFlip (buckets = d)", None, ct, fxdp.make_dbitflip(d, d, eps, constant_time=ct)
        yield "L-GRR", ("longitudinal_grr", ()), ct, fxdp.make_longitudinal_grr(d, 2 * eps, eps, constant_time=ct)
        yield "L-OUE", ("longitudinal_ue", ()), ct, fxdp.make_longitudinal_ue(d, 2 * eps, eps, constant_time=ct)


def support(m, v, seed):
    if hasattr(m, "simulate_support"):
        return m.simulate_support(v, seed=seed)
    return m.frequency_support(m.simulate(v, seed=seed))


def xxhash_accepts_str():
    """multi-freq-ldpy's and pure-ldp's local hashing hash `str(x)` with xxhash, which since
    xxhash 3 refuses a str ("Strings must be encoded before hashing"); xxhash < 3 hashed its UTF-8
    bytes.  Give them that behaviour back, so that their OLH and BLH clients run as released."""
    import xxhash
    for name in ("xxh32", "xxh64"):
        orig = getattr(xxhash, name)
        if getattr(orig, "_fxdp_shim", False):
            continue

        def shim(data=b"", seed=0, _orig=orig):
            return _orig(data.encode() if isinstance(data, str) else data, seed=seed)
        shim._fxdp_shim = True
        setattr(xxhash, name, shim)


def pure_ldp_local_hashing():
    """pure-ldp's OLH and BLH (LHClient / LHServer), in bench_frequency's adapter shape."""
    from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer

    def run(olh):
        def client(v, d, e):
            srv = LHServer(e, d, use_olh=olh)
            cl = LHClient(e, d, use_olh=olh)
            return [cl.privatise(int(x) + 1) for x in v], srv

        def estimate(r, d, e):
            reports, srv = r
            for y in reports:
                srv.aggregate(y)
            return np.array([srv.estimate(i + 1, suppress_warnings=True) for i in range(d)]) / len(reports)
        return dict(client=client, estimate=estimate, fxdp_post=lambda sup: sup.unbiased().estimate)
    return {("local_hashing", (("optimized", o),)): run(o) for o in (True, False)}


def mfl_longitudinal():
    """multi-freq-ldpy's L-GRR and L-OSUE clients at eps_perm = 2 eps, eps_1 = eps (throughput only:
    their estimators are compared in bench_longitudinal.py)."""
    from multi_freq_ldpy.long_freq_est.L_GRR import L_GRR_Client
    from multi_freq_ldpy.long_freq_est.L_OSUE import L_OSUE_Client
    return {("longitudinal_grr", ()): dict(client=lambda v, d, e: [L_GRR_Client(int(x), d, 2 * e, e) for x in v]),
            ("longitudinal_ue", ()): dict(client=lambda v, d, e: [L_OSUE_Client(int(x), d, 2 * e, e) for x in v])}


def pure_ldp_streamed(key, d, eps, values, chunk=10_000):
    """pure-ldp's estimate over `values` with one client and one server, its reports made and
    aggregated a chunk at a time (10^6 OUE reports at d = 65,536 would take 65 GB at once);
    None for an oracle this does not cover."""
    from pure_ldp.frequency_oracles.hadamard_response import HadamardResponseClient, HadamardResponseServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer
    if key == ("unary_encoding", (("optimized", True),)):
        srv = UEServer(eps, d, use_oue=True)
        cl = UEClient(eps, d, use_oue=True)
    elif key == ("unary_encoding", (("optimized", False),)):
        srv, cl = UEServer(eps, d), UEClient(eps, d)
    elif key == ("hadamard_response", ()):
        srv = HadamardResponseServer(eps, d)
        cl = HadamardResponseClient(eps, d, srv.get_hash_funcs())
    else:
        return None
    for i in range(0, values.size, chunk):
        for x in values[i:i + chunk]:
            srv.aggregate(cl.privatise(int(x) + 1))
    return np.array([srv.estimate(i + 1, suppress_warnings=True) for i in range(d)]) / values.size


def rate(fn, n0, target, cap, repeat=1):
    """Items per second of fn(n), with n grown from n0 until one call takes about `target` s
    (after one untimed call: multi-freq-ldpy compiles with Numba on its first)."""
    fn(n0)
    n = n0
    while True:
        t0 = time.perf_counter()
        fn(n)
        dt = time.perf_counter() - t0
        if dt >= target / 4 or n >= cap:
            break
        n = min(cap, int(n * max(2.0, target / max(dt, 1e-3))))
    best = dt
    for _ in range(repeat - 1):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return n / best, n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[16, 1024, 65536])
    ap.add_argument("--eps", type=float, nargs="+", default=[1, 2])
    ap.add_argument("--target", type=float, default=1.5, help="seconds a timed fleet or peer loop should take")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--mse-n", type=int, default=10 ** 6)
    ap.add_argument("--mse-eps", type=float, default=1.0)
    ap.add_argument("--peer-cap", type=float, default=900.0, help="longest projected peer run, client and estimator (s)")
    ap.add_argument("--no-mse", action="store_true", help="the throughput table only")
    ap.add_argument("--no-throughput", action="store_true", help="the accuracy table only (peers timed again)")
    ap.add_argument("--mse-oracles", nargs="+", help="the accuracy table for these oracles only (names as printed)")
    ap.add_argument("--mse-peers", nargs="+", help="and these peers only")
    args = ap.parse_args(argv)
    import numba

    import fxdp
    xxhash_accepts_str()
    peers = {"multi-freq-ldpy": {**_mfl(), **mfl_longitudinal()}, "pure-ldp": {**_pure(), **pure_ldp_local_hashing()}}
    print(f"fxdp {fxdp.__version__} at commit {checkout_commit(fxdp)}; numba threads {numba.get_num_threads()}; "
          f"os.cpu_count {os.cpu_count()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if not args.no_throughput:
        print("\n| oracle | d | eps (realized) | form | wire bits | fxdp reports/s | support only | peer | "
              "peer reports/s | speed-up |")
        print("|---|---:|---:|---|---:|---:|---:|---|---:|---:|")
    peer_rates = {}
    for d in ([] if args.no_throughput else args.d):
        for eps in args.eps:
            for name, key, ct, m in oracles(d, eps):
                pop = zipf_population(d, 10 ** 6, 7)
                m.simulate(pop[:1000], seed=1)                 # compile / load the kernels
                fx, _ = rate(lambda n: m.simulate(pop[:n], seed=2), 2000, args.target, pop.size, args.repeat)
                sup = "-"
                if hasattr(m, "simulate_support"):
                    m.simulate_support(pop[:1000], seed=1)
                    sup = f"{rate(lambda n: m.simulate_support(pop[:n], seed=2), 2000, args.target, pop.size, args.repeat)[0]:.3g}"
                cells = []
                for pname, table in peers.items():
                    if key is None or key not in table or ct:
                        continue
                    if key[0] == "hadamard_response" and pname == "pure-ldp" and eps > 1:
                        continue
                    client = table[key]["client"]
                    try:
                        pr, pn = rate(lambda n: client(pop[:n], d, eps), 5, args.target, 20000)
                    except Exception as e:   # a peer that fails on its own client: say so, go on
                        cells.append((pname, f"client error: {type(e).__name__}", None))
                        continue
                    peer_rates[(name, d, eps, pname)] = pr
                    cells.append((pname, f"{pr:.3g}", pr))
                form = "ct" if ct else "lazy"
                bits = getattr(m, "bits_per_report", None)
                head = f"| {name} | {d} | {m.epsilon:.4g} | {form} | {bits if bits is not None else '-'} | {fx:.3g} | {sup} |"
                if not cells:
                    print(head + " - | - | - |", flush=True)
                for pname, txt, pr in cells:
                    sp = f"{fx / pr:.0f}x" if pr else "-"
                    print(head + f" {pname} | {txt} | {sp} |", flush=True)
    if args.no_mse:
        return
    d, n, eps = 65536, args.mse_n, args.mse_eps
    pop = zipf_population(d, n, 11)
    truth = np.bincount(pop, minlength=d) / n
    print(f"\nd = {d}, n = {n}, eps = {eps:g}, Zipf(1.1) population (seed 11); MSE over the d items")
    print("| oracle | peer | MSE fxdp | MSE peer | ratio fxdp/peer | fxdp seconds | peer seconds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, key, ct, m in oracles(d, eps):
        if ct or key is None or (args.mse_oracles and name not in args.mse_oracles):
            continue
        sup = None
        for pname, table in peers.items():
            if (args.mse_peers and pname not in args.mse_peers) or key not in table or (key[0] == "hadamard_response" and pname == "pure-ldp" and eps > 1):
                continue
            peer = table[key]
            if "estimate" not in peer:
                continue
            if sup is None:                    # fxdp's fleet once for both peers
                t0 = time.perf_counter()
                sup = support(m, pop, 3)
                tf = time.perf_counter() - t0
            mf = float(np.mean((np.asarray(peer["fxdp_post"](sup)) - truth) ** 2))
            pr = peer_rates.get((name, d, eps, pname))
            if pr is None:
                try:
                    pr, _ = rate(lambda k: peer["client"](pop[:k], d, eps), 5, args.target, 20000)
                except Exception as e:
                    print(f"| {name} | {pname} | {mf:.3e} | client error: {type(e).__name__} | - | {tf:.1f} | - |",
                          flush=True)
                    continue
            # the peer's estimator too: timed on 200 and 800 reports, projected to n (the local
            # hashing servers hash every item for every report)
            te_at = []
            for k in (200, 800):              # a fixed part (one call per item) and a part per report
                small = peer["client"](pop[:k], d, eps)
                t0 = time.perf_counter()
                peer["estimate"](small, d, eps)
                te_at.append(time.perf_counter() - t0)
            te = te_at[0] + max(0.0, te_at[1] - te_at[0]) * (n - 200) / 600
            if n / pr + te > args.peer_cap:
                print(f"| {name} | {pname} | {mf:.3e} | not run: projected {n / pr:.0f} s for its client "
                      f"({pr:.3g} reports/s) and {te:.0f} s for its estimator | - | {tf:.1f} | - |", flush=True)
                continue
            t0 = time.perf_counter()
            est = pure_ldp_streamed(key, d, eps, pop) if pname == "pure-ldp" else None
            if est is None:
                reports = peer["client"](pop, d, eps)
                est = peer["estimate"](reports, d, eps)
                del reports
            tp = time.perf_counter() - t0
            mp = float(np.mean((np.asarray(est) - truth) ** 2))
            print(f"| {name} | {pname} | {mf:.3e} | {mp:.3e} | {mf / mp:.3f} | {tf:.1f} | {tp:.0f} |", flush=True)


if __name__ == "__main__":
    main()
