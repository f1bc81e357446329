"""Every plot kind, rendered for every registered mechanism kind (README's kind table), has a data
area that is not empty and labelled axes; the numeric readings' distributions are drawn in the
reading's units (issue 31, point 5).  Kinds whose README config has too many outputs to enumerate
are drawn on a small config of the same kind."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402
import matplotlib.image  # noqa: E402

from fxdp.cli import main  # noqa: E402
from fxdp.registry import kinds  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_readme import kind_rows  # noqa: E402

# the exact distribution of these README configs is refused (2^64 outputs and the like): small ones
SMALL = {
    "rappor": "f = 0.5\nm = 1\nk = 8",
    "unary_encoding": "d = 8\nepsilon = 2",
    "longitudinal_ue": "d = 8\nepsilon_perm = 4\nepsilon_1 = \"1/2\"",
    "subset_selection": "d = 8\nepsilon = 2",
}
# distributions drawn at the readings' values (numeric_multidim: attribute 0's report)
READINGS = {"duchi", "piecewise", "hybrid", "square_wave", "numeric_multidim"}
PLANAR = {"planar_laplace_fixed", "planar_laplace_grid"}  # heat maps: both axes in the reading's units
CONFIGS = {k: SMALL.get(k, body) for k, body in kind_rows()}


def test_every_registered_kind_is_rendered():
    assert set(CONFIGS) == set(kinds())


@pytest.fixture
def figures(monkeypatch):
    """What every saved figure shows: per axes (xlabel, ylabel, artists with data)."""
    seen = []
    save = matplotlib.figure.Figure.savefig

    def spy(fig, *a, **kw):
        axes = []
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                continue
            data = [ln for ln in ax.lines if len(np.asarray(ln.get_xdata())) > 0] + \
                   [c for c in ax.collections if len(c.get_paths()) or getattr(c, "get_offsets", lambda: [])().__len__()] + \
                   [p for p in ax.patches if p.get_height() if hasattr(p, "get_height")] + list(ax.images)
            axes.append((ax.get_xlabel(), ax.get_ylabel(), len(data)))
        seen.append(axes)
        return save(fig, *a, **kw)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    return seen


def _ink(path):
    """Fraction of the image's pixels that are not the white background."""
    img = matplotlib.image.imread(str(path))[..., :3]
    return float((img.min(axis=2) < 0.9).mean())


def _check(path, axes, numeric=False, planar=False):
    assert path.is_file() and path.stat().st_size > 5000
    assert _ink(path) > 0.01, path
    assert axes, path
    drawn = [a for a in axes if a[2] > 0]
    assert drawn, (path, axes)
    for xl, yl, _ in drawn:
        assert xl.strip() and yl.strip(), (path, axes)
    if numeric:
        assert "reading units" in drawn[0][0], axes
    if planar:
        assert len(drawn) == 2 and all("reading units" in xl and "reading units" in yl for xl, yl, _ in drawn), axes


def _config(tmp_path, kind):
    p = tmp_path / f"{kind}.toml"
    p.write_text(f'[mechanism]\nkind = "{kind}"\n{CONFIGS[kind]}\n')
    return p


@pytest.mark.parametrize("plot", ["distribution", "loss"])
@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_distribution_and_loss_plots(kind, plot, tmp_path, figures, capsys):
    cfg = _config(tmp_path, kind)
    out = tmp_path / f"{kind}-{plot}.png"
    code = main(["plot", str(cfg), plot, "--out", str(out)])
    err = capsys.readouterr().err
    if code == 2:
        # refused with a reason: planar outputs have no 1-D loss profile; local hashing and
        # dbitflip enumerate only small test configurations
        assert err.strip() and ("planar" in err or "enumerat" in err), err
        assert not out.exists(), "a refused plot writes nothing"
        return                                   # the refusal, with its reason, is what is checked
    assert code == 0, err
    _check(out, figures[-1], numeric=plot == "distribution" and kind in READINGS,
           planar=plot == "distribution" and kind in PLANAR)


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_error_plot(kind, tmp_path, figures, capsys):
    cfg = _config(tmp_path, kind)
    out = tmp_path / f"{kind}-error.png"
    code = main(["plot", str(cfg), "error", "--out", str(out), "--sizes", "500,2000", "--repeats", "2"])
    err = capsys.readouterr().err
    if code == 2:
        assert err.strip(), kind                 # e.g. a kind with no device form: said why
        assert not out.exists(), "a refused plot writes nothing"
        return
    assert code == 0, err
    _check(out, figures[-1])


FINITE = ["laplace_fixed", "naive_laplace_fixed", "laplace_grid", "planar_laplace_fixed", "planar_laplace_grid"]


def _mech(tmp_path, kind):
    from fxdp.config import load_config
    return load_config(_config(tmp_path, kind)).mechanism


def test_every_finite_kind_has_an_audit_plot(tmp_path):
    finite = {k for k in CONFIGS if getattr(_mech(tmp_path, k), "finite_precision", False)}
    assert finite == set(FINITE)


