"""Plots of a configured mechanism: exact output distributions, the privacy-loss profile, and
estimator error against fleet size.  matplotlib is optional (``pip install ".[plot]"``) and
imported only when a figure is drawn (Agg backend); every function also works with
``path=None``, returning the computed data without drawing (no matplotlib needed).

* ``plot_output_distribution(m, x, x_prime, path)``: P(y | x) and P(y | x') for every output y
  of the implementation as configured, exact where the distribution is rational (randomized
  response, RAPPOR, the constant-time bounded geometric, the fixed-point Laplace: Fractions),
  in closed form where it is irrational (the lazy geometric, i.e. the exact CKS discrete
  Laplace censored at the bounds, and the exact-grid Laplace: the outputs within about 40
  noise scales of the inputs, the rest of the mass reported in ``mass_outside``).
  Many outputs: the whole distribution as lines beside a zoom of stems around the inputs.
* ``plot_privacy_loss(m, x, x_prime, path)``: L(y) = ln P(y | x) / P(y | x') for every output,
  with the claimed epsilon (the privacy map at d_in = |x - x'|) and the worst output marked;
  outputs impossible under one input (infinite loss) are drawn as triangles at the frame.
* ``plot_estimator_error(m, sizes, path)``: the server estimator's error against the fleet size
  (Numba fleet simulation, ``fxdp.fleet``), with its reported standard error and 1/sqrt(n).

x, x_prime default to a neighbouring pair: the audit's witness where it is cheap to obtain (the
worst pair), else a pair in the middle of the input range.  Each function returns a small
dataclass with the data and ``path`` (``os.fspath(result)`` is the path).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .mechanisms.base import check_mechanism
from .mechanisms.distribution import WINDOW_CELLS, OutputDistribution  # noqa: F401  (public data type)
from .mechanisms.distribution import pyplot as _plt   # matplotlib, imported on the first call

DENSE = 400                # more outputs than this: lines instead of stems, plus a zoomed panel


def _fmt(v):
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, Fraction):
        return f"{float(v):g}"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


# ==========================================================================
# data
# ==========================================================================

@dataclass
class PrivacyLoss:
    """L(y) = ln P(y | x) / P(y | x') over the outputs of ``distribution`` (+-inf where one side
    is 0).  worst_loss = max |L(y)| (inf possible), at worst_output; epsilon_claimed: the
    privacy map at d_in (the L1 / absolute distance of x, x', or 1)."""
    mechanism: str
    x: object
    x_prime: object
    outputs: list
    loss: np.ndarray
    epsilon_claimed: float
    d_in: int
    worst_output: object
    worst_loss: float
    worst_index: int
    distribution: OutputDistribution = field(repr=False, default=None)
    path: str | None = None

    def __fspath__(self):
        return str(self.path)


@dataclass
class EstimatorError:
    """Estimator error against fleet size.  errors[i, r]: RMS over the estimator's rows (e.g.
    categories) of estimate - true in run r at sizes[i]; rmse[i] over the runs; stderr[i]: the
    estimator's reported standard error (root mean square over rows and runs); reference: the
    line c/sqrt(n) fitted to rmse (log least squares).  per_device: sums and counts were divided by n."""
    mechanism: str
    statistic: str
    sizes: np.ndarray
    errors: np.ndarray
    rmse: np.ndarray
    stderr: np.ndarray
    reference: np.ndarray
    per_device: bool
    seconds: float
    path: str | None = None

    def __fspath__(self):
        return str(self.path)


# ==========================================================================
# exact distributions
# ==========================================================================

def default_pair(m):
    """A neighbouring input pair (x, x'), in the form the plotting functions accept: the audit's
    witness where it is cheap (randomized response, RAPPOR, narrow bounded geometric), else a
    pair in the middle of the input range (the fixed-point Laplace: 0 and 0 + sensitivity).
    Each mechanism family gives its own (``Mechanism.default_pair``)."""
    return check_mechanism(m, "default_pair").default_pair()


def output_distribution(m, x=None, x_prime=None):
    """The exact output distributions of m for x and x' (see OutputDistribution); no drawing.
    Each mechanism family computes its own (``Mechanism.output_distribution``)."""
    check_mechanism(m, "output_distribution")
    if (x is None) != (x_prime is None):
        raise ValueError("give both x and x_prime, or neither (a default neighbouring pair)")
    if x is None:
        x, x_prime = m.default_pair()
    return m.output_distribution(x, x_prime)


def privacy_loss(m, x=None, x_prime=None, dist=None):
    """L(y) = ln P(y | x) / P(y | x') over every output (see PrivacyLoss); no drawing."""
    if dist is None:
        dist = output_distribution(m, x, x_prime)
    if dist.exact:
        if dist.den < 1 << 53:            # every count is exact in float64
            a = np.array(dist.num, dtype=np.float64)
            b = np.array(dist.num_prime, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                loss = np.log(a) - np.log(b)
            loss[(a > 0) & (b == 0)] = np.inf
            loss[(a == 0) & (b > 0)] = -np.inf
            loss[(a == 0) & (b == 0)] = np.nan
        else:
            loss = np.empty(len(dist.outputs), dtype=np.float64)
            for i, (a, b) in enumerate(zip(dist.num, dist.num_prime)):
                if a == 0 or b == 0:
                    loss[i] = np.nan if a == b else (math.inf if b == 0 else -math.inf)
                else:
                    g = math.gcd(a, b)
                    loss[i] = math.log(a // g) - math.log(b // g)
    else:
        loss = dist.logp - dist.logp_prime
    mag = np.where(np.isnan(loss), -1.0, np.abs(loss))
    mx = float(mag.max())
    # the worst output: largest |L| (ties within float rounding), positive side first, then the
    # most likely under x
    cand = np.flatnonzero(mag >= (mx if math.isinf(mx) else mx - 1e-12 * max(mx, 1.0)))
    pos_side = cand[loss[cand] > 0]
    cand = pos_side if len(pos_side) else cand
    wi = int(cand[np.argmax(dist.p[cand])])
    eps = dist.epsilon_claimed if dist.epsilon_claimed is not None else m.epsilon
    return PrivacyLoss(dist.mechanism, dist.x, dist.x_prime, dist.outputs, loss, eps, dist.d_in,
                       dist.outputs[wi], float(mag[wi]), wi, dist)


# ==========================================================================
# drawing
# ==========================================================================

def _zoom(dist):
    """(lo, hi) of the zoomed panel for dense numeric outputs (None: no zoom)."""
    if not dist.numeric or len(dist.outputs) <= DENSE or not dist.zoom:
        return None
    if dist.window is not None:
        return dist.window
    vals = np.unique(dist.positions)
    step = float(np.diff(vals).min()) if len(vals) > 1 else 1.0
    c = (float(dist.x) + float(dist.x_prime)) / 2
    return (c - WINDOW_CELLS * step, c + WINDOW_CELLS * step)


def _indices(dist, window):
    idx = np.arange(len(dist.outputs))
    if window is None:
        return idx
    lo, hi = window
    return idx[(dist.positions >= lo) & (dist.positions <= hi)]


def _pair_title(dist):
    return dist.pair_text or f"x = {_fmt(dist.x)},  x' = {_fmt(dist.x_prime)}"


def _categorical_ticks(ax, dist, idx):
    if len(idx) <= 32:
        ax.set_xticks(dist.positions[idx])
        ax.set_xticklabels([_fmt(dist.outputs[i]) for i in idx], rotation=0 if len(idx) <= 8 else 90,
                           fontsize=8 if len(idx) <= 16 else 6)
        ax.set_xlabel("output y")
    else:
        ax.set_xlabel("output y (index in the listed order)")


def _regular(dist, idx):
    """Mask over idx of the outputs on the value axis (the exception, None, is always last)."""
    reg = np.ones(len(idx), dtype=bool)
    if len(idx) and dist.outputs[idx[-1]] is None:
        reg[-1] = False
    return reg


def _mark_exception(ax, dist, idx, text=None):
    exc = [int(idx[-1])] if len(idx) and not _regular(dist, idx)[-1] else []
    if dist.numeric and exc:
        ax.axvline(dist.positions[exc[0]], color="lightgray", lw=4, zorder=0, alpha=0.6)
        ax.text(dist.positions[exc[0]], 0.98, " exception" + (f"\n{text}" if text else ""),
                transform=ax.get_xaxis_transform(), va="top", ha="right", fontsize=7, color="dimgray")


def _wrap(name, width=110):
    """A mechanism's repr over several lines when long (titles are not wrapped by matplotlib)."""
    import textwrap
    return "\n".join(textwrap.wrap(name, width, break_long_words=True, subsequent_indent="    "))


def _count(k):
    return f"{int(k)} output" + ("" if k == 1 else "s")


DPI = 130                  # the figures' resolution unless a function is given dpi=


def _save(fig, plt, path, dpi=None):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi or DPI)
    plt.close(fig)


def _draw_pmfs(ax, dist, idx, stems):
    pos = dist.positions[idx]
    lab_p = f"P(y | x = {dist.x_text or _fmt(dist.x)})"
    lab_q = f"P(y | x' = {dist.x_prime_text or _fmt(dist.x_prime)})"
    if not dist.numeric:
        w = 0.4
        ax.bar(pos - w / 2, dist.p[idx], width=w, color="black", label=lab_p)
        ax.bar(pos + w / 2, dist.p_prime[idx], width=w, color="tab:green", label=lab_q)
        _categorical_ticks(ax, dist, idx)
        return
    reg = _regular(dist, idx)
    ri, ei = idx[reg], idx[~reg]
    top = max(float(dist.p[ri].max()) if len(ri) else 0.0, float(dist.p_prime[ri].max()) if len(ri) else 0.0)
    # the exception (an output off the value axis) is drawn only when it fits the scale
    exc_text = None
    if len(ei):
        pe, qe = float(dist.p[ei[0]]), float(dist.p_prime[ei[0]])
        exc_text = f"P = {pe:.3g} | {qe:.3g}"
        if max(pe, qe) > 1.5 * top > 0:
            ei = ei[:0]
        else:
            exc_text = None
    if stems:
        vals = np.unique(pos)
        step = float(np.diff(vals).min()) if len(vals) > 1 else 1.0
        off = 0.15 * step
        draw = np.concatenate([ri, ei]).astype(np.int64)
        for arr, color, lab, o in ((dist.p, "black", lab_p, -off), (dist.p_prime, "tab:green", lab_q, off)):
            ax.vlines(dist.positions[draw] + o, 0, arr[draw], color=color, lw=1.3, label=lab)
            ax.plot(dist.positions[draw] + o, arr[draw], "o", color=color, ms=2.5)
    else:
        for arr, color, lab in ((dist.p, "black", lab_p), (dist.p_prime, "tab:green", lab_q)):
            nz = ri[arr[ri] > 0]               # each curve on its own support
            ax.plot(dist.positions[nz], arr[nz], "-", color=color, lw=0.9, alpha=0.85, label=lab)
            if len(ei):
                ax.plot(dist.positions[ei], arr[ei], "o", color=color, ms=4)
    ax.set_xlabel(dist.xlabel)
    if dist.log_y:
        ax.set_yscale("log")
    _mark_exception(ax, dist, idx, exc_text)


def plot_output_distribution(m, x=None, x_prime=None, path="output_distribution.png", dpi=None):
    """Draw P(y | x) and P(y | x') of m (exact, or closed form) to path; returns an
    OutputDistribution (data + path).  x, x_prime None: default_pair(m).  path None: data only.
    Many outputs (> DENSE): the whole distribution as lines, and a zoomed panel of stems around
    the inputs.  Planar mechanisms: the two output grids as heat maps (the mechanism's draw_heatmaps), no data."""
    if check_mechanism(m, "plot_output_distribution").two_dimensional_output:
        if path is None:
            raise ValueError("planar mechanisms: only the heat-map figure is available (give a path)")
        _plt()
        m.draw_heatmaps(path, x, x_prime, dpi=dpi or DPI)
        empty = np.zeros(0)
        return OutputDistribution(repr(m), x, x_prime, [], empty, empty, True, empty, False,
                                  note="planar: heat maps of the two output grids", path=path)
    plt = _plt() if path is not None else None
    dist = output_distribution(m, x, x_prime)
    if path is None:
        return dist
    zoom = _zoom(dist)
    all_idx = np.arange(len(dist.outputs))
    kind = "exact" if dist.exact else "closed form"
    if zoom is None:
        fig, ax = plt.subplots(1, 1, figsize=(9, 4.2))
        _draw_pmfs(ax, dist, all_idx, stems=len(all_idx) <= DENSE)   # dense without a zoom: lines
        ax.set_ylabel(f"probability ({kind})")
        ax.legend(fontsize=8)
        axes = [ax]
    else:
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.4), gridspec_kw={"width_ratios": [3, 2]})
        _draw_pmfs(axes[0], dist, all_idx, stems=False)
        axes[0].axvspan(*zoom, color="tab:orange", alpha=0.15, label="zoomed at right")
        axes[0].set_ylabel(f"probability ({kind})")
        axes[0].legend(fontsize=8, loc="upper left")
        axes[0].set_title(f"all {len(dist.outputs)} outputs", fontsize=8)
        zi = _indices(dist, zoom)
        _draw_pmfs(axes[1], dist, zi, stems=True)
        axes[1].set_title(f"zoom: {len(zi)} outputs around the inputs", fontsize=8)
        axes[1].set_ylabel(f"probability ({kind})")
        axes[1].ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    sub = [dist.note] if dist.note else []
    if not dist.exact and max(dist.mass_outside) > 1e-12:
        sub.append(f"mass beyond the listed outputs: {dist.mass_outside[0]:.2g} (x), "
                   f"{dist.mass_outside[1]:.2g} (x')")
    fig.suptitle(f"{_wrap(dist.mechanism)}\noutput distribution for {_pair_title(dist)}"
                 + (f"\n{_wrap('; '.join(sub), 130)}" if sub else ""), fontsize=8)
    _save(fig, plt, path, dpi)
    dist.path = path
    return dist


