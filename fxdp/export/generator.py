"""`fxdp export`: a self-contained C99 source set for one mechanism and target.

The generated tree (``out_dir``)::

    README.md                 what is here, the entropy-hook contract, how to build
    src/                      the library: the needed csrc/ files (copied) plus
      fxdp_config.h/.c        generated: baked integer constants and tables, fxdp_release()
    main.c                    example firmware (board hook stub clearly marked)
    board/                    the target's port: startup, linker script, output/exit
    Makefile                  plain GNU make (lib, example, run, size)
    CMakeLists.txt            (+ cmake/<target>.cmake toolchain file for MCU targets)
    library.properties        } Arduino library layout, AVR and Cortex-M targets only
    examples/<name>/<name>.ino}
    .fxdp-export.json         manifest: the generated files and what they were made from

The mechanism describes its device form through ``m.device_spec()`` (see
:func:`device_spec`); this module never hard-codes a mechanism's C.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from .. import targets as _targets
from . import templates as T

# C element types a table or an input/output may use, with (bits, signed).
CTYPES = {
    "uint8_t": (8, False), "int8_t": (8, True), "uint16_t": (16, False), "int16_t": (16, True),
    "uint32_t": (32, False), "int32_t": (32, True), "uint64_t": (64, False), "int64_t": (64, True),
}
SPEC_KEYS = ("c_function", "cfg_type", "cfg_init", "tables", "input", "output", "sources", "summary")
ALWAYS_SOURCES = ("fxdp_chacha20.c", "fxdp_rng.c")     # bit source + on-device DRBG
HEADERS = ("fxdp.h", "fxdp_internal.h")
ARDUINO_PREFIXES = ("avr", "cortex-m")
MANIFEST = ".fxdp-export.json"
_IDENT = re.compile(r"^[A-Za-z_]\w*$")


def find_csrc() -> Path:
    """The csrc/ directory, looked up exactly as the cffi build does."""
    from .._cffi_build import find_csrc as _find
    return _find()


# --------------------------------------------------------------------------
# mechanism -> validated device spec

def exportable_kinds() -> list[str]:
    """Mechanism kinds (TOML `kind`) whose objects offer device_spec()."""
    from ..config import constructors
    out = []
    for kind, make in constructors().items():
        cls = _constructed_class(make)
        # a class may offer device_spec() for some of the kinds it builds only
        if cls is None or (hasattr(cls, "device_spec") and kind not in getattr(cls, "no_device_form", ())):
            out.append(kind)
    return out


def _constructed_class(make):
    ann = getattr(make, "__annotations__", {}).get("return")
    if isinstance(ann, type):
        return ann
    # constructors are thin wrappers make_x(...) -> X(...); find X by name in its module
    import sys
    mod = sys.modules.get(make.__module__)
    src_names = getattr(make, "__code__", None)
    if mod is None or src_names is None:
        return None
    for name in src_names.co_names:
        obj = getattr(mod, name, None)
        if isinstance(obj, type):
            return obj
    return None


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
        raise _mechanism_error(f"not a mechanism: {m!r}")
    if not hasattr(m, "device_spec"):
        raise _mechanism_error(f"mechanism {m.kind!r} has no C device form yet (no device_spec())")
    raw = m.device_spec()
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
    spec = DeviceSpec(raw["c_function"], raw["cfg_type"], str(raw["cfg_init"]), tables, io["input"],
                      io["output"], sources, str(raw["summary"]), params, raw, rom)
    _check_io(spec, m.kind)
    return spec


_PROTO = r"fxdp_status\s+{fn}\s*\(([^;{{}}]*?)\)\s*;"


def _entry_params(fn, cfg_type, csrc, sources) -> list:
    """Parameters of the entry point after (fxdp_rng *, const cfg *), from its declaration."""
    headers = [csrc / h for h in HEADERS] + [s.with_suffix(".h") for s in sources if s.with_suffix(".h").is_file()]
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


def _wrap(text: str, width: int = 72, indent: str = " *   ") -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(indent + cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(indent + cur)
    return lines


def _fmt(v) -> str:
    from fractions import Fraction
    if isinstance(v, Fraction):
        return f"{v} (~{float(v):.10g})" if v.denominator != 1 else str(v.numerator)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _audit_text(m) -> tuple[str, str]:
    try:
        from ..audit import audit
        rep = audit(m)
        return repr(rep.epsilon_realized), rep.method
    except Exception as exc:       # an audit that cannot run must not block the export
        return "not audited", f"audit unavailable: {type(exc).__name__}: {exc}"


def header_comment(m, spec: DeviceSpec, target) -> list[str]:
    eps_real, method = _audit_text(m)
    realized = m.realized() if hasattr(m, "realized") else {}
    ct = bool(getattr(m, "constant_time", False))
    out = [" * fxdp_config.h -- GENERATED by fxdp " + __version__ + " (`fxdp export`); do not edit.",
           " * Re-run `fxdp export` to change the mechanism or its parameters.",
           " *",
           " * Mechanism:",
           *_wrap(repr(m)),
           *_wrap(spec.summary),
           " * Realized parameters (the exact values baked in below):"]
    for k, v in realized.items():
        out += _wrap(f"{k} = {_fmt(v)}")
    out += [" * Epsilon (d_in = 1):",
            f" *   claimed   {m.epsilon!r}   (privacy map, rounded up)",
            f" *   realized  {eps_real}   (fxdp.audit: {method})",
            " * Constant-time mode: " + ("YES" if ct else "NO")]
    if ct:
        out += _wrap("every release executes the same instructions and reads the same number of random "
                     "bits whatever the input and the random values (checked by instruction counts on "
                     "QEMU and cycle counts on AVR).")
    else:
        out += _wrap("lazy form: run time and random bits used depend on the random draw and can reveal "
                     "the output to anyone who can time the device or watch its entropy source. Use "
                     "constant_time = true where that is observable.")
    out += [f" * Target: {target.name} -- {target.description}",
            f" *   int is {target.int_bits} bits; hardware multiply: {'yes' if target.hw_multiply else 'no'},"
            f" divide: {'yes' if target.hw_divide else 'no (libgcc integer helpers)'}",
            " *",
            " * Entry point:",
            f" *   fxdp_status fxdp_release(fxdp_rng *r, {_wrapper_params(spec)});",
            " *   FXDP_OK: the output is written.  Anything else: NOTHING is written",
            " *   (FXDP_ERR_ENTROPY: the entropy source failed; the rng stays failed).",
            " *",
            " * ENTROPY-HOOK CONTRACT (the board must implement):",
            " *   int board_fill(void *ctx, uint8_t *out, size_t n);",
            " *   - write n bytes from a cryptographically secure TRUE random source",
            " *     (hardware TRNG, conditioned) to out[0..n), then return 0;",
            " *   - return non-zero on ANY failure (not ready, health test failed,",
            " *     timeout); never return 0 with stale, constant or predictable bytes;",
            " *   - it may be called from fxdp_rng_init_drbg (44 bytes, once: ChaCha20",
            " *     DRBG key + nonce) or, with fxdp_rng_init_hook, for 4 bytes per",
            " *     32-bit word drawn (raw TRNG mode, no DRBG).",
            " *   After a failure the fxdp_rng fails every later draw (sticky); re-run",
            " *   the init to recover.  An fxdp_rng is not reentrant: one per context.",
            " *   Recommended: fxdp_rng_init_drbg(&rng, board_fill, ctx) once at boot.",
            " *",
            " * Only <stdint.h> and <stddef.h> are used: no malloc, no floating point,",
            " * no libm, no other C library function."]
    return out


def _wrapper_params(spec: DeviceSpec) -> str:
    pin, pout = spec.params
    if spec.input["count"] > 1 or pin.pointer:
        x = "const fxdp_input_t x[FXDP_INPUT_COUNT]"
    else:
        x = "fxdp_input_t x"
    return f"{x}, fxdp_output_t y[FXDP_OUTPUT_COUNT]"


def progmem_target(target) -> bool:
    """AVR: const data is copied to RAM unless placed in program memory (read with LPM)."""
    return target.kind == "simavr" or (target.prefix or "").startswith("avr")


def entry_function(spec: DeviceSpec, target) -> str:
    """The csrc function fxdp_release calls: the spec's c_function, or on AVR its "_rom" twin
    (the tables then go to program memory and take no RAM)."""
    return spec.rom_function if spec.rom_function and progmem_target(target) else spec.c_function


# The generated tables' placement: the same condition as FXDP_I_PROGMEM in csrc/fxdp_internal.h.
_ROM_MACRO = ["/* AVR (GCC): the tables live in program memory; the *_rom entry point reads them with LPM",
              " * (csrc/fxdp_internal.h, fxdp_i_rom_u32).  Elsewhere plain const data. */",
              "#if defined(__AVR__) && defined(__GNUC__) && !defined(__AVR_TINY__)",
              "#define FXDP_CONFIG_ROM __attribute__((__progmem__))",
              "#else",
              "#define FXDP_CONFIG_ROM",
              "#endif", ""]


def render_config_h(m, spec: DeviceSpec, target) -> str:
    ct = 1 if getattr(m, "constant_time", False) else 0
    mech = repr(m).replace("\\", "\\\\").replace('"', '\\"')
    lines = ["/*", *header_comment(m, spec, target), " */",
             "#ifndef FXDP_CONFIG_H", "#define FXDP_CONFIG_H", "",
             "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
             '#include "fxdp.h"',
             *[f'#include "{s.with_suffix(".h").name}"' for s in spec.sources if s.with_suffix(".h").is_file()],
             "",
             f'#define FXDP_CONFIG_MECHANISM "{mech}"',
             f'#define FXDP_CONFIG_TARGET "{target.name}"',
             f"#define FXDP_CONFIG_CONSTANT_TIME {ct}",
             f'#define FXDP_CONFIG_EPSILON_CLAIMED "{m.epsilon!r}"',
             f"#define FXDP_INPUT_COUNT {spec.input['count']}u",
             f"#define FXDP_OUTPUT_COUNT {spec.output['count']}u", "",
             f"typedef {spec.input['ctype']} fxdp_input_t;    /* one input element  */",
             f"typedef {spec.output['ctype']} fxdp_output_t;   /* one output element */", "",
             "/* The baked parameters (const: placed in flash/ROM where the toolchain does that). */",
             f"extern const {spec.cfg_type} fxdp_cfg;", "",
             f"/* One release: {entry_function(spec, target)}(r, &fxdp_cfg, x, y). */",
             f"fxdp_status fxdp_release(fxdp_rng *r, {_wrapper_params(spec)});", "",
             "#ifdef __cplusplus", "}", "#endif", "", "#endif /* FXDP_CONFIG_H */", ""]
    return "\n".join(lines)


def render_config_c(m, spec: DeviceSpec, target) -> str:
    lines = ["/*",
             f" * fxdp_config.c -- GENERATED by fxdp {__version__} (`fxdp export`); do not edit.",
             f" * {repr(m)} for {target.name}; see fxdp_config.h.",
             " */",
             '#include "fxdp_config.h"', ""]
    fn = entry_function(spec, target)
    rom = fn != spec.c_function
    if rom:
        lines += _ROM_MACRO
    for name, ctype, values in spec.tables:
        lines.append(f"static const {ctype} {name}[{len(values)}]{' FXDP_CONFIG_ROM' if rom else ''} = {{")
        lits = [_c_literal(v, ctype) for v in values]
        per = 4 if CTYPES[ctype][0] == 64 else 6
        for i in range(0, len(lits), per):
            lines.append("    " + ", ".join(lits[i:i + per]) + ("," if i + per < len(lits) else ""))
        lines += ["};", ""]
    init = spec.cfg_init.strip()
    lines += [f"const {spec.cfg_type} fxdp_cfg = {init};", "",
              f"fxdp_status fxdp_release(fxdp_rng *r, {_wrapper_params(spec)})",
              "{",
              f"    return {fn}(r, &fxdp_cfg, x, y);",
              "}", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# board port and build files

def _board_files(target) -> list[Path]:
    """The port sources plus linker scripts the target's ldflags name (copied flat into board/)."""
    tdir = _targets.targets_dir()
    files = list(target.port_sources)
    for flag in target.ldflags:
        if flag.startswith("-T"):
            files.append(Path(flag[2:]))
        elif flag.startswith("-L"):
            files += sorted(Path(flag[2:]).glob("*.ld"))
    files.append(tdir / "port" / "include" / "fxdp_port.h")
    if target.kind == "simavr":
        files.append(tdir / "tools" / "simavr_run.c")
    seen, out = {}, []
    for f in files:
        if f.name in seen:
            if seen[f.name] != f.resolve():
                raise RuntimeError(f"board file name clash: {seen[f.name]} and {f}")
            continue
        seen[f.name] = f.resolve()
        out.append(f)
    return out


