"""Time budgets of the suite's heavy jobs, checked by the tests that run them.

README's test command must stay under 25 minutes on 2 cores (CI's hard limit is 90).  The jobs
below are most of it; each test that runs one records its time here and fails when the job took
longer than its budget, so a change that doubles one is seen the day it lands, not when CI runs
out of time.  Budgets are wall seconds, except the fuzz run's, which is the CPU seconds of its
libFuzzer processes (a fixed number of executions: its wall time measures the other xdist
worker's load, its CPU time does not).  conftest.py prints every recorded time, and the suite's
own wall time, at the end of the session (the workers' times are sent to the controller).  The budgets and the figures they come from: docs/verification.md, "Time
budgets".  A budget is about twice the job's time in the CI rehearsals, so that a loaded machine
does not fail it, and the budgets of the jobs that run one after the other fit the suite's 25
minutes.
"""
from __future__ import annotations

import time

SUITE_BUDGET_S = 25 * 60

BUDGETS_S = {
    "eva": 780,              # tools/eva/run_eva.py -j 2, every entry point (tests/test_eva.py)
    "wp": 600,               # tools/eva/run_wp.sh, in the background beside Eva
    "fuzz": 1000,            # CPU s: tools/fuzz/run_fuzz.py, 10^6 executions per driver
    "export targets": 600,   # every kind and form on every emulated target (tests/test_export_targets.py)
}

_times: dict[str, float] = {}
SESSION_START = time.monotonic()


def check(job: str, seconds: float) -> None:
    """Record the job's wall time and fail if it is over its budget."""
    _times[job] = seconds
    budget = BUDGETS_S[job]
    assert seconds <= budget, (f"{job} took {seconds:.0f} s, over its budget of {budget} s "
                               "(tests/heavy_jobs.py; docs/verification.md, 'Time budgets')")


def recorded() -> dict[str, float]:
    return dict(_times)


def record_all(times: dict[str, float]) -> None:
    """Times recorded in another process (an xdist worker), for the summary."""
    _times.update(times)


def summary() -> list[str]:
    lines = [f"  {job:<15} {_times[job]:7.0f} {'CPU ' if job == 'fuzz' else ''}s   budget {BUDGETS_S[job]:5d} s"
             for job in BUDGETS_S if job in _times]
    wall = time.monotonic() - SESSION_START
    lines.append(f"  {'whole session':<15} {wall:7.0f} s   budget {SUITE_BUDGET_S:5d} s (README's test command)")
    return lines
