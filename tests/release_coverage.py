"""Which lines and branches of an export's C library the parity releases of a device range execute.

The slowest emulator (AVR on simavr) runs fewer parity releases than the other targets
(tests/test_export_targets.py, N_SLOW of N).  That loses nothing only if the releases it skips
take no code path that the releases it runs do not also take.  This module measures that on the
host: the harness of fxdp/export/harness.py, built with gcc's --coverage at -O0 against the same
generated sources, is run once for devices [0, n_run) and once for [n_run, n); gcov (JSON) lists
the lines executed and the branch outcomes taken in the export's own files (fw/src/), and the
check is that the second set adds nothing to the first.  The C sources are the ones the AVR
builds; only their compilation differs.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from fxdp import targets as T
from fxdp.export import device_spec
from fxdp.export import harness as H


def covered(m, fw_dir, build_dir, seed: int, dev0: int, n: int) -> set:
    """{(file, line)} executed and {(file, line, branch)} taken in fw_dir/src by the parity
    releases of devices [dev0, dev0 + n) (no timing, DRBG or entropy phase)."""
    fw, d = Path(fw_dir), Path(build_dir)
    # entropy=False: the entropy phase releases device dev0's input with a failing hook, so which
    # failure branch it takes depends on dev0, not on the parity releases compared here
    src = H.write_harness(m, device_spec(m), d, seed=seed, n=n, dev0=dev0, entropy=False)
    elf = T.build("host", [src, *H.library_sources(fw)], [fw / "src"], out_dir=d, opt="-O0",
                  extra_cflags=["--coverage"], name="cov")
    r = T.run("host", elf, timeout=600)
    if r.exit_code != 0:
        raise RuntimeError(f"coverage harness exited with {r.exit_code}")
    gcdas = sorted(d.glob("*.gcda"))
    if not gcdas:
        raise RuntimeError(f"no coverage data in {d}")
    p = subprocess.run(["gcov", "--json-format", "--stdout", "--branch-probabilities", *map(str, gcdas)],
                       cwd=d, capture_output=True, text=True, check=True)
    lib = (fw / "src").resolve()
    out = set()
    for doc in p.stdout.splitlines():
        if not doc.strip():
            continue
        for f in json.loads(doc)["files"]:
            path = Path(f["file"])
            path = path if path.is_absolute() else (d / path)
            if lib not in path.resolve().parents:
                continue                                  # the harness and the port shim
            name = path.name
            for ln in f["lines"]:
                if ln["count"] > 0:
                    out.add((name, ln["line_number"]))
                for i, b in enumerate(ln.get("branches", [])):
                    if b["count"] > 0:
                        out.add((name, ln["line_number"], i))
    return out


def paths_only_after(m, fw_dir, build_dir, seed: int, n_run: int, n: int) -> tuple[set, list]:
    """(what devices [0, n_run) cover, the lines and branches devices [n_run, n) take that they do not)."""
    first = covered(m, fw_dir, Path(build_dir) / "first", seed, 0, n_run)
    rest = covered(m, fw_dir, Path(build_dir) / "rest", seed, n_run, n - n_run)
    return first, sorted(rest - first, key=str)
