"""Mechanisms, bad input and entropy failure, in C and in Python.

C (csrc/fxdp_mech_*.c through cffi):
* every bad parameter, bad input and NULL pointer gives FXDP_ERR_PARAM with the
  output untouched (a 0xA5 sentinel) and the rng untouched (no bit drawn);
* a failed rng gives FXDP_ERR_ENTROPY, output untouched;
* an entropy failure at EVERY word position of a vector release (RAPPOR with
  k = 64, lazy and constant time; vector geometric with n = 16) gives
  FXDP_ERR_ENTROPY, releases nothing, and stays failed (sticky); with one word
  more the release succeeds and equals the reference on the same words.  Board
  hook, replay and keyed (keystream exhaustion) modes.  "Releases nothing":
  the output untouched, or, for the forms that draw in place in the caller's
  buffer (basic RAPPOR, the lazy geometric: no stack copy), all zero; a
  sticky failure (nothing drawn) leaves even those untouched;
* the host fleet loop reports per-device failures and leaves those rows alone
  (in-place forms: zeroes them);
* the sources build with strict C99 flags for every toolchain, without libc
  symbols, and run clean under ASan/UBSan on a fixed-seed fuzz driver.
Python (``m.simulate``): bad inputs raise ValueError before anything is drawn;
a device whose stream fails makes simulate raise (EntropyError) and return
nothing.
"""
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import EntropyError
from fxdp.mechanisms import (make_geometric, make_randomized_response, make_randomized_response_bool,
                             make_rappor)
from fxdp.mechanisms import _device as dv
from fxdp.mechanisms import _fleet
from fxdp.mechanisms._fleet import check_seed
from fxdp.mechanisms.additive._kernels_geometric import release_geometric_vec
from fxdp.mechanisms.oracles._kernels_rappor import release_rappor
from fxdp.mechanisms.additive import _kernels_geometric
from fxdp.mechanisms.oracles import _kernels_randomized_response, _kernels_rappor

# the fleet kernels a mechanism's simulate calls (none may run on a refused input)
FLEET_KERNELS = ((_kernels_randomized_response, "fleet_rr_bool"), (_kernels_randomized_response, "fleet_rr"),
                 (_kernels_rappor, "fleet_rappor"), (_kernels_geometric, "fleet_geometric"))
from fxdp.samplers import _kernels as K

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

OK, PARAM, ENTROPY = 0, 1, 2
SEED = 0xE17E0_5EED
MECH_SOURCES = [cs.CSRC / f"fxdp_mech_{n}.c" for n in ("rr", "rappor", "geometric")]
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


@pytest.fixture(scope="module")
def ffi():
    return native.ffi


@pytest.fixture(scope="module")
def lib():
    return native.lib


def _state(r):
    return native.state_words(r).tolist()


class Call:
    """One entry point with its cfg, input and a sentinel-filled output buffer."""

    def __init__(self, fn, cfg_type, fields, ctype, x, nout, tables=None):
        ffi = native.ffi
        self.keep = []
        self.cfg = ffi.new(f"{cfg_type} *", fields)
        for name, vals in (tables or {}).items():
            arr = ffi.new("uint32_t[]", vals)
            self.keep.append(arr)
            setattr(self.cfg, name, arr)
        self.fn = getattr(native.lib, fn)
        self.x = ffi.new(f"{ctype}[]", list(x))
        self.out = ffi.new(f"{ctype}[]", nout)
        self.nbytes = ffi.sizeof(self.out)
        self.ctype = ctype
        self.poison()

    def poison(self):
        native.ffi.memmove(self.out, b"\xA5" * self.nbytes, self.nbytes)

    def untouched(self):
        return bytes(native.ffi.buffer(self.out)) == b"\xA5" * self.nbytes

    def __call__(self, r, cfg=None, x=None, out=None):
        return self.fn(r, self.cfg if cfg is None else cfg, self.x if x is None else x,
                       self.out if out is None else out)

    def result(self):
        return list(self.out)


