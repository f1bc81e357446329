"""The paper's worked examples, built and audited (above the mechanisms and their audit)."""
from __future__ import annotations

from fractions import Fraction

from .audit_finite import audit_finite
from .laplace import make_laplace_fixed, make_naive_laplace_fixed


def example_1_1():
    """The paper's Example 1.1: (naive mechanism, snapped mechanism, their audits on r1 = 0, r2 = 1 + 2^-5)."""
    r1, r2 = Fraction(0), 1 + Fraction(1, 32)
    naive = make_naive_laplace_fixed(Fraction(1, 2), sensitivity=2, qformat="Q9.6")
    snapped = make_laplace_fixed(Fraction(1, 2), (-8, 8), sensitivity=2, L=Fraction(1, 2), qformat="Q9.6")
    return {"r1": r1, "r2": r2, "naive": naive, "snapped": snapped,
            "naive_pair": audit_finite(naive, pairs=[(r1, r2)]),
            "snapped_pair": audit_finite(snapped, pairs=[(r1, r2)])}


def plot_example(path):
    """Figure 1 of the paper for Example 1.1, with the snapped mechanism beside it; returns path."""
    from .plot import _panel_1d, _plt
    plt = _plt()
    ex = example_1_1()
    naive, snapped = ex["naive"], ex["snapped"]
    r1 = naive.check_input(ex["r1"])
    r2 = naive.check_input(ex["r2"])
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    _panel_1d(axes[0], naive, r1, r2, window=(-1, 2.5),
              title=f"naive: unit Laplace x 4 in Q9.6 (realized eps = "
                    f"{ex['naive_pair'].epsilon_realized})\nsupports disjoint: r2's outputs end in ...10")
    s1, s2 = snapped.check_input(ex["r1"]), snapped.check_input(ex["r2"])
    rep = ex["snapped_pair"]
    _panel_1d(axes[1], snapped, s1, s2,
              title=f"snapped L = 1/2, truncated to [-8, 8] (ideal {rep.epsilon_ideal:.3g}, realized "
                    f"{rep.epsilon_realized:.3g} on this pair,\ntight bound {rep.epsilon_bound_tight:.3g}, "
                    f"paper bound {rep.epsilon_bound_paper:.3g}); bar at right: exception")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path
