"""Firmware packaging (issue 14): `fxdp export --format arduino|platformio|esp-idf|zephyr|cmake|make`.

Each format is taken as far as a machine without internet allows:

* arduino: library specification 1.5 fields and layout; the exported example compiled for
  arduino:avr:uno with arduino-builder against Debian's real AVR core (arduino-core-avr), its .hex
  run under simavr, its releases equal to ``m.simulate_device`` on the keyed stream;
* platformio: `pio pkg pack` accepts library.json (offline);
* esp-idf: `compote component pack` packs the component (offline); its CMakeLists.txt run against a
  stand-in idf_component_register; the esp_fill_random hook compiled against a stand-in header;
* zephyr: Kconfig parsed by kconfiglib; zephyr/CMakeLists.txt run against stand-in zephyr_library
  functions; the sys_csrand_get hook compiled against a stand-in header;
* cmake: configure, build and install the package, then find_package(fxdp) from a consumer project
  (the harness of fxdp/export/harness.py) built with the Cortex-M3 toolchain file and for the host,
  run under QEMU and natively, its releases equal to ``m.simulate``;
* docs/porting.md: every board entropy hook snippet compiles (tests/porting/: register shims).

Nothing here has run on hardware.  About a minute on a quiet machine.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

import fxdp.export as E
from fxdp.cli import main as cli_main
from fxdp.export import harness as H
from fxdp.export.formats import FORMATS, arduino as fmt_arduino

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "export_fake"))
from cases import make  # noqa: E402

MCU_FILES = {   # format -> files it must write (beside src/, README.md and the manifest)
    "make": {"Makefile", "main.c", "board/fxdp_port.h"},
    "cmake": {"CMakeLists.txt", "main.c", "board/fxdp_port.h", "cmake/fxdp-config.cmake", "cmake/cortex-m4.cmake"},
    "arduino": {"library.properties", "keywords.txt", "examples/fxdp_geometric/fxdp_geometric.ino"},
    "platformio": {"library.json"},
    "esp-idf": {"idf_component.yml", "CMakeLists.txt", "port/fxdp_esp_entropy.c", "port/fxdp_esp_entropy.h"},
    "zephyr": {"zephyr/module.yml", "zephyr/Kconfig", "zephyr/CMakeLists.txt", "port/fxdp_zephyr_entropy.c"},
}
UNIQUE = {"make": "Makefile", "cmake": "cmake/fxdp-config.cmake", "arduino": "library.properties",
          "platformio": "library.json", "esp-idf": "idf_component.yml", "zephyr": "zephyr/module.yml"}


def _rel(paths, base):
    return {str(Path(p).relative_to(base)) for p in paths}


def _run(argv, cwd=None, timeout=300, **kw):
    p = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout, **kw)
    assert p.returncode == 0, f"$ {' '.join(map(str, argv))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


# --------------------------------------------------------------------------- --format

@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """One export per format of the constant-time geometric (tables: the AVR build reads them with LPM)."""
    base = tmp_path_factory.mktemp("formats")
    m = make("geometric_ct")
    out = {}
    for f in FORMATS:
        d = base / f
        out[f] = (d, _rel(E.generate(m, "cortex-m4", d, formats=f), d))
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_writes_its_files_and_no_other(exports, fmt):
    d, rel = exports[fmt]
    assert MCU_FILES[fmt] <= rel, MCU_FILES[fmt] - rel
    others = {UNIQUE[o] for o in FORMATS if o != fmt}
    assert not (rel & others), rel & others
    assert {"README.md", ".fxdp-export.json", "src/fxdp_config.h", "src/fxdp_config.c", "src/fxdp.h"} <= rel
    man = json.loads((d / ".fxdp-export.json").read_text())
    assert man["formats"] == [fmt] and set(man["files"]) == rel - {".fxdp-export.json"}
    assert "### " in (d / "README.md").read_text()


def test_default_is_the_layout_without_format(tmp_path):
    m = make("rr_bool_ct")
    for target, fmts in (("avr-atmega328p", ["make", "cmake", "arduino"]), ("rv32imac", ["make", "cmake"])):
        a, b = tmp_path / f"{target}-default", tmp_path / f"{target}-explicit"
        ra, rb = _rel(E.generate(m, target, a), a), _rel(E.generate(m, target, b, formats=fmts), b)
        assert ra == rb
        for r in ra - {".fxdp-export.json"}:
            assert (a / r).read_bytes() == (b / r).read_bytes(), r
        assert json.loads((a / ".fxdp-export.json").read_text())["formats"] == fmts


@pytest.mark.parametrize("fmt, target, match", [
    ("nope", "host", "format must be one of make, cmake, arduino"),
    (["cmake", "esp-idf"], "host", "both write CMakeLists.txt"),
    ([], "host", "at least one"),
    ("arduino", "host", "format 'arduino' needs an AVR or Cortex-M target"),
    ("arduino", "rv32imac", "format 'arduino' needs an AVR or Cortex-M target"),
    ("esp-idf", "avr-atmega328p", "format 'esp-idf' needs a 32-bit target"),
    ("zephyr", "avr-atmega328p", "format 'zephyr' needs a 32-bit target"),
])
def test_format_errors_write_nothing(tmp_path, fmt, target, match):
    with pytest.raises(ValueError, match=match):
        E.generate(make("rr_bool_ct"), target, tmp_path / "fw", formats=fmt)
    assert not (tmp_path / "fw").exists()
    with pytest.raises(TypeError, match="format must be a string"):
        E.generate(make("rr_bool_ct"), "host", tmp_path / "fw", formats=[3])


def test_cli_format(tmp_path, capsys):
    cfg = tmp_path / "rr.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\n[target]\nname = "cortex-m0plus"\n')
    for f in FORMATS:
        assert cli_main(["export", str(cfg), "--out", str(tmp_path / f), "--format", f, "--json"]) == 0
        files = json.loads(capsys.readouterr().out)["files"]
        assert json.loads((tmp_path / f / ".fxdp-export.json").read_text())["formats"] == [f]
        assert len(files) == len(json.loads((tmp_path / f / ".fxdp-export.json").read_text())["files"]) + 1
    with pytest.raises(SystemExit):
        cli_main(["export", str(cfg), "--out", str(tmp_path / "x"), "--format", "bazel"])
    assert "invalid choice" in capsys.readouterr().err
    assert cli_main(["export", str(cfg), "--target", "host", "--out", str(tmp_path / "y"), "--format", "arduino"]) == 2
    assert "needs an AVR or Cortex-M target" in capsys.readouterr().err