def plot_privacy_loss(m, x=None, x_prime=None, path="privacy_loss.png", dpi=None):
    """Draw the privacy-loss profile L(y) = ln P(y | x)/P(y | x') of m over every output, with
    +-epsilon claimed (privacy map at d_in) and the worst output marked, to path; returns a
    PrivacyLoss (data + path).  Infinite losses: triangles at the frame.  path None: data only."""
    if check_mechanism(m, "plot_privacy_loss").two_dimensional_output:
        raise ValueError("planar mechanisms have 2-D outputs: no 1-D privacy-loss profile (use fxdp.audit)")
    plt = _plt() if path is not None else None
    pl = privacy_loss(m, x, x_prime)
    if path is None:
        return pl
    dist = pl.distribution
    n = len(pl.outputs)
    loss, pos = pl.loss, dist.positions
    fin = np.isfinite(loss)
    reg = _regular(dist, np.arange(n))
    eps = pl.epsilon_claimed
    top = max([float(np.abs(loss[fin]).max()) if fin.any() else 0.0] + ([eps] if math.isfinite(eps) else []))
    top = top if top > 0 else 1.0
    y_inf = 1.15 * top
    fig, ax = plt.subplots(1, 1, figsize=(11, 4.4))
    ms = 3 if n <= DENSE else 1.5
    lab = "L(y) = ln P(y|x) / P(y|x')"
    fr = fin & reg
    if fr.any():
        if n <= DENSE:
            ax.vlines(pos[fr], 0, loss[fr], color="tab:blue", lw=1)
            ax.plot(pos[fr], loss[fr], "o", color="tab:blue", ms=ms, label=lab)
        elif fr.sum() <= 20_000:
            ax.plot(pos[fr], loss[fr], ".", color="tab:blue", ms=ms, label=lab)
        else:
            ax.plot(pos[fr], loss[fr], "-", color="tab:blue", lw=0.8, label=lab)
    fe = fin & ~reg
    if fe.any():
        ax.plot(pos[fe], loss[fe], "D", color="tab:blue", ms=5, label="L(exception)")
    pinf, minf = loss == np.inf, loss == -np.inf
    if pinf.any():
        ax.plot(pos[pinf], np.full(pinf.sum(), y_inf), "^", color="tab:red", ms=ms + 2,
                label=f"+inf: P(y|x') = 0 ({_count(pinf.sum())})")
    if minf.any():
        ax.plot(pos[minf], np.full(minf.sum(), -y_inf), "v", color="tab:purple", ms=ms + 2,
                label=f"-inf: P(y|x) = 0 ({_count(minf.sum())})")
    if math.isfinite(eps):
        ax.axhline(eps, color="tab:orange", ls="--", lw=1, label=f"± epsilon claimed = {eps:.6g} (d_in = {pl.d_in})")
        ax.axhline(-eps, color="tab:orange", ls="--", lw=1)
    else:
        ax.plot([], [], " ", label=f"epsilon claimed = inf (d_in = {pl.d_in}; no finite guarantee)")
    ax.axhline(0, color="gray", lw=0.5)
    wl = pl.loss[pl.worst_index]
    wy = wl if math.isfinite(wl) else math.copysign(y_inf, wl)
    ax.plot([pos[pl.worst_index]], [wy], "*", color="gold", mec="black", ms=13, zorder=5,
            label=f"worst: y = {_fmt(pl.worst_output)}, |L| = {pl.worst_loss:.6g}")
    ax.set_ylim(-1.3 * top, 1.3 * top)
    if pinf.any() or minf.any():           # label the frame rows of the infinite losses
        ticks = [t for t in ax.get_yticks() if abs(t) <= 0.9 * top] if fin.any() else [0.0]
        labels = [f"{t:g}" for t in ticks]
        for flag, yv, lab in ((pinf.any(), y_inf, "+inf"), (minf.any(), -y_inf, "-inf")):
            if flag:
                ticks.append(yv)
                labels.append(lab)
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels)
    ax.set_ylabel("privacy loss (nats)")
    if dist.numeric:
        ax.set_xlabel(dist.xlabel)
        _mark_exception(ax, dist, np.arange(n))
    else:
        _categorical_ticks(ax, dist, np.arange(n))
    sub = [dist.note] if dist.note else []
    ax.set_title(f"{_wrap(pl.mechanism)}\nprivacy loss for {_pair_title(dist)}" + (f"\n{_wrap('; '.join(sub), 130)}" if sub else ""),
                 fontsize=8)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    _save(fig, plt, path, dpi)
    pl.path = path
    return pl


