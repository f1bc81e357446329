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


def test_format_type_error(tmp_path):
    with pytest.raises(TypeError, match="format must be a string"):
        E.generate(make("rr_bool_ct"), "host", tmp_path / "fw", formats=[3])
    assert not (tmp_path / "fw").exists()


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


# --------------------------------------------------------------------------- Arduino (real core, simavr)

ARDUINO_HW = Path("/usr/share/arduino/hardware")          # Debian arduino-core-avr
ARDUINO_BUILTIN = Path("/usr/share/arduino-builder")       # Debian arduino-builder: ctags recipe (platform.txt)
# Debian's avr-gcc 5.4 <float.h> defines DECIMAL_DIG only for C99, not for C++11: the core's WString.cpp
# needs it (the same work-around is in docs/export.md and the export's README).
ARDUINO_WORKAROUND = "-DDECIMAL_DIG=__DECIMAL_DIG__"
ARDUINO_CASES = ["rr_kary_ct", "geometric_ct", "rappor_ct", "laplace_fixed"]
REPLAY_SEED = 0x2026_1125            # the sketch's keyed stream {seed, 0, ..., 0}
REPLAY_N = 64


def arduino_compile(lib_dir: Path, sketch: Path, build: Path, defines=()) -> Path:
    """arduino-builder for arduino:avr:uno against Debian's core; returns the .hex."""
    build.mkdir(parents=True, exist_ok=True)
    extra = " ".join([ARDUINO_WORKAROUND, *defines])
    _run(["arduino-builder", "-compile", "-verbose", "-hardware", ARDUINO_HW, "-hardware", ARDUINO_BUILTIN,
          "-tools", "/usr/bin", "-libraries", lib_dir, "-fqbn", "arduino:avr:uno", "-build-path", build,
          f"-prefs=compiler.cpp.extra_flags={extra}", sketch])
    return build / f"{sketch.name}.hex"


@pytest.fixture(scope="module")
def arduino_runs(tmp_path_factory):
    """{case: (export dir, .hex, simavr output lines)}: each example built with the replay define and run."""
    base = tmp_path_factory.mktemp("arduino")
    out = {}
    for case in ARDUINO_CASES:
        m = make(case)
        libs = base / case / "libraries"
        lib = libs / f"fxdp_{m.kind}_avr_atmega328p"
        E.generate(m, "avr-atmega328p", lib, formats="arduino")
        sketch = lib / "examples" / f"fxdp_{m.kind}" / f"fxdp_{m.kind}.ino"
        hexfile = arduino_compile(libs, sketch, base / case / "build",
                                  [f"-DFXDP_EXAMPLE_REPLAY_SEED={REPLAY_SEED:#x}u"])
        p = subprocess.run(["timeout", "120", "simavr", "-m", "atmega328p", "-f", "16000000", str(hexfile)],
                           capture_output=True, text=True)
        text = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr)
        out[case] = (lib, hexfile, text.splitlines())
    return out


def _replay_expected(m) -> list[str]:
    """m.simulate_device on the sketch's replay: device k, example input k % EXAMPLE_RELEASES."""
    spec = E.device_spec(m)
    devs = np.arange(REPLAY_N, dtype=np.uint64)
    values = H.input_model(m, spec).for_simulate(devs % np.uint64(8), E.firmware.EXAMPLE_SALT)
    outs = np.asarray(m.simulate_device(values, REPLAY_SEED, device_ids=devs)).reshape(REPLAY_N, -1)
    if outs.dtype == bool:
        outs = outs.astype(np.int64)
    return [" ".join(H.output_line([v], spec.output["ctype"]) for v in row) for row in outs.tolist()]


@pytest.mark.parametrize("case", ARDUINO_CASES)
def test_arduino_example_on_the_real_core_matches_simulate(arduino_runs, case):
    _, hexfile, lines = arduino_runs[case]
    assert hexfile.is_file() and hexfile.stat().st_size > 1000
    assert any("fxdp replay end" in ln for ln in lines), lines[-5:]
    got = [re.match(r"R ((?:[0-9a-f]+ ?)+)", ln) for ln in lines if ln.startswith("R ")]
    got = [g.group(1).strip() if g else None for g in got]
    want = _replay_expected(make(case))
    assert len(got) == REPLAY_N
    bad = [(k, w, g) for k, (w, g) in enumerate(zip(want, got)) if w != g]
    assert not bad, f"{case}: {len(bad)} of {REPLAY_N} releases differ from m.simulate, first {bad[:3]}"


