"""The architecture, checked: layers import downward only, no import circles, no type switches on
mechanism classes above the mechanism families, and one registry behind every public kind list.

The import graph is read with ``ast`` (module-level and function-level imports); ``from . import x``
counts as importing the package too, as it does at run time.
"""
import ast
import fnmatch
import re
import pathlib

import pytest

import fxdp
from fxdp import registry

ROOT = pathlib.Path(fxdp.__file__).parent                  # the fxdp under test (installed in CI)
REPO = pathlib.Path(__file__).resolve().parent.parent      # this checkout: docs/, csrc/

# Layer of every module, by longest matching prefix (docs/architecture.md).
LAYERS = {
    "fxdp.errors": 0, "fxdp._numba_cache": 0, "fxdp._certified": 0, "fxdp.fixed": 0, "fxdp.conservative": 0, "fxdp.validate": 0, "fxdp._jsonout": 0,
    "fxdp.fixmath": 0, "fxdp.finite_bounds": 0,   # integer ln and CORDIC, the Gazeau bounds: math, no draws
    "fxdp.bitsource": 1, "fxdp.health": 1, "fxdp.strhash": 1, "fxdp._cffi_build": 1, "fxdp.native": 1, "fxdp._fxdp_c": 1,
    "fxdp.samplers": 2, "fxdp.generator": 2,
    "fxdp.reports": 3,
    "fxdp.mechanisms": 4, "fxdp.registry": 4,
    "fxdp.audit": 5, "fxdp.accounting": 5, "fxdp.estimate": 5, "fxdp.estimate_rappor": 5, "fxdp.fleet": 5,
    "fxdp.reportfiles": 5,
    "fxdp.plots": 6, "fxdp.config": 6, "fxdp.targets": 6, "fxdp.export": 6, "fxdp.cli": 6, "fxdp.demo": 6,
    "fxdp.__main__": 6, "fxdp.dask_engine": 6, "fxdp.scenarios": 6,
}
UPPER = ("fxdp.audit", "fxdp.accounting", "fxdp.estimate", "fxdp.fleet", "fxdp.reportfiles", "fxdp.plots", "fxdp.config", "fxdp.export", "fxdp.cli", "fxdp.dask_engine",
         "fxdp.demo")


def _modules():
    mods = {}
    for p in ROOT.rglob("*.py"):
        name = ".".join(("fxdp",) + p.relative_to(ROOT).with_suffix("").parts)
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        mods[name] = p
    return mods


def _layer(name):
    best = max((k for k in LAYERS if name == k or name.startswith(k + ".")), key=len, default=None)
    return None if best is None else LAYERS[best]


def _graph(mods):
    graph = {m: set() for m in mods}
    for name, p in mods.items():
        pkg = name if p.name == "__init__.py" else name.rsplit(".", 1)[0]
        for n in ast.walk(ast.parse(p.read_text())):
            targets = []
            if isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level:
                    parts = pkg.split(".")[: len(pkg.split(".")) - (n.level - 1)]
                    base = ".".join(parts + ([n.module] if n.module else []))
                targets = [base] + [f"{base}.{a.name}" for a in n.names]
            elif isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            for t in targets:
                if t in mods and t != name and t != "fxdp":
                    graph[name].add(t)
    return graph


def _cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer():
    missing = [m for m in _modules() if m != "fxdp" and _layer(m) is None]
    assert missing == []


def test_no_import_circles():
    assert _cycles(_graph(_modules())) == []


def test_imports_run_down_the_layers_only():
    graph = _graph(_modules())
    upward = [(a, b) for a, bs in graph.items() for b in bs
              if a != "fxdp" and _layer(b) > _layer(a)]
    assert upward == []


def test_the_checks_catch_a_circle_and_an_upward_import():
    graph = {"fxdp.audit": {"fxdp.fleet"}, "fxdp.fleet": {"fxdp.audit"}, "fxdp.reports": {"fxdp.cli"},
             "fxdp.cli": set()}
    assert _cycles(graph) == [["fxdp.audit", "fxdp.fleet"]]
    assert _layer("fxdp.cli") > _layer("fxdp.reports")


def _mechanism_classes(mods):
    """Names of the classes that derive from Mechanism (a fixpoint over the class bases)."""
    bases = {}
    for p in mods.values():
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ClassDef):
                bases[n.name] = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in n.bases}
    names = {"Mechanism"}
    while True:
        more = {c for c, bs in bases.items() if bs & names} - names
        if not more:
            return names - {"Mechanism"}
        names |= more


