"""The CI fuzz run of tests/test_fuzz.py::test_fuzz_every_entry_point, started in the background.

pytest runs one test at a time, so most of a CI session leaves one of the machine's cores idle.
The fuzz run (tools/fuzz/run_fuzz.py, RUNS_PER_ENTRY executions of every driver, JOBS processes)
therefore starts as soon as the session has collected that test (tests/conftest.py,
pytest_collection_finish), at nice 19 so that it takes only CPU time the other tests leave, and
the test, which conftest orders last, waits for it and checks its result.  Run alone (or
without the background start) the test starts the same run itself and waits for all of it.

The process runs in its own session (process group), writes to a file (no pipe to fill), and is
killed with its group when the pytest session ends before the test collected it (-x, Ctrl-C).
Its output directory is removed after a passing test and kept otherwise (artifacts to replay).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_FUZZ = ROOT / "tools" / "fuzz" / "run_fuzz.py"
TEST_ID = "tests/test_fuzz.py::test_fuzz_every_entry_point"

# executions of each driver (libFuzzer -runs): the issue asks for 10^6 per entry point in CI
RUNS_PER_ENTRY = int(os.environ.get("FXDP_FUZZ_RUNS", 1_000_000))
JOBS = 2                   # fuzz processes at a time: CI machines have 2 cores
CAP_PER_DRIVER_S = 900     # a driver that has not finished by then stops short (and the test fails)
NICE = 19


class FuzzRun:
    """One run_fuzz.py process and where its results go."""

    def __init__(self, out: Path):
        self.out = out
        self.json = out / "result.json"
        self.log = out / "run_fuzz.log"
        self.started = time.monotonic()
        self.started_wall = time.time()
        self.proc: subprocess.Popen | None = None
        self.passed = False

    def start(self, n_drivers: int) -> "FuzzRun":
        cmd = [sys.executable, str(RUN_FUZZ), "--runs", str(RUNS_PER_ENTRY), "-j", str(JOBS),
               "--budget", str(CAP_PER_DRIVER_S * n_drivers), "--out", str(self.out / "fuzz"),
               "--json", str(self.json), "--coverage"]
        with open(self.log, "w") as fh:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=lambda: os.nice(NICE))
        return self

    def wait(self, timeout: float) -> tuple[int, str, float]:
        """(exit status, log text, seconds waited); TimeoutExpired after timeout (the run is killed)."""
        t0 = time.monotonic()
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        return rc, self.log.read_text(errors="replace"), time.monotonic() - t0

    def wall_seconds(self) -> float:
        """The run's own wall time: from its start to its result file's last write (the test
        that collects it may come long after it ended)."""
        return self.json.stat().st_mtime - self.started_wall

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)    # run_fuzz.py and its libFuzzer children
            except ProcessLookupError:
                pass
            self.proc.wait()

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
