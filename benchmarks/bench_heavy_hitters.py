"""Heavy hitters over strings against pure-LDP 1.2.0, in one run (issue 34, item 4; the Count Mean
Sketch and its Hadamard variant, and with --sfp the Sequence Fragment Puzzle).

One Zipf(1.1) population of --words distinct strings ("w<i>-<hex>", 8-16 bytes), --n devices,
for each eps: fxdp's fleet (`m.simulate`, Numba, all threads) and pure-ldp's client called once
per device (its documented use; its server base needs numpy 1's np.zeros(None), given back to
it by `numpy1_zeros_none`); each server's estimate of the --candidates most frequent words
(fxdp: `m.estimate`; pure-ldp: `CMSServer.aggregate` per report, then `estimate` per candidate).
Printed: the MSE of the candidates' shares, the top-10 and top-50 recall of `discover` among
those candidates against the true top, client reports/s, server seconds, bits per report.  Both
sides use width m and k hash functions; pure-ldp's hashes are its own, fxdp's fxdp.strhash.

    python3 benchmarks/bench_heavy_hitters.py                       # n = 10^6, eps 2, 4, 8
    python3 benchmarks/bench_heavy_hitters.py --n 100000 --eps 4
    python3 benchmarks/bench_heavy_hitters.py --sfp --n 100000 --peer-n 20000 --words 1000 --eps 8 16

--sfp: discovery without candidates.  Both sides find the top 10 strings with the Sequence
Fragment Puzzle over the population's alphabet (pure-ldp: its SFPClient/SFPServer over its Count
Mean Sketch, fragments of 2 characters, padding "*"; fxdp: `make_sequence_fragment_puzzle` with
`discover(alphabet=...)`), each sketch of width m and k hashes, epsilon split in halves on both
sides.  Printed: top-10 recall and precision of the strings found (against the true top 10),
client reports/s and server seconds.

--discover pem / --discover treehist: discovery by prefixes, against pure-ldp's PEMClient/PEMServer
and TreeHistClient/TreeHistServer over its default oracle (optimized local hashing).  pure-ldp's
local hashing server keeps a dense array over the domain of each group's prefixes and aggregates a
report by hashing every item of it (a Python loop, lh_server.py), so it cannot hold words of 8
characters over 18 (18^8 items: 82 GiB); its own default is bit strings.  So here every word is a
string of --bits characters '0'/'1' (--words distinct codes, Zipf as above): pure-ldp extends a
prefix by one of {0, 1}, fxdp by any byte.  Both start from prefixes of 2 characters (PEM) or 1
(TreeHist), one character more per group or level, and report their top 10.  Printed as for --sfp.

    python3 benchmarks/bench_heavy_hitters.py --discover pem --words 1000 --bits 12 --peer-n 20000
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_throughput import checkout_commit  # noqa: E402


def population(words, n, seed):
    rng = np.random.default_rng([seed, 0x4848])
    vocab = [f"w{i}-{rng.integers(0, 1 << 32):08x}"[: 8 + i % 9] for i in range(words)]
    w = 1.0 / np.arange(1, words + 1) ** 1.1
    idx = rng.choice(words, size=n, p=w / w.sum())
    return vocab, idx


def numpy1_zeros_none():
    """pure-ldp 1.2.0's server base calls np.zeros(None), which numpy < 2 read as shape () and
    numpy 2 refuses; give its module numpy 1's reading back (nothing else changes)."""
    import types

    import pure_ldp.core._freq_oracle_server as base
    if getattr(base.np, "_fxdp_shim", False):
        return
    shim = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    shim.zeros = lambda shape, *a, **kw: np.zeros(() if shape is None else shape, *a, **kw)
    shim._fxdp_shim = True
    base.np = shim