def test_no_type_switch_on_a_mechanism_class_above_the_families_or_in_kernels():
    mods = _modules()
    classes = _mechanism_classes(mods)
    assert {"Geometric", "RapporFull", "LaplaceFixed"} <= classes
    found = []
    for name, p in mods.items():
        if not (name.startswith(UPPER) or "_kernels" in name or "_device" in name or name.endswith("_fleet")):
            continue
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "isinstance" and len(n.args) == 2:
                used = {x.id if isinstance(x, ast.Name) else getattr(x, "attr", "") for x in ast.walk(n.args[1])}
                if used & classes:
                    found.append(f"{p.name}:{n.lineno}")
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                imported = {a.name for a in n.names}
                if imported & classes:
                    found.append(f"{p.name}:{n.lineno} imports {sorted(imported & classes)}")
    assert found == []


def _kind_literals(source, kinds):
    """(line, kind) of every string constant in source equal to a mechanism kind, except a dict
    display's key and a subscript's index: those name a field of a report (the demo's JSON key
    ``report["geometric"]``), not a mechanism to switch on."""
    tree = ast.parse(source)
    fields = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Dict):
            fields |= {id(k) for k in n.keys if k is not None}
        elif isinstance(n, ast.Subscript):
            fields.add(id(n.slice))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in kinds
            and id(n) not in fields]


def test_no_mechanism_kind_named_in_layers_5_and_6():
    """The upper layers ask the registry and the mechanism protocol (fxdp.mechanisms.base.answers,
    worst_case_mse, readings_input, ...), never a kind by name: a kind string in their code is
    family knowledge in the wrong place."""
    kinds = set(registry.kinds())
    found = []
    for name, p in _modules().items():
        if (_layer(name) or 0) >= 5:
            found += [f"{p.relative_to(ROOT.parent)}:{line}: {kind!r}" for line, kind in
                      _kind_literals(p.read_text(), kinds)]
    assert found == []


def test_the_kind_check_catches_a_kind_switch():
    src = 'def f(m, r):\n    if m.kind == "laplace_fixed":\n        return r["geometric"]\n    return {"geometric": 1}\n'
    assert _kind_literals(src, {"laplace_fixed", "geometric"}) == [(2, "laplace_fixed")]


# --------------------------------------------------------------------------
# one registry

def test_every_kind_has_its_fxdp_make_constructor():
    for kind in registry.kinds():
        make = getattr(fxdp, f"make_{kind}")
        assert make is registry.constructor(kind)
        assert f"make_{kind}" in dir(fxdp)
        assert getattr(fxdp.mechanisms, f"make_{kind}") is make
    assert fxdp.make_naive_laplace_fixed(Fraction_half(), sensitivity=2).kind == "naive_laplace_fixed"
    with pytest.raises(AttributeError):
        fxdp.make_no_such_kind


def Fraction_half():
    from fractions import Fraction
    return Fraction(1, 2)


def test_config_cli_and_export_read_the_registry():
    import json
    import subprocess
    import sys

    from fxdp import config
    from fxdp.export import exportable_kinds
    assert list(config.constructors()) == registry.kinds()
    assert exportable_kinds() == [k for k in registry.kinds() if registry.get(k).exportable]
    assert "naive_laplace_fixed" not in exportable_kinds() and "rappor_full" in exportable_kinds()
    out = subprocess.run([sys.executable, "-m", "fxdp", "mechanisms", "--json"], capture_output=True, text=True,
                         check=True).stdout
    rows = json.loads(out)["mechanisms"]
    assert [r["kind"] for r in rows] == registry.kinds()
    assert all(r["constructor"] == f"fxdp.make_{r['kind']}" for r in rows)


def test_register_refuses_a_taken_name_and_bad_names():
    with pytest.raises(ValueError, match="already registered"):
        registry.register("geometric", "somewhere.else")
    with pytest.raises(ValueError, match="identifier"):
        registry.register("not a name", "m")
    with pytest.raises(ValueError, match="unknown mechanism kind 'nope'; valid kinds: (\\w+, )*geometric, "):
        registry.get("nope")


# --------------------------------------------------------------------------
# public functions that take a mechanism refuse anything else with a TypeError