# --------------------------------------------------------------------------
# the valid calls, and their bad variants

RB = make_randomized_response_bool(0.75)
RK = make_randomized_response(list(range(5)), 0.6, constant_time=True)
RP = make_rappor(0.4, 3, 64)
GC = make_geometric(3, (-20, 20), constant_time=True)
GL = make_geometric(3, (-20, 20))


def rr_bool(fn="fxdp_rr_bool", **kw):
    f = {"a": RB.a, "k": RB.bits}
    f.update(kw.pop("cfg", {}))
    return Call(fn, "fxdp_rr_bool_cfg", f, "uint8_t", [kw.get("x", 1)], 1)


def rr(fn="fxdp_rr", **kw):
    f = {"t": RK.t, "w0": RK.w0, "k": RK.bits}
    f.update(kw.pop("cfg", {}))
    tables = {"thresholds": kw.get("thresholds", list(RK.thresholds))} if kw.get("thresholds", 1) is not None else {}
    return Call(fn, "fxdp_rr_cfg", f, "uint32_t", [kw.get("x", 2)], 1, tables)


def rappor(fn="fxdp_rappor", **kw):
    f = {"a": RP.a, "bits": RP.bits, "k": RP.k, "m": RP.m}
    f.update(kw.pop("cfg", {}))
    x = kw.get("x", [1, 0, 1] + [0] * (RP.k - 3))
    return Call(fn, "fxdp_rappor_cfg", f, "uint8_t", x, max(len(x), 1))


def geometric(fn="fxdp_geometric", n=4, **kw):
    t = GC.table
    f = {"s": GC.s, "t": GC.t, "lo": -20, "hi": 20, "n": n, "k": t.k, "width": t.width}
    f.update(kw.pop("cfg", {}))
    thr = kw.get("thresholds", list(t.thresholds))
    tables = {"thresholds": thr} if thr is not None else {}
    x = kw.get("x", [I64_MIN, -3, 7, I64_MAX][:n] + [0] * max(0, n - 4))
    return Call(fn, "fxdp_geometric_cfg", f, "int64_t", x, max(len(x), 1), tables)


