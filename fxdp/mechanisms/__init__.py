"""Layer 4: mechanisms."""
from .base import Mechanism
from .geometric import make_geometric
from .randomized_response import make_randomized_response, make_randomized_response_bool
from .rappor import make_rappor
from .rappor_full import make_rappor_full
from ..finite.laplace import make_laplace_fixed, make_laplace_grid, make_naive_laplace_fixed, make_planar_laplace_fixed, make_planar_laplace_grid  # noqa: E501,F401

__all__ = ["Mechanism", "make_geometric", "make_randomized_response",
           "make_randomized_response_bool", "make_rappor", "make_rappor_full"]
