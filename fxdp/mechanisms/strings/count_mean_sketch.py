"""Apple's Count Mean Sketch (CMS; "Learning with Privacy at Scale", Apple 2017), exact on dyadic
probabilities, and its Hadamard variant (HCMS, ``HadamardCountMeanSketch``), the registered kind
``count_mean_sketch`` (issue 34): the reference release, its privacy map and exact audit, the Numba
fleet (``_kernels_count_mean_sketch.py``), the C device form (csrc/fxdp_mech_count_mean_sketch.c),
the wire codec and the server's estimator (the C form's builders: _device_count_mean_sketch.py;
the string input and synthetic population it shares with the Prefix Extending Method: _strings.py).

Reports, as ``simulate`` returns them and the device writes them: CMS, uint8[n, m + 2] rows
(j & 0xFF, j >> 8, then the m bits); HCMS, uint32[n, 3] rows (j, l, bit).  ``release`` returns
(j, bits) and (j, l, bit).  The server's functions take those rows, the reference's tuples, or a
``SketchCounts`` (``simulate_sketch``, the streamed statistic of ``fxdp estimate``).

A device holds a byte string s of at most max_length bytes.  With k hash functions
h_0 .. h_{k-1} into a width of m = 2^l (fxdp.strhash: keyed by a public 32-byte key,
strongly universal), it

1. draws j uniform in [0, k) (``uniform_below``; ``uniform_below_ct`` in constant time),
2. encodes v = the one-hot vector of h_j(s) in m bits,
3. flips every bit with probability q, and reports (j, v xor flips).  Step 3 is drawn as symmetric
   unary encoding (SUE) of the item h_j(s) over m items, with SUE's bits: bit i = 0 .. m-1 in
   order is a Bernoulli(a_p / 2^bits) draw at i = h_j(s) and Bernoulli(a_q / 2^bits) elsewhere
   (``bernoulli_dyadic`` or ``_ct``), a_p = 2^bits - a_q; so the fleet kernels and the C form
   reuse unary encoding's, and fxdp.make_unary_encoding(m, epsilon, optimized=False, bits=bits)
   draws the same bits for the item h_j(s).

q = 1/(1 + e^(eps/2)) is rounded *up* to the grid of 2^-bits (more noise), so the realized
epsilon 2 ln((1 - q)/q) never exceeds the request: two inputs' one-hot vectors differ in at most
two positions, and j does not depend on the input.  Every pair of strings is a pair of
neighbours (the input metric is discrete), so ``epsilon`` is the local epsilon.

The server (``estimate``): C[j][u] counts the reports of index j with bit u set, n_j the reports
of index j; X[j][u] = (C[j][u] - n_j q) / (1 - 2q) estimates the devices of index j whose string
hashes to u.  For a candidate d, S(d) = sum_j X[j][h_j(d)] estimates n_d + (n - n_d)/m over the
hash key (a device holding another string lands on d's cell with probability 1/m), so

    f(d) = (m / (m - 1)) (S(d) / n - 1/m)

is unbiased for d's share of the devices over the flips and the hash key.  Its variance has three
parts, (m / (m - 1))^2 times

    (q (1 - q) / (1 - 2q)^2 + (1 - f) (1/m) (1 - 1/m)) / n      the flips, and each other device
                                                                 landing on d's cell or not
    + (1 / (k m)) (1 - 1/m) sum_{s != d} f_s^2                   the hash key: a string s shares
                                                                 d's cell in about k/m rows

The last term does not shrink with n: under one key, a frequent string that shares a cell with d
in a row biases d's estimate by its share / k, the same in every fleet.  ``estimate`` takes
sum_s f_s^2 from the sketch itself (each row's sum of squared cell shares, less the noise's part):
biased upward, since strings sharing a cell add their shares.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import numpy as np

from ... import strhash
from ...conservative import exp_interval, float_up, log_up
from ...reports import AuditReport, Estimate
from ...samplers import reference as ref
from .._device import _p
from ..base import Mechanism
from ._strings import StringInput, check_epsilon

MAX_LOG2_WIDTH = 16            # simulation: a report is m bits
MAX_HASHES = 1 << 16


def realize(epsilon, bits):
    """a_q over 2^bits: q = a_q / 2^bits >= 1/(1 + e^(eps/2)), the smallest such."""
    lo, _ = exp_interval(Fraction(epsilon) / 2)            # lo <= e^(eps/2)
    return int(math.ceil(Fraction(1 << bits) / (lo + 1)))


def _ratio(a_q, bits):
    """((1 - q)/q)^2: the largest ratio of two inputs' report probabilities."""
    return Fraction((1 << bits) - a_q, a_q) ** 2