BAD = {
    "rr_bool k=0": lambda fn: rr_bool(fn, cfg={"k": 0}),
    "rr_bool k=64": lambda fn: rr_bool(fn, cfg={"k": 64}),
    "rr_bool a<2^(k-1)": lambda fn: rr_bool(fn, cfg={"a": (1 << 31) - 1}),
    "rr_bool a=2^k": lambda fn: rr_bool(fn, cfg={"a": 1 << 32}),
    "rr_bool x=2": lambda fn: rr_bool(fn, x=2),
    "rr_bool x=255": lambda fn: rr_bool(fn, x=255),
    "rr k=0": lambda fn: rr(fn, cfg={"k": 0}),
    "rr k=33": lambda fn: rr(fn, cfg={"k": 33}),
    "rr t=1": lambda fn: rr(fn, cfg={"t": 1}),
    "rr t>2^(k-1)": lambda fn: rr(fn, cfg={"k": 3, "t": 5, "w0": 4}),
    "rr w0=0": lambda fn: rr(fn, cfg={"w0": 0}),
    "rr w0=2^k": lambda fn: rr(fn, cfg={"k": 31, "w0": 1 << 31}),
    "rr x=t+1": lambda fn: rr(fn, x=RK.t + 1),
    "rr x=2^32-1": lambda fn: rr(fn, x=0xFFFFFFFF),
    "rappor bits=0": lambda fn: rappor(fn, cfg={"bits": 0}),
    "rappor bits=64": lambda fn: rappor(fn, cfg={"bits": 64}),
    "rappor a=0": lambda fn: rappor(fn, cfg={"a": 0}),
    "rappor a>2^(bits-1)": lambda fn: rappor(fn, cfg={"a": (1 << 31) + 1}),
    "rappor k=0": lambda fn: rappor(fn, cfg={"k": 0}),
    "rappor k=1025": lambda fn: rappor(fn, cfg={"k": 1025, "m": 3}, x=[0] * 1025),
    "rappor m=0": lambda fn: rappor(fn, cfg={"m": 0}),
    "rappor m>k": lambda fn: rappor(fn, cfg={"m": 65}),
    "rappor x=2": lambda fn: rappor(fn, x=[2] + [0] * 63),
    "rappor x=0x80": lambda fn: rappor(fn, x=[0] * 63 + [0x80]),
    "rappor m+1 ones": lambda fn: rappor(fn, x=[1] * 4 + [0] * 60),
    "geometric n=0": lambda fn: geometric(fn, cfg={"n": 0}),
    "geometric n=17": lambda fn: geometric(fn, n=17),
    "geometric lo>hi": lambda fn: geometric(fn, cfg={"lo": 21, "hi": 20}),
}
BAD_LAZY_ONLY = {
    "rr lazy x=t+1 (t is allowed)": lambda: rr("fxdp_rr", x=RK.t + 1),
    "geometric s=0": lambda: geometric("fxdp_geometric", cfg={"s": 0}),
    "geometric t=0": lambda: geometric("fxdp_geometric", cfg={"t": 0}),
}
BAD_CT_ONLY = {
    "rr_ct x=t": lambda: rr("fxdp_rr_ct", x=RK.t),
    "rr_ct thresholds NULL": lambda: rr("fxdp_rr_ct", thresholds=None),
    "rr_ct thresholds[0]!=w0": lambda: rr("fxdp_rr_ct", thresholds=[RK.w0 + 1] + list(RK.thresholds[1:])),
    "rr_ct last>=2^k": lambda: rr("fxdp_rr_ct", cfg={"k": 31, "w0": 1 << 29},
                                  thresholds=[1 << 29, 1 << 30, (1 << 30) + (1 << 29), 1 << 31]),
    "geometric_ct k=0": lambda: geometric("fxdp_geometric_ct", cfg={"k": 0}),
    "geometric_ct k=33": lambda: geometric("fxdp_geometric_ct", cfg={"k": 33}),
    "geometric_ct width=0": lambda: geometric("fxdp_geometric_ct", cfg={"width": 0}),
    "geometric_ct width=32768": lambda: geometric("fxdp_geometric_ct", cfg={"width": 32768},
                                                  thresholds=list(range(1, 65537))),
    "geometric_ct thresholds NULL": lambda: geometric("fxdp_geometric_ct", thresholds=None),
    "geometric_ct lo<-2^31": lambda: geometric("fxdp_geometric_ct", cfg={"lo": -(1 << 31) - 1}),
    "geometric_ct hi>2^31-1": lambda: geometric("fxdp_geometric_ct", cfg={"hi": 1 << 31}),
    "geometric_ct last>=2^k": lambda: geometric("fxdp_geometric_ct", cfg={"k": 8}),
}
FNS = {"rr_bool": ("fxdp_rr_bool", "fxdp_rr_bool_ct"), "rr": ("fxdp_rr", "fxdp_rr_ct"),
       "rappor": ("fxdp_rappor", "fxdp_rappor_ct"), "geometric": ("fxdp_geometric", "fxdp_geometric_ct")}
VALID = {"rr_bool": rr_bool, "rr": rr, "rappor": rappor, "geometric": geometric}


def _assert_param(call, r):
    before = _state(r)
    assert call(r) == PARAM
    assert call.untouched()
    assert _state(r) == before                        # nothing drawn


def _bad_cases():
    out = []
    for name, make in BAD.items():
        for fn in FNS[name.split()[0]]:
            out.append((f"{fn}: {name}", lambda make=make, fn=fn: make(fn)))
    out += [(n, m) for n, m in BAD_CT_ONLY.items()]
    out += [(n, m) for n, m in BAD_LAZY_ONLY.items() if "allowed" not in n]
    return out


