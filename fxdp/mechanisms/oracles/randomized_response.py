"""Binary and k-ary randomized response (seeds 000 and 001), with exact dyadic probabilities.

The whole family: reference releases, the glue to the Numba fleet kernels
(``_kernels_randomized_response.fleet_rr_bool`` / ``fleet_rr``) and to the C entry points
(csrc/fxdp_mech_rr.c), the device specs, the estimators with standard errors
and the exact audit (enumeration, through the Mechanism defaults).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...conservative import log_up
from ...reports import Estimate, Support, reports_array
from ...samplers import reference as ref
from ...validate import check_int, check_rational, given
from .._device import SRC_RR, _ct_text, _init, _p, u8, u32, u64
from ..base import CConfig, Mechanism, answers, expect_kind


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
    report_dtype = "bool"          # decoded reports as simulate returns them
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
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def fleet_inputs(self, values):
        from .._fleet import bits_array
        return bits_array("values", values, 1).astype(np.bool_)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_randomized_response import fleet_rr_bool
        out = np.zeros(x.shape[0], dtype=np.bool_)
        fleet_rr_bool(key, ids, first_block, np.uint64(self.a), np.uint64(self.bits), bool(self.constant_time),
                      x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        return out.astype(np.bool_, copy=False)

    # --- estimation
    def estimate(self, reports):
        """Fraction of devices whose true bit is 1, from binary randomized-response reports.

        E[Y] = pi p + (1 - pi)(1 - p), so pi_hat = (Y - (1 - p)) / (2p - 1); needs p > 1/2.
        """
        p = float(self.p_realized)
        if p <= 0.5:
            raise ValueError("prob = 1/2 carries no information: nothing to estimate")
        y = reports_array(reports).astype(np.float64)
        return self._estimate_from_mean(y.mean(), y.size)

    def estimate_from_histogram(self, hist):
        """The estimate from hist = (reports of 0, reports of 1): estimate's formula (the mean of
        0/1 reports is exactly hist[1] / n)."""
        hist = np.asarray(hist, dtype=np.int64)
        n = int(hist.sum())
        return self._estimate_from_mean(hist[1] / n, n)

    def _estimate_from_mean(self, ybar, n):
        p = float(self.p_realized)
        if p <= 0.5:
            raise ValueError("prob = 1/2 carries no information: nothing to estimate")
        est = (ybar - (1 - p)) / (2 * p - 1)
        se = math.sqrt(ybar * (1 - ybar) / n) / (2 * p - 1)
        return Estimate("frequency(true)", est, se)

    def report_statistic(self):
        """The counts of 0 and 1 reports: streaming estimation in O(1) memory."""
        from .._wire import Histogram
        return Histogram(self, self.report_layout(), self.estimate_from_histogram)

    def synthetic_population(self, devices, seed):
        """True with probability 0.3 (one double per device of ``default_rng([seed, 0x5EED])``)."""
        values = self.synthetic_part(devices, seed, 0, devices)
        return values, self.true_statistic(values)

    def synthetic_part(self, devices, seed, lo, hi):
        """Devices lo..hi-1 of the population, drawn alone (fxdp.mechanisms._oracle)."""
        from .._oracle import uniform_part
        from ..base import check_part
        _, lo, hi = check_part(devices, lo, hi)
        return uniform_part(seed, lo, hi) < 0.3

    def true_statistic(self, values):
        """The share of true values."""
        return self.truth_from_tally(self.truth_tally(values))

    def truth_tally(self, values):
        """[true values, devices]."""
        x = self.fleet_inputs(values)
        return np.array([np.count_nonzero(x), x.shape[0]], dtype=np.int64)

    def truth_from_tally(self, tally):
        return int(tally[0]) / int(tally[1])

    # --- device form
    def device_spec(self, dim=None):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base)."""
        ct = self.constant_time
        return {
            "c_function": "fxdp_rr_bool_ct" if ct else "fxdp_rr_bool",
            "cfg_type": "fxdp_rr_bool_cfg",
            "cfg_init": _init([("a", u64(self.a)), ("k", u8(self.bits))]),
            "tables": [],
            "input": {"ctype": "uint8_t", "count": 1},
            "output": {"ctype": "uint8_t", "count": 1, "min": 0, "max": 1},
            "sources": list(SRC_RR),
            "summary": (f"binary randomized response: out = x with probability p = a/2^{self.bits} = "
                        f"{_p(self.p_realized)}, else 1 - x (x, out in {{0, 1}}); epsilon <= {self.epsilon!r}; "
                        + _ct_text(ct, self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_rr_bool_cfg *", {"a": self.a, "k": self.bits})
        return CConfig(cfg, [], "fxdp_rr_bool" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint8_t", np.uint8)

    def release_output(self, out):
        return bool(out[0])

    def harness_inputs(self):
        return {"kind": "bool", "sim_dtype": "bool"}

    # --- audit and plots
    def output_distribution(self, x, x_prime):
        from ..distribution import exact_dist, exact_from_pmfs
        x, xp = self.check_input(x), self.check_input(x_prime)
        outs, num, nump, den = exact_from_pmfs(self.output_pmf(x), self.output_pmf(xp), order=[False, True])
        return exact_dist(repr(self), x, xp, outs, num, nump, den, [0, 1], False,
                          d_in=int(x != xp), epsilon_claimed=self.privacy_map(int(x != xp)))

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
      * (``unknown="uniform"`` only: by default a host value that is not a category is a
        ValueError naming the categories, in ``m(x)`` and the plots; the device form and
        ``simulate``, on indices, keep x = t as they are)
      * constant-time form: d = table_sample_ct([w0, w0+w, ..., w0+(t-2)w], k)
        (exactly k bits, full branch-free scan); return (x + d) mod t.  Only
        member indices are accepted on the device in this form; the host
        answers non-members with an exact uniform_below(t), which is not
        constant time (it reveals non-membership, not the value).
    """
    kind = "randomized_response"
    report_dtype = "int64"         # decoded reports as simulate returns them (category indices)
    input_metric = "DiscreteMetric"

    @property
    def bits_per_report(self):
        """A category index in [0, t)."""
        return max(1, (self.t - 1).bit_length())

    def __init__(self, categories, prob, constant_time=False, bits=32, unknown="error"):
        if unknown not in ("error", "uniform"):
            raise ValueError(f"unknown must be 'error' (a value that is not a category is a ValueError) or "
                             f"'uniform' (it is answered with a uniformly random category), got {unknown!r}")
        self.unknown = unknown
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
        out = {"categories": self.categories, "prob": self._prob_arg,
               "constant_time": self.constant_time, "bits": self.bits}
        if self.unknown != "error":          # only when set: every existing repr and config stays as it was
            out["unknown"] = self.unknown
        return out

    def realized(self):
        return {"prob": self.p_realized, "w0": self.w0, "w": self.w, "k": self.bits, "t": self.t}

    def index_of(self, x):
        """Device index of a host value: its position, or t when x is not a category."""
        try:
            return self._index.get(x, self.t)
        except TypeError:
            return self.t

    def check_input(self, x):
        """x itself; ValueError naming the categories when x is not one, unless unknown="uniform"."""
        if self.unknown == "error" and self.index_of(x) == self.t:
            raise ValueError(f"x = {x!r} is not a category; the categories are {self.categories!r} "
                             "(make_randomized_response(..., unknown='uniform') answers a value that is not a "
                             "category with a uniformly random one)")
        return x

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
        return super().simulate(values, seed, device_ids)

    # --- fleet kernel
    def thresholds_u32(self):
        """The constant-time table as uint32 (empty for the lazy form; cached)."""
        thr = getattr(self, "_thresholds_u32", None)
        if thr is None:
            thr = np.array(self.thresholds if self.constant_time else [], dtype=np.uint32)
            self._thresholds_u32 = thr
        return thr

    def fleet_inputs(self, values):
        from .._fleet import int_array
        return int_array("values (category indices; t = not a category)", values, 1, 0, self.t)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_randomized_response import fleet_rr
        out = np.zeros(x.shape[0], dtype=np.int64)
        fleet_rr(key, ids, first_block, np.uint64(self.t), np.uint64(self.w0), np.uint64(self.bits),
                 self.thresholds_u32(), bool(self.constant_time), x, out, status, bits)
        return out

    def fleet_outputs(self, out):
        return out.astype(np.int64, copy=False)

    # --- estimation
    def estimate(self, indices):
        """Frequency of each of the t categories from k-ary reports (category indices).

        P(report c) = pi_c p + (1 - pi_c) q with q = (1 - p)/(t - 1), so
        pi_hat_c = (Y_c - q) / (p - q).
        """
        t = self.t
        p = float(self.p_realized)
        q = (1 - p) / (t - 1)
        if p <= q:
            raise ValueError("prob = 1/t carries no information: nothing to estimate")
        idx = reports_array(indices)
        if idx.min() < 0 or idx.max() >= t:
            raise ValueError(f"indices must be in [0, {t - 1}]")
        return self.estimate_from_histogram(np.bincount(idx, minlength=t))

    def estimate_from_histogram(self, hist):
        """The estimate from hist[c], the number of reports of category c: estimate's formula."""
        t = self.t
        p = float(self.p_realized)
        q = (1 - p) / (t - 1)
        if p <= q:
            raise ValueError("prob = 1/t carries no information: nothing to estimate")
        hist = np.asarray(hist, dtype=np.int64)
        n = int(hist.sum())
        y = hist / n
        est = (y - q) / (p - q)
        se = np.sqrt(y * (1 - y) / n) / (p - q)
        return Estimate("frequency", est, se, labels=[str(c) for c in self.categories])

    def frequency_support(self, indices):
        """Support counts: the reports equal to each category; p the realized honest probability,
        q = (1 - p)/(t - 1) (the exact channel: IBU on it is the maximum-likelihood EM)."""
        idx = reports_array(indices)
        if idx.min() < 0 or idx.max() >= self.t:
            raise ValueError(f"indices must be in [0, {self.t - 1}]")
        p = self.p_realized
        return Support(np.bincount(idx.ravel(), minlength=self.t).astype(np.int64), int(idx.size),
                       p, (1 - p) / (self.t - 1))

    def report_statistic(self):
        """The report histogram (t counts): streaming estimation in O(t) memory."""
        from .._wire import Histogram
        return Histogram(self, self.report_layout(), self.estimate_from_histogram)

    def variance(self, f, n):
        """Closed-form variance of the frequency estimate of a category with true frequency f among
        n devices (their values fixed): (f p(1-p) + (1-f) q(1-q)) / (n (p-q)^2).  The estimator's
        reported stderr plugs in the observed share y instead, sqrt(y(1-y)/n)/(p-q), which also
        counts the spread of a sampled population, so against one fleet it is conservative."""
        p = float(self.p_realized)
        q = (1 - p) / (self.t - 1)
        f = np.asarray(f, dtype=np.float64)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)

    def synthetic_population(self, devices, seed):
        """Zipf(1)-distributed categories (numpy's ``choice`` of t categories on the generator
        ``default_rng([seed, 0x5EED])``, one double per device)."""
        values = self.synthetic_part(devices, seed, 0, devices)
        return values, self.true_statistic(values)

    def synthetic_part(self, devices, seed, lo, hi):
        """Devices lo..hi-1 of the population, drawn alone (fxdp.mechanisms._oracle)."""
        from .._oracle import categorical_part
        from ..base import check_part
        _, lo, hi = check_part(devices, lo, hi)
        weights = 1.0 / np.arange(1, self.t + 1)
        return categorical_part(seed, weights / weights.sum(), lo, hi)

    def true_statistic(self, values):
        """Each category's share (index t, "not a category", counts in n only)."""
        return self.truth_from_tally(self.truth_tally(values))

    def truth_tally(self, values):
        """Each index's count (t + 1: the last is "not a category"), then the number of devices."""
        x = self.fleet_inputs(values)
        return np.append(np.bincount(x, minlength=self.t + 1), x.shape[0]).astype(np.int64)

    def truth_from_tally(self, tally):
        return tally[:self.t] / tally[-1]

    # --- device form
    def device_spec(self, dim=None):
        """The C device form for the firmware exporter (keys: see fxdp.mechanisms.base).
        The device works on category indices (``index_of``)."""
        ct = self.constant_time
        fields = [("t", u32(self.t)), ("w0", u32(self.w0)), ("k", u8(self.bits))]
        tables = []
        if ct:
            fields.append(("thresholds", "fxdp_rr_thresholds"))
            tables.append(("fxdp_rr_thresholds", "uint32_t", [int(v) for v in self.thresholds]))
        domain = (f"x in [0, {self.t - 1}] (category indices; constant-time form: members only)" if ct else
                  f"x in [0, {self.t}] (category indices; {self.t} = not a category, answered uniformly)")
        return {
            "c_function": "fxdp_rr_ct" if ct else "fxdp_rr",
            "cfg_type": "fxdp_rr_cfg",
            "cfg_init": _init(fields),
            "tables": tables,
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 1, "min": 0, "max": self.t - 1},
            "sources": list(SRC_RR),
            "summary": (f"k-ary randomized response over t = {self.t} categories: the truth w.p. p = "
                        f"w0/2^{self.bits} = {_p(self.p_realized)}, each other category w.p. {self.w}/2^{self.bits}; "
                        f"{domain}; epsilon <= {self.epsilon!r}; " + _ct_text(ct, self.bits)),
        }

    def c_config(self, dim=None):
        from ... import native
        ffi = native.ffi
        cfg = ffi.new("fxdp_rr_cfg *", {"t": self.t, "w0": self.w0, "k": self.bits})
        keep = []
        if self.constant_time:
            tbl = ffi.new("uint32_t[]", [int(v) for v in self.thresholds])
            keep.append(tbl)
            cfg.thresholds = tbl
        return CConfig(cfg, keep, "fxdp_rr" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32)

    def release_output(self, out):
        return int(out[0])

    def harness_inputs(self):
        # the lazy device form also answers x = t ("not a category"); the CT form takes members only
        return {"kind": "index", "n": self.t if self.constant_time else self.t + 1}

    # --- audit and plots
    def output_distribution(self, x, x_prime):
        from ..distribution import exact_dist, exact_from_pmfs

        def idx(v):
            i = self.index_of(v)
            if i == self.t and isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v <= self.t:
                return int(v)                # a device index (t = not a category)
            if i == self.t:
                self.check_input(v)          # a name that is not a category: refused unless unknown="uniform"
            return i
        xi, xpi = idx(x), idx(x_prime)
        order = list(range(self.t))
        _, num, nump, den = exact_from_pmfs(self.output_pmf(xi), self.output_pmf(xpi), order=order)
        label = lambda i: self.categories[i] if i < self.t else "(not a category)"   # noqa: E731
        d_in = int(xi != xpi)
        return exact_dist(repr(self), label(xi), label(xpi), list(self.categories), num, nump, den, order, False,
                          d_in=d_in, epsilon_claimed=self.privacy_map(d_in))

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


def rr_bool_frequency(reports, mechanism):
    """Fraction of devices whose true bit is 1, from binary randomized-response reports."""
    return expect_kind(mechanism, ("randomized_response_bool",), "rr_bool_frequency").estimate(reports)


def rr_frequencies(indices, mechanism):
    """Frequency of each of the t categories from k-ary reports (category indices)."""
    return expect_kind(mechanism, ("randomized_response",), "rr_frequencies").estimate(indices)


def _oracle_configs(epsilon, d, bits):
    """``oracle_configs`` (fxdp.mechanisms.base.answers): the categories 0..d-1 at
    p = e^eps / (e^eps + d - 1), from a lower bound on e^eps (the realized epsilon is never above
    epsilon), while d fits the weight table (d <= 2^min(bits - 1, 16))."""
    from ...conservative import exp_interval
    if d > 1 << min(bits - 1, 16):
        return []
    lo, _ = exp_interval(epsilon)
    return [{"categories": list(range(d)), "prob": Fraction(lo) / (lo + d - 1), "bits": min(bits, 32)}]


@answers(oracle_configs=_oracle_configs)
def make_randomized_response(categories, prob, constant_time=False, bits=32, unknown="error"):
    """k-ary randomized response: >= 2 distinct categories, prob in [1/t, 1).  unknown: "error"
    (default: a value that is not a category is a ValueError naming the categories) or "uniform"
    (it is answered with a uniformly random category, the device form's index t)."""
    return RandomizedResponse(categories, prob, constant_time, bits, unknown)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'randomized_response_bool': ('Warner 1965',
        '`prob = 0.75`, `constant_time = true`, `bits = 32`'),
    'randomized_response': ('Warner 1965, k categories',
        '`categories = ["a", "b", "c"]`, `prob = "3/4"`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    'rr_bool_ct': lambda: make_randomized_response_bool(0.75, constant_time=True),
    'rr_bool_lazy': lambda: make_randomized_response_bool(0.75),
    'rr_kary_ct': lambda: make_randomized_response(['a', 'b', 'c', 'd', 'e'], 0.6, constant_time=True),
    'rr_kary_lazy': lambda: make_randomized_response(['a', 'b', 'c', 'd', 'e'], 0.6),
}
EXPORT_VARIANTS: set[str] = set()
