"""Finite-precision Laplace mechanisms after Gazeau, Miller and Palamidessi (2013).

* ``laplace``          the mechanisms (fixed-point 1-D / planar Laplace with snapping
                       and truncation, the exact-grid alternatives, the naive one);
* ``_kernels_laplace`` their Numba releases, fills and fleets; ``_device_laplace`` their C form;
* ``audit_finite``     exact audit of what the implementation delivers;
* ``worst_case``       the worst-case mean-squared error the recommender ranks;
* ``examples``         the paper's Example 1.1, built and audited;
* ``plot``             Figure 1 of the paper (matplotlib, optional);
* ``constants``        what these modules share.

Their integer math is layer 0: ``fxdp.fixmath`` (integer ln, CORDIC) and ``fxdp.finite_bounds``
(the paper's degradation bounds). See docs/finite_precision.md.
"""