def _board_ldflags(target) -> list[str]:
    out = []
    for flag in target.ldflags:
        if flag.startswith("-T"):
            out.append(f"-Tboard/{Path(flag[2:]).name}")
        elif flag.startswith("-L"):
            out.append("-Lboard")
        else:
            out.append(flag)
    return out


def build_packages(target) -> list[str]:
    """Debian packages needed to compile for the target (not to emulate it)."""
    keys = [k for k in target.requires if k == target.tool("gcc") or k.startswith("/usr/lib/avr")]
    pkgs = sorted({target.requires[k] for k in keys}, key=lambda p: (not p.startswith("gcc"), p))
    return pkgs or ["gcc"]


def emulator_packages(target) -> dict:
    """{program: Debian package} needed to run the example under emulation."""
    if target.kind == "native":
        return {}
    prog = target.emulator["command"][0]
    if target.kind == "qemu":
        return {prog: target.requires.get(prog, "qemu-system")}
    return {"simavr_run (libsimavr)": "libsimavr-dev libelf-dev"}


def _run_command(target) -> tuple[str, str]:
    """(extra prerequisites, recipe) of the Makefile's run target."""
    em = target.emulator
    if target.kind == "native":
        return "", "\t./$(EXAMPLE)"
    if target.kind == "qemu":
        argv = ["$(EXAMPLE)" if a == "{elf}" else a for a in em["command"]]
        prog, pkg = argv[0], emulator_packages(target)[argv[0]]
        return "", (f"\t@command -v {prog} >/dev/null || {{ echo '{prog} not found: apt-get install {pkg}'; exit 1; }}\n"
                    "\t" + " ".join(argv))
    # simavr: the small libsimavr runner shipped in board/ (needs libsimavr-dev, libelf-dev)
    return (" $(BUILD)/simavr_run",
            f"\t$(BUILD)/simavr_run $(EXAMPLE) {em.get('mcu')} {em.get('frequency')} $(BUILD)/simavr_result.txt;"
            " \\\n\t  code=$$(head -n1 $(BUILD)/simavr_result.txt | cut -d' ' -f2); exit $$code")


