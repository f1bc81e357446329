"""Mechanisms: the three implementations agree bit for bit on the keyed streams.

* Numba fleet (``m.simulate`` / ``_kernels_randomized_response`` ...) vs the C host fleet
  (csrc/host/fxdp_host_mech.c, through the firmware entry points
  csrc/fxdp_mech_*.c): 10^5 devices per mechanism and form, zero mismatches
  in outputs, statuses and final stream positions (bits used).
* Reference (``m.release`` / ``release_index`` on a ``ChaCha20Source``) vs
  Numba: 10^3 devices per mechanism and form, outputs and bits used.
* The Numba single-release and single-stream kernels vs the reference.
* ``device_spec()``: a program built only from the spec (tables, cfg_init, the
  listed sources) with strict C99 flags releases exactly what ``simulate``
  does; the generated C also compiles for AVR, Cortex-M0+ and RV32.
All seeds fixed.
"""
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fxdp.bitsource import STREAM_VERSION, ChaCha20Source
from fxdp.mechanisms import (make_geometric, make_randomized_response, make_randomized_response_bool,
                             make_rappor)
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms import _fleet
from fxdp.mechanisms._fleet import check_seed
from fxdp.mechanisms.oracles._kernels_randomized_response import (fleet_rr_bool, release_rr, release_rr_bool,
                                                                  stream_rr, stream_rr_bool)
from fxdp.mechanisms.additive._kernels_geometric import release_geometric, release_geometric_vec
from fxdp.mechanisms.oracles._kernels_rappor import release_rappor
from fxdp.samplers import _kernels as K

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

SEED = 0x5EED_0F_F1EE7_C0FFEE_1234_5678_9ABC_DEF0_1357_9BDF_2468_ACE0   # < 2^256
N_FLEET = 100_000
N_REF = 1_000
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

# name -> (constructor, input generator(rng, n)); both forms of each are run
MECHS = {
    "rr_bool": (lambda ct: make_randomized_response_bool(0.75, constant_time=ct),
                lambda g, n: g.random(n) < 0.3),
    "rr_bool_p0.9_b20": (lambda ct: make_randomized_response_bool(0.9, constant_time=ct, bits=20),
                         lambda g, n: g.random(n) < 0.5),
    "rr_kary": (lambda ct: make_randomized_response(list("abcdefg"), 0.5, constant_time=ct),
                lambda g, n: g.integers(0, 8, n)),                 # 7 = not a category
    "rr_kary_t2_b12": (lambda ct: make_randomized_response(["y", "n"], Fraction(3, 4), constant_time=ct,
                                                           bits=12),
                       lambda g, n: g.integers(0, 3, n)),
    "rappor": (lambda ct: make_rappor(0.4, 3, 64, constant_time=ct),
               lambda g, n: _bit_rows(g, n, 64, 3)),
    "rappor_f1_b7": (lambda ct: make_rappor(1, 2, 9, constant_time=ct, bits=7),
                     lambda g, n: _bit_rows(g, n, 9, 2)),
    "geometric": (lambda ct: make_geometric(10, (0, 100), constant_time=ct),
                  lambda g, n: g.integers(-50, 151, n)),
    "geometric_vec": (lambda ct: make_geometric(Fraction(7, 2), (-20, 20), constant_time=ct, vector=True),
                      lambda g, n: g.integers(-30, 31, (n, 4))),
}


def _bit_rows(g, n, k, m):
    x = np.zeros((n, k), dtype=np.uint8)
    ones = g.integers(0, m + 1, n)
    for j in range(m):
        cols = g.integers(0, k, n)
        x[np.arange(n)[ones > j], cols[ones > j]] = 1
    return x


CASES = [(name, ct) for name in MECHS for ct in (False, True)]
IDS = [f"{n}-{'ct' if ct else 'lazy'}" for n, ct in CASES]


def _make(name, ct, n, salt):
    make, gen = MECHS[name]
    g = np.random.default_rng([salt, len(name), int(ct)])
    return make(ct), gen(g, n)


def _row_mismatches(a, b, n):
    return int((np.asarray(a).reshape(n, -1) != np.asarray(b).reshape(n, -1)).any(axis=1).sum())


# --------------------------------------------------------------------------
# Numba fleet vs C fleet, 10^5 devices

