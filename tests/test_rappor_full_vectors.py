"""Known-answer vectors of the full RAPPOR client: SipHash-2-4 (the published
reference vectors), Bloom positions, provisioning, memoized PRR and whole
report rows, frozen in tests/test_rappor_full_vectors.json (written by the
reference: ``python tests/test_rappor_full_vectors.py > tests/test_rappor_full_vectors.json``)
and checked against the reference (freshness), the Numba kernels and the host C
library."""
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import ChaCha20Source, Seed
from fxdp.mechanisms.memoized import _kernels_rappor_full as KR
from fxdp.mechanisms.memoized.rappor_full import make_rappor_full, siphash24
from fxdp.samplers import _kernels as K

VECTORS = Path(__file__).with_suffix(".json")
SEED = Seed(0xF00D, 1)     # the frozen file was written under stream version 1
DEVICE_IDS = (0, 1, (1 << 40) + 3)
CONFIGS = [
    dict(k=16, h=2, cohorts=4, f="1/2", p="1/2", q="3/4"),
    dict(k=128, h=4, cohorts=64, f="1/4", p="1/4", q="3/4", constant_time=True, bits=16),
    dict(k=8, h=3, cohorts=1, f=0, p=0, q=1, bits=8, value_bytes=4),
    dict(k=64, h=2, cohorts=65536, f=1, p="1/3", q="1/3", hash_key="000102030405060708090a0b0c0d0e0f"),
    dict(k=1024, h=16, cohorts=3, f="1/8", p="1/16", q="15/16", constant_time=True, bits=32, value_bytes=256),
]
VALUES = ["", "a", "hello", "fxdp", "\u00e9t\u00e9", "x" * 255]

# SipHash-2-4 reference vectors (Aumasson, Bernstein; github.com/veorq/SipHash vectors.h):
# key = 00 01 .. 0f, message i = 00 01 .. (i-1), for i = 0..63.
SIPHASH_VECTORS = [
    0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
    0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
    0x93f5f5799a932462, 0x9e0082df0ba9e4b0, 0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7,
    0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee, 0xa129ca6149be45e5,
    0x3f2acc7f57c29bdb, 0x699ae9f52cbe4794, 0x4bc1b3f0968dd39c, 0xbb6dc91da77961bd,
    0xbed65cf21aa2ee98, 0xd0f2cbb02e3b67c7, 0x93536795e3a33e88, 0xa80c038ccd5ccec8,
    0xb8ad50c6f649af94, 0xbce192de8a85b8ea, 0x17d835b85bbb15f3, 0x2f2e6163076bcfad,
    0xde4daaaca71dc9a5, 0xa6a2506687956571, 0xad87a3535c49ef28, 0x32d892fad841c342,
    0x7127512f72f27cce, 0xa7f32346f95978e3, 0x12e0b01abb051238, 0x15e034d40fa197ae,
    0x314dffbe0815a3b4, 0x027990f029623981, 0xcadcd4e59ef40c4d, 0x9abfd8766a33735c,
    0x0e3ea96b5304a7d0, 0xad0c42d6fc585992, 0x187306c89bc215a9, 0xd4a60abcf3792b95,
    0xf935451de4f21df2, 0xa9538f0419755787, 0xdb9acddff56ca510, 0xd06c98cd5c0975eb,
    0xe612a3cb9ecba951, 0xc766e62cfcadaf96, 0xee64435a9752fe72, 0xa192d576b245165a,
    0x0a8787bf8ecb74b2, 0x81b3e73d20b49b6f, 0x7fa8220ba3b2ecea, 0x245731c13ca42499,
    0xb78dbfaf3a8d83bd, 0xea1ad565322a1a0b, 0x60e61c23a3795013, 0x6606d7e446282b93,
    0x6ca4ecb15c5f91e1, 0x9f626da15c9625f3, 0xe51b38608ef25f57, 0x958a324ceb064572,
]
SIP_KEY = bytes(range(16))


def mechanism(cfg):
    kw = {k: (Fraction(v) if k in ("f", "p", "q") else v) for k, v in cfg.items()}
    return make_rappor_full(**kw)


def values_for(m):
    return [v for v in VALUES if len(v.encode()) <= m.value_bytes - 1]


def reference_kats():
    out = []
    for cfg in CONFIGS:
        m = mechanism(cfg)
        vals = values_for(m)
        case = {"cfg": cfg, "values": vals,
                "bloom": [[m.bloom_positions(c, m.encode(v)) for c in (0, m.cohorts - 1)] for v in vals],
                "devices": []}
        for dev_id in DEVICE_IDS:
            dev = m.device_from_seed(SEED, dev_id)
            case["devices"].append({
                "id": dev_id, "secret": list(dev.secret), "cohort": dev.cohort,
                "prr": ["".join(map(str, m.prr(dev, m.encode(v)))) for v in vals],
                "rows": [bytes(m.release_row(ChaCha20Source(SEED, dev_id, 0), m.encode(v),
                                             ChaCha20Source(SEED, dev_id, 1))).hex() for v in vals]})
        out.append(case)
    return out


def load():
    return json.loads(VECTORS.read_text())


