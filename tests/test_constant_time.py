"""Constant time, measured: callgrind instruction counts (Ir) of single calls.

tests/c/ct_harness.c calls a sampler once per measurement between
CALLGRIND_TOGGLE_COLLECT client requests and dumps the counts after each
call (valgrind --collect-atstart=no), so one valgrind run measures every
combination.  For fxdp_bernoulli_dyadic_ct, fxdp_table_sample_ct,
fxdp_bernoulli_block_ct (secret: the lanes' mask) and
fxdp_uniform_below_ct_u32 (whose secret is the stream alone) the count
must be identical across >= 100 combinations of secret input (a, or the
table contents) and stream (seed), for each public shape (k, table length,
bits consumed before).  The lazy fxdp_bernoulli_dyadic is measured the same
way and must NOT be constant, which shows the check can fail.  Built at -O2
and -Os.
"""
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

from fxdp.samplers.bounded import make_bounded_laplace_table  # noqa: E402

OPT_LEVELS = ["-O2", "-Os"]


def _combos():
    rnd = random.Random(20261122)
    lines, groups = [], []          # groups[i] = (kind, public shape) of line i

    def seed():
        return rnd.getrandbits(64)

    for k in (0, 1, 7, 32, 33, 63):
        for pre in (0, 13):
            fixed = [0, 1, 2**k, max(2**k - 1, 0)]
            for j in range(14):
                a = fixed[j] if j < len(fixed) else rnd.randint(0, 2**k)
                lines.append(f"D {a:x} {k} {pre} {seed():x}")
                groups.append(("dyadic_ct", k, pre))
    bounded = make_bounded_laplace_table(1, (0, 4), k=12)
    tables = {(8, 1): None, (16, 17): None, (32, 200): None, (12, len(bounded.thresholds)): bounded}
    for (k, n), tab in tables.items():
        for pre in (0, 5):
            for j in range(10):
                if tab is not None and j % 2 == 0:
                    thr = list(tab.thresholds)
                else:
                    thr = sorted(rnd.sample(range(2**k), n)) if k < 32 else \
                        sorted({rnd.getrandbits(32) for _ in range(n)})
                    while len(thr) < n:          # (a collision in the 32-bit draw)
                        thr = sorted(set(thr) | {rnd.getrandbits(32)})
                lines.append(f"T {k} {pre} {seed():x} {n} " + " ".join(f"{t:x}" for t in thr))
                groups.append(("table_ct", k, pre, n))
    for j in range(16):
        lines.append(f"L {0x5555:x} 16 0 {seed():x}")
        groups.append(("dyadic_lazy", 16, 0))
    for n in (1, 3, 1000, 1024, 65535, 3 * 2**20 + 1):     # the secret is the stream; n is public
        for pre in (0, 13):
            for j in range(10):
                lines.append(f"U {n:x} 0 {pre} {seed():x}")
                groups.append(("uniform_ct", n, pre))
    for j in range(16):
        lines.append(f"V {2**31 + 1:x} 0 0 {seed():x}")
        groups.append(("uniform_lazy", 2**31 + 1, 0))
    for k in (0, 1, 7, 20, 33, 63):     # 32 lanes, thresholds from k (public); the mask is the secret
        for pre in (0, 13):
            fixed = [0, 0xFFFFFFFF, 1, 0x80000000]
            for j in range(10):
                mask = fixed[j] if j < len(fixed) else rnd.getrandbits(32)
                lines.append(f"B {mask:x} {k} {pre} {seed():x}")
                groups.append(("block_ct", k, pre))
    for j in range(16):
        lines.append(f"C {rnd.getrandbits(32):x} 20 0 {seed():x}")
        groups.append(("block_lazy", 20, 0))
    return lines, groups


@pytest.fixture(scope="module")
def measurements(tmp_path_factory):
    d = tmp_path_factory.mktemp("ct")
    lines, groups = _combos()
    stdin = "\n".join(lines) + "\n"

    def one(opt):
        exe = cs.compile_c(d / f"ct_harness{opt}", [cs.HERE / "ct_harness.c", *cs.LIB_SOURCES],
                           ["-std=c99", opt, "-g", "-Wall", "-Wextra"])
        counts = cs.callgrind_region_counts(exe, stdin, 2 * len(lines), d / f"cg{opt}.out", timeout=600)
        return opt, counts

    with ThreadPoolExecutor(len(OPT_LEVELS)) as pool:
        results = dict(pool.map(one, OPT_LEVELS))
    return groups, results


def _by_group(groups, counts, kind):
    out = {}
    for i, g in enumerate(groups):
        if g[0] == kind:
            for call in (0, 1):
                out.setdefault(g + (call,), []).append(counts[2 * i + call])
    return out


@pytest.mark.parametrize("opt", OPT_LEVELS)
@pytest.mark.parametrize("kind", ["dyadic_ct", "table_ct", "uniform_ct", "block_ct"])
def test_constant_time_instruction_counts(measurements, opt, kind):
    groups, results = measurements
    by = _by_group(groups, results[opt], kind)
    n_combos = sum(1 for g in groups if g[0] == kind)
    assert n_combos >= (100 if kind in ("uniform_ct", "block_ct") else 80)
    assert sum(len(v) for v in by.values()) >= 160
    for shape, counts in by.items():
        assert min(counts) > 0
        assert len(set(counts)) == 1, f"{kind} {shape}: instruction counts differ: {sorted(set(counts))}"


@pytest.mark.parametrize("opt", OPT_LEVELS)
def test_lazy_bernoulli_is_not_constant_time(measurements, opt):
    """The measurement can fail: the lazy sampler's count depends on the stream."""
    groups, results = measurements
    by = _by_group(groups, results[opt], "dyadic_lazy")
    counts = [c for v in by.values() for c in v]
    assert len(set(counts)) > 1


@pytest.mark.parametrize("opt", OPT_LEVELS)
def test_rejection_uniform_is_not_constant_time(measurements, opt):
    """uniform_below by rejection (n = 2^31 + 1: about half the tries rejected) varies with the stream; the
    budgeted fxdp_uniform_below_ct_u32 does not (test_constant_time_instruction_counts)."""
    groups, results = measurements
    by = _by_group(groups, results[opt], "uniform_lazy")
    counts = [c for v in by.values() for c in v]
    assert len(set(counts)) > 1


@pytest.mark.parametrize("opt", OPT_LEVELS)
def test_lazy_block_is_not_constant_time(measurements, opt):
    """The lazy bernoulli_block stops when every lane is decided: its count varies with the stream and
    the mask; fxdp_bernoulli_block_ct's does not (test_constant_time_instruction_counts)."""
    groups, results = measurements
    by = _by_group(groups, results[opt], "block_lazy")
    counts = [c for v in by.values() for c in v]
    assert len(set(counts)) > 1


def test_enough_combinations_overall():
    lines, groups = _combos()
    ct = [g for g in groups if g[0] in ("dyadic_ct", "table_ct")]
    assert len(ct) >= 100
