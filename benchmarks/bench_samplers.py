"""Samplers benchmark: fxdp's exact Numba samplers against numpy's inexact float ones
and, when installed, OpenDP's exact samplers, in one run.

    python benchmarks/bench_samplers.py [--n 2000000] [--repeat 5] [--peer-n 100000] [--no-peer-bits]

One table, measured in one run on this machine, single thread:
samples/s of each fxdp sampler (``fill_*`` kernel on one keyed ChaCha20 stream,
bits generated included), samples/s of the numpy equivalent
(``rng.random(n) < p`` for Bernoulli, ``rng.geometric(p) - rng.geometric(p)``
for discrete Laplace, ``rng.integers`` for uniform), their ratio, the random
bits fxdp consumed per sample and the Shannon entropy of the output
distribution (the lower bound on bits per sample for any exact sampler).
Best of ``--repeat`` runs after a warm-up (JIT compilation excluded).
``discrete_laplace_fast`` rows: the exact fast form (``fxdp.samplers.fast_laplace``,
same distribution as ``discrete_laplace``, other bits), numpy's rate measured
in the same run beside it.

OpenDP (optional ``bench`` extra; single thread, one call releasing a vector,
its fastest Python form): Bernoulli(p) as ``make_randomized_response_bitvec``
with f = 2 min(p, 1 - p) on ``--peer-n`` zero bits (each output bit is
Bernoulli(f / 2): p itself or its complement, same cost; ``constant_time=True``
for the constant-time row; p rounded to a float), discrete Laplace as
``make_geometric`` on a ``vector_domain`` of ``--peer-n`` zeros, and the
bounded constant-time row as ``make_geometric(bounds=(0, 100))`` (OpenDP's
constant-time linear sampler) on a tenth of that many 50s.  OpenDP's bits per
sample are the bytes requested from its ``fill_bytes``, counted under gdb (see
bench_mechanisms.py).  diffprivlib has no sampler API (its mechanisms are in
bench_mechanisms.py).  No OpenDP equivalent: "-".
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mechanisms import best_time, load_peers, opendp_bits, peer_banner  # noqa: E402

from fxdp.samplers import _kernels as K  # noqa: E402
from fxdp.samplers.bounded import make_bounded_laplace_table  # noqa: E402
from fxdp.samplers._nb_fast_laplace import fill_discrete_laplace_fast  # noqa: E402


def best_rate(fn, n, repeat):
    fn()  # warm-up (compilation, caches)
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def h_bernoulli(p):
    return 0.0 if p in (0, 1) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def h_discrete_laplace(s, t):
    rho = math.exp(-s / t)
    c = (1 - rho) / (1 + rho)
    h, z = -c * math.log2(c), 1
    while True:
        pz = c * rho ** z
        if pz < 1e-300:
            break
        h -= 2 * pz * math.log2(pz)
        z += 1
    return h


def h_table(weights, k):
    return -sum(w / 2**k * math.log2(w / 2**k) for w in weights)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--peer-n", type=int, default=100_000,
                    help="samples per OpenDP call (bounded constant-time row: a tenth)")
    ap.add_argument("--peer-repeat", type=int, default=3, help="best of this many OpenDP calls")
    ap.add_argument("--no-peers", action="store_true", help="fxdp and numpy only")
    ap.add_argument("--no-peer-bits", action="store_true", help="skip the gdb count of OpenDP's bits")
    args = ap.parse_args(argv)
    n, rep = args.n, args.repeat
    rng = np.random.default_rng(1)
    table = make_bounded_laplace_table(10, (0, 100), k=32)
    thr = np.asarray(table.thresholds, dtype=np.uint32)
    a32 = 3221225472  # 0.75 * 2^32
    peers = load_peers(not args.no_peers, names=("opendp",))
    dp = peers["opendp"][0]
    pn = args.peer_n - args.peer_n % 8
    zeros_bits = bytes(pn // 8)
    zeros = [0] * pn
    fifties = [50] * (pn // 10)
    od_jobs = {}

    rows = []

    def opendp_bernoulli(p, ct):
        """make_randomized_response_bitvec on zero bits: each output bit ~ Bernoulli(f/2)."""
        f = 2 * min(p, 1 - p)
        build = ("dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight={w}), "
                 f"dp.discrete_distance(), f={f!r}, constant_time={ct})")
        nb = 256 if ct else 2048
        return (build.format(w=pn), zeros_bits, pn, f"bitvec f={f:.6g}{', CT' if ct else ''}",
                (build.format(w=nb), f"bytes({nb // 8})", 1, nb))

    def opendp_geometric(scale, bounded=False):
        build = ("dp.m.make_geometric(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), "
                 f"scale={float(scale)!r}{', bounds=(0, 100)' if bounded else ''})")
        if bounded:
            return (build, fifties, len(fifties), "make_geometric(bounds=(0,100)) on 50s",
                    (build, "[50] * 100", 1, 100))
        return build, zeros, pn, "make_geometric on zeros", (build, "[0] * 500", 1, 500)

    def fx(name, kernel, params, dtype, np_fn, entropy, od_spec=None):
        state = K.seed_state(K.new_state(), 2026)
        out = np.empty(n, dtype=dtype)
        used = []

        def run():
            K.seed_state(state, 2026)
            st, cnt = kernel(state, *params, out)
            assert st == 0 and cnt == n
            used.append(K.bits_used(state))

        rate = best_rate(run, n, rep)
        np_rate = best_rate(np_fn, n, rep) if np_fn else None
        od = None
        if dp is not None and od_spec is not None:
            build, arg, count, desc, job = od_spec
            meas = eval(build, {"dp": dp})
            od_rate = count / best_time(lambda: meas(arg), args.peer_repeat)
            od = dict(rate=od_rate, n=count, desc=desc, bits=None)
            od_jobs[name] = job
        rows.append(dict(name=name, rate=rate, np_rate=np_rate, bits=used[-1] / n, ent=entropy, od=od))

    p = 0.75
    fx("bernoulli_dyadic 3/4 (lazy)", K.fill_bernoulli_dyadic, (np.uint64(3), np.uint64(2)), np.bool_,
       lambda: rng.random(n) < p, h_bernoulli(p), opendp_bernoulli(p, False))
    fx("bernoulli_dyadic a/2^32 (lazy)", K.fill_bernoulli_dyadic, (np.uint64(a32 + 12345), np.uint64(32)),
       np.bool_, lambda: rng.random(n) < p, h_bernoulli(p), opendp_bernoulli((a32 + 12345) / 2**32, False))
    fx("bernoulli_dyadic_ct a/2^32", K.fill_bernoulli_dyadic_ct, (np.uint64(a32), np.uint64(32)), np.bool_,
       lambda: rng.random(n) < p, h_bernoulli(p), opendp_bernoulli(p, True))
    fx("bernoulli_rational 1/3", K.fill_bernoulli_rational, (np.uint64(1), np.uint64(3)), np.bool_,
       lambda: rng.random(n) < 1 / 3, h_bernoulli(1 / 3), opendp_bernoulli(1 / 3, False))
    fx("bernoulli_exp exp(-1/2)", K.fill_bernoulli_exp, (np.uint64(1), np.uint64(2)), np.bool_,
       lambda: rng.random(n) < math.exp(-0.5), h_bernoulli(math.exp(-0.5)),
       opendp_bernoulli(math.exp(-0.5), False))
    fx("uniform_below 1000", K.fill_uniform_below, (np.uint64(1000),), np.uint64,
       lambda: rng.integers(0, 1000, n), math.log2(1000))
    for scale in (1, 10, 100):
        q = 1 - math.exp(-1 / scale)
        fx(f"discrete_laplace scale {scale}", K.fill_discrete_laplace, (np.uint64(1), np.uint64(scale)),
           np.int64, lambda q=q: rng.geometric(q, n) - rng.geometric(q, n), h_discrete_laplace(1, scale),
           opendp_geometric(scale))
    # the exact fast form (fxdp.samplers.fast_laplace): same distribution, fewer and other bits
    for scale in (1, 10, 100):
        q = 1 - math.exp(-1 / scale)
        fx(f"discrete_laplace_fast scale {scale}", fill_discrete_laplace_fast, (1, scale), np.int64,
           lambda q=q: rng.geometric(q, n) - rng.geometric(q, n), h_discrete_laplace(1, scale))
    fx("bounded table (CT) scale 10, [0,100]", K.fill_table_sample_ct, (thr, np.uint64(32)), np.int64,
       lambda: rng.geometric(1 - math.exp(-0.1), n) - rng.geometric(1 - math.exp(-0.1), n),
       h_table(table.weights, 32), opendp_geometric(10, bounded=True))

    od_note = None
    if dp is not None and not args.no_peer_bits:
        bits, od_note = opendp_bits(od_jobs)
        for r in rows:
            if r["od"] and r["name"] in bits:
                r["od"]["bits"] = bits[r["name"]]
    elif dp is not None:
        od_note = "skipped (--no-peer-bits)"

    def g(v, fmt):
        return format(v, fmt) if v is not None else "-"

    print(f"fxdp samplers vs numpy (inexact floats) and OpenDP, n = {n:,}, best of {rep} "
          f"(OpenDP: best of {args.peer_repeat}), single thread")
    print(peer_banner(peers))
    hdr = (f"{'sampler':<38} {'fxdp /s':>10} {'numpy /s':>10} {'fx/numpy':>8} {'opendp /s':>10} "
           f"{'fx/opendp':>9} {'bits fxdp':>9} {'bits opendp':>11} {'entropy':>7}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        od = r["od"] or {}
        ratio = r["rate"] / r["np_rate"] if r["np_rate"] else None
        od_ratio = r["rate"] / od["rate"] if od else None
        print(f"{r['name']:<38} {r['rate']:>10.3e} {g(r['np_rate'], '.3e'):>10} {g(ratio, '.2f'):>8} "
              f"{g(od.get('rate'), '.3e'):>10} {g(od_ratio, '.3g'):>9} {r['bits']:>9.2f} "
              f"{g(od.get('bits'), '.4g'):>11} {r['ent']:>7.2f}")
    if dp is not None:
        print("\nOpenDP rows (one Python call per run releasing a vector of the given size; "
              "includes OpenDP's Python-to-Rust conversion of the vector):")
        for r in rows:
            if r["od"]:
                print(f"  {r['name']}: {r['od']['desc']}, {r['od']['n']:,} samples per call")
        if od_note == "gdb at fill_bytes":
            od_note = ("bytes requested from fill_bytes, counted under gdb in a separate process, over "
                       "2,048 bits (bitvec; constant time: 256), 500 geometric samples (bounded: 100)")
        print(f"OpenDP bits/sample: {od_note}")


if __name__ == "__main__":
    main()
