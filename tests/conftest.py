"""Shared test configuration.

Heavier sweeps carry ``@pytest.mark.slow``; they run with ``--slow`` (CI always
passes it; see README) and are skipped in a quick local run.
"""
from pathlib import Path

import pytest

import export_background
import fuzz_background
import heavy_jobs

REPO = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the heavier sweeps marked 'slow' (CI does)")


def pytest_collection_modifyitems(config, items):
    # the tests of the background jobs late, so that their jobs have run meanwhile: the export
    # targets' (tests/export_background.py), then the fuzz test last (tests/fuzz_background.py),
    # whose run has the lower priority
    items.sort(key=lambda item: (item.nodeid.endswith(fuzz_background.TEST_ID),
                                 item.nodeid.startswith(export_background.MODULE + "::")))
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="heavier sweep: run with --slow (CI does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_collection_finish(session):
    """Start the background jobs now, both at once (the export targets' at nice 10, the fuzz run
    at nice 19), each if the session will run its tests."""
    if export_background.selected(session):
        export_background.start(session.config)
    if fuzz_background.selected(session):
        fuzz_background.start(session.config)


def pytest_unconfigure(config):
    # a job the session did not collect is killed with its process group
    export_background.stop(config)
    fuzz_background.stop(config)


def pytest_terminal_summary(terminalreporter):
    """The heavy jobs' wall times against their budgets (tests/heavy_jobs.py), and the session's."""
    terminalreporter.write_sep("=", "wall time of the heavy jobs and of the session")
    for line in heavy_jobs.summary():
        terminalreporter.write_line(line)
