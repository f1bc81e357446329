"""Constant time, measured, for the mechanisms: callgrind instruction counts (Ir)
of single releases of the C entry points (csrc/fxdp_mech_*.c).

Same approach as tests/test_constant_time.py (the samplers): the harness
tests/c/ct_mech_harness.c calls a release twice per combination, each call alone
between CALLGRIND_TOGGLE_COLLECT client requests and followed by a stats dump,
so one valgrind run measures every combination.  For each constant-time
mechanism and configuration (public), >= 100 combinations of secret input and
stream must give one and the same count per call; the lazy forms, measured the
same way, must not (which shows the check can fail).  Built at -O2 and -Os.
Each configuration runs from two public stream positions: a fresh stream and
one with only a few bits left in the current keystream block (``pre``), where
a lazy release's variable bit use decides whether a new block is generated.

The configurations are the realized parameters of real Python mechanism objects.
"""
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest

from fxdp.mechanisms import (make_geometric, make_hadamard_response, make_longitudinal_grr,
                             make_longitudinal_ue, make_randomized_response, make_randomized_response_bool,
                             make_rappor, make_unary_encoding)

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

OPT_LEVELS = ["-O2", "-Os"]
MECH_SOURCES = [cs.CSRC / f"fxdp_mech_{n}.c" for n in ("rr", "rappor", "geometric", "unary_encoding", "hadamard_response", "longitudinal")]
N_CT = 60          # combinations per constant-time configuration (2 configurations per mechanism)
N_LAZY = 24        # combinations per lazy configuration
PRES = (0, 509)    # public bits read before the release (509: 3 bits left in the first block)
# Hadamard response at d = 1000 reads 10 bits for y first: from 501, one bit is left for the
# lazy Bernoulli, whose outcome then decides whether a block is generated (the lazy dyadic
# Bernoulli compares up to 32 bits at once, so its count varies only across a refill).
PRES_FOR = {"d1000-b32": (0, 501)}
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def _configs():
    """mechanism -> list of (config id, line builder(rnd, ct) -> text)."""
    out = {}

    def rr_bool(m):
        return lambda rnd, ct, pre, seed: f"B {int(ct)} {pre:x} {m.a:x} {m.bits:x} {seed:x} {rnd.randint(0, 1):x}"

    def rr(m):
        tbl = " ".join(f"{v:x}" for v in m.thresholds)
        return lambda rnd, ct, pre, seed: (f"K {int(ct)} {pre:x} {m.t:x} {m.w0:x} {m.bits:x} {seed:x} "
                                      f"{rnd.randrange(m.t):x} {len(m.thresholds):x} {tbl}")

    def rappor(m):
        def line(rnd, ct, pre, seed):
            ones = rnd.choice([0, m.m, rnd.randint(0, m.m)])
            x = [0] * m.k
            for j in rnd.sample(range(m.k), ones):
                x[j] = 1
            return f"R {int(ct)} {pre:x} {m.a:x} {m.bits:x} {m.k:x} {m.m:x} {seed:x} " + " ".join(map(str, x))
        return line

    def geometric(m, n):
        lo, hi = m.bounds
        tab = m.table if m.table is not None else make_geometric(m.scale, m.bounds, constant_time=True).table
        tbl = " ".join(f"{v:x}" for v in tab.thresholds)

        def line(rnd, ct, pre, seed):
            pool = [lo, hi, lo - 1, hi + 1, I64_MIN, I64_MAX, 0]
            xs = [rnd.choice(pool) if rnd.random() < 0.3 else rnd.randint(lo - 50, hi + 50) for _ in range(n)]
            return (f"G {int(ct)} {pre:x} {m.s:x} {m.t:x} {lo} {hi} {n:x} {tab.k:x} {tab.width:x} {seed:x} "
                    + " ".join(map(str, xs)) + f" {len(tab.thresholds):x} {tbl}")
        return line

    out["rr_bool"] = [("p0.75-k32", rr_bool(make_randomized_response_bool(0.75))),
                      ("p0.9-k20", rr_bool(make_randomized_response_bool(0.9, bits=20)))]
    out["rr"] = [("t7-k32", rr(make_randomized_response(list(range(7)), 0.5))),
                 ("t3-k12", rr(make_randomized_response(list(range(3)), Fraction(3, 5), bits=12)))]
    out["rappor"] = [("k64-m3-b32", rappor(make_rappor(0.4, 3, 64))),
                     ("k9-m2-b7", rappor(make_rappor(0.5, 2, 9, bits=7)))]
    out["geometric"] = [("scalar-s10-0..100", geometric(make_geometric(10, (0, 100), constant_time=True), 1)),
                        ("vec4-s3.5--20..20",
                         geometric(make_geometric(Fraction(7, 2), (-20, 20), constant_time=True, vector=True), 4))]
    def ue(m):
        return lambda rnd, ct, pre, seed: (f"U {int(ct)} {pre:x} {m.a_p:x} {m.a_q:x} {m.d:x} {m.bits:x} {seed:x} "
                                      f"{rnd.choice([0, m.d - 1, rnd.randrange(m.d)]):x}")

    def hr(m):
        return lambda rnd, ct, pre, seed: (f"H {int(ct)} {pre:x} {m.a_p:x} {m.d:x} {m.log2k:x} {m.bits:x} {seed:x} "
                                      f"{rnd.choice([0, m.d - 1, rnd.randrange(m.d)]):x}")

    out["unary_encoding"] = [("oue-d12-b16", ue(make_unary_encoding(12, 1, bits=16))),
                             ("sue-d5-b7", ue(make_unary_encoding(5, "1/2", optimized=False, bits=7)))]
    out["hadamard_response"] = [("d1000-b32", hr(make_hadamard_response(1000, 1))),
                                ("d6-b5", hr(make_hadamard_response(6, 2, bits=5)))]

    # the longitudinal export entry points: the secret (from the rng's sibling stream) varies with
    # the seed, so secret, item and draws all vary within a configuration
    def lgrr(m):
        return lambda rnd, ct, pre, seed: (f"L {int(ct)} {pre:x} {m.d:x} {m.w0:x} {m.w:x} {m.v0:x} {m.v:x} "
                                      f"{m.bits:x} {seed:x} {rnd.choice([0, m.d - 1, rnd.randrange(m.d)]):x}")

    def lue(m):
        return lambda rnd, ct, pre, seed: (f"O {int(ct)} {pre:x} {m.a_p1:x} {m.a_q1:x} {m.a_p2:x} {m.d:x} "
                                      f"{m.bits:x} {seed:x} {rnd.choice([0, m.d - 1, rnd.randrange(m.d)]):x}")

    out["longitudinal_grr"] = [("d10-b32", lgrr(make_longitudinal_grr(10, 4, 1))),
                               ("d5-b8", lgrr(make_longitudinal_grr(5, 3, 1, bits=8)))]
    out["longitudinal_ue"] = [("d12-b16", lue(make_longitudinal_ue(12, 4, 1, bits=16))),
                              ("d5-b7", lue(make_longitudinal_ue(5, 3, "1/2", bits=7)))]
    return out


