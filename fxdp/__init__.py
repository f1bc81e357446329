"""fxdp: exact differential privacy for small devices."""
from .errors import EntropyError, RangeError

__version__ = "0.1.0"
__all__ = ["EntropyError", "RangeError", "__version__"]
