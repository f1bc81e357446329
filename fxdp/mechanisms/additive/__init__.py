"""Layer 4: additive integer noise: the two-sided geometric (discrete Laplace) mechanism,
bounded, with its unbiased estimates of the mean and the sum.
"""