@pytest.mark.parametrize("kind", FINITE)
def test_audit_plot(kind, tmp_path, figures, capsys):
    """fxdp audit --plot of every finite-precision kind (laplace_grid raised AttributeError: no
    default_raw_pair; the planar exact grid enumerated its 2^20 x 2^20 cells), the values and,
    for the heat maps, both axes in the reading's units."""
    cfg = _config(tmp_path, kind)
    out = tmp_path / f"{kind}-audit.png"
    assert main(["audit", str(cfg), "--plot", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    _check(out, figures[-1], numeric=kind not in PLANAR, planar=kind in PLANAR)


@pytest.mark.parametrize("kind", ["randomized_response_bool", "geometric", "piecewise"])
def test_audit_plot_of_other_kinds_draws_their_distributions(kind, tmp_path, figures, capsys):
    """fxdp audit --plot of a kind outside the finite-precision family draws its exact output
    distributions (it used to refuse: "not a finite-precision mechanism")."""
    cfg = _config(tmp_path, kind)
    out = tmp_path / f"{kind}-audit.png"
    assert main(["audit", str(cfg), "--plot", str(out)]) == 0, capsys.readouterr().err
    assert f"plot written to {out}" in capsys.readouterr().out
    _check(out, figures[-1], numeric=kind == "piecewise", planar=False)


def test_square_wave_distribution_centres_the_window_on_the_reading(tmp_path):
    """Square Wave's outputs are drawn at the value each cell stands for: the window of input x
    (the most likely outputs) is [x - b (hi - lo), x + b (hi - lo)] in the reading's units."""
    from fxdp import plots
    m = _mech(tmp_path, "square_wave")
    for x in (0, m.N // 2, m.N):
        d = plots.output_distribution(m, x, m.N - x if x != m.N // 2 else 0)
        top = d.positions[d.p >= d.p.max() * (1 - 1e-9)]
        r, half = float(m.reading(x)), float(m.b * (m.hi - m.lo))
        assert abs(top.min() - (r - half)) < 0.02 and abs(top.max() - (r + half)) < 0.02, (x, top.min(), top.max())
        assert "reading units" in d.xlabel


def test_numeric_multidim_readme_config_is_fast(tmp_path):
    """The README config (dims = 5, bits = 12) has C(5, 2) 5010^2 = 2.5e8 output tuples, whose
    exact enumeration took over 300 s: the distribution is attribute 0's report (said in the
    note), in seconds; a small config still gets every output tuple."""
    import time
    from fxdp import plots
    import fxdp
    m = _mech(tmp_path, "numeric_multidim")
    t0 = time.perf_counter()
    d = plots.output_distribution(m)
    pl = plots.privacy_loss(m)
    assert time.perf_counter() - t0 < 20
    assert "attribute 0's report only" in d.note and "reading units" in d.xlabel
    assert len(d.outputs) == len(m.inner.output_pmf(0)) and pl.worst_loss <= float(m.inner.epsilon) + 1e-12
    small = fxdp.make_numeric_multidim(lo=0, hi=100, epsilon=6, dims=2, bits=3)
    ds = plots.output_distribution(small)
    assert not ds.note and len(ds.outputs) == len(small.output_pmf((0, 0)))


def test_audit_plot_names_the_exception_and_keeps_its_title(tmp_path, monkeypatch, figures):
    """laplace_fixed with truncation = "exception": the exception bars are labelled, and the
    title (the mechanism's repr) is wrapped so that it fits the figure."""
    import matplotlib.axes
    titles, legends = [], []
    orig = matplotlib.axes.Axes.set_title
    monkeypatch.setattr(matplotlib.axes.Axes, "set_title",
                        lambda ax, t, *a, **kw: (titles.append(t), orig(ax, t, *a, **kw))[1])
    cfg = _config(tmp_path, "laplace_fixed")
    out = tmp_path / "lf.png"
    assert main(["audit", str(cfg), "--plot", str(out)]) == 0
    assert titles and all(len(line) <= 100 for line in titles[-1].splitlines())
    from matplotlib import pyplot as plt  # noqa: F401
    _check(out, figures[-1])


def test_demo_plot_draws_each_estimate_against_the_truth(tmp_path, figures, capsys):
    """fxdp demo --plot: estimates.png with one panel per statistic, each labelled, with the true
    value, the interval and the raw mean drawn (issue 31: the demo wrote no plot)."""
    import json
    out_dir = tmp_path / "demo"
    code = main(["demo", "--json", "--plot", "--out", str(out_dir), "--devices", "5000", "--releases", "200"])
    assert code == 0, capsys.readouterr().err
    d = json.loads(capsys.readouterr().out)
    png = out_dir / "estimates.png"
    assert d["plot"] == str(png) and str(png) in d["files"]
    _check(png, figures[-1])
    drawn = figures[-1]
    assert [yl for _, yl, n in drawn] == ["temperature", "heating"] and all(n >= 3 for *_, n in drawn), drawn
    assert "degrees C" in drawn[0][0] and "yes-share" in drawn[1][0], drawn
