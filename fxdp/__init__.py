"""fxdp: exact differential privacy for small devices.

Layers (dependency runs downward only): numbers (``fxdp.fixed``,
``fxdp.conservative``) -> bit source (``fxdp.bitsource``) -> samplers
(``fxdp.samplers``, ``fxdp.Generator``) -> mechanisms (``fxdp.mechanisms``)
-> audit and estimators (``fxdp.audit``, ``fxdp.estimate``) -> export and
command line (``fxdp.export``, ``fxdp.cli``).

Names are loaded on first use, so ``import fxdp`` stays fast and compiles nothing.
"""
from .errors import EntropyError, RangeError
from ._numba_cache import drop_stale as _drop_stale_numba_cache

_drop_stale_numba_cache()

__version__ = "0.1.0"

_LAZY = {
    "QFormat": ("fxdp.fixed", "QFormat"),
    "Generator": ("fxdp.generator", "Generator"),
    "Seed": ("fxdp.bitsource", "Seed"),
    "audit": ("fxdp.audit", "audit"),
    "accounting": ("fxdp.accounting", None),
    "shuffled_epsilon": ("fxdp.accounting", "shuffled_epsilon"),
    "local_epsilon_for": ("fxdp.accounting", "local_epsilon_for"),
    "compose_epsilon": ("fxdp.accounting", "compose_epsilon"),
    "estimate": ("fxdp.estimate", None),
    "recommend_numeric": ("fxdp.estimate", "recommend_numeric"),
    "recommend_distribution": ("fxdp.estimate", "recommend_distribution"),
    "export": ("fxdp.export", None),
    "config": ("fxdp.config", None),
    "plots": ("fxdp.plots", None),
    "registry": ("fxdp.registry", None),
}


def _constructor_names():
    """make_<kind> for every kind of fxdp.registry (reading it imports no mechanism)."""
    from .registry import kinds
    return [f"make_{k}" for k in kinds()]


def __getattr__(name):
    import importlib
    if name == "__all__":
        return ["EntropyError", "RangeError", "__version__", *_LAZY, *_constructor_names()]
    if name.startswith("make_"):
        from .registry import _KINDS
        entry = _KINDS.get(name[len("make_"):])
        if entry is not None:
            value = entry.constructor()
            globals()[name] = value
            return value
    if name not in _LAZY:
        raise AttributeError(f"module 'fxdp' has no attribute {name!r}")
    module, attr = _LAZY[name]
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(["EntropyError", "RangeError", "__version__", *_LAZY, *_constructor_names()])

