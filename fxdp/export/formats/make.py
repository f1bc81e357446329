"""--format make: a plain GNU Makefile building libfxdp.a and the example firmware (main.c, board/)."""
from __future__ import annotations

from ..templates import MAKEFILE, render
from ._common import (ExportContext, board_cflags, board_ldflags, board_sources, build_packages,
                      emulator_packages, example_firmware_files)

NAME = "make"


def check(ctx: ExportContext) -> None:
    """Every target has a make build."""


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
    return render(
        MAKEFILE, mechanism_kind=m.kind, target=target.name, emulator=target.emulator.get("kind"),
        extra_help=extra_help, toolchain_note=f"{target.prefix or 'host '}gcc ({target.description})",
        prefix=target.prefix, packages=pkgs, cpuflags=" ".join(target.cflags),
        ldflags=" ".join(board_ldflags(target)), libs=" ".join(target.libs),
        lib_srcs=" ".join(lib_srcs), board_srcs=" ".join(board_srcs),
        exe_suffix="" if is_host else ".elf", extra_phony=extra_phony, extra_all=extra_all,
        extra_rules=extra_rules, size_flags="-A " if not is_host else "", run_deps=run_deps,
        run_recipe=run_recipe, board_cflags=board_cflags())


def files(ctx: ExportContext) -> dict[str, bytes]:
    out = example_firmware_files(ctx)
    out["Makefile"] = render_makefile(ctx.m, ctx.spec, ctx.target, ctx.lib_srcs, board_sources(ctx.target)).encode()
    return out


def readme(ctx: ExportContext) -> str:
    return ("### make\n\n```sh\nmake              # libfxdp.a + example firmware (build/)\n"
            "make DEMO=1 run   # run the example on the emulator with a NOT RANDOM demo entropy stub\n```\n")