# ==========================================================================
# estimator error against fleet size
# ==========================================================================

def estimator_error(m, sizes=(1000, 10_000, 100_000, 1_000_000), seed=0, repeats=5, per_device=None):
    """Simulate the fleet (fxdp.fleet.simulate_fleet) `repeats` times at each size and
    compare the estimator (fxdp.fleet.estimate_rows) with the truth; no drawing.
    per_device None: divide the error of sums and counts by n (so every statistic falls as
    1/sqrt(n)); True / False forces it."""
    import time
    from .fleet import estimate_rows, simulate_fleet
    check_mechanism(m, "estimator_error")
    sizes = np.array(sorted({int(s) for s in sizes}), dtype=np.int64)
    if len(sizes) == 0 or sizes[0] < 2:
        raise ValueError("sizes must hold fleet sizes >= 2")
    repeats = int(repeats)
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    t0 = time.perf_counter()
    errors = np.zeros((len(sizes), repeats))
    se2 = np.zeros((len(sizes), repeats))
    statistic = ""
    for i, n in enumerate(sizes):
        for r in range(repeats):
            run_seed = (int(seed) * 1_000_003 + i * 10_007 + r) % (1 << 64)
            _, reports, truth, _ = simulate_fleet(m, int(n), run_seed, progress=False)
            rows = [row for row in estimate_rows(m, reports, truth) if row["true"] is not None]
            if not rows:
                raise ValueError(f"the estimator for {m.kind} gives no rows with a known truth")
            name0 = rows[0]["name"]
            base = name0.split("[")[0].split("(")[0]
            if len(rows) == 1:
                statistic = base
            elif "[" in name0:
                statistic = f"{base} ({len(rows)} rows, RMS)"
            else:                         # rows named by value (full RAPPOR candidates)
                base = "frequency"
                statistic = f"frequency of {len(rows)} values (RMS)"
            scale = n if (per_device if per_device is not None else base in ("sum", "count")) else 1
            e = np.array([row["estimate"] - row["true"] for row in rows]) / scale
            s = np.array([row["stderr"] for row in rows]) / scale
            errors[i, r] = math.sqrt(float(np.mean(e ** 2)))
            se2[i, r] = float(np.mean(s ** 2))
    pd = per_device if per_device is not None else statistic.split(" ")[0] in ("sum", "count")
    rmse = np.sqrt(np.mean(errors ** 2, axis=1))
    stderr = np.sqrt(np.mean(se2, axis=1))
    inv = 1 / np.sqrt(sizes.astype(np.float64))
    ok = rmse > 0                      # c / sqrt(n) fitted to the RMSE (least squares in log space)
    c = float(np.exp(np.mean(np.log(rmse[ok] / inv[ok])))) if ok.any() else float(stderr[0] / inv[0])
    reference = c * inv
    return EstimatorError(repr(m), statistic, sizes, errors, rmse, stderr, reference, bool(pd),
                          time.perf_counter() - t0)


