"""The documentation site builds: `mkdocs build --strict` (every page of docs/ in the nav, every
internal link and anchor resolves, mkdocstrings renders the API page), offline, and the API page
has an entry for every public name of the package (`fxdp.__all__`)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def test_mkdocs_build_strict(site):
    assert (site / "index.html").is_file()
    for page in ("benchmarks", "footprint", "accuracy", "changelog", "api"):
        assert (site / page / "index.html").is_file(), page


def test_every_docs_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages == set(re.findall(r":\s*([a-z_-]+\.md)\s*$", nav, re.M))


def public_name_ids():
    """{name: the id mkdocstrings gives its entry}: the module that defines each name of fxdp.__all__."""
    import fxdp
    from fxdp.registry import _KINDS
    out = {}
    for name in fxdp.__all__:
        if name == "__version__":
            continue
        if name in ("EntropyError", "RangeError"):
            out[name] = f"fxdp.errors.{name}"
        elif name.startswith("make_"):
            out[name] = f"{_KINDS[name[len('make_'):]].module}.{name}"
        else:
            module, attr = fxdp._LAZY[name]
            out[name] = module if attr is None else f"{module}.{attr}"
    return out


def test_api_page_covers_every_public_name(site):
    html = (site / "api" / "index.html").read_text()
    ids = set(re.findall(r'id="(fxdp\.[A-Za-z0-9_.]+)"', html))
    missing = {n: i for n, i in public_name_ids().items() if i not in ids}
    assert not missing, f"docs/api.md has no entry for {missing}"


def _unindexed(results: Path) -> list[str]:
    named = set(re.findall(r"`([^`\s]+)`", (results / "INDEX.md").read_text()))
    return sorted(p.name for p in results.iterdir() if p.name != "INDEX.md" and p.name not in named)


def test_every_raw_result_is_in_the_index(tmp_path):
    """benchmarks/results/INDEX.md names every raw file there, spelled out (no patterns), with the
    command that wrote it; a file added without its row fails (checked on a copy with one more)."""
    results = ROOT / "benchmarks" / "results"
    assert _unindexed(results) == []
    copy = tmp_path / "results"
    copy.mkdir()
    (copy / "INDEX.md").write_text((results / "INDEX.md").read_text())
    (copy / "bench_new_run.log").write_text("x")
    assert _unindexed(copy) == ["bench_new_run.log"]
