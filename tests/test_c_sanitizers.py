"""The C library under AddressSanitizer + UndefinedBehaviorSanitizer.

tests/c/test_fxdp.c exercises every entry point: known answers (generated
here from tests/vectors/*.json, i.e. from the reference), bad inputs, extreme
values (k = 0/32/63/64, n = 1, 2^64 - 1, INT64 bounds, counter exhaustion,
corrupt states) and entropy failures; tests/c/fuzz_fxdp.c is a fixed-seed
fuzz driver over random (also invalid) parameters.  Any sanitizer report
aborts the program (-fno-sanitize-recover=all).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

CFLAGS = ["-std=c99", "-g", "-O1", "-Wall", "-Wextra", "-Werror", *cs.SANITIZE]
ENV = {"ASAN_OPTIONS": "abort_on_error=0:detect_leaks=0",
       "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    d = tmp_path_factory.mktemp("csan")
    cs.write_kat_header(d)
    lib = [*cs.LIB_SOURCES, *cs.HOST_SOURCES]
    test = cs.compile_c(d / "test_fxdp", [cs.HERE / "test_fxdp.c", *lib], CFLAGS, [d])
    fuzz = cs.compile_c(d / "fuzz_fxdp", [cs.HERE / "fuzz_fxdp.c", *lib], CFLAGS, [d])
    return test, fuzz


def _ok(res):
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-4000:]
    assert "runtime error" not in out and "AddressSanitizer" not in out, out[-4000:]
    assert " 0 failed" in res.stdout, out[-4000:]


@pytest.mark.parametrize("args", [["kat"], ["api"], ["exhaustive", "10"]], ids=lambda a: "-".join(a))
def test_c_program_under_sanitizers(build, args):
    _ok(cs.run([build[0], *args], env=ENV))


@pytest.mark.parametrize("seed", [1, 0xC0FFEE, 20261122])
def test_fuzz_under_sanitizers(build, seed):
    res = cs.run([build[1], seed, 100_000], env=ENV)
    _ok(res)
    assert "fuzz:" in res.stdout


def test_sanitizers_are_live(tmp_path):
    """The build really traps UB: a shift by 64 in a copy of the library aborts."""
    src = tmp_path / "ub.c"
    src.write_text("#include <stdint.h>\n#include <stdlib.h>\n"
                   "int main(int c, char **v) { (void)v; uint64_t x = 1; unsigned s = (unsigned)(63 + c);"
                   " return (int)((x << s) & 1u); }\n")
    exe = cs.compile_c(tmp_path / "ub", [src], ["-std=c99", *cs.SANITIZE])
    res = cs.run([exe], env=ENV)
    assert res.returncode != 0 and "runtime error" in res.stderr
