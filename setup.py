"""Build hooks that pyproject.toml cannot express.

* ``cffi_modules``: builds the host C library ``fxdp._fxdp_c`` from csrc/
  (see fxdp/_cffi_build.py; the cdef is generated from csrc/fxdp.h).
* ``build_py``: ships the C sources (csrc/*.c, csrc/*.h, csrc/host/*) inside
  the package as ``fxdp/csrc/``, because the firmware exporter and
  ``fxdp.native`` need them at run time.
* ``build_py`` also ships targets/ (target descriptions, port shims, the
  emulator count tools) as ``fxdp/target_files/``, because ``fxdp export`` and
  ``fxdp targets`` need them after a plain ``pip install .``.
* ``sdist``: puts csrc/ and targets/ into the source distribution, so a wheel
  built from the sdist finds them.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "csrc"
CSRC_PATTERNS = ("*.c", "*.h", "host/*.c", "host/*.h", "README.md")
TARGETS = ROOT / "targets"
TARGET_PATTERNS = ("*.toml", "README.md", "port/**/*", "tools/**/*", "selftest/**/*")


def _csrc_files():
    files = []
    for pattern in CSRC_PATTERNS:
        files += sorted(CSRC.glob(pattern))
    return files


def _target_files():
    files = set()
    for pattern in TARGET_PATTERNS:
        files.update(f for f in TARGETS.glob(pattern) if f.is_file() and "__pycache__" not in f.parts)
    return sorted(files)


def _copy(files, root, dest):
    for f in files:
        target = Path(dest) / f.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)


def _copy_csrc(dest):
    _copy(_csrc_files(), CSRC, dest)


def _copy_targets(dest):
    _copy(_target_files(), TARGETS, dest)


class build_py_with_csrc(build_py):
    """build_py, plus csrc/ copied to <build_lib>/fxdp/csrc/."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):   # editable: fxdp.native uses ./csrc
            _copy_csrc(Path(self.build_lib) / "fxdp" / "csrc")
            _copy_targets(Path(self.build_lib) / "fxdp" / "target_files")

    def get_outputs(self, include_bytecode=True):
        outputs = list(super().get_outputs(include_bytecode))
        if getattr(self, "editable_mode", False):
            return outputs
        dest = Path(self.build_lib) / "fxdp" / "csrc"
        outputs += [str(dest / f.relative_to(CSRC)) for f in _csrc_files()]
        tdest = Path(self.build_lib) / "fxdp" / "target_files"
        outputs += [str(tdest / f.relative_to(TARGETS)) for f in _target_files()]
        return outputs


class sdist_with_csrc(sdist):
    """sdist, plus csrc/ in the release tree."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        _copy_csrc(Path(base_dir) / "csrc")
        _copy_targets(Path(base_dir) / "targets")


setup(
    cffi_modules=["fxdp/_cffi_build.py:ffibuilder"],
    cmdclass={"build_py": build_py_with_csrc, "sdist": sdist_with_csrc},
)
