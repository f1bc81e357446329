"""Layer 4: mechanisms."""
from .base import Mechanism
from .geometric import make_geometric
from .randomized_response import make_randomized_response, make_randomized_response_bool
from .rappor import make_rappor
from .rappor_full import make_rappor_full

__all__ = ["Mechanism", "make_geometric", "make_randomized_response",
           "make_randomized_response_bool", "make_rappor", "make_rappor_full"]
