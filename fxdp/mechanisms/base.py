"""Layer 4: the mechanism protocol.

A mechanism (a *measurement* in OpenDP's sense) has an input domain and
metric, an output domain and measure, a function and a privacy map that
rounds upward.  Every mechanism family (one module, or one small folder:
``randomized_response``, ``rappor``, ``rappor_full``, ``geometric``,
``finite``) implements the protocol below, and the upper layers
(``fxdp.audit``, ``fxdp.estimate``, ``fxdp.fleet``, ``fxdp.plots``,
``fxdp.export``, the CLI and the demo) reach a mechanism only through it: they
never test its class.  ``fxdp.registry`` names the kinds.

Privacy and description
    ``privacy_map(d_in)`` (rounded up), ``epsilon`` (d_in = 1: neighbouring inputs),
    ``local_d_in`` (the input distance that covers every pair of inputs the device can hold:
    1 for a discrete metric, the domain's width for a distance metric, ``math.inf`` unbounded),
    ``local_epsilon`` (the epsilon over all inputs, rounded up: what deployment accounting
    uses, never ``epsilon``), ``config()`` (constructor
    keyword arguments), ``realized()`` (the exact values the device uses),
    ``describe()``.
Releases
    ``release(src, x)``: the reference release on a ``BitSource`` (the test
    oracle); ``m(x, rng=None)``: one release, from system entropy by default.
Fleet simulation (Numba)
    ``fleet_inputs(values)``: a fleet's inputs validated and in the kernels'
    device form (ValueError before any draw);
    ``run_fleet(key, ids, first_block, x, status, bits)``: runs the family's
    fleet kernel on them and returns the outputs (status and bits written in
    place); ``fleet_outputs(out)``: those outputs in the shape ``simulate``
    returns.  ``simulate(values, seed, device_ids=None)`` is built on them by
    the generic driver of ``fxdp.mechanisms._fleet`` unless a family has its
    own (full RAPPOR, the finite-precision Laplace).  ``simulate_device(values,
    seed, device_ids=None)``: the same on inputs already in the device form (what
    the C entry points take; the export harness's parity phase): ``simulate``
    unless the Python API takes another form (numeric readings -> grid indices,
    ``fxdp.mechanisms.readings._numeric``).
Estimation
    ``estimate(reports)``: the server's default unbiased estimator (an
    ``fxdp.reports.Estimate`` with standard errors); ``estimate_rows(reports,
    truth)``: its rows {name, true, estimate, stderr}; ``synthetic_population(
    devices, seed)``: (true values in device form, true statistic) for the
    demo, ``fxdp simulate`` and the error plot; ``synthetic_part(devices, seed, lo, hi)``: its
    devices lo..hi-1 alone (a cluster partition's own inputs), with ``truth_tally(values)`` /
    ``truth_from_tally(tally)`` where the truth is a sum over devices; ``true_statistic(values)``: that statistic
    of given true values (``fxdp simulate --values``); ``input_range()``: an ``InputRange``, the range
    outside which a release clamps a true value (None: it clamps nothing).  Frequency oracles also give
    ``frequency_support(reports)``: an ``fxdp.reports.Support`` (per-item
    support counts and the exact support probabilities p, q), on which
    ``fxdp.estimate.ibu`` and the generic unbiased estimator run.
Audit
    ``local_audit()``: the exact realized local epsilon (every pair of inputs the device can
    hold, ``d_in = "all"``) with its witness; default: ``exact_audit(1)`` when ``local_d_in`` is
    1.  ``exact_audit(d_in=1)``: an ``fxdp.reports.AuditReport`` with the exact
    realized epsilon.  The default enumerates ``audit_pairs()`` (neighbouring
    inputs) against ``output_pmf(x)`` (the exact output distribution of the
    implementation, Fractions); families with closed or product forms, or with
    larger input distances, override it.
Device form (export)
    ``device_spec(dim=None)``: the C device form (below); ``c_config(dim=None)``:
    the same configuration as cffi objects for the host library, returning
    ``CConfig``; ``release_output(out)``: the Python value of one device-form
    output (the C bridge's single release); ``harness_inputs()``: the synthetic-input model of the export
    harness (``fxdp.export.harness.InputModel`` keyword arguments).
Reports on the wire (docs/wire.md)
    ``report_fields()``: the record layout, a list of ``ReportField(name, count, lo, hi,
    escape=None)`` covering the device output elements in order; the default is one field ``y``
    over ``device_spec()["output"]`` with its ``"min"``/``"max"``/``"escape"`` keys, else the
    whole range of its C type, so a family states its range there (one line) or overrides this
    for several fields (full RAPPOR: the cohort's two bytes, then the k bits; a local-hashing
    report: ``[ReportField("seed", 1, 0, 2**32 - 1), ReportField("y", 1, 0, g - 1)]``; subset
    selection: ``[ReportField("items", k, 0, d - 1)]``; a one-bit numeric mechanism:
    ``[ReportField("b", 1, 0, 1)]``).  ``report_dtype``: numpy dtype of decoded reports (what
    ``simulate`` returns; None: the output C type).  ``report_layout()`` (fields, fingerprint,
    record size), ``encode_reports(outputs)`` -> bytes, ``decode_reports(bytes_or_path_or_file)``,
    ``iter_report_chunks(source)`` (streaming), ``report_statistic()`` (the mergeable sufficient
    statistic ``fxdp estimate`` streams into; default the multiset of reports) are generic.  A
    family whose estimator is a function of the distinct reports and their counts gives
    ``estimate_from_multiset(rows, counts)`` (an Estimate), so the default statistic never
    expands the multiset back into n reports (the geometric, the finite-precision Laplace).
Plots
    ``default_pair()``: a neighbouring input pair; ``output_distribution(x,
    x_prime)``: an ``fxdp.mechanisms.distribution.OutputDistribution``.
Choosing a mechanism (the recommenders of ``fxdp.estimate``)
    A family answers a question about a whole kind on its constructor, with the ``answers``
    decorator below (``reading_configs``, ``oracle_configs``); the mechanisms it configures then
    answer on themselves: ``worst_case_mse(n)`` (a numeric reading's estimator), ``variance(f,
    n)`` and ``bits_per_report`` (a frequency oracle), ``readings_input(readings)`` (the
    readings as ``simulate`` takes them).  The recommenders walk the registry and never name a
    kind.

``device_spec()`` returns a dict with these keys:

  - ``"c_function"``: the csrc entry point, e.g. ``"fxdp_rr_bool_ct"``; every one
    has the signature ``fxdp_status f(fxdp_rng *r, const <cfg_type> *cfg,
    const <in> *x, <out> *out)`` (csrc/fxdp.h, "layer 4: mechanisms");
  - ``"cfg_type"``: the C config struct, e.g. ``"fxdp_rr_bool_cfg"``;
  - ``"cfg_init"``: C99 designated-initializer text for it, integer constants
    only (``UINT32_C``/``UINT64_C``/``INT64_C``), tables referenced by name, e.g.
    ``"{ .a = UINT64_C(3221225472), .k = 32u }"``; fields left out are zero;
  - ``"tables"``: list of ``(c_name, c_elem_type, list_of_ints)``, the const
    arrays cfg_init names (e.g. the constant-time threshold tables);
  - ``"input"`` / ``"output"``: ``{"ctype": ..., "count": n}``: element type
    and number of elements x / out point to (1, or k bits, or d values);
  - ``"sources"``: the csrc/*.c files the entry point needs (link closure);
  - ``"summary"``: one line with the realized parameters, epsilon and whether
    the form is constant time;
  - optional ``"in_place": True`` when the entry point draws the report straight
    into the caller's output buffer (no stack copy, for the 256-byte stack goal)
    and zeroes it on a failure during the draws, instead of leaving it untouched
    (basic RAPPOR, unary encoding, the lazy geometric); the status is then the
    report's validity mark.  Absent: out is written only on FXDP_OK.
  - optional ``"workspace": "<type>"`` when csrc declares ``<c_function>_w`` with the same
    parameters and a trailing ``<type> *work`` (the memoized oracles' second rng, device secret and
    buffers, zeroed on every return): the generated ``fxdp_release`` calls that form with a static
    workspace, so it counts as RAM (.bss), not stack (issue 13's 256-byte goal).

  Mechanisms with a size the device must fix take it as an argument
  (``Geometric.device_spec(dim=d)`` for vector=True); a configuration with no
  device form (geometric scale 0, RAPPOR k > 1024) raises ValueError.
"""
from __future__ import annotations