@pytest.mark.parametrize("name,ct", CASES, ids=IDS)
def test_numba_fleet_equals_c_fleet(name, ct):
    m, x = _make(name, ct, N_FLEET, 1)
    ids = np.arange(N_FLEET, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)   # spread over 64 bits
    out_nb, st_nb, bits_nb, _ = _fleet.simulate_detailed(m, x, SEED, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, x, SEED, device_ids=ids)
    assert out_nb.shape == out_c.shape and out_nb.shape[0] == N_FLEET
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert _row_mismatches(out_nb, out_c, N_FLEET) == 0
    assert int((bits_nb != bits_c).sum()) == 0
    # simulate() is the same fleet
    sim = m.simulate(x, SEED, device_ids=ids)
    assert _row_mismatches(sim, out_nb, N_FLEET) == 0
    # and the outputs are not trivially equal to the inputs
    assert _row_mismatches(sim, x, N_FLEET) > 0


def test_geometric_unbounded_extremes_numba_equals_c():
    """Default int64 bounds: saturation at the int64 ends without overflow."""
    g = np.random.default_rng(7)
    x = np.concatenate([np.full(2000, I64_MAX), np.full(2000, I64_MIN), np.full(2000, I64_MAX - 3),
                        np.full(2000, I64_MIN + 3), g.integers(I64_MIN, I64_MAX, 2000, dtype=np.int64)])
    m = make_geometric(Fraction(5, 2))
    a = _fleet.simulate_detailed(m, x, SEED)
    b = dv.c_fleet(m, x, SEED)
    assert _row_mismatches(a[0], b[0], x.size) == 0 and (a[2] == b[2]).all()
    assert (a[0] >= I64_MAX - 200)[:2000].all() and (a[0] <= I64_MIN + 200)[2000:4000].all()
    assert (a[0][:2000] == I64_MAX).any() and (a[0][2000:4000] == I64_MIN).any()


# --------------------------------------------------------------------------
# reference vs Numba, 10^3 devices (outputs and bits used)

def _ref_release(m, src, x):
    if hasattr(m, "release_index"):
        return m.release_index(src, int(x))
    if hasattr(m, "k") and hasattr(m, "flip_prob"):           # RAPPOR
        return m.release(src, [int(b) for b in x])
    if getattr(m, "vector", False):
        return m.release(src, [int(v) for v in x])
    if hasattr(m, "scale"):
        return m.release(src, int(x))
    return m.release(src, bool(x))


@pytest.mark.parametrize("name,ct", CASES, ids=IDS)
def test_reference_equals_numba(name, ct):
    m, x = _make(name, ct, N_REF, 2)
    ids = np.arange(10**9, 10**9 + N_REF, dtype=np.uint64)
    out, st, bits, _ = _fleet.simulate_detailed(m, x, SEED, device_ids=ids)
    assert (st == 0).all()
    mism = 0
    for i in range(N_REF):
        src = ChaCha20Source(SEED, int(ids[i]), 0)
        y = _ref_release(m, src, x[i])
        got = out[i].tolist()
        mism += (y != got) or (src.bits_used != int(bits[i]))
    assert mism == 0


def test_reference_equals_numba_scale_zero_and_bounds():
    m = make_geometric(0, (-5, 5), vector=True)
    x = np.arange(-40, 40).reshape(20, 4)
    out, st, bits, _ = _fleet.simulate_detailed(m, x, SEED)
    assert (bits == 0).all() and (st == 0).all()
    assert out.tolist() == [m.release(ChaCha20Source(SEED, i), row.tolist()) for i, row in enumerate(x)]


# --------------------------------------------------------------------------
# Numba single-release and single-stream kernels vs the reference