def _entry_points(tmp_path):
    import numpy as np

    from fxdp import config, estimate, estimate_rappor, export, fleet, plots
    return {
        "fxdp.audit": lambda m: fxdp.audit(m),
        "export.generate": lambda m: export.generate(m, "host", tmp_path / "fw"),
        "export.verify_on_host": lambda m: export.verify_on_host(m, tmp_path),
        "export.device_spec": lambda m: export.device_spec(m),
        "plots.output_distribution": lambda m: plots.output_distribution(m),
        "plots.plot_output_distribution": lambda m: plots.plot_output_distribution(m, path=None),
        "plots.privacy_loss": lambda m: plots.privacy_loss(m),
        "plots.plot_privacy_loss": lambda m: plots.plot_privacy_loss(m, path=None),
        "plots.estimator_error": lambda m: plots.estimator_error(m, sizes=(10,)),
        "plots.default_pair": lambda m: plots.default_pair(m),
        "fleet.simulate_fleet": lambda m: fleet.simulate_fleet(m, 10, 0),
        "estimate.estimate": lambda m: estimate.estimate(np.zeros(3), m),
        "estimate.rr_bool_frequency": lambda m: estimate.rr_bool_frequency(np.zeros(3), m),
        "estimate.rr_frequencies": lambda m: estimate.rr_frequencies(np.zeros(3), m),
        "estimate.rappor_counts": lambda m: estimate.rappor_counts(np.zeros((3, 2)), m),
        "estimate.geometric_sum": lambda m: estimate.geometric_sum(np.zeros(3), m),
        "estimate.bounded_geometric_mean": lambda m: estimate.bounded_geometric_mean(np.zeros(3), m),
        "estimate.fixed_point_mean": lambda m: estimate.fixed_point_mean(np.zeros(3), m),
        "estimate_rappor.bloom_counts": lambda m: estimate_rappor.bloom_counts(np.zeros((3, 4)), m),
        "estimate_rappor.decode": lambda m: estimate_rappor.decode(np.zeros((3, 4)), m, ["a"]),
        "estimate_rappor.audit_rappor_full": lambda m: estimate_rappor.audit_rappor_full(m),
        "config.dumps": lambda m: config.dumps(m),
        "config.mechanism_to_table": lambda m: config.mechanism_to_table(m),
    }


@pytest.mark.parametrize("bad", ["rr", None, 3, object()])
def test_a_non_mechanism_gets_a_type_error_saying_what_is_accepted(tmp_path, bad):
    for name, call in _entry_points(tmp_path).items():
        with pytest.raises(TypeError, match="mechanism") as ei:
            call(bad)
        assert "make_" in str(ei.value), name
    assert not (tmp_path / "fw").exists()


def test_a_named_estimator_refuses_another_family():
    from fxdp import estimate
    m = fxdp.make_randomized_response_bool(0.75)
    with pytest.raises(TypeError, match="rappor_counts estimates for rappor mechanisms, got a "
                                        "'randomized_response_bool'"):
        estimate.rappor_counts([[0, 1]], m)


def test_no_long_template_in_export_code():
    """C, make and CMake text lives in fxdp/export/template_files (package data a C tool can
    read), not in Python strings: none in fxdp/export/ is longer than 40 lines."""
    long = []
    for p in (ROOT / "export").rglob("*.py"):
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.count("\n") > 40:
                long.append(f"{p.relative_to(ROOT.parent)}:{n.lineno} ({n.value.count(chr(10))} lines)")
    assert long == []
    from fxdp.export.templates import MAIN_C, template
    assert "@@target@@" in MAIN_C and template("fxdp_harness.c.in").startswith("/* fxdp_harness.c")


def test_no_two_modules_share_a_name():
    stems = {}
    for name in _modules():
        stems.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    shared = {s: sorted(ns) for s, ns in stems.items() if len(ns) > 1 and s not in ("__init__", "__main__")}
    assert shared == {}, shared


def _architecture_rows():
    """{layer: the text of its row} of docs/architecture.md's layer table."""
    doc = (REPO / "docs" / "architecture.md").read_text()
    return {int(n): row for n, row in re.findall(r"^\| (\d) ([^\n]*)$", doc, re.M)}


