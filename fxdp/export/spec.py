"""The validated device form of a mechanism, shared by the generator and the harness.

``device_spec(m)`` checks ``m.device_spec()`` (keys: fxdp/mechanisms/base.py)
against the real prototypes in csrc/fxdp.h; ``library_sources`` lists an
export's library files from its manifest.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

# C element types a table or an input/output may use, with (bits, signed).
CTYPES = {
    "uint8_t": (8, False), "int8_t": (8, True), "uint16_t": (16, False), "int16_t": (16, True),
    "uint32_t": (32, False), "int32_t": (32, True), "uint64_t": (64, False), "int64_t": (64, True),
}
SPEC_KEYS = ("c_function", "cfg_type", "cfg_init", "tables", "input", "output", "sources", "summary")
ALWAYS_SOURCES = ("fxdp_chacha20.c", "fxdp_rng.c", "fxdp_health.c")   # bit source, on-device DRBG, TRNG health tests
HEADERS = ("fxdp.h", "fxdp_internal.h")
MANIFEST = ".fxdp-export.json"
_IDENT = re.compile(r"^[A-Za-z_]\w*$")


def find_csrc() -> Path:
    """The csrc/ directory, looked up exactly as the cffi build does."""
    from .._cffi_build import find_csrc as _find
    return _find()


# --------------------------------------------------------------------------
# mechanism -> validated device spec

def exportable_kinds() -> list[str]:
    """Mechanism kinds (TOML `kind`) with a C device form, from fxdp.registry."""
    from ..registry import exportable_kinds as kinds
    return kinds()


@dataclass
class Param:
    text: str        # as declared, e.g. "const uint8_t *x"
    name: str
    base: str        # element type, e.g. "uint8_t"
    pointer: bool
    const: bool


@dataclass
class DeviceSpec:
    c_function: str
    cfg_type: str
    cfg_init: str
    tables: list            # [(c_name, c_elem_type, [ints])]
    input: dict             # {"ctype", "count"}
    output: dict            # {"ctype", "count"}
    sources: list           # csrc file names (or absolute paths) the entry point needs
    summary: str
    params: list            # Param list of the entry point after (rng, cfg)
    raw: dict
    # c_function's "_rom" twin when csrc declares one with the same parameters: it reads the cfg's
    # tables from program memory on AVR (where the exporter then places them), else it is c_function
    rom_function: str | None = None

    @property
    def in_place(self) -> bool:
        """The entry point draws into the caller's output buffer and zeroes it on a failure during
        the draws (device_spec()["in_place"]); otherwise out is written only on FXDP_OK."""
        return bool(self.raw.get("in_place", False))

    @property
    def workspace(self) -> str | None:
        """The caller-supplied workspace type (device_spec()["workspace"], e.g. "fxdp_lgrr_work") of
        c_function's "_w" form, which the generated fxdp_release calls with a static workspace (RAM,
        not stack); None: the release calls c_function itself."""
        return self.raw.get("workspace")

    @property
    def in_param(self) -> Param:
        return self.params[0]

    @property
    def out_param(self) -> Param:
        return self.params[-1]


def _mechanism_error(what: str) -> ValueError:
    kinds = ", ".join(exportable_kinds())
    return ValueError(f"{what}; exportable mechanisms (TOML kind / make_<kind>): {kinds}")


def device_spec(m, csrc: Path | None = None) -> DeviceSpec:
    """m.device_spec(), checked against the C headers (the entry point's real prototype)."""
    from ..mechanisms.base import Mechanism
    if not isinstance(m, Mechanism):
        raise TypeError(str(_mechanism_error(f"not a mechanism: {m!r}")))
    if not hasattr(m, "device_spec"):
        raise _mechanism_error(f"mechanism {m.kind!r} has no C device form yet (no device_spec())")
    try:
        raw = m.device_spec()
    except NotImplementedError:
        raise _mechanism_error(f"mechanism {m.kind!r} has no C device form yet (no device_spec())") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{m.kind}.device_spec() must return a dict, got {type(raw).__name__}")
    missing = [k for k in SPEC_KEYS if k not in raw]
    if missing:
        raise ValueError(f"{m.kind}.device_spec() lacks {missing}; needs {', '.join(SPEC_KEYS)}")
    for key in ("c_function", "cfg_type"):
        if not _IDENT.match(str(raw[key])):
            raise ValueError(f"{m.kind}.device_spec()[{key!r}] is not a C identifier: {raw[key]!r}")
    tables = []
    for entry in raw["tables"]:
        name, ctype, values = entry
        if not _IDENT.match(name):
            raise ValueError(f"table name {name!r} is not a C identifier")
        if ctype not in CTYPES:
            raise ValueError(f"table {name}: element type {ctype!r} not one of {', '.join(CTYPES)}")
        bits, signed = CTYPES[ctype]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        values = [int(v) for v in values]
        bad = [v for v in values if not lo <= v <= hi]
        if bad:
            raise ValueError(f"table {name}: values out of {ctype} range, e.g. {bad[0]}")
        if not values:
            raise ValueError(f"table {name} is empty (C has no empty arrays)")
        tables.append((name, ctype, values))
    io = {}
    for key in ("input", "output"):
        d = dict(raw[key])
        if d.get("ctype") not in CTYPES:
            raise ValueError(f"{m.kind}.device_spec()[{key!r}]['ctype'] must be one of {', '.join(CTYPES)}, "
                             f"got {d.get('ctype')!r}")
        d["count"] = int(d.get("count", 1))
        if d["count"] < 1:
            raise ValueError(f"{m.kind}.device_spec()[{key!r}]['count'] must be >= 1")
        io[key] = d
    csrc = Path(csrc) if csrc is not None else find_csrc()
    sources = []
    for s in list(ALWAYS_SOURCES) + list(raw["sources"]):
        p = Path(s)
        path = p if p.is_absolute() else csrc / p
        if not path.is_file():
            raise ValueError(f"{m.kind}.device_spec() names source {s!r}, not found in {csrc}")
        if path.name not in [q.name for q in sources]:
            sources.append(path)
    params = _entry_params(raw["c_function"], raw["cfg_type"], csrc, sources)
    rom = None
    if tables:
        try:
            if _entry_params(raw["c_function"] + "_rom", raw["cfg_type"], csrc, sources) == params:
                rom = raw["c_function"] + "_rom"
        except ValueError:
            rom = None
    if raw.get("workspace") is not None:
        _check_workspace(raw["c_function"], raw["cfg_type"], str(raw["workspace"]), params, csrc, sources)
    spec = DeviceSpec(raw["c_function"], raw["cfg_type"], str(raw["cfg_init"]), tables, io["input"],
                      io["output"], sources, str(raw["summary"]), params, raw, rom)
    _check_io(spec, m.kind)
    return spec


def _check_workspace(fn, cfg_type, work_type, params, csrc, sources):
    """fn + "_w" must be declared with fn's parameters and a trailing `<work_type> *work`."""
    if not _IDENT.match(work_type):
        raise ValueError(f"{fn}: device_spec()['workspace'] is not a C identifier: {work_type!r}")
    w_params = _entry_params(fn + "_w", cfg_type, csrc, sources)
    last = w_params[-1] if w_params else None
    if ([p.text for p in w_params[:-1]] != [p.text for p in params] or last is None
            or last.base != work_type or not last.pointer or last.const):
        raise ValueError(f"{fn}_w: expected the parameters of {fn} and a trailing '{work_type} *work', got "
                         f"{[p.text for p in w_params]}")


_PROTO = r"fxdp_status\s+{fn}\s*\(([^;{{}}]*?)\)\s*;"


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def private_headers(sources) -> list[Path]:
    """The headers the sources include with ``#include "..."``, found beside the including file, and
    theirs in turn (fxdp_mech_hybrid.h, fxdp_memoized.h, a plug-in's own prototype), in first-seen
    order; HEADERS, which every export ships, are not repeated."""
    out, todo = [], list(sources)
    while todo:
        src = todo.pop(0)
        for name in _INCLUDE.findall(src.read_text()):
            h = src.parent / name
            if name not in HEADERS and h.is_file() and h not in out:
                out.append(h)
                todo.append(h)
    return out


def _entry_params(fn, cfg_type, csrc, sources) -> list:
    """Parameters of the entry point after (fxdp_rng *, const cfg *), from its declaration."""
    headers = [csrc / h for h in HEADERS] + private_headers(sources)
    text = "\n".join(h.read_text() for h in headers if h.is_file())
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    m = re.search(_PROTO.format(fn=re.escape(fn)), text)
    if not m:
        raise ValueError(f"entry point {fn} is not declared in {', '.join(str(h) for h in headers)}")
    parts = [p.strip() for p in m.group(1).split(",")]
    if len(parts) < 4:
        raise ValueError(f"{fn}: expected (fxdp_rng *r, const {cfg_type} *cfg, <input>, <output>), "
                         f"got ({m.group(1).strip()})")
    if not re.match(r"^fxdp_rng\s*\*\s*\w+$", parts[0]):
        raise ValueError(f"{fn}: first parameter must be fxdp_rng *, got {parts[0]!r}")
    if not re.match(rf"^const\s+{re.escape(cfg_type)}\s*\*\s*\w+$", parts[1]):
        raise ValueError(f"{fn}: second parameter must be const {cfg_type} *, got {parts[1]!r}")
    params = []
    for p in parts[2:]:
        pm = re.match(r"^(const\s+)?(\w+)\s*(\*)?\s*(\w+)\s*(\[\s*\w*\s*\])?$", p)
        if not pm:
            raise ValueError(f"{fn}: cannot parse parameter {p!r}")
        const, base, star, name, arr = pm.groups()
        params.append(Param(p, name, base, bool(star or arr), bool(const)))
    return params


def _check_io(spec: DeviceSpec, kind):
    if len(spec.params) != 2:
        raise ValueError(f"{spec.c_function}: expected exactly an input and an output parameter after the "
                         f"config, got {[p.text for p in spec.params]}")
    pin, pout = spec.params
    if pin.base != spec.input["ctype"]:
        raise ValueError(f"{kind}: device_spec input ctype {spec.input['ctype']} but {spec.c_function} takes "
                         f"{pin.text!r}")
    if pout.base != spec.output["ctype"] or not pout.pointer or pout.const:
        raise ValueError(f"{kind}: device_spec output {spec.output['ctype']} but {spec.c_function} writes "
                         f"through {pout.text!r}")
    if spec.input["count"] > 1 and not pin.pointer:
        raise ValueError(f"{kind}: input count {spec.input['count']} but {spec.c_function} takes {pin.text!r}")


# --------------------------------------------------------------------------
# generated C

def _c_literal(v: int, ctype: str) -> str:
    bits, signed = CTYPES[ctype]
    if bits <= 16:
        return str(v) + ("" if signed else "u")
    mac = ("INT" if signed else "UINT") + str(bits) + "_C"
    if signed and v == -(1 << (bits - 1)):
        return f"(-{mac}({(1 << (bits - 1)) - 1}) - 1)"
    return f"{mac}({v})"


def library_sources(fw_dir) -> list[Path]:
    """The C files of an export's library (src/*.c), from its manifest."""
    fw = Path(fw_dir)
    man = fw / MANIFEST
    if not man.is_file():
        raise ValueError(f"{fw} is not an fxdp export (no {MANIFEST}); run `fxdp export` first")
    rels = json.loads(man.read_text())["files"]
    return [fw / r for r in rels if r.startswith("src/") and r.endswith(".c")]
