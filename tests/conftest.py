"""Shared test configuration.

Heavier sweeps carry ``@pytest.mark.slow``; they run with ``--slow`` (CI always
passes it; see README) and are skipped in a quick local run.
"""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the heavier sweeps marked 'slow' (CI does)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="heavier sweep: run with --slow (CI does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
