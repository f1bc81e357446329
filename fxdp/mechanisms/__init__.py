"""Layer 4: mechanisms.  One module (or folder) per family; ``fxdp.registry`` names the kinds.

``fxdp.mechanisms.make_<kind>`` is every registered constructor, loaded on first use.
"""
from .base import Mechanism


def __getattr__(name):
    if name.startswith("make_"):
        from ..registry import _KINDS
        entry = _KINDS.get(name[len("make_"):])
        if entry is not None:
            return entry.constructor()
    raise AttributeError(f"module 'fxdp.mechanisms' has no attribute {name!r}")


def __dir__():
    from ..registry import kinds
    return sorted(["Mechanism"] + [f"make_{k}" for k in kinds()])


__all__ = ["Mechanism"]