def test_single_release_kernels_follow_the_reference():
    g = np.random.default_rng(3)
    rb = make_randomized_response_bool(0.8, constant_time=False)
    rk = make_randomized_response(list(range(5)), 0.4, constant_time=True)
    rp = make_rappor(0.3, 2, 20, constant_time=True)
    ge = make_geometric(4, (-10, 10), constant_time=False, vector=True)
    gc = make_geometric(4, (-10, 10), constant_time=True)
    mode, s, t, lo, hi, thr, k, width = ge.kernel_params()
    cmode, _, _, clo, chi, cthr, ck, cwidth = gc.kernel_params()
    for dev in range(40):
        st_nb = K.seed_state(K.new_state(), SEED, dev)
        src = ChaCha20Source(SEED, dev)
        xb = bool(dev % 2)
        st, y = release_rr_bool(st_nb, rb.a, rb.bits, False, xb)
        assert st == 0 and y == rb.release(src, xb)
        xk = dev % 6
        st, y = release_rr(st_nb, rk.t, rk.w0, rk.bits, rk.thresholds_u32(), True, xk)
        assert st == 0 and y == rk.release_index(src, xk)
        xr = np.zeros(20, np.uint8)
        xr[dev % 20] = 1
        outr = np.zeros(20, np.uint8)
        assert release_rappor(st_nb, rp.a, rp.bits, True, xr, outr) == 0
        assert outr.tolist() == rp.release(src, xr.tolist())
        xv = g.integers(-15, 15, 3)
        outv = np.zeros(3, np.int64)
        assert release_geometric_vec(st_nb, mode, s, t, lo, hi, thr, k, width, xv, outv) == 0
        assert outv.tolist() == ge.release(src, xv.tolist())
        st, y = release_geometric(st_nb, cmode, 0, 0, clo, chi, cthr, ck, cwidth, dev - 20)
        assert st == 0 and y == gc.release(src, dev - 20)
        assert K.bits_used(st_nb) == src.bits_used


@pytest.mark.parametrize("ct", [False, True])
def test_stream_kernels_follow_the_reference(ct):
    rb = make_randomized_response_bool(0.7, constant_time=ct)
    rk = make_randomized_response(list(range(4)), 0.55, constant_time=ct)
    xs = np.random.default_rng(4).integers(0, 5, 3000)
    st_nb = K.seed_state(K.new_state(), SEED, 77)
    out = np.zeros(3000, np.int64)
    assert stream_rr(st_nb, rk.t, rk.w0, rk.bits, rk.thresholds_u32(), ct, xs, out) == (0, 3000)
    src = ChaCha20Source(SEED, 77)
    assert out.tolist() == [rk.release_index(src, int(x)) for x in xs]
    outb = np.zeros(3000, np.bool_)
    assert stream_rr_bool(st_nb, rb.a, rb.bits, ct, xs % 2 == 1, outb) == (0, 3000)
    assert outb.tolist() == [rb.release(src, bool(x % 2)) for x in xs]
    assert K.bits_used(st_nb) == src.bits_used


def test_c_single_release_follows_the_reference():
    """fxdp.native rng + the firmware entry points, release after release on one stream."""
    from fxdp import native
    r = native.new_rng_seeded(SEED, 5)
    src = ChaCha20Source(SEED, 5)
    mechs = [make_randomized_response_bool(0.75, constant_time=True),
             make_randomized_response(list(range(6)), 0.3),
             make_rappor(0.5, 2, 33),
             make_geometric(3, (-4, 9), constant_time=True, vector=True),
             make_geometric(Fraction(1, 3))]
    inputs = [True, 6, [1] + [0] * 31 + [1], [-100, 0, 3, 100], 12345]
    for _ in range(30):
        for m, x in zip(mechs, inputs):
            assert dv.c_release(m, r, x) == _ref_release(m, src, np.asarray(x))
    assert native.bits_used(r) == src.bits_used


# --------------------------------------------------------------------------
# device_spec(): generated C, built from the spec alone

SPEC_CASES = {
    "rr_bool_ct": lambda: make_randomized_response_bool(0.75, constant_time=True),
    "rr_bool_lazy": lambda: make_randomized_response_bool(Fraction(2, 3), bits=40),
    "rr_kary_ct": lambda: make_randomized_response(list("abcde"), 0.6, constant_time=True),
    "rr_kary_lazy": lambda: make_randomized_response(list("abcde"), 0.6),
    "rappor_ct": lambda: make_rappor(0.5, 2, 16, constant_time=True),
    "rappor_lazy": lambda: make_rappor(0.25, 3, 40),
    "geometric_ct": lambda: make_geometric(10, (0, 100), constant_time=True),
    "geometric_lazy": lambda: make_geometric(10),
    "geometric_vec_ct": lambda: make_geometric(2, (-8, 8), constant_time=True, vector=True),
}
SPEC_DIM = {"geometric_vec_ct": 3}
CT_LIT = {"uint8_t": "u", "uint32_t": "u", "int64_t": ""}


def _spec(name):
    m = SPEC_CASES[name]()
    return m, (m.device_spec(dim=SPEC_DIM[name]) if name in SPEC_DIM else m.device_spec())