@pytest.mark.parametrize("name,make", _bad_cases(), ids=[c[0] for c in _bad_cases()])
def test_c_bad_parameters_and_inputs(name, make):
    _assert_param(make(), native.new_rng_seeded(SEED, 1))


def test_c_valid_calls_succeed_and_lazy_rr_takes_t():
    """The baseline the bad cases vary: every valid call gives FXDP_OK."""
    for fns in FNS.values():
        for fn in fns:
            call = VALID[[k for k, v in FNS.items() if v == fns][0]](fn)
            r = native.new_rng_seeded(SEED, 2)
            assert call(r) == OK and not call.untouched()
    call = rr("fxdp_rr", x=RK.t)                     # "not a category" is a valid lazy input
    assert call(native.new_rng_seeded(SEED, 3)) == OK


@pytest.mark.parametrize("fn", [f for fns in FNS.values() for f in fns])
def test_c_null_pointers(fn, ffi):
    base = VALID[[k for k, v in FNS.items() if fn in v][0]](fn)
    r = native.new_rng_seeded(SEED, 4)
    before = _state(r)
    assert base.fn(ffi.NULL, base.cfg, base.x, base.out) == PARAM
    assert base.fn(r, ffi.NULL, base.x, base.out) == PARAM
    assert base.fn(r, base.cfg, ffi.NULL, base.out) == PARAM
    assert base.fn(r, base.cfg, base.x, ffi.NULL) == PARAM
    assert base.untouched() and _state(r) == before


# the forms that draw into the caller's buffer and zero it on a failure during the draws
IN_PLACE = {"fxdp_rappor", "fxdp_rappor_ct", "fxdp_geometric"}


@pytest.mark.parametrize("fn", [f for fns in FNS.values() for f in fns])
def test_c_failed_rng(fn):
    call = VALID[[k for k, v in FNS.items() if fn in v][0]](fn)
    r = native.new_rng_replay([])                      # fails on the first word
    assert call(r) == ENTROPY
    if fn in IN_PLACE:
        assert bytes(native.ffi.buffer(call.out)) == bytes(call.nbytes)   # zeroed: nothing released
        call.poison()
    else:
        assert call.untouched()
    assert call(r) == ENTROPY and call.untouched()     # sticky: nothing drawn, nothing written


def test_c_bad_parameter_beats_failed_rng():
    """Parameters are checked before the rng: a bad call on a dead rng is FXDP_ERR_PARAM."""
    call = rr_bool("fxdp_rr_bool_ct", x=3)
    assert call(native.new_rng_replay([])) == PARAM and call.untouched()


# --------------------------------------------------------------------------
# entropy failure at every word position of a vector release

class WordHook:
    """Board hook serving the keyed stream's words (4 bytes each, little-endian), failing
    after `budget` words."""

    def __init__(self, words, budget):
        self.words, self.budget, self.i = words, budget, 0

    def __call__(self, n):
        if n != 4 or self.i >= self.budget:
            raise OSError("entropy source down")
        w = self.words[self.i]
        self.i += 1
        return int(w).to_bytes(4, "little")


VECTOR_CASES = {
    "rappor_lazy_k64": (make_rappor(0.4, 3, 64), [1, 0, 0, 1, 1] + [0] * 59),
    "rappor_ct_k64_b32": (make_rappor(0.4, 3, 64, constant_time=True), [0] * 63 + [1]),
    "rappor_ct_k64_b8": (make_rappor(Fraction(1, 2), 3, 64, constant_time=True, bits=8), [1, 1, 1] + [0] * 61),
    "geometric_lazy_n16": (make_geometric(Fraction(9, 2), (-100, 100), vector=True),
                           [-200, -100, -5, 0, 5, 100, 200, 3] * 2),
    "geometric_ct_n16": (make_geometric(3, (-20, 20), constant_time=True, vector=True),
                         [I64_MIN, -21, -20, 0, 20, 21, I64_MAX, 1] * 2),
}