def plot_estimator_error(m, sizes=(1000, 10_000, 100_000, 1_000_000), path="estimator_error.png", seed=0,
                         repeats=5, per_device=None, dpi=None):
    """Draw the estimator's error against fleet size (log-log): each run's |error|, the RMSE over
    `repeats` runs, the reported standard error and the 1/sqrt(n) reference, to path; returns an
    EstimatorError (data + path).  path None: data only."""
    plt = _plt() if path is not None else None
    ee = estimator_error(m, sizes, seed=seed, repeats=repeats, per_device=per_device)
    if path is None:
        return ee
    fig, ax = plt.subplots(1, 1, figsize=(7.5, 4.8))
    n = ee.sizes.astype(np.float64)
    runs = np.repeat(n, ee.errors.shape[1])
    err = ee.errors.ravel()
    pos = err > 0
    ax.loglog(runs[pos], err[pos], ".", color="tab:blue", alpha=0.35, label=f"|error| of each run ({ee.errors.shape[1]} per size)")
    ax.loglog(n, ee.rmse, "o-", color="tab:blue", label="RMSE over runs")
    ax.loglog(n, ee.stderr, "s--", color="tab:orange", label="reported standard error")
    ax.loglog(n, ee.reference, ":", color="gray", label="c/sqrt(n), fitted to the RMSE")
    ax.set_xlabel("fleet size n (devices)")
    unit = " per device (÷ n)" if ee.per_device else ""
    ax.set_ylabel(f"error of {ee.statistic}{unit}")
    ax.set_title(f"{_wrap(ee.mechanism, 90)}\nestimator error against fleet size (simulated, {ee.seconds:.1f} s)", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, plt, path, dpi)
    ee.path = path
    return ee