def _board_cflags() -> str:
    """The port's flags (fxdp.targets.PORT_CFLAGS: gnu99, no loop-to-memset) without -Werror."""
    return " ".join(f for f in _targets.PORT_CFLAGS if f != "-Werror")


def render_makefile(m, spec, target, lib_srcs, board_srcs) -> str:
    is_avr = target.kind == "simavr"
    is_host = target.kind == "native"
    extra_rules, extra_all, extra_phony, extra_help = "", "", "", ""
    if not is_host:
        extra_all = " $(EXAMPLE:.elf=.hex) size"
        extra_rules = ("\n%.hex: %.elf\n\t$(OBJCOPY) -O ihex -R .eeprom -R .mmcu $< $@\n")
    if is_avr:
        extra_phony = " flash"
        extra_help = ("#   make flash PORT=/dev/ttyACM0   program an Arduino Uno class board with avrdude\n")
        extra_rules += ("\nPORT ?= /dev/ttyACM0\nflash: $(EXAMPLE:.elf=.hex)\n"
                        "\tavrdude -p m328p -c arduino -P $(PORT) -b 115200 -U flash:w:$<:i\n"
                        "\n$(BUILD)/simavr_run: board/simavr_run.c\n\t@mkdir -p $(dir $@)\n"
                        "\t@test -f /usr/include/simavr/sim_avr.h || { echo 'libsimavr not found: apt-get install "
                        "libsimavr-dev libelf-dev simavr'; exit 1; }\n"
                        "\tgcc -O2 -I/usr/include/simavr -o $@ $< -lsimavr -lelf\n")
    run_deps, run_recipe = _run_command(target)
    pkgs = " ".join(build_packages(target))
    return T.render(
        T.MAKEFILE, mechanism_kind=m.kind, target=target.name, emulator=target.emulator.get("kind"),
        extra_help=extra_help, toolchain_note=f"{target.prefix or 'host '}gcc ({target.description})",
        prefix=target.prefix, packages=pkgs, cpuflags=" ".join(target.cflags),
        ldflags=" ".join(_board_ldflags(target)), libs=" ".join(target.libs),
        lib_srcs=" ".join(lib_srcs), board_srcs=" ".join(board_srcs),
        exe_suffix="" if is_host else ".elf", extra_phony=extra_phony, extra_all=extra_all,
        extra_rules=extra_rules, size_flags="-A " if not is_host else "", run_deps=run_deps,
        run_recipe=run_recipe, board_cflags=_board_cflags())


