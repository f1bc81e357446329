"""What every frequency oracle over an item domain [0, d) shares: argument checks, the input
domain, the privacy map of a fixed realized epsilon, item-index inputs (host and fleet), the
Zipf synthetic population (drawn device by device: ``uniform_part``, ``categorical_part``, which
randomized response uses too) and the export harness's input model.  The oracles
(``unary_encoding``, ``hadamard_response``, ``subset_selection``, ``local_hashing``) subclass ``ItemOracle`` and add their release,
kernels, device form, estimator and audit."""
from __future__ import annotations

import numpy as np

from ..validate import check_int, check_rational
from .base import Mechanism

MAX_EPSILON = 64


class SupportCounts:
    """An item oracle's mergeable sufficient statistic for streaming estimation: the per-item
    support counts and n (O(d) memory, whatever the report size: a local-hashing report's hash
    seed or a subset's k indices are reduced chunk by chunk).  estimate_rows is the unbiased
    estimate on them (fxdp.reports.Support.unbiased), the family's estimate on the reports."""

    def __init__(self, mechanism):
        self.m = mechanism
        self.counts = np.zeros(mechanism.d, dtype=np.int64)
        self._n = 0
        self._pq = None

    @property
    def n(self) -> int:
        return self._n

    def add(self, reports):
        sup = self.m.frequency_support(reports)
        self.counts += np.asarray(sup.counts, dtype=np.int64)
        self._n += int(sup.n)
        self._pq = (sup.p, sup.q)
        return self

    def merge(self, other):
        self.counts += other.counts
        self._n += other.n
        self._pq = self._pq or other._pq
        return self

    def estimate_rows(self, truth=None):
        if self._n == 0:
            raise ValueError("reports: no reports to estimate from")
        from ..reports import Support
        return Support(self.counts, self._n, *self._pq).unbiased().as_rows(truth)


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
        from ._fleet import int_array
        return int_array(f"values (item indices in [0, {self.d - 1}])", values, 1, 0, self.d - 1)

    def synthetic_population(self, devices, seed):
        """Zipf(1.1)-distributed items (numpy's ``choice`` of d items on the generator
        ``default_rng([seed, 0x5EED])``, one double per device); the truth is each item's share."""
        values = self.synthetic_part(devices, seed, 0, devices)
        return values, self.true_statistic(values)

    def synthetic_part(self, devices, seed, lo, hi):
        """Devices lo..hi-1 of the Zipf population, drawn alone (``categorical_part``)."""
        from .base import check_part
        _, lo, hi = check_part(devices, lo, hi)
        w = 1.0 / np.arange(1, self.d + 1) ** 1.1
        return categorical_part(seed, w / w.sum(), lo, hi)

    def true_statistic(self, values):
        """Each item's share."""
        return self.truth_from_tally(self.truth_tally(values))

    def truth_tally(self, values):
        """Each item's count, then the number of devices (a subclass whose true_statistic is
        another sum overrides both: dBitFlip's buckets)."""
        x = self.fleet_inputs(values)
        return np.append(np.bincount(x, minlength=self.d), x.shape[0]).astype(np.int64)

    def truth_from_tally(self, tally):
        return tally[:-1] / tally[-1]

    def harness_inputs(self):
        return {"kind": "index", "n": self.d}

    def report_statistic(self):
        """Per-item support counts (SupportCounts); oracles with a cheaper exact statistic
        (unary encoding's bit sums, Hadamard response's histogram) override this."""
        return SupportCounts(self)

    def default_pair(self):
        return 0, 1


# --------------------------------------------------------------------------
# synthetic populations drawn device by device
#
# A synthetic population stands for the data, not for the privacy path: numpy's PCG64 seeded with
# [seed, 0x5EED].  Where a family draws one double per device, device i's value depends only on
# the generator's i-th output, so devices lo..hi-1 are drawn alone by advancing the generator lo
# steps (PCG64.advance, O(log lo)) and drawing hi - lo doubles: a cluster partition generates its
# own inputs (fxdp.dask_engine), equal to the single process's values[lo:hi] bit for bit.

SEED_TAG = 0x5EED


def uniform_part(seed, lo, hi):
    """Doubles lo..hi-1 of ``np.random.default_rng([seed, 0x5EED]).random(n)`` (any n >= hi)."""
    bg = np.random.PCG64([seed, SEED_TAG])
    if lo:
        bg.advance(lo)
    return np.random.Generator(bg).random(hi - lo)


def categorical_part(seed, p, lo, hi):
    """Values lo..hi-1 of ``np.random.default_rng([seed, 0x5EED]).choice(len(p), size=n, p=p)``
    (any n >= hi; numpy's inverse-CDF rule on ``cdf = p.cumsum() / its last entry``) as int64,
    drawn by a compiled pass (numpy's searchsorted costs about as much per device as a fleet
    release)."""
    from ._kernels_common import categorical_fill
    cdf = np.asarray(p, dtype=np.float64).cumsum()
    cdf /= cdf[-1]
    out = np.empty(hi - lo, dtype=np.int64)
    categorical_fill(uniform_part(seed, lo, hi), cdf, out)
    return out