def pure_ldp_run(values, eps, k, m, hadamard, cands):
    from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer

    from oracle_table import xxhash_accepts_str
    numpy1_zeros_none()
    xxhash_accepts_str()                  # its hashes are xxhash of str(x), refused since xxhash 3
    srv = CMSServer(eps, k, m, is_hadamard=hadamard)
    cl = CMSClient(eps, srv.get_hash_funcs(), m, is_hadamard=hadamard)
    tc, t0 = peer_client_and_aggregate(cl, srv, values)
    est = np.array([srv.estimate(c, suppress_warnings=True) for c in cands]) / len(values)
    return est, tc, time.perf_counter() - t0


def peer_client_and_aggregate(cl, srv, values):
    """The peer's client called once per device (timed), then every report aggregated: (client
    seconds, the server's start time)."""
    t0 = time.perf_counter()
    reports = [cl.privatise(v) for v in values]
    tc = time.perf_counter() - t0
    t0 = time.perf_counter()
    for r in reports:
        srv.aggregate(r)
    return tc, t0


def pure_ldp_sfp(values, eps, k, m, alphabet, max_len, top):
    import copy

    from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer
    from pure_ldp.heavy_hitters.apple_sfp.sfp_client import SFPClient
    from pure_ldp.heavy_hitters.apple_sfp.sfp_server import SFPServer

    from oracle_table import xxhash_accepts_str
    numpy1_zeros_none()
    xxhash_accepts_str()
    srv_fo = CMSServer(eps, k, m)
    cl_fo = CMSClient(eps, srv_fo.get_hash_funcs(), m)
    srv = SFPServer(eps, 2, max_len, alphabet=set(alphabet), fo_server=copy.deepcopy(srv_fo))
    cl = SFPClient(eps, 2, max_len, alphabet=set(alphabet), fo_client=cl_fo)
    tc, t0 = peer_client_and_aggregate(cl, srv, values)
    found, _ = srv.find_heavy_hitters(k=top)
    return [f.rstrip("*") for f in found], tc, time.perf_counter() - t0


def print_discovery(eps, rows):
    """One table row per side: (side, strings found, client rate, server s, the true top 10)."""
    for side, f, rate, ts_, want in rows:
        hit = len(set(f) & want)
        print(f"| {eps:g} | {side} | {hit / 10:.2f} | {hit / max(1, len(f)):.2f} | {len(f)} | {rate:.3g} | "
              f"{ts_:.2f} |", flush=True)


