"""--format cmake: CMakeLists.txt (library `fxdp`, alias fxdp::fxdp, the example firmware) that also
installs the CMake package `fxdp` (find_package(fxdp) from the install prefix), and for MCU targets
the toolchain file cmake/<target>.cmake (installed with the package for its consumers)."""
from __future__ import annotations

from ... import targets as _targets
from ..templates import CMAKE, CMAKE_PACKAGE_CONFIG, CMAKE_TOOLCHAIN, render
from ._common import ExportContext, board_ldflags, board_sources, example_firmware_files

NAME = "cmake"


def check(ctx: ExportContext) -> None:
    """Every target has a CMake build."""


def render_cmake(m, spec, target, lib_srcs, board_srcs, lib_headers=(), version="0.0.0") -> tuple[str, str | None]:
    """(CMakeLists.txt, the toolchain file or None on the host)."""
    is_host = target.kind == "native"
    cpu = "".join(f" {f}" for f in target.cflags)
    ld = "".join(f"{f} " for f in board_ldflags(target)).replace("-Tboard/", "-T${CMAKE_CURRENT_SOURCE_DIR}/board/")
    ld = ld.replace("-Lboard", "-L${CMAKE_CURRENT_SOURCE_DIR}/board")
    has_asm = any(s.endswith(".S") for s in board_srcs)
    libs = " ".join(target.libs)
    tc_arg = "" if is_host else f" -DCMAKE_TOOLCHAIN_FILE=cmake/{target.name}.cmake"
    text = render(
        CMAKE, mechanism_kind=m.kind, target=target.name, version=version,
        cmake_toolchain_arg=tc_arg,
        cmake_toolchain_consumer="" if is_host else f" -DCMAKE_TOOLCHAIN_FILE=/opt/fxdp/lib/cmake/fxdp/{target.name}.cmake",
        cmake_asm=" ASM" if has_asm else "",
        cmake_lib_srcs="".join(f"  {s}\n" for s in lib_srcs),
        cmake_board_srcs="".join(f"  {s}\n" for s in board_srcs),
        cmake_headers="".join(f"          {h}\n" for h in lib_headers),
        cmake_install_toolchain="" if is_host else f"\n          cmake/{target.name}.cmake",
        cmake_cpuflags=cpu, cmake_ldflags=ld,
        board_cflags=" ".join(f for f in _targets.PORT_CFLAGS if f not in ("-Werror",) and not f.startswith("-std")),
        cmake_link_libs=f"  target_link_libraries(fxdp_example PRIVATE {libs})\n" if libs else "")
    toolchain = None
    if not is_host:
        proc = {"simavr": "avr"}.get(target.kind, "arm" if target.prefix.startswith("arm") else "riscv32")
        toolchain = render(CMAKE_TOOLCHAIN, target=target.name, processor=proc, prefix=target.prefix,
                           cpuflags=" ".join(target.cflags))
    return text, toolchain


def _package_config(ctx: ExportContext) -> str:
    t = ctx.target
    if t.kind == "native":
        check = ("if(CMAKE_CROSSCOMPILING)\n"
                 "  set(fxdp_FOUND FALSE)\n"
                 "  set(fxdp_NOT_FOUND_MESSAGE \"this fxdp package was built for the host, not for "
                 "${CMAKE_SYSTEM_PROCESSOR}\")\n"
                 "  return()\nendif()\n")
    else:
        check = (f"set(FXDP_TOOLCHAIN_FILE \"${{CMAKE_CURRENT_LIST_DIR}}/{t.name}.cmake\")\n"
                 # a library built for one CPU must not be linked into another CPU's image
                 f"if(NOT CMAKE_CROSSCOMPILING OR NOT CMAKE_C_COMPILER MATCHES \"{t.prefix}gcc\")\n"
                 "  set(fxdp_FOUND FALSE)\n"
                 f"  set(fxdp_NOT_FOUND_MESSAGE \"this fxdp package was built for {t.name} ({t.prefix}gcc): "
                 "configure with -DCMAKE_TOOLCHAIN_FILE=${FXDP_TOOLCHAIN_FILE}\")\n"
                 "  return()\nendif()\n")
    return render(CMAKE_PACKAGE_CONFIG, mechanism_kind=ctx.kind, target=t.name, config_check=check)


def files(ctx: ExportContext) -> dict[str, bytes]:
    out = example_firmware_files(ctx)
    text, toolchain = render_cmake(ctx.m, ctx.spec, ctx.target, ctx.lib_srcs, board_sources(ctx.target),
                                   ctx.lib_headers, ctx.version)
    out["CMakeLists.txt"] = text.encode()
    if toolchain:
        out[f"cmake/{ctx.target.name}.cmake"] = toolchain.encode()
    out["cmake/fxdp-config.cmake"] = _package_config(ctx).encode()
    return out


def readme(ctx: ExportContext) -> str:
    tc = "" if ctx.target.kind == "native" else f" -DCMAKE_TOOLCHAIN_FILE=cmake/{ctx.target.name}.cmake"
    return ("### CMake\n\n```sh\n"
            f"cmake -S . -B build{tc} && cmake --build build          # library + example\n"
            f"cmake -S . -B build{tc} -DFXDP_BUILD_EXAMPLE=OFF -DCMAKE_INSTALL_PREFIX=/opt/fxdp\n"
            "cmake --build build && cmake --install build   # then find_package(fxdp) -> fxdp::fxdp\n```\n")
