"""The public face of layers 2-3: ``fxdp.Generator``, exact samplers on a ChaCha20 stream.

Like ``numpy.random.Generator`` over a bit generator: one small state (the
``fxdp_rng`` struct layout, shared by the Numba kernels and the C library)
and methods that validate, call the Numba kernel and pack the result.

* ``Generator()`` (no seed): the ChaCha20 key and nonce come from the OS
  (``os.urandom``); cryptographically secure.  This is the default.
* ``Generator(seed, device_id=0, stream=0)``: the documented keyed stream
  (docs/bitstream.md), for simulation and test vectors.  Explicit on purpose.

Every method draws ``size`` samples (``None``: one, returned as a Python
scalar) and raises ``ValueError`` naming the parameter and its range before
drawing anything, or ``fxdp.EntropyError`` if the stream fails (then nothing
is returned; the generator stays failed).
"""
from __future__ import annotations

import os

import numpy as np

from .bitsource import seed_parts
from .errors import EntropyError, raise_for_status
from .samplers import _kernels as K
from .samplers.bounded import BoundedLaplaceTable
from .validate import check_int

U32 = (1 << 32) - 1
U64 = (1 << 64) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class Generator:
    def __init__(self, seed=None, device_id=0, stream=0, *, urandom=os.urandom):
        self.state = K.new_state()
        self.seeded = seed is not None
        if seed is None:
            try:
                raw = urandom(44)
            except Exception as exc:  # noqa: BLE001 - any OS entropy failure
                raise EntropyError(f"os.urandom failed: {exc}") from exc
            if len(raw) != 44:
                raise EntropyError("os.urandom returned a short read")
            words = [int.from_bytes(raw[i:i + 4], "little") for i in range(0, 44, 4)]
            K.keyed_state(words[:8], words[8:], 0, self.state)
        else:
            seed_parts(seed)
            check_int("device_id", device_id, 0, U64)
            check_int("stream", stream, 0, U32)
            K.seed_state(self.state, seed, device_id, stream)

    def __repr__(self):
        return f"Generator({'seeded' if self.seeded else 'os entropy'}, bits_used={self.bits_used})"

    @property
    def bits_used(self):
        """Stream bits consumed so far."""
        return K.bits_used(self.state)

    def _fill(self, kernel, args, size, dtype, what):
        n = 1 if size is None else check_int("size", size, 0, 1 << 40)
        out = np.empty(n, dtype=dtype)
        status, _ = kernel(self.state, *args, out)
        raise_for_status(int(status), what)
        return out[0].item() if size is None else out

    def bits(self, n, size=None):
        """The next n (0..32) stream bits as integers, first bit most significant."""
        n = check_int("n", n, 0, 32)
        return self._fill(K.fill_bits, (np.uint64(n),), size, np.uint64, "bits")

    def uniform_below(self, n, size=None):
        """Uniform on {0, ..., n-1}, n in [1, 2^64 - 1], by rejection (exact)."""
        n = check_int("n", n, 1, U64)
        return self._fill(K.fill_uniform_below, (np.uint64(n),), size, np.uint64, "uniform_below")

    def bernoulli_dyadic(self, a, k, size=None, constant_time=False):
        """True with probability a/2^k, k in [0, 63], a in [0, 2^k].  The lazy form
        (default) reads 2 bits on average but its bit use reveals the outcome; the
        constant-time form always reads k bits."""
        k = check_int("k", k, 0, 63)
        a = check_int("a", a, 0, 1 << k)
        kern = K.fill_bernoulli_dyadic_ct if constant_time else K.fill_bernoulli_dyadic
        return self._fill(kern, (np.uint64(a), np.uint64(k)), size, np.bool_, "bernoulli_dyadic")

    def bernoulli_rational(self, n, d, size=None):
        """True with probability n/d, d in [1, 2^64 - 1], n in [0, d]."""
        d = check_int("d", d, 1, U64)
        n = check_int("n", n, 0, d)
        return self._fill(K.fill_bernoulli_rational, (np.uint64(n), np.uint64(d)), size, np.bool_,
                          "bernoulli_rational")

    def bernoulli_exp(self, n, d, size=None):
        """True with probability exp(-n/d), n in [0, 2^32 - 1], d in [1, 2^32 - 1] (CKS 2020 Alg. 1)."""
        n = check_int("n", n, 0, U32)
        d = check_int("d", d, 1, U32)
        return self._fill(K.fill_bernoulli_exp, (np.uint64(n), np.uint64(d)), size, np.bool_, "bernoulli_exp")

    def discrete_laplace(self, s, t, size=None, bounds=None):
        """Integers with P(z) ∝ exp(-|z| s/t), s, t in [1, 2^32 - 1] (CKS 2020 Alg. 2);
        with bounds=(lo, hi), saturated to [lo, hi]."""
        s = check_int("s", s, 1, U32)
        t = check_int("t", t, 1, U32)
        if bounds is None:
            return self._fill(K.fill_discrete_laplace, (np.uint64(s), np.uint64(t)), size, np.int64,
                              "discrete_laplace")
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            raise ValueError(f"bounds must be a pair (lo, hi), got {bounds!r}")
        lo = check_int("bounds[0] (lo)", bounds[0], I64_MIN, I64_MAX)
        hi = check_int("bounds[1] (hi)", bounds[1], lo, I64_MAX)
        return self._fill(K.fill_discrete_laplace_censored,
                          (np.uint64(s), np.uint64(t), np.int64(lo), np.int64(hi)), size, np.int64,
                          "discrete_laplace")

    def discrete_laplace_fast(self, s, t, size=None):
        """Integers with P(z) ∝ exp(-|z| s/t), s, t in [1, 2^32 - 1]: the same exact distribution
        as ``discrete_laplace`` from fewer bits (about 8 per draw at scale 10, CKS: 19.7) and
        other bits (``fxdp.samplers.fast_laplace``).  Not constant time."""
        from .samplers._nb_fast_laplace import fill_discrete_laplace_fast
        s = check_int("s", s, 1, U32)
        t = check_int("t", t, 1, U32)
        return self._fill(fill_discrete_laplace_fast, (s, t), size, np.int64, "discrete_laplace_fast")

    def bounded_laplace_noise(self, table, size=None):
        """Noise J in [-W, W] from a proved BoundedLaplaceTable, constant time (exactly table.k bits)."""
        if not isinstance(table, BoundedLaplaceTable):
            raise ValueError("table must come from fxdp.samplers.bounded.make_bounded_laplace_table")
        thr = np.asarray(table.thresholds, dtype=np.uint32)
        idx = self._fill(K.fill_table_sample_ct, (thr, np.uint64(table.k)), size, np.int64,
                         "bounded_laplace_noise")
        return idx - table.width