def test_arduino_example_as_generated_fails_closed(tmp_path):
    """Without the replay define the sketch's entropy hook fails closed: it says so and releases nothing."""
    m = make("rr_bool_ct")
    lib = tmp_path / "libraries" / "fxdp_rr"
    E.generate(m, "avr-atmega328p", lib, formats="arduino")
    hexfile = arduino_compile(tmp_path / "libraries", lib / "examples" / f"fxdp_{m.kind}" / f"fxdp_{m.kind}.ino",
                              tmp_path / "build")
    p = subprocess.run(["timeout", "3", "simavr", "-m", "atmega328p", "-f", "16000000", str(hexfile)],
                       capture_output=True, text=True)
    text = p.stdout + p.stderr
    assert "entropy hook or health test failed; nothing will be released" in text
    assert "fxdp replay" not in text and not re.search(r"^\S*R [0-9a-f]", text, re.M)


def test_arduino_library_specification(arduino_runs):
    """library.properties has every field the 1.5 specification requires, with valid values; the layout
    is src/ + examples/<Name>/<Name>.ino + keywords.txt, and every keyword names something in the headers."""
    lib, _, _ = arduino_runs["geometric_ct"]
    props = dict(ln.split("=", 1) for ln in (lib / "library.properties").read_text().splitlines()
                 if ln and not ln.startswith("#"))
    assert set(fmt_arduino.REQUIRED_FIELDS) <= set(props), set(fmt_arduino.REQUIRED_FIELDS) - set(props)
    assert all(props[k].strip() for k in fmt_arduino.REQUIRED_FIELDS)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 _.-]*", props["name"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", props["version"])
    assert props["category"] in {"Display", "Communication", "Signal Input/Output", "Sensors", "Device Control",
                                 "Timing", "Data Storage", "Data Processing", "Other"}
    assert props["architectures"] == "avr" and props["includes"] == "fxdp_config.h"
    assert (lib / "src" / "fxdp_config.h").is_file()
    assert not list(lib.glob("*.c")) and not (lib / "utility").exists()     # 1.5: sources only in src/
    for ex in (lib / "examples").iterdir():
        assert (ex / f"{ex.name}.ino").is_file()
    headers = "".join(h.read_text() for h in (lib / "src").glob("*.h"))
    kw = [ln.split("\t") for ln in (lib / "keywords.txt").read_text().splitlines() if ln and not ln.startswith("#")]
    assert kw and all(len(k) == 2 and k[1] in ("KEYWORD1", "KEYWORD2", "LITERAL1") for k in kw)
    assert all(re.search(rf"\b{k[0]}\b", headers) for k in kw), [k for k in kw if k[0] not in headers]


# --------------------------------------------------------------------------- PlatformIO, ESP-IDF, Zephyr

SHIMS = HERE / "porting" / "shims"
C_CHECK = ["gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Wconversion", "-Werror", "-c"]


def _tool_env(tmp_path):
    """pio and compote keep state under HOME / PLATFORMIO_CORE_DIR: a private one per test."""
    import os
    return dict(os.environ, HOME=str(tmp_path / "home"), PLATFORMIO_CORE_DIR=str(tmp_path / "pio-core"))