def render_cmake(m, spec, target, lib_srcs, board_srcs) -> tuple[str, str | None]:
    is_host = target.kind == "native"
    cpu = "".join(f" {f}" for f in target.cflags)
    ld = "".join(f"{f} " for f in _board_ldflags(target)).replace("-Tboard/", "-T${CMAKE_CURRENT_SOURCE_DIR}/board/")
    ld = ld.replace("-Lboard", "-L${CMAKE_CURRENT_SOURCE_DIR}/board")
    has_asm = any(s.endswith(".S") for s in board_srcs)
    libs = " ".join(target.libs)
    text = T.render(
        T.CMAKE, mechanism_kind=m.kind, target=target.name,
        cmake_toolchain_arg="" if is_host else f" -DCMAKE_TOOLCHAIN_FILE=cmake/{target.name}.cmake",
        cmake_asm=" ASM" if has_asm else "",
        cmake_lib_srcs="".join(f"  {s}\n" for s in lib_srcs),
        cmake_board_srcs="".join(f"  {s}\n" for s in board_srcs),
        cmake_cpuflags=cpu, cmake_ldflags=ld,
        board_cflags=" ".join(f for f in _targets.PORT_CFLAGS if f not in ("-Werror",) and not f.startswith("-std")),
        cmake_link_libs=f"  target_link_libraries(fxdp_example PRIVATE {libs})\n" if libs else "")
    toolchain = None
    if not is_host:
        proc = {"simavr": "avr"}.get(target.kind, "arm" if target.prefix.startswith("arm") else "riscv32")
        toolchain = T.render(T.CMAKE_TOOLCHAIN, target=target.name, processor=proc, prefix=target.prefix)
    return text, toolchain


