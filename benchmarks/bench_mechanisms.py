"""Mechanisms benchmark: fxdp's exact randomized response and geometric mechanism
against numpy's inexact float versions and against other DP libraries (OpenDP,
IBM diffprivlib) when they are installed, all measured in the same run.

    python benchmarks/bench_mechanisms.py [--n 2000000] [--repeat 3] [--peer-calls 2000]
                                          [--peer-vector 50000] [--no-peer-bits]

Rows (releases per second, best of ``--repeat`` after a warm-up, JIT excluded):

* ``fxdp stream, 1 thread``: one device releasing n inputs from one keyed
  ChaCha20 stream (``stream_rr_bool`` / ``stream_rr`` / ``release_geometric_vec``);
* ``fxdp fleet, 1 thread`` / ``fxdp fleet, all cores``: ``m.simulate`` on n
  devices, each with its own keyed stream (one ChaCha20 block per device at
  least), ``numba.set_num_threads(1)`` vs all cores;
* ``numpy float``: the inexact float version (``rng.random(n) < p`` for
  binary RR, ``rng.random`` + ``rng.integers`` for k-ary,
  ``clip(x + rng.geometric(q) - rng.geometric(q))`` for the geometric);
* peers (the optional ``bench`` extra, ``pip install ".[bench]"``), single thread:
  OpenDP ``make_randomized_response_bool`` (lazy and ``constant_time=True``),
  ``make_randomized_response``, ``make_geometric`` (with ``bounds=(0, 100)``,
  OpenDP's constant-time linear sampler, and without), one Python call per
  release over ``--peer-calls`` inputs; OpenDP's batch forms, one call on a
  vector: ``make_randomized_response_bitvec`` (f = 0.5 flips each bit with
  probability 0.25, as binary RR with p = 0.75) on ``--peer-vector`` bits and
  ``make_geometric`` on a ``vector_domain`` of ``--peer-vector`` (bounded: a
  tenth of that) integers; diffprivlib ``Binary`` (epsilon = ln 3),
  ``Geometric`` and ``GeometricTruncated`` (epsilon = 0.1, i.e. scale 10), one
  call per release.  A peer that is not importable is reported as such.

The yardstick of a fleet (one ChaCha20 block per device at least) is the fastest ChaCha20 on the
same machine: OpenSSL's, through the ``cryptography`` package (64 MiB of keystream in 1 MiB
``update_into`` chunks, best of ``--repeat``), or ``openssl speed -evp chacha20`` when the package
is missing.  It is printed with the CPU's vector ISA, and each fleet row's ``vs OpenSSL`` is its
devices/s over OpenSSL's blocks/s times the threads used.  ``vs OpenSSL at once`` divides an
all-cores fleet row by OpenSSL measured on as many processes at once (each pass started at a
barrier on equal shares; all their blocks over the slowest one's time, best pass): on a shared VM the second core need not give twice
the rate, and this is the yardstick measured rather than assumed.  Both yardsticks are measured
again just before and just after each fleet row, and the row is divided by the larger of the
two (a VM's speed drifts by tens of percent within minutes; the header lines give the first
measurement).  ``fxdp lane ChaCha20`` is the
fleet kernels' multi-lane block function alone (fxdp/samplers/_nb_lanes.py), one thread.

Columns: ``vs numpy`` is rate / numpy's rate; ``fxdp / this`` is the fxdp
stream rate (same form: lazy or constant time) / this rate; ``bits/release`` is
the randomness consumed per release, measured:

* fxdp: final position of the keyed stream (stream), mean per device (fleet);
* OpenDP: bytes requested from ``opendp::traits::samplers::fill_bytes`` (the
  single source of randomness of OpenDP's samplers), counted by a gdb
  breakpoint in a separate process over a few hundred releases (x86-64 Linux
  with gdb and nm; else "-");
* diffprivlib: bytes read from ``os.urandom`` by its ``secrets.SystemRandom``
  (wrapped ``random._urandom``);
* numpy: not measured ("-").
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fxdp.mechanisms import make_geometric, make_randomized_response, make_randomized_response_bool
from fxdp.mechanisms import _fleet  # noqa: E402
from fxdp.mechanisms.additive._kernels_geometric import release_geometric_vec
from fxdp.mechanisms.oracles._kernels_randomized_response import stream_rr, stream_rr_bool
from fxdp.samplers import _kernels as K  # noqa: E402

SEED = 0xBE7C4
DASH = "-"


# ---- timing helpers ------------------------------------------------------------------

def best_time(fn, repeat):
    fn()                                       # warm-up: compilation, caches
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def percall_rate(fn, xs, repeat):
    """Releases/s of ``fn`` called once per input (a Python loop), best of ``repeat``."""
    def loop():
        for v in xs:
            fn(v)
    for v in xs[:100]:
        fn(v)
    return len(xs) / best_time(loop, repeat)


def stream_bits(run):
    state = K.seed_state(K.new_state(), SEED, 1)
    run(state)
    return K.bits_used(state)


def fleet_rate(m, x, repeat, threads):
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return x.shape[0] / best_time(lambda: m.simulate(x, SEED), repeat)
    finally:
        numba.set_num_threads(old)


def fleet_bits(m, x):
    _, _, bits, _ = _fleet.simulate_detailed(m, x[:20000], SEED)
    return float(bits.mean())


# ---- peers ----------------------------------------------------------------------------

PEERS = (("opendp", "opendp.prelude"), ("diffprivlib", "diffprivlib.mechanisms"))


def openssl_chacha20_blocks(repeat, mib=64):
    """(64-byte blocks per second of OpenSSL's ChaCha20, how it was measured); (None, why) if neither
    the cryptography package nor the openssl command is there."""
    try:
        import cryptography
        from cryptography.hazmat.backends.openssl.backend import backend
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    except ImportError:
        exe = shutil.which("openssl")
        if not exe:
            return None, "not measured (no cryptography package, no openssl command)"
        out = subprocess.run([exe, "speed", "-evp", "chacha20", "-seconds", "2", "-bytes", "16384"],
                             capture_output=True, text=True, timeout=120).stdout
        last = [ln for ln in out.splitlines() if ln.lower().startswith("chacha20")][-1]
        kbps = float(last.split()[-1].rstrip("k"))
        return kbps * 1000 / 64, "openssl speed -evp chacha20 (16 KiB)"
    enc = Cipher(algorithms.ChaCha20(bytes(range(32)), bytes(16)), mode=None).encryptor()
    chunk = bytearray(1 << 20)
    out = bytearray(len(chunk) + 64)

    def run():
        for _ in range(mib):
            enc.update_into(chunk, out)
    run()
    t = best_time(run, repeat)
    return mib * (1 << 20) / 64 / t, (f"cryptography {cryptography.__version__} "
                                      f"({backend.openssl_version_text()}), update_into, {mib} MiB")


def _openssl_worker(barrier, repeat, mib, out):
    """One process of openssl_chacha20_blocks_parallel: ``repeat`` passes of ``mib`` MiB, each
    started at a barrier shared with the other processes; puts the pass times on ``out``."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    enc = Cipher(algorithms.ChaCha20(bytes(range(32)), bytes(16)), mode=None).encryptor()
    chunk = bytearray(1 << 20)
    buf = bytearray(len(chunk) + 64)
    enc.update_into(chunk, buf)
    times = []
    for _ in range(repeat + 1):                # the first pass warms up, as best_time's does
        barrier.wait()
        t0 = time.perf_counter()
        for _ in range(mib):
            enc.update_into(chunk, buf)
        times.append(time.perf_counter() - t0)
    out.put(times[1:])


def openssl_chacha20_blocks_parallel(procs, repeat, mib=64):
    """Blocks per second of OpenSSL's ChaCha20 on ``procs`` processes at once (the yardstick of a
    fleet on that many cores, measured rather than assumed to be procs times one): every pass
    starts all processes at a barrier on equal shares of work, a pass's rate is all their blocks
    over the slowest one's time (as a fleet's threads split its devices), and the best pass is
    returned.  None if the cryptography package is missing or procs < 2."""
    try:
        import cryptography  # noqa: F401
    except ImportError:
        return None
    if procs < 2:
        return None
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(procs), ctx.Queue()
    ps = [ctx.Process(target=_openssl_worker, args=(barrier, repeat, mib, out)) for _ in range(procs)]
    for p in ps:
        p.start()
    per_proc = [out.get(timeout=600) for _ in ps]
    for p in ps:
        p.join()
    blocks = mib * (1 << 20) / 64
    return max(procs * blocks / max(t[k] for t in per_proc) for k in range(repeat))


def lane_chacha20_blocks(repeat, n=1 << 20):
    """Blocks per second of the fleet kernels' multi-lane ChaCha20 alone (one thread, a compiled
    loop over n device ids)."""
    from fxdp.samplers._nb_lanes import LANES, lane_blocks

    @numba.njit(nogil=True)
    def loop(key, ids, x):
        acc = np.uint32(0)
        for b in range(0, ids.shape[0], LANES):
            lane_blocks(key, ids, b, LANES, 0, 0, x)
            acc ^= x[0, 0]
        return acc
    key = np.arange(1, 9, dtype=np.uint32)
    ids = np.arange(n, dtype=np.uint64)
    x = np.zeros((16, LANES), np.uint32)
    loop(key, ids[:LANES], x)
    return n / best_time(lambda: loop(key, ids, x), repeat)


def vector_isa():
    try:
        flags = Path("/proc/cpuinfo").read_text().split("flags", 1)[1].split("\n", 1)[0].split()
    except (OSError, IndexError):
        return platform.machine()
    for isa in ("avx512f", "avx2", "sse4_2", "neon", "asimd"):
        if isa in flags:
            return isa
    return platform.machine()


def load_peers(enabled=True, names=None):
    """{name: (module or None, version or reason not available)}."""
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for name, mod in PEERS:
        if names is not None and name not in names:
            continue
        if not enabled:
            out[name] = (None, "disabled (--no-peers)")
            continue
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError:
            out[name] = (None, "not installed")
            continue
        except Exception as e:                 # installed but broken (e.g. a dependency clash)
            out[name] = (None, f"not importable ({type(e).__name__}: {e})")
            continue
        try:
            ver = version(name)
        except PackageNotFoundError:
            ver = "?"
        if name == "opendp":
            m.enable_features("contrib")
        out[name] = (m, ver)
    return out


def peer_banner(peers):
    return "peers: " + "; ".join(f"{n} {v}" if m else f"{n}: {v}" for n, (m, v) in peers.items())


def opendp_fill_bytes_symbol():
    """(path of OpenDP's shared library, file address of fill_bytes) or (None, reason)."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None, "byte count needs x86-64 Linux"
    if not shutil.which("gdb") or not shutil.which("nm"):
        return None, "byte count needs gdb and nm"
    import opendp
    libs = sorted(Path(opendp.__file__).parent.glob("lib/*.so"))
    if not libs:
        return None, "OpenDP shared library not found"
    nm = subprocess.run(["nm", "--defined-only", str(libs[0])], capture_output=True, text=True)
    for line in nm.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[2].endswith("6opendp6traits8samplers10fill_bytes"):
            return str(libs[0]), int(f[0], 16)
    return None, "fill_bytes symbol not found in OpenDP's library"


_GDB_SCRIPT = r'''
import gdb, json, os
LIB, OFF = os.environ["FXDP_OD_LIB"], int(os.environ["FXDP_OD_OFF"])
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set auto-solib-add off")
gdb.execute("catch syscall getppid")          # the helper's markers: os.getppid()
tot, snaps, bp, bad = [0, 0], [], [], [0]
class FillBytes(gdb.Breakpoint):
    # fill_bytes(buffer: &mut [u8]) -> Fallible<()>: result via the hidden pointer (rdi),
    # the slice as (ptr, len) = (rsi, rdx)
    def stop(self):
        k = int(gdb.parse_and_eval("$rdx"))
        if not 0 < k < (1 << 24):
            bad[0] += 1
        tot[0] += 1
        tot[1] += k
        return False
def on_stop(ev):
    if isinstance(ev, gdb.SignalEvent):
        return
    if not bp:
        pid = gdb.selected_inferior().pid
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            if len(f) >= 6 and f[5] == LIB and int(f[2], 16) == 0:
                bp.append(FillBytes(f"*{int(f[0].split('-')[0], 16) + OFF:#x}", internal=True))
                break
    snaps.append(list(tot))
gdb.events.stop.connect(on_stop)
gdb.execute("run")
while gdb.selected_inferior().pid:
    gdb.execute("continue")
print("FXDP_OD_RESULT " + json.dumps({"snaps": snaps, "bp": bool(bp), "bad": bad[0]}))
'''

_HELPER = r'''
import os, sys, json
import numpy as np
import opendp.prelude as dp
dp.enable_features("contrib")
for build, arg, calls in json.loads(sys.argv[1]):
    m, a = eval(build), eval(arg)
    m(a)                                       # warm-up (lazy initialisation)
    os.getppid()
    for _ in range(calls):
        m(a)
    os.getppid()
'''


def opendp_bits(jobs, timeout=600):
    """Random bits OpenDP draws per released element, counted at fill_bytes under gdb.

    jobs: {key: (build expression, argument expression, calls, elements per call)}.
    Returns ({key: bits per element}, note)."""
    lib, off = opendp_fill_bytes_symbol()
    if lib is None:
        return {}, off
    keys = list(jobs)
    spec = json.dumps([[jobs[k][0], jobs[k][1], jobs[k][2]] for k in keys])
    with tempfile.TemporaryDirectory() as d:
        gs, hs = Path(d, "count.py"), Path(d, "helper.py")
        gs.write_text(_GDB_SCRIPT)
        hs.write_text(_HELPER)
        env = dict(os.environ, FXDP_OD_LIB=str(Path(lib).resolve()), FXDP_OD_OFF=str(off))
        try:
            p = subprocess.run(["gdb", "-q", "-batch", "-nx", "-x", str(gs), "--args",
                                sys.executable, str(hs), spec],
                               capture_output=True, text=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {}, "gdb byte count timed out"
    res = [json.loads(line.split(" ", 1)[1]) for line in p.stdout.splitlines()
           if line.startswith("FXDP_OD_RESULT ")]
    if not res or not res[0]["bp"]:
        return {}, "gdb byte count failed"
    snaps, bad = res[0]["snaps"], res[0]["bad"]
    if bad or len(snaps) != 4 * len(keys):    # two stops (entry, return) per marker
        return {}, "gdb byte count: unexpected markers or lengths"
    out = {}
    for i, k in enumerate(keys):
        nbytes = snaps[4 * i + 2][1] - snaps[4 * i][1]
        out[k] = 8 * nbytes / (jobs[k][2] * jobs[k][3])
    return out, "gdb at fill_bytes"


def diffprivlib_bits(fn, x, calls=2000):
    """Bits diffprivlib's SystemRandom reads from os.urandom per release."""
    import random
    orig, count = random._urandom, [0]

    def counting(k):
        count[0] += k
        return orig(k)
    random._urandom = counting
    try:
        for _ in range(calls):
            fn(x)
    finally:
        random._urandom = orig
    return 8 * count[0] / calls


# ---- the benchmark --------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2_000_000, help="releases per fxdp / numpy run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer-calls", type=int, default=2000,
                    help="releases per timed pass of a peer's one-call-per-release loop")
    ap.add_argument("--peer-vector", type=int, default=50_000,
                    help="elements per OpenDP batch call (bounded geometric: a tenth)")
    ap.add_argument("--no-peers", action="store_true", help="fxdp and numpy only")
    ap.add_argument("--no-peer-bits", action="store_true", help="skip the gdb count of OpenDP's bits")
    args = ap.parse_args(argv)
    n, rep, pc, pv = args.n, args.repeat, args.peer_calls, args.peer_vector
    cores = numba.config.NUMBA_NUM_THREADS
    peers = load_peers(not args.no_peers)
    od, dpl = peers["opendp"][0], peers["diffprivlib"][0]
    ossl_rate, ossl_how = openssl_chacha20_blocks(rep)
    ossl_all = openssl_chacha20_blocks_parallel(cores, rep)
    lane_rate = lane_chacha20_blocks(rep)
    g = np.random.default_rng(1)
    rng = np.random.default_rng(2)
    rows = []          # dicts: mech, impl, rate, n, bits, np_ref, fx_ref
    fx_ref = {}        # (family, form) -> fxdp stream rate
    od_jobs = {}       # OpenDP byte-count jobs, filled in as rows are added
    notes = []

    def row(mech, impl, rate, n_timed, bits=None, np_ref=None, fx=None, od_key=None):
        rows.append(dict(mech=mech, impl=impl, rate=rate, n=n_timed, bits=bits, np_ref=np_ref,
                         fx=fx, od_key=od_key))

    def missing(mech, name):
        rows.append(dict(mech=mech, impl=name, rate=peers[name][1], n=None, bits=None, np_ref=None,
                         fx=None, od_key=None))

    def yardstick(procs):
        """OpenSSL's blocks/s on procs processes (1: this one), measured now; None without it."""
        if not ossl_rate:
            return None
        return openssl_chacha20_blocks(rep)[0] if procs == 1 else openssl_chacha20_blocks_parallel(procs, rep)

    def fleet_row(label, m, x, np_ref, threads, bits):
        """A fleet row with OpenSSL measured just before and just after it (the larger of the two:
        on a machine whose speed drifts, the ratio is then against the yardstick of the same
        minute, never flattered by a slow one)."""
        before = {p: yardstick(p) for p in {1, threads}}
        rate = fleet_rate(m, x, rep, threads)
        after = {p: yardstick(p) for p in {1, threads}}
        yard = {p: max(before[p], after[p]) if before[p] and after[p] else None for p in before}
        impl = "fxdp fleet, 1 thread" if threads == 1 else f"fxdp fleet, {threads} cores"
        row(label, impl, rate, n, bits, np_ref)
        rows[-1]["yard1"], rows[-1]["yard_all"] = yard[1], (yard[threads] if threads > 1 else None)

    def fxdp_rows(mech, fam, form, m, run, x, np_ref):
        r = n / best_time(lambda: run(K.seed_state(K.new_state(), SEED, 1)), rep)
        fx_ref[(fam, form)] = r
        label = f"{mech}, {form}"
        row(label, "fxdp stream, 1 thread", r, n, stream_bits(run) / n, np_ref)
        fleet_row(label, m, x, np_ref, 1, fleet_bits(m, x))
        fleet_row(label, m, x, np_ref, cores, None)

    def od_percall(label, impl, build, xs, fam, form, np_ref, arg):
        meas = eval(build, {"dp": od})
        r = percall_rate(meas, xs, rep)
        key = f"{label}|{impl}"
        od_jobs[key] = (build, arg, 100 if form == "constant time" else 500 if fam == "geom" else 1000, 1)
        row(label, impl, r, len(xs), None, np_ref, fx_ref[(fam, form)], key)

    # ---- binary randomized response ----------------------------------------
    p = 0.75
    xb = g.random(n) < 0.3
    mech = "RR bool p=0.75"
    np_rate = n / best_time(lambda: xb ^ (rng.random(n) >= p), rep)
    row(mech + " (float)", "numpy float, rng.random(n) < p", np_rate, n, None, np_rate)
    for ct in (False, True):
        m = make_randomized_response_bool(p, constant_time=ct)
        out = np.empty(n, dtype=np.bool_)

        def run(state, m=m, out=out, ct=ct):
            stream_rr_bool(state, m.a, m.bits, ct, xb, out)
        fxdp_rows(mech, "bool", "constant time" if ct else "lazy", m, run, xb, np_rate)
    xs_b = [bool(v) for v in xb[:pc]]
    if od:
        for ct in (False, True):
            form = "constant time" if ct else "lazy"
            od_percall(f"{mech}, {form}", "opendp make_randomized_response_bool, 1 call/release",
                       f"dp.m.make_randomized_response_bool(prob=0.75, constant_time={ct})",
                       xs_b, "bool", form, np_rate, "True")
        nb = pv - pv % 8
        packed = np.packbits(xb[:nb]).tobytes()
        for ct in (False, True):
            form = "constant time" if ct else "lazy"
            build = ("dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight={w}), "
                     f"dp.discrete_distance(), f=0.5, constant_time={ct})")
            meas = eval(build.format(w=nb), {"dp": od})
            r = nb / best_time(lambda: meas(packed), rep)
            key = f"{mech}, {form}|bitvec"
            nbits = 256 if ct else 4096
            od_jobs[key] = (build.format(w=nbits), f"bytes({nbits // 8})", 1, nbits)
            row(f"{mech}, {form}", f"opendp make_randomized_response_bitvec f=0.5, 1 call/{nb:,} bits",
                r, nb, None, np_rate, fx_ref[("bool", form)], key)
    else:
        missing(f"{mech}, lazy", "opendp")
    if dpl:
        b = dpl.Binary(epsilon=math.log(3), value0="0", value1="1")
        xs_s = ["1" if v else "0" for v in xs_b]
        row(f"{mech}, lazy", "diffprivlib Binary(epsilon=ln 3), 1 call/release",
            percall_rate(b.randomise, xs_s, rep), pc, diffprivlib_bits(b.randomise, "1"), np_rate,
            fx_ref[("bool", "lazy")])
    else:
        missing(f"{mech}, lazy", "diffprivlib")

    # ---- k-ary randomized response --------------------------------------------
    t, pk = 10, 0.5
    xk = g.integers(0, t, n)
    mech = "RR k-ary t=10 p=0.5"

    def np_kary():
        honest = rng.random(n) < pk
        other = rng.integers(0, t - 1, n)
        other += other >= xk
        return np.where(honest, xk, other)
    np_rate = n / best_time(np_kary, rep)
    row(mech + " (float)", "numpy float, random + integers", np_rate, n, None, np_rate)
    for ct in (False, True):
        m = make_randomized_response(list(range(t)), pk, constant_time=ct)
        out = np.empty(n, dtype=np.int64)
        thr = m.thresholds_u32()

        def run(state, m=m, out=out, ct=ct, thr=thr):
            stream_rr(state, m.t, m.w0, m.bits, thr, ct, xk, out)
        fxdp_rows(mech, "kary", "constant time" if ct else "lazy", m, run, xk, np_rate)
    if od:
        od_percall(f"{mech}, lazy", "opendp make_randomized_response, 1 call/release",
                   "dp.m.make_randomized_response(categories=list(range(10)), prob=0.5)",
                   [int(v) for v in xk[:pc]], "kary", "lazy", np_rate, "3")
    else:
        missing(f"{mech}, lazy", "opendp")
    if not dpl:
        missing(f"{mech}, lazy", "diffprivlib")
    notes.append("diffprivlib has no k-ary randomized response mechanism.")

    # ---- geometric, scale 10, bounds (0, 100) -------------------------------------
    xg = g.integers(0, 101, n)
    mech = "geometric scale 10 [0,100]"
    q = 1 - math.exp(-0.1)
    np_rate = n / best_time(lambda: np.clip(xg + rng.geometric(q, n) - rng.geometric(q, n), 0, 100), rep)
    row(mech + " (float)", "numpy float, clip(x + geometric - geometric)", np_rate, n, None, np_rate)
    for ct in (True, False):
        m = make_geometric(10, (0, 100), constant_time=ct)
        mode, s, tt, lo, hi, thr, k, width = m.kernel_params()
        out = np.empty(n, dtype=np.int64)

        def run(state, out=out, mode=mode, s=s, tt=tt, lo=lo, hi=hi, thr=thr, k=k, width=width):
            release_geometric_vec(state, mode, s, tt, lo, hi, thr, k, width, xg, out)
        fxdp_rows(mech, "geom", "constant time" if ct else "lazy", m, run, xg, np_rate)
    xs_g = [int(v) for v in xg[:pc]]
    if od:
        scalar = "dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=10.0{b})"
        vector = ("dp.m.make_geometric(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), "
                  "scale=10.0{b})")
        for form, bnd, impl in (("constant time", ", bounds=(0, 100)", "make_geometric(bounds=(0,100))"),
                                ("lazy", "", "make_geometric, no bounds")):
            od_percall(f"{mech}, {form}", f"opendp {impl}, 1 call/release", scalar.format(b=bnd), xs_g,
                       "geom", form, np_rate, "50")
            nv = pv // 10 if bnd else pv
            vec = [int(v) for v in xg[:nv]]
            meas = eval(vector.format(b=bnd), {"dp": od})
            r = nv / best_time(lambda: meas(vec), rep)
            key = f"{mech}, {form}|vector"
            nel = 100 if bnd else 500
            od_jobs[key] = (vector.format(b=bnd), f"[50] * {nel}", 1, nel)
            row(f"{mech}, {form}", f"opendp {impl}, 1 call/{nv:,}-vector", r, nv, None, np_rate,
                fx_ref[("geom", form)], key)
    else:
        missing(f"{mech}, constant time", "opendp")
    if dpl:
        for cls, kw, impl in ((dpl.GeometricTruncated, dict(lower=0, upper=100),
                               "diffprivlib GeometricTruncated(epsilon=0.1, 0, 100)"),
                              (dpl.Geometric, {}, "diffprivlib Geometric(epsilon=0.1), no bounds")):
            mm = cls(epsilon=0.1, **kw)
            row(f"{mech}, lazy", impl + ", 1 call/release", percall_rate(mm.randomise, xs_g, rep), pc,
                diffprivlib_bits(mm.randomise, 50), np_rate, fx_ref[("geom", "lazy")])
    else:
        missing(f"{mech}, lazy", "diffprivlib")

    # ---- OpenDP's bits per release (separate process under gdb, after all timings) ------
    od_note = None
    if od and not args.no_peer_bits:
        bits, od_note = opendp_bits(od_jobs)
        for r in rows:
            if r["od_key"] in bits:
                r["bits"] = bits[r["od_key"]]
    elif od:
        od_note = "skipped (--no-peer-bits)"

    # ---- print --------------------------------------------------------------------
    print(f"fxdp mechanisms benchmark: n = {n:,}, best of {rep}, {os.cpu_count()} CPUs "
          f"({cores} Numba threads); peers single-threaded")
    print(peer_banner(peers))
    ossl_txt = f"{ossl_rate:.3g} blocks/s" if ossl_rate else "-"
    print(f"OpenSSL ChaCha20, 1 thread: {ossl_txt} ({ossl_how}); vector ISA {vector_isa()}")
    if ossl_all:
        print(f"OpenSSL ChaCha20, {cores} processes at once: {ossl_all:.3g} blocks/s"
              + (f" = {ossl_all / ossl_rate:.3g}x one" if ossl_rate else ""))
    print(f"fxdp lane ChaCha20 (fleet first blocks), 1 thread: {lane_rate:.3g} blocks/s"
          + (f" = {lane_rate / ossl_rate:.3g}x OpenSSL" if ossl_rate else ""))
    order = []
    for r in rows:
        if r["mech"] not in order:
            order.append(r["mech"])
    rows.sort(key=lambda r: order.index(r["mech"]))
    w1 = max(len(r["mech"]) for r in rows)
    w2 = max(len(r["impl"]) for r in rows)
    hdr = (f"{'mechanism':<{w1}}  {'implementation':<{w2}}  {'releases/s':>10}  {'vs numpy':>9}  {'vs OpenSSL':>10}  "
           f"{'fxdp/this':>9}  {'bits/release':>12}  {'releases timed':>14}  {'vs OpenSSL at once':>18}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if isinstance(r["rate"], str):
            print(f"{r['mech']:<{w1}}  {r['impl']:<{w2}}  {r['rate']}")
            continue
        vs_np = f"{r['rate'] / r['np_ref']:9.3g}" if r["np_ref"] else f"{DASH:>9}"
        vs_fx = f"{r['fx'] / r['rate']:9.3g}" if r["fx"] else f"{'':>9}"
        threads = 1 if r["impl"] == "fxdp fleet, 1 thread" else cores
        vs_ossl = (f"{r['rate'] / (r['yard1'] * threads):10.3g}" if r.get("yard1") else f"{'':>10}")
        bits = f"{r['bits']:12.4g}" if r["bits"] is not None else f"{DASH:>12}"
        vs_all = f"{r['rate'] / r['yard_all']:18.3g}" if r.get("yard_all") else ""
        print(f"{r['mech']:<{w1}}  {r['impl']:<{w2}}  {r['rate']:10.3g}  {vs_np}  {vs_ossl}  {vs_fx}  {bits}  "
              f"{r['n']:>14,}  {vs_all}".rstrip())
    if od:
        if od_note == "gdb at fill_bytes":
            od_note = ("bytes requested from fill_bytes, counted under gdb in a separate process, over "
                       "1,000 releases per 1-call/release row (constant time: 100; geometric lazy: 500), "
                       "4,096 bits (bitvec; constant time: 256), 500 vector elements (bounded: 100)")
        print(f"\nOpenDP bits/release: {od_note}")
    for note in notes:
        print(note)

    # headline: constant-time geometric against OpenDP's, both measured here
    fx_ct = [r for r in rows if r["mech"] == f"{mech}, constant time" and r["impl"].startswith("fxdp stream")][0]
    od_ct = [r for r in rows if r["mech"] == f"{mech}, constant time" and r["impl"].startswith("opendp")
             and not isinstance(r["rate"], str)]
    for r in od_ct:
        line = f"constant-time geometric, fxdp stream vs {r['impl']}: {fx_ct['rate'] / r['rate']:.3g}x the rate"
        if r["bits"]:
            line += f", {r['bits'] / fx_ct['bits']:.3g}x fewer random bits per release"
        print(line)


if __name__ == "__main__":
    main()
