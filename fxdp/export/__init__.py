"""Layer 6: firmware export.

    generate(mechanism, target, out_dir, force=False) -> list[Path]
        the self-contained C99 source set for one mechanism on one target
        (fxdp/export/generator.py; docs/export.md)
    verify_on_host(m, fw_dir, seed, devices) -> {"releases": N, "mismatches": M}
        builds that source set on the host with a harness and compares every
        release with m.simulate (fxdp/export/harness.py)
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from .generator import device_spec, exportable_kinds, generate, library_sources

__all__ = ["generate", "verify_on_host", "device_spec", "exportable_kinds", "library_sources"]


def verify_on_host(m, fw_dir, seed=0, devices=10_000, build_dir=None):
    """Build the export in fw_dir on the host with the parity harness, run
    `devices` releases (device ids 0..devices-1, keyed stream of `seed`,
    synthetic inputs from fxdp.export.harness.input_model, the same ones
    passed to m.simulate) and count the releases whose output differs.

    Returns {"releases": devices, "mismatches": M}.  Raises ValueError for a
    directory that is not an export, and fxdp.targets.TargetError (naming the
    Debian package) when the host compiler is missing or the build fails.
    """
    from . import harness as H
    devices = int(devices)
    if devices < 1:
        raise ValueError(f"devices must be >= 1, got {devices}")
    spec = device_spec(m)
    library_sources(fw_dir)                     # ValueError if fw_dir is not an export
    with tempfile.TemporaryDirectory(prefix="fxdp-verify-") as tmp:
        bdir = Path(build_dir) if build_dir else Path(tmp)
        elf = H.build_harness(m, fw_dir, "host", bdir, opt="-O2", seed=seed, n=devices, n_drbg=0,
                              entropy=False)
        res = H.run_harness("host", elf, timeout=max(60.0, devices / 2000))
    expected = H.simulate_lines(m, spec, seed, devices)
    return {"releases": devices, "mismatches": H.compare(expected, res.parity)}