def test_siphash_reference_vectors():
    for i, want in enumerate(SIPHASH_VECTORS):
        msg = bytes(range(i))
        assert siphash24(SIP_KEY, msg) == want, i
        assert KR.siphash24(SIP_KEY, msg) == want, i
        assert native.load().lib.fxdp_siphash24(SIP_KEY, msg, len(msg)) == want, i


@pytest.mark.slow
def test_vectors_are_fresh():
    """The frozen file equals what the reference computes now (slow: pure-Python ChaCha20)."""
    assert load() == json.loads(json.dumps(reference_kats()))


def test_vectors_cover_the_configs():
    data = load()
    assert [c["cfg"] for c in data] == CONFIGS
    # spot-check freshness on the cheapest config without the slow full recomputation
    m = mechanism(CONFIGS[0])
    case = data[0]
    for v, bl in zip(case["values"], case["bloom"]):
        assert bl == [m.bloom_positions(c, m.encode(v)) for c in (0, m.cohorts - 1)]
    d = case["devices"][0]
    dev = m.device_from_seed(SEED, d["id"])
    assert list(dev.secret) == d["secret"] and dev.cohort == d["cohort"]
    assert "".join(map(str, m.prr(dev, m.encode(case["values"][2])))) == d["prr"][2]


@pytest.mark.parametrize("i", range(len(CONFIGS)))
def test_numba_matches_vectors(i):
    case = load()[i]
    m = mechanism(case["cfg"])
    cfgv = m.kernel_cfg()
    blocks = m.encode_many(case["values"])
    for j, bl in enumerate(case["bloom"]):
        for c, want in zip((0, m.cohorts - 1), bl):
            pos = np.zeros(m.h, np.uint64)
            KR.positions(cfgv, np.uint32(c), blocks[j], pos)
            assert pos.tolist() == want
    for d in case["devices"]:
        secret = np.array(d["secret"], np.uint32)
        for j in range(len(case["values"])):
            out = np.zeros(m.k, np.uint8)
            assert KR.prr(cfgv, secret, np.uint32(d["cohort"]), blocks[j], out) == 0
            assert "".join(map(str, out.tolist())) == d["prr"][j]
            state = K.seed_state(K.new_state(), SEED, d["id"], 0)
            row = np.zeros(m.k + 2, np.uint8)
            assert KR.release(cfgv, state, blocks[j], row) == 0
            assert bytes(row).hex() == d["rows"][j]
    ids = np.array([d["id"] for d in case["devices"]], np.uint64)
    for j in range(len(case["values"])):
        rows = m.simulate(np.repeat(blocks[j:j + 1], len(ids), axis=0), SEED, device_ids=ids)
        assert [bytes(r).hex() for r in rows] == [d["rows"][j] for d in case["devices"]]


@pytest.mark.parametrize("i", range(len(CONFIGS)))
def test_host_c_matches_vectors(i):
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    case = load()[i]
    m = mechanism(case["cfg"])
    cfg = m.c_cfg(ffi)
    for v, bl in zip(case["values"], case["bloom"]):
        block = m.encode(v)
        enc = ffi.new(f"uint8_t[{m.value_bytes}]")
        raw = v.encode()
        assert lib.fxdp_rappor_full_encode(cfg, raw, len(raw), enc) == 0
        assert bytes(enc) == block
        for c, want in zip((0, m.cohorts - 1), bl):
            pos = ffi.new(f"uint32_t[{m.h}]")
            assert lib.fxdp_rappor_full_bloom(cfg, c, block, pos) == 0
            assert list(pos) == want
    for d in case["devices"]:
        rng = native.new_rng_seeded(SEED, d["id"], 1)
        dev = ffi.new("fxdp_rappor_full_device *")
        assert lib.fxdp_rappor_full_provision(cfg, rng, dev) == 0
        assert list(dev.secret) == d["secret"] and dev.cohort == d["cohort"]
        for j, v in enumerate(case["values"]):
            block = m.encode(v)
            out = ffi.new(f"uint8_t[{m.k}]")
            assert lib.fxdp_rappor_full_prr(cfg, dev, block, out) == 0
            assert "".join(map(str, out)) == d["prr"][j]
            rng0 = native.new_rng_seeded(SEED, d["id"], 0)
            row = ffi.new(f"uint8_t[{m.k + 2}]")
            assert lib.fxdp_rappor_full_release(rng0, cfg, block, row) == 0
            assert bytes(row).hex() == d["rows"][j]
            # the device API: provision once, then report; same IRR stream as the release
            rng0 = native.new_rng_seeded(SEED, d["id"], 0)
            assert lib.fxdp_rappor_full_report(cfg, dev, rng0, block, out) == 0
            assert bytes(out).hex() == d["rows"][j][4:]


if __name__ == "__main__":
    print(json.dumps(reference_kats(), indent=1, ensure_ascii=True))


def test_bloom_matrix_matches_reference():
    m = mechanism(CONFIGS[1])
    vals = ["a", "bb", "ccc", ""]
    mat = m.bloom_matrix(vals, cohorts=[0, 5, 63])
    for ci, c in enumerate([0, 5, 63]):
        for vi, v in enumerate(vals):
            assert mat[ci, vi].tolist() == m.bloom(c, m.encode(v))