@dataclass
class CdfPlot:
    """The data of a CDF plot: the estimated CDF at the reading edges with its standard errors,
    and the simulated population's true CDF there."""
    mechanism: str
    devices: int
    edges: np.ndarray
    estimate: np.ndarray
    stderr: np.ndarray
    truth: np.ndarray
    path: object = None

    @property
    def coverage(self):
        """The share of edges whose true CDF lies in the drawn 95 % band."""
        return float(np.mean(np.abs(self.estimate - self.truth) <= Z95 * self.stderr))


def cdf(m, devices=100_000, seed=0):
    """Simulate ``devices`` devices of m's synthetic population (seed) and estimate the CDF of their
    readings (``m.estimate_cdf``: the kinds that estimate a distribution of readings)."""
    check_mechanism(m, "cdf")
    if not callable(getattr(m, "estimate_cdf", None)):
        raise ValueError(f"{m.kind} does not estimate a CDF of readings (the range and quantile kinds do, "
                         "e.g. hierarchical_histogram)")
    devices = int(devices)
    if devices < 2:
        raise ValueError(f"devices must be >= 2, got {devices}")
    values, _ = m.synthetic_population(devices, seed)
    edges, est, se = m.estimate_cdf(m.simulate(values, seed))
    return CdfPlot(repr(m), devices, edges, est, se, m.true_cdf(values, edges))