def _stream_words(seed, dev, count):
    src = ChaCha20Source(seed, dev)
    return [src.bits(32) for _ in range(count)]


@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_c_entropy_failure_at_every_word(name):
    m, x = VECTOR_CASES[name]
    ref_src = ChaCha20Source(SEED, 9)
    expect = m.release(ref_src, list(x))
    need = -(-ref_src.bits_used // 32)                # words a successful release reads
    assert need >= 4
    words = _stream_words(SEED, 9, need + 2)
    cfg, keep, fn, _ = dv.c_cfg(m, len(x) if getattr(m, "vector", False) else None)
    ctype = "uint8_t" if "rappor" in name else "int64_t"
    ffi, lib = native.ffi, native.lib
    xin = ffi.new(f"{ctype}[]", list(x))
    out = ffi.new(f"{ctype}[]", len(x))
    nbytes = ffi.sizeof(out)
    # what a failed release leaves: the sentinel, or zeros for the forms that draw in place
    failed_bytes = bytes(nbytes) if fn in IN_PLACE else b"\xA5" * nbytes
    for budget in range(need + 1):
        rngs = [("hook", native.new_rng_hook(WordHook(words, budget)))]
        if budget <= 16:
            rngs.append(("replay", native.new_rng_replay(words[:budget])))
        for mode, r in rngs:
            ffi.memmove(out, b"\xA5" * nbytes, nbytes)
            st = getattr(lib, fn)(r, cfg, xin, out)
            if budget < need:
                assert st == ENTROPY, (mode, budget)
                assert bytes(ffi.buffer(out)) == failed_bytes, (mode, budget)
                ffi.memmove(out, b"\xA5" * nbytes, nbytes)
                assert getattr(lib, fn)(r, cfg, xin, out) == ENTROPY        # sticky
                assert bytes(ffi.buffer(out)) == b"\xA5" * nbytes          # nothing drawn: untouched
            else:
                assert st == OK, (mode, budget)
                assert list(out) == expect
    # the Python reference fails at the same positions
    for budget in range(need):
        with pytest.raises(EntropyError):
            m.release(ReplaySource(words[:budget]), list(x))


@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_c_keystream_exhaustion_in_a_fleet(name, ffi, lib):
    """Keyed mode: devices whose stream runs out (block counter 0xFFFFFFFF) mid-vector report
    FXDP_ERR_ENTROPY and leave their rows alone (the in-place forms zero them); the fleet returns the
    first failure."""
    m, x = VECTOR_CASES[name]
    n = 64
    xs = np.tile(np.asarray(x, dtype=np.int64), (n, 1))
    src = ChaCha20Source(SEED, 0)
    m.release(src, list(x))
    # one 512-bit block per device where a release needs more (some or all devices fail), else none
    first_block = 0xFFFFFFFF - (1 if src.bits_used > 512 else 0)
    cc = m.c_config(xs.shape[1] if getattr(m, "vector", False) else None)
    cfg, ct, base, ctype, dtype = cc.cfg, cc.constant_time, cc.base, cc.ctype, cc.dtype
    xin = np.ascontiguousarray(xs, dtype=dtype)
    out = np.full(xs.shape, 0xA5, dtype=dtype) if dtype == np.uint8 else np.full(xs.shape, -0x5A5A5A5A5A5A5A5B,
                                                                               dtype=dtype)
    sentinel = out.copy()
    status = np.full(n, 0xEE, dtype=np.uint8)
    ids = np.arange(n, dtype=np.uint64)
    key = check_seed(SEED)
    fleet = getattr(lib, base.replace("fxdp_", "fxdp_fleet_"))
    ret = fleet(ffi.from_buffer("uint32_t[]", key), ffi.from_buffer("uint64_t[]", ids), n, first_block, cfg,
                int(ct), ffi.from_buffer(f"{ctype}[]", xin), ffi.from_buffer(f"{ctype}[]", out),
                ffi.from_buffer("uint8_t[]", status), ffi.NULL)
    failed = status == ENTROPY
    assert set(status.tolist()) <= {OK, ENTROPY}
    assert failed.any(), "one block must not suffice for every device"
    assert ret == ENTROPY
    _, _, fn, _ = dv.c_cfg(m, len(x) if getattr(m, "vector", False) else None)
    assert (out[failed] == (0 if fn in IN_PLACE else sentinel[failed])).all()
    assert (out[~failed] != sentinel[~failed]).any(axis=1).all() if (~failed).any() else True
    # the Numba fleet agrees device by device
    out_nb, st_nb, _, _ = _fleet.simulate_detailed(m, xs if getattr(m, "vector", False) else xs, SEED,
                                               device_ids=ids, first_block=first_block)
    assert (st_nb == status).all()
    assert (np.asarray(out_nb).reshape(n, -1)[~failed] == out.reshape(n, -1)[~failed]).all()


def test_c_fleet_null_pointers(ffi, lib):
    cfg, keep, fn, ct = dv.c_cfg(RB)
    key = ffi.new("uint32_t[8]")
    one = ffi.new("uint64_t[1]")
    b = ffi.new("uint8_t[1]")
    assert lib.fxdp_fleet_rr_bool(ffi.NULL, one, 1, 0, cfg, 0, b, b, b, ffi.NULL) == PARAM
    assert lib.fxdp_fleet_rr_bool(key, ffi.NULL, 1, 0, cfg, 0, b, b, b, ffi.NULL) == PARAM
    assert lib.fxdp_fleet_rr_bool(key, one, 1, 0, ffi.NULL, 0, b, b, b, ffi.NULL) == PARAM
    assert lib.fxdp_fleet_rr_bool(key, ffi.NULL, 0, 0, cfg, 0, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL) == OK


# --------------------------------------------------------------------------
# Python: simulate

MECHS = {
    "rr_bool": (make_randomized_response_bool(0.75), np.array([True, False] * 50)),
    "rr_bool_ct": (make_randomized_response_bool(0.75, constant_time=True), np.array([True, False] * 50)),
    "rr": (make_randomized_response(list("abc"), 0.5), np.arange(100) % 4),
    "rr_ct": (make_randomized_response(list("abc"), 0.5, constant_time=True), np.arange(100) % 4),
    "rappor": (make_rappor(0.5, 2, 300), np.zeros((100, 300), np.uint8)),
    "rappor_ct": (make_rappor(0.5, 2, 64, constant_time=True), np.eye(100, 64, dtype=np.uint8)),
    "geometric": (make_geometric(10, (0, 100)), np.arange(100)),
    "geometric_ct_vec": (make_geometric(10, (0, 100), constant_time=True, vector=True),
                         np.arange(300).reshape(100, 3)),
}


@pytest.mark.parametrize("name", sorted(MECHS))
def test_simulate_raises_and_returns_nothing_on_entropy_failure(name, monkeypatch):
    m, x = MECHS[name]
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)          # no keystream at all
    result = None
    with pytest.raises(EntropyError, match="nothing|no output"):
        result = m.simulate(x, SEED)
    assert result is None
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0)
    assert np.asarray(m.simulate(x, SEED)).shape[0] == 100


