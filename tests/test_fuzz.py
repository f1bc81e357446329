"""libFuzzer over every public C entry point (issue 13, item 3; tools/fuzz/run_fuzz.py).

The target runs the Eva drivers (tools/eva/drivers/*.c) with the Frama-C builtins implemented
over the fuzz input, built with clang -fsanitize=fuzzer,address,undefined.  CI installs clang and
libclang-rt-14-dev (.ci/run); there is no skip when they are missing.  In CI every driver runs a
fixed number of executions (RUNS_PER_ENTRY = 2 * 10^5 from an empty corpus: about 170 CPU s for
131 drivers on 2026-12-07), a fixed, modest share of README's 25 minutes; it is a --slow test, as
the full Eva analysis is.  The longer runs (10^6 executions of every driver, 842 CPU s on
2026-12-07; the 10^7 batches) are documented in docs/verification.md, not part of the suite.
README's test command runs the suite on 2 pytest-xdist workers, so the run shares the machine
with the other worker's tests; its budget is therefore in CPU seconds (tests/heavy_jobs.py),
which do not depend on what else the machine runs.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import heavy_jobs

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tools" / "fuzz"

# executions of each driver (libFuzzer -runs) in CI; FXDP_FUZZ_RUNS=1000000 is the documented longer run
RUNS_PER_ENTRY = int(os.environ.get("FXDP_FUZZ_RUNS", 200_000))
JOBS = 2                   # fuzz processes at a time: CI machines have 2 cores
CAP_PER_DRIVER_S = 900     # a driver that has not finished by then stops short (and the test fails)


def _import(name, where):
    sys.path.insert(0, str(where))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def _run_fuzz(*args, timeout):
    return subprocess.run([sys.executable, str(FUZZ / "run_fuzz.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def fuzz_out(tmp_path_factory):
    """The build directory of this file's runs over csrc/: run_fuzz.build reuses a target built from
    the same sources and flags, so the target is built once (about 20 CPU s) for both tests."""
    return tmp_path_factory.mktemp("fuzz")


def test_fuzz_entries_are_the_eva_drivers(fuzz_out):
    """Every Eva driver (hence every public entry point, test_eva checks that) is a fuzz entry, and
    the built target lists each in its generated table."""
    run_eva = _import("run_eva", ROOT / "tools" / "eva")
    run_fuzz = _import("run_fuzz", FUZZ)
    assert run_fuzz.entries() == list(run_eva.drivers())
    assert len(run_fuzz.entries()) >= 65
    assert shutil.which("clang"), "clang not installed: apt-get install clang libclang-rt-14-dev (CI does)"
    run_fuzz.build(fuzz_out)
    table = (fuzz_out / "fuzz_entries.h").read_text()
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
def test_fuzz_every_entry_point(tmp_path, fuzz_out):
    """Every driver fuzzed for RUNS_PER_ENTRY (2 * 10^5) executions from an empty corpus: no sanitizer
    report, crash or hang, every driver executed that many times (libFuzzer's count and the
    target's own per-driver counter), and the corpora reach library code."""
    assert shutil.which("clang"), "clang not installed: apt-get install clang libclang-rt-14-dev (CI does)"
    run_fuzz = _import("run_fuzz", FUZZ)
    n = len(run_fuzz.entries())
    out, result, log = fuzz_out, tmp_path / "result.json", tmp_path / "run_fuzz.log"
    assert not (out / "corpus").exists()                # from an empty corpus
    cmd = [sys.executable, str(FUZZ / "run_fuzz.py"), "--runs", str(RUNS_PER_ENTRY), "-j", str(JOBS),
           "--budget", str(CAP_PER_DRIVER_S * n), "--out", str(out), "--json", str(result), "--coverage"]
    # its own process group, so that a timeout kills the libFuzzer children too; output to a file
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        rc = proc.wait(timeout=CAP_PER_DRIVER_S * n / JOBS + 900)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = log.read_text(errors="replace")
    print("\n" + text[-1500:])
    assert rc == 0, text[-6000:]
    res = json.loads(result.read_text())
    assert res["entries"] == run_fuzz.entries() and len(res["entries"]) == n
    assert res["never"] == []
    for r in res["results"]:
        assert r["ok"] and r["findings"] == [] and r["artifacts"] == [], r["entry"]
        # -runs=N stops at exactly N executions; fewer means the time cap cut the driver short
        assert r["execs"] >= RUNS_PER_ENTRY, (r["entry"], r["execs"], r["wall_s"])
        assert r["counts"][r["entry"]] >= RUNS_PER_ENTRY, r["entry"]
    cov = res["coverage"]
    assert 0 < cov["edges"] <= cov["edges_total"]
    heavy_jobs.check("fuzz", res["cpu_s"])
