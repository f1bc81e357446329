"""Every example in README.md and the guides (docs/guide-*.md) runs, and shows what it prints.

A page's fenced ``sh`` and ``python`` blocks run in order in one fresh directory (python blocks
in this process, sharing one namespace per page; sh blocks with ``bash -e -o pipefail``), with
``fxdp`` on PATH.  A
``text`` block right after an ``<!-- output -->`` comment is the output of the runnable block
before it: each of its non-empty lines must appear in that block's stdout (spaces collapsed).

A block is not run only when an HTML comment right before it says why: ``<!-- not run: reason -->``
(installing fxdp, or running this test suite: CI does both before this test), or
``<!-- checked by tests/<file>.py::<test> -->`` (that test runs it and checks its figures; this
test checks that the named test exists).  Synopses are ``text`` blocks.
"""
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fxdp  # noqa: F401  (the examples import the fxdp this session tests, whatever the cwd)

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("guide-*.md"))
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARK = re.compile(r"^<!--\s*(not run:|checked by|output)\s*(.*?)\s*-->\s*$")


def blocks(text):
    """[(line, info, code, mark, mark_arg)] of the page's fenced blocks, in order."""
    out, lines, i, mark = [], text.split("\n"), 0, (None, None)
    while i < len(lines):
        m = _MARK.match(lines[i])
        if m:
            mark = (m.group(1), m.group(2))
            i += 1
            continue
        f = _FENCE.match(lines[i])
        if f:
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            out.append((i + 1, f.group(1), "\n".join(lines[i + 1:j]) + "\n", *mark))
            mark, i = (None, None), j + 1
            continue
        if lines[i].strip():
            mark = (None, None)
        i += 1
    return out


def _norm(s):
    return " ".join(s.split())


def _env(tmp):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
               FXDP_QUIET="1", MPLBACKEND="Agg")
    if shutil.which("fxdp") is None:         # a checkout that was never installed: the same CLI
        bin_dir = tmp / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "fxdp").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fxdp "$@"\n')
        (bin_dir / "fxdp").chmod(0o755)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    return env


def run_page(page, tmp):
    """Run the page's examples in tmp; returns the number of blocks run and outputs checked."""
    env = _env(tmp)
    work = tmp / "work"
    work.mkdir(parents=True)
    ns, last, ran, checked = {"__name__": "__doc_example__"}, None, 0, 0
    for line, info, code, mark, arg in blocks((ROOT / page).read_text()):
        where = f"{page}:{line}"
        if mark == "output":
            assert info == "text" and last is not None, f"{where}: an output block follows a runnable block"
            got = [_norm(x) for x in last.splitlines()]
            for want in filter(None, (_norm(x) for x in code.splitlines())):
                assert any(want in g for g in got), f"{where}: {want!r} not in the output:\n{last}"
            checked += 1
            continue
        if info not in ("sh", "python"):
            continue
        if mark == "not run:":
            assert arg, f"{where}: say why the block is not run"
            continue
        if mark == "checked by":
            path, _, name = arg.partition("::")
            assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.M), f"{where}: {arg}?"
            continue
        if info == "sh":
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=work, env=env,
                               capture_output=True, text=True, timeout=900)
            assert p.returncode == 0, f"{where}: exit {p.returncode}\n{code}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
            last = p.stdout
        else:
            buf, cwd = io.StringIO(), os.getcwd()
            os.chdir(work)
            try:
                with contextlib.redirect_stdout(buf):
                    exec(compile(code, where, "exec"), ns)
            finally:
                os.chdir(cwd)
            last = buf.getvalue()
        ran += 1
    return ran, checked


_IMAGE = re.compile(r"!\[[^\]]*\]\((img/[\w.-]+\.png)\)")
GUIDE_IMAGES = {"docs/guide-data.md": {"error", "account"}, "docs/guide-audit.md": {"distribution", "loss"},
                "docs/guide-ranges.md": {"cdf"}}


def png_size(data):
    """(width, height) of PNG bytes (its IHDR chunk); AssertionError when not a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def images(page):
    """[(line, path under docs/, the sh block before it)] of the page's embedded images."""
    text = (ROOT / page).read_text()
    out = []
    for m in _IMAGE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = [b for b in blocks(text) if b[0] < line and b[1] == "sh"]
        out.append((line, m.group(1), before[-1][2] if before else ""))
    return out


def check_images(page, work):
    """Each image a page embeds is committed under docs/ (a PNG with ink in it), is written by
    the `fxdp plot ... --out <it>` of the sh block right before it, and that run (in ``work``)
    wrote a PNG of the same size."""
    found = set()
    for line, rel, code in images(page):
        where = f"{page}:{line}"
        assert re.search(rf"^fxdp plot \S+ (\w+) .*--out {re.escape(rel)}\b", code, re.M), \
            f"{where}: the sh block before {rel} does not write it with fxdp plot"
        found.add(re.search(rf"^fxdp plot \S+ (\w+) .*--out {re.escape(rel)}\b", code, re.M).group(1))
        committed = (ROOT / "docs" / rel).read_bytes()
        made = (work / rel).read_bytes()
        assert png_size(committed) == png_size(made), f"{where}: {rel} is not what its command makes now " \
            f"(regenerate: python3 tools/doc_images.py)"
        assert len(committed) < 80_000, f"{where}: {rel} is {len(committed)} bytes (keep --dpi low)"
        try:
            import matplotlib.image
        except ImportError:
            continue
        img = matplotlib.image.imread(str(ROOT / "docs" / rel))[..., :3]
        assert float((img.min(axis=2) < 0.9).mean()) > 0.01, f"{where}: {rel} has an empty data area"
    return found


@pytest.mark.parametrize("page", PAGES)
def test_every_example_runs_and_shows_what_it_prints(page, tmp_path):
    ran, checked = run_page(page, tmp_path)
    assert ran >= 1, f"{page}: no example ran"
    if page != "README.md":
        assert checked >= 2, f"{page}: a guide shows and checks its outputs"
    assert check_images(page, tmp_path / "work") >= GUIDE_IMAGES.get(page, set())


def test_the_image_check_catches_a_missing_command_and_a_stale_image(tmp_path):
    page = tmp_path / "guide-y.md"
    rel = os.path.relpath(page, ROOT)
    page.write_text("```sh\necho\n```\n\n![a](img/audit-loss.png)\n")
    with pytest.raises(AssertionError, match="does not write it"):
        check_images(rel, tmp_path)
    page.write_text("```sh\nfxdp plot t.toml loss --out img/audit-loss.png\n```\n\n![a](img/audit-loss.png)\n")
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "audit-loss.png").write_bytes((ROOT / "docs/img/data-account.png").read_bytes())
    with pytest.raises(AssertionError, match="not what its command makes"):
        check_images(rel, tmp_path)


def test_the_runner_catches_a_wrong_output_and_a_failing_command(tmp_path):
    page = tmp_path / "guide-x.md"
    page.write_text("```sh\necho hello\n```\n\n<!-- output -->\n```text\ngoodbye\n```\n")
    rel = os.path.relpath(page, ROOT)
    with pytest.raises(AssertionError, match="goodbye"):
        run_page(rel, tmp_path / "a")
    page.write_text("```sh\nfalse\n```\n")
    with pytest.raises(AssertionError, match="exit 1"):
        run_page(rel, tmp_path / "b")
    page.write_text("<!-- not run: -->\n```sh\nfalse\n```\n")
    with pytest.raises(AssertionError, match="say why"):
        run_page(rel, tmp_path / "c")