def plot_cdf(m, devices=100_000, seed=0, path="cdf.png", dpi=None):
    """Draw the estimated CDF with its 95 % band against the simulated population's true CDF, to
    path; returns a CdfPlot (data + path)."""
    plt = _plt()
    c = cdf(m, devices, seed)
    fig, ax = plt.subplots(1, 1, figsize=(7.5, 4.8))
    ax.fill_between(c.edges, c.estimate - Z95 * c.stderr, c.estimate + Z95 * c.stderr, color="tab:blue",
                    alpha=0.25, step="post", label="95 % band (estimate +- 1.96 standard errors)")
    ax.step(c.edges, c.estimate, where="post", color="tab:blue", label="estimated CDF (constrained inference)")
    ax.step(c.edges, c.truth, where="post", color="black", linestyle=":", label="true CDF of the simulated readings")
    ax.set_xlabel("reading")
    ax.set_ylabel("share of devices at or below")
    ax.set_title(f"{_wrap(c.mechanism, 90)}\n{c.devices:,} simulated devices; the truth within the band at "
                 f"{100 * c.coverage:.0f} % of the edges", fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, plt, path, dpi)
    c.path = path
    return c


# ==========================================================================
# the demo: each estimate against the truth
# ==========================================================================

Z95 = 1.959963984540054    # two-sided 95% normal quantile: the drawn intervals are estimate +- Z95 stderr


