"""The geometric mechanism (seed 004): two-sided geometric (discrete Laplace) noise,
saturating at bounds; scalar (absolute metric) or vector (L1 metric) input."""
from __future__ import annotations

import math
from fractions import Fraction

from ..conservative import div_up
from ..samplers import reference as ref
from ..samplers.bounded import make_bounded_laplace_table
from ..validate import check_int, check_rational, given
from .base import Mechanism

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
U32_MAX = (1 << 32) - 1
MAX_DIM = 16            # FXDP_GEOMETRIC_MAX_N: the C device form's fixed vector buffer


def realize_scale(scale):
    """(s, t) with t/s >= scale, s, t in [1, 2^32 - 1]: exact when scale = t/s fits,
    else s = 2^m (largest m <= 31 keeping t < 2^32) and t = ceil(scale * 2^m).
    Rounding the scale up only adds noise: epsilon never grows."""
    if scale.denominator <= U32_MAX and 1 <= scale.numerator <= U32_MAX:
        return scale.denominator, scale.numerator
    if scale > U32_MAX:
        raise ValueError(f"scale must be <= {U32_MAX}, got {float(scale)}")
    for m in range(31, -1, -1):
        t = math.ceil(scale * (1 << m))
        if t <= U32_MAX:
            return 1 << m, t
    raise AssertionError("unreachable")


