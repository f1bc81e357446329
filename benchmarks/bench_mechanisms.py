"""Mechanisms benchmark: fxdp's exact randomized response and geometric mechanism
against numpy's inexact float versions (and OpenDP if installed), in one run.

    python benchmarks/bench_mechanisms.py [--n 2000000] [--repeat 3]

Rows (releases per second, best of ``--repeat`` after a warm-up, JIT excluded):

* ``fxdp stream``: one device releasing n inputs from one keyed ChaCha20 stream
  (``stream_rr_bool`` / ``stream_rr`` / ``release_geometric_vec``), single thread;
* ``fxdp fleet, 1 thread`` / ``fxdp fleet, all cores``: ``m.simulate`` on n
  devices, each with its own keyed stream (one ChaCha20 block per device at
  least), ``numba.set_num_threads(1)`` vs all cores;
* ``numpy float``: the inexact float version (``rng.random(n) < p`` for
  binary RR, ``rng.random`` + ``rng.integers`` for k-ary);
* ``opendp``: OpenDP's ``make_randomized_response_bool`` /
  ``make_randomized_response`` / ``make_geometric``, one call per element on
  the same data (a sample of ``--opendp-n`` inputs; geometric: 3 s of calls),
  if ``opendp`` is importable (the optional ``bench`` extra).
``ratio`` is rate / numpy's rate.  ``bits/release`` is the random bits fxdp
consumed per release (final stream position), where it is measured.

The constant-time geometric (scale 10, bounds (0, 100)) is the issue's
comparison point: OpenDP's constant-time bounded geometric runs at ~1.9e3
samples/s and reads ~160 KB (1.3e6 bits) of randomness per sample.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fxdp.mechanisms import (make_geometric, make_randomized_response,  # noqa: E402
                             make_randomized_response_bool)
from fxdp.mechanisms import _kernels_mech as km  # noqa: E402
from fxdp.samplers import _kernels as K  # noqa: E402

SEED = 0xBE7C4


def best_time(fn, repeat):
    fn()                                       # warm-up: compilation, caches
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def stream_bits(run):
    state = K.seed_state(K.new_state(), SEED, 1)
    run(state)
    return K.bits_used(state)


def opendp_rate(kind, xs, p, t, n_calls):
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    if kind == "bool":
        meas = dp.m.make_randomized_response_bool(prob=p)
        data = [bool(v) for v in xs[:n_calls]]
    else:
        meas = dp.m.make_randomized_response(categories=list(range(t)), prob=p)
        data = [int(v) for v in xs[:n_calls]]
    t0 = time.perf_counter()
    for v in data:
        meas(v)
    return len(data) / (time.perf_counter() - t0)


def opendp_geometric_rate(xs, bounded, seconds=3.0):
    """OpenDP's make_geometric (scale 10; bounds (0, 100) selects its constant-time sampler)."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    kw = {"bounds": (0, 100)} if bounded else {}
    meas = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=10.0, **kw)
    t0, i = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        meas(int(xs[i % len(xs)]))
        i += 1
    return i / (time.perf_counter() - t0)


def fleet_rate(m, x, repeat, threads):
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return x.shape[0] / best_time(lambda: m.simulate(x, SEED), repeat)
    finally:
        numba.set_num_threads(old)


