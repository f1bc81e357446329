"""The real mechanisms the export tests run (tests/test_export*.py,
benchmarks/footprint.py): name -> constructor call.  Every mechanism kind
with a C device form appears at least once, constant-time forms included."""
from __future__ import annotations

from fractions import Fraction

import fxdp.mechanisms as M

CASES = {
    "rr_bool_ct": lambda: M.make_randomized_response_bool(0.75, constant_time=True),
    "rr_bool_lazy": lambda: M.make_randomized_response_bool(0.75),
    "rr_kary_ct": lambda: M.make_randomized_response(["a", "b", "c", "d", "e"], 0.6, constant_time=True),
    "rr_kary_lazy": lambda: M.make_randomized_response(["a", "b", "c", "d", "e"], 0.6),
    "rappor_ct": lambda: M.make_rappor(0.5, 2, 8, constant_time=True),
    "rappor_lazy": lambda: M.make_rappor(0.5, 2, 8),
    "geometric_ct": lambda: M.make_geometric(10, bounds=(0, 40), constant_time=True),
    "geometric_lazy": lambda: M.make_geometric(10),
    "geometric_bounded": lambda: M.make_geometric(Fraction(7, 2), bounds=(-100, 100)),
}
MECHANISMS = CASES


def make(name):
    return CASES[name]()

# Full RAPPOR (Bloom filter + memoized PRR + IRR): small parameters, since every release
# provisions a device and generates 4 ChaCha20 blocks (~250,000 cycles on the AVR).
CASES["rappor_full_ct"] = lambda: M.make_rappor_full(4, 1, 2, 0.5, 0.25, 0.75, constant_time=True, bits=8,
                                                     value_bytes=2)

# Parameter variants that add no new code path, left out on the slowest emulator (AVR, where
# 10^4 releases cost ~25 s each because every release generates a ChaCha20 block).
VARIANTS = {"geometric_bounded"}

# Finite-precision Laplace (fxdp/finite/laplace.py): raw int64 in and out, INT64_MIN = exception.
CASES["laplace_fixed"] = lambda: M.make_laplace_fixed(1, (-8, 8), L=Fraction(1, 16), qformat="Q15.16")
CASES["laplace_fixed_clamp"] = lambda: M.make_laplace_fixed(Fraction(1, 2), (-8, 8), sensitivity=2,
                                                            L=Fraction(1, 2), qformat="Q9.6",
                                                            uniform_bits=20, truncation="clamp")
# (a small box: the planar audit of the export header tabulates (M - m + L)^2 raw points)
CASES["planar_laplace_fixed"] = lambda: M.make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat="Q11.4",
                                                                    radius_bits=8, angle_bits=8)
CASES["laplace_grid"] = lambda: M.make_laplace_grid(Fraction(1, 2), (-8, 8), sensitivity=2, L=Fraction(1, 2),
                                                    qformat="Q9.6")
CASES["planar_laplace_grid"] = lambda: M.make_planar_laplace_grid(Fraction(1, 2), (-8, 8), sensitivity=2,
                                                                  L=Fraction(1, 2), qformat="Q9.6")
VARIANTS |= {"laplace_fixed_clamp"}

# The vector geometric (L1 metric): dim fixes the length the device releases.
CASES["geometric_vec_ct"] = lambda: M.make_geometric(5, bounds=(0, 30), constant_time=True, vector=True, dim=3)
CASES["geometric_vec_lazy"] = lambda: M.make_geometric(Fraction(5, 2), bounds=(-50, 50), vector=True, dim=4)
VARIANTS |= {"geometric_vec_lazy"}

# Unary encoding (OUE, SUE): d report bits per release; d = 12 keeps a CT release within one block.
CASES["unary_encoding_ct"] = lambda: M.make_unary_encoding(12, 2, constant_time=True)
CASES["unary_encoding_sue_lazy"] = lambda: M.make_unary_encoding(12, 1, optimized=False)

