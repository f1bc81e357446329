"""Packaging of the C library: the on-demand cffi build into the cache, the wheel
(`pip install .`) with the compiled module and the C sources at fxdp/csrc/,
and the sdist carrying csrc/."""
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _py(code, env=None, cwd=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, cwd=cwd,
                          timeout=timeout)


def test_on_demand_build_goes_to_the_cache_dir(tmp_path):
    cache = tmp_path / "cache"
    res = _py("import fxdp.native as n, fxdp._cffi_build as cb\n"
              "h = cb.source_hash(cb.find_csrc())\n"
              "m = n._build_cached(h)\n"
              "print(m.__file__)\n"
              "print(m.ffi.string(m.lib.fxdp_py_source_hash()).decode() == h)\n"
              "r = m.ffi.new('fxdp_rng *'); k = m.ffi.new('uint32_t[8]')\n"
              "m.lib.fxdp_rng_init_seed(r, k, 0, 0, 0); o = m.ffi.new('uint32_t *')\n"
              "print(m.lib.fxdp_bits(r, 32, o), o[0])\n",
              env={"FXDP_CACHE_DIR": str(cache)}, cwd=REPO)
    assert res.returncode == 0, res.stderr
    path, same, bits = res.stdout.split("\n")[:3]
    assert Path(path).resolve().is_relative_to(cache.resolve())
    assert same == "True"
    from fxdp.bitsource import ChaCha20Source, Seed
    assert bits == f"0 {ChaCha20Source(Seed(0, 1)).bits(32)}"        # fxdp_rng_init_seed: version 1


def test_loaded_module_matches_the_sources():
    from fxdp import _cffi_build as cb
    from fxdp import native
    mod = native.load()
    assert mod.ffi.string(mod.lib.fxdp_py_source_hash()).decode() == cb.source_hash(cb.find_csrc())


def test_sdist_carries_csrc(tmp_path):
    res = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    (sdist,) = tmp_path.glob("fxdp-*.tar.gz")
    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    for f in ("csrc/fxdp.h", "csrc/fxdp_rng.c", "csrc/fxdp_internal.h", "csrc/host/fxdp_host.h",
              "csrc/host/fxdp_host.c", "setup.py", "fxdp/_cffi_build.py", "fxdp/native.py"):
        assert f in names, f


@pytest.mark.slow
def test_wheel_ships_module_and_sources(tmp_path):
    """`pip wheel .` (isolated build, as `pip install .` does): the wheel holds fxdp/_fxdp_c and
    fxdp/csrc/; installed into a fresh venv it loads without building anything."""
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(REPO)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    (wheel,) = tmp_path.glob("fxdp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(n.startswith("fxdp/_fxdp_c") and n.endswith((".so", ".pyd")) for n in names), names
    for f in ("fxdp/csrc/fxdp.h", "fxdp/csrc/fxdp_chacha20.c", "fxdp/csrc/fxdp_rng.c",
              "fxdp/csrc/fxdp_internal.h", "fxdp/csrc/host/fxdp_host.c", "fxdp/csrc/host/fxdp_host.h"):
        assert f in names, f
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    vpy = venv / "bin" / "python"
    # --ignore-installed: CI installs fxdp into the system site-packages, which this venv sees;
    # without it pip reports "already satisfied" and the test would import the system copy.
    res = subprocess.run([str(vpy), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                          "--ignore-installed", str(wheel)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    cache = tmp_path / "cache"
    res = subprocess.run([str(vpy), "-c", "import fxdp.native as n, fxdp\n"
                          "print(n.load().__file__)\nprint(fxdp.__file__)\n"
                          "r = n.new_rng_seeded(1, 2)\nprint(n.discrete_laplace(r, 1, 10, 5).tolist())"],
                         capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "FXDP_CACHE_DIR": str(cache)})
    assert res.returncode == 0, res.stderr
    mod_file, pkg_file, draws = res.stdout.splitlines()[:3]
    assert str(venv) in mod_file and str(venv) in pkg_file
    assert not cache.exists()                  # nothing was built at run time
    from fxdp.bitsource import ChaCha20Source
    from fxdp.samplers import reference as ref
    src = ChaCha20Source(1, 2)
    assert draws == str([ref.discrete_laplace(src, 1, 10) for _ in range(5)])