def _uout(spec) -> str:
    bits, _ = CTYPES[spec.output["ctype"]]
    return f"uint{bits}_t"


def _example_inputs_c(m, spec, n=8) -> tuple[str, str]:
    """(C definition of example_inputs, the call expression)."""
    from .harness import input_model
    model = input_model(m, spec)
    vals = model.values(range(n), salt=0xE8A3)           # (n, count) python ints
    ctype = spec.input["ctype"]
    if spec.input["count"] == 1 and not spec.in_param.pointer:
        body = ", ".join(_c_literal(v[0], ctype) for v in vals)
        decl = f"#define EXAMPLE_RELEASES {n}u\nstatic const fxdp_input_t example_inputs[EXAMPLE_RELEASES] = {{ {body} }};"
    else:
        rows = ",\n    ".join("{ " + ", ".join(_c_literal(x, ctype) for x in v) + " }" for v in vals)
        decl = (f"#define EXAMPLE_RELEASES {n}u\n"
                f"static const fxdp_input_t example_inputs[EXAMPLE_RELEASES][FXDP_INPUT_COUNT] = {{\n    {rows}\n}};")
    return "/* Example inputs (valid device-form inputs of this mechanism). */\n" + decl, \
        "fxdp_release(&rng, example_inputs[i], y)"


