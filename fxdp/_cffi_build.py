"""cffi (API mode) build of the host C library: module ``fxdp._fxdp_c``.

The cdef is generated from the real headers, ``csrc/fxdp.h`` and
``csrc/host/fxdp_host.h`` (never a hand copy), by :func:`header_cdef`:
preprocessor lines are dropped (``#ifdef __cplusplus`` blocks with their
contents), ``#define FXDP_NAME <integer expression>`` constants are evaluated
into cdef ``#define``s, and ``static inline`` function bodies become plain
declarations.  Every ``csrc/*.c`` and ``csrc/host/*.c`` file is compiled in.

Used by:
  * setup.py (``cffi_modules=["fxdp/_cffi_build.py:ffibuilder"]``), for
    ``pip install .``, which builds the extension next to the package;
  * ``fxdp.native``, which builds it into a cache directory on first use
    when the package runs from a source checkout without a compiled module.

The C sources are looked up in ``FXDP_CSRC`` (if set), then the repository's
``csrc/`` (source checkout, sdist), then ``fxdp/csrc/`` (the copy shipped
inside an installed package).
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import sys
from pathlib import Path

from cffi import FFI

MODULE_NAME = "fxdp._fxdp_c"
HEADERS = ("fxdp.h", "host/fxdp_host.h")
_HERE = Path(__file__).resolve().parent

# Python callback for FXDP_MODE_HOOK / the DRBG seed (fxdp.native.new_rng_hook).
_EXTRA_CDEF = """
extern "Python" int _fxdp_py_fill(void *ctx, uint8_t *out, size_t n);
const char *fxdp_py_source_hash(void);
"""


def find_csrc():
    """The directory holding fxdp.h and the C sources."""
    candidates = []
    if os.environ.get("FXDP_CSRC"):
        candidates.append(Path(os.environ["FXDP_CSRC"]))
    candidates += [_HERE.parent / "csrc", _HERE / "csrc"]
    for c in candidates:
        if (c / "fxdp.h").is_file():
            return c.resolve()
    raise FileNotFoundError("fxdp C sources not found; looked in " + ", ".join(map(str, candidates)))


def source_files(csrc):
    """The .c files compiled into the module, in a stable order."""
    csrc = Path(csrc)
    return sorted(csrc.glob("*.c")) + sorted((csrc / "host").glob("*.c"))


def source_hash(csrc=None):
    """sha256 over every header and C file plus this build script (staleness check)."""
    csrc = Path(csrc) if csrc is not None else find_csrc()
    h = hashlib.sha256()
    files = sorted(csrc.glob("*.[ch]")) + sorted((csrc / "host").glob("*.[ch]"))
    for f in files + [Path(__file__).resolve()]:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:32]


# ---- header -> cdef ---------------------------------------------------------

_INT_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)([uUlL]+)\b")
_CONST_MACRO = re.compile(r"\b(?:U?INT(?:8|16|32|64|MAX)_C)\s*\(")


def _eval_int(expr, known):
    """Evaluate a C integer constant expression (literals, known macros, + - * / % << >> | & ^ ~, casts
    to standard integer types are not supported); returns int or None."""
    e = _INT_SUFFIX.sub(r"\1", expr)
    e = _CONST_MACRO.sub("(", e)
    try:
        tree = ast.parse(e.strip(), mode="eval")
    except SyntaxError:
        return None
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: int(a / b), ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b, ast.BitOr: lambda a, b: a | b,
           ast.BitAnd: lambda a, b: a & b, ast.BitXor: lambda a, b: a ^ b}

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name) and n.id in known:
            return known[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v if isinstance(n.op, ast.UAdd) else ~v
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            return ops[type(n.op)](ev(n.left), ev(n.right))
        raise ValueError(ast.dump(n))

    try:
        return ev(tree.body)
    except (ValueError, ZeroDivisionError, TypeError):
        return None


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: " " + "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _inline_bodies_to_decls(text):
    """``static inline T f(args) { ... }`` -> ``T f(args);`` (cffi parses declarations only)."""
    out, i = [], 0
    pat = re.compile(r"\bstatic\s+inline\b|\binline\s+static\b")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):      # a declaration, keep it (without static inline)
            out.append(text[m.end():semi + 1])
            i = semi + 1
            continue
        depth, j = 0, brace
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append(text[m.end():brace].rstrip() + ";")
        i = j + 1


def header_cdef(path, known=None):
    """The cffi cdef text of one header (see the module docstring)."""
    known = {} if known is None else known
    lines = Path(path).read_text().replace("\\\n", " ").splitlines()
    text = _strip_comments("\n".join(lines))
    out, skip_stack, defines = [], [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            d = s[1:].strip()
            if d.startswith("if"):
                skip_stack.append("__cplusplus" in d and not d.startswith("ifndef"))
            elif d.startswith("endif"):
                if skip_stack:
                    skip_stack.pop()
            elif d.startswith(("else", "elif")):
                if skip_stack and "__cplusplus" not in d:
                    skip_stack[-1] = False
            elif d.startswith("define") and not any(skip_stack):
                m = re.match(r"define\s+(FXDP_\w+)\s+(.+)$", d)   # object-like FXDP_ macros only
                if m:
                    v = _eval_int(m.group(2), known)
                    if v is not None:
                        known[m.group(1)] = v
                        defines.append(f"#define {m.group(1)} {v}")
            continue
        if any(skip_stack):
            continue
        out.append(line)
    body = _inline_bodies_to_decls("\n".join(out))
    body = re.sub(r"\n\s*(?=\n)", "", body)             # drop blank lines
    body = re.sub(r"[ \t]+\n", "\n", body)
    return "\n".join(defines) + "\n" + body


_DEF_RE = re.compile(r"\b(fxdp_\w+)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{")


FLEET_TABLE = "host/fxdp_host_fleets.h"
_MEMO_RE = re.compile(r"^FXDP_I_MEMO_ENTRY_POINTS\((fxdp_\w+),", re.M)
_FLEET_RE = re.compile(r"^FLEET(_CUSTOM)?\(([^\n]*)\)$", re.M)


def fleet_table(csrc):
    """The rows of csrc/host/fxdp_host_fleets.h (tools/gen_c_glue.py writes it from fxdp.h), the
    X-macro list fxdp_host_mech.c expands into the fxdp_fleet_<kind> entry points: [{kind, entry, cfg, x, out, custom, x_max, out_max}] in order."""
    rows = []
    for custom, args in _FLEET_RE.findall(_strip_comments((Path(csrc) / FLEET_TABLE).read_text())):
        parts = [a.strip() for a in re.split(r",(?![^(]*\))", args)]
        rows.append({"kind": parts[0], "entry": parts[1], "cfg": parts[2], "x": parts[3], "out": parts[4],
                     "custom": bool(custom), "x_max": parts[-2], "out_max": parts[-1]})
    return rows


def defined_functions(csrc):
    """Names of the fxdp_* functions defined (with a body) in the compiled C files or, as
    static inline functions, in the headers, and the fleet entry points the table defines."""
    names = set()
    for f in source_files(csrc) + [Path(csrc) / h for h in HEADERS]:
        names.update(_DEF_RE.findall(_strip_comments(f.read_text())))
    names.update(f"fxdp_fleet_{r['kind']}" for r in fleet_table(csrc))
    for f in source_files(csrc):               # FXDP_I_MEMO_ENTRY_POINTS(NAME, ...) defines four
        for name in _MEMO_RE.findall(_strip_comments(f.read_text())):
            names.update({name, name + "_w", name + "_ct", name + "_ct_w"})
    return names


def _split_top_level(text):
    """Split declarations at top-level semicolons (braces of struct/enum bodies respected)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            out.append(text[start:i + 1])
            start = i + 1
    out.append(text[start:])
    return out