import math

from ..bitsource import BitSource, default_source


class InputRange:
    """The range a true value's elements must lie in for a release to use them as they are (a
    release clamps one outside it into it): lo, hi numbers in the form ``simulate`` takes (ints,
    Fractions), or per-column sequences; parameter: the constructor keyword(s) that set it, as
    the user wrote them (``"bounds = [10, 30]"``), for messages."""

    __slots__ = ("lo", "hi", "parameter")

    def __init__(self, lo, hi, parameter):
        self.lo, self.hi, self.parameter = lo, hi, parameter

    def __repr__(self):
        return f"InputRange({self.lo!r}, {self.hi!r}, {self.parameter!r})"


def answers(**questions):
    """Decorator for ``make_<kind>``: the family's answers to the questions the upper layers ask of
    every kind (``fxdp.registry.answer(kind, question)``).  The questions:

    * ``reading_configs(lo, hi, epsilon, bits, integer_readings)`` -> list of constructor
      keyword arguments: configurations of this kind that release a reading in [lo, hi] at a
      local epsilon of at most ``epsilon`` (empty where the kind cannot; ValueError for a bad
      lo, hi, epsilon or bits).  The mechanisms answer ``worst_case_mse(n)``.
    * ``oracle_configs(epsilon, d, bits)`` -> list of keyword arguments: frequency oracles of
      this kind over d items at an epsilon of at most ``epsilon``.  The mechanisms answer
      ``variance(0.0, n)`` and ``bits_per_report``.
    * ``range_configs(lo, hi, epsilon, bits)`` -> list of keyword arguments: configurations of this
      kind that estimate range shares of a reading in [lo, hi] at a local epsilon of at most
      ``epsilon``.  The mechanisms answer ``range_variance(n, width)``.
    """
    known = {"reading_configs", "oracle_configs", "range_configs"}
    unknown = set(questions) - known
    if unknown:
        raise ValueError(f"questions must be among {sorted(known)}, got {sorted(unknown)}")

    def mark(make):
        make.answers = dict(questions)
        return make
    return mark