def _readme(m, spec, target, files_note, arduino) -> str:
    eps_real, method = _audit_text(m)
    lines = [f"# fxdp firmware export: `{m.kind}` for `{target.name}`", "",
             f"Generated by fxdp {__version__} (`fxdp export`). Mechanism: `{repr(m)}`.", "",
             f"* {spec.summary}",
             f"* epsilon claimed {m.epsilon!r}; realized {eps_real} ({method})",
             f"* constant time: {'yes' if getattr(m, 'constant_time', False) else 'NO (lazy form)'}",
             f"* target: {target.description}", "",
             "## Build", "",
             "```sh",
             "make              # libfxdp.a + example firmware (build/)",
             "make DEMO=1 run   # run the example on the emulator with a NOT RANDOM demo entropy stub",
             "```", "",
             "CMake: see the header of `CMakeLists.txt`." + (" Arduino: copy this directory into your "
                                                            "`libraries/` folder; see `examples/`." if arduino else ""),
             "",
             "## Files", "", files_note, "",
             "## Entropy hook (you must implement it)", "",
             "`main.c` has a clearly marked `board_entropy()` stub that fails closed. Replace it with",
             "your hardware TRNG: write `n` random bytes and return 0, or return non-zero on any",
             "failure, in which case nothing is released (`FXDP_ERR_ENTROPY`). The full contract is",
             "in the header comment of `src/fxdp_config.h`.", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# writing

def _plan(m, target, out_dir: Path) -> dict:
    """{relative path: bytes} of every file to write."""
    csrc = find_csrc()
    spec = device_spec(m, csrc)
    files: dict[str, bytes] = {}
    for h in HEADERS:
        files[f"src/{h}"] = (csrc / h).read_bytes()
    for s in spec.sources:
        files[f"src/{s.name}"] = s.read_bytes()
        hdr = s.with_suffix(".h")
        if hdr.is_file():
            files[f"src/{hdr.name}"] = hdr.read_bytes()
    files["src/fxdp_config.h"] = render_config_h(m, spec, target).encode()
    files["src/fxdp_config.c"] = render_config_c(m, spec, target).encode()
    lib_srcs = [f"src/{s.name}" for s in spec.sources] + ["src/fxdp_config.c"]

    board = _board_files(target)
    board_srcs = [f"board/{f.name}" for f in board if f.suffix in (".c", ".S") and f.name != "simavr_run.c"]
    for f in board:
        files[f"board/{f.name}"] = f.read_bytes()

    ex_inputs, ex_call = _example_inputs_c(m, spec)
    files["main.c"] = T.render(T.MAIN_C, target=target.name, mechanism=repr(m), uout_t=_uout(spec),
                               example_inputs=ex_inputs, example_call=ex_call).encode()
    files["Makefile"] = render_makefile(m, spec, target, lib_srcs, board_srcs).encode()
    cmake, toolchain = render_cmake(m, spec, target, lib_srcs, board_srcs)
    files["CMakeLists.txt"] = cmake.encode()
    if toolchain:
        files[f"cmake/{target.name}.cmake"] = toolchain.encode()

    arduino = target.name.startswith(ARDUINO_PREFIXES)
    if arduino:
        sketch = f"fxdp_{m.kind}"
        lib_name = f"fxdp_{m.kind}_{target.name}".replace("-", "_")
        files["library.properties"] = T.render(
            T.LIBRARY_PROPERTIES, lib_name=lib_name, version=__version__, mechanism_kind=m.kind,
            target=target.name, summary=spec.summary.replace("\n", " "),
            architectures="avr" if target.kind == "simavr" else "*").encode()
        ino_inputs = ex_inputs.replace("#define EXAMPLE_RELEASES", "#define EXAMPLE_RELEASES")
        files[f"examples/{sketch}/{sketch}.ino"] = T.render(
            T.INO, sketch=sketch, mechanism=repr(m), target=target.name, uout_t=_uout(spec),
            example_inputs=ino_inputs, example_call=ex_call).encode()
    files_note = "\n".join([
        "* `src/` the library: fxdp C sources (copied) and the generated `fxdp_config.h`/`.c`",
        "* `main.c` example firmware; `board/` startup, linker script and console port for the emulator",
        "* `Makefile`, `CMakeLists.txt`" + (", `cmake/` toolchain file" if toolchain else ""),
        *(["* `library.properties`, `examples/` Arduino library layout"] if arduino else [])])
    files["README.md"] = _readme(m, spec, target, files_note, arduino).encode()
    return files


def generate(mechanism, target, out_dir, force: bool = False) -> list[Path]:
    """Write the firmware source set for `mechanism` on `target` into `out_dir`.

    Returns the written paths.  A non-empty out_dir is refused unless
    force=True; even then only the files this function generates are
    (over)written and nothing is ever deleted.  Raises ValueError for an
    unknown target or a mechanism without a C device form (listing the valid
    choices), FileExistsError for a non-empty out_dir without force.
    """
    t = _targets.get_target(target)          # ValueError listing the valid targets
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"output path {out} exists and is not a directory")
    files = _plan(mechanism, t, out)         # everything checked before anything is written
    if out.exists() and any(out.iterdir()) and not force:
        raise FileExistsError(f"output directory {out} is not empty; use --force (force=True) to overwrite "
                              "the files fxdp generates there (other files are left alone)")
    for rel in files:
        p = out / rel
        if p.exists() and not p.is_file():
            raise FileExistsError(f"{p} exists and is not a regular file; not overwriting it")
    manifest = {"fxdp_version": __version__, "mechanism": repr(mechanism), "kind": mechanism.kind,
                "target": t.name, "files": sorted(files)}
    files[MANIFEST] = (json.dumps(manifest, indent=1) + "\n").encode()
    written = []
    out.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".fxdp-tmp")
        tmp.write_bytes(data)
        tmp.replace(p)
        written.append(p)
    return written


def library_sources(fw_dir) -> list[Path]:
    """The C files of an export's library (src/*.c), from its manifest."""
    fw = Path(fw_dir)
    man = fw / MANIFEST
    if not man.is_file():
        raise ValueError(f"{fw} is not an fxdp export (no {MANIFEST}); run `fxdp export` first")
    rels = json.loads(man.read_text())["files"]
    return [fw / r for r in rels if r.startswith("src/") and r.endswith(".c")]


__all__ = ["generate", "device_spec", "exportable_kinds", "find_csrc", "library_sources", "DeviceSpec"]
