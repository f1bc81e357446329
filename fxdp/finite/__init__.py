"""Finite-precision Laplace mechanisms after Gazeau, Miller and Palamidessi (2013).

* ``bounds``      the paper's degradation bounds as pure math (layer 0);
* ``fixmath``     integer-only ln and CORDIC, reference implementations;
* ``laplace``     the mechanisms (fixed-point 1-D / planar Laplace with snapping
                  and truncation, and the exact-grid alternatives);
* ``audit_finite`` exact audit of what the implementation delivers;
* ``examples``    the paper's Example 1.1, built and audited;
* ``plot``        Figure 1 of the paper (matplotlib, optional).

See docs/finite_precision.md.
"""
