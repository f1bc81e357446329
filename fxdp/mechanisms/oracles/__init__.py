"""Layer 4: the frequency oracles, one module per kind, each with its kernels beside it.

k-ary and binary randomized response, basic RAPPOR, unary encoding (OUE, SUE), Hadamard response,
local hashing (OLH, BLH) and subset selection; ``_oracle`` holds what they share (the
frequency-estimate protocol and its standard errors).
"""
