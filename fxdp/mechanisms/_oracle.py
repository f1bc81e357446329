"""What every frequency oracle over an item domain [0, d) shares: argument checks, the input
domain, the privacy map of a fixed realized epsilon, item-index inputs (host and fleet), the
Zipf synthetic population and the export harness's input model.  The oracles
(``unary_encoding``, ``hadamard_response``, ``subset_selection``, ``local_hashing``) subclass ``ItemOracle`` and add their release,
kernels, device form, estimator and audit."""
from __future__ import annotations

import numpy as np

from ..validate import check_int, check_rational
from .base import Mechanism

MAX_EPSILON = 64


class ItemOracle(Mechanism):
    input_metric = "DiscreteMetric"
    output_measure = "MaxDivergence"
    MAX_D = 1 << 20               # the family's simulation limit (subclasses set their own)

    def _check_args(self, d, epsilon, bits, **flags):
        """Validate and store d, epsilon (in (0, 64]), bits (2..63) and the bool flags (in order);
        records the constructor's arguments for config()."""
        self.d = check_int("d", d, 2, self.MAX_D)
        self.epsilon_requested = check_rational("epsilon", epsilon, 0, MAX_EPSILON, lo_open=True)
        for name, v in flags.items():
            if not isinstance(v, bool):
                raise ValueError(f"{name} must be a bool, got {v!r}")
            setattr(self, name, v)
        self.bits = check_int("bits", bits, 2, 63)
        self._args = {"d": self.d, "epsilon": epsilon, **flags, "bits": self.bits}

    @property
    def input_domain(self):
        return f"AtomDomain(item index in [0, {self.d}))"

    def privacy_map(self, d_in):
        return 0.0 if check_int("d_in", d_in, 0) == 0 else self._eps

    def config(self):
        return dict(self._args)

    def check_input(self, x):
        return check_int("x (item index)", x, 0, self.d - 1)

    def fleet_inputs(self, values):
        from ._kernels_mech import int_array
        return int_array(f"values (item indices in [0, {self.d - 1}])", values, 1, 0, self.d - 1)

    def synthetic_population(self, devices, seed):
        """Zipf(1.1)-distributed items; the truth is each item's share."""
        rng = np.random.default_rng([seed, 0x5EED])
        w = 1.0 / np.arange(1, self.d + 1) ** 1.1
        values = rng.choice(self.d, size=devices, p=w / w.sum()).astype(np.int64)
        return values, self.true_statistic(values)

    def true_statistic(self, values):
        """Each item's share."""
        x = self.fleet_inputs(values)
        return np.bincount(x, minlength=self.d) / x.shape[0]

    def harness_inputs(self):
        return {"kind": "index", "n": self.d}

    def default_pair(self):
        return 0, 1