def _check_int(name, value, lo, hi, what=""):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int in [{lo}, {hi}]{what}, got {type(value).__name__}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}]{what}, got {value}")
    return int(value)


@dataclass
class SketchCounts:
    """A sketch without its reports: CMS, counts[j][u] = the reports of index j with bit u set;
    HCMS, counts[j][l] = the sum of the signs 1 - 2b of the reports (j, l); n_j = the reports of
    index j (``simulate_sketch``; ``estimate`` and ``discover`` take it for reports)."""
    counts: np.ndarray
    n_j: np.ndarray


class SketchStatistic:
    """``fxdp estimate``'s streamed statistic of a Count Mean Sketch: the sketch of every report
    added (``add`` device-form reports, ``merge`` another), n, and ``estimate_rows(truth)`` equal to
    the estimator on all the reports (integer sums are exact)."""

    def __init__(self, mechanism):
        self.m = mechanism
        self.counts = np.zeros((mechanism.hashes, mechanism.width), np.int64)
        self.n_j = np.zeros(mechanism.hashes, np.int64)

    @property
    def n(self) -> int:
        return int(self.n_j.sum())

    def add(self, reports):
        c, n_j = self.m.sketch(np.asarray(reports).reshape(-1, self.m.report_columns))
        self.counts += c
        self.n_j += n_j
        return self

    def merge(self, other):
        self.counts += other.counts
        self.n_j += other.n_j
        return self

    def sketch(self) -> SketchCounts:
        return SketchCounts(self.counts.copy(), self.n_j.copy())

    def estimate_rows(self, truth=None):
        if self.n == 0:
            raise ValueError("reports: no reports to estimate from")
        return self.m.estimate_rows(self.sketch(), truth)


