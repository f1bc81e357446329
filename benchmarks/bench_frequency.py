"""Frequency oracles against their peers, on the same population and epsilon, in one run (issue 10).

For every oracle that fxdp and a peer both implement (multi-freq-ldpy 0.2.5, pure-ldp 1.2.0; the
`bench` extra), at each (d, epsilon):

* MSE over `--trials` fleets of `--n` devices drawn from one Zipf(1.1) population, of the peer's
  own estimator on its reports against the same estimator on fxdp's reports (pure-ldp's servers:
  the unbiased estimate, fxdp's `Support.unbiased`; multi-freq-ldpy's `*_Aggregator_MI`: matrix
  inversion clipped at 0 and renormalized, applied by its own `MI` to fxdp's support counts and
  exact p, q).  The ratio fxdp/peer should be 1 within noise; the printed +- is two standard
  errors of the ratio, from the trials.
* MSE of IBU: `fxdp.estimate.ibu` against multi-freq-ldpy's `*_Aggregator_IBU` (same tolerance).
* Reports per second: fxdp's fleet (`m.simulate`, Numba, one keyed ChaCha20 stream per device, one
  thread) against the peer's client called once per device, as its documentation shows.

fxdp runs at its realized epsilon (never above the request); the peers at the requested float
epsilon.  pure-ldp's Hadamard response is its high-privacy form only for epsilon <= 1 (the general
form above 1 is the blocked variant fxdp does not build), so HR is compared at epsilon <= 1.

    python3 benchmarks/bench_frequency.py                  # d in {16, 1024}, eps in {0.5, 1, 2, 4}
    python3 benchmarks/bench_frequency.py --d 16 --eps 1 --n 20000 --trials 10
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fxdp import estimate as E  # noqa: E402


def zipf_population(d, n, seed):
    rng = np.random.default_rng([seed, 0x5EED])
    w = 1.0 / np.arange(1, d + 1) ** 1.1
    return rng.choice(d, size=n, p=w / w.sum()).astype(np.int64)


def fxdp_oracle(kind, d, eps):
    for row in E.recommend_frequency_oracle(eps, d, 1):
        cfg = row["config"]
        if row["kind"] == kind[0] and all(cfg.get(k) == v for k, v in kind[1].items()):
            return row["mechanism"]
    raise LookupError(kind)


# --- peers.  Each adapter: client(values, d, eps) -> the peer's reports (its client, once per
# device); estimate(reports, d, eps) -> the peer's published estimator; fxdp_post(support) -> the
# same estimator applied to fxdp's reports (so that both sides are post-processed alike);
# optionally ibu(reports, d, eps) -> the peer's IBU.
def _mfl():
    from multi_freq_ldpy.estimators.Histogram_estimator import MI
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    def mi(sup):                       # multi-freq-ldpy's MI (clip at 0, renormalize) on fxdp's counts
        return MI(sup.counts.astype(float), sup.n, float(sup.p), float(sup.q))

    peers = {
        ("randomized_response", ()): dict(
            client=lambda v, d, e: [GRR.GRR_Client(int(x), d, e) for x in v],
            estimate=lambda r, d, e: GRR.GRR_Aggregator_MI(r, d, e),
            ibu=lambda r, d, e: GRR.GRR_Aggregator_IBU(r, d, e)),
        ("subset_selection", ()): dict(
            client=lambda v, d, e: [SS.SS_Client(int(x), d, e) for x in v],
            estimate=lambda r, d, e: SS.SS_Aggregator_MI(r, d, e),
            ibu=lambda r, d, e: SS.SS_Aggregator_IBU(r, d, e)),
    }
    for opt in (True, False):
        peers[("unary_encoding", (("optimized", opt),))] = dict(
            client=lambda v, d, e, o=opt: np.array([UE.UE_Client(int(x), d, e, o) for x in v]),
            estimate=lambda r, d, e, o=opt: UE.UE_Aggregator_MI(r, e, o),
            ibu=lambda r, d, e, o=opt: UE.UE_Aggregator_IBU(r, d, e, o))
        peers[("local_hashing", (("optimized", opt),))] = dict(
            client=lambda v, d, e, o=opt: [LH.LH_Client(int(x), d, e, o) for x in v],
            estimate=lambda r, d, e, o=opt: LH.LH_Aggregator_MI(r, d, e, o),
            ibu=lambda r, d, e, o=opt: LH.LH_Aggregator_IBU(r, d, e, o))
    for p in peers.values():
        p["fxdp_post"] = mi
    return peers


def _pure():
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.hadamard_response import HadamardResponseClient, HadamardResponseServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

    def run(make_client, make_server, one_based):
        def client(v, d, e):
            srv = make_server(d, e)
            cl = make_client(d, e, srv)
            return [cl.privatise(int(x) + one_based) for x in v], srv

        def estimate(r, d, e):
            reports, srv = r
            for y in reports:
                srv.aggregate(y)
            return np.array([srv.estimate(i + one_based, suppress_warnings=True) for i in range(d)]) / len(reports)
        return dict(client=client, estimate=estimate, fxdp_post=lambda sup: sup.unbiased().estimate)

    return {
        ("randomized_response", ()): run(lambda d, e, s: DEClient(e, d), lambda d, e: DEServer(e, d), 1),
        ("unary_encoding", (("optimized", True),)): run(lambda d, e, s: UEClient(e, d, use_oue=True),
                                                        lambda d, e: UEServer(e, d, use_oue=True), 1),
        ("unary_encoding", (("optimized", False),)): run(lambda d, e, s: UEClient(e, d),
                                                         lambda d, e: UEServer(e, d), 1),
        ("hadamard_response", ()): run(lambda d, e, s: HadamardResponseClient(e, d, s.get_hash_funcs()),
                                       lambda d, e: HadamardResponseServer(e, d), 1),
    }


def load_peers():
    peers = {}
    for name, loader in (("multi-freq-ldpy", _mfl), ("pure-ldp", _pure)):
        try:
            peers[name] = loader()
        except ImportError as e:
            print(f"# {name} not installed ({e}); pip install '.[bench]'")
    return peers


def mse(est, truth):
    return float(np.mean((np.asarray(est) - truth) ** 2))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[16, 1024])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1, 2, 4])
    ap.add_argument("--n", type=int, default=20000, help="devices per trial")
    ap.add_argument("--trials", type=int, default=8)
    ap.add_argument("--throughput-n", type=int, default=2000, help="devices timed in the peers' client loops")
    args = ap.parse_args(argv)
    peers = load_peers()
    print(f"numpy {np.__version__}; n = {args.n} devices x {args.trials} trials; population Zipf(1.1)")
    print("| oracle | d | eps | peer | MSE fxdp | MSE peer | ratio | IBU MSE fxdp | IBU MSE peer | "
          "fxdp reports/s | peer reports/s | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for d in args.d:
        for eps in args.eps:
            for peer_name, table in peers.items():
                for (kind, flags), peer in table.items():
                    if kind == "hadamard_response" and peer_name == "pure-ldp" and eps > 1:
                        continue
                    try:
                        m = fxdp_oracle((kind, dict(flags)), d, eps)
                    except LookupError:
                        continue
                    rows = {"f": [], "p": [], "fi": [], "pi": []}
                    try:
                        peer["client"](zipf_population(d, 2, 0), d, eps)
                    except Exception as e:      # a peer that fails on its own client: say so, go on
                        print(f"| {kind} | {d} | {eps:g} | {peer_name} | peer client error: "
                              f"{type(e).__name__}: {e} | | | | | | | |", flush=True)
                        continue
                    for t in range(args.trials):
                        v = zipf_population(d, args.n, 1000 * t + d)
                        truth = np.bincount(v, minlength=d) / v.size
                        r = m.simulate(v, seed=t)
                        rows["f"].append(mse(peer["fxdp_post"](m.frequency_support(r)), truth))
                        pr = peer["client"](v, d, eps)
                        rows["p"].append(mse(peer["estimate"](pr, d, eps), truth))
                        if "ibu" in peer:
                            rows["fi"].append(mse(E.ibu(r, m).estimate, truth))
                            rows["pi"].append(mse(peer["ibu"](pr, d, eps), truth))
                    f, p = np.mean(rows["f"]), np.mean(rows["p"])
                    se = 2 * math.hypot(np.std(rows["f"]) / f, np.std(rows["p"]) / p) / math.sqrt(args.trials)
                    ibu_f = f"{np.mean(rows['fi']):.3e}" if rows["fi"] else "-"
                    ibu_p = f"{np.mean(rows['pi']):.3e}" if rows["pi"] else "-"
                    # throughput: fxdp fleet on 10^6 devices (after a warm-up), peer client loop
                    v = zipf_population(d, max(args.throughput_n, 10 ** 6 // max(1, d // 16)), 7)
                    m.simulate(v[:1000], seed=1)
                    t0 = time.perf_counter()
                    m.simulate(v, seed=2)
                    fx_rate = v.size / (time.perf_counter() - t0)
                    vp = v[:args.throughput_n]
                    t0 = time.perf_counter()
                    peer["client"](vp, d, eps)
                    peer_rate = vp.size / (time.perf_counter() - t0)
                    label = kind + "".join(f" {k}={v}" for k, v in flags)
                    print(f"| {label} | {d} | {eps:g} | {peer_name} | {f:.3e} | {p:.3e} | {f / p:.3f} +- {se:.3f} | "
                          f"{ibu_f} | {ibu_p} | {fx_rate:.3g} | {peer_rate:.3g} | {fx_rate / peer_rate:.0f}x |",
                          flush=True)


if __name__ == "__main__":
    main()
