"""Layer 5: the server side of full RAPPOR, public name.

The code lives with its family in ``fxdp.mechanisms.memoized.rappor_full_estimate``: Bloom-bit
counts, candidate decoding and the product-form audit (see that module).
"""
from .mechanisms.memoized.rappor_full_estimate import (BloomCounts, Decoded, audit_rappor_full,
                                                       bloom_count_stderr, bloom_counts, decode, pq_star)

__all__ = ["BloomCounts", "Decoded", "bloom_counts", "bloom_count_stderr", "decode", "pq_star",
           "audit_rappor_full"]