class CountMeanSketch(StringInput, Mechanism):
    """The Count Mean Sketch client over byte strings (see the module docstring)."""
    kind = "count_mean_sketch"

    def __init__(self, width, hashes, epsilon, max_length=32, constant_time=False, bits=32, hash_key=None):
        width = _check_int("width", width, 2, 1 << MAX_LOG2_WIDTH, ", a power of two")
        if width & (width - 1):
            raise ValueError(f"width must be a power of two in [2, {1 << MAX_LOG2_WIDTH}], got {width}")
        self.width, self.log2_width = width, width.bit_length() - 1
        self.hashes = _check_int("hashes", hashes, 1, MAX_HASHES)
        self.max_length = strhash.check_max_length(max_length)
        self.bits = _check_int("bits", bits, 2, 32)
        if not isinstance(constant_time, bool):
            raise TypeError(f"constant_time must be a bool, got {type(constant_time).__name__}")
        self.constant_time = constant_time
        self.epsilon_requested = check_epsilon(epsilon, 64)
        self.hash_key = strhash.parse_hash_key(hash_key)
        self._hash_key_arg = hash_key
        self.a_q = self._realize()
        half = 1 << (self.bits - 1)
        if not 0 < self.a_q < half:
            nearest = float_up(Fraction(log_up(self._ratio_of(half - 1, self.bits))))
            raise ValueError(f"epsilon = {float(self.epsilon_requested)!r} is too small for bits = {self.bits}: "
                             f"the flip probability rounds to 1/2 (no privacy loss to spend); the nearest "
                             f"valid epsilon is {nearest!r} (or use more bits)")
        self.q = Fraction(self.a_q, 1 << self.bits)
        self._ratio = self._ratio_of(self.a_q, self.bits)
        self._eps = log_up(self._ratio)

    hadamard = False

    def _realize(self):
        return realize(self.epsilon_requested, self.bits)

    @staticmethod
    def _ratio_of(a_q, bits):
        return _ratio(a_q, bits)

    # --- description
    @property
    def output_domain(self):
        return f"TupleDomain(AtomDomain(u32) < {self.hashes}, VectorDomain(AtomDomain(bool), size={self.width}))"

    @property
    def bits_per_report(self):
        """The hash index (ceil(log2 k) bits) and m bits."""
        return (self.hashes - 1).bit_length() + self.width

    def config(self):
        return {"width": self.width, "hashes": self.hashes, "epsilon": self.epsilon_requested,
                "hadamard": self.hadamard, "max_length": self.max_length, "constant_time": self.constant_time,
                "bits": self.bits, "hash_key": self._hash_key_arg}

    def realized(self):
        return {"q": self.q, "a_q": self.a_q, "bits": self.bits, "epsilon": self._eps,
                "hash_key": self.hash_key.hex()}

    # --- input and release
    def cell(self, j, s):
        """h_j(s): the sketch column of string s (checked bytes) under hash index j."""
        return strhash.hash_to_width(self.hash_key, j, s, self.max_length, self.log2_width)

    def cells(self, strings):
        """int64[len(strings), k]: every hash index's cell of every (checked) string, by the Numba
        hash (fxdp.samplers._nb_strhash; the reference's values)."""
        from ._kernels_count_mean_sketch import candidate_cells
        rows = self.fleet_inputs(strings)
        out = np.zeros((rows.shape[0], self.hashes), np.int64)
        candidate_cells(self._coeffs(), rows, np.uint32(32 - self.log2_width), out)
        return out

    def release(self, src, x):
        """(j, bits): j uniform in [0, k), then SUE's m bits for the item h_j(x): bit i is
        Bernoulli(1 - q) at i = h_j(x), Bernoulli(q) elsewhere, in order."""
        j = ref.uniform_below_ct(src, self.hashes) if self.constant_time else ref.uniform_below(src, self.hashes)
        u = self.cell(j, x)
        draw = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        a_p = (1 << self.bits) - self.a_q
        return j, [int(draw(src, a_p if i == u else self.a_q, self.bits)) for i in range(self.width)]

    # --- the fleet (Numba, all cores): bit for bit the reference release of every device
    def _coeffs(self):
        if getattr(self, "_coeff_table", None) is None:
            from ...samplers._nb_strhash import strhash_table
            self._coeff_table = strhash_table(np.array(strhash.key_words(self.hash_key), np.uint32), self.hashes,
                                              self.max_length)
        return self._coeff_table

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ...samplers._nb_lanes import ahead_blocks
        from ...samplers._nb_run import dyadic_run_table
        from ._kernels_count_mean_sketch import fleet_count_mean_sketch
        n = x.shape[0]
        out = np.zeros((n, self.width + 2), np.uint8)
        a_p = (1 << self.bits) - self.a_q
        nb = ahead_blocks(self.width * (self.bits if self.constant_time else 2) + 128, key)
        fleet_count_mean_sketch(key, ids, first_block, self._coeffs(), np.uint32(32 - self.log2_width),
                                np.uint64(self.hashes), np.uint64(a_p), np.uint64(self.a_q), np.uint64(self.bits),
                                bool(self.constant_time), x, out, status, bits,
                                dyadic_run_table(self.a_q, self.bits), nb)
        return out

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation: device i releases values[i] on the keyed stream (seed, device_ids[i],
        stream 0), bit for bit as ``release`` and the C form.  values: byte strings or str, or
        encoded rows (``fleet_inputs``).  Returns the reports uint8[n, m + 2] (j & 0xFF, j >> 8,
        the m bits; ``split_reports`` gives (j, bits)); raises ValueError / EntropyError /
        RangeError (nothing returned) if an input or a device fails."""
        return super().simulate(values, seed, device_ids)

    def simulate_sketch(self, values, seed, device_ids=None):
        """The sketch of ``simulate``'s reports, (C int64[k, m], n_j int64[k]) as ``sketch``
        returns it, without keeping the n reports (O(k m) memory per worker); ``estimate`` and
        ``discover`` take it in place of reports.  Raises as ``simulate`` does."""
        import numba

        from ...samplers._nb_lanes import ahead_blocks
        from ...samplers._nb_run import dyadic_run_table
        from .._fleet import _finish, check_device_ids, check_first_block, check_seed
        from .._kernels_common import CHUNK
        from ._kernels_count_mean_sketch import fleet_count_mean_sketch_counts
        key = check_seed(seed)
        x = self.fleet_inputs(values)
        ids = check_device_ids(device_ids, x.shape[0])
        status = np.zeros(x.shape[0], np.uint8)
        w = max(1, min(numba.get_num_threads(), -(-x.shape[0] // CHUNK)))
        counts = np.zeros((w, self.hashes, self.width), np.int64)
        n_j = np.zeros((w, self.hashes), np.int64)
        nb = ahead_blocks(self.width * (self.bits if self.constant_time else 2) + 128, key)
        fleet_count_mean_sketch_counts(key, ids, np.uint32(check_first_block(None)), self._coeffs(),
                                       np.uint32(32 - self.log2_width), np.uint64(self.hashes),
                                       np.uint64((1 << self.bits) - self.a_q), np.uint64(self.a_q),
                                       np.uint64(self.bits), bool(self.constant_time), x, counts, n_j, status,
                                       dyadic_run_table(self.a_q, self.bits), nb)
        _finish(None, status, None, ids, f"{self.kind}.simulate_sketch")
        return SketchCounts(counts.sum(axis=0), n_j.sum(axis=0))

    # --- the device form (csrc/fxdp_mech_count_mean_sketch.c)
    report_dtype = "uint8"

    def release_output(self, out):
        return int(out[0]) | (int(out[1]) << 8), [int(v) for v in out[2:]]

    def report_fields(self):
        """The record (docs/wire.md): j's two bytes as the device writes them (the high byte takes
        no bits below 257 hashes), then the m bits."""
        from .._wire import ReportField
        top = self.hashes - 1
        return [ReportField("j_lo", 1, 0, min(top, 255)), ReportField("j_hi", 1, 0, top >> 8),
                ReportField("bits", self.width, 0, 1)]

    def _device_output(self):
        return {"ctype": "uint8_t", "count": self.width + 2, "meaning": "j & 0xFF, j >> 8, then the m bits"}

    def _device_text(self):
        return (f"Count Mean Sketch, k = {self.hashes} hashes, width m = {self.width}: the one-hot cell "
                f"h_j(x) with every bit flipped w.p. q = {_p(self.q)}")

    def _check_device(self):
        from ._device_count_mean_sketch import check_device
        check_device(self)

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base; _device_count_mean_sketch.py)."""
        from ._device_count_mean_sketch import device_spec
        return device_spec(self)

    def c_config(self, dim=None):
        from ._device_count_mean_sketch import c_config
        return c_config(self)

    def estimate_rows(self, reports, truth=None):
        """Rows {name, true, estimate, stderr} of the candidates in truth ({string: share}, as
        true_statistic gives), or of ``m.candidates`` (a list set by the caller) with no truth."""
        if isinstance(truth, dict):
            cand, true = list(truth), [float(v) for v in truth.values()]
        elif getattr(self, "candidates", None) is not None:
            cand, true = list(self.candidates), None
        else:
            raise ValueError(f"{self.kind}: the sketch estimates given candidate strings: pass them "
                             "(m.estimate(reports, candidates), or fxdp estimate --candidates FILE)")
        return self.estimate(reports, cand).as_rows(true)

    def report_statistic(self):
        """The mergeable sketch (counts of every (j, cell) and reports per j: O(k m) memory)."""
        return SketchStatistic(self)

    # --- the exact audit: the report's probability is a product
    def report_pmf(self, j, bits, x):
        """P((j, bits) | x), exactly."""
        u = self.cell(j, x)
        q, keep = self.q, 1 - self.q
        pr = Fraction(1, self.hashes)
        for i, b in enumerate(bits):
            pr *= keep if b == int(i == u) else q
        return pr

    def exact_audit(self, d_in=1):
        """Closed form: the ratio of two inputs' report probabilities is ((1 - q)/q)^c, where c in
        {-2, 0, 2} is the signed count of positions where their one-hot vectors differ, for the
        reported j.  It reaches ((1 - q)/q)^2 for any two strings with h_j(s) != h_j(t) for some j
        (whatever bits the report has outside those two positions); for two strings that every
        h_j maps together the mechanism is the same for both (ratio 1).  The witness pair is the
        first two strings b"\\x00", b"\\x01", ... that some hash index separates."""
        if d_in == 0:
            return AuditReport(repr(self), 0.0, 0.0, {}, "closed form (product channel)", d_in=0)
        for t in range(1, 256):
            s, other = b"\x00", bytes([t])
            for j in range(self.hashes):
                u, w = self.cell(j, s), self.cell(j, other)
                if u != w:
                    bits = [int(i == u) for i in range(self.width)]
                    ratio = self.report_pmf(j, bits, s) / self.report_pmf(j, bits, other)
                    return AuditReport(repr(self), self._eps, log_up(ratio),
                                       {"x": s.hex(), "x_prime": other.hex(), "j": j, "report": "one-hot of h_j(x)"},
                                       "closed form (product channel)", d_in=d_in)
        return AuditReport(repr(self), self._eps, 0.0, {"note": "no hash index separates the witnesses"},
                           "closed form (product channel)", d_in=d_in)

    def enumerated_epsilon(self, inputs):
        """max over the given inputs and every report of the probability ratio, by enumerating
        all k 2^m reports (small m only): the audit's check."""
        if self.width > 12:
            raise ValueError(f"enumerated_epsilon enumerates 2^width reports: width must be <= 12, got {self.width}")
        inputs = [self.check_input(x) for x in inputs]
        worst = Fraction(1)
        for j in range(self.hashes):
            for bits in product((0, 1), repeat=self.width):
                prs = [self.report_pmf(j, bits, x) for x in inputs]
                worst = max(worst, max(prs) / min(prs))
        return worst

    # --- the server
    def sketch(self, reports):
        """(C, n_j): C[j][u] = the reports of index j with bit u set, n_j the reports of index j.
        reports: (js, bits) arrays (n, and n x m), or a list of (j, bits) pairs."""
        from ._kernels_count_mean_sketch import sketch_counts, sketch_rows
        if isinstance(reports, SketchCounts):
            return self._checked_sketch(reports)
        if isinstance(reports, np.ndarray):
            counts = np.zeros((self.hashes, self.width), np.int64)
            n_j = np.zeros(self.hashes, np.int64)
            bad = sketch_rows(self._report_rows(reports), counts, n_j)
            if bad >= 0:
                raise ValueError(f"reports: row {bad} holds a hash index outside [0, {self.hashes}) or a bit other "
                                 "than 0/1")
            return counts, n_j
        js, bits = self._as_arrays(reports)
        counts = np.zeros((self.hashes, self.width), np.int64)
        sketch_counts(js, np.ascontiguousarray(bits), counts)
        return counts, np.bincount(js, minlength=self.hashes)

    @property
    def report_columns(self):
        """Elements of one device-form report: j's two bytes and the m bits (HCMS: j, l, bit)."""
        return self.width + 2

    def _report_rows(self, reports):
        """Device-form reports as a C-contiguous matrix of the output type, shape checked."""
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != self.report_columns or arr.dtype.kind not in "ui":
            raise ValueError(f"reports must be an integer matrix of {self.report_columns} columns (the device "
                             f"form m.simulate returns), got {arr.dtype} {arr.shape}")
        if arr.shape[0] == 0:
            raise ValueError("reports must hold at least one report")
        dt = np.dtype(self.report_dtype)
        fits = arr.dtype.kind == "u" and arr.dtype.itemsize <= dt.itemsize     # no pass over the values
        if not fits and (arr.min() < 0 or arr.max() > np.iinfo(dt).max):
            raise ValueError(f"reports hold a value outside the {dt} range")
        return np.ascontiguousarray(arr, dtype=dt)

    def split_reports(self, reports):
        """(js int64[n], bits uint8[n, m]) of device-form reports."""
        rows = self._report_rows(reports)
        return rows[:, 0].astype(np.int64) | (rows[:, 1].astype(np.int64) << 8), rows[:, 2:]

    def _checked_sketch(self, sk):
        c, n_j = np.asarray(sk.counts), np.asarray(sk.n_j)
        if c.shape != (self.hashes, self.width) or n_j.shape != (self.hashes,):
            raise ValueError(f"sketch must be {self.hashes} x {self.width} counts and {self.hashes} row totals, "
                             f"got shapes {c.shape} and {n_j.shape}")
        if n_j.sum() == 0:
            raise ValueError("reports must hold at least one report")
        return c, n_j

    def _as_arrays(self, reports):
        if isinstance(reports, tuple) and len(reports) == 2 and isinstance(reports[0], np.ndarray):
            js, bits = reports
        else:
            reports = list(reports)
            js = np.array([r[0] for r in reports], np.int64)
            bits = np.array([list(r[1]) for r in reports], np.uint8).reshape(len(reports), self.width)
        js, bits = np.asarray(js, np.int64), np.asarray(bits, np.uint8)
        if js.ndim != 1 or bits.shape != (js.size, self.width):
            raise ValueError(f"reports must be n hash indices and an n x {self.width} bit matrix, "
                             f"got shapes {js.shape} and {bits.shape}")
        if js.size == 0:
            raise ValueError("reports must hold at least one report")
        if js.min() < 0 or js.max() >= self.hashes or bits.max(initial=0) > 1:
            raise ValueError(f"reports hold a hash index outside [0, {self.hashes}) or a bit other than 0/1")
        return js, bits

    def cell_estimates(self, reports):
        """(X, n_j, noise): X[j][u] estimates the reports of index j whose string hashes to u
        (unbiased), n_j the reports of index j, noise the variance one report adds to one cell's
        estimate beyond its own 0/1 value (the flips')."""
        counts, n_j = self.sketch(reports)
        q = float(self.q)
        return (counts - n_j[:, None] * q) / (1.0 - 2.0 * q), n_j, q * (1 - q) / (1 - 2 * q) ** 2

    def estimate(self, reports, candidates):
        """Each candidate's share of the devices (unbiased over the flips and the hash key), with
        its standard error (the flips' noise and the hash-collision terms; module docstring), in
        the candidates' order."""
        x, n_j, noise = self.cell_estimates(reports)
        n = int(n_j.sum())
        cand = [self.check_input(c) for c in candidates]
        m, k = self.width, self.hashes
        s = x[np.arange(k)[None, :], self.cells(cand)].sum(axis=1) if cand else np.zeros(0)
        est = (m / (m - 1)) * (s / n - 1.0 / m)
        f = np.clip(est, 0.0, 1.0)
        # sum_s f_s^2, from the sketch: each row's sum of squared cell shares less its noise (an
        # upper estimate: strings sharing a cell add their shares)
        rows = n_j > 0
        share = x[rows] / n_j[rows, None]
        f2 = float(np.mean(np.maximum((share ** 2).sum(axis=1) - m * noise / n_j[rows], 0.0)))
        var = (m / (m - 1)) ** 2 * ((noise + self._own_variance(f)) / n
                                    + (1 / (k * m)) * (1 - 1 / m) * np.maximum(f2 - f ** 2, 0.0))
        return Estimate("frequency", est, np.sqrt(var), labels=[c.decode("utf-8", "backslashreplace") for c in cand])

    def _own_variance(self, f):
        """A device's 0/1 value at d's cell: 1 for the f n devices holding d, 1 w.p. 1/m for the rest."""
        m = self.width
        return (1 - f) * (1 / m) * (1 - 1 / m)

    def discover(self, reports, candidates, top=10):
        """The top candidates by estimate, most frequent first: rows {"value": bytes,
        "estimate", "stderr"} (the Count Mean Sketch ranks a candidate list; it finds no
        string by itself)."""
        top = _check_int("top", top, 1, 1 << 30)
        cand = [self.check_input(c) for c in candidates]
        est = self.estimate(reports, cand)
        order = np.argsort(-est.estimate, kind="stable")[:top]
        return [{"value": cand[i], "estimate": float(est.estimate[i]), "stderr": float(est.stderr[i])}
                for i in order]


