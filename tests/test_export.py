"""fxdp.export.generate / verify_on_host: the generated source set, its build
files and its bad-input behaviour (tests/test_export_targets.py runs the
exports under every emulator).

The generator is exercised with a stand-in mechanism (tests/export_fake/) so
that these tests do not depend on any one real mechanism, and with every real
mechanism of tests/export_fake/cases.py.  About 45 s.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import fxdp.export as E
from fxdp import targets as T
from fxdp.cli import main as cli_main

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "export_fake"))
from cases import MECHANISMS, make  # noqa: E402
from fake import FakeRR  # noqa: E402
from symbols import STRICT, compile_objects, symbol_violations  # noqa: E402

TARGETS = ["host", "avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4", "rv32imac"]
ARDUINO = {"avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4"}


def _rel(paths, base):
    return sorted(str(Path(p).relative_to(base)) for p in paths)


def test_every_exportable_kind_has_its_export_cases():
    """Each kind with a C device form has a case in its module's EXPORT_CASES, and a lazy and a
    constant-time one where its constructor takes constant_time (a new family without them fails)."""
    import inspect

    from fxdp import registry
    forms = {}
    for name in MECHANISMS:
        m = make(name)
        forms.setdefault(m.kind, set()).add(bool(getattr(m, "constant_time", False)))
    for kind in E.exportable_kinds():
        assert kind in forms, f"{kind}: no export case (EXPORT_CASES in {registry.get(kind).module})"
        if "constant_time" in inspect.signature(registry.constructor(kind)).parameters:
            assert forms[kind] == {False, True}, (kind, forms[kind])


# --------------------------------------------------------------------------- layout

@pytest.mark.parametrize("target", TARGETS)
def test_layout(tmp_path, target):
    out = tmp_path / "fw"
    files = E.generate(FakeRR(), target, out)
    rel = _rel(files, out)
    for must in ["src/fxdp.h", "src/fxdp_internal.h", "src/fxdp_chacha20.c", "src/fxdp_rng.c",
                 "src/fxdp_bernoulli.c", "src/fxdp_fake_rr.c", "src/fxdp_fake_rr.h", "src/fxdp_config.h",
                 "src/fxdp_config.c", "main.c", "Makefile", "CMakeLists.txt", "README.md",
                 "board/fxdp_port.h", ".fxdp-export.json"]:
        assert must in rel, must
    arduino = [r for r in rel if r in ("library.properties", "keywords.txt") or r.startswith("examples/")]
    if target in ARDUINO:
        assert arduino == ["examples/fxdp_fake_rr/fxdp_fake_rr.ino", "keywords.txt", "library.properties"]
    else:
        assert arduino == []
    assert all(Path(f).is_file() for f in files)
    toolchains = [r for r in rel if r.startswith("cmake/") and r != "cmake/fxdp-config.cmake"]
    assert toolchains == ([] if target == "host" else [f"cmake/{target}.cmake"])
    assert "cmake/fxdp-config.cmake" in rel
    man = json.loads((out / ".fxdp-export.json").read_text())
    assert man["target"] == target and "src/fxdp_config.c" in man["files"]


def test_config_header_states_the_contract(tmp_path):
    m = FakeRR()
    E.generate(m, "cortex-m0plus", tmp_path)
    h = (tmp_path / "src/fxdp_config.h").read_text()
    for needle in ["make_fake_rr(a=3221225472, k=32, constant_time=True)", "fake binary RR",
                   "Realized parameters", "claimed   1.0986122886681098", "realized",
                   "Constant-time mode: YES", "ENTROPY-HOOK CONTRACT", "return non-zero on ANY failure",
                   "fxdp_rng_init_drbg", "fxdp_status fxdp_release(fxdp_rng *r, fxdp_input_t x",
                   'extern "C"', "cortex-m0plus"]:
        assert needle in h, needle
    c = (tmp_path / "src/fxdp_config.c").read_text()
    assert "static const uint32_t fake_table[3]" in c and "UINT32_C(4294967295)" in c
    assert "const fxdp_fake_rr_cfg fxdp_cfg = { UINT64_C(3221225472), 32u, 1u, fake_table, 3u };" in c
    lazy = tmp_path / "lazy"
    E.generate(FakeRR(constant_time=False), "cortex-m0plus", lazy)
    assert "Constant-time mode: NO" in (lazy / "src/fxdp_config.h").read_text()
    main = (tmp_path / "main.c").read_text()
    assert "BOARD HOOK -- YOU MUST REPLACE THIS" in main and "return 1;   /* no entropy source" in main


@pytest.mark.parametrize("case", sorted(MECHANISMS))
def test_real_mechanism_header(tmp_path, case):
    m = make(case)
    E.generate(m, "avr-atmega328p", tmp_path)
    h = (tmp_path / "src/fxdp_config.h").read_text()
    from fxdp.audit import audit
    assert repr(m.epsilon) in h
    assert repr(audit(m).epsilon_realized) in h
    assert ("Constant-time mode: YES" in h) == bool(m.constant_time)


# --------------------------------------------------------------------------- bad input

def test_refuses_non_empty_directory_and_never_deletes(tmp_path):
    out = tmp_path / "fw"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty.*--force"):
        E.generate(FakeRR(), "host", out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]       # nothing written
    files = E.generate(FakeRR(), "host", out, force=True)
    assert (out / "notes.txt").read_text() == "mine"
    (out / "src" / "my_extra.c").write_text("/* mine */\n")
    (out / "main.c").write_text("edited")
    files2 = E.generate(FakeRR(constant_time=False), "host", out, force=True)
    assert _rel(files, out) == _rel(files2, out)
    assert (out / "src" / "my_extra.c").read_text() == "/* mine */\n"   # not ours: kept
    assert "BOARD HOOK" in (out / "main.c").read_text()                   # ours: regenerated
    assert not list(out.rglob("*.fxdp-tmp"))


def test_output_path_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(FileExistsError):
        E.generate(FakeRR(), "host", f, force=True)


def test_unknown_target_lists_the_valid_ones(tmp_path):
    with pytest.raises(ValueError) as ei:
        E.generate(FakeRR(), "esp32", tmp_path / "x")
    for t in TARGETS:
        assert t in str(ei.value)
    assert not (tmp_path / "x").exists()


def test_invalid_mechanism_lists_the_exportable_kinds(tmp_path):
    with pytest.raises(TypeError) as ei:
        E.generate(object(), "host", tmp_path / "x")
    assert "exportable mechanisms" in str(ei.value)
    for kind in E.exportable_kinds():
        assert kind in str(ei.value)
    assert "randomized_response_bool" in str(ei.value)

    class NoSpec(FakeRR):
        device_spec = property(lambda self: (_ for _ in ()).throw(AttributeError()))
    with pytest.raises(ValueError, match="no C device form"):
        E.generate(NoSpec(), "host", tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.mark.parametrize("mutate, match", [
    (lambda s: s.pop("cfg_init"), "lacks"),
    (lambda s: s.update(c_function="fxdp_no_such_fn"), "not declared"),
    (lambda s: s.update(c_function="not valid"), "not a C identifier"),
    (lambda s: s.update(tables=[("t", "float", [1])]), "element type"),
    (lambda s: s.update(tables=[("t", "uint8_t", [256])]), "out of uint8_t range"),
    (lambda s: s.update(input={"ctype": "uint32_t", "count": 1}), "input ctype"),
    (lambda s: s.update(sources=["no_such_file.c"]), "not found"),
])
def test_bad_device_spec(tmp_path, mutate, match):
    class Bad(FakeRR):
        def device_spec(self):
            s = super().device_spec()
            mutate(s)
            return s
    with pytest.raises(ValueError, match=match):
        E.generate(Bad(), "host", tmp_path / "x")


def test_missing_toolchain_names_the_debian_package(tmp_path, monkeypatch):
    E.generate(FakeRR(), "avr-atmega328p", tmp_path)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(T.TargetError, match="apt-get install.*gcc-avr"):
        T.build("avr-atmega328p", [tmp_path / "main.c"], [tmp_path / "src"], out_dir=tmp_path / "b")
    p = subprocess.run(["/usr/bin/make", "-C", str(tmp_path)], capture_output=True, text=True,
                       env={"PATH": "/nonexistent"})
    assert p.returncode != 0
    assert "avr-gcc not found" in p.stderr and "apt-get install gcc-avr" in p.stderr


def test_cli_export_and_errors(tmp_path, capsys):
    cfg = tmp_path / "rr.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\nconstant_time = true\n'
                   '[target]\nname = "avr-atmega328p"\n')
    out = tmp_path / "fw"
    assert cli_main(["export", str(cfg), "--out", str(out)]) == 0
    assert (out / "src/fxdp_config.h").is_file() and (out / "library.properties").is_file()
    capsys.readouterr()
    assert cli_main(["export", str(cfg), "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    assert cli_main(["export", str(cfg), "--out", str(out), "--force"]) == 0
    capsys.readouterr()
    assert cli_main(["export", str(cfg), "--target", "pdp11", "--out", str(tmp_path / "z")]) == 2
    err = capsys.readouterr().err
    assert "unknown target" in err and "cortex-m0plus" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('[mechanism]\nkind = "nope"\n')
    assert cli_main(["export", str(bad), "--target", "host", "--out", str(tmp_path / "w")]) == 2
    assert "randomized_response_bool" in capsys.readouterr().err


# --------------------------------------------------------------------------- C checks on every toolchain

def _exports(tmp_path, target):
    """(name, export dir) for the stand-in and every real mechanism."""
    out = [("fake_ct", FakeRR()), ("fake_lazy", FakeRR(constant_time=False))]
    out += [(c, make(c)) for c in sorted(MECHANISMS)]
    res = []
    for name, m in out:
        d = tmp_path / name
        E.generate(m, target, d)
        res.append((name, d))
    return res


@pytest.mark.parametrize("target", TARGETS)
def test_strict_c99_and_no_float_malloc_libm(tmp_path, target):
    """Every generated C file (library and example main) compiles with -std=c99 -pedantic -Wall -Wextra
    -Wconversion -Werror on the target's toolchain, and the objects reference no soft float, no malloc,
    no libm and no other C library function.  The library files (copies of csrc/, identical in every
    export) are compiled once at -Os and once at -O2; each export's fxdp_config.c and main.c at -Os."""
    problems = []
    exports = _exports(tmp_path, target)
    lib = {}
    for name, d in exports:
        for f in sorted((d / "src").glob("*.c")):
            if f.name != "fxdp_config.c":
                assert lib.setdefault(f.name, f).read_bytes() == f.read_bytes(), f"{f.name} differs between exports"
    hdr_dirs = {f.parent for f in lib.values()}
    lib_objs = {}
    for opt in ("-Os", "-O2"):
        # every export's src/ has the same fxdp.h; fake headers live next to their sources
        objs = compile_objects(target, list(lib.values()), sorted(hdr_dirs), tmp_path / f"lib{opt}", opt)
        lib_objs[opt] = dict(zip(lib, objs))
    for name, d in exports:
        own = compile_objects(target, [d / "src" / "fxdp_config.c", d / "main.c"], [d / "src", d / "board"],
                              d / "obj", "-Os")
        names = [f.name for f in (d / "src").glob("*.c") if f.name != "fxdp_config.c"]
        for opt in ("-Os", "-O2"):
            objs = [lib_objs[opt][n] for n in names] + own
            problems += [f"{name} {opt}: {v}" for v in symbol_violations(target, objs)]
        files = sorted((d / "src").glob("*.c")) + [d / "main.c"]
        headers = sorted((d / "src").glob("*.h"))
        text = "".join(h.read_text() for h in headers) + "".join(f.read_text() for f in files)
        includes = {ln.split()[1] for ln in text.splitlines() if ln.startswith("#include")}
        allowed = {"<stdint.h>", "<stddef.h>", '"fxdp_port.h"'} | {f'"{h.name}"' for h in headers}
        problems += [f"{name}: includes {i}" for i in sorted(includes - allowed)]
        for f in files:
            src = f.read_text()
            for word in ("float", "double", "malloc"):
                if f" {word} " in src or f"({word})" in src:
                    problems.append(f"{name}: {f.name} mentions {word}")
    assert not problems, "\n".join(sorted(set(problems)))


