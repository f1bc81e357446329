"""libFuzzer over every public C entry point (issue 13, item 3; tools/fuzz/run_fuzz.py).

The target runs the Eva drivers (tools/eva/drivers/*.c) with the Frama-C builtins implemented
over the fuzz input, built with clang -fsanitize=fuzzer,address,undefined.  CI installs clang and
libclang-rt-14-dev (.ci/run); there is no skip when they are missing.  The fuzz run over every
driver has a fixed number of executions each (RUNS_PER_ENTRY, about 80 s in all here) and is a
--slow test, as the full Eva analysis is; docs/verification.md has the figures of a longer run and
how to run one.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tools" / "fuzz"
RUNS_PER_ENTRY = 50_000    # executions of each driver (libFuzzer -runs)
CAP_S = 600                # and at most CAP_S / #drivers seconds each (a slow machine)


def _import(name, where):
    sys.path.insert(0, str(where))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def _run_fuzz(*args, timeout):
    return subprocess.run([sys.executable, str(FUZZ / "run_fuzz.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_fuzz_entries_are_the_eva_drivers(tmp_path):
    """Every Eva driver (hence every public entry point, test_eva checks that) is a fuzz entry, and
    the built target lists each in its generated table."""
    run_eva = _import("run_eva", ROOT / "tools" / "eva")
    run_fuzz = _import("run_fuzz", FUZZ)
    assert run_fuzz.entries() == list(run_eva.drivers())
    assert len(run_fuzz.entries()) >= 65
    assert shutil.which("clang"), "clang not installed: apt-get install clang libclang-rt-14-dev (CI does)"
    run_fuzz.build(tmp_path)
    table = (tmp_path / "fuzz_entries.h").read_text()
    assert [n for n in run_fuzz.entries() if f"X({n})" not in table] == []


def test_fuzz_catches_a_planted_bug(tmp_path):
    """The check can fail: a library copy whose fxdp_checked_add_i32 writes through a NULL out
    (its check removed) is caught, with an artifact, and the run exits 1."""
    src = tmp_path / "csrc"
    shutil.copytree(ROOT / "csrc", src)
    f = src / "fxdp_fixed.c"
    text = f.read_text()
    check = ("fxdp_status fxdp_checked_add_i32(int32_t a, int32_t b, int32_t *out)\n{\n    unsigned ovf;\n"
             "    uint32_t s;\n    if (out == NULL)\n        return FXDP_ERR_PARAM;\n")
    assert check in text
    f.write_text(text.replace(check, check.replace("    if (out == NULL)\n        return FXDP_ERR_PARAM;\n", "")))
    out = tmp_path / "out"
    p = _run_fuzz("--src", str(src), "--out", str(out), "--only", "checked_add_i32", "--budget", "30",
                  "--json", str(tmp_path / "r.json"), timeout=400)
    assert p.returncode == 1, p.stdout[-3000:]
    res = json.loads((tmp_path / "r.json").read_text())["results"][0]
    assert not res["ok"]
    assert res["artifacts"], res["log_tail"]
    assert any("AddressSanitizer" in x or "Sanitizer" in x for x in res["findings"]), res["findings"]
    assert "fxdp_checked_add_i32" in res["log_tail"]


@pytest.mark.slow
def test_fuzz_every_entry_point(tmp_path):
    """Every driver fuzzed for RUNS_PER_ENTRY executions: no sanitizer report, crash or hang, and
    every driver executed (its counter, printed by the target at exit, is positive)."""
    assert shutil.which("clang"), "clang not installed: apt-get install clang libclang-rt-14-dev (CI does)"
    out = tmp_path / "r.json"
    p = _run_fuzz("--runs", str(RUNS_PER_ENTRY), "--budget", str(CAP_S), "--out", str(tmp_path / "fuzz"),
                  "--json", str(out), "--coverage", timeout=CAP_S + 900)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    res = json.loads(out.read_text())
    run_fuzz = _import("run_fuzz", FUZZ)
    assert res["entries"] == run_fuzz.entries()
    assert res["never"] == []
    for r in res["results"]:
        assert r["ok"] and r["findings"] == [] and r["artifacts"] == [], r["entry"]
        assert r["counts"][r["entry"]] > 0 and r["execs"] > 0, r["entry"]
    cov = res["coverage"]
    assert 0 < cov["edges"] <= cov["edges_total"]
