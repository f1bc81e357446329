"""libFuzzer over every public C entry point (issue 13, item 3; tools/fuzz/run_fuzz.py).

The target runs the Eva drivers (tools/eva/drivers/*.c) with the Frama-C builtins implemented
over the fuzz input, built with clang -fsanitize=fuzzer,address,undefined.  CI installs clang and
libclang-rt-14-dev (.ci/run); there is no skip when they are missing.  The fuzz run over every
driver has a fixed number of executions each (fuzz_background.RUNS_PER_ENTRY = 10^6; about 400
CPU seconds in all, on 2 processes) and is a --slow test, as the full Eva analysis is.  It starts
in the background when the session begins (tests/fuzz_background.py, tests/conftest.py) and the
test, run last, collects it.  docs/verification.md has the figures and a documented 10^7 run.
"""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import heavy_jobs

import fuzz_background

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tools" / "fuzz"


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
    check = ("fxdp_status fxdp_checked_add_i32(int32_t a, int32_t b, int32_t *out)\n{\n"
             "    if (out == NULL)\n        return FXDP_ERR_PARAM;\n")
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
def test_fuzz_every_entry_point(request):
    """Every driver fuzzed for RUNS_PER_ENTRY (10^6) executions from an empty corpus: no sanitizer
    report, crash or hang, every driver executed that many times (libFuzzer's count and the
    target's own per-driver counter), and the corpora reach library code.  The run started in the
    background at the beginning of the session (tests/fuzz_background.py); run alone, it starts here."""
    assert shutil.which("clang"), "clang not installed: apt-get install clang libclang-rt-14-dev (CI does)"
    run = getattr(request.config, "_fxdp_fuzz_run", None) or fuzz_background.start(request.config)
    n = fuzz_background.n_drivers()
    rc, log, waited = run.wait(timeout=fuzz_background.CAP_PER_DRIVER_S * n / fuzz_background.JOBS + 900)
    print(f"\nfuzz run: {time.monotonic() - run.started:.0f} s since its start, {waited:.0f} s waited for here\n"
          + log[-1500:])
    assert rc == 0, log[-6000:]
    res = json.loads(run.json.read_text())
    run_fuzz = _import("run_fuzz", FUZZ)
    assert res["entries"] == run_fuzz.entries() and len(res["entries"]) == n
    assert res["never"] == []
    for r in res["results"]:
        assert r["ok"] and r["findings"] == [] and r["artifacts"] == [], r["entry"]
        # -runs=N stops at exactly N executions; fewer means the time cap cut the driver short
        assert r["execs"] >= fuzz_background.RUNS_PER_ENTRY, (r["entry"], r["execs"], r["wall_s"])
        assert r["counts"][r["entry"]] >= fuzz_background.RUNS_PER_ENTRY, r["entry"]
    cov = res["coverage"]
    assert 0 < cov["edges"] <= cov["edges_total"]
    heavy_jobs.check("fuzz", run.wall_seconds())
    run.passed = True