@pytest.mark.parametrize("target", TARGETS)
def test_board_files_strict_c99(tmp_path, target):
    """Every exported board/ file builds with the library's flags (-std=c99 -pedantic -Wall -Wextra
    -Wconversion -Werror) on the target's toolchain: the C port sources and the .S startup
    (assembler, preprocessed as C) with the target's cpu flags, fxdp_port.h through them.  Exempt:
    the .ld linker scripts (not C) and, on AVR, simavr_run.c, the host program that runs the
    firmware under libsimavr: it is itself strict-clean with host gcc when simavr's headers are
    system headers (theirs are not pedantic-clean), which is checked when they are installed."""
    E.generate(make("rr_bool_ct") if "rr_bool_ct" in MECHANISMS else FakeRR(), target, tmp_path / "fw")
    board = tmp_path / "fw" / "board"
    files = sorted(board.iterdir())
    mcu = [f for f in files if f.suffix in (".c", ".S") and f.name != "simavr_run.c"]
    assert {f.suffix for f in files} <= {".c", ".S", ".h", ".ld"}, files
    assert any(f.name == "fxdp_port.h" for f in files) and mcu
    compile_objects(target, mcu, [board], tmp_path / "obj", "-Os")
    # the exported Makefile and CMakeLists.txt build board/ with the same flags (no GNU mode)
    mk = (tmp_path / "fw" / "Makefile").read_text()
    board_flags = next(ln for ln in mk.splitlines() if ln.startswith("BOARD_CFLAGS :="))
    assert "-std=c99 -pedantic -Wall -Wextra -Wconversion" in board_flags and "gnu" not in board_flags
    assert "C_EXTENSIONS ON" not in (tmp_path / "fw" / "CMakeLists.txt").read_text()
    if target == "avr-atmega328p":
        assert (board / "simavr_run.c").is_file()
        if Path("/usr/include/simavr/sim_avr.h").is_file():
            p = subprocess.run(["gcc", *STRICT, "-isystem", "/usr/include/simavr", "-c", str(board / "simavr_run.c"),
                                "-o", str(tmp_path / "simavr_run.o")], capture_output=True, text=True)
            assert p.returncode == 0, p.stderr


