"""Basic one-time RAPPOR (seed 002): every bit of a k-bit vector flips with probability f/2."""
from __future__ import annotations

from fractions import Fraction

from ..conservative import float_up, log_up
from ..samplers import reference as ref
from ..validate import check_int, check_rational, given
from .base import Mechanism


class Rappor(Mechanism):
    """Input: exactly k bits with at most m ones.  Each output bit is x_i XOR
    Bernoulli(a/2^bits) with a/2^bits = f/2 rounded *up* (more flipping, so
    epsilon never grows); realized f = a/2^(bits-1).  epsilon = 2m ln((2-f)/f).

    The output always has exactly k bits, whatever the input (opendp#2930
    let the output length follow the input's).  Device form: bits drawn for
    i = 0..k-1 in order, one Bernoulli each.
    """
    kind = "rappor"
    input_metric = "DiscreteDistance"

    def __init__(self, f, m, k, constant_time=False, bits=32):
        self.f = check_rational("f", f, 0, 1, lo_open=True)
        self.m = check_int("m", m, 1, 1 << 16)
        self.k = check_int("k", k, 1, 1 << 16)
        if self.m > self.k:
            raise ValueError(f"m must be in [1, k] = [1, {self.k}], got {self.m}")
        self.bits = check_int("bits", bits, 1, 63)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        self.constant_time, self._f_arg = constant_time, given(f)
        two_k = 1 << self.bits
        self.a = -((-self.f * two_k) // 2)           # ceil(f/2 * 2^bits)
        self.a = min(self.a, two_k // 2)
        self.flip_prob = Fraction(self.a, two_k)
        self.f_realized = 2 * self.flip_prob
        if self.a == two_k // 2:
            self._eps = 0.0
        else:
            self._eps = float_up(Fraction(log_up(Fraction(two_k - self.a, self.a))) * 2 * self.m)

    @property
    def input_domain(self):
        return f"VectorDomain(AtomDomain(bool), size={self.k}, ones<={self.m})"

    @property
    def output_domain(self):
        return f"VectorDomain(AtomDomain(bool), size={self.k})"

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self._eps

    def config(self):
        return {"f": self._f_arg, "m": self.m, "k": self.k,
                "constant_time": self.constant_time, "bits": self.bits}

    def realized(self):
        return {"f": self.f_realized, "flip_prob": self.flip_prob, "a": self.a, "k_bits": self.bits}

    def check_input(self, x):
        try:
            bits = [int(v) for v in x]
        except (TypeError, ValueError):
            raise ValueError(f"x must be a sequence of {self.k} bits (0/1 or bool)") from None
        if len(bits) != self.k:
            raise ValueError(f"x must have exactly k = {self.k} bits, got {len(bits)}")
        if any(b not in (0, 1) for b in bits):
            raise ValueError("x must contain only 0/1 or bool values")
        if sum(bits) > self.m:
            raise ValueError(f"x must have at most m = {self.m} ones, got {sum(bits)}")
        return bits

    def release(self, src, x):
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return [b ^ int(sample(src, self.a, self.bits)) for b in x]

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores, GIL released): values is an n x k 0/1 matrix,
        each row with at most m ones; device i draws its k flips from the keyed stream
        (seed, device_ids[i], stream 0), bit-identical to the C library.  Returns an
        n x k uint8 matrix; raises ValueError / EntropyError (nothing returned)."""
        from ._kernels_mech import simulate
        return simulate(self, values, seed, device_ids)

    def device_spec(self):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base);
        k must be at most FXDP_RAPPOR_MAX_K (1024)."""
        from ._device import rappor_spec
        return rappor_spec(self)

    def bit_pmf(self, xi):
        """P(y_i = 1 | x_i)."""
        return 1 - self.flip_prob if xi else self.flip_prob


def make_rappor(f, m, k, constant_time=False, bits=32):
    """Basic RAPPOR: f in (0, 1], at most m ones among exactly k input bits."""
    return Rappor(f, m, k, constant_time, bits)
