"""Build hooks that pyproject.toml cannot express.

* ``cffi_modules``: builds the host C library ``fxdp._fxdp_c`` from csrc/
  (see fxdp/_cffi_build.py; the cdef is generated from csrc/fxdp.h).
* ``build_py``: ships the C sources (csrc/*.c, csrc/*.h, csrc/host/*) inside
  the package as ``fxdp/csrc/``, because the firmware exporter and
  ``fxdp.native`` need them at run time.
* ``sdist``: puts csrc/ into the source distribution, so a wheel built from
  the sdist finds it.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "csrc"
CSRC_PATTERNS = ("*.c", "*.h", "host/*.c", "host/*.h", "README.md")


def _csrc_files():
    files = []
    for pattern in CSRC_PATTERNS:
        files += sorted(CSRC.glob(pattern))
    return files


def _copy_csrc(dest):
    for f in _csrc_files():
        target = Path(dest) / f.relative_to(CSRC)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)


class build_py_with_csrc(build_py):
    """build_py, plus csrc/ copied to <build_lib>/fxdp/csrc/."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):   # editable: fxdp.native uses ./csrc
            _copy_csrc(Path(self.build_lib) / "fxdp" / "csrc")

    def get_outputs(self, include_bytecode=True):
        outputs = list(super().get_outputs(include_bytecode))
        if getattr(self, "editable_mode", False):
            return outputs
        dest = Path(self.build_lib) / "fxdp" / "csrc"
        outputs += [str(dest / f.relative_to(CSRC)) for f in _csrc_files()]
        return outputs


class sdist_with_csrc(sdist):
    """sdist, plus csrc/ in the release tree."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        _copy_csrc(Path(base_dir) / "csrc")


setup(
    cffi_modules=["fxdp/_cffi_build.py:ffibuilder"],
    cmdclass={"build_py": build_py_with_csrc, "sdist": sdist_with_csrc},
)
