"""Numba's on-disk cache (``cache=True``) must never serve a kernel compiled from other sources.

Numba keys a cached kernel by its own file's timestamp and size only; a helper inlined from another
module (every fleet kernel inlines the bit source of ``fxdp/samplers/_nb_core.py``) is not tracked.
An upgrade or an edit that changes only the helper would then run the old kernel.  So the package
keeps one stamp: a digest of (path, size, mtime) over its Python sources.  On import, a different
stamp removes every ``*.nbi`` / ``*.nbc`` file in the package's ``__pycache__`` directories before
any kernel is loaded.  A stat per file, no reads: about a millisecond.

Where the package directory is read-only, Numba caches in its user-wide directory instead; that
case is not covered here (docs/install note: set ``NUMBA_CACHE_DIR`` per version).
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


def drop_stale(package=_PACKAGE, stamp_path=None):
    """Remove Numba cache files under ``package`` if its sources changed since the last stamp.

    Returns the number of files removed.  Never raises on a file-system error (a read-only install
    keeps what it has)."""
    stamp_path = stamp_path or os.path.join(package, "__pycache__", "fxdp-numba-sources.stamp")
    try:
        now = source_stamp(package)
        try:
            with open(stamp_path) as f:
                if f.read().strip() == now:
                    return 0
        except OSError:
            pass
        removed = 0
        for root, dirs, files in os.walk(package):
            if os.path.basename(root) != "__pycache__":
                continue
            for name in files:
                if name.endswith((".nbi", ".nbc")):
                    try:
                        os.remove(os.path.join(root, name))
                        removed += 1
                    except OSError:
                        pass
        os.makedirs(os.path.dirname(stamp_path), exist_ok=True)
        tmp = f"{stamp_path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(now + "\n")
        os.replace(tmp, stamp_path)
        return removed
    except OSError:
        return 0
