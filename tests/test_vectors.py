"""Known-answer vectors (tests/vectors/*.json, written from the reference by
tests/vectors/generate.py) checked against the reference itself (freshness),
the Numba kernels and the host C library, draw by draw, including the stream
bits used after every draw.  The emulated targets check the same files
(tests/test_export_targets.py)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import Seed
from fxdp.samplers import _kernels as K

VEC = Path(__file__).resolve().parent / "vectors"
VERSION_DIRS = [VEC, VEC / "v2"]          # stream version 1 (as first written), version 2
# discrete_laplace_fast.json: checked by tests/test_discrete_laplace_fast.py (reference, Numba)
SAMPLER_FILES = sorted(p for d in VERSION_DIRS for p in d.glob("*.json")
                       if p.name not in ("chacha20.json", "discrete_laplace_fast.json"))


def seed_of(record):
    """The record's seed with its stream version (absent: version 1, the files' original form)."""
    return Seed(int(record["seed"], 16), record.get("stream_version", 1))


def cases():
    for path in SAMPLER_FILES:
        for i, case in enumerate(json.loads(path.read_text())["cases"]):
            yield pytest.param(case, id=f"v{case.get('stream_version', 1)}-{case['sampler']}-{i}")


def test_both_versions_are_covered():
    """Every sampler case exists under both stream versions."""
    by_version = {1: [], 2: []}
    for c in cases():
        case = c.values[0]
        by_version[case.get("stream_version", 1)].append((case["sampler"], case["params"]))
    assert by_version[1] and by_version[1] == by_version[2]


def test_vectors_are_fresh():
    """The files equal what the reference produces now."""
    r = subprocess.run([sys.executable, str(VEC / "generate.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_chacha_vectors():
    data = json.loads((VEC / "chacha20.json").read_text())
    rfc = data["rfc8439_2_3_2"]
    assert rfc["out"][:4] == [0xE4E7F110, 0x15593BD1, 0x1FDD0F50, 0xC47120A3]   # RFC 8439 2.3.2
    out = np.zeros(16, np.uint32)
    K.chacha20_block(np.array(rfc["key"], np.uint32), np.uint32(rfc["counter"]),
                     np.array(rfc["nonce"], np.uint32), out)
    assert out.tolist() == rfc["out"]
    streams = data["keyed_streams"] + json.loads((VEC / "v2" / "chacha20.json").read_text())["keyed_streams"]
    assert {s.get("stream_version", 1) for s in streams} == {1, 2}
    for s in streams:
        st = K.seed_state(K.new_state(), seed_of(s), s["device_id"], s["stream"])
        got = np.empty(len(s["words"]), np.uint64)
        K.fill_bits(st, np.uint64(32), got)
        assert got.tolist() == s["words"]
        rng = native.new_rng_seeded(seed_of(s), s["device_id"], s["stream"])
        assert native.bits(rng, 32, len(s["words"])).tolist() == s["words"]


def _numba_draw(state, case):
    p = case["params"]
    name = case["sampler"]
    if name == "table_sample_ct":
        return K.table_sample_ct(state, np.asarray(p[0], np.uint32), np.uint64(p[1]))
    fn = getattr(K, name)
    args = [np.int64(v) if name == "discrete_laplace_censored" and i >= 2 else np.uint64(v)
            for i, v in enumerate(p)]
    return fn(state, *args)


@pytest.mark.parametrize("case", list(cases()))
def test_numba_matches_vectors(case):
    state = K.seed_state(K.new_state(), seed_of(case), case["device_id"], case["stream"])
    for want, used in zip(case["outputs"], case["bits_used"]):
        st, v = _numba_draw(state, case)
        assert st == 0
        assert int(v) == want
        assert K.bits_used(state) == used


def _c_draw(lib, ffi, rng, case):
    p, name = case["params"], case["sampler"]
    if name == "uniform_below":
        out = ffi.new("uint64_t *")
        st = lib.fxdp_uniform_below_u64(rng, p[0], out)
    elif name == "uniform_below_ct":
        out = ffi.new("uint32_t *")
        st = lib.fxdp_uniform_below_ct_u32(rng, p[0], out)
    elif name.startswith("bernoulli_block"):
        out = ffi.new("uint32_t *")
        st = getattr(lib, f"fxdp_{name}")(rng, *p, out)
    elif name.startswith("bernoulli"):
        out = ffi.new("uint8_t *")
        st = getattr(lib, f"fxdp_{name}")(rng, *p, out)
    elif name.startswith("discrete_laplace"):
        out = ffi.new("int64_t *")
        st = getattr(lib, f"fxdp_{name}")(rng, *p, out)
    else:
        out = ffi.new("uint32_t *")
        thr = ffi.new("uint32_t[]", p[0])
        st = lib.fxdp_table_sample_ct(rng, thr, len(p[0]), p[1], out)
    return st, int(out[0])


@pytest.mark.parametrize("case", list(cases()))
def test_host_c_matches_vectors(case):
    mod = native.load()
    rng = native.new_rng_seeded(seed_of(case), case["device_id"], case["stream"])
    for want, used in zip(case["outputs"], case["bits_used"]):
        st, v = _c_draw(mod.lib, mod.ffi, rng, case)
        assert st == 0
        assert v == want
        assert native.bits_used(rng) == used