def test_docstrings_and_c_banners_use_the_architecture_numbers():
    """One numbering: a module docstring whose first line names a layer names its own (LAYERS,
    docs/architecture.md); csrc/fxdp.h's banners and each C file's header comment name the layer
    whose row of docs/architecture.md lists them."""
    rows = _architecture_rows()
    assert sorted(rows) == list(range(7))
    wrong = []
    for name, p in _modules().items():
        first = (ast.get_docstring(ast.parse(p.read_text())) or "").split("\n", 1)[0]
        m = re.match(r"layer (\d)", first, re.I) or re.search(r"\(layer (\d)\)", first, re.I)
        if m and int(m.group(1)) != _layer(name):
            wrong.append(f"{name}: says layer {m.group(1)}, is {_layer(name)}")
    csrc = REPO / "csrc"
    for n, title in re.findall(r"/\* ---- layer (\d): ([a-z ]+)", (csrc / "fxdp.h").read_text()):
        if not any(w in rows[int(n)] for w in title.split() if len(w) >= 4):
            wrong.append(f"fxdp.h banner 'layer {n}: {title}' is not in that row of docs/architecture.md")
    c_layer = {}
    for n, row in rows.items():
        for f in re.findall(r"`(fxdp_[a-z0-9_*]+\.c)`", row):
            c_layer[f] = n
    for p in sorted(csrc.glob("*.c")):
        head = p.read_text()[:400]
        m = re.search(r"layer (\d)", head)
        if m:
            want = [n for f, n in c_layer.items() if fnmatch.fnmatch(p.name, f)]
            if want != [int(m.group(1))]:
                wrong.append(f"{p.name}: says layer {m.group(1)}, docs/architecture.md lists it under {want}")
    assert wrong == []
    assert _layer("fxdp.fixed") == 0 and "fxdp_fixed.c" in c_layer


def _long_modules_without_a_reason(root):
    """Modules over 700 lines whose docstring does not open a paragraph with '(Over 700 lines'."""
    out = []
    for p in sorted(root.rglob("*.py")):
        text = p.read_text()
        if text.count("\n") > 700 and "(Over 700 lines" not in (ast.get_docstring(ast.parse(text)) or ""):
            out.append(str(p.relative_to(root)))
    return out


def test_no_long_module_without_a_stated_reason(tmp_path):
    assert _long_modules_without_a_reason(ROOT) == []
    (tmp_path / "long.py").write_text('"""A module."""\n' + "x = 1\n" * 701)       # the check can fail
    assert _long_modules_without_a_reason(tmp_path) == ["long.py"]


def test_the_mechanisms_folder_has_at_most_12_files_and_a_folder_per_group():
    """One folder per group of families; what sits at the top is what every family shares."""
    top = sorted(p.name for p in (ROOT / "mechanisms").iterdir() if p.is_file())
    assert len(top) <= 12, top
    for group in ("oracles", "memoized", "readings", "additive", "finite"):
        assert (ROOT / "mechanisms" / group / "__init__.py").is_file(), group



# --------------------------------------------------------------------------
# the worked example of "Adding a mechanism" (docs/architecture.md)

EXAMPLE = REPO / "docs" / "examples" / "coin_toss_family.patch"
GENERATED = {"README.md", "docs/api.md", "csrc/host/fxdp_host.h", "csrc/host/fxdp_host_fleets.h",
             "tools/eva/drivers/generated.c"}


def _patched_files(patch_text):
    return re.findall(r"^diff --git a/(\S+) b/", patch_text, re.M)


def test_the_worked_example_adds_a_family_in_7_files_and_the_rest_is_generated(tmp_path):
    """docs/examples/coin_toss_family.patch is the coin toss added inside fxdp by the documented
    steps: its 7 hand-edited files apply to this checkout, and the two generators then write every
    other file a family needs (README's row, the API entry, the host fleet, the Eva drivers), after
    which their checks pass.  Can fail: a step that needs another hand edit, or a stale example."""
    import shutil
    import subprocess
    import sys
    files = _patched_files(EXAMPLE.read_text())
    assert len(files) == 7 and not set(files) & GENERATED, files
    tree = tmp_path / "tree"
    shutil.copytree(REPO, tree, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.so", "site", ".pytest_cache"))
    subprocess.run(["git", "apply", str(EXAMPLE)], cwd=tree, check=True, capture_output=True)
    before = {f: (tree / f).read_bytes() for f in GENERATED}
    for tool in ("gen_c_glue.py", "gen_readme_kinds.py"):
        subprocess.run([sys.executable, f"tools/{tool}"], cwd=tree, check=True, capture_output=True)
    changed = {f for f in GENERATED if (tree / f).read_bytes() != before[f]}
    assert changed == GENERATED
    for tool in ("gen_c_glue.py", "gen_readme_kinds.py"):
        res = subprocess.run([sys.executable, f"tools/{tool}", "--check"], cwd=tree, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    assert "make_coin_toss" in (tree / "docs" / "api.md").read_text()
    assert _patched_files("diff --git a/x b/x\ndiff --git a/README.md b/README.md\n") == ["x", "README.md"]