def test_symbol_check_catches_violations(tmp_path):
    """The checker itself: float, libm and malloc use are reported."""
    src = tmp_path / "bad.c"
    src.write_text("#include <stddef.h>\nextern double log(double);\nextern void *malloc(size_t);\n"
                   "double f(double x, float y) { return log(x) * (double)y; }\n"
                   "void *g(size_t n) { return malloc(n); }\n")
    for target in ("cortex-m0plus", "avr-atmega328p", "rv32imac"):
        objs = compile_objects(target, [src], [], tmp_path / target)
        bad = "\n".join(symbol_violations(target, objs))
        assert "log (C library)" in bad and "malloc (C library)" in bad
        if target != "avr-atmega328p":                 # avr-gcc: double is float, still soft float
            assert "soft float" in bad


# --------------------------------------------------------------------------- build files

@pytest.mark.parametrize("target", TARGETS)
def test_makefile_builds_and_the_example_runs(tmp_path, target):
    m = make("rr_bool_ct") if "rr_bool_ct" in MECHANISMS else FakeRR()
    E.generate(m, target, tmp_path)
    p = subprocess.run(["make", "-s", "-C", str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "build" / "libfxdp.a").is_file()
    if target != "host":
        assert (tmp_path / "build" / "fxdp_example.hex").is_file()
    # fail closed with the stub as generated
    p = subprocess.run(["make", "-s", "-C", str(tmp_path), "run"], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "entropy hook failed: nothing released" in p.stdout
    # the insecure demo stub, emulator only
    p = subprocess.run(["make", "-s", "-C", str(tmp_path), "DEMO=1", "run"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [ln for ln in p.stdout.splitlines() if ln]
    assert lines[0].startswith("fxdp example: ") and len(lines) == 9


@pytest.mark.parametrize("target", ["host", "cortex-m0plus", "avr-atmega328p"])
def test_cmake_builds(tmp_path, target):
    E.generate(FakeRR(), target, tmp_path / "src_dir")
    args = ["cmake", "-S", str(tmp_path / "src_dir"), "-B", str(tmp_path / "b")]
    if target != "host":
        args.append(f"-DCMAKE_TOOLCHAIN_FILE=cmake/{target}.cmake")
    p = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path / "src_dir")
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run(["cmake", "--build", str(tmp_path / "b")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    exe = "fxdp_example" + ("" if target == "host" else ".elf")
    assert (tmp_path / "b" / exe).is_file()


@pytest.mark.parametrize("case", ["fake", "rappor_ct", "geometric_ct", "rr_kary_lazy"])
@pytest.mark.parametrize("target", sorted(ARDUINO))
def test_arduino_sketch_compiles_as_cpp(tmp_path, target, case):
    """The sketch and fxdp_config.h compile as C++ (Arduino sketches are C++), against a stub core."""
    m = FakeRR() if case == "fake" else make(case)
    E.generate(m, target, tmp_path)
    t = T.get_target(target)
    ino = tmp_path / "examples" / f"fxdp_{m.kind}" / f"fxdp_{m.kind}.ino"
    cpp = tmp_path / "sketch.cpp"
    cpp.write_text('#include "Arduino.h"\n' + ino.read_text())
    gxx = t.prefix + "g++"
    flags = [f for f in t.cflags if f != "-ffreestanding"]
    p = subprocess.run([gxx, "-std=gnu++11", "-Wall", "-Wextra", "-Werror", "-Os", *flags, "-fno-exceptions",
                        f"-I{HERE / 'export_fake' / 'arduino'}", f"-I{tmp_path / 'src'}", "-c", str(cpp),
                        "-o", str(tmp_path / "sketch.o")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    props = (tmp_path / "library.properties").read_text()
    assert "includes=fxdp_config.h" in props
    assert ("architectures=avr" in props) == (target == "avr-atmega328p")


# --------------------------------------------------------------------------- verify_on_host

def test_verify_on_host(tmp_path):
    m = FakeRR(a=5 << 29)
    E.generate(m, "cortex-m0plus", tmp_path)
    assert E.verify_on_host(m, tmp_path, seed=11, devices=3000) == {"releases": 3000, "mismatches": 0}
    # the check can fail: the export has other parameters than the mechanism compared against
    other = E.verify_on_host(FakeRR(a=3 << 30), tmp_path, seed=11, devices=3000)
    assert other["releases"] == 3000 and other["mismatches"] > 100


def test_verify_on_host_bad_input(tmp_path):
    with pytest.raises(ValueError, match="not an fxdp export"):
        E.verify_on_host(FakeRR(), tmp_path, seed=1, devices=10)
    E.generate(FakeRR(), "host", tmp_path / "fw")
    with pytest.raises(ValueError, match="devices"):
        E.verify_on_host(FakeRR(), tmp_path / "fw", seed=1, devices=0)


@pytest.mark.parametrize("case", sorted(MECHANISMS))
def test_verify_on_host_real_mechanisms(tmp_path, case):
    m = make(case)
    E.generate(m, "cortex-m4", tmp_path)
    assert E.verify_on_host(m, tmp_path, seed=2026, devices=20_000) == {"releases": 20_000, "mismatches": 0}


def test_input_model_is_the_same_in_c_and_python(tmp_path):
    """hrand and the input models: the C harness's inputs equal the Python ones (checked through the
    parity harness's inputs echoed by the fake mechanism: output = x when keep = 1 always)."""
    m = FakeRR(a=1 << 32, k=32)          # keep with probability 1: y = x
    E.generate(m, "host", tmp_path)
    assert E.verify_on_host(m, tmp_path, seed=5, devices=2000)["mismatches"] == 0
    from fxdp.export import harness as H
    v = H.input_model(m).for_simulate(range(2000), H.SALT_PARITY)
    assert 0.4 < v.mean() < 0.6


# --------------------------------------------------------------------------- DRBG reseed

_RESEED_MAIN = r"""
#include <stdio.h>
#include "fxdp_config.h"

static uint32_t lcg = 12345u, calls = 0u, fail_at = 0xFFFFFFFFu;

static int fill(void *ctx, uint8_t *out, size_t n)
{
    size_t i;
    (void)ctx;
    if (++calls >= fail_at) {
        return -1;
    }
    printf("fill %u\n", (unsigned)n);
    for (i = 0; i < n; i++) {
        lcg = lcg * 1103515245u + 12345u;
        out[i] = (uint8_t)(lcg >> 16);
        printf("%02x", out[i]);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    fxdp_rng r;
    fxdp_input_t x[1];
    fxdp_output_t y[FXDP_OUTPUT_COUNT];
    uint32_t i;
    fxdp_status st;
    if (argc > 1) {
        fail_at = (uint32_t)(argv[1][0] - '0');
    }
    if (fxdp_rng_init_drbg(&r, fill, NULL) != FXDP_OK) {
        return 1;
    }
    for (i = 0; i < 7u; i++) {
        x[0] = (fxdp_input_t)(3u * i);
        y[0] = (fxdp_output_t)77;
        st = fxdp_release(&r, @@arg@@, y);
        printf("release %d %lld\n", (int)st, (long long)y[0]);
    }
    return 0;
}
"""


def test_drbg_reseed_interval(tmp_path):
    """-DFXDP_RESEED_INTERVAL=3: the export's fxdp_release reseeds a DRBG from its fill before the
    4th and 7th releases, and the releases equal the reference's on the Python model of that
    DRBG (ChaCha20Source version 2 with reseed); a fill failing at a reseed is an entropy failure:
    nothing released then or after.  The default (0) never reseeds."""
    from fxdp.bitsource import ChaCha20Source
    from fxdp.export.spec import device_spec
    m = make("geometric_ct")
    E.generate(m, "host", tmp_path / "fw")
    spec = device_spec(m)
    arg = "x[0]" if spec.input["count"] == 1 and not spec.in_param.pointer else "x"
    src = tmp_path / "main.c"
    src.write_text(_RESEED_MAIN.replace("@@arg@@", arg))
    fw = tmp_path / "fw" / "src"
    runs = {}
    for interval in (0, 3):
        exe = tmp_path / f"reseed{interval}"
        subprocess.run(["gcc", "-std=c99", "-O1", "-Wall", "-Werror", f"-DFXDP_RESEED_INTERVAL={interval}u",
                        f"-I{fw}", str(src), *map(str, sorted(fw.glob("*.c"))), "-o", str(exe)], check=True)
        runs[interval] = exe
    out = subprocess.run([str(runs[3])], capture_output=True, text=True, check=True).stdout.split("\n")
    fills = [bytes.fromhex(out[i + 1]) for i, ln in enumerate(out) if ln.startswith("fill")]
    assert [len(f) for f in fills] == [44, 32, 32]
    words = [[int.from_bytes(f[i:i + 4], "little") for i in range(0, len(f), 4)] for f in fills]
    model = ChaCha20Source(None, key=words[0][:8], nonce=words[0][8:], version=2)
    want = []
    for i in range(7):
        if i in (3, 6):
            model.reseed(words[1 + (i == 6)])
        want.append(f"release 0 {int(m.release(model, 3 * i))}")
    assert [ln for ln in out if ln.startswith("release")] == want
    # interval 0: one fill, and the same first three releases
    out0 = subprocess.run([str(runs[0])], capture_output=True, text=True, check=True).stdout.split("\n")
    assert sum(ln.startswith("fill") for ln in out0) == 1
    assert [ln for ln in out0 if ln.startswith("release")][:3] == want[:3]
    # the fill fails at the second reseed (its 3rd call): releases 7.. fail, output untouched
    bad = subprocess.run([str(runs[3]), "3"], capture_output=True, text=True, check=True).stdout.split("\n")
    rel = [ln for ln in bad if ln.startswith("release")]
    assert rel[:6] == want[:6] and rel[6] == "release 2 77"


# --------------------------------------------------------------------------- entropy health tests

_HEALTH_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "fxdp_config.h"

/* The raw source: 'g' good (an LCG's high bytes, printed), 's' stuck at one byte, 'b' biased (every
 * other byte 0, no runs), 'l' good for the first fill calls, stuck from call FAIL_AT on. */
static char mode = 'g';
static uint32_t lcg = 12345u, calls = 0u, fail_at = 0xFFFFFFFFu;

static int fill(void *ctx, uint8_t *out, size_t n)
{
    size_t i;
    (void)ctx;
    calls++;
    for (i = 0; i < n; i++) {
        lcg = lcg * 1103515245u + 12345u;
        out[i] = (uint8_t)(lcg >> 16);
        if (mode == 's' || (mode == 'l' && calls >= fail_at)) {
            out[i] = 0x42u;
        } else if (mode == 'b' && (i & 1u) == 0u) {
            out[i] = 0u;
        } else if (mode == 'b') {
            out[i] = (uint8_t)(out[i] | 1u);
        }
        printf("%02x", out[i]);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    static fxdp_health h;
    fxdp_rng r;
    fxdp_input_t x[1];
    fxdp_output_t y[FXDP_OUTPUT_COUNT];
    uint32_t i;
    fxdp_status st;
    mode = argv[1][0];
    if (argc > 2) {
        fail_at = (uint32_t)atoi(argv[2]);
    }
    /* 'H': no health state; 'F': no board fill (bad parameters) */
    st = fxdp_init_health_drbg(&r, mode == 'H' ? NULL : &h, mode == 'F' ? NULL : fill, NULL);
    printf("init %d %d\n", (int)st, (int)h.failed);
    for (i = 0; i < 7u; i++) {
        x[0] = (fxdp_input_t)(3u * i);
        y[0] = (fxdp_output_t)77;
        st = fxdp_release(&r, @@arg@@, y);
        printf("release %d %lld %d\n", (int)st, (long long)y[0], (int)h.failed);
    }
    return 0;
}
"""


def _health_build(tmp_path, m, interval=0):
    """A host program over the export of m (reseed interval `interval`) with _HEALTH_MAIN's sources."""
    from fxdp.export.spec import device_spec
    E.generate(m, "host", tmp_path / "fw", force=True)
    spec = device_spec(m)
    arg = "x[0]" if spec.input["count"] == 1 and not spec.in_param.pointer else "x"
    src = tmp_path / "health_main.c"
    src.write_text(_HEALTH_MAIN.replace("@@arg@@", arg))
    fw = tmp_path / "fw" / "src"
    exe = tmp_path / f"health{interval}"
    subprocess.run(["gcc", "-std=c99", "-O1", "-Wall", "-Werror", f"-DFXDP_RESEED_INTERVAL={interval}u",
                    f"-I{fw}", str(src), *map(str, sorted(fw.glob("*.c"))), "-o", str(exe)], check=True)
    return exe


def _health_run(exe, *args):
    out = subprocess.run([str(exe), *args], capture_output=True, text=True, check=True).stdout.split("\n")
    fills = [bytes.fromhex(ln) for ln in out if ln and ln[0] in "0123456789abcdef"]
    init = [tuple(map(int, ln.split()[1:])) for ln in out if ln.startswith("init")][0]
    rel = [tuple(map(int, ln.split()[1:])) for ln in out if ln.startswith("release")]
    return fills, init, rel


def test_health_cutoffs_in_the_export(tmp_path, capsys):
    """fxdp_config.h carries the SP 800-90B cut-offs fxdp.health computes for the stated min-entropy
    (default 2 bits per byte; generate(min_entropy=), [target] min_entropy, --min-entropy, which wins);
    a bad value is refused, naming min_entropy, before anything is written."""
    from fxdp import health
    from fxdp.export.firmware import DEFAULT_MIN_ENTROPY

    def defines(d):
        text = (d / "src" / "fxdp_config.h").read_text()
        return {k: int(text.split(f"#define {k} ")[1].split("u")[0])
                for k in ("FXDP_HEALTH_H256", "FXDP_HEALTH_RCT_CUTOFF", "FXDP_HEALTH_APT_CUTOFF")}

    def want(h256):
        return {"FXDP_HEALTH_H256": h256, "FXDP_HEALTH_RCT_CUTOFF": health.rct_cutoff(h256),
                "FXDP_HEALTH_APT_CUTOFF": health.apt_cutoff(h256)}

    E.generate(FakeRR(), "host", tmp_path / "d")
    assert defines(tmp_path / "d") == want(health.h256_from_min_entropy(DEFAULT_MIN_ENTROPY))
    assert json.loads((tmp_path / "d" / ".fxdp-export.json").read_text())["health"]["h256"] == \
        health.h256_from_min_entropy(DEFAULT_MIN_ENTROPY)
    for me, h256 in (("1/2", 128), (8, 2048), ("2.5", 640), ("0.3", 76)):   # 0.3 * 256 = 76.8: rounded down
        E.generate(FakeRR(), "host", tmp_path / str(h256), min_entropy=me)
        assert defines(tmp_path / str(h256)) == want(h256), me
    for bad, exc in ((9, ValueError), ("0", ValueError), (2.5, TypeError), ("two", TypeError)):
        with pytest.raises(exc, match="min_entropy"):
            E.generate(FakeRR(), "host", tmp_path / "bad", min_entropy=bad)
        assert not (tmp_path / "bad").exists()
    cfg = tmp_path / "rr.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\nconstant_time = true\n'
                   '[target]\nname = "host"\nmin_entropy = "1/2"\n')
    assert cli_main(["export", str(cfg), "--out", str(tmp_path / "c1")]) == 0
    assert defines(tmp_path / "c1") == want(128)
    assert cli_main(["export", str(cfg), "--out", str(tmp_path / "c2"), "--min-entropy", "4"]) == 0
    assert defines(tmp_path / "c2") == want(1024)
    capsys.readouterr()
    assert cli_main(["export", str(cfg), "--out", str(tmp_path / "c3"), "--min-entropy", "12"]) == 2
    assert "min_entropy" in capsys.readouterr().err and not (tmp_path / "c3").exists()
    cfg.write_text(cfg.read_text().replace('"1/2"', "0.5"))
    assert cli_main(["export", str(cfg), "--out", str(tmp_path / "c4")]) == 2
    assert "[target] min_entropy" in capsys.readouterr().err


def test_health_tested_drbg_on_host(tmp_path):
    """fxdp_init_health_drbg of an export over an injected raw source: a good source passes the
    start-up test (1024 bytes, discarded) and keys the DRBG with the next 44 bytes, releases equal to
    the reference's on that key; a stuck source (repetition count) and a biased run-free one
    (adaptive proportion) fail at start-up, and no release writes the output; a source that goes
    stuck at a reseed (FXDP_RESEED_INTERVAL=3) fails that release and every later one, output untouched."""
    from fxdp import health
    from fxdp.bitsource import ChaCha20Source
    from fxdp.errors import EntropyError
    from fxdp.export.firmware import DEFAULT_MIN_ENTROPY
    m = make("geometric_ct")
    exe = _health_build(tmp_path, m)
    fills, init, rel = _health_run(exe, "g")
    assert init == (0, health.OK)
    assert sum(len(f) for f in fills[:-1]) == health.STARTUP_SAMPLES and len(fills[-1]) == 44
    words = [int.from_bytes(fills[-1][i:i + 4], "little") for i in range(0, 44, 4)]
    model = ChaCha20Source(None, key=words[:8], nonce=words[8:], version=2)
    assert rel == [(0, int(m.release(model, 3 * i)), health.OK) for i in range(7)]
    # the Python reference (fxdp.health.HealthTest, call by call) agrees: the good bytes pass ...
    ref = health.HealthTest(health.h256_from_min_entropy(DEFAULT_MIN_ENTROPY))
    for f in fills:
        ref.feed(f)
    for mode, reason in (("s", health.RCT), ("b", health.APT)):
        fills, init, rel = _health_run(exe, mode)
        assert init == (2, reason), mode
        assert rel == [(2, 77, reason)] * 7, mode
        # ... and the broken ones fail in the same call, for the same reason
        ref = health.HealthTest(health.h256_from_min_entropy(DEFAULT_MIN_ENTROPY))
        with pytest.raises(EntropyError):
            for f in fills:
                ref.feed(f)
        assert ref.failed == reason and f == fills[-1], mode
    # bad parameters: FXDP_ERR_PARAM, and the rng releases nothing (h untouched without h)
    for mode in ("H", "F"):
        fills, init, rel = _health_run(exe, mode)
        assert fills == [] and init[0] == 1 and [r[:2] for r in rel] == [(2, 77)] * 7, mode
    exe3 = _health_build(tmp_path, m, interval=3)
    calls_at_seed = health.STARTUP_SAMPLES // health.STARTUP_CHUNK + 1      # start-up calls, then the seed
    good_fills, _, good = _health_run(exe3, "g")
    assert [len(f) for f in good_fills[calls_at_seed - 1:]] == [44, 32, 32]   # reseeds before releases 4, 7
    assert [r[0] for r in good] == [0] * 7
    fills, init, rel = _health_run(exe3, "l", str(calls_at_seed + 1))   # stuck from the first reseed on
    assert init == (0, health.OK) and len(fills) == calls_at_seed + 1
    assert rel[:3] == good[:3]
    assert rel[3:] == [(2, 77, health.RCT)] * 4