def expect_kind(m, kinds, what):
    """m, if it is a mechanism of one of ``kinds``: a family's named estimator (``rappor_counts``)
    refuses another family's mechanism with a TypeError naming both (the family names its own
    kinds; the upper layers never do)."""
    check_mechanism(m, what)
    if m.kind not in kinds:
        raise TypeError(f"{what} estimates for {' / '.join(kinds)} mechanisms, got a {m.kind!r} mechanism; "
                        f"m.estimate(reports) is the estimator of any mechanism")
    return m


def check_mechanism(m, what):
    """TypeError unless m is an fxdp mechanism (what: the calling function, for the message)."""
    if not isinstance(m, Mechanism):
        from ..registry import kinds
        raise TypeError(f"{what} takes an fxdp mechanism (fxdp.make_<kind>(...), kinds: {', '.join(kinds())}), "
                        f"got {type(m).__name__} {m!r:.60}")
    return m


def check_part(devices, lo, hi):
    """devices >= 1 and 0 <= lo <= hi <= devices (a part of a synthetic population); ValueError
    naming the parameter and its range."""
    from ..validate import check_int
    devices = check_int("devices", devices, 1)
    lo = check_int("lo (first device of the part)", lo, 0, devices)
    hi = check_int("hi (end of the part)", hi, lo, devices)
    return devices, lo, hi