def _compile_all(sources, include_dirs, out_dir):
    """Compile each C file with the host compiler (strict flags): the package's sources are complete."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for s in sources:
        _run([*C_CHECK, *(f"-I{d}" for d in include_dirs), s, "-o", out_dir / (Path(s).stem + ".o")])


def test_platformio_pkg_pack(exports, tmp_path):
    d, rel = exports["platformio"]
    man = json.loads((d / "library.json").read_text())
    assert man["build"]["srcDir"] == "src" and man["headers"] == "fxdp_config.h"
    _run(["pio", "pkg", "pack", "-o", tmp_path, d], env=_tool_env(tmp_path))
    (tgz,) = tmp_path.glob("*.tar.gz")
    assert tgz.name == f"{man['name']}-{man['version']}.tar.gz"
    with tarfile.open(tgz) as tf:
        names = set(tf.getnames())
        packed = json.load(tf.extractfile("library.json"))
    assert {r for r in rel if r.startswith("src/")} <= names and packed["name"] == man["name"]
    # the check can fail: pio refuses a manifest with a bad field
    bad = tmp_path / "bad"
    shutil.copytree(d, bad)
    (bad / "library.json").write_text(json.dumps(dict(man, version="one point oh")))
    p = subprocess.run(["pio", "pkg", "pack", "-o", tmp_path / "badout", bad], capture_output=True, text=True,
                       env=_tool_env(tmp_path))
    assert p.returncode != 0 and "version" in (p.stdout + p.stderr).lower()


def test_esp_idf_component_pack_and_cmake(exports, tmp_path):
    d, rel = exports["esp-idf"]
    _run(["compote", "component", "pack", "--name", "fxdp", "--dest-dir", tmp_path / "dist"], cwd=d,
         env=_tool_env(tmp_path))
    (tgz,) = (tmp_path / "dist").glob("*.tgz")
    with tarfile.open(tgz) as tf:
        names = {n.lstrip("./") for n in tf.getnames()}
    assert {"idf_component.yml", "CMakeLists.txt", "port/fxdp_esp_entropy.c"} <= names
    assert {r for r in rel if r.startswith("src/")} <= names
    # CMakeLists.txt against a stand-in idf_component_register: what it registers exists and compiles
    script = tmp_path / "idf_stub.cmake"
    script.write_text(
        "function(idf_component_register)\n"
        "  cmake_parse_arguments(A \"\" \"\" \"SRCS;INCLUDE_DIRS;REQUIRES;PRIV_REQUIRES\" ${ARGN})\n"
        f"  file(WRITE \"{tmp_path}/registered.txt\" \"${{A_SRCS}}\\n${{A_INCLUDE_DIRS}}\\n${{A_PRIV_REQUIRES}}\\n\")\n"
        "endfunction()\n"
        f"include(\"{d}/CMakeLists.txt\")\n")
    _run(["cmake", "-P", script])
    srcs, incs, priv = [ln.split(";") for ln in (tmp_path / "registered.txt").read_text().splitlines()]
    lib = sorted(r for r in rel if r.startswith("src/") and r.endswith(".c"))
    assert sorted(srcs) == sorted(lib + ["port/fxdp_esp_entropy.c"]) and incs == ["src", "port"]
    assert priv == ["esp_hw_support"]
    _compile_all([d / s for s in srcs], [d / i for i in incs] + [SHIMS], tmp_path / "obj")
    assert "esp_fill_random(out, n)" in (d / "port/fxdp_esp_entropy.c").read_text()


def test_zephyr_module_kconfig_and_cmake(exports, tmp_path):
    import kconfiglib
    d, rel = exports["zephyr"]
    assert "cmake: zephyr" in (d / "zephyr/module.yml").read_text()
    assert "kconfig: zephyr/Kconfig" in (d / "zephyr/module.yml").read_text()
    top = tmp_path / "Kconfig"
    # CSPRNG_ENABLED stands in for the symbol of Zephyr's subsys/random/Kconfig (sys_csrand_get exists)
    top.write_text(f'mainmenu "test"\nconfig CSPRNG_ENABLED\n\tbool "stand-in"\nsource "{d}/zephyr/Kconfig"\n')
    kconf = kconfiglib.Kconfig(str(top), warn_to_stderr=False)
    assert kconf.warnings == []
    fxdp, csrand, cs = kconf.syms["FXDP"], kconf.syms["FXDP_ENTROPY_CSRAND"], kconf.syms["CSPRNG_ENABLED"]
    assert fxdp.type == csrand.type == kconfiglib.BOOL
    assert fxdp.str_value == "n" and csrand.str_value == "n"      # off unless the application asks
    assert fxdp.set_value("y") and csrand.str_value == "n" and csrand.visibility == 0   # no CSPRNG: no hook
    assert cs.set_value("y") and csrand.str_value == "y"            # the hook defaults on where it can build
    assert csrand.set_value("n") and csrand.str_value == "n"
    assert fxdp.set_value("n") and csrand.visibility == 0          # no hook without the module

    def registered(config):
        out = tmp_path / f"zephyr-{len(config)}.txt"
        script = tmp_path / "zephyr_stub.cmake"
        script.write_text(
            "".join(f"set({k} y)\n" for k in config) +
            f"file(WRITE \"{out}\" \"\")\n"
            f"function(zephyr_library)\n  file(APPEND \"{out}\" \"library\\n\")\nendfunction()\n"
            f"function(zephyr_library_sources)\n  foreach(s ${{ARGN}})\n    file(APPEND \"{out}\" \"src ${{s}}\\n\")\n"
            "  endforeach()\nendfunction()\n"
            "function(zephyr_library_sources_ifdef flag)\n  if(${flag})\n    zephyr_library_sources(${ARGN})\n"
            "  endif()\nendfunction()\n"
            f"function(zephyr_include_directories)\n  foreach(s ${{ARGN}})\n    file(APPEND \"{out}\" \"inc ${{s}}\\n\")\n"
            "  endforeach()\nendfunction()\n"
            f"include(\"{d}/zephyr/CMakeLists.txt\")\n")
        _run(["cmake", "-P", script])
        return [ln.split(" ", 1) for ln in out.read_text().splitlines()]

    assert registered([]) == []                                      # CONFIG_FXDP unset: nothing built
    lines = registered(["CONFIG_FXDP", "CONFIG_FXDP_ENTROPY_CSRAND"])
    assert lines[0] == ["library"]
    srcs = [Path(x[1]).resolve() for x in lines if x[0] == "src"]
    incs = [Path(x[1]).resolve() for x in lines if x[0] == "inc"]
    lib = {(d / r).resolve() for r in rel if r.startswith("src/") and r.endswith(".c")}
    assert set(srcs) == lib | {(d / "port/fxdp_zephyr_entropy.c").resolve()} and len(srcs) == len(set(srcs))
    assert (d / "port/fxdp_zephyr_entropy.c").resolve() not in \
        {Path(x[1]).resolve() for x in registered(["CONFIG_FXDP"]) if x[0] == "src"}
    _compile_all(srcs, incs + [SHIMS], tmp_path / "obj")
    assert "sys_csrand_get(out, n)" in (d / "port/fxdp_zephyr_entropy.c").read_text()


# --------------------------------------------------------------------------- CMake package

CONSUMER = """cmake_minimum_required(VERSION 3.13)
project(fxdp_consumer C)
find_package(fxdp 0.1 REQUIRED)
# the test's board port (the export's board/ for this target) and the harness program of fxdp/export/harness.py
file(GLOB BOARD_SRCS ${BOARD_DIR}/*.c)
add_executable(fxdp_harness fxdp_harness.c ${BOARD_SRCS})
target_include_directories(fxdp_harness PRIVATE ${BOARD_DIR})
set_target_properties(fxdp_harness PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(fxdp_harness PRIVATE -Os -fno-tree-loop-distribute-patterns -fno-ipa-icf
                       -ffunction-sections -fdata-sections)
target_link_libraries(fxdp_harness PRIVATE fxdp::fxdp)
if(CMAKE_CROSSCOMPILING)
  target_link_options(fxdp_harness PRIVATE -nostdlib -nostartfiles -T${BOARD_DIR}/link.ld -L${BOARD_DIR}
                      -Wl,--gc-sections)
  target_link_libraries(fxdp_harness PRIVATE gcc)
  set_target_properties(fxdp_harness PROPERTIES SUFFIX ".elf")
endif()
"""
CMAKE_N = 300
CMAKE_SEED = 0x5EED_CAFE_F00D


@pytest.fixture(scope="module")
def cmake_packages(tmp_path_factory):
    """{target: (export dir, install prefix)}: the cmake export configured, built and installed."""
    base = tmp_path_factory.mktemp("cmake")
    out = {}
    for target in ("cortex-m3", "host"):
        fw, prefix = base / target / "fw", base / target / "prefix"
        E.generate(make("geometric_ct"), target, fw, formats="cmake")
        tc = [] if target == "host" else [f"-DCMAKE_TOOLCHAIN_FILE={fw}/cmake/{target}.cmake"]
        _run(["cmake", "-S", fw, "-B", base / target / "build", *tc, "-DFXDP_BUILD_EXAMPLE=OFF",
              f"-DCMAKE_INSTALL_PREFIX={prefix}"])
        _run(["cmake", "--build", base / target / "build"])
        _run(["cmake", "--install", base / target / "build"])
        out[target] = (fw, prefix)
    return out


@pytest.mark.parametrize("target", ["cortex-m3", "host"])
def test_cmake_find_package_consumer_matches_simulate(cmake_packages, tmp_path, target):
    fw, prefix = cmake_packages[target]
    pkg = prefix / "lib" / "cmake" / "fxdp"
    assert {"fxdp-config.cmake", "fxdp-config-version.cmake", "fxdp-targets.cmake"} <= {p.name for p in pkg.iterdir()}
    assert (prefix / "include" / "fxdp" / "fxdp_config.h").is_file() and (prefix / "lib" / "libfxdp.a").is_file()
    m = make("geometric_ct")
    spec = E.device_spec(m)
    app = tmp_path / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text(CONSUMER)
    H.write_harness(m, spec, app, seed=CMAKE_SEED, n=CMAKE_N, n_drbg=4, entropy=True)
    # the consumer uses the toolchain file installed with the package
    tc = [] if target == "host" else [f"-DCMAKE_TOOLCHAIN_FILE={pkg}/{target}.cmake"]
    _run(["cmake", "-S", app, "-B", app / "build", *tc, f"-DCMAKE_PREFIX_PATH={prefix}", f"-DBOARD_DIR={fw}/board"])
    _run(["cmake", "--build", app / "build"])
    elf = app / "build" / ("fxdp_harness" if target == "host" else "fxdp_harness.elf")
    res = H.run_harness(target, elf, timeout=120)
    want = H.simulate_lines(m, spec, CMAKE_SEED, CMAKE_N)
    assert res.exit_code == 0 and len(res.parity) == CMAKE_N
    assert H.compare(want, res.parity) == 0
    assert res.drbg == want[:4] and H.check_entropy(res) == []


def test_cmake_package_refuses_the_wrong_cpu(cmake_packages, tmp_path):
    """A consumer configured for the host cannot find the Cortex-M3 package (and is told why)."""
    _, prefix = cmake_packages["cortex-m3"]
    app = tmp_path / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.13)\nproject(c C)\n"
                                        "find_package(fxdp REQUIRED)\n")
    p = subprocess.run(["cmake", "-S", str(app), "-B", str(app / "build"), f"-DCMAKE_PREFIX_PATH={prefix}"],
                       capture_output=True, text=True)
    assert p.returncode != 0
    assert "built for cortex-m3" in p.stderr and "CMAKE_TOOLCHAIN_FILE" in p.stderr


# --------------------------------------------------------------------------- docs/porting.md hooks

SNIPPET = re.compile(r"<!-- compile: (\S+) (\w+) -->\n```c\n(.*?)```", re.S)
BOARDS = {"board_fill_nrf52": "cortex-m4", "board_fill_stm32": "cortex-m4", "board_fill_rp2040": "cortex-m0plus",
          "board_fill_esp32": "host", "board_fill_atmega328p": "avr-atmega328p"}


def test_porting_hooks_compile(tmp_path):
    """Every board entropy hook of docs/porting.md compiles, strict C99, as an fxdp_fill_fn, with the
    target's compiler (host for ESP32) against the register stand-ins of tests/porting/shims/."""
    from fxdp import targets as T
    text = (ROOT / "docs" / "porting.md").read_text()
    found = SNIPPET.findall(text)
    assert {name: target for target, name, _ in found} == BOARDS
    for target, name, code in found:
        t = T.get_target(target)
        src = tmp_path / f"{name}.c"
        # the hook must have the type fxdp_rng_init_drbg takes
        src.write_text(code + f"\nconst fxdp_fill_fn fxdp_snippet_hook = {name};\n")
        _run([t.tool("gcc"), *C_CHECK[1:], *t.cflags, f"-I{ROOT / 'csrc'}", f"-I{SHIMS}", src,
              "-o", tmp_path / f"{name}.o"])
        nm = _run([t.tool("nm"), tmp_path / f"{name}.o"]).stdout
        assert re.search(rf"\bT {name}\b", nm), nm
    # the check can fail: a register name the stand-in does not have is an error
    bad = tmp_path / "bad.c"
    bad.write_text('#include "nrf.h"\nunsigned f(void) { return NRF_RNG->DATA; }\n')
    t = T.get_target("cortex-m4")
    p = subprocess.run([t.tool("gcc"), *C_CHECK[1:], *t.cflags, f"-I{SHIMS}", str(bad), "-o", str(tmp_path / "b.o")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "DATA" in p.stderr