class HadamardCountMeanSketch(CountMeanSketch):
    """Apple's Hadamard Count Mean Sketch (HCMS): one privatized bit of the Hadamard transform of
    the one-hot vector, with its row and column indices (1 + log2 m + ceil(log2 k) bits).

    The device draws j = uniform_below(k), then l = uniform_below(m) (log2 m bits: m is a power of
    two), computes w = popcount(l & h_j(s)) mod 2 (the entry H[l][h_j(s)] of the m x m Hadamard
    matrix is (-1)^w), and reports (j, l, w xor flip) with flip a Bernoulli(a_q / 2^bits) draw
    (``bernoulli_dyadic`` or ``_ct``), q = a_q/2^bits >= 1/(1 + e^eps) rounded up: two inputs'
    bits differ at most in w, so the realized epsilon ln((1 - q)/q) never exceeds the request.

    The server: with sign t = 1 - 2 b, t H[l][c] / (1 - 2q) is unbiased for 1{c = h_j(s)} (l is
    uniform), so X[j] = H T[j] / (1 - 2q), T[j][l] the sum of the signs of the reports (j, l),
    estimates row j's cells as in the Count Mean Sketch, and the same estimator follows.  One
    report adds 1/(1 - 2q)^2 - (its own 0/1 value)^2 to a cell's variance."""
    hadamard = True

    def _realize(self):
        lo, _ = exp_interval(self.epsilon_requested)                     # lo <= e^eps
        return int(math.ceil(Fraction(1 << self.bits) / (lo + 1)))

    @staticmethod
    def _ratio_of(a_q, bits):
        return Fraction((1 << bits) - a_q, a_q)

    @property
    def output_domain(self):
        return (f"TupleDomain(AtomDomain(u32) < {self.hashes}, AtomDomain(u32) < {self.width}, "
                "AtomDomain(bool))")

    @property
    def bits_per_report(self):
        """The hash index, the Hadamard row and one bit."""
        return (self.hashes - 1).bit_length() + self.log2_width + 1

    def release(self, src, x):
        """(j, l, b): j uniform in [0, k), l uniform in [0, m), b = H-bit of (l, h_j(x)) xor a
        Bernoulli(q) flip."""
        uni = ref.uniform_below_ct if self.constant_time else ref.uniform_below
        j = uni(src, self.hashes)
        l = uni(src, self.width)
        w = bin(l & self.cell(j, x)).count("1") & 1
        draw = ref.bernoulli_dyadic_ct if self.constant_time else ref.bernoulli_dyadic
        return j, l, w ^ int(draw(src, self.a_q, self.bits))

    def report_pmf(self, j, l, b, x):
        """P((j, l, b) | x), exactly."""
        w = bin(l & self.cell(j, x)).count("1") & 1
        return Fraction(1, self.hashes * self.width) * (1 - self.q if b == w else self.q)

    def exact_audit(self, d_in=1):
        """Closed form: two inputs' report probabilities differ only in the bit's factor, (1 - q)
        against q, for a row l where their Hadamard entries differ; such l exists for any j with
        h_j(s) != h_j(t) (distinct columns of H differ in half the rows).  Witness as for CMS."""
        if d_in == 0:
            return AuditReport(repr(self), 0.0, 0.0, {}, "closed form (product channel)", d_in=0)
        for t in range(1, 256):
            s, other = b"\x00", bytes([t])
            for j in range(self.hashes):
                u, v = self.cell(j, s), self.cell(j, other)
                if u != v:
                    l = next(l for l in range(self.width)
                             if (bin(l & u).count("1") - bin(l & v).count("1")) & 1)
                    b = bin(l & u).count("1") & 1
                    ratio = self.report_pmf(j, l, b, s) / self.report_pmf(j, l, b, other)
                    return AuditReport(repr(self), self._eps, log_up(ratio),
                                       {"x": s.hex(), "x_prime": other.hex(), "j": j, "l": l, "b": b},
                                       "closed form (product channel)", d_in=d_in)
        return AuditReport(repr(self), self._eps, 0.0, {"note": "no hash index separates the witnesses"},
                           "closed form (product channel)", d_in=d_in)

    def enumerated_epsilon(self, inputs):
        """max over the given inputs and every report (j, l, b) of the probability ratio."""
        inputs = [self.check_input(x) for x in inputs]
        worst = Fraction(1)
        for j in range(self.hashes):
            for l in range(self.width):
                for b in (0, 1):
                    prs = [self.report_pmf(j, l, b, x) for x in inputs]
                    worst = max(worst, max(prs) / min(prs))
        return worst

    def _as_arrays(self, reports):
        if isinstance(reports, tuple) and len(reports) == 3 and isinstance(reports[0], np.ndarray):
            js, ls, bs = reports
        else:
            reports = list(reports)
            js, ls, bs = ([r[i] for r in reports] for i in range(3))
        js, ls, bs = np.asarray(js, np.int64), np.asarray(ls, np.int64), np.asarray(bs, np.int64)
        if js.ndim != 1 or ls.shape != js.shape or bs.shape != js.shape:
            raise ValueError(f"reports must be n hash indices, n rows and n bits, got shapes {js.shape}, "
                             f"{ls.shape} and {bs.shape}")
        if js.size == 0:
            raise ValueError("reports must hold at least one report")
        if js.min() < 0 or js.max() >= self.hashes or ls.min() < 0 or ls.max() >= self.width or \
                bs.min() < 0 or bs.max() > 1:
            raise ValueError(f"reports hold a hash index outside [0, {self.hashes}), a row outside "
                             f"[0, {self.width}) or a bit other than 0/1")
        return js, ls, bs

    def sketch(self, reports):
        """(T, n_j): T[j][l] = the sum of the signs 1 - 2b of the reports (j, l), n_j the reports of
        index j."""
        from ._kernels_count_mean_sketch import hadamard_sign_rows, hadamard_signs
        if isinstance(reports, SketchCounts):
            return self._checked_sketch(reports)
        if isinstance(reports, np.ndarray):
            signs = np.zeros((self.hashes, self.width), np.int64)
            n_j = np.zeros(self.hashes, np.int64)
            bad = hadamard_sign_rows(self._report_rows(reports), signs, n_j)
            if bad >= 0:
                raise ValueError(f"reports: row {bad} holds a hash index outside [0, {self.hashes}), a row outside "
                                 f"[0, {self.width}) or a bit other than 0/1")
            return signs, n_j
        js, ls, bs = self._as_arrays(reports)
        signs = np.zeros((self.hashes, self.width), np.int64)
        hadamard_signs(js, ls, bs, signs)
        return signs, np.bincount(js, minlength=self.hashes)

    def cell_estimates(self, reports):
        signs, n_j = self.sketch(reports)
        q = float(self.q)
        x = signs.astype(np.float64)
        h = 1                                      # fast Walsh-Hadamard transform of every row
        while h < self.width:
            x = x.reshape(self.hashes, -1, 2, h)
            a, b = x[:, :, 0, :].copy(), x[:, :, 1, :].copy()
            x[:, :, 0, :], x[:, :, 1, :] = a + b, a - b
            x = x.reshape(self.hashes, self.width)
            h *= 2
        return x / (1.0 - 2.0 * q), n_j, 1.0 / (1 - 2 * q) ** 2

    def _own_variance(self, f):
        return -f - (1 - f) / self.width ** 2      # noise - E[value^2]: the value is 0/1 at d's cell

    report_dtype = "uint32"

    @property
    def report_columns(self):
        return 3

    def split_reports(self, reports):
        """(js, ls, bs) int64[n] each of device-form reports."""
        rows = self._report_rows(reports).astype(np.int64)
        return rows[:, 0], rows[:, 1], rows[:, 2]

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_count_mean_sketch import fleet_hadamard_count_mean_sketch
        out = np.zeros((x.shape[0], 3), np.uint32)
        fleet_hadamard_count_mean_sketch(key, ids, first_block, self._coeffs(), np.uint32(32 - self.log2_width),
                                         np.uint64(self.hashes), np.uint64(self.width), np.uint64(self.a_q),
                                         np.uint64(self.bits), bool(self.constant_time), x, out, status, bits)
        return out

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation, bit for bit as ``release`` and the C form: the reports uint32[n, 3]
        (j, l, bit)."""
        return Mechanism.simulate(self, values, seed, device_ids)

    def release_output(self, out):
        return int(out[0]), int(out[1]), int(out[2])

    def report_fields(self):
        from .._wire import ReportField
        return [ReportField("j", 1, 0, self.hashes - 1), ReportField("l", 1, 0, self.width - 1),
                ReportField("b", 1, 0, 1)]

    def _device_output(self):
        return {"ctype": "uint32_t", "count": 3, "meaning": "j, l, the privatized Hadamard bit"}

    def _device_text(self):
        return (f"Hadamard Count Mean Sketch, k = {self.hashes} hashes, width m = {self.width}: one bit of "
                f"row l of the Hadamard transform, flipped w.p. q = {_p(self.q)}")

    def simulate_sketch(self, values, seed, device_ids=None):
        """The sketch of ``simulate``'s reports (signs and row totals; a report is 3 integers, so
        the reports are made and summed)."""
        return SketchCounts(*self.sketch(self.simulate(values, seed, device_ids)))


def make_count_mean_sketch(width, hashes, epsilon, hadamard=False, max_length=32, constant_time=False, bits=32,
                           hash_key=None):
    """Apple's Count Mean Sketch client (module docstring), or with hadamard=True its Hadamard
    variant (HCMS: one bit and two indices a report): width m (a power of two, 2..2^16),
    hashes k (1..2^16), epsilon in (0, 64], byte strings of 1..max_length bytes (a str is UTF-8
    encoded), the flip probability on a grid of 2^-bits (2..32), hash_key the public 32-byte key
    of fxdp.strhash."""
    if not isinstance(hadamard, bool):
        raise TypeError(f"hadamard must be a bool, got {type(hadamard).__name__}")
    cls = HadamardCountMeanSketch if hadamard else CountMeanSketch
    return cls(width, hashes, epsilon, max_length, constant_time, bits, hash_key)


README_ROWS = {
    'count_mean_sketch': ('Apple 2017 (CMS, HCMS)',
        '`width = 64`, `hashes = 16`, `epsilon = 4`, `max_length = 16`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # CMS: 16 report bits and 2 bytes of j; strings of up to 8 bytes (one ChaCha20 block of coefficients)
    'count_mean_sketch_ct': lambda: make_count_mean_sketch(16, 4, 4, max_length=8, constant_time=True, bits=16),
    'count_mean_sketch_lazy': lambda: make_count_mean_sketch(16, 4, 2, max_length=8),
    # HCMS: (j, l, bit)
    'hadamard_count_mean_sketch_ct': lambda: make_count_mean_sketch(64, 300, 2, hadamard=True, max_length=8,
                                                                    constant_time=True, bits=16),
    'hadamard_count_mean_sketch_lazy': lambda: make_count_mean_sketch(64, 300, 2, hadamard=True, max_length=8),
}
EXPORT_VARIANTS = {'count_mean_sketch_lazy', 'hadamard_count_mean_sketch_lazy'}

__all__ = ["CountMeanSketch", "HadamardCountMeanSketch", "SketchCounts", "SketchStatistic", "make_count_mean_sketch",
           "realize"]
