"""Write the known-answer vectors in tests/vectors/ from the reference implementation.

    python tests/vectors/generate.py          # rewrite the files
    python tests/vectors/generate.py --check  # exit 1 if the files are stale

Every case lists the sampler, its parameters, the keyed stream (seed,
device_id, stream), the outputs of consecutive draws and the stream bits
used after each draw.  Numba, host C and every emulated target are checked
against these same files.

Stream versions (docs/bitstream.md): the files in tests/vectors/ are version 1
(the plain keystream; unchanged since they were first written, and read as
version 1 because their cases carry no "stream_version"), the files in
tests/vectors/v2/ are version 2 (fast key erasure; every case says
"stream_version": 2).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from fxdp.bitsource import ChaCha20Source, Seed, chacha20_block  # noqa: E402
from fxdp.samplers import reference as ref  # noqa: E402
from fxdp.samplers.bounded import make_bounded_laplace_table  # noqa: E402

DRAWS = 64
SEED = 0x0123456789ABCDEF_FEDCBA9876543210_0F1E2D3C4B5A6978_8796A5B4C3D2E1F0

_T1 = make_bounded_laplace_table(2, (0, 8), k=16)
_T2 = make_bounded_laplace_table(10, (0, 40), k=32)

# (sampler, params): params are passed positionally after the bit source.
CASES = [
    ("uniform_below", [1]), ("uniform_below", [2]), ("uniform_below", [3]), ("uniform_below", [1000]),
    ("uniform_below", [2**31 + 1]), ("uniform_below", [2**32 - 1]), ("uniform_below", [2**32]),
    ("uniform_below", [2**63 + 12345]), ("uniform_below", [2**64 - 1]),
    ("bernoulli_dyadic", [0, 8]), ("bernoulli_dyadic", [256, 8]), ("bernoulli_dyadic", [1, 1]),
    ("bernoulli_dyadic", [3006477107, 32]), ("bernoulli_dyadic", [2**62 + 5, 63]),
    ("bernoulli_dyadic_ct", [0, 8]), ("bernoulli_dyadic_ct", [3006477107, 32]),
    ("bernoulli_dyadic_ct", [2**62 + 5, 63]), ("bernoulli_dyadic_ct", [1, 0]),
    ("bernoulli_rational", [0, 7]), ("bernoulli_rational", [7, 7]), ("bernoulli_rational", [1, 3]),
    ("bernoulli_rational", [2**64 - 2, 2**64 - 1]), ("bernoulli_rational", [12345, 99991]),
    ("bernoulli_exp", [0, 1]), ("bernoulli_exp", [1, 1]), ("bernoulli_exp", [1, 10]),
    ("bernoulli_exp", [7, 3]), ("bernoulli_exp", [2**32 - 1, 2**31]),
    ("discrete_laplace", [1, 1]), ("discrete_laplace", [1, 10]), ("discrete_laplace", [3, 7]),
    ("discrete_laplace", [1, 1000]), ("discrete_laplace", [2**32 - 1, 1]),
    ("discrete_laplace_censored", [1, 10, -5, 5]), ("discrete_laplace_censored", [1, 3, 0, 0]),
    ("discrete_laplace_censored", [1, 100, -2**63, 2**63 - 1]),
    ("table_sample_ct", [list(_T1.thresholds), 16]), ("table_sample_ct", [list(_T2.thresholds), 32]),
    ("uniform_below_ct", [1]), ("uniform_below_ct", [3]), ("uniform_below_ct", [64]),
    ("uniform_below_ct", [1000]), ("uniform_below_ct", [1021]), ("uniform_below_ct", [65535]),
    ("uniform_below_ct", [3 * 2**20 + 1]),
    # params: lanes, a_one, a_zero, k, mask (issue 33's bit-sliced block; the output is the lanes' word)
    ("bernoulli_block", [32, 2**31, 1155765068, 32, 1 << 26]), ("bernoulli_block", [1, 5, 0, 3, 1]),
    ("bernoulli_block", [17, 2**62 + 5, 3, 63, 0x1A2B3]), ("bernoulli_block", [8, 0, 16, 4, 0xF0]),
    ("bernoulli_block_ct", [32, 2**31, 1155765068, 32, 1 << 26]), ("bernoulli_block_ct", [1, 5, 0, 3, 1]),
    ("bernoulli_block_ct", [17, 2**62 + 5, 3, 63, 0x1A2B3]), ("bernoulli_block_ct", [8, 0, 16, 4, 0xF0]),
]


VERSION_DIRS = {1: HERE, 2: HERE / "v2"}


def _tag(obj, version):
    """Version-2 records say so; version-1 records stay as first written (no key)."""
    return obj if version == 1 else dict(obj, stream_version=version)


def run_case(sampler, params, seed=SEED, device_id=7, stream=0, draws=DRAWS, version=1):
    src = ChaCha20Source(Seed(seed, version), device_id, stream)
    fn = getattr(ref, sampler)
    outputs, used = [], []
    for _ in range(draws):
        v = fn(src, *params)
        outputs.append(int(v))
        used.append(src.bits_used)
    return _tag({"sampler": sampler, "params": params, "seed": hex(seed), "device_id": device_id,
                 "stream": stream, "outputs": outputs, "bits_used": used}, version)


def build(version=1):
    samplers = {}
    for sampler, params in CASES:
        samplers.setdefault(sampler, []).append(run_case(sampler, params, version=version))
    rfc_key = [0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C, 0x13121110, 0x17161514, 0x1B1A1918, 0x1F1E1D1C]
    rfc_nonce = [0x09000000, 0x4A000000, 0x00000000]
    chacha = {
        "rfc8439_2_3_2": {"key": rfc_key, "counter": 1, "nonce": rfc_nonce,
                          "out": chacha20_block(rfc_key, 1, rfc_nonce)},
        "keyed_streams": [
            _tag({"seed": hex(seed), "device_id": dev, "stream": st,
                  "words": _words(Seed(seed, version), dev, st, 40)}, version)
            for seed, dev, st in [(0, 0, 0), (1, 0, 0), (SEED, 7, 0), (SEED, 2**64 - 1, 2**32 - 1)]
        ],
    }
    files = {"chacha20.json": chacha}
    for name, cases in samplers.items():
        files[f"{name}.json"] = {"draws": DRAWS, "cases": cases}
    return files


def _words(seed, dev, st, n):
    src = ChaCha20Source(seed, dev, st)
    return [src.bits(32) for _ in range(n)]


def dumps(obj):
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def main(argv):
    check = "--check" in argv
    stale = []
    for version, folder in VERSION_DIRS.items():
        for name, obj in build(version).items():
            path = folder / name
            text = dumps(obj)
            if check:
                if not path.exists() or path.read_text() != text:
                    stale.append(str(path.relative_to(HERE)))
            else:
                folder.mkdir(exist_ok=True)
                path.write_text(text)
    if stale:
        print("stale vectors:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