def _combos():
    rnd = random.Random(20261123)
    lines, groups = [], []
    for mech, cfgs in _configs().items():
        for cid, build in cfgs:
            for pre in PRES_FOR.get(cid, PRES):
                for ct, count in ((True, N_CT), (False, N_LAZY)):
                    for _ in range(count):
                        lines.append(build(rnd, ct, pre, rnd.getrandbits(64)))
                        groups.append((mech, f"{cid}@{pre}", ct))
    return lines, groups


@pytest.fixture(scope="module")
def measurements(tmp_path_factory):
    d = tmp_path_factory.mktemp("ctmech")
    lines, groups = _combos()
    stdin = "\n".join(lines) + "\n"

    def one(opt):
        exe = cs.compile_c(d / f"ct_mech{opt}", [cs.HERE / "ct_mech_harness.c", *cs.LIB_SOURCES, *MECH_SOURCES],
                           ["-std=c99", opt, "-g", "-Wall", "-Wextra"])
        counts = cs.callgrind_region_counts(exe, stdin, 2 * len(lines), d / f"cg{opt}.out", timeout=900)
        return opt, counts

    with ThreadPoolExecutor(len(OPT_LEVELS)) as pool:
        results = dict(pool.map(one, OPT_LEVELS))
    return groups, results


def _by_group(groups, counts, mech, ct):
    out = {}
    for i, g in enumerate(groups):
        if g[0] == mech and g[2] == ct:
            for call in (0, 1):
                out.setdefault((g[1], call), []).append(counts[2 * i + call])
    return out


MECHS = ["rr_bool", "rr", "rappor", "geometric", "unary_encoding", "hadamard_response", "longitudinal_grr",
         "longitudinal_ue"]


@pytest.mark.parametrize("opt", OPT_LEVELS)
@pytest.mark.parametrize("mech", MECHS)
def test_constant_time_mechanism_instruction_counts(measurements, mech, opt):
    groups, results = measurements
    by = _by_group(groups, results[opt], mech, True)
    n_combos = sum(1 for g in groups if g[0] == mech and g[2])
    assert n_combos >= 100
    assert len(by) == 2 * len(PRES) * 2                   # configurations x positions x calls
    for shape, counts in by.items():
        assert len(counts) >= N_CT and min(counts) > 0
        assert len(set(counts)) == 1, f"{mech} {shape} {opt}: instruction counts differ: {sorted(set(counts))}"


@pytest.mark.parametrize("opt", OPT_LEVELS)
@pytest.mark.parametrize("mech", MECHS)
def test_lazy_mechanisms_are_not_constant_time(measurements, mech, opt):
    """The measurement can fail: every lazy form's count depends on the draw (at least
    from the position where a variable bit use decides whether a block is generated)."""
    groups, results = measurements
    by = _by_group(groups, results[opt], mech, False)
    for cid in {shape[0].split("@")[0] for shape in by}:
        distinct = {shape: len(set(c)) for shape, c in by.items() if shape[0].startswith(cid + "@")}
        assert max(distinct.values()) > 1, f"lazy {mech} {cid}: constant counts {distinct}"


def test_combination_counts():
    lines, groups = _combos()
    for mech in MECHS:
        ct = [g for g in groups if g[0] == mech and g[2]]
        assert len(ct) >= 100
        # the secret inputs really vary within a configuration
        texts = {lines[i].split(" ", 1)[1] for i, g in enumerate(groups) if g[0] == mech and g[2]}
        assert len(texts) == len(ct)
