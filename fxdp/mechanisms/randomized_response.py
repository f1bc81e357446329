"""Binary and k-ary randomized response (seeds 000 and 001), with exact dyadic probabilities."""
from __future__ import annotations

import math
from fractions import Fraction

from ..conservative import log_up
from ..samplers import reference as ref
from ..validate import check_int, check_rational, given
from .base import Mechanism


def _check_bits(bits, hi):
    return check_int("bits", bits, 1, hi)


def _check_d_in(d_in):
    return check_int("d_in", d_in, 0)


class RandomizedResponseBool(Mechanism):
    """Returns x with probability p = a/2^k, else not x.

    The device draws keep = Bernoulli(a/2^k) (lazy, or constant time with
    exactly k bits) and returns x XNOR keep.
    """
    kind = "randomized_response_bool"
    input_domain = output_domain = "AtomDomain(bool)"
    input_metric = "DiscreteMetric"

    def __init__(self, prob, constant_time=False, bits=32):
        self.prob = check_rational("prob", prob, Fraction(1, 2), 1, hi_open=True)
        self.bits = _check_bits(bits, 63)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        self.constant_time = constant_time
        self._prob_arg = given(prob)
        # round toward 1/2 (down): epsilon never grows; p >= 1/2 keeps a >= 2^(k-1)
        self.a = math.floor(self.prob * (1 << self.bits))
        self.p_realized = Fraction(self.a, 1 << self.bits)
        half = 1 << (self.bits - 1)
        self._eps = 0.0 if self.a == half else log_up(Fraction(self.a, (1 << self.bits) - self.a))

    def privacy_map(self, d_in):
        return 0.0 if _check_d_in(d_in) == 0 else self._eps

    def config(self):
        return {"prob": self._prob_arg, "constant_time": self.constant_time, "bits": self.bits}

    def realized(self):
        return {"prob": self.p_realized, "a": self.a, "k": self.bits}

    def check_input(self, x):
        if not isinstance(x, (bool,)) and x not in (0, 1):
            raise ValueError(f"x must be a bool, got {x!r}")
        return bool(x)

    def release(self, src, x):
        sample = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        keep = sample(src, self.a, self.bits)
        return x if keep else not x

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores, GIL released): device i releases values[i]
        from the keyed stream (seed, device_ids[i], stream 0); bit-identical to the C
        library.  values: n bools (or 0/1); seed: int in [0, 2^256); device_ids: n ints
        in [0, 2^64) (default 0..n-1).  Returns a bool array of n outputs; raises
        ValueError (bad input, before drawing) or EntropyError (nothing returned)."""
        from ._kernels_mech import simulate
        return simulate(self, values, seed, device_ids)

    def device_spec(self):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base)."""
        from ._device import rr_bool_spec
        return rr_bool_spec(self)

    def audit_pairs(self):
        return [(False, True), (True, False)]

    def output_pmf(self, x):
        x = bool(x)
        return {x: self.p_realized, not x: 1 - self.p_realized}