class Mechanism:
    kind = ""                      # TOML `kind` (constructor name without make_)
    input_domain = ""
    input_metric = ""
    output_domain = ""
    output_measure = "MaxDivergence"
    constant_time = False
    two_dimensional_output = False   # outputs drawn as heat maps (draw_heatmaps), not as a 1-D pmf
    string_input = False             # true values are byte strings (fxdp simulate --values reads text)

    # --- privacy -----------------------------------------------------------
    def privacy_map(self, d_in):   # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def epsilon(self):
        """privacy_map(1): the claimed epsilon for neighbouring inputs (d_in = 1).  For a distance
        metric (the bounded geometric, the fixed-point Laplace family) that is a central-DP figure,
        not the local one: see local_epsilon."""
        return self.privacy_map(1)

    @property
    def local_d_in(self):
        """The input distance covering every pair of inputs the device can hold (the diameter of
        the input domain in units of input_metric); math.inf for an unbounded domain.  A discrete
        metric makes every two inputs neighbours: 1.  A family with another metric states it."""
        if self.input_metric in ("DiscreteMetric", "DiscreteDistance"):
            return 1
        raise NotImplementedError(f"{self.kind}: input metric {self.input_metric!r}: the family must state "
                                  "local_d_in (the distance covering every pair of inputs)")

    @property
    def local_epsilon(self):
        """The local epsilon: the privacy map over every pair of inputs the device can hold
        (privacy_map(local_d_in)), rounded up; math.inf for an unbounded input domain.  Shuffling
        and composition theorems (fxdp.accounting) take this one, never ``epsilon``."""
        d = self.local_d_in
        return math.inf if d == math.inf else self.privacy_map(d)

    # --- description ---------------------------------------------------------
    def config(self):
        """Constructor keyword arguments (the TOML [mechanism] table without `kind`)."""
        raise NotImplementedError

    def realized(self):
        """Realized parameters as a dict (exact values the device uses)."""
        raise NotImplementedError

    def describe(self):
        return {"kind": self.kind, "input_domain": self.input_domain,
                "input_metric": self.input_metric, "output_domain": self.output_domain,
                "output_measure": self.output_measure, "constant_time": self.constant_time,
                "epsilon": self.epsilon, "local_d_in": self.local_d_in, "local_epsilon": self.local_epsilon,
                "realized": self.realized()}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"make_{self.kind}({args})"

    # --- releases --------------------------------------------------------------
    # A family writes ``release(self, src, x)`` on an input already checked; the class statement
    # (__init_subclass__) keeps that body as ``_release`` and makes the public ``release`` check
    # x first with ``check_release_input`` (issue 32: m.release(src, 5) refuses what m(5) refuses).
    # ``m(x)`` checks once and calls ``_release``; so do the families' own inner calls (hybrid's PM
    # and Duchi, the multi-dimensional form's base), so hot reference paths check once.  A family
    # whose release validates by itself sets ``release_checks_input = True``.
    release_checks_input = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        impl = cls.__dict__.get("release")
        if impl is None or getattr(impl, "_fxdp_checked", False) or cls.release_checks_input:
            return
        cls._release = impl
        cls.release = Mechanism._checked_release

    def _checked_release(self, src, x):
        """Reference release of x drawing from the BitSource src; x is checked first
        (check_release_input: ValueError for an input m(x) would refuse), then released."""
        return self._release(src, self.check_release_input(x))
    _checked_release._fxdp_checked = True

    def release(self, src, x):     # pragma: no cover - abstract
        """Reference release of x drawing from the BitSource src."""
        raise NotImplementedError

    def _release(self, src, x):
        """The release on an input already checked (a family's own release body)."""
        return self.release(src, x)

    def __call__(self, x, rng=None):
        """One release of x.  rng: a fxdp.bitsource.BitSource; default system entropy."""
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        return self._release(rng, self.check_input(x))

    def check_input(self, x):
        return x

    def check_release_input(self, x):
        """What release(src, x) checks: check_input by default (a family whose release takes a
        device form, such as a grid index or an encoded block, checks that form)."""
        return self.check_input(x)

    # --- fleet simulation -------------------------------------------------------
    def fleet_inputs(self, values):
        """A fleet's inputs, validated, in the fleet kernel's device form."""
        raise NotImplementedError(f"{self.kind}: no fleet kernel")

    def run_fleet(self, key, ids, first_block, x, status, bits):
        """Run the fleet kernel on device-form inputs x; returns the outputs (kernel form)."""
        raise NotImplementedError(f"{self.kind}: no fleet kernel")

    def fleet_outputs(self, out):
        """Kernel-form outputs reshaped as ``simulate`` returns them (default: unchanged)."""
        return out

    def simulate(self, values, seed, device_ids=None):
        """Fleet outputs: device i releases values[i] on the keyed stream (seed, device_ids[i], 0);
        bit-identical to the C library.  Raises (nothing returned) if any device failed."""
        from ._fleet import simulate
        return simulate(self, values, seed, device_ids)

    def device_inputs(self, values):
        """Device-form inputs, validated, in the fleet kernel's form (default: fleet_inputs)."""
        return self.fleet_inputs(values)

    def simulate_device(self, values, seed, device_ids=None):
        """Fleet outputs on device-form inputs (the export harness); default: simulate."""
        return self.simulate(values, seed, device_ids=device_ids)

    # --- estimation ----------------------------------------------------------------
    def estimate(self, reports):
        """The server's default unbiased estimator on reports (an fxdp.reports.Estimate)."""
        raise NotImplementedError(f"{self.kind}: no estimator")

    def frequency_support(self, reports):
        """Frequency oracles: the reports' per-item support counts (an fxdp.reports.Support)."""
        raise NotImplementedError(f"{self.kind}: not a frequency oracle (no per-item support counts)")

    def estimate_rows(self, reports, truth=None):
        """Rows {name, true, estimate, stderr} of the default estimator against the truth."""
        return self.estimate(reports).as_rows(truth)

    def synthetic_population(self, devices, seed):
        """(true inputs in device form, true statistic): a seeded synthetic population."""
        raise NotImplementedError(f"{self.kind}: no synthetic population")

    def synthetic_part(self, devices, seed, lo, hi):
        """Devices lo..hi-1 of ``synthetic_population(devices, seed)``: exactly its values[lo:hi],
        what a cluster partition generates for itself (fxdp.dask_engine).  A family whose
        population is drawn device by device overrides this to draw only those devices (the
        frequency oracles, randomized response); the default draws the whole population and
        slices it (O(devices) per part)."""
        check_part(devices, lo, hi)
        return self.synthetic_population(devices, seed)[0][lo:hi]

    def truth_tally(self, values):
        """A tally of ``true_statistic`` over some of the devices: an int64 array that adds up over
        disjoint parts (a cluster's partitions), ``truth_from_tally`` of the sum being
        ``true_statistic`` of all of them.  None (default): the family's truth is no such sum, and
        a cluster computes it over the whole population in one place."""
        return None

    def truth_from_tally(self, tally):
        """``true_statistic`` of the devices whose ``truth_tally`` arrays add up to `tally`."""
        raise NotImplementedError(f"{self.kind}: no truth tally")

    def input_range(self):
        """An InputRange: where a release uses a true value as it is and outside which it clamps
        it (bounds, a reading range); ``fxdp simulate --values`` refuses values outside it unless
        --clamp.  None (default): the family clamps nothing (fleet_inputs refuses what lies outside
        its domain: booleans, indices, bits)."""
        return None

    def worst_case_mse(self, n):
        """Numeric readings: (mse, variance) of the default estimator of the mean of n equal
        readings, at the reading in the range where the mse is largest (fxdp.estimate.recommend_numeric)."""
        raise NotImplementedError(f"{self.kind}: no worst-case mean-squared error")

    def readings_input(self, readings):
        """Readings (whole or fixed-point numbers in the reading's units) as ``simulate`` takes
        them; default: as they are."""
        return readings

    def true_statistic(self, values):
        """The statistic estimate() estimates, computed exactly on true inputs (as simulate takes
        them; ValueError for invalid ones): fxdp simulate --values compares against it."""
        raise NotImplementedError(f"{self.kind}: no true statistic of given values (fxdp simulate --values)")

    # --- reports on the wire (docs/wire.md) ------------------------------------------
    report_dtype = None            # numpy dtype of decoded reports (None: the output C type)

    def report_fields(self):
        """The record layout: ReportFields over the device output elements, in order (default:
        one field from device_spec()["output"], see the module docstring)."""
        return None

    def report_layout(self):
        """The wire layout (fxdp.mechanisms._wire.ReportLayout): fields, record size, fingerprint.
        ValueError for a configuration without a device form (it has no device reports)."""
        from ._wire import layout_from_spec
        cached = getattr(self, "_report_layout", None)
        if cached is None:
            try:
                spec = self.device_spec()
            except NotImplementedError:
                raise ValueError(f"{self.kind}: no C device form, hence no device reports and no wire "
                                 "format") from None
            cached = layout_from_spec(self.kind, spec, self.report_fields(), self.report_dtype)
            self._report_layout = cached
        return cached

    @property
    def report_fingerprint(self):
        """The 32-bit fingerprint of the realized configuration (docs/wire.md)."""
        return self.report_layout().fingerprint

    def encode_reports(self, outputs):
        """One report batch (bytes: header, packed records, CRC-32) of outputs as simulate returns
        them; ValueError naming the record of a value outside the layout's range."""
        from ._wire import encode
        return encode(self.report_layout(), outputs)

    def decode_reports(self, source):
        """Every report in source (bytes, a path or a binary file: one or more batches) as
        simulate returns them.  WireError (a ValueError) naming the byte offset on a wrong magic,
        version, fingerprint or record size, a truncated batch, a record out of range, a CRC
        mismatch or trailing bytes; nothing is returned then."""
        from ._wire import decode
        return decode(self.report_layout(), source)

    def iter_report_chunks(self, source, chunk_records=1 << 16, batches=None):
        """Yield (first record index, reports chunk) over source; the data is whole only if the
        iteration ends without an error (each batch's CRC is checked at its end).  batches: a list
        receiving (batch index, byte offset, records, SHA-256 digest) per batch (_wire.iter_chunks)."""
        from ._wire import iter_chunks
        layout = self.report_layout()
        for first, mat in iter_chunks(layout, source, chunk_records, batches):
            yield first, layout.shaped(mat)

    def report_statistic(self):
        """A fresh mergeable sufficient statistic for streaming estimation: ``add(reports)``,
        ``merge(other)``, ``n``, ``estimate_rows(truth=None)`` equal to ``estimate_rows`` on all
        the reports added.  Default: the multiset of reports (_wire.ReportMultiset)."""
        from ._wire import ReportMultiset
        return ReportMultiset(self, self.report_layout())

    # --- device form -------------------------------------------------------------
    def device_spec(self, dim=None):
        """The C device form (see the module docstring)."""
        raise NotImplementedError(f"{self.kind}: no C device form")

    def c_config(self, dim=None):
        """The device configuration as cffi objects for the host C library (CConfig)."""
        raise NotImplementedError(f"{self.kind}: no C device form")

    def harness_inputs(self):
        """Keyword arguments of fxdp.export.harness.InputModel (without ctype and count): how the
        export harness draws synthetic device-form inputs.  None: the harness uses the integer
        range that device_spec()["input"] states ("min", "max")."""
        return None

    def release_output(self, out):
        """The Python value release() returns, from one device-form output array (C bridge)."""
        raise NotImplementedError(f"{self.kind}: no C device form")

    # --- audit -------------------------------------------------------------------
    def local_audit(self):
        """AuditReport (d_in = "all") with the exact realized local epsilon over every pair of
        inputs the device can hold, claimed = local_epsilon.  Default: a family whose d_in = 1
        covers every pair (local_d_in == 1) audits d_in = 1; others override this."""
        if self.local_d_in != 1:
            raise NotImplementedError(f"{self.kind}: no audit over all inputs (local_d_in = {self.local_d_in})")
        rep = self.exact_audit(1)
        rep.epsilon_claimed, rep.d_in = self.local_epsilon, "all"
        return rep

    def exact_audit(self, d_in=1):
        """AuditReport with the exact realized epsilon at input distance d_in (default: every
        neighbouring pair of audit_pairs() against the exact output_pmf, d_in = 1 only)."""
        from ..reports import AuditReport, ratio_eps, worst_pair
        if d_in != 1:
            raise ValueError(f"d_in must be 1 for {self.kind}, got {d_in}: it audits neighbouring "
                             "inputs only (the geometric mechanism audits larger input distances)")
        ratio, witness = worst_pair(self.audit_pairs(), self.output_pmf)
        return AuditReport(repr(self), self.epsilon, ratio_eps(ratio), witness)

    # --- audit -------------------------------------------------------------------
    def audit_pairs(self):         # pragma: no cover - abstract
        """Neighbouring input pairs (d_in = 1) whose output distributions the audit compares."""
        raise NotImplementedError

    def output_pmf(self, x):       # pragma: no cover - abstract
        """{output: Fraction}: the exact output distribution of the implementation on input x."""
        raise NotImplementedError

    # --- plots -------------------------------------------------------------------
    def default_pair(self):
        """A neighbouring input pair (x, x'): the audit's witness, else the first audit pair."""
        w = self.exact_audit().witness
        if "x" in w and "x_prime" in w:
            return w["x"], w["x_prime"]
        return self.audit_pairs()[0]

    def output_distribution(self, x, x_prime):
        """The exact output distributions for x and x' (fxdp.mechanisms.distribution)."""
        from .distribution import from_pmfs
        p, q = self.output_pmf(x), self.output_pmf(x_prime)
        return from_pmfs(self, x, x_prime, p, q)

    def draw_audit(self, path, dpi=130):
        """``fxdp audit --plot``: a family with an audit figure of its own draws it to path and
        returns True; the default returns False and the generic output distributions are drawn."""
        return False


class CConfig:
    """A mechanism's configuration for the host C library through cffi.

    cfg: the ``<cfg_type> *`` cdata; keep: cdata it points into (kept alive with it);
    function: the entry point (``_ct`` suffix for the constant-time form), whose fleet loop is
    ``fxdp_fleet_<base>``; ctype / dtype: the element type of x (and of out unless out_ctype /
    out_dtype say otherwise) in C and numpy; out_count: output elements per device when the
    output's shape is not the input's."""

    def __init__(self, cfg, keep, function, constant_time, ctype, dtype, out_ctype=None, out_dtype=None,
                 out_count=None):
        self.cfg, self.keep, self.function = cfg, keep, function
        self.constant_time, self.ctype, self.dtype = bool(constant_time), ctype, dtype
        # the output's element type and count per device when they differ from the input's
        self.out_ctype = out_ctype or ctype
        self.out_dtype = out_dtype or dtype
        self.out_count = out_count

    @property
    def base(self):
        return self.function[:-3] if self.constant_time else self.function