def drop_undefined(cdef, defined):
    """Remove function prototypes that no compiled C file defines (a header section whose .c
    file does not exist yet would otherwise make the whole module fail to load); returns
    (cdef, dropped names).  tests/test_c_rng.py checks that nothing is dropped."""
    kept, dropped = [], []
    for decl in _split_top_level(cdef):
        body = decl.strip()
        m = re.search(r"\b(fxdp_\w+)\s*\(", body)
        is_proto = (m is not None and not body.startswith(("typedef", "#", "extern \"Python\""))
                    and "{" not in body and "(*" not in body[:m.start()])
        if is_proto and m.group(1) not in defined:
            dropped.append(m.group(1))
            continue
        kept.append(decl)
    return "".join(kept), dropped


def build_cdef(csrc, with_dropped=False):
    known = {}
    parts = [header_cdef(Path(csrc) / h, known) for h in HEADERS]
    cdef, dropped = drop_undefined("\n".join(parts), defined_functions(csrc))
    cdef += _EXTRA_CDEF
    return (cdef, dropped) if with_dropped else cdef


def make_ffibuilder(csrc=None, relative_to=None):
    """An FFI builder for MODULE_NAME over the sources in csrc.

    relative_to: make source paths relative to this directory when possible
    (setuptools prefers relative paths: objects then go under build/temp*)."""
    csrc = Path(csrc) if csrc is not None else find_csrc()
    ffi = FFI()
    ffi.cdef(build_cdef(csrc))
    sources = []
    for f in source_files(csrc):
        p = str(f)
        if relative_to is not None:
            try:
                p = os.path.relpath(f, relative_to)
            except ValueError:
                pass
            if p.startswith(".."):
                p = str(f)
        sources.append(p)
    preamble = (
        '#include "fxdp.h"\n'
        '#include "host/fxdp_host.h"\n'
        f'static const char *fxdp_py_source_hash(void) {{ return "{source_hash(csrc)}"; }}\n'
    )
    # Hidden visibility makes the library's internal calls direct (no PLT) and, with -flto,
    # lets the bulk loops of host/fxdp_host.c inline the samplers of the other files.
    # PyInit__fxdp_c stays exported (PyMODINIT_FUNC marks it visible).
    extra = [] if sys.platform == "win32" else ["-O2", "-fvisibility=hidden", "-flto"]
    ffi.set_source(MODULE_NAME, preamble, sources=sources, include_dirs=[str(csrc)],
                   extra_compile_args=extra, extra_link_args=extra)
    return ffi


def _default_builder():
    try:
        return make_ffibuilder(relative_to=os.getcwd())
    except FileNotFoundError:
        return None


if __name__ in ("__cffi__", "__main__"):     # run by setuptools (cffi_modules) or by hand
    ffibuilder = _default_builder()
else:                                         # imported (fxdp.native): build the FFI only on demand
    def __getattr__(name):
        if name == "ffibuilder":
            return _default_builder()
        raise AttributeError(name)

if __name__ == "__main__":  # python fxdp/_cffi_build.py: build in place (next to the package)
    ffibuilder.compile(tmpdir=str(_HERE.parent), verbose=True)
