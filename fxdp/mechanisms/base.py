"""Layer 4: the mechanism object shared by every mechanism.

A mechanism (a *measurement* in OpenDP's sense) has an input domain and
metric, an output domain and measure, a function and a privacy map that
rounds upward.  Here it also carries:

* its *realized* parameters (what the device really uses: dyadic
  probabilities, integer weights) next to the requested ones;
* ``release(src, x)``: the reference release on a ``BitSource`` (the oracle);
* ``__call__(x, rng=None)``: one release, from system entropy by default;
* ``simulate(values, seed, device_ids=None)``: the Numba fleet kernel, device
  i drawing from the keyed stream (seed, device_ids[i], stream 0);
* ``output_pmf(x)``: the exact output distribution of the implementation
  (Fractions) and ``audit_pairs()``, the neighbouring inputs to compare, for
  ``fxdp.audit``.
* ``device_spec()``: the C device form, for the firmware exporter (fxdp/export),
  a dict with exactly these keys:

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
    the form is constant time.

  Mechanisms with a size the device must fix take it as an argument
  (``Geometric.device_spec(dim=d)`` for vector=True); a configuration with no
  device form (geometric scale 0, RAPPOR k > 1024) raises ValueError.
"""
from __future__ import annotations

from ..bitsource import BitSource, default_source


class Mechanism:
    kind = ""                      # TOML `kind` (constructor name without make_)
    input_domain = ""
    input_metric = ""
    output_domain = ""
    output_measure = "MaxDivergence"
    constant_time = False

    # --- privacy -----------------------------------------------------------
    def privacy_map(self, d_in):   # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def epsilon(self):
        """privacy_map(1): the claimed epsilon for neighbouring inputs."""
        return self.privacy_map(1)

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
                "epsilon": self.epsilon, "realized": self.realized()}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"make_{self.kind}({args})"

    # --- releases --------------------------------------------------------------
    def release(self, src, x):     # pragma: no cover - abstract
        """Reference release of x drawing from the BitSource src."""
        raise NotImplementedError

    def __call__(self, x, rng=None):
        """One release of x.  rng: a fxdp.bitsource.BitSource; default system entropy."""
        if rng is None:
            rng = default_source()
        elif not isinstance(rng, BitSource):
            raise ValueError(f"rng must be a fxdp.bitsource.BitSource or None, got {type(rng).__name__}")
        return self.release(rng, self.check_input(x))

    def check_input(self, x):
        return x

    # --- audit -------------------------------------------------------------------
    def audit_pairs(self):         # pragma: no cover - abstract
        """Neighbouring input pairs (d_in = 1) whose output distributions the audit compares."""
        raise NotImplementedError

    def output_pmf(self, x):       # pragma: no cover - abstract
        """{output: Fraction}: the exact output distribution of the implementation on input x."""
        raise NotImplementedError
