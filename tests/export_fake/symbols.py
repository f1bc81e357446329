"""Compile an export's C for a target and check the object files' symbols
(shared by tests/test_export.py and tests/test_export_targets.py).

Policy (deny by default): every undefined symbol of the export's objects must
be defined by another of its objects or be a libgcc *integer* helper (64-bit
shifts, multiplies, divisions on cores without them; AVR's startup copy
routine).  Soft-float helpers, malloc and friends, libm and every other C
library function (memset and memcpy included: GCC may emit calls to them for
large zero-initialisations or struct copies) are violations.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from fxdp import targets as T

STRICT = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Wconversion", "-Werror"]

LIBGCC_INT = re.compile(
    r"^__(aeabi_(u?idiv(mod)?|u?ldivmod|lmul|llsl|llsr|lasr|lcmp|ulcmp)"
    r"|(u?(div|mod|divmod)|mul|umul|add|sub|neg|cmp|ucmp|ashl|ashr|lshr|rotl|rotr|clz|ctz|popcount|parity"
    r"|bswap|ffs|umulsi|mulsi|umulhisi|mulhisi|usmulhisi)(qi|hi|si|di)[0-9](_s8)?"
    r"|do_copy_data|do_clear_bss|tablejump2__|prologue_saves__|epilogue_restores__)$")
FLOAT = re.compile(r"^__aeabi_([fd]\w*|[iu]?l?2[fd]|[fd]2\w*)$|(sf|df|tf|xf|hf)[0-9]?(_\w+)?$|^__(fix|float)")
LIBC = re.compile(r"^(malloc|calloc|realloc|free|printf|sprintf|snprintf|puts|putchar|abort|exit|memset|memcpy"
                  r"|memmove|memcmp|strlen|log\w*|exp\w*|pow\w*|sqrt\w*|sin\w*|cos\w*|floor\w*|ceil\w*"
                  r"|fabs\w*|rand|srand|time)$")


def compile_objects(target, files, include_dirs, out_dir, opt="-Os") -> list[Path]:
    """Compile files (distinct base names) with the strict flags in one compiler run; objects in out_dir."""
    t = T.get_target(target)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    argv = [t.tool("gcc"), *STRICT, *t.cflags, opt, "-ffunction-sections", "-fdata-sections",
            *[f"-I{Path(d).resolve()}" for d in include_dirs], "-c", *[str(Path(f).resolve()) for f in files]]
    p = subprocess.run(argv, capture_output=True, text=True, cwd=out_dir)
    if p.returncode:
        raise AssertionError(f"{t.name}: strict compile failed:\n$ {' '.join(argv)}\n{p.stderr}")
    return [out_dir / (Path(f).stem + ".o") for f in files]


BOARD_API = {"port_init", "port_puts", "port_exit", "port_mark"}   # board/fxdp_port.h, for main.c only


_NM_CACHE: dict = {}


def _nm(t, o) -> str:
    key = (t.name, str(o), Path(o).stat().st_mtime_ns)
    if key not in _NM_CACHE:
        _NM_CACHE[key] = subprocess.run([t.tool("nm"), str(o)], capture_output=True, text=True, check=True).stdout
    return _NM_CACHE[key]


def symbol_violations(target, objs) -> list[str]:
    t = T.get_target(target)
    undefined, defined = {}, set()
    for o in objs:
        out = _nm(t, o)
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.setdefault(parts[1], []).append(Path(o).name)
            elif len(parts) == 3 and parts[1] in "TDRBCGSVW":
                defined.add(parts[2])
    bad = []
    for sym, users in sorted(undefined.items()):
        if sym in defined or (sym in BOARD_API and set(users) <= {"main.o"}):
            continue
        if FLOAT.search(sym):
            bad.append(f"{sym} (soft float) in {users}")
        elif LIBC.match(sym):
            bad.append(f"{sym} (C library) in {users}")
        elif not LIBGCC_INT.match(sym):
            bad.append(f"{sym} (not an fxdp or libgcc integer symbol) in {users}")
    return bad
