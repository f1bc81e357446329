"""The work of tests/test_export_targets.py's fixture `runs`, started in the background.

test_export_targets.compute (simulations, exports, cross builds, emulator runs: about 900 CPU
seconds, ~6 minutes of wall time on 2 idle cores) is a background job (tests/background_job.py):
it starts when the session has collected tests that use the fixture (tests/conftest.py,
pytest_collection_finish) and runs while the ordinary tests run one at a time on the other core.
conftest orders the module's tests late (just before the fuzz test), and the fixture waits for
the result file and returns what compute returned, with the job's own wall time (its start to its
result) in place of compute's.  Run alone (no background start: tests/test_export_targets.py on
its own, or -k selecting it), the fixture starts the same job itself and waits for all of it.

The job runs this file as a script: it calls compute and pickles the 4-tuple (an exception a job
raised is kept, as before, for the tests of that (target, case) to raise, with its traceback as a
note).  FXDP_EXPORT_CASES / FXDP_EXPORT_TARGETS reach it through the environment.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
import traceback
from pathlib import Path

from background_job import BackgroundRun

HERE = Path(__file__).resolve().parent
MODULE = "tests/test_export_targets.py"
FIXTURE = "runs"

# Nice 10, not the fuzz run's 19: against the foreground tests (nice 0) the job gets a weight of
# 110 to their 1024, so it takes ~10% of a core they want and all of a core they leave idle; against
# the fuzz run (weight 15) it takes ~7/8 of the idle core.  Its tests run before the fuzz test (both
# late), so it is the job that must finish first; the fuzz run catches up when it is done.
NICE = 10
# The fixture stops waiting at 1.5 times the job's budget (heavy_jobs) after its start: a job that
# slow fails test_within_its_time_budget anyway, and the suite's own 25 minutes are past.
WAIT_FACTOR = 1.5


class ExportRun(BackgroundRun):
    def __init__(self, out: Path):
        super().__init__(out, "result.pkl", "export_targets.log")

    def start(self) -> "ExportRun":
        # the job imports what this session imports (the fxdp under test, tests/ for the modules)
        return self.spawn([sys.executable, __file__, str(self.out), json.dumps(sys.path)], NICE)

    def collect(self, budget_s: float):
        """The fixture's 4-tuple (expected lines, results, outputs, the job's wall seconds);
        fails, with the job's log, when the job gives no result within WAIT_FACTOR * budget_s
        of its start or exits without one."""
        import pytest
        limit = WAIT_FACTOR * budget_s
        try:
            rc, log, _ = self.wait(timeout=max(0.0, self.started + limit - time.monotonic()))
        except subprocess.TimeoutExpired:      # wait() killed the job's group
            pytest.fail(f"the export-targets job ({self.out}) gave no result within {limit:.0f} s of its "
                        f"start (budget {budget_s} s); its log ends:\n"
                        + self.log.read_text(errors="replace")[-3000:], pytrace=False)
        if rc != 0 or not self.result.exists():
            pytest.fail(f"the export-targets job ({self.out}) exited with status {rc} and "
                        f"{'a' if self.result.exists() else 'no'} result; its log ends:\n{log[-6000:]}",
                        pytrace=False)
        expected, results, outputs, _ = pickle.loads(self.result.read_bytes())
        return expected, results, outputs, self.wall_seconds()


def selected(session) -> bool:
    """Will the session run a test that uses the fixture (collected and not deselected)?"""
    if session.config.option.collectonly:
        return False
    return any(i.nodeid.startswith(MODULE + "::") and FIXTURE in getattr(i, "fixturenames", ())
               for i in session.items)


def start(config) -> ExportRun:
    # under pytest's basetemp, like the fixture's tmp_path_factory.mktemp (the fixture gets the same
    # factory), so that the builds of the last few sessions are kept to look at
    run = ExportRun(config._tmp_path_factory.mktemp("export_targets")).start()
    config._fxdp_export_run = run
    return run


def stop(config):
    run = getattr(config, "_fxdp_export_run", None)
    if run is not None:
        run.kill()                 # a job the session did not collect (-x, Ctrl-C) goes with its group


def _picklable(e: BaseException) -> BaseException:
    """The job's exception with its traceback as a note (pickle drops tracebacks); when it does not
    pickle, a RuntimeError that says what it was."""
    text = "in the background export-targets job (tests/export_background.py):\n" + \
        "".join(traceback.format_exception(type(e), e, e.__traceback__))
    try:
        pickle.loads(pickle.dumps(e))
    except Exception:
        e = RuntimeError(f"{type(e).__module__}.{type(e).__qualname__}: {e}")
    e.__notes__ = [*getattr(e, "__notes__", []), text]
    return e


def main(out: Path, path: list[str]):
    sys.path[:0] = [str(HERE), *path]
    import test_export_targets
    (out / "work").mkdir()
    expected, results, outputs, seconds = test_export_targets.compute(out / "work")
    results = {k: _picklable(r) if isinstance(r, BaseException) else r for k, r in results.items()}
    tmp = out / "result.pkl.part"
    tmp.write_bytes(pickle.dumps((expected, results, outputs, seconds)))
    os.replace(tmp, out / "result.pkl")            # whole or absent, and its mtime ends the wall time
    print(f"export targets: {len(results)} jobs, compute {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), json.loads(sys.argv[2]))
