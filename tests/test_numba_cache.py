"""fxdp._numba_cache: a changed helper module never leaves a stale cached Numba kernel behind."""
import os
import subprocess
import sys
import textwrap
import time

from fxdp._numba_cache import drop_stale, source_stamp

HELPER = "from numba import njit\n\n@njit(cache=True)\ndef g(x):\n    return x + {delta}\n"
KERNEL = "from numba import njit\nfrom .helper import g\n\n@njit(cache=True)\ndef f(x):\n    return g(x) * 2\n"
RUN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from fxdp._numba_cache import drop_stale
    if {guard}:
        drop_stale({pkg!r})
    from toypkg.kernel import f
    print(f(1))
""")


def _make_pkg(root, delta):
    pkg = os.path.join(root, "toypkg")
    os.makedirs(pkg, exist_ok=True)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    with open(os.path.join(pkg, "kernel.py"), "w") as f:
        f.write(KERNEL)
    _write_helper(pkg, delta)
    return pkg


def _write_helper(pkg, delta):
    path = os.path.join(pkg, "helper.py")
    with open(path, "w") as f:
        f.write(HELPER.format(delta=delta))
    # a distinct mtime even on a coarse-grained file system
    t = time.time() + delta
    os.utime(path, (t, t))


def _run(root, pkg, guard, cache_dir=None):
    """f(1) in a fresh process, Numba caching in the package (cache_dir None) or in cache_dir."""
    code = RUN.format(root=root, pkg=pkg, guard=guard)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return int(out.stdout.strip())


def _cache_files(pkg):
    return [n for d, _, fs in os.walk(pkg) for n in fs if n.endswith((".nbi", ".nbc"))]


def test_unguarded_cache_is_stale_and_guard_fixes_it(tmp_path):
    # Without the guard Numba serves f compiled against the old helper: the failure this prevents.
    root = str(tmp_path / "plain")
    pkg = _make_pkg(root, delta=1)
    assert _run(root, pkg, guard=False) == 4
    _write_helper(pkg, delta=10)
    assert _run(root, pkg, guard=False) == 4          # stale: (1 + 1) * 2, not (1 + 10) * 2

    root = str(tmp_path / "guarded")
    pkg = _make_pkg(root, delta=1)
    assert _run(root, pkg, guard=True) == 4
    assert _cache_files(pkg)
    _write_helper(pkg, delta=10)
    assert _run(root, pkg, guard=True) == 22
    assert _run(root, pkg, guard=True) == 22          # and the new kernel is cached again


def test_guard_covers_numba_cache_dir(tmp_path):
    """With NUMBA_CACHE_DIR set, Numba caches there, not in the package: the same stale kernel
    without the guard, and the guard clears it there."""
    cache = tmp_path / "cache"
    root = str(tmp_path / "plain")
    pkg = _make_pkg(root, delta=1)
    assert _run(root, pkg, guard=False, cache_dir=cache) == 4
    assert not _cache_files(pkg)                       # the files are in the cache directory
    _write_helper(pkg, delta=10)
    assert _run(root, pkg, guard=False, cache_dir=cache) == 4      # stale

    root = str(tmp_path / "guarded")
    pkg = _make_pkg(root, delta=1)
    assert _run(root, pkg, guard=True, cache_dir=cache) == 4
    _write_helper(pkg, delta=10)
    assert _run(root, pkg, guard=True, cache_dir=cache) == 22
    assert _run(root, pkg, guard=True, cache_dir=cache) == 22
    from fxdp._numba_cache import numba_cache_dir_of
    assert numba_cache_dir_of(pkg, "") == []
    assert any(os.listdir(d) for d in numba_cache_dir_of(pkg, str(cache)))   # where Numba put them


def test_drop_stale_only_when_sources_change(tmp_path):
    pkg = _make_pkg(str(tmp_path), delta=1)
    cache = os.path.join(pkg, "__pycache__")
    os.makedirs(cache, exist_ok=True)
    junk = os.path.join(cache, "kernel.f-5.py311.nbi")
    open(junk, "w").close()
    assert drop_stale(pkg) == 1                       # no stamp yet: start clean
    open(junk, "w").close()
    stamp = source_stamp(pkg)
    assert drop_stale(pkg) == 0 and os.path.exists(junk)
    _write_helper(pkg, delta=2)
    assert source_stamp(pkg) != stamp
    assert drop_stale(pkg) == 1 and not os.path.exists(junk)


def test_fxdp_package_is_stamped():
    import fxdp
    from fxdp import _numba_cache
    with open(_numba_cache._STAMP) as f:
        assert f.read().strip() == source_stamp(os.path.dirname(fxdp.__file__))


def test_a_compile_says_so_once_on_a_terminal_and_nothing_elsewhere():
    import io

    import numba
    from numba.core import event

    from fxdp._numba_cache import CompileNotice

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    notices = [CompileNotice(tty), CompileNotice(pipe)]

    class Fan(event.Listener):
        def on_start(self, ev):
            for n in notices:
                n.on_start(ev)

        def on_end(self, ev):
            for n in notices:
                n.on_end(ev)

    @numba.njit
    def _fresh_kernel(x):
        return x + 1

    listener = Fan()
    event.register("numba:compile", listener)
    try:
        assert _fresh_kernel(1) == 2            # compiles: one line on the terminal
        assert _fresh_kernel(2) == 3            # compiled: nothing more
    finally:
        event.unregister("numba:compile", listener)
    lines = tty.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fxdp: compiling _fresh_kernel for this machine (once")
    assert lines[0].endswith(" s")
    assert pipe.getvalue() == ""                # not a terminal: quiet


def test_compile_stream_core_covers_the_signatures_the_fleet_kernels_call():
    """The demo compiles the keystream core before it starts its second compiling process, so
    that the child loads it from the cache: that only pays if these are exactly the types the
    fleet kernels call the core with (a signature they add here would be compiled twice)."""
    import fxdp
    from fxdp.samplers import _nb_core, _nb_lanes
    _nb_lanes.compile_stream_core()
    core = (_nb_core._block_core, _nb_core._refill, _nb_core.bits_used_nb, _nb_lanes.lane_blocks,
            _nb_lanes.restart_device)
    before = {d.__name__: set(d.signatures) for d in core}
    assert all(len(s) >= 1 for s in before.values())
    n = 300
    fxdp.make_randomized_response_bool(0.75, constant_time=True).simulate([True] * n, seed=1)
    fxdp.make_geometric(10, bounds=(10, 30), constant_time=True).simulate([20] * n, seed=1)
    fxdp.make_geometric(10, bounds=(10, 30)).simulate([20] * n, seed=1)
    after = {d.__name__: set(d.signatures) for d in core}
    assert after == before


def test_the_test_workers_compile_a_kernel_once(tmp_path):
    """tests/conftest.py's lock between the xdist workers: a worker about to compile a kernel that
    the other is compiling waits for it, then loads the kernel from Numba's cache instead of
    compiling it again.  Here the test holds the kernel's lock while a first process (no lock)
    compiles it into the cache; a second process, which takes the lock, waits until the test lets
    go and then compiles nothing."""
    import fcntl
    import hashlib

    from numba.core import types

    tests = os.path.dirname(os.path.abspath(__file__))
    (tmp_path / "toy_lock.py").write_text(textwrap.dedent("""
        import numba

        @numba.njit(cache=True)
        def total(n):
            s = 0
            for i in range(n):
                s += i
            return s
        """))
    locks = tmp_path / "locks"
    locks.mkdir()
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{tests!r}, {str(tmp_path)!r}]
        from numba.core import event
        if sys.argv[1] == "locked":
            from conftest import _compile_once_across_workers
            _compile_once_across_workers({str(locks)!r})
        compiles = []

        class Count(event.Listener):
            def on_start(self, ev):
                compiles.append(ev.data["dispatcher"].py_func.__name__)

            def on_end(self, ev):
                pass

        event.register("numba:compile", Count())
        import toy_lock
        print(toy_lock.total(10), compiles)
        """)
    key = hashlib.sha1(f"toy_lock.total{(types.int64,)}".encode()).hexdigest()
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    with open(locks / key, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = subprocess.Popen([sys.executable, "-c", script, "locked"], stdout=subprocess.PIPE, text=True,
                                   env=env)
        first = subprocess.run([sys.executable, "-c", script, "free"], capture_output=True, text=True, env=env)
        assert first.returncode == 0 and first.stdout.split()[0] == "45", first.stderr
        assert "total" in first.stdout                     # the first process compiled it
        time.sleep(1.0)
        assert waiting.poll() is None                      # the second one is still waiting for the lock
    out, _ = waiting.communicate(timeout=120)
    assert waiting.returncode == 0 and out.split() == ["45", "[]"], out   # loaded, not compiled