def test_simulate_raises_when_only_some_devices_fail(monkeypatch):
    """One block per device (256 output bits under stream version 2); a lazy 128-bit RAPPOR
    report reads 2 bits per flip on average, so about half the devices run out of keystream."""
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFE)
    m2 = make_rappor(0.4, 2, 128)
    x2 = np.zeros((400, 128), np.uint8)
    _, st2, _, _ = _fleet.simulate_detailed(m2, x2, SEED)
    assert 0 < int((st2 == ENTROPY).sum()) < 400
    with pytest.raises(EntropyError, match=r"of 400 devices failed"):
        m2.simulate(x2, SEED)


def test_numba_single_release_writes_nothing_on_failure():
    m = make_rappor(0.4, 3, 64, constant_time=True)
    x = np.zeros(64, np.uint8)
    for budget in range(0, 16):
        st = K.replay_state(_stream_words(SEED, 1, budget))
        out = np.full(64, 0xA5, np.uint8)
        assert release_rappor(st, m.a, m.bits, True, x, out) == ENTROPY
        assert (out == 0xA5).all()
    g = make_geometric(3, (-20, 20), constant_time=True, vector=True)
    mode, s, t, lo, hi, thr, k, width = g.kernel_params()
    for budget in range(0, 16):
        st = K.replay_state(_stream_words(SEED, 1, budget))
        out = np.full(16, 7, np.int64)
        assert release_geometric_vec(st, mode, s, t, lo, hi, thr, k, width, np.zeros(16, np.int64),
                                        out) == ENTROPY
        assert (out == 7).all()


