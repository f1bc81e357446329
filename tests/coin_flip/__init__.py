"""A toy family added the way docs/architecture.md says, as a plug-in kept outside fxdp.

``coin_flip`` is binary randomized response under another name: the device keeps its bit with
probability a/2^k.  The family is this folder: the module (reference release, exact pmf,
estimator, synthetic population, device spec, harness inputs, and its registry line at the
bottom), its Numba kernels (``_kernels_coin_flip.py``), its C entry point
(``fxdp_mech_coin_flip.c``) and that entry point's prototype (``fxdp_mech_coin_flip.h``).  No
file of fxdp knows it exists; tests/test_toy_mechanism.py serves it through every layer.
"""
from fractions import Fraction
from pathlib import Path

import numpy as np

from fxdp import registry
from fxdp.conservative import log_up
from fxdp.mechanisms._device import SRC_RNG, _init, u8, u64
from fxdp.mechanisms.base import Mechanism
from fxdp.reports import Estimate, reports_array
from fxdp.samplers import reference as ref
from fxdp.validate import check_int, check_rational

HERE = Path(__file__).resolve().parent


class CoinFlip(Mechanism):
    kind = "coin_flip"
    input_domain = output_domain = "AtomDomain(bool)"
    input_metric = "DiscreteMetric"

    def __init__(self, keep=Fraction(3, 4), bits=16):
        self.keep = check_rational("keep", keep, Fraction(1, 2), 1, hi_open=True)
        self.bits = check_int("bits", bits, 1, 32)
        self.a = int(self.keep * (1 << self.bits))            # floor: toward 1/2, never more epsilon
        self.p = Fraction(self.a, 1 << self.bits)
        self._args = {"keep": keep, "bits": bits}

    # privacy and description
    def privacy_map(self, d_in):
        if check_int("d_in", d_in, 0) == 0 or self.p == Fraction(1, 2):
            return 0.0
        return log_up(self.p / (1 - self.p))

    def config(self):
        return dict(self._args)

    def realized(self):
        return {"keep": self.p, "a": self.a, "k": self.bits}

    # releases
    def check_input(self, x):
        if x not in (0, 1):
            raise ValueError(f"x must be a bool, got {x!r}")
        return bool(x)

    def release(self, src, x):
        return x if ref.bernoulli_dyadic(src, self.a, self.bits) else not x

    # audit
    def audit_pairs(self):
        return [(False, True), (True, False)]

    def output_pmf(self, x):
        return {bool(x): self.p, not x: 1 - self.p}

    # fleet: its own kernel
    def fleet_inputs(self, values):
        from fxdp.mechanisms._fleet import bits_array
        return bits_array("values", values, 1).astype(np.bool_)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_coin_flip import fleet_coin_flip
        out = np.zeros(x.shape[0], dtype=np.bool_)
        fleet_coin_flip(key, ids, first_block, np.uint64(self.a), np.uint64(self.bits), x, out, status, bits)
        return out

    # estimation
    def estimate(self, reports):
        p = float(self.p)
        y = reports_array(reports).astype(np.float64)
        ybar = y.mean()
        return Estimate("share(true)", (ybar - (1 - p)) / (2 * p - 1),
                        np.sqrt(ybar * (1 - ybar) / y.size) / (2 * p - 1))

    def synthetic_population(self, devices, seed):
        values = np.random.default_rng([seed, 7]).random(devices) < 0.4
        return values, float(values.mean())

    # device form: its own C entry point, the sources named by absolute path (outside fxdp's csrc/)
    def device_spec(self, dim=None):
        return {"c_function": "fxdp_coin_flip", "cfg_type": "fxdp_coin_flip_cfg",
                "cfg_init": _init([("a", u64(self.a)), ("k", u8(self.bits))]), "tables": [],
                "input": {"ctype": "uint8_t", "count": 1}, "output": {"ctype": "uint8_t", "count": 1},
                "sources": list(SRC_RNG) + ["fxdp_bernoulli.c", str(HERE / "fxdp_mech_coin_flip.c")],
                "summary": f"coin flip: keep x w.p. {self.p}; epsilon <= {self.epsilon!r}; lazy"}

    def release_output(self, out):
        return bool(out[0])

    def harness_inputs(self):
        return {"kind": "bool", "sim_dtype": "bool"}


def make_coin_flip(keep=Fraction(3, 4), bits=16):
    """Binary randomized response under another name (a test of the mechanism protocol)."""
    return CoinFlip(keep, bits)


registry.register("coin_flip", __name__, exportable=True, summary="binary RR under another name (toy)")
