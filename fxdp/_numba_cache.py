"""Numba's on-disk cache (``cache=True``) must never serve a kernel compiled from other sources.

Numba keys a cached kernel by its own file's timestamp and size only; a helper inlined from another
module (every fleet kernel inlines the bit source of ``fxdp/samplers/_nb_core.py``) is not tracked.
An upgrade or an edit that changes only the helper would then run the old kernel.  So the package
keeps one stamp: a digest of (path, size, mtime) over its Python sources.  On import, a different
stamp removes every ``*.nbi`` / ``*.nbc`` file in the package's ``__pycache__`` directories before
any kernel is loaded.  A stat per file, no reads: about a millisecond.

With ``NUMBA_CACHE_DIR`` set, Numba caches each source directory's kernels in that directory
instead (one directory per source directory, named by numba.core.caching's
UserProvidedCacheLocator); the same stamp, kept there, clears those.  Where the package directory
is read-only and ``NUMBA_CACHE_DIR`` is not set, Numba caches in its user-wide directory; that case
is not covered here (set ``NUMBA_CACHE_DIR`` per version: docs/architecture.md).
"""
from __future__ import annotations

import hashlib
import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_STAMP = os.path.join(_PACKAGE, "__pycache__", "fxdp-numba-sources.stamp")


def source_stamp(package=_PACKAGE):
    """Digest of every ``.py`` file's relative path, size and mtime under ``package``."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                st = os.stat(path)
                h.update(f"{os.path.relpath(path, package)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def numba_cache_dir_of(package=_PACKAGE, cache_dir=None):
    """The directories where Numba caches the package's kernels under ``NUMBA_CACHE_DIR``
    (``cache_dir``, default the environment's): one per source directory, named by Numba's own
    UserProvidedCacheLocator.  Empty when it is not set.  Called only when the sources changed, so
    the Numba import costs an unchanged ``import fxdp`` nothing."""
    cache_dir = os.environ.get("NUMBA_CACHE_DIR") if cache_dir is None else cache_dir
    if not cache_dir:
        return []
    from numba.core.caching import UserProvidedCacheLocator
    out = []
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        py = sorted(f for f in files if f.endswith(".py"))
        if py:
            sub = UserProvidedCacheLocator.get_suitable_cache_subpath(os.path.join(os.path.abspath(root), py[0]))
            out.append(os.path.join(cache_dir, sub))
    return out


def _drop_if_changed(dirs, stamp_path, now):
    """Remove the Numba cache files in dirs() unless stamp_path holds now; then write now there.
    dirs is called only on a change (an import with unchanged sources walks nothing more)."""
    try:
        with open(stamp_path) as f:
            if f.read().strip() == now:
                return 0
    except OSError:
        pass
    removed = 0
    for d in dirs():
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in names:
            if name.endswith((".nbi", ".nbc")):
                try:
                    os.remove(os.path.join(d, name))
                    removed += 1
                except OSError:
                    pass
    os.makedirs(os.path.dirname(stamp_path), exist_ok=True)
    tmp = f"{stamp_path}.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(now + "\n")
    os.replace(tmp, stamp_path)
    return removed


def drop_stale(package=_PACKAGE, stamp_path=None):
    """Remove Numba cache files of ``package`` if its sources changed since the last stamp: those in
    its ``__pycache__`` directories and, with ``NUMBA_CACHE_DIR`` set, those Numba keeps there for it
    (a stamp of their own, beside them).  Returns the number of files removed.  Never raises on a
    file-system error (a read-only install keeps what it has)."""
    stamp_path = stamp_path or os.path.join(package, "__pycache__", "fxdp-numba-sources.stamp")
    removed = 0
    try:
        now = source_stamp(package)
    except OSError:
        return 0
    try:
        removed += _drop_if_changed(
            lambda: [root for root, _, _ in os.walk(package) if os.path.basename(root) == "__pycache__"],
            stamp_path, now)
    except OSError:
        pass
    if os.environ.get("NUMBA_CACHE_DIR"):
        tag = hashlib.sha1(os.path.abspath(package).encode()).hexdigest()[:16]
        try:
            removed += _drop_if_changed(lambda: numba_cache_dir_of(package),
                                        os.path.join(os.environ["NUMBA_CACHE_DIR"], f"fxdp-numba-sources-{tag}.stamp"),
                                        now)
        except OSError:
            pass
    return removed


# --------------------------------------------------------------------------
# A long first step says so: one line on a terminal while a kernel compiles

class CompileNotice:
    """A Numba event listener ("numba:compile" fires only on a cache miss): when a top-level
    compile starts, write one line to ``stream`` naming the kernel and saying that it happens
    once; at its end, the seconds it took.  Silent unless ``stream`` is a terminal (or
    ``force``), and with ``FXDP_QUIET=1``."""

    def __init__(self, stream=None, force=False):
        import threading
        self.stream, self.force = stream, force
        self.local = threading.local()
        self.shown = 0

    def _out(self):
        import sys
        s = self.stream or sys.stderr
        if os.environ.get("FXDP_QUIET") == "1":
            return None
        try:
            return s if (self.force or s.isatty()) else None
        except (AttributeError, ValueError):
            return None

    def on_start(self, event):
        import time
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        if depth:
            return
        self.local.t0 = time.perf_counter()
        s = self._out()
        if s is None:
            return
        f = getattr(event.data.get("dispatcher"), "py_func", None)
        name = getattr(f, "__name__", "a kernel")
        s.write(f"fxdp: compiling {name} for this machine (once: later runs load it from Numba's cache) ...")
        s.flush()
        self.shown += 1

    def on_end(self, event):
        import time
        self.local.depth -= 1
        if self.local.depth:
            return
        s = self._out()
        if s is not None:
            s.write(f" {time.perf_counter() - self.local.t0:.1f} s\n")
            s.flush()


_NOTICE = None


def announce_compiles(stream=None, force=False):
    """Register the CompileNotice once per process (the kernels' module calls this on import)."""
    global _NOTICE
    if _NOTICE is None:
        from numba.core import event

        class _Listener(event.Listener):
            def __init__(self, notice):
                self.notice = notice

            def on_start(self, ev):
                self.notice.on_start(ev)

            def on_end(self, ev):
                self.notice.on_end(ev)

        _NOTICE = CompileNotice(stream, force)
        event.register("numba:compile", _Listener(_NOTICE))
    return _NOTICE
