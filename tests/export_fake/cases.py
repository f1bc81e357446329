"""The real mechanisms the export tests run (tests/test_export*.py, the secret-taint check,
tests/test_release_checks_input.py): name -> constructor call, collected from ``EXPORT_CASES`` of
the family module of every exportable registered kind, in registration order.  Each family
states there why its cases take the parameters they do; every kind with a C device form has a
case, and a lazy and a constant-time one where it has both forms (tests/test_export.py).  ``VARIANTS``
(each module's ``EXPORT_VARIANTS``) add no new code path and are left out on the slowest
emulator (AVR, where 10^4 releases cost ~25 s each because every release generates a ChaCha20
block)."""
from __future__ import annotations

import importlib

from fxdp import registry


def _collect():
    cases, variants, seen = {}, set(), set()
    for kind in registry.registered():
        module = registry.get(kind).module
        if not registry.get(kind).exportable or module in seen:
            continue
        seen.add(module)
        mod = importlib.import_module(module)
        taken = set(cases) & set(mod.EXPORT_CASES)
        assert not taken, f"{module}: export case names taken by another family: {sorted(taken)}"
        cases.update(mod.EXPORT_CASES)
        variants |= set(mod.EXPORT_VARIANTS)
    return cases, variants


CASES, VARIANTS = _collect()
MECHANISMS = CASES


def make(name):
    return CASES[name]()
