"""No developer leftovers in the tree: no tracked text file names an absolute path of somebody's
machine (a home directory, a worktree, the CI rehearsal's checkout).

What is refused, as the start of an absolute path (not inside a longer path or a URL); the paths
are written here in words, so that this file passes its own test:

* a path under the top-level directory ``work``: the worktrees of the machine fxdp is developed on;
* a user's home: under ``home`` or ``Users`` followed by a user name, Windows' ``C:`` ``Users``, or
  root's home directory;
* a path under ``/tmp`` whose name starts with ``ci``: the CI rehearsal's checkout.

What is allowed, because it names no one's machine: scratch directories under ``/tmp`` that a
documented command creates (``run_fuzz.py --out /tmp/fz``, ``-build-path /tmp/build``), the user's
own cache ``~/.cache/fxdp`` (a default, written with ``~``), install prefixes such as
``/opt/fxdp`` and system paths (``/usr/...``, ``/dev/...``).  A raw output that recorded a
checkout's path has it replaced by ``<checkout>/`` (benchmarks/results/INDEX.md says where).
"""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_START = r"(?<![\w.~/\\-])"          # the path starts here: not inside a longer path, word or URL
DEVELOPER_PATH = re.compile(
    _START + r"(?:"
    r"/(?:work|root)/"               # worktrees; root's home
    r"|/(?:home|Users)/[^/\s]+/"     # a user's home
    r"|/tmp/" r"ci\b"                # the CI rehearsal's checkout
    r"|[A-Za-z]:\\Users\\"           # a Windows home
    r")")


def developer_paths(text):
    """[(line number, line)] of the lines of text that name a developer's absolute path."""
    return [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1) if DEVELOPER_PATH.search(line)]


def tracked_text_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in out.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue                 # binary
        yield name, data.decode("utf-8", errors="replace")


def test_no_developer_path_in_a_tracked_file():
    found = [f"{name}:{i}: {line[:160]}" for name, text in tracked_text_files()
             for i, line in developer_paths(text)]
    assert not found, "absolute developer paths in tracked files:\n" + "\n".join(found)


def test_the_check_flags_developer_paths():
    # built from pieces, so this file itself holds no such path
    for s in ("cd " + "/work" + "/main/fxdp && make",
              "PYTHONPATH=" + "/work" + "/wt-numeric",
              "export FXDP_CACHE_DIR=~ && ls " + "/home" + "/alice/src/fxdp",
              "'" + "/root" + "/.pyenv/versions/3.11.7/bin/python3'",
              "(" + "/Users" + "/bob/fxdp/csrc/fxdp.h:12)",
              "`" + "/tmp" + "/ci/tests/test_cli.py`",
              "/tmp" + "/ci-rehearsal/fxdp",
              "C:" + "\\Users" + "\\carol\\fxdp"):
        assert developer_paths(s), s


def test_the_check_allows_scratch_install_and_relative_paths():
    for s in ("python3 tools/fuzz/run_fuzz.py --runs 10000000 --out /tmp/fz --json /tmp/fz1e7_batch7.json",
              "-build-path /tmp/build",
              "default `~/.cache/fxdp/`",
              "cmake --install build --prefix /opt/fxdp",
              "/usr/share/arduino/hardware, /dev/ttyACM0",
              "https://example.org" + "/work" + "/x and framework" + "/root" + "/y",
              "docs" + "/home" + "/index.md",
              "#5 in fxdp_i_refill <checkout>/csrc/fxdp_rng.c:271:13"):
        assert not developer_paths(s), s
