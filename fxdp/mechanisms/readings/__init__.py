"""Layer 4: the numeric-reading family: a bounded reading on a fixed-point grid.

``_numeric`` holds the grid and the randomized rounding every kind shares; Duchi, Piecewise,
Hybrid, Square Wave (with its EMS distribution estimate), the k-of-d multidimensional form, and
``distribution`` (exact output distributions for the audit).
"""
