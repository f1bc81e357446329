"""Plots of exact output distributions (the paper's Figure 1).  matplotlib is optional
(``pip install fxdp[plot]``) and imported only when a plot is drawn.

* ``fxdp.finite.examples.plot_example(path)``: Example 1.1 -- the naive scaled fixed-point Laplace (b = 4, d = 6
  fractional bits) for the true answers r1 = 0 (black) and r2 = 1 + 2^-5 (green): the two
  supports never meet (every output of r2 ends in binary ...10, every output of r1 in ...00);
  beside it the snapped and truncated mechanism (L = 1/2, [m, M] = [-8, 8]) on the same inputs.
* ``plot_distributions(m, path, x=None, x_prime=None)``: the exact output distributions of any
  1-D mechanism of fxdp.finite for two neighbouring inputs (default: the audit's witness pair,
  or 0 and the sensitivity), and for planar mechanisms the two exact output grids as heat maps.
  ``fxdp audit CONFIG --plot FILE`` calls this.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def _plt():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:    # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'fxdp[plot]' (or pip install matplotlib)") \
            from exc
    return plt


def _pmf_1d(m, x_raw):
    """{raw output or None: probability (float)} of a 1-D mechanism on raw input x."""
    if m.exact_grid:
        return _pmf_grid(m, x_raw)
    from .audit_finite import _Dist1D, dist_cache
    dist = dist_cache(m, _Dist1D)
    total = dist.total
    return {k: v / total for k, v in dist.pmf(x_raw).items()}


def _pmf_grid(m, x_raw):
    """Censored discrete Laplace in grid units (closed form, floats for plotting)."""
    rho = math.exp(-m.s / m.t)
    x = min(max(x_raw, m.lo), m.hi)
    xg = (x + m.half) // m.step
    lo_g, hi_g = m.lo // m.step, m.hi // m.step
    norm = (1 - rho) / (1 + rho)
    out = {}
    for g in range(lo_g, hi_g + 1):
        z = g - xg
        if g == lo_g:
            p = rho ** abs(z) / (1 + rho) if z <= 0 else 1 - rho ** z / (1 + rho)
        elif g == hi_g:
            p = rho ** abs(z) / (1 + rho) if z >= 0 else 1 - rho ** (-z) / (1 + rho)
        else:
            p = norm * rho ** abs(z)
        out[g * m.step] = p
    return out


def _stems(ax, pmf, res, color, label, offset=0.0, exc_x=None):
    xs = sorted(k for k in pmf if k is not None)
    vals = [float(Fraction(k) * res) for k in xs]
    ys = [pmf[k] for k in xs]
    if vals:
        ax.vlines(np.array(vals) + offset, 0, ys, color=color, lw=1.2, label=label)
        ax.plot(np.array(vals) + offset, ys, "o", color=color, ms=2.5)
    if None in pmf and exc_x is not None:
        ax.bar([exc_x + offset], [pmf[None]], width=0.15, color=color, alpha=0.5,
               label=f"{label}: exception (None), P = {pmf[None]:.3g}")


def _panel_1d(ax, m, x, xp, window=None, title=""):
    res = m.qformat.resolution
    p, q = _pmf_1d(m, x), _pmf_1d(m, xp)
    if window is not None:
        lo, hi = window
        p = {k: v for k, v in p.items() if k is None or lo <= Fraction(k) * res <= hi}
        q = {k: v for k, v in q.items() if k is None or lo <= Fraction(k) * res <= hi}
    step = float(getattr(m, "L", res) or res)
    off = step * 0.12
    exc_x = float(Fraction(m.hi) * res) + 2 * step
    _stems(ax, p, res, "black", f"x = {float(Fraction(x) * res):g}", -off, exc_x)
    _stems(ax, q, res, "tab:green", f"x' = {float(Fraction(xp) * res):g}", off, exc_x)
    if None in p or None in q:              # the exception value, off the value axis: name its bars
        ax.annotate("exception\n(None)", (exc_x, 0), xytext=(0, -24), textcoords="offset points",
                    ha="center", va="top", fontsize=7, color="dimgray", annotation_clip=False)
    import textwrap
    ax.set_title("\n".join(textwrap.wrap(title, 100, subsequent_indent="    ")), fontsize=8)
    ax.set_xlabel("released value")
    ax.set_ylabel("probability (exact)")
    ax.legend(fontsize=8)


def plot_distributions(m, path, x=None, x_prime=None):
    """Exact output distributions of m for two neighbouring inputs (values), saved to path."""
    if not getattr(m, "finite_precision", False):
        raise TypeError(f"plot_distributions: not a finite-precision mechanism (fxdp.finite): {m!r}")
    plt = _plt()
    if m.planar:
        return _plot_planar(m, path, x, x_prime, plt)
    if x is None or x_prime is None:
        xr, xpr = m.default_raw_pair()
    else:
        xr, xpr = m.check_input(x), m.check_input(x_prime)
    fig, ax = plt.subplots(1, 1, figsize=(9, 4))
    res = m.qformat.resolution
    step = float(getattr(m, "L", None) or res)
    width = min(12 * float(m.sensitivity / m.epsilon_requested), 60 * step)   # at most ~120 cells
    center = float(Fraction(xr) * res)
    _panel_1d(ax, m, xr, xpr, window=(center - width, center + width), title=repr(m))
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def _plot_planar(m, path, x, x_prime, plt):
    from .audit_finite import _Dist2D
    res = m.qformat.resolution
    if x is None or x_prime is None:
        c = min(max(0, m.lo), m.hi)
        d = int(m.sensitivity / res)
        pts = [(c, c), (min(c + d, m.hi), c)]
    else:
        pts = [m.check_input(x), m.check_input(x_prime)]
    gs = np.arange(m.lo, m.hi + 1, m.step)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    if m.exact_grid:
        grids = []
        for (a, b) in pts:
            px, py = _pmf_grid(m, a), _pmf_grid(m, b)
            grids.append(np.array([[px[g] * py[h] for g in gs] for h in gs]))
    else:
        dist = _Dist2D(m)
        grids = []
        for (a, b) in pts:
            sx = gs - a
            sy = gs - b
            cnt = dist.rect((sx - m.half)[:, None], (sx - m.half + m.step)[:, None],
                            (sy - m.half)[None, :], (sy - m.half + m.step)[None, :])
            grids.append(cnt.T / dist.total)
    vmax = max(g.max() for g in grids)
    half = float(m.L) / 2
    ext = [float(Fraction(int(gs[0])) * res) - half, float(Fraction(int(gs[-1])) * res) + half] * 2
    for ax, g, (a, b) in zip(axes, grids, pts):
        im = ax.imshow(g, origin="lower", extent=ext, vmin=0, vmax=vmax, cmap="viridis")
        ax.set_title(f"x = ({float(Fraction(a) * res):g}, {float(Fraction(b) * res):g})", fontsize=9)
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability (exact)")
    fig.suptitle(repr(m), fontsize=8)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path