def _program(spec, inputs, n_dev, host=True):
    """A firmware-like program from the spec alone: its tables and cfg_init, one release per
    device i (keyed stream (SEED, i, 0)) of inputs[i].  host: print status and outputs;
    otherwise a freestanding function (for the cross compilers)."""
    lit = {"uint8_t": lambda v: f"{v}u", "uint32_t": lambda v: f"UINT32_C({v})", "int64_t": cs.c_i64}
    lines = (['#include <stdio.h>'] if host else []) + ['#include "fxdp.h"', ""]
    for name, ctype, vals in spec["tables"]:
        lines.append(f"static const {ctype} {name}[{len(vals)}] = {{"
                     + ", ".join(lit[ctype](int(v)) for v in vals) + "};")
    lines.append(f"static const {spec['cfg_type']} cfg = {spec['cfg_init']};")
    cin, cout = spec["input"], spec["output"]
    flat = [lit[cin["ctype"]](int(v)) for row in inputs for v in np.atleast_1d(row)]
    lines.append(f"static const {cin['ctype']} xs[{len(flat)}] = {{{', '.join(flat)}}};")
    lines.append(f"static const uint32_t seed[8] = {cs.c_u32_list(cs.seed_words(SEED))};")
    if host:
        lines += ["int main(void)", "{"]
    else:
        lines += ["volatile uint32_t sink;", "int fw(void);", "int fw(void)", "{"]
    lines += ["    uint32_t i, j;",
              f"    {cout['ctype']} y[{cout['count']}];",
              f"    for (i = 0; i < {n_dev}u; i++) {{",
              "        fxdp_rng r;",
              "        fxdp_status st;",
              f"        (void)fxdp_rng_init_stream(&r, {STREAM_VERSION}u, seed, i, 0u, 0u);",
              f"        st = {spec['c_function']}(&r, &cfg, xs + i * {cin['count']}u, y);"]
    if host:
        lines += ["        printf(\"%d\", (int)st);",
                  f"        for (j = 0; j < {cout['count']}u; j++) printf(\" %lld\", (long long)y[j]);",
                  "        printf(\"\\n\");"]
    else:
        lines += [f"        for (j = 0; j < {cout['count']}u; j++) sink += (uint32_t)y[j] + (uint32_t)st;"]
    lines += ["    }", "    return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(SPEC_CASES))
def test_device_spec_program_equals_simulate(name, tmp_path):
    m, spec = _spec(name)
    assert set(spec) - {"in_place"} == {"c_function", "cfg_type", "cfg_init", "tables", "input", "output",
                                        "sources", "summary"}     # in_place: forms that zero out on failure
    n_dev = 200
    g = np.random.default_rng(11)
    if "rappor" in name:
        x = _bit_rows(g, n_dev, m.k, m.m)
    elif "kary" in name:
        x = g.integers(0, m.t if m.constant_time else m.t + 1, n_dev)
    elif "bool" in name:
        x = (g.random(n_dev) < 0.5).astype(np.uint8)
    elif "vec" in name:
        x = g.integers(-12, 13, (n_dev, SPEC_DIM[name]))
    else:
        x = g.integers(-1000, 1000, n_dev)
    src = tmp_path / "prog.c"
    src.write_text(_program(spec, x, n_dev))
    # the same generated C must also compile for the MCU targets (16-bit int on AVR): start those
    # compilers now, check them at the end
    fw = tmp_path / "fw.c"
    fw.write_text(_program(spec, x[:8], 8, host=False))
    cross = [(cc, subprocess.Popen([cc, *cs.STRICT, "-Wmissing-prototypes", *flags, "-Os", f"-I{cs.CSRC}", "-c",
                                    str(fw), "-o", str(tmp_path / f"fw_{cc}.o")],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
             for cc, flags in (("avr-gcc", ["-mmcu=atmega328p"]),
                               ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb", "-ffreestanding"]),
                               ("riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32", "-ffreestanding"]))]
    exe = cs.compile_c(tmp_path / "prog", [src, *(cs.CSRC / s for s in spec["sources"])],
                       [*cs.STRICT, "-O2"])
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    expect = np.asarray(m.simulate(x, SEED)).reshape(n_dev, -1).astype(np.int64)
    got = [list(map(int, line.split())) for line in res.stdout.splitlines()]
    assert len(got) == n_dev
    assert all(row[0] == 0 for row in got)
    assert [row[1:] for row in got] == expect.tolist()
    for cc, proc in cross:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{cc}: {err}"


def test_device_spec_rejections():
    with pytest.raises(ValueError, match="dim"):
        make_geometric(2, (-8, 8), vector=True).device_spec()
    with pytest.raises(ValueError, match="dim"):
        make_geometric(2, (-8, 8), vector=True).device_spec(dim=17)
    with pytest.raises(ValueError, match="dim"):
        make_geometric(2, (-8, 8)).device_spec(dim=3)
    with pytest.raises(ValueError, match="scale = 0"):
        make_geometric(0, (-8, 8)).device_spec()
    with pytest.raises(ValueError, match="FXDP_RAPPOR_MAX_K"):
        make_rappor(0.5, 1, 1025).device_spec()
    spec = make_rappor(0.5, 1, 1024).device_spec()
    assert spec["input"]["count"] == 1024


def test_device_spec_examples():
    spec = make_randomized_response_bool(0.75, constant_time=True).device_spec()
    assert spec["c_function"] == "fxdp_rr_bool_ct" and spec["cfg_type"] == "fxdp_rr_bool_cfg"
    assert spec["cfg_init"] == "{ .a = UINT64_C(3221225472), .k = 32u }"
    assert spec["tables"] == [] and spec["input"] == {"ctype": "uint8_t", "count": 1}
    assert "fxdp_mech_rr.c" in spec["sources"] and "constant time" in spec["summary"]
    spec = make_randomized_response(list("abc"), 0.5, constant_time=True, bits=8).device_spec()
    assert spec["cfg_init"] == "{ .t = UINT32_C(3), .w0 = UINT32_C(128), .k = 8u, .thresholds = fxdp_rr_thresholds }"
    assert spec["tables"] == [("fxdp_rr_thresholds", "uint32_t", [128, 192])]
    spec = make_geometric(10, (0, 100), constant_time=True).device_spec()
    name, ctype, thr = spec["tables"][0]
    # the half table: t[0..W) of the 2W = 200 thresholds, the mirrored half derived in the scan
    assert (name, ctype, len(thr)) == ("fxdp_geometric_thresholds", "uint32_t", 100)
    assert ".half = 1u" in spec["cfg_init"] or ".half = 2u" in spec["cfg_init"]


def test_exporter_accepts_every_spec():
    """The firmware exporter's own validation (fxdp.export.device_spec) passes for every case."""
    from fxdp import export
    for name in SPEC_CASES:
        if name in SPEC_DIM:
            continue                      # the exporter calls device_spec() without a dimension
        m = SPEC_CASES[name]()
        spec = export.device_spec(m)
        assert spec.c_function == m.device_spec()["c_function"]


# --------------------------------------------------------------------------
# the fleet kernel releases the GIL

def test_simulate_releases_the_gil():
    """While one thread runs a long simulate, a pure-Python loop in another keeps running:
    its longest stall is a small fraction of the kernel's run time."""
    import threading
    import time

    import numba

    m = make_randomized_response_bool(0.75)
    x = np.zeros(16_000_000, dtype=bool)                # >= 0.2 s of kernel at the lane fleet's ~2e7/s
    m.simulate(x[:10], 1)                              # compiled / loaded from the cache
    span = {}

    def work():
        numba.set_num_threads(1)                       # leave a core to the main thread
        t0 = time.perf_counter()
        fleet_rr_bool(check_seed(1), np.arange(x.size, dtype=np.uint64), np.uint32(0),
                         np.uint64(m.a), np.uint64(m.bits), False, x, np.zeros(x.size, np.bool_),
                         np.zeros(x.size, np.uint8), np.zeros(0, np.int64))
        span["kernel"] = time.perf_counter() - t0

    th = threading.Thread(target=work)
    last = time.perf_counter()
    th.start()
    worst = 0.0
    while th.is_alive():
        now = time.perf_counter()
        worst = max(worst, now - last)
        last = now
    th.join()
    assert span["kernel"] > 0.2
    assert worst < 0.4 * span["kernel"], (worst, span["kernel"])


def test_fleet_kernels_are_parallel_and_nogil():
    from fxdp.mechanisms.additive import _kernels_geometric
    from fxdp.mechanisms.oracles import _kernels_randomized_response, _kernels_rappor
    for module, name in ((_kernels_randomized_response, "fleet_rr_bool"), (_kernels_randomized_response, "fleet_rr"),
                         (_kernels_rappor, "fleet_rappor"), (_kernels_geometric, "fleet_geometric")):
        kernel = getattr(module, name)
        assert kernel.targetoptions.get("parallel") and kernel.targetoptions.get("nogil"), name
        assert kernel._cache is not None and type(kernel._cache).__name__ != "NullCache"