class Geometric(Mechanism):
    """Adds discrete Laplace noise with P(z) ∝ exp(-|z|/scale) and saturates at bounds.

    * lazy form: z = discrete_laplace(s, t) (CKS 2020, exact); y = clamp(x + z, lo, hi),
      computed without overflow.  Any int64 input.
    * constant-time form: noise from the proved integer-weight table of
      ``make_bounded_laplace_table(scale, bounds, bounds)`` (one 32-bit draw,
      full scan); the input is first clamped to the bounds; y = clamp(x + J, lo, hi).
      Needs finite, narrow bounds (table size 2(hi - lo) + 1).
    scale = 0 releases x clamped to the bounds, with an infinite privacy map (as the seed).

    An input outside the bounds is clamped into them, silently (sound for privacy: the
    release depends on the clamped value only); strict=True refuses it instead, with a
    ValueError, in ``m(x)`` and ``m.simulate`` (a host-side check: the C and the bit
    stream are the same either way).
    """
    kind = "geometric"

    def __init__(self, scale, bounds=None, constant_time=False, vector=False, bits=32, dim=None,
                 strict=False):
        self.scale = check_rational("scale", scale, 0)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        if not isinstance(vector, bool):
            raise ValueError(f"vector must be a bool, got {vector!r}")
        if bounds is None:
            if constant_time:
                raise ValueError("bounds are required in constant-time mode (the weight table spans them)")
            lo, hi = I64_MIN, I64_MAX
        else:
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise ValueError(f"bounds must be a pair (lower, upper), got {bounds!r}")
            lo = check_int("bounds[0] (lower)", bounds[0], I64_MIN, I64_MAX)
            hi = check_int("bounds[1] (upper)", bounds[1], I64_MIN, I64_MAX)
            if lo > hi:
                raise ValueError(f"bounds: lower may not be greater than upper, got {bounds!r}")
        self.bounds = (lo, hi)
        self.constant_time, self.vector = constant_time, vector
        self.bits = check_int("bits", bits, 8, 32)
        if dim is not None:
            # the vector length a device releases (FXDP_GEOMETRIC_MAX_N = 16); the export needs it
            if not vector:
                raise ValueError(f"dim applies to vector=True only, got dim={dim!r} with vector=False")
            dim = check_int("dim", dim, 1, MAX_DIM)
        self.dim = dim
        self._args = {"scale": given(scale), "bounds": None if bounds is None else [lo, hi],
                      "constant_time": constant_time, "vector": vector, "bits": self.bits}
        if dim is not None:
            self._args["dim"] = dim
        if not isinstance(strict, bool):
            raise ValueError(f"strict must be a bool, got {strict!r}")
        self.strict = strict
        if strict:                  # only when set: every existing repr and config stays as it was
            self._args["strict"] = True
        self.s = self.t = 0
        self.table = None
        if self.scale > 0:
            self.s, self.t = realize_scale(self.scale)
            self.scale_realized = Fraction(self.t, self.s)
            if constant_time:
                self.table = make_bounded_laplace_table(self.scale_realized, self.bounds, self.bounds, k=self.bits)
        else:
            self.scale_realized = Fraction(0)

    input_domain = property(lambda self: "VectorDomain(AtomDomain(i64))" if self.vector else "AtomDomain(i64)")
    output_domain = input_domain
    input_metric = property(lambda self: "L1Distance(i64)" if self.vector else "AbsoluteDistance(i64)")

    def privacy_map(self, d_in):
        d_in = check_int("d_in", d_in, 0)
        if d_in == 0:
            return 0.0
        if self.scale == 0:
            return math.inf
        return div_up(d_in, self.scale_realized)

    def config(self):
        return dict(self._args)

    def realized(self):
        out = {"scale": self.scale_realized, "s": self.s, "t": self.t, "bounds": self.bounds}
        if self.table is not None:
            out.update(table_width=self.table.width, table_k=self.table.k,
                       table_epsilon=self.table.epsilon_realized)
        return out

    def check_input(self, x):
        if self.vector:
            try:
                xs = [check_int("x[i]", v, I64_MIN, I64_MAX) for v in x]
            except TypeError:
                raise ValueError("x must be a sequence of int64 values (vector=True)") from None
            if self.dim is not None and len(xs) != self.dim:
                raise ValueError(f"x must have exactly dim = {self.dim} values, got {len(xs)}")
            self.check_in_bounds(xs, "x")
            return xs
        x = check_int("x", x, I64_MIN, I64_MAX)
        self.check_in_bounds(x, "x")
        return x

    def check_in_bounds(self, x, name="x"):
        """strict=True: ValueError if an input lies outside the bounds, naming it (with its
        index for a vector or an array), its value and the bounds.  x: an int, a sequence
        (one vector) or a numpy int64 array (values of simulate: n, or n x d).  Does nothing
        when strict is False: out-of-range inputs are then clamped into the bounds."""
        if not self.strict:
            return
        lo, hi = self.bounds
        if isinstance(x, int):
            if not lo <= x <= hi:
                raise ValueError(f"{name} = {x} is outside bounds [{lo}, {hi}] (strict=True refuses "
                                 f"out-of-range inputs; strict=False clamps them)")
            return
        import numpy as np
        arr = np.asarray(x, dtype=np.int64)
        bad = np.argwhere((arr < lo) | (arr > hi))
        if len(bad):
            idx = "".join(f"[{int(i)}]" for i in bad[0])
            raise ValueError(f"{name}{idx} = {int(arr[tuple(bad[0])])} is outside bounds [{lo}, {hi}] "
                             f"(strict=True refuses out-of-range inputs; strict=False clamps them)")

    def release(self, src, x):
        if self.vector:
            return [self.release_one(src, v) for v in x]
        return self.release_one(src, x)

    def release_one(self, src, x):
        lo, hi = self.bounds
        if self.scale == 0:
            return ref.clamp(x, lo, hi)
        if self.table is not None:
            xc = ref.clamp(x, lo, hi)
            j = ref.table_sample_ct(src, self.table.thresholds, self.table.k) - self.table.width
            return ref.clamp(xc + j, lo, hi)
        return ref.clamp(x + ref.discrete_laplace(src, self.s, self.t), lo, hi)

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores, GIL released): values are n int64 inputs
        (an n x d matrix when vector=True, one d-vector per device); device i draws from
        the keyed stream (seed, device_ids[i], stream 0), bit-identical to the C library.
        Returns int64 outputs of the same shape; raises ValueError / EntropyError /
        RangeError (nothing returned); strict=True: ValueError for an input outside the bounds."""
        from ._kernels_mech import prepare_values, simulate
        if self.dim is not None:
            import numpy as np
            shape = np.shape(values)
            if len(shape) != 2 or shape[1] != self.dim:
                raise ValueError(f"values must be an n x dim = n x {self.dim} matrix, got shape {shape}")
        if self.strict:
            x = prepare_values(self, values)          # int64, n x d (d = 1 for scalars)
            self.check_in_bounds(x if self.vector else x.reshape(-1), "values")
        return simulate(self, values, seed, device_ids)

    def device_spec(self, dim=None):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base).
        vector=True needs the vector length: dim in [1, FXDP_GEOMETRIC_MAX_N = 16], from
        the argument or from make_geometric(..., dim=d).  scale = 0 has no device form (ValueError)."""
        from ._device import geometric_spec
        if dim is None:
            dim = self.dim
        elif self.dim is not None and dim != self.dim:
            raise ValueError(f"dim: this mechanism releases dim = {self.dim} values, got dim={dim!r}")
        return geometric_spec(self, dim)


def make_geometric(scale, bounds=None, constant_time=False, vector=False, bits=32, dim=None,
                   strict=False):
    """Geometric mechanism: scale >= 0, bounds (lower, upper) or None for the int64 range.
    vector=True takes L1-vector inputs; dim fixes their length (1..16), which the firmware
    export needs.

    Inputs outside the bounds are clamped into them silently (every input and output
    saturates at the bounds; sound for privacy): ``make_geometric(2, bounds=(0, 100))(1000)``
    releases a value near 100.  strict=True (TOML ``strict = true``) refuses such an input
    instead: ``m(x)`` and ``m.simulate(values, ...)`` raise a ValueError naming the input,
    its value (and index) and the bounds.  It is a host-side check: the device form, the
    C export and the bit stream do not change (the C release still clamps)."""
    return Geometric(scale, bounds, constant_time, vector, bits, dim, strict)
