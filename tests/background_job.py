"""A heavy job run in the background of a pytest session (tests/fuzz_background.py,
tests/export_background.py).

pytest runs one test at a time, so most of a CI session leaves one of the machine's cores idle.
A heavy job whose test can wait therefore starts when the session has collected that test
(tests/conftest.py, pytest_collection_finish), niced so that it takes only the CPU time the
foreground tests leave, and its test, ordered late, collects the result.

The process runs in its own session (process group), so that it and its children are killed
together; it writes to a file (no pipe to fill); and it is killed with its group when the pytest
session ends before its test collected it (-x, Ctrl-C: conftest's pytest_unconfigure).
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class BackgroundRun:
    """One process, its log, and the result file whose last write ends its wall time."""

    def __init__(self, out: Path, result: str, log: str):
        self.out = out
        self.result = out / result
        self.log = out / log
        self.started = time.monotonic()
        self.started_wall = time.time()
        self.proc: subprocess.Popen | None = None
        self.passed = False

    def spawn(self, cmd: list[str], nice: int) -> "BackgroundRun":
        self.started, self.started_wall = time.monotonic(), time.time()
        with open(self.log, "w") as fh:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=lambda: os.nice(nice))
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
        return self.result.stat().st_mtime - self.started_wall

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)    # the process and all its children
            except ProcessLookupError:
                pass
            self.proc.wait()
