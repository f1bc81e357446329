"""Text templates for `fxdp export`: C, make, CMake and Arduino files in
fxdp/export/template_files/ (package data, read with importlib.resources), so that a
C tool or an editor reads them as what they are.

Placeholders are ``@@name@@`` markers, replaced by :func:`render`, which only
substitutes the names given and leaves every brace alone (C and make code is
full of braces).
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files

_FIELD = re.compile(r"@@(\w+)@@")


@lru_cache(maxsize=None)
def template(name: str) -> str:
    """The text of fxdp/export/template_files/<name>."""
    return files("fxdp.export").joinpath("template_files", name).read_text(encoding="utf-8")


def render(template: str, **values) -> str:
    """Replace ``@@name@@`` markers; an unknown marker is an error."""
    def sub(m):
        key = m.group(1)
        if key not in values:
            raise KeyError(f"template marker @@{key}@@ has no value")
        return str(values[key])
    return _FIELD.sub(sub, template)


# --------------------------------------------------------------------------
# example main.c: strict C99, only fxdp_config.h (-> fxdp.h -> stdint/stddef)
# and the board port (board/fxdp_port.h).
MAIN_C = template("main.c.in")

# --------------------------------------------------------------------------
MAKEFILE = template("Makefile.in")

# --------------------------------------------------------------------------
CMAKE = template("CMakeLists.txt.in")

CMAKE_TOOLCHAIN = template("toolchain.cmake.in")

CMAKE_PACKAGE_CONFIG = template("fxdp-config.cmake.in")

# --------------------------------------------------------------------------
LIBRARY_PROPERTIES = template("library.properties.in")

INO = template("sketch.ino.in")