def fleet_bits(m, x):
    _, _, bits, _ = km.simulate_detailed(m, x[:20000], SEED)
    return float(bits.mean())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--opendp-n", type=int, default=20_000)
    args = ap.parse_args(argv)
    n, rep = args.n, args.repeat
    cores = numba.config.NUMBA_NUM_THREADS
    g = np.random.default_rng(1)
    rows = []

    def row(mech, impl, rate, base, bits=None):
        rows.append((mech, impl, rate, (rate / base) if (rate and base) else None, bits))

    # ---- binary randomized response ----------------------------------------
    p = 0.75
    xb = g.random(n) < 0.3
    rng = np.random.default_rng(2)
    np_rate = n / best_time(lambda: xb ^ (rng.random(n) >= p), rep)
    for ct in (False, True):
        m = make_randomized_response_bool(p, constant_time=ct)
        out = np.empty(n, dtype=np.bool_)
        form = "constant time" if ct else "lazy"

        def run(state, m=m, out=out, ct=ct):
            km.stream_rr_bool(state, m.a, m.bits, ct, xb, out)
        r = n / best_time(lambda: run(K.seed_state(K.new_state(), SEED, 1)), rep)
        row(f"RR bool p=0.75 ({form})", "fxdp stream, 1 thread", r, np_rate, stream_bits(run) / n)
        row(f"RR bool p=0.75 ({form})", "fxdp fleet, 1 thread", fleet_rate(m, xb, rep, 1), np_rate,
            fleet_bits(m, xb))
        row(f"RR bool p=0.75 ({form})", f"fxdp fleet, {cores} cores", fleet_rate(m, xb, rep, cores), np_rate)
    row("RR bool p=0.75", "numpy float rng.random(n) < p", np_rate, np_rate)
    od = opendp_rate("bool", xb, p, 2, args.opendp_n)
    rows.append(("RR bool p=0.75", "opendp make_randomized_response_bool", od, od / np_rate if od else None,
                 None) if od else ("RR bool p=0.75", "opendp", "not installed", None, None))

    # ---- k-ary randomized response --------------------------------------------
    t, pk = 10, 0.5
    xk = g.integers(0, t, n)

    def np_kary():
        honest = rng.random(n) < pk
        other = rng.integers(0, t - 1, n)
        other += other >= xk
        return np.where(honest, xk, other)
    np_rate = n / best_time(np_kary, rep)
    for ct in (False, True):
        m = make_randomized_response(list(range(t)), pk, constant_time=ct)
        out = np.empty(n, dtype=np.int64)
        thr = km.rr_thresholds(m)
        form = "constant time" if ct else "lazy"

        def run(state, m=m, out=out, ct=ct, thr=thr):
            km.stream_rr(state, m.t, m.w0, m.bits, thr, ct, xk, out)
        r = n / best_time(lambda: run(K.seed_state(K.new_state(), SEED, 1)), rep)
        row(f"RR k-ary t=10 p=0.5 ({form})", "fxdp stream, 1 thread", r, np_rate, stream_bits(run) / n)
        row(f"RR k-ary t=10 p=0.5 ({form})", "fxdp fleet, 1 thread", fleet_rate(m, xk, rep, 1), np_rate,
            fleet_bits(m, xk))
        row(f"RR k-ary t=10 p=0.5 ({form})", f"fxdp fleet, {cores} cores", fleet_rate(m, xk, rep, cores),
            np_rate)
    row("RR k-ary t=10 p=0.5", "numpy float (random + integers)", np_rate, np_rate)
    od = opendp_rate("kary", xk, pk, t, args.opendp_n)
    rows.append(("RR k-ary t=10 p=0.5", "opendp make_randomized_response", od, od / np_rate if od else None,
                 None) if od else ("RR k-ary t=10 p=0.5", "opendp", "not installed", None, None))

    # ---- geometric, scale 10, bounds (0, 100) -------------------------------------
    xg = g.integers(0, 101, n)
    np_rate = None
    for ct in (True, False):
        m = make_geometric(10, (0, 100), constant_time=ct)
        mode, s, tt, lo, hi, thr, k, width = km.geometric_params(m)
        out = np.empty(n, dtype=np.int64)
        form = "constant time" if ct else "lazy"

        def run(state, out=out, mode=mode, s=s, tt=tt, thr=thr, k=k, width=width):
            km.release_geometric_vec(state, mode, s, tt, lo, hi, thr, k, width, xg, out)
        r = n / best_time(lambda: run(K.seed_state(K.new_state(), SEED, 1)), rep)
        row(f"geometric scale 10 (0,100) ({form})", "fxdp stream, 1 thread", r, None, stream_bits(run) / n)
        row(f"geometric scale 10 (0,100) ({form})", "fxdp fleet, 1 thread", fleet_rate(m, xg, rep, 1), None,
            fleet_bits(m, xg))
        row(f"geometric scale 10 (0,100) ({form})", f"fxdp fleet, {cores} cores",
            fleet_rate(m, xg, rep, cores), None)
    od_ct = opendp_geometric_rate(xg, True)
    od_lazy = opendp_geometric_rate(xg, False) if od_ct else None
    if od_ct:
        rows.append(("geometric scale 10 (0,100) (constant time)", "opendp make_geometric(bounds)", od_ct, None,
                     None))
        rows.append(("geometric scale 10 (lazy, unbounded)", "opendp make_geometric", od_lazy, None, None))
    else:
        rows.append(("geometric scale 10 (0,100) (constant time)", "opendp", "not installed", None, None))
    rows.append(("geometric scale 10 (0,100) (constant time)", "OpenDP (issue's figure)", 1.9e3, None,
                 160e3 * 8))

    # ---- print --------------------------------------------------------------------
    print(f"fxdp mechanisms benchmark: n = {n:,}, best of {rep}, {os.cpu_count()} CPUs "
          f"({cores} Numba threads)")
    w1 = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    print(f"{'mechanism':<{w1}}  {'implementation':<{w2}}  {'releases/s':>12}  {'vs numpy':>9}  {'bits/release':>12}")
    print("-" * (w1 + w2 + 43))
    for mech, impl, rate, ratio, bits in rows:
        rate_s = rate if isinstance(rate, str) else f"{rate:12.3g}"
        ratio_s = f"{ratio:9.3g}" if ratio else f"{'':>9}"
        bits_s = f"{bits:12.4g}" if bits is not None else ""
        print(f"{mech:<{w1}}  {impl:<{w2}}  {rate_s:>12}  {ratio_s}  {bits_s:>12}")
    ct_rate = max(r[2] for r in rows if r[0].startswith("geometric") and "constant" in r[0]
                  and r[1].startswith("fxdp") and not isinstance(r[2], str))
    ct_bits = [r[4] for r in rows if r[0].startswith("geometric") and "constant" in r[0]
               and r[1].startswith("fxdp stream")][0]
    print(f"\nconstant-time geometric vs OpenDP's (issue's figure 1.9e3/s, ~160 KB/sample): "
          f"{ct_rate / 1.9e3:.3g}x the rate, {160e3 * 8 / ct_bits:.3g}x fewer random bits per sample")
    if od_ct:
        print(f"constant-time geometric vs OpenDP measured in this run ({od_ct:.3g}/s): {ct_rate / od_ct:.3g}x")


if __name__ == "__main__":
    main()
