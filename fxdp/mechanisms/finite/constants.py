"""Constants shared by the finite-precision family's modules (the mechanisms, kernels, audit)."""
from __future__ import annotations

from fractions import Fraction

EXCEPTION_RAW = -(1 << 63)        # the exception value in int64 arrays (simulate, fill kernels)
METHOD_DIRECT, METHOD_SCALED = 0, 1
TRUNC_EXCEPTION, TRUNC_CLAMP = 0, 1
_TRUNC = {"exception": TRUNC_EXCEPTION, "clamp": TRUNC_CLAMP}
RAW_LIMIT = 1 << 61               # |m|, |M| <= 2^61 raw keeps every intermediate inside int64

# error of lambda = neglog_q26 / 2^26 against -ln(w/2^k), all w, k (value units):
# 0.5 ulp of Q.26 (= 32 units of 2^-32) + |L32 - lambda 2^32| <= 2.6 (ln) + 0.2 (clamp) + 0.5 (k ln 2)
DELTA_LAMBDA = Fraction(36, 1 << 32)
# CORDIC: |cos' - cos|, |sin' - sin| <= 2^-31 (rounding to Q1.30) + 2^-38 (iterations), per component
DELTA_CORDIC = Fraction(1, 1 << 31) + Fraction(1, 1 << 38)


# --------------------------------------------------------------------------
# parameter helpers
