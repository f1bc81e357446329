"""Plots of exact output distributions (the paper's Figure 1).  matplotlib is optional
(``pip install fxdp[plot]``) and imported only when a plot is drawn.

* ``fxdp.mechanisms.finite.examples.plot_example(path)``: Example 1.1 -- the naive scaled fixed-point Laplace (b = 4, d = 6
  fractional bits) for the true answers r1 = 0 (black) and r2 = 1 + 2^-5 (green): the two
  supports never meet (every output of r2 ends in binary ...10, every output of r1 in ...00);
  beside it the snapped and truncated mechanism (L = 1/2, [m, M] = [-8, 8]) on the same inputs.
* ``plot_distributions(m, path, x=None, x_prime=None)``: the exact output distributions of any
  1-D mechanism of fxdp.mechanisms.finite for two neighbouring inputs (default: the audit's witness pair,
  or 0 and the sensitivity), and for planar mechanisms the two exact output grids as heat maps.
  ``fxdp audit CONFIG --plot FILE`` calls this.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..distribution import pyplot as _plt


GRID_CELLS = 241          # exact-grid plots: at most this many cells drawn per axis (evenly spaced)


def _pmf_1d(m, x_raw, cells=None):
    """{raw output or None: probability (float)} of a 1-D mechanism on raw input x (exact grid:
    the closed form on the grid indices ``cells``)."""
    if m.exact_grid:
        return _pmf_grid(m, x_raw, cells)
    from .audit_finite import _Dist1D, dist_cache
    dist = dist_cache(m, _Dist1D)
    total = dist.total
    return {k: v / total for k, v in dist.pmf(x_raw).items()}


def _grid_cells(m, lo_v, hi_v):
    """Grid indices g (output g * step) of the cells in the values [lo_v, hi_v], clipped to the
    bounds: every cell when there are at most GRID_CELLS, else GRID_CELLS evenly spaced ones (the
    exact grid at Q15.16 has 2^20 cells: the pmf is drawn on a sample of them, both ends kept)."""
    res = m.qformat.resolution
    lo_g, hi_g = m.lo // m.step, m.hi // m.step
    a = max(lo_g, math.floor(Fraction(lo_v) / res / m.step)) if lo_v is not None else lo_g
    b = min(hi_g, math.ceil(Fraction(hi_v) / res / m.step)) if hi_v is not None else hi_g
    if b - a + 1 <= GRID_CELLS:
        return np.arange(a, b + 1, dtype=np.int64)
    return np.unique(np.linspace(a, b, GRID_CELLS).round().astype(np.int64))


def _pmf_grid(m, x_raw, cells=None):
    """Censored discrete Laplace in grid units (closed form, floats for plotting), on the grid
    indices ``cells`` (None: every cell of the bounds)."""
    rho = math.exp(-m.s / m.t)
    x = min(max(x_raw, m.lo), m.hi)
    xg = (x + m.half) // m.step
    lo_g, hi_g = m.lo // m.step, m.hi // m.step
    norm = (1 - rho) / (1 + rho)
    out = {}
    for g in (range(lo_g, hi_g + 1) if cells is None else (int(c) for c in cells)):
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
    cells = _grid_cells(m, *window) if m.exact_grid and window is not None else None
    p, q = _pmf_1d(m, x, cells), _pmf_1d(m, xp, cells)
    if window is not None:
        lo, hi = window
        p = {k: v for k, v in p.items() if k is None or lo <= Fraction(k) * res <= hi}
        q = {k: v for k, v in q.items() if k is None or lo <= Fraction(k) * res <= hi}
    step = float(getattr(m, "L", res) or res)
    off = step * 0.12
    exc_x = float(Fraction(m.hi) * res) + 2 * step
    _stems(ax, p, res, "black", f"x = {float(Fraction(x) * res):g}", -off, exc_x)
    _stems(ax, q, res, "tab:green", f"x' = {float(Fraction(xp) * res):g}", off, exc_x)
    if m.exact_grid:
        _clip_censored_ends(ax, m, p, q, res)
    if None in p or None in q:              # the exception value, off the value axis: name its bars
        ax.annotate("exception\n(None)", (exc_x, 0), xytext=(0, -24), textcoords="offset points",
                    ha="center", va="top", fontsize=7, color="dimgray", annotation_clip=False)
    import textwrap
    ax.set_title("\n".join(textwrap.wrap(title, 100, subsequent_indent="    ")), fontsize=8)
    ax.set_xlabel("released value (reading units)")
    ax.set_ylabel(_prob_label(m, cells))
    ax.legend(fontsize=8)


def _clip_censored_ends(ax, m, p, q, res):
    """The exact grid's cells on the bounds hold the censored tails, often far above every other
    cell: the y axis is scaled to the others, and the two end cells are named with their P."""
    ends = {m.lo // m.step * m.step, m.hi // m.step * m.step}
    inner = [v for d in (p, q) for k, v in d.items() if k is not None and k not in ends]
    top = max(inner, default=0.0)
    for k in sorted(ends):
        pe, qe = p.get(k), q.get(k)
        if pe is None or top <= 0 or max(pe, qe) <= 1.5 * top:
            continue
        ax.set_ylim(0, 1.4 * top)
        ax.annotate(f"bound: P = {pe:.3g} | {qe:.3g}\n(censored tail, off scale)",
                    (float(Fraction(k) * res), 1.4 * top), xytext=(0, -4), textcoords="offset points",
                    ha="left" if k == min(ends) else "right", va="top", fontsize=7, color="dimgray")


def _prob_label(m, cells=None):
    if not m.exact_grid:
        return "probability (exact)"
    sampled = cells is not None and len(cells) > 1 and int(np.diff(cells).max()) > 1
    return "P(cell) (closed form" + (", sampled cells" if sampled else "") + ")"


def _raw_pair(m, x, x_prime):
    """(x, x') raw: the given values, else the mechanism's default pair (``default_pair``)."""
    if x is None or x_prime is None:
        x, x_prime = m.default_pair()
    return m.check_input(x), m.check_input(x_prime)


def plot_distributions(m, path, x=None, x_prime=None, dpi=130):
    """Exact output distributions of m for two neighbouring inputs (values), saved to path.  The
    exact grid (laplace_grid, planar_laplace_grid) is drawn in closed form within about 12 noise
    scales of the inputs, on at most GRID_CELLS cells per axis."""
    if not getattr(m, "finite_precision", False):
        raise TypeError(f"plot_distributions: not a finite-precision mechanism (fxdp.mechanisms.finite): {m!r}")
    plt = _plt()
    if m.planar:
        return _plot_planar(m, path, x, x_prime, plt, dpi)
    xr, xpr = _raw_pair(m, x, x_prime)
    fig, ax = plt.subplots(1, 1, figsize=(9, 4))
    res = m.qformat.resolution
    lo, hi = _window(m, xr, xpr)
    _panel_1d(ax, m, xr, xpr, window=(float(lo * res), float(hi * res)), title=repr(m))
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def _window(m, *raw):
    """(lo, hi) raw around the raw inputs: 12 noise scales (sensitivity / epsilon) each side, at
    most 60 cells each side where the cells are coarse (not the exact grid), within the bounds."""
    res = m.qformat.resolution
    width = 12 * m.sensitivity / m.epsilon_requested / res
    if not m.exact_grid:
        width = min(width, 60 * m.step)                       # at most ~120 cells
    return max(m.lo, math.floor(min(raw) - width)), min(m.hi, math.ceil(max(raw) + width))


def _plot_planar(m, path, x, x_prime, plt, dpi=130):
    from .audit_finite import _Dist2D
    res = m.qformat.resolution
    if x is None or x_prime is None:
        x, x_prime = m.default_pair()
    pts = [m.check_input(x), m.check_input(x_prime)]
    lo, hi = _window(m, *(v for pt in pts for v in pt))
    cells = _grid_cells(m, lo * res, hi * res)
    gs = cells * m.step                                      # raw outputs of the drawn cells
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    if m.exact_grid:
        grids = []
        for (a, b) in pts:
            px, py = _pmf_grid(m, a, cells), _pmf_grid(m, b, cells)
            grids.append(np.outer([py[int(h)] for h in gs], [px[int(g)] for g in gs]))
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
    over = False
    if m.exact_grid and len(cells) > 2:     # the bound cells hold the censored tails: scale to the rest
        inner = (cells != m.lo // m.step) & (cells != m.hi // m.step)
        vin = max(g[np.ix_(inner, inner)].max() for g in grids)
        over = vmax > 1.5 * vin
        vmax = vin if over else vmax
    pitch = float(Fraction(int(gs[-1] - gs[0]), max(1, len(gs) - 1)) * res) if len(gs) > 1 else float(m.L)
    ext = [float(Fraction(int(gs[0])) * res) - pitch / 2, float(Fraction(int(gs[-1])) * res) + pitch / 2] * 2
    for ax, g, (a, b) in zip(axes, grids, pts):
        im = ax.imshow(g, origin="lower", extent=ext, vmin=0, vmax=vmax, cmap="viridis")
        ax.set_title(f"x = ({float(Fraction(a) * res):g}, {float(Fraction(b) * res):g})", fontsize=9)
        ax.set_xlabel("released first coordinate (reading units)")
        ax.set_ylabel("released second coordinate (reading units)")
    fig.colorbar(im, ax=axes, shrink=0.8, label=_prob_label(m, cells), extend="max" if over else "neither")
    import textwrap
    title = "\n".join(textwrap.wrap(repr(m), 110, subsequent_indent="    "))
    if over:
        title += "\ncells on the bounds hold the censored tails (above the colour scale)"
    fig.suptitle(title, fontsize=8)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
