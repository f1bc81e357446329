"""The firmware C files build cleanly for every toolchain and need no libc, no float and no malloc.

Each of csrc/fxdp_{chacha20,rng,health,uniform,bernoulli,laplace,table}.c is compiled
with -std=c99 -pedantic -Wall -Wextra -Wconversion -Werror (plus a few more
warnings) by host gcc, avr-gcc (16-bit int), arm-none-eabi-gcc (Cortex-M0+,
M4) and riscv64-unknown-elf-gcc (rv32imac, freestanding) at -O0, -Os and -O2.
The only undefined symbols allowed are fxdp_* and the compiler's integer
runtime helpers (__udivdi3, __aeabi_uldivmod, ...): no soft-float helper, no
memcpy/memset, no malloc.
"""
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

WARN = [*cs.STRICT, "-Wshadow", "-Wstrict-prototypes", "-Wmissing-prototypes", "-Wcast-qual", "-Wundef",
        "-Wpointer-arith", "-Wcast-align"]
TOOLCHAINS = {
    "host": ("gcc", []),
    "avr": ("avr-gcc", ["-mmcu=atmega328p"]),
    "cortex-m0plus": ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb", "-ffreestanding"]),
    "cortex-m4": ("arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=soft", "-ffreestanding"]),
    "rv32imac": ("riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32", "-ffreestanding"]),
}
NM = {"gcc": "nm", "avr-gcc": "avr-nm", "arm-none-eabi-gcc": "arm-none-eabi-nm",
      "riscv64-unknown-elf-gcc": "riscv64-unknown-elf-nm"}
FORBIDDEN = re.compile(r"(sf|df|tf|xf)\d?$|float|__fix|extend|trunc|__aeabi_[fd]|__fp_|^_?_?(mem|str|malloc|free|calloc"
                       r"|realloc|printf|abort|exit)")


def _undefined(nm, obj):
    res = subprocess.run([nm, "-u", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in res.stdout.splitlines() if line.strip()}


OPTS = ["-O0", "-Os", "-O2"]


def _build(tmp, target, opt):
    """Compile every source for (target, opt); returns (error text or None, undefined symbols)."""
    cc, flags = TOOLCHAINS[target]
    sources = list(cs.LIB_SOURCES) + (list(cs.HOST_SOURCES) if target == "host" else [])
    d = Path(tmp) / f"{target}{opt}"
    d.mkdir()
    cmd = [cc, *WARN, *flags, opt, f"-I{cs.CSRC}", "-c", *map(str, sources)]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=d)   # objects land in d
    if res.returncode != 0:
        return f"{' '.join(cmd)}\n{res.stderr}", set()
    undefined = set()
    for src in sources:
        undefined |= _undefined(NM[cc], d / (src.stem + ".o"))
    return None, undefined


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("port")
    combos = [(t, o) for t in TOOLCHAINS for o in OPTS]
    with ThreadPoolExecutor(4) as pool:
        return dict(zip(combos, pool.map(lambda c: _build(tmp, *c), combos)))


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("target", sorted(TOOLCHAINS))
def test_strict_cross_build(builds, target, opt):
    error, undefined = builds[(target, opt)]
    assert error is None, error
    bad = sorted(s for s in undefined if not s.startswith("fxdp_") and
                 (FORBIDDEN.search(s) or not s.startswith("__")))
    assert not bad, f"{target} {opt}: forbidden external symbols {bad}"


def test_header_is_self_contained_c99(tmp_path):
    src = tmp_path / "h.c"
    src.write_text('#include "fxdp.h"\n#include "host/fxdp_host.h"\nint fxdp_dummy(void);\n'
                   "int fxdp_dummy(void) { return (int)sizeof(fxdp_rng); }\n")
    for cc, flags in TOOLCHAINS.values():
        res = subprocess.run([cc, *WARN, *flags, f"-I{cs.CSRC}", "-c", str(src), "-o", str(tmp_path / "h.o")],
                             capture_output=True, text=True)
        assert res.returncode == 0, f"{cc}: {res.stderr}"


def test_no_float_or_libc_in_sources():
    """Only <stdint.h>/<stddef.h> are included; no float, double or allocation anywhere."""
    for src in [*cs.LIB_SOURCES, cs.CSRC / "fxdp_internal.h"]:
        text = re.sub(r"/\*.*?\*/", "", src.read_text(), flags=re.S)
        includes = re.findall(r'#include\s+[<"]([^>"]+)[>"]', text)
        assert set(includes) <= {"fxdp.h", "fxdp_internal.h", "stdint.h", "stddef.h"}, (src.name, includes)
        assert not re.search(r"\b(float|double|malloc|free|memcpy|memset)\b", text), src.name


def test_soft_divide_threshold_equals_the_divide(tmp_path):
    """fxdp_i_pow32_mod's form for cores without a divide instruction (ARMv6-M, AVR), forced on the
    host by FXDP_SOFT_DIVIDE, equals 2^32 mod n computed by the compiler's divide: every n below 2^17,
    every n within 2^16 of 2^31 and of 2^32, and 10^6 more from a fixed LCG."""
    src = tmp_path / "m.c"
    src.write_text(r'''
#include "fxdp_internal.h"
#include <stdio.h>
static int check(uint32_t n) {
    if (fxdp_i_pow32_mod(n) != (uint32_t)(UINT64_C(4294967296) % n)) { printf("n=%lu\n", (unsigned long)n); return 1; }
    return 0;
}
int main(void) {
    uint32_t n, x = 12345u, bad = 0, i;
    for (n = 1u; n < (1u << 17); n++) bad += (uint32_t)check(n);
    for (n = 0x7FFF0000u; n < 0x80010000u; n++) bad += (uint32_t)check(n);
    for (n = 0xFFFF0000u; n != 0u; n++) bad += (uint32_t)check(n);
    for (i = 0; i < 1000000u; i++) { x = x * 1664525u + 1013904223u; bad += (uint32_t)check(x | 1u); bad += (uint32_t)check(x & ~1u ? x & ~1u : 2u); }
    printf("bad=%lu\n", (unsigned long)bad);
    return bad != 0u;
}
''')
    exe = tmp_path / "m"
    res = subprocess.run(["gcc", "-O2", "-std=c99", "-DFXDP_SOFT_DIVIDE", f"-I{cs.CSRC}", str(src), "-o", str(exe)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "bad=0" in out.stdout, out.stdout[-2000:]