def plot_demo_estimates(report, path="estimates.png", dpi=None):
    """Draw `fxdp demo`'s estimates against the true values of its simulated fleet, one panel
    per statistic: the true value (line), the server estimate with its 95% interval (estimate
    +- 1.96 standard errors), the raw mean of the reports, and for the temperature the
    mechanism recommend_numeric picks at the same epsilon; to path.  `report` is run_demo's
    report dict.  Returns path."""
    plt = _plt()
    mechs = report["mechanisms"]
    fig, axes = plt.subplots(len(mechs), 1, figsize=(7.5, 1.9 + 1.3 * len(mechs)))
    axes = np.atleast_1d(axes)
    rec = report.get("temperature_recommended")
    for ax, mm in zip(axes, mechs):
        e = mm["estimate"]
        rows = [(f"{e['name']} (server estimate)", e["estimate"], e["stderr"], "tab:blue"),
                ("raw mean of the reports", e["naive"], None, "tab:gray")]
        if rec is not None and mm["name"] == "temperature":
            r = rec["estimate"]
            rows.insert(1, (f"{rec['kind']}, recommended at the same epsilon", r["estimate"], r["stderr"],
                            "tab:green"))
        ys = np.arange(len(rows))[::-1]
        for y, (label, v, se, color) in zip(ys, rows):
            if se is None:
                ax.plot([v], [y], "x", color=color, markersize=8)
            else:
                ax.errorbar([v], [y], xerr=[[Z95 * se], [Z95 * se]], fmt="o", color=color, capsize=4)
        ax.axvline(e["true"], color="tab:red", linestyle="--", label=f"true value {e['true']:.4g}")
        ax.set_yticks(ys)
        ax.set_yticklabels([r[0] for r in rows], fontsize=8)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_ylabel(mm["name"], fontsize=8)
        ax.set_xlabel(mm["statistic"], fontsize=8)
        ax.legend(fontsize=7, loc="best")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_title(f"fxdp demo: {report['devices']:,} simulated devices, seed {report['seed']}; "
                      "bars: 95% intervals (estimate ± 1.96 standard errors)", fontsize=8)
    _save(fig, plt, path, dpi)
    return path