class RandomizedResponse(Mechanism):
    """k-ary randomized response over t categories (seed 001).

    Realized exactly with integer weights over 2^k: the truth has weight w0,
    each of the t-1 other categories weight w, w0 + (t-1) w = 2^k, with
    w = ceil(2^k (1-p)/(t-1)) (rounded toward more noise) and p = w0/2^k.

    Device form on category indices x in [0, t), plus x = t meaning "not a
    category" (answered uniformly, as seed 001 proves):
      * lazy form (OpenDP's algorithm): s = uniform_below(t-1) (uniform_below(t)
        for x = t); if x < t and s >= x: s += 1; honest = bernoulli_dyadic(w0, k);
        return x if honest and x < t else s;
      * constant-time form: d = table_sample_ct([w0, w0+w, ..., w0+(t-2)w], k)
        (exactly k bits, full branch-free scan); return (x + d) mod t.  Only
        member indices are accepted on the device in this form; the host
        answers non-members with an exact uniform_below(t), which is not
        constant time (it reveals non-membership, not the value).
    """
    kind = "randomized_response"
    input_metric = "DiscreteMetric"

    def __init__(self, categories, prob, constant_time=False, bits=32):
        try:
            cats = list(categories)
        except TypeError:
            raise ValueError(f"categories must be a sequence of at least 2 distinct values, got {categories!r}") from None
        if isinstance(categories, (str, bytes)) or len(cats) < 2:
            raise ValueError(f"categories must hold at least 2 distinct values, got {categories!r}")
        try:
            index = {c: i for i, c in enumerate(cats)}
        except TypeError:
            raise ValueError("categories must be hashable values") from None
        if len(index) != len(cats):
            raise ValueError(f"categories must be distinct, got duplicates in {cats!r}")
        self.categories, self._index, self.t = cats, index, len(cats)
        t = self.t
        self.prob = check_rational("prob", prob, Fraction(1, t), 1, hi_open=True)
        self.bits = _check_bits(bits, 32)
        if not isinstance(constant_time, bool):
            raise ValueError(f"constant_time must be a bool, got {constant_time!r}")
        if t > (1 << self.bits) // 2:
            raise ValueError(f"categories: at most 2^(bits-1) = {(1 << self.bits) // 2} categories at bits={self.bits}")
        self.constant_time = constant_time
        self._prob_arg = given(prob)
        two_k = 1 << self.bits
        w = -((-two_k * (1 - self.prob)) // (t - 1))       # ceil
        w0 = two_k - (t - 1) * w
        if w0 < w:
            # p sits within t/2^k of 1/t: no split of 2^k realizes it without raising epsilon
            w = two_k // t
            w0 = two_k - (t - 1) * w
            if w0 * (1 - self.prob) > self.prob * (t - 1) * w:
                raise ValueError(
                    f"prob={prob!r} lies within t/2^bits of 1/t = 1/{t}; at bits={self.bits} the nearest "
                    f"realizable probability {Fraction(w0, two_k)} has a larger epsilon; use prob >= "
                    f"{float(Fraction(w0, two_k))}" + (" or more bits" if self.bits < 32 else ""))
        self.w0, self.w = w0, w
        self.p_realized = Fraction(w0, two_k)
        self._eps = 0.0 if w0 == w else log_up(Fraction(w0, w))
        self.thresholds = [w0 + j * w for j in range(t - 1)]

    @property
    def input_domain(self):
        return f"AtomDomain(categories of size {self.t})"

    output_domain = input_domain

    def privacy_map(self, d_in):
        return 0.0 if _check_d_in(d_in) == 0 else self._eps

    def config(self):
        return {"categories": self.categories, "prob": self._prob_arg,
                "constant_time": self.constant_time, "bits": self.bits}

    def realized(self):
        return {"prob": self.p_realized, "w0": self.w0, "w": self.w, "k": self.bits, "t": self.t}

    def index_of(self, x):
        """Device index of a host value: its position, or t when x is not a category."""
        try:
            return self._index.get(x, self.t)
        except TypeError:
            return self.t

    def release(self, src, x):
        return self.categories[self.release_index(src, self.index_of(x))]

    def release_index(self, src, x):
        """The device form on an index x in [0, t] (t = not a category)."""
        t = self.t
        if self.constant_time:
            if x == t:
                return ref.uniform_below(src, t)
            d = ref.table_sample_ct(src, self.thresholds, self.bits)
            return (x + d) % t
        s = ref.uniform_below(src, t - 1 if x < t else t)
        if x < t and s >= x:
            s += 1
        honest = ref.bernoulli_dyadic(src, self.w0, self.bits)
        return x if honest and x < t else s

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba, all cores, GIL released) on device indices: values are
        n category indices in [0, t] (t = not a category, answered uniformly; use
        ``index_of`` to map host values); device i draws from the keyed stream
        (seed, device_ids[i], stream 0), bit-identical to the C library.  Returns an int64
        array of n output indices; raises ValueError / EntropyError (nothing returned)."""
        from ._kernels_mech import simulate
        return simulate(self, values, seed, device_ids)

    def device_spec(self):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base).
        The device works on category indices (``index_of``)."""
        from ._device import rr_spec
        return rr_spec(self)

    def audit_pairs(self):
        t = self.t
        return [(x, y) for x in range(t + 1) for y in range(t + 1) if x != y]

    def output_pmf(self, x):
        """Exact distribution of the output index for device input x in [0, t]."""
        t, two_k = self.t, 1 << self.bits
        if x == t:
            return {y: Fraction(1, t) for y in range(t)}
        return {y: Fraction(self.w0 if y == x else self.w, two_k) for y in range(t)}


def make_randomized_response_bool(prob, constant_time=False, bits=32):
    """Binary randomized response: prob in [0.5, 1), realized as a/2^bits rounded toward 1/2."""
    return RandomizedResponseBool(prob, constant_time, bits)


def make_randomized_response(categories, prob, constant_time=False, bits=32):
    """k-ary randomized response: >= 2 distinct categories, prob in [1/t, 1)."""
    return RandomizedResponse(categories, prob, constant_time, bits)