# Hadamard response: one index of log2 K bits per release; d = 100 (K = 128) and d = 12 (K = 16).
# The lazy case uses bits = 3 (p = 5/8): with 32 bits the lazy Bernoulli is decided within the
# 32 - log2 K bits left in the first word almost always, so its instruction count is flat on the
# host (its bit use still varies); at 3 bits the "U agrees with every digit" exit (probability
# 1/8) is taken by some of the timed releases, and the check that the lazy form varies applies.
CASES["hadamard_response_ct"] = lambda: M.make_hadamard_response(100, 2, constant_time=True)
CASES["hadamard_response_lazy"] = lambda: M.make_hadamard_response(12, 1, bits=3)

# Longitudinal oracles (L-GRR, L-OUE): every release provisions the device secret (a ChaCha20 block),
# derives the permanent stream (another) and draws the round (a third), ~160,000 cycles on the AVR;
# d = 12 keeps a constant-time L-OUE release within one block of each stream.  The lazy forms
# (the same code with lazy draws) are variants: not on the AVR.
CASES["longitudinal_grr_ct"] = lambda: M.make_longitudinal_grr(10, 4, 1, constant_time=True)
CASES["longitudinal_grr_lazy"] = lambda: M.make_longitudinal_grr(10, 4, 1)
CASES["longitudinal_ue_ct"] = lambda: M.make_longitudinal_ue(12, 4, 1, constant_time=True)
CASES["longitudinal_ue_lazy"] = lambda: M.make_longitudinal_ue(12, 4, 1)
VARIANTS |= {"longitudinal_grr_lazy", "longitudinal_ue_lazy"}
# dBitFlip: every release provisions the secret (a block) and derives the sampled-bucket and response
# streams (two more).  Floyd's draws of the sampled buckets reject with a probability that varies
# with the secret (never with x), and this check varies the secret: the CT case takes buckets = 2,
# sampled = 2 (bounds 1 and 2: no rejection; membership, choice and exchange sort still run).
# tests/test_dbitflip.py checks that the CT count is independent of x on a fixed device.
CASES["dbitflip_ct"] = lambda: M.make_dbitflip(12, 2, 2, sampled_buckets=2, constant_time=True)
# Since issue 32 the CT form draws its sampled buckets with the fixed budget (uniform_version 2): the
# same time for every secret also at buckets = 64, sampled = 3 (bounds 62, 63: the rejection draws reject).
CASES["dbitflip_ct_b64"] = lambda: M.make_dbitflip(256, 64, 2, sampled_buckets=3, constant_time=True)
CASES["dbitflip_lazy"] = lambda: M.make_dbitflip(40, 8, 2, sampled_buckets=3, bits=3)
# Subset selection: k uint16 indices per release.  The constant-time form's time and bit use do not
# depend on x or on whether x is in the subset, but Floyd's uniform draws reject with a probability
# that varies with the stream, and this check varies the stream: its CT case therefore takes d = 3,
# k = 2, whose bounds (1, 2 and r below 2) are powers of two (34 bits per release; every code path
# runs: membership, the shift past x, the replacement).  tests/test_subset_selection.py checks, at
# d = 100 and 1024, that the counts and bits are independent of x and b on a fixed stream.
CASES["subset_selection_ct"] = lambda: M.make_subset_selection(3, 2, constant_time=True, k=2)
# Since issue 32 the constant-time form draws with the fixed budget (uniform_version 2: 128 bits per
# uniform draw, whatever the stream), so a case where the rejection draws would reject is constant
# too: d = 1024, k = 3 (bounds 1021, 1022, 1023 and 3; 544 bits per release).
CASES["subset_selection_ct_d1024"] = lambda: M.make_subset_selection(1024, 1, constant_time=True, k=3)
CASES["subset_selection_lazy"] = lambda: M.make_subset_selection(40, 1)
# k = 1 with m = d - 1 = 64 (a power of two: no rejection): the map spans three words, so the
# shift past x crosses words in the constant-time check too (k-ary RR in effect; not on AVR)
CASES["subset_selection_ct_3words"] = lambda: M.make_subset_selection(65, 4, constant_time=True, k=1)
VARIANTS |= {"subset_selection_ct_3words"}
# Local hashing: the report is (a, b, y), three uint32s.  CT: OLH at d = 1024, eps = 2 (g = 8: the
# footprint case of issue 10); lazy: OLH at eps = 1 (g = 4: uniform_below(3) retries w.p. 1/4 and
# the lazy Bernoulli's length varies, so the check that the lazy form varies applies).
CASES["local_hashing_ct"] = lambda: M.make_local_hashing(1024, 2, constant_time=True)
CASES["local_hashing_lazy"] = lambda: M.make_local_hashing(100, 1)
# Duchi et al.'s one-bit mechanism on a grid (grid index in, one bit out): the CT case reads
# exactly prob_bits + bits = 44 bits; the lazy case at prob_bits = 3 and bits = 2 (5 levels) so the
# lazy Bernoulli's early exits are taken by some of the timed releases and its count varies.
CASES["duchi_ct"] = lambda: M.make_duchi(-20, 60, 2, constant_time=True)
CASES["duchi_lazy"] = lambda: M.make_duchi(0, 1, 1, bits=2, prob_bits=3)

