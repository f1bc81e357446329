"""`fxdp export --format`: one module per packaging format (see _common.py for the writer protocol).

    make        Makefile + example firmware (main.c, board/)
    cmake       CMakeLists.txt (+ toolchain file) + example firmware; installs the package find_package(fxdp)
    arduino     Arduino library 1.5: library.properties, keywords.txt, examples/<Name>/<Name>.ino
    platformio  library.json
    esp-idf     ESP-IDF component: idf_component.yml, CMakeLists.txt (idf_component_register), port/
    zephyr      Zephyr module: zephyr/module.yml, zephyr/Kconfig, zephyr/CMakeLists.txt, port/

Without --format the export writes what it always has: make, cmake and (AVR, Cortex-M) arduino.
"""
from __future__ import annotations

from . import arduino, cmake, esp_idf, make, platformio, zephyr
from ._common import ExportContext

WRITERS = {w.NAME: w for w in (make, cmake, arduino, platformio, esp_idf, zephyr)}
FORMATS = tuple(WRITERS)


def default_formats(target) -> tuple[str, ...]:
    """The formats an export without --format writes (the layout before --format existed)."""
    return ("make", "cmake", "arduino") if arduino.applies(target) else ("make", "cmake")


def resolve(formats, target) -> tuple[str, ...]:
    """The formats to write: None -> the default; a name or a list of names, each checked."""
    if formats is None:
        return default_formats(target)
    names = [formats] if isinstance(formats, str) else list(formats)
    if not names:
        raise ValueError(f"format must name at least one of {', '.join(FORMATS)}")
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"format must be a string, one of {', '.join(FORMATS)}; got {n!r}")
        if n not in WRITERS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {n!r}")
    if "cmake" in names and "esp-idf" in names:
        raise ValueError("format: 'cmake' and 'esp-idf' both write CMakeLists.txt; export them to separate "
                         "directories")
    return tuple(dict.fromkeys(names))


__all__ = ["FORMATS", "WRITERS", "ExportContext", "default_formats", "resolve"]