# ==========================================================================
# deployment accounting: central epsilon against the number of devices
# ==========================================================================

@dataclass
class AccountCurve:
    """``central[i][j]``: the certified shuffled epsilon (fxdp.accounting) of n = sizes[j] reports at
    epsilon0[i] and delta (nan where shuffling gives no amplification); epsilon0[1] is the
    mechanism's exact realized local epsilon (fxdp.audit(m, d_in="all"): every pair of inputs),
    epsilon0[0] and [2] its neighbours (x 1/2, x 2)."""
    mechanism: str
    delta: float
    epsilon0: list
    sizes: list
    central: list
    path: str | None = None

    def __fspath__(self):
        return str(self.path)


def account_curve(m, sizes=None, delta=1e-8):
    """The data of plot_account (no drawing)."""
    from .accounting import local_epsilon_of, shuffled_epsilon
    from .audit import audit
    check_mechanism(m, "account_curve")
    local_epsilon_of(m, "account_curve")           # an unbounded input domain: set bounds
    rep = audit(m, d_in="all")
    eps0 = float(m.local_epsilon if rep.to_dict().get("extra", {}).get("estimate") else rep.epsilon_realized)
    if not math.isfinite(eps0):
        raise ValueError(f"the mechanism's realized local epsilon (all inputs) is {eps0}: shuffling gives no "
                         f"finite bound")
    sizes = [int(s) for s in (sizes or [10 ** k for k in range(2, 10)])]
    values = [eps0 / 2, eps0, eps0 * 2]
    central = []
    for e0 in values:
        row = []
        for n in sizes:
            try:
                row.append(shuffled_epsilon(e0, n, delta).certified)
            except ValueError:
                row.append(math.nan)
        central.append(row)
    return AccountCurve(repr(m), float(delta), values, sizes, central)


def plot_account(m, path="account.png", sizes=None, delta=1e-8, dpi=None):
    """Draw the certified central epsilon against n (log-log) for the mechanism's realized epsilon0
    and two neighbours; returns an AccountCurve (path None: data only)."""
    plt = _plt() if path is not None else None
    ac = account_curve(m, sizes, delta)
    if path is None:
        return ac
    fig, ax = plt.subplots(1, 1, figsize=(7.5, 4.8))
    for e0, row, style in zip(ac.epsilon0, ac.central, (":", "-", "--")):
        label = f"local epsilon0 = {e0:.4g}" + (" (this mechanism, all inputs, realized)" if style == "-" else "")
        ax.loglog(ac.sizes, row, "o" + style, label=label)
    ax.set_xlabel("devices shuffled together (n)")
    ax.set_ylabel(f"central epsilon at delta = {ac.delta:g} (certified)")
    ax.set_title(f"{_wrap(ac.mechanism, 90)}\ncentral epsilon after shuffling (FMT 2021, certified upward)",
                 fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, plt, path, dpi)
    ac.path = path
    return ac