# Piecewise mechanism on a grid (grid index in, cell index out): the CT case reads exactly
# prob_bits + bits = 40 bits; the lazy case (w = 7 at bits = 4: rejection-sampled band cell) varies.
CASES["piecewise_ct"] = lambda: M.make_piecewise(0, 40, 2, bits=8, constant_time=True)
CASES["piecewise_lazy"] = lambda: M.make_piecewise(0, 1, 2, bits=4, prob_bits=8)

# Hybrid mechanism (Piecewise or Duchi): the CT case reads exactly 3 prob_bits + 2 bits = 112 bits;
# the lazy case at bits = 4, prob_bits = 8 (w = 6: rejection-sampled band cell in the PM branch).
CASES["hybrid_ct"] = lambda: M.make_hybrid(0, 40, 2, bits=8, constant_time=True)
CASES["hybrid_lazy"] = lambda: M.make_hybrid(0, 1, 2, bits=4, prob_bits=8)

# Square Wave mechanism on a grid (grid index in, cell index out; Piecewise's sampler with SW's
# window): the CT case reads exactly prob_bits + bits = 40 bits; the lazy case at bits = 4,
# prob_bits = 8, epsilon 1.5 (w = 6: rejection-sampled window cell) varies.
CASES["square_wave_ct"] = lambda: M.make_square_wave(0, 40, 2, bits=8, constant_time=True)
CASES["square_wave_lazy"] = lambda: M.make_square_wave(0, 1, "3/2", bits=4, prob_bits=8)

# Multi-dimensional numeric readings (d grid indices in, k attributes then k reports out): the CT case
# at d = 4, k = 1 (Floyd's one draw uniform_below(4) never rejects, so its counts are constant) through
# the constant-time Piecewise; the lazy case at d = 3, k = 2 (uniform_below(3) rejects) through the lazy
# Hybrid at bits = 4, prob_bits = 8.
CASES["numeric_multidim_ct"] = lambda: M.make_numeric_multidim(0, 40, 2, 4, base="piecewise", bits=8,
                                                               constant_time=True)
CASES["numeric_multidim_lazy"] = lambda: M.make_numeric_multidim(0, 1, 5, 3, base="hybrid", bits=4, prob_bits=8)
# Since issue 32 the CT form draws its attributes with the fixed budget (uniform_version 2): constant
# also where the rejection draws reject, d = 7, k = 3 (bounds 5, 6, 7), here through the CT Duchi.
CASES["numeric_multidim_ct_d7"] = lambda: M.make_numeric_multidim(0, 40, 6, 7, base="duchi", report_dims=3, bits=8,
                                                                  constant_time=True)
