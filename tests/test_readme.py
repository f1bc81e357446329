"""README.md stays true: every config row of its kind table builds and states the report size and
C export the code gives, the TOML example loads, and the ten-line API tour runs (seeded lines give
the printed figures).  docs/accounting.md holds the accounting table the code computes."""
import re
from pathlib import Path

import pytest

from fxdp.config import config_from_dict, load_config

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def kind_rows():
    rows = re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \| (.+) \|$", README, re.M)
    out = []
    for kind, kind2, keys in rows:
        if "=" not in keys:
            continue
        body = "\n".join(m for m in re.findall(r"`([a-z_][a-z0-9_]* = [^`]+)`", keys))
        out += [(k, body) for k in (kind, kind2) if k]
    return out


def test_every_kind_has_a_row():
    from fxdp.config import constructors
    assert {k for k, _ in kind_rows()} == set(constructors())


@pytest.mark.parametrize("kind,body", kind_rows(), ids=[k for k, _ in kind_rows()])
def test_kind_table_rows_build(kind, body):
    data = tomllib.loads(f'[mechanism]\nkind = "{kind}"\n{body}\n')
    cfg = config_from_dict(data)
    assert cfg.mechanism.kind == kind
    assert cfg.mechanism.epsilon > 0


def kind_table_cells():
    """{kind: (report bits cell, C export cell, keys body)} from the kind table's columns."""
    out = {}
    for line in README.splitlines():
        m = re.match(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \| (.+) \|$", line)
        if not m or "=" not in m.group(3):
            continue
        cells = [c.strip() for c in m.group(3).split(" | ")]
        assert len(cells) == 4, line       # paper | report bits | C export | example keys
        kinds = [k for k in m.group(1, 2) if k]
        body = "\n".join(re.findall(r"`([a-z_][a-z0-9_]* = [^`]+)`", cells[3]))
        bits = cells[1].split(", ")
        for i, k in enumerate(kinds):
            out[k] = (bits[i] if len(bits) == len(kinds) else cells[1], cells[2], body)
    return out


def test_kind_table_report_bits_and_export_are_the_codes():
    from fxdp.export import exportable_kinds
    exportable = set(exportable_kinds())
    cells = kind_table_cells()
    assert set(cells) == {k for k, _ in kind_rows()}
    for kind, (bits, export, body) in cells.items():
        m = config_from_dict(tomllib.loads(f'[mechanism]\nkind = "{kind}"\n{body}\n')).mechanism
        if kind in exportable:
            assert export == "yes", kind
            assert bits == str(m.report_layout().bits), (kind, bits)
        else:
            assert export.startswith("no"), kind
            assert bits.startswith("none"), kind
            with pytest.raises(ValueError):
                m.report_layout()


def _gen_readme_kinds():
    import sys
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_readme_kinds
    finally:
        sys.path.pop(0)
    return gen_readme_kinds


def test_kind_table_is_generated_from_the_family_modules(monkeypatch):
    """README's table is what tools/gen_readme_kinds.py writes from the registry and each module's
    README_ROWS; can fail: an edited module row makes it stale, a kind without a row is an error."""
    gen = _gen_readme_kinds()
    assert gen.render(README) == README, "run python3 tools/gen_readme_kinds.py"
    from fxdp.mechanisms.oracles import rappor
    paper, keys = rappor.README_ROWS["rappor"]
    monkeypatch.setitem(rappor.README_ROWS, "rappor", (paper, keys.replace("`k = 64`", "`k = 32`")))
    assert "| `rappor` | " + paper + " | 32 | yes |" in gen.render(README)
    monkeypatch.delitem(rappor.README_ROWS, "rappor")
    with pytest.raises(ValueError, match="no README_ROWS"):
        gen.render(README)


def test_api_constructor_list_is_generated_from_the_registry(monkeypatch):
    """docs/api.md lists make_<kind> of every registered kind, under its group folder's title, as
    tools/gen_readme_kinds.py writes it; can fail: a kind registered by a new family module of
    fxdp.mechanisms makes the page stale, and a plug-in outside fxdp.mechanisms does not."""
    gen = _gen_readme_kinds()
    api = (ROOT / "docs" / "api.md").read_text()
    assert gen.render_api(api) == api, "run python3 tools/gen_readme_kinds.py"
    assert "::: fxdp.mechanisms.oracles.rappor.make_rappor\n" in api
    from fxdp import registry
    monkeypatch.setattr(registry, "registered", lambda: ["rappor", "new_kind", "plug_in"])
    modules = {"rappor": "fxdp.mechanisms.oracles.rappor", "new_kind": "fxdp.mechanisms.sketches.new_kind",
               "plug_in": "elsewhere.plug_in"}
    monkeypatch.setattr(registry, "get", lambda k: type("E", (), {"module": modules[k]}))
    fresh = gen.render_api(api)
    assert fresh != api and "### sketches\n\n::: fxdp.mechanisms.sketches.new_kind.make_new_kind\n" in fresh
    assert "plug_in" not in fresh


def test_toml_example_loads(tmp_path):
    (block,) = re.findall(r"```toml\n(.*?)```", README, re.S)
    p = tmp_path / "c.toml"
    p.write_text(block)
    cfg = load_config(p)
    assert cfg.target == "avr-atmega328p" and cfg.simulation == {"devices": 1000000, "seed": 42, "stream_version": 2}
    assert cfg.mechanism.privacy_map(20) == 2.0


def test_api_tour_runs(tmp_path, monkeypatch):
    block = README.split("## The Python API in ten lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", block, re.S).group(1)
    lines = code.strip().splitlines()
    assert len(lines) <= 10
    monkeypatch.chdir(tmp_path)
    ns = {}
    results = []
    for line in lines:
        stmt = line.split("  #")[0].rstrip()
        try:
            results.append(eval(stmt, ns))
        except SyntaxError:
            exec(stmt, ns)
            results.append(None)
    # the seeded lines print what the README says
    assert results[3] == (2.0, 32)
    est = results[6]
    assert f"{est.estimate:.4f} ± {est.stderr:.4f}" in lines[6]
    assert f"(true {ns['temps'].mean():.4f})" in lines[6]
    assert f"{results[7]:.10f}" in lines[7] and results[7] <= 2.0
    assert results[9] == {"releases": 10000, "mismatches": 0} and str(results[9]) in lines[9]
    assert (tmp_path / "fw" / "src" / "fxdp_config.h").is_file()


def test_accounting_table_is_what_the_code_computes():
    import importlib.util
    path = ROOT / "benchmarks" / "accounting_table.py"
    spec = importlib.util.spec_from_file_location("accounting_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    table = mod.table()
    assert table in (ROOT / "docs" / "accounting.md").read_text()
    assert table.count("|") > 20


def test_install_section_states_what_a_fresh_machine_needs():
    """The first-trial findings of issue 31: README's install section names a virtual environment,
    the Python versions pyproject admits, the C compiler, every extra pyproject defines, and the
    exact message rappor_full's decoder gives without scipy (with its extra)."""
    install = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    low = pyproject["requires-python"].removeprefix(">=")
    assert "python3 -m venv" in install and "virtual environment" in install
    assert f"Python {low} or newer" in install and f'requires-python = "{pyproject["requires-python"]}"' in install
    assert "C compiler" in install
    for extra in pyproject["optional-dependencies"]:
        assert f"[{extra}]" in install or f"fxdp[{extra}]" in install, f"README's install section omits the {extra} extra"
    src = (ROOT / "fxdp/mechanisms/memoized/rappor_full_estimate.py").read_text()
    msg = re.search(r'ImportError\("(candidate decoding needs scipy)[^"]*(fxdp\[server\])', src)
    assert msg and msg.group(1) in install and msg.group(2) in install
