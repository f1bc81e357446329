"""Layer 5: exact privacy audit of a configured mechanism.

``audit(m)`` computes the exact output distribution of the implementation
as configured (its realized dyadic or integer parameters, not the requested
float ones), compares every pair of neighbouring inputs, and reports the
worst-case log-ratio with its witness next to the claimed epsilon.

Probabilities are exact Fractions, or, where the implementation's
distribution is irrational (exact discrete Laplace noise), ratios taken in
closed form from its integer parameters.  ``epsilon_realized`` is rounded up.

Each mechanism family carries its own exact method (``Mechanism.exact_audit``:
enumeration of ``audit_pairs`` against ``output_pmf`` by default, closed or
product forms where the family has them, the finite-precision audit with its
Gazeau et al. bounds); this module validates the request and calls it.
"""
from __future__ import annotations

import sys

from .mechanisms.base import check_mechanism
from .reports import AuditReport, ratio_eps, worst_pair  # noqa: F401  (public names)

_ratio_eps = ratio_eps     # the name earlier releases exported


def audit(m, d_in=1):
    """Exact realized epsilon of mechanism m with its witness.

    d_in is the input distance.  1 (the default) compares neighbouring
    inputs.  ``d_in="all"`` compares every pair of inputs the device can hold:
    the local epsilon, which deployment accounting uses; the claimed value is
    then ``m.local_epsilon`` (``m.privacy_map(m.local_d_in)``).  For a discrete
    input metric (randomized response, the frequency oracles, the numeric
    readings) the two coincide.  Larger integer d_in is supported for the
    geometric mechanism, whose metric is |x - x'| (L1 for the vector form);
    the claimed value is then m.privacy_map(d_in).  The report's ``d_in`` and
    ``label`` name which epsilon it is.
    """
    from .validate import check_int
    check_mechanism(m, "fxdp.audit")
    if isinstance(d_in, str):
        if d_in.strip().lower() != "all":
            raise ValueError(f"d_in must be an integer >= 1 or 'all' (every pair of inputs), got {d_in!r}")
        return m.local_audit()
    d_in = check_int("d_in", d_in, 1)
    rep = m.exact_audit(d_in)
    rep.d_in = d_in
    return rep


class _CallableModule(type(sys.modules[__name__])):
    """``fxdp.audit(m)`` is the public API, but importing this submodule makes the package
    attribute ``fxdp.audit`` the module itself; letting the module be called keeps both
    ``fxdp.audit(m)`` and ``from fxdp.audit import audit`` working, without importing the
    audit (and every mechanism) eagerly in ``import fxdp``."""

    def __call__(self, *args, **kwargs):
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