BAD_SIM = [
    ("rr_bool", lambda m: m.simulate([[True]], 1), "1-d"),
    ("rr_bool", lambda m: m.simulate([0, 2], 1), r"\[0, 1\]"),
    ("rr_bool", lambda m: m.simulate(np.array([0.0, 1.0]), 1), "integers"),
    ("rr_bool", lambda m: m.simulate([True], -1), "seed"),
    ("rr_bool", lambda m: m.simulate([True], 1 << 256), "seed"),
    ("rr_bool", lambda m: m.simulate([True], 1.5), "seed"),
    ("rr_bool", lambda m: m.simulate([True], True), "seed"),
    ("rr_bool", lambda m: m.simulate([True, False], 1, device_ids=[1]), "device_ids"),
    ("rr_bool", lambda m: m.simulate([True], 1, device_ids=[-1]), "device_ids"),
    ("rr_bool", lambda m: m.simulate([True], 1, device_ids=[1 << 64]), "device_ids"),
    ("rr_bool", lambda m: m.simulate([True], 1, device_ids=[0.5]), "device_ids"),
    ("rr", lambda m: m.simulate([0, 4], 1), r"\[0, 3\]"),
    ("rr", lambda m: m.simulate([-1], 1), r"\[0, 3\]"),
    ("rr", lambda m: m.simulate(["a"], 1), "integers"),
    ("rappor", lambda m: m.simulate(np.zeros((3, 299), np.uint8), 1), "exactly k"),
    ("rappor", lambda m: m.simulate(np.zeros(300, np.uint8), 1), "2-d"),
    ("rappor", lambda m: m.simulate(np.full((2, 300), 2, np.uint8), 1), r"\[0, 1\]"),
    ("rappor", lambda m: m.simulate(np.eye(3, 300, dtype=np.uint8) + np.eye(3, 300, 1, dtype=np.uint8)
                                    + np.eye(3, 300, 2, dtype=np.uint8), 1), "at most m = 2"),
    ("geometric", lambda m: m.simulate([[1]], 1), "1-d"),
    ("geometric", lambda m: m.simulate([1 << 63], 1), "int64|\\[-9223372036854775808"),
    ("geometric", lambda m: m.simulate(np.array([1.5]), 1), "integers"),
    ("geometric_ct_vec", lambda m: m.simulate([1, 2, 3], 1), "2-d"),
]


@pytest.mark.parametrize("i", range(len(BAD_SIM)), ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD_SIM)])
def test_simulate_rejects_bad_input_before_drawing(i, monkeypatch):
    name, call, match = BAD_SIM[i]
    m, _ = MECHS[name]
    drawn = []
    for module, kernel in FLEET_KERNELS:
        monkeypatch.setattr(module, kernel, lambda *a, **k: drawn.append(1))
    with pytest.raises(ValueError, match=match):
        call(m)
    assert not drawn


