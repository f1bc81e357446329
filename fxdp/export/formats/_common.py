"""What every export format writer gets (:class:`ExportContext`) and the board-port helpers
the make and cmake formats share.

A format writer is a module of this package with

    NAME: str                                the --format value
    def check(ctx) -> None                   ValueError if the format cannot serve ctx.target
    def files(ctx) -> dict[str, bytes]       {relative path: content} it writes
    def readme(ctx) -> str                   its "how to build" paragraph for the export's README.md

The library itself (src/) and README.md are written by fxdp/export/firmware.py for every format.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ... import targets as _targets
from ..spec import DeviceSpec

ARDUINO_PREFIXES = ("avr", "cortex-m")


@dataclass
class ExportContext:
    """One export: the mechanism, its device spec, the target and what the generator derived."""
    m: object
    spec: DeviceSpec
    target: object                    # fxdp.targets.Target
    version: str
    lib_srcs: list                    # "src/<file>.c", the library's C files (config included)
    lib_headers: list                 # "src/<file>.h", every header of the library
    example_inputs: str               # C definition of example_inputs[EXAMPLE_RELEASES]
    example_call: str                 # the release call of the examples (uses i, rng, y)
    uout_t: str                       # unsigned C type of one output element

    @property
    def kind(self) -> str:
        return self.m.kind

    @property
    def is_avr(self) -> bool:
        return self.target.kind == "simavr"

    @property
    def lib_name(self) -> str:
        """Package name: letters, digits and underscores (valid for Arduino, PlatformIO, IDF, Zephyr)."""
        return f"fxdp_{self.m.kind}_{self.target.name}".replace("-", "_")

    @property
    def summary(self) -> str:
        return " ".join(self.spec.summary.split())


def board_files(target) -> list[Path]:
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


def board_sources(target) -> list[str]:
    """The board port's compiled sources, as "board/<name>"."""
    return [f"board/{f.name}" for f in board_files(target) if f.suffix in (".c", ".S") and f.name != "simavr_run.c"]


def board_ldflags(target) -> list[str]:
    out = []
    for flag in target.ldflags:
        if flag.startswith("-T"):
            out.append(f"-Tboard/{Path(flag[2:]).name}")
        elif flag.startswith("-L"):
            out.append("-Lboard")
        else:
            out.append(flag)
    return out


def board_cflags() -> str:
    """The port's flags (fxdp.targets.PORT_CFLAGS: gnu99, no loop-to-memset) without -Werror."""
    return " ".join(f for f in _targets.PORT_CFLAGS if f != "-Werror")


def example_firmware_files(ctx: ExportContext) -> dict[str, bytes]:
    """main.c and board/: the example firmware the make and cmake formats build."""
    from ..templates import MAIN_C, render
    files = {f"board/{f.name}": f.read_bytes() for f in board_files(ctx.target)}
    files["main.c"] = render(MAIN_C, target=ctx.target.name, mechanism=repr(ctx.m), uout_t=ctx.uout_t,
                             example_inputs=ctx.example_inputs, example_call=ctx.example_call).encode()
    return files


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


def keyword_table(ctx: ExportContext) -> list[tuple[str, str]]:
    """(identifier, Arduino keyword class) of the public names a sketch uses (keywords.txt)."""
    types = ["fxdp_rng", "fxdp_health", "fxdp_status", "fxdp_input_t", "fxdp_output_t"]
    funcs = ["fxdp_release", "fxdp_init_health_drbg", "fxdp_rng_init_drbg", "fxdp_rng_reseed", "fxdp_rng_init_hook",
             "fxdp_rng_init_seed",
             "fxdp_rng_init_stream"]
    consts = ["FXDP_OK", "FXDP_ERR_PARAM", "FXDP_ERR_ENTROPY", "FXDP_ERR_RANGE", "FXDP_INPUT_COUNT",
              "FXDP_OUTPUT_COUNT", "FXDP_CONFIG_MECHANISM", "FXDP_CONFIG_EPSILON_CLAIMED"]
    return [(n, "KEYWORD1") for n in types] + [(n, "KEYWORD2") for n in funcs] + [(n, "LITERAL1") for n in consts]
