"""Shared test configuration.

Heavier sweeps carry ``@pytest.mark.slow``; they run with ``--slow`` (CI always
passes it; see README) and are skipped in a quick local run.

README's test command runs on two pytest-xdist workers (``-n 2``).  Each worker takes whole
files (a module's fixtures, such as the export-targets build, are made once), the longest
files first, in FIRST_FILES' order, so that the short ones fill the end of the session.  The two
workers compile each Numba kernel once between them (_compile_once_across_workers).
"""
import os
import shutil
import tempfile
from pathlib import Path

import pytest

import heavy_jobs

REPO = Path(__file__).resolve().parent.parent

# the files that take longest (CI rehearsals, --durations): handed out first
FIRST_FILES = ("test_eva.py", "test_export_targets.py", "test_fuzz.py", "test_export.py", "test_cli.py",
               "test_dbitflip.py", "test_longitudinal.py", "test_subset_selection.py", "test_ctgrind.py",
               "test_dask.py")


def pytest_configure(config):
    """One object cache for the session's target builds (fxdp.targets.build, FXDP_OBJECT_CACHE):
    the export tests build the same library files for every kind and form.  Set here, in the
    controller, before the xdist workers start, so that they share it; removed at the end.
    FXDP_COMPILE_LOG=DIR (a measurement, off by default): each process of the session writes every
    Numba compile it makes, kernel and seconds, to DIR/<pid>.log, to see which kernels the two
    workers both compile and what the cold compiles cost (docs/verification.md, Time budgets)."""
    log_dir = os.environ.get("FXDP_COMPILE_LOG")
    if log_dir:
        from fxdp import _numba_cache
        os.makedirs(log_dir, exist_ok=True)
        notice = _numba_cache.announce_compiles()
        notice.stream, notice.force = open(os.path.join(log_dir, f"{os.getpid()}.log"), "a", buffering=1), True
    if "FXDP_OBJECT_CACHE" not in os.environ and not hasattr(config, "workerinput"):
        config._fxdp_object_cache = tempfile.mkdtemp(prefix="fxdp-objects-")
        os.environ["FXDP_OBJECT_CACHE"] = config._fxdp_object_cache
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        config._fxdp_compile_locks = tempfile.mkdtemp(prefix="fxdp-compile-locks-")
        os.environ["FXDP_TEST_COMPILE_LOCKS"] = config._fxdp_compile_locks
    if hasattr(config, "workerinput") and os.environ.get("FXDP_TEST_COMPILE_LOCKS"):
        _compile_once_across_workers(os.environ["FXDP_TEST_COMPILE_LOCKS"])


def _compile_once_across_workers(lock_dir):
    """The xdist workers compile a kernel once between them: a worker that is about to compile a
    (kernel, signature) takes a file lock for it first, so if the other worker is compiling it, this
    one waits and then loads what the other wrote to Numba's on-disk cache (Numba's compile looks
    there before it compiles).  Without it, on a cold cache the two workers compiled the same fleet
    kernels (the export tests of both files) side by side.  Kernels call kernels, never in a
    circle, so the locks are taken in one order; a thread does not wait on a lock it holds."""
    import fcntl
    import hashlib
    import threading

    from numba.core import dispatcher, sigutils

    compile_here = dispatcher.Dispatcher.compile
    held = threading.local()

    def compile_once(self, sig):
        args, _ = sigutils.normalize_signature(sig)
        mine = held.__dict__.setdefault("keys", set())
        key = hashlib.sha1(f"{self.py_func.__module__}.{self.py_func.__qualname__}{tuple(args)}".encode()).hexdigest()
        if tuple(args) in self.overloads or key in mine:
            return compile_here(self, sig)
        with open(os.path.join(lock_dir, key), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            mine.add(key)
            try:
                return compile_here(self, sig)
            finally:
                mine.discard(key)

    dispatcher.Dispatcher.compile = compile_once


def pytest_unconfigure(config):
    made = getattr(config, "_fxdp_object_cache", None)
    if made:
        shutil.rmtree(made, ignore_errors=True)
        os.environ.pop("FXDP_OBJECT_CACHE", None)
    locks = getattr(config, "_fxdp_compile_locks", None)
    if locks:
        shutil.rmtree(locks, ignore_errors=True)
        os.environ.pop("FXDP_TEST_COMPILE_LOCKS", None)


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the heavier sweeps marked 'slow' (CI does)")


def _file_rank(item) -> int:
    name = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
    return FIRST_FILES.index(name) if name in FIRST_FILES else len(FIRST_FILES)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_file_rank)          # stable: within a file and among the rest, collection order
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="heavier sweep: run with --slow (CI does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Whole files per worker, in the collection order above (not reordered by test count)."""
    from xdist.scheduler import LoadFileScheduling
    config.option.loadscopereorder = False
    return LoadFileScheduling(config, log)


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:        # an xdist worker: its heavy-job times go to the controller
        workeroutput["fxdp_heavy_times"] = heavy_jobs.recorded()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    heavy_jobs.record_all(getattr(node, "workeroutput", {}).get("fxdp_heavy_times", {}))


def pytest_terminal_summary(terminalreporter):
    """The heavy jobs' times against their budgets (tests/heavy_jobs.py), and the session's."""
    if getattr(terminalreporter.config, "workeroutput", None) is not None:
        return
    terminalreporter.write_sep("=", "time of the heavy jobs and of the session")
    for line in heavy_jobs.summary():
        terminalreporter.write_line(line)
