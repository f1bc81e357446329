"""Shared test configuration.

Heavier sweeps carry ``@pytest.mark.slow``; they run with ``--slow`` (CI always
passes it; see README) and are skipped in a quick local run.
"""
from pathlib import Path

import pytest

import fuzz_background
import heavy_jobs

REPO = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the heavier sweeps marked 'slow' (CI does)")


def pytest_collection_modifyitems(config, items):
    # the fuzz test last: its run goes on in the background meanwhile (tests/fuzz_background.py)
    items.sort(key=lambda item: item.nodeid.endswith(fuzz_background.TEST_ID))
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="heavier sweep: run with --slow (CI does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_collection_finish(session):
    """Start the CI fuzz run now, in the background at nice 19, if the session will run its test."""
    if fuzz_background.selected(session):
        fuzz_background.start(session.config)


def pytest_unconfigure(config):
    fuzz_background.stop(config)       # a run the session did not collect is killed


def pytest_terminal_summary(terminalreporter):
    """The heavy jobs' wall times against their budgets (tests/heavy_jobs.py), and the session's."""
    terminalreporter.write_sep("=", "wall time of the heavy jobs and of the session")
    for line in heavy_jobs.summary():
        terminalreporter.write_line(line)
