"""fxdp: exact differential privacy for small devices.

Layers (dependency runs downward only): numbers (``fxdp.fixed``,
``fxdp.conservative``) -> bit source (``fxdp.bitsource``) -> samplers
(``fxdp.samplers``, ``fxdp.Generator``) -> mechanisms (``fxdp.mechanisms``)
-> audit and estimators (``fxdp.audit``, ``fxdp.estimate``) -> export and
command line (``fxdp.export``, ``fxdp.cli``).

Names are loaded on first use, so ``import fxdp`` stays fast and compiles nothing.
"""
from .errors import EntropyError, RangeError

__version__ = "0.1.0"

_LAZY = {
    "QFormat": ("fxdp.fixed", "QFormat"),
    "Generator": ("fxdp.generator", "Generator"),
    "make_randomized_response_bool": ("fxdp.mechanisms", "make_randomized_response_bool"),
    "make_randomized_response": ("fxdp.mechanisms", "make_randomized_response"),
    "make_rappor": ("fxdp.mechanisms", "make_rappor"),
    "make_rappor_full": ("fxdp.mechanisms", "make_rappor_full"),
    "make_geometric": ("fxdp.mechanisms", "make_geometric"),
    "make_laplace_fixed": ("fxdp.mechanisms", "make_laplace_fixed"),
    "make_planar_laplace_fixed": ("fxdp.mechanisms", "make_planar_laplace_fixed"),
    "audit": ("fxdp.audit", "audit"),
    "estimate": ("fxdp.estimate", None),
    "export": ("fxdp.export", None),
    "config": ("fxdp.config", None),
    "plots": ("fxdp.plots", None),
}

__all__ = ["EntropyError", "RangeError", "__version__", *_LAZY]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'fxdp' has no attribute {name!r}")
    import importlib
    module, attr = _LAZY[name]
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
