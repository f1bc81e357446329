"""Subset selection's constant-time claim, measured: callgrind instruction counts (Ir) of single
releases of fxdp_subset_selection[_ct] (tests/c/ct_ss_harness.c, -O2 and -Os).

For each of a few fixed streams the release runs with many inputs and with b forced (up to
probability 2^-32) to 0 (a_p = 1) and to 1 (a_p = 2^32 - 1), a public cfg change that moves only
b.  The constant-time form with uniform_version 2 (issue 32: Floyd's draws and r by the
fixed-budget fxdp_uniform_below_ct_u32) must give ONE count for every input, inclusion and
stream, at parameters where the rejection draws do reject (d = 100, 1024; k = 3, 27, 275).  The
pinned uniform_version 1 (the rejection draws of the releases before issue 32) gives one count
per stream, and the counts differ between streams (so the check can fail on the stream); the
lazy form's counts for b = 0 and b = 1 must differ (so it can fail on the input).
"""
import random
import sys
from pathlib import Path

import pytest

import fxdp

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

OPT_LEVELS = ["-O2", "-Os"]
SEEDS = [0x1234, 0xBEEF, 0x5EED5]
CONFIGS = [(100, 1, None), (1024, 1, None), (1024, 1, 3)]   # (d, epsilon, k): k = 27, 275 and 3


def _lines():
    rnd = random.Random(20261125)
    lines, groups = [], []
    for d, eps, k in CONFIGS:
        m = fxdp.make_subset_selection(d, eps, k=k)
        for seed in SEEDS:
            for ct in (2, 1, 0):
                for forced in ("b0", "b1", "real"):
                    a_p = {"b0": 1, "b1": (1 << m.bits) - 1, "real": m.a_p}[forced]
                    for _ in range(8):
                        x = rnd.choice([0, d - 1, rnd.randrange(d)])
                        lines.append(f"{ct} {a_p:x} {m.bits:x} {d:x} {m.k:x} {seed:x} {x:x}")
                        groups.append(((d, m.k), seed, ct, forced))
    return lines, groups


@pytest.fixture(scope="module")
def counts(tmp_path_factory):
    d = tmp_path_factory.mktemp("ctss")
    lines, groups = _lines()
    out = {}
    for opt in OPT_LEVELS:
        exe = cs.compile_c(d / f"ct_ss{opt}", [cs.HERE / "ct_ss_harness.c", *cs.LIB_SOURCES,
                                               cs.CSRC / "fxdp_mech_subset_selection.c"], ["-std=c99", opt, "-g", "-Wall", "-Wextra"])
        out[opt] = cs.callgrind_region_counts(exe, "\n".join(lines) + "\n", len(lines), d / f"cg{opt}.out")
    return groups, out


def _by(groups, c, **want):
    return [n for g, n in zip(groups, c) if all(dict(zip(("d", "seed", "ct", "forced"), g))[k] == v
                                                for k, v in want.items())]


DK = [(d, fxdp.make_subset_selection(d, eps, k=k).k) for d, eps, k in CONFIGS]


@pytest.mark.parametrize("opt", OPT_LEVELS)
@pytest.mark.parametrize("d", DK, ids=str)
def test_budgeted_constant_time_form_has_one_count(counts, opt, d):
    """uniform_version 2: the same count for every input, inclusion and stream."""
    groups, res = counts
    c = _by(groups, res[opt], d=d, ct=2)
    assert len(c) == 24 * len(SEEDS) and min(c) > 0
    assert len(set(c)) == 1, f"{d} {opt}: {sorted(set(c))}"


@pytest.mark.parametrize("opt", OPT_LEVELS)
@pytest.mark.parametrize("d", DK, ids=str)
def test_constant_time_form_counts_depend_neither_on_x_nor_on_inclusion(counts, opt, d):
    """uniform_version 1 (pinned): one count per stream, which the rejections change."""
    groups, res = counts
    per_seed = []
    for seed in SEEDS:
        c = _by(groups, res[opt], d=d, seed=seed, ct=1)
        assert len(c) == 24 and min(c) > 0
        assert len(set(c)) == 1, f"d = {d} seed {seed:x} {opt}: {sorted(set(c))}"
        per_seed.append(c[0])
    assert len(set(per_seed)) > 1             # the stream's rejections do change it


@pytest.mark.parametrize("opt", OPT_LEVELS)
@pytest.mark.parametrize("d", DK, ids=str)
def test_lazy_form_counts_reveal_inclusion(counts, opt, d):
    groups, res = counts
    for seed in SEEDS:
        b0 = set(_by(groups, res[opt], d=d, seed=seed, ct=0, forced="b0"))
        b1 = set(_by(groups, res[opt], d=d, seed=seed, ct=0, forced="b1"))
        assert b0.isdisjoint(b1), (d, seed, b0, b1)