def sfp(args, vocab, idx, values, counts, order, peer_n):
    from fxdp.mechanisms.strings.sequence_fragment_puzzle import make_sequence_fragment_puzzle
    alphabet = "".join(sorted(set("".join(vocab))))
    max_len = max(len(v) for v in vocab)
    true_top = {vocab[i] for i in order[:10]}
    print(f"Sequence Fragment Puzzle: strings of up to {max_len} characters over {len(alphabet)} characters "
          f"({alphabet!r}); top 10")
    print("| eps | side | top-10 recall | precision | strings found | client reports/s | server s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for eps in args.eps:
        m = make_sequence_fragment_puzzle(eps, max_length=max_len, width=args.width, hashes=args.hashes)
        m.simulate(values[:1000], seed=0)
        t0 = time.perf_counter()
        rep = m.simulate(values, seed=1)
        tc = time.perf_counter() - t0
        t0 = time.perf_counter()
        found = [r["value"].decode() for r in m.discover(rep, top=10, alphabet=alphabet)]
        ts = time.perf_counter() - t0
        rows = [("fxdp", found, args.n / tc, ts, true_top)]
        # pure-ldp keeps max_len / 2 fragment estimators: an odd max_len drops the last position
        pf, ptc, pts = pure_ldp_sfp(values[:peer_n], eps, args.hashes, args.width, alphabet, max_len + max_len % 2, 10)
        ptop = {vocab[i] for i in np.argsort(-np.bincount(idx[:peer_n], minlength=args.words), kind="stable")[:10]}
        rows.append(("pure-ldp", pf[:10], peer_n / ptc, pts, ptop))
        print_discovery(eps, rows)


def statsmodels_stub_if_broken():
    """pure-ldp imports statsmodels for its RAPPOR server, which these methods never use; where
    that import fails (statsmodels 0.14.4, which LDP-hierarchical-mechanism pins, against a newer
    pandas or scipy: benchmarks/bench_ranges.py's venv) a stub stands in for ``statsmodels.api``."""
    try:
        import pure_ldp.heavy_hitters  # noqa: F401
    except (ImportError, TypeError):
        import types
        for name in list(sys.modules):
            if name.startswith(("statsmodels", "pure_ldp")):
                del sys.modules[name]
        stub = types.ModuleType("statsmodels")
        stub.api = types.ModuleType("statsmodels.api")
        sys.modules["statsmodels"], sys.modules["statsmodels.api"] = stub, stub.api


def pure_ldp_prefixes(kind, values, eps, alphabet, max_len, top):
    """pure-ldp's PEM (prefixes from 2 characters, one more per group) or TreeHist (one character
    per level) over its default oracle: (the top strings found, client seconds, server seconds)."""
    statsmodels_stub_if_broken()
    from pure_ldp.heavy_hitters.prefix_extending.pem_client import PEMClient
    from pure_ldp.heavy_hitters.prefix_extending.pem_server import PEMServer
    from pure_ldp.heavy_hitters.treehistogram.treehist_client import TreeHistClient
    from pure_ldp.heavy_hitters.treehistogram.treehist_server import TreeHistServer

    from oracle_table import xxhash_accepts_str
    numpy1_zeros_none()
    xxhash_accepts_str()
    if kind == "pem":
        cl = PEMClient(eps, 1, max_len, 1, alphabet=list(alphabet))     # its index map: the bits' value
        srv = PEMServer(eps, 1, max_len, 1, alphabet=list(alphabet))
    else:
        # Its default index map (the bits' value) gives prefixes of different lengths the same
        # item ("01" and "1"), and TreeHist keeps every length in one oracle: a leading 1 keeps
        # them apart, over a domain twice as large
        index = lambda x: int("1" + x, 2)                     # noqa: E731
        cl = TreeHistClient(eps, 1, max_len, alphabet=list(alphabet), index_mapper=index)
        srv = TreeHistServer(eps, max_len, 1, alphabet=list(alphabet), index_mapper=index)
        for oracle in (srv.fragment_estimator, srv.word_estimator):
            oracle.update_params(d=2 << max_len)
    tc, t0 = peer_client_and_aggregate(cl, srv, values)
    found, _ = srv.find_heavy_hitters(k=top)
    return [f.replace("*", "") for f in found], tc, time.perf_counter() - t0


def prefixes(kind, args, vocab, idx, peer_n):
    from fxdp.mechanisms.strings.prefix_extending import make_prefix_extending
    from fxdp.mechanisms.strings.treehist import make_treehist
    if args.words > 1 << args.bits:
        raise SystemExit(f"--words {args.words} does not fit --bits {args.bits}")
    codes = np.random.default_rng([1, 0xB17]).choice(1 << args.bits, size=args.words, replace=False)
    words = [format(int(c), f"0{args.bits}b") for c in codes]
    values = [words[i] for i in idx]
    alphabet = "01"
    counts = np.bincount(idx, minlength=args.words)
    true_top = {words[i] for i in np.argsort(-counts, kind="stable")[:10]}
    L = args.bits
    name = {"pem": "Prefix Extending Method", "treehist": "TreeHist"}[kind]
    print(f"{name}: words of {L} characters '0'/'1'; top 10")
    print("| eps | side | top-10 recall | precision | strings found | client reports/s | server s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for eps in args.eps:
        m = make_prefix_extending(L, eps) if kind == "pem" else make_treehist(L, eps)
        m.simulate(values[:1000], seed=0)
        t0 = time.perf_counter()
        rep = m.simulate(values, seed=1)
        tc = time.perf_counter() - t0
        t0 = time.perf_counter()
        found = [r["value"].decode(errors="replace") for r in m.discover(rep, top=10)]
        ts = time.perf_counter() - t0
        rows = [("fxdp", found, args.n / tc, ts, true_top)]
        pf, ptc, pts = pure_ldp_prefixes(kind, values[:peer_n], eps, alphabet, L, 10)
        ptop = {words[i] for i in np.argsort(-np.bincount(idx[:peer_n], minlength=args.words), kind="stable")[:10]}
        rows.append(("pure-ldp", pf[:10], peer_n / ptc, pts, ptop))
        print_discovery(eps, rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10 ** 6)
    ap.add_argument("--words", type=int, default=10 ** 5)
    ap.add_argument("--eps", type=float, nargs="+", default=[2, 4, 8])
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--hashes", type=int, default=64)
    ap.add_argument("--candidates", type=int, default=1000)
    ap.add_argument("--peer-n", type=int, default=None, help="devices the peer runs (default --n)")
    ap.add_argument("--sfp", action="store_true", help="the Sequence Fragment Puzzle's discovery instead")
    ap.add_argument("--discover", choices=["pem", "treehist"], help="discovery by prefixes instead (PEM, TreeHist)")
    ap.add_argument("--bits", type=int, default=12, help="--discover: the words' length in characters '0'/'1'")
    args = ap.parse_args(argv)
    import numba

    import fxdp
    from fxdp.mechanisms.strings.count_mean_sketch import make_count_mean_sketch
    vocab, idx = population(args.words, args.n, 1)
    values = [vocab[i] for i in idx]
    counts = np.bincount(idx, minlength=args.words)
    order = np.argsort(-counts, kind="stable")
    cands = [vocab[i] for i in order[: args.candidates]]
    truth = counts[order[: args.candidates]] / args.n
    peer_n = args.peer_n or args.n
    print(f"fxdp {fxdp.__version__} at commit {checkout_commit(fxdp)}; numba threads {numba.get_num_threads()}; "
          f"os.cpu_count {os.cpu_count()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"n = {args.n} devices (peer: {peer_n}), {args.words} distinct words, Zipf(1.1); m = {args.width}, "
          f"k = {args.hashes}; the {args.candidates} most frequent words are the candidates")
    if args.sfp:
        return sfp(args, vocab, idx, values, counts, order, peer_n)
    if args.discover:
        return prefixes(args.discover, args, vocab, idx, peer_n)
    print("| sketch | eps | side | MSE | top-10 recall | top-50 recall | client reports/s | server s | bits/report |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for hadamard in (False, True):
        name = "HCMS" if hadamard else "CMS"
        for eps in args.eps:
            m = make_count_mean_sketch(args.width, args.hashes, eps, hadamard=hadamard)
            m.simulate(values[:1000], seed=0)
            t0 = time.perf_counter()
            rep = m.simulate(values, seed=1)
            tc = time.perf_counter() - t0
            t0 = time.perf_counter()
            est = m.estimate(rep, cands).estimate
            ts = time.perf_counter() - t0
            rows = [("fxdp", est, args.n / tc, ts, m.bits_per_report)]
            pest, ptc, pts = pure_ldp_run(values[:peer_n], eps, args.hashes, args.width, hadamard, cands)
            ptruth = np.bincount(idx[:peer_n], minlength=args.words)[order[: args.candidates]] / peer_n
            rows.append(("pure-ldp", pest, peer_n / ptc, pts, None))
            for side, e, rate, ts_, bits in rows:
                t = truth if side == "fxdp" else ptruth
                mse = float(np.mean((e - t) ** 2))
                top = np.argsort(-e, kind="stable")
                r10 = len(set(top[:10]) & set(range(10))) / 10
                r50 = len(set(top[:50]) & set(range(50))) / 50
                print(f"| {name} | {eps:g} | {side} | {mse:.3e} | {r10:.2f} | {r50:.2f} | {rate:.3g} | {ts_:.2f} | "
                      f"{bits if bits is not None else '-'} |", flush=True)


if __name__ == "__main__":
    main()