def test_simulate_accepts_edge_inputs():
    assert make_randomized_response_bool(0.75).simulate([], 1).shape == (0,)
    assert make_rappor(0.5, 1, 4).simulate(np.zeros((0, 4)), 1).shape == (0, 4)
    big = [(1 << 64) - 1, 0, 1 << 63]
    assert make_randomized_response_bool(0.75).simulate([1, 0, 1], (1 << 256) - 1, device_ids=big).shape == (3,)
    m = make_geometric(1)
    assert m.simulate(np.array([I64_MIN, I64_MAX], dtype=np.int64), 0).dtype == np.int64


# --------------------------------------------------------------------------
# builds: strict C99 on every toolchain, no libc; ASan/UBSan fuzz

TOOLCHAINS = {
    "host": ("gcc", []),
    "avr": ("avr-gcc", ["-mmcu=atmega328p"]),
    "cortex-m0plus": ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb", "-ffreestanding"]),
    "rv32imac": ("riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32", "-ffreestanding"]),
}
NM = {"gcc": "nm", "avr-gcc": "avr-nm", "arm-none-eabi-gcc": "arm-none-eabi-nm",
      "riscv64-unknown-elf-gcc": "riscv64-unknown-elf-nm"}
WARN = [*cs.STRICT, "-Wshadow", "-Wstrict-prototypes", "-Wmissing-prototypes", "-Wcast-qual", "-Wundef",
        "-Wcast-align"]
FORBIDDEN = re.compile(r"(sf|df)\d?$|float|__aeabi_[fd]|^_?_?(mem|str|malloc|free|printf|abort)")


def _build(tmp, target, opt):
    cc, flags = TOOLCHAINS[target]
    d = Path(tmp) / f"{target}{opt}"
    d.mkdir()
    sources = MECH_SOURCES + ([cs.CSRC / "host" / "fxdp_host_mech.c"] if target == "host" else [])
    res = subprocess.run([cc, *WARN, *flags, opt, f"-I{cs.CSRC}", "-c", *map(str, sources)],
                         capture_output=True, text=True, cwd=d)
    if res.returncode != 0:
        return res.stderr, set()
    und = set()
    for s in sources:
        out = subprocess.run([NM[cc], "-u", str(d / (s.stem + ".o"))], capture_output=True, text=True, check=True)
        und |= {ln.split()[-1] for ln in out.stdout.splitlines() if ln.strip()}
    return None, und


def test_mech_sources_build_strict_everywhere(tmp_path):
    combos = [(t, o) for t in TOOLCHAINS for o in ("-O0", "-Os", "-O2")]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda c: (c, _build(tmp_path, *c)), combos))
    for (target, opt), (err, und) in results:
        assert err is None, f"{target} {opt}:\n{err}"
        und.discard("_GLOBAL_OFFSET_TABLE_")            # host PIE code (the fleet loop's function pointers)
        bad = sorted(s for s in und if not s.startswith("fxdp_") and (FORBIDDEN.search(s) or not s.startswith("__")))
        assert not bad, f"{target} {opt}: forbidden external symbols {bad}"
    for src in MECH_SOURCES:
        text = re.sub(r"/\*.*?\*/", "", src.read_text(), flags=re.S)
        assert set(re.findall(r'#include\s+[<"]([^>"]+)[>"]', text)) == {"fxdp_internal.h"}
        assert not re.search(r"\b(float|double|malloc|free|memcpy|memset)\b", text)


def test_fuzz_under_sanitizers(tmp_path):
    exe = cs.compile_c(tmp_path / "fuzz_mech", [cs.HERE / "fuzz_mech.c", *cs.LIB_SOURCES, *MECH_SOURCES],
                       ["-std=c99", "-g", "-O1", "-Wall", "-Wextra", "-Werror", *cs.SANITIZE])
    res = cs.run([exe, "20261123", "60000"], env={"ASAN_OPTIONS": "abort_on_error=0:detect_leaks=0",
                                                  "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"})
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-4000:]
    assert "runtime error" not in out and "AddressSanitizer" not in out
    assert re.search(r"fuzz_mech: \d+ calls, \d+ ok, \d+ param, \d+ entropy, 0 violations", res.stdout), out
