"""Layer 6: firmware export.

    generate(mechanism, target, out_dir, force=False) -> list[Path]
        the self-contained C99 source set for one mechanism on one target
        (fxdp/export/firmware.py; docs/export.md)
    verify_on_host(m, fw_dir, seed, devices) -> {"releases": N, "mismatches": M}
        builds that source set on the host with a harness and compares every
        release with m.simulate (fxdp/export/harness.py)
    verify_on_target(m, fw_dir, target, seed, devices) -> {"target", "releases", "mismatches"}
        the same on a target's emulator (QEMU, simavr) for an export made for that target
"""
from __future__ import annotations

from .firmware import device_spec, exportable_kinds, generate, library_sources
from .harness import verify_on_host, verify_on_target

__all__ = ["generate", "verify_on_host", "verify_on_target", "device_spec", "exportable_kinds", "library_sources"]
