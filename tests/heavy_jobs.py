"""CPU-time budgets of the suite's heavy jobs, checked by the tests that run them.

README's test command must stay under 25 minutes on 2 cores (CI's hard limit is 90).  The jobs
below are most of it; each test that runs one records its time here and fails when the job took
more than its budget, so a change that doubles one is seen the day it lands, not when CI runs
out of time.  The budgets are CPU seconds (user + system, of the job's processes): the suite runs
on two pytest-xdist workers, so the heavy jobs overlap each other and the other worker's tests,
and their wall times measure that load; their CPU times do not.  conftest.py prints every
recorded time, and the session's own wall time, at the end of the session (the workers' times
are sent to the controller).  The budgets and the figures they come from: docs/verification.md,
"Time budgets".  A budget is about twice the job's CPU time in the CI rehearsals.
"""
from __future__ import annotations

import resource
import time

SUITE_BUDGET_S = 25 * 60

BUDGETS_S = {              # CPU seconds
    "eva": 1500,             # tools/eva/run_eva.py -j 2: the record's sample (183 CPU s), or every entry point
                             # when tools/eva/record.json is of other sources (833 CPU s alone, 2026-12-07)
    "wp": 600,               # tools/eva/run_wp.sh in the background beside Eva: a sample or every function
    "fuzz": 400,             # tools/fuzz/run_fuzz.py, 2 * 10^5 executions per driver (177 CPU s alone, 2026-12-07)
    "export targets": 1500,  # every kind and form on every emulated target (tests/test_export_targets.py): 795 CPU s
                             # in the rehearsal of 6c55ba3 (cold Numba cache: the fleet kernels compile in it), 429
                             # alone with a warm cache, at 4,000 / 1,000 parity releases (2026-12-07)
}

_times: dict[str, float] = {}
SESSION_START = time.monotonic()


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all threads) and of its children that have been
    waited for, so far: the difference across a job is the job's CPU time, since an xdist worker
    runs one test at a time."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def check(job: str, seconds: float) -> None:
    """Record the job's CPU time and fail if it is over its budget."""
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
    lines = [f"  {job:<15} {_times[job]:7.0f} CPU s   budget {BUDGETS_S[job]:5d} CPU s"
             for job in BUDGETS_S if job in _times]
    wall = time.monotonic() - SESSION_START
    lines.append(f"  {'whole session':<15} {wall:7.0f} s       budget {SUITE_BUDGET_S:5d} s wall (README's test command)")
    return lines
