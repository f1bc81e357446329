"""A stand-in mechanism with a device_spec, so that the export machinery is
tested independently of the real mechanisms (tests/test_export.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from fxdp.bitsource import ChaCha20Source
from fxdp.mechanisms.base import Mechanism
from fxdp.samplers import reference as ref

HERE = Path(__file__).resolve().parent


class FakeRR(Mechanism):
    kind = "fake_rr"

    def __init__(self, a=3 << 30, k=32, constant_time=True):
        self.a, self.k, self.constant_time = a, k, constant_time

    def privacy_map(self, d_in):
        return 1.0986122886681098 if d_in else 0.0

    def config(self):
        return {"a": self.a, "k": self.k, "constant_time": self.constant_time}

    def realized(self):
        return {"a": self.a, "k": self.k}

    def release(self, src, x):
        f = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return int(x) ^ int(f(src, self.a, self.k)) ^ 1

    def simulate(self, values, seed, device_ids=None):
        ids = range(len(values)) if device_ids is None else device_ids
        return np.array([self.release(ChaCha20Source(seed, int(d), 0), int(v)) for v, d in zip(values, ids)],
                        dtype=np.uint8)

    def device_spec(self):
        return {
            "c_function": "fxdp_fake_rr",
            "cfg_type": "fxdp_fake_rr_cfg",
            "cfg_init": ("{ UINT64_C(%d), %du, %du, fake_table, 3u }" % (self.a, self.k, int(self.constant_time))),
            "tables": [("fake_table", "uint32_t", [1, 2, 4294967295])],
            "input": {"ctype": "uint8_t", "count": 1, "min": 0, "max": 1},
            "output": {"ctype": "uint8_t", "count": 1},
            "sources": [str(HERE / "fxdp_fake_rr.c"), "fxdp_bernoulli.c"],
            "summary": f"fake binary RR: keep with probability {self.a}/2^{self.k}",
        }
