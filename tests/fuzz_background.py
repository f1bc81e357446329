"""The CI fuzz run of tests/test_fuzz.py::test_fuzz_every_entry_point, started in the background.

The fuzz run (tools/fuzz/run_fuzz.py, RUNS_PER_ENTRY executions of every driver, JOBS processes)
is a background job (tests/background_job.py): it starts as soon as the session has collected that
test (tests/conftest.py, pytest_collection_finish), at nice 19 so that it takes only CPU time the
other tests (and the export-targets job, tests/export_background.py, at nice 10) leave, and the
test, which conftest orders last, waits for it and checks its result.  Run alone (or without the
background start) the test starts the same run itself and waits for all of it.

Its output directory is removed after a passing test and kept otherwise (artifacts to replay).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from background_job import ROOT, BackgroundRun

RUN_FUZZ = ROOT / "tools" / "fuzz" / "run_fuzz.py"
TEST_ID = "tests/test_fuzz.py::test_fuzz_every_entry_point"

# executions of each driver (libFuzzer -runs): the issue asks for 10^6 per entry point in CI
RUNS_PER_ENTRY = int(os.environ.get("FXDP_FUZZ_RUNS", 1_000_000))
JOBS = 2                   # fuzz processes at a time: CI machines have 2 cores
CAP_PER_DRIVER_S = 900     # a driver that has not finished by then stops short (and the test fails)
NICE = 19


class FuzzRun(BackgroundRun):
    """One run_fuzz.py process and where its results go."""

    def __init__(self, out: Path):
        super().__init__(out, "result.json", "run_fuzz.log")
        self.json = self.result

    def start(self, n_drivers: int) -> "FuzzRun":
        cmd = [sys.executable, str(RUN_FUZZ), "--runs", str(RUNS_PER_ENTRY), "-j", str(JOBS),
               "--budget", str(CAP_PER_DRIVER_S * n_drivers), "--out", str(self.out / "fuzz"),
               "--json", str(self.json), "--coverage"]
        self.spawn(cmd, NICE)
        return self

    def cleanup(self):
        self.kill()
        if self.passed:
            shutil.rmtree(self.out, ignore_errors=True)


def n_drivers() -> int:
    sys.path.insert(0, str(ROOT / "tools" / "eva"))
    try:
        import run_eva
        return len(run_eva.drivers())
    finally:
        sys.path.pop(0)


def start(config) -> FuzzRun:
    run = FuzzRun(Path(tempfile.mkdtemp(prefix="fxdp-fuzz-ci-"))).start(n_drivers())
    config._fxdp_fuzz_run = run
    return run


def selected(session) -> bool:
    """Will the session run the fuzz test (collected, not deselected, not skipped for lack of --slow)?"""
    if session.config.option.collectonly or not session.config.getoption("--slow"):
        return False
    return any(i.nodeid.endswith(TEST_ID) for i in session.items)


def stop(config):
    run = getattr(config, "_fxdp_fuzz_run", None)
    if run is not None:
        run.cleanup()
