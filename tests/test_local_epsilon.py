"""The local epsilon (issue 28): every deployment bound takes the epsilon over every pair of
inputs the device can hold, never the d_in = 1 figure.

For every registered kind, on a small configuration, the worst case over all input pairs is
computed here by brute force (every input of the stated domain, every output, exact
Fractions) and compared with ``fxdp.audit(m, d_in="all")``; the claim ``m.local_epsilon`` is
at least that, and the accounting (``deployment``, ``shuffled_epsilon``, ``compose_epsilon``,
``local_epsilon_for``) takes exactly the local figure.
"""
import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.accounting import compose_epsilon, deployment, shuffled_epsilon
from fxdp.conservative import float_up
from fxdp.registry import kinds
from fxdp.reports import ratio_eps, worst_over_all

# kind -> (constructor keywords, the device's whole input domain, as output_pmf takes it)
SMALL = {
    "randomized_response_bool": (dict(prob=0.75), [False, True]),
    "randomized_response": (dict(categories=["a", "b", "c"], prob="3/4"), [0, 1, 2, 3]),   # 3: not a category
    "rappor_full": (dict(k=8, h=2, cohorts=2, f=0.5, p=0.25, q=0.75), None),               # its audit_pairs
    "unary_encoding": (dict(d=4, epsilon=2), range(4)),
    "hadamard_response": (dict(d=5, epsilon=2), range(5)),
    "longitudinal_grr": (dict(d=4, epsilon_perm=4, epsilon_1=1), range(4)),
    "longitudinal_ue": (dict(d=3, epsilon_perm=4, epsilon_1="1/2"), range(3)),
    "dbitflip": (dict(d=8, buckets=4, epsilon=2, sampled_buckets=2), range(8)),
    "subset_selection": (dict(d=5, epsilon=2), range(5)),
    "duchi": (dict(lo=0, hi=1, epsilon=1, bits=3), range(9)),                    # grid indices 0..2^bits
    "piecewise": (dict(lo=0, hi=1, epsilon=2, bits=3), range(9)),
    "hybrid": (dict(lo=0, hi=1, epsilon=2, bits=3), range(9)),
    "square_wave": (dict(lo=0, hi=1, epsilon=2, bits=3, bins=4), range(9)),
    "numeric_multidim": (dict(lo=0, hi=1, epsilon=6, dims=2, bits=2), None),
    "geometric": (dict(scale=3, bounds=(-2, 5), constant_time=True), range(-2, 6)),
}


def brute_local(m, domain):
    pmf = m.table.output_pmf if m.kind == "geometric" else m.output_pmf     # the integer weight table
    ratio, witness = worst_over_all(domain, pmf)
    return ratio_eps(ratio), witness


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_audit_all_is_the_brute_force_worst_case_over_every_input_pair(kind):
    kw, domain = SMALL[kind]
    m = fxdp.registry.constructor(kind)(**kw)
    if domain is None:                      # a domain of tuples: the union of the audited pairs, all of them
        pairs = m.audit_pairs()
        domain = sorted({x for p in pairs for x in p}, key=repr)
        assert len(pairs) == len(domain) * (len(domain) - 1)
    domain = list(domain)
    expect, _ = brute_local(m, domain)
    rep = fxdp.audit(m, d_in="all")
    assert rep.d_in == "all" and rep.label == "local epsilon (all inputs)"
    assert rep.epsilon_realized == expect
    assert rep.epsilon_claimed == m.local_epsilon >= rep.epsilon_realized
    # the accounting input is exactly this worst case
    out = deployment(m, 10**4, audit=rep)
    assert out["epsilon0_used"] == expect == out["local_epsilon_realized"]
    assert out["local_epsilon_claimed"] == m.local_epsilon
    assert compose_epsilon(m, 3).basic == float_up(Fraction(m.local_epsilon) * 3)


def test_brute_force_rr_domain_includes_not_a_category():
    m = fxdp.make_randomized_response(["a", "b", "c"], "3/4")
    assert {x for p in m.audit_pairs() for x in p} == {0, 1, 2, 3}


def test_basic_rappor_brute_force():
    m = fxdp.make_rappor(f=0.5, m=1, k=3)
    q = m.flip_prob
    domain = [v for v in itertools.product((0, 1), repeat=3) if sum(v) <= 1]

    def pmf(x):
        out = {}
        for y in itertools.product((0, 1), repeat=3):
            pr = Fraction(1)
            for xi, yi in zip(x, y):
                pr *= (1 - q) if xi == yi else q
            out[y] = pr
        return out
    expect = ratio_eps(worst_over_all(domain, pmf)[0])
    assert fxdp.audit(m, d_in="all").epsilon_realized == expect <= m.local_epsilon == m.epsilon


def test_local_hashing_all_pairs_are_its_neighbours():
    # the exact output distribution (P (P - 1) g outputs) is too large to enumerate: its d_in = 1
    # audit already ranges over every pair of items (discrete metric), so the local one is it
    m = fxdp.make_local_hashing(d=5, epsilon=2)
    assert m.local_d_in == 1 and len(m.audit_pairs()) == 5 * 4
    a, b = fxdp.audit(m), fxdp.audit(m, d_in="all")
    assert a.epsilon_realized == b.epsilon_realized <= b.epsilon_claimed == m.local_epsilon == m.epsilon


def test_every_registered_kind_states_its_local_epsilon():
    from test_readme import kind_rows
    from fxdp.config import config_from_dict
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    seen = set()
    for kind, body in kind_rows():
        m = config_from_dict(tomllib.loads(f'[mechanism]\nkind = "{kind}"\n{body}\n')).mechanism
        d = m.local_d_in
        assert d == 1 or d >= 1 and isinstance(d, int) or d == math.inf, (kind, d)
        assert m.local_epsilon >= m.epsilon, kind
        seen.add(kind)
    assert seen == set(kinds())


# --------------------------------------------------------------------------
# the bounded geometric and the fixed-point Laplace family: the map at the domain's width

def test_geometric_local_epsilon_is_the_map_at_the_width_of_the_bounds():
    for ct in (False, True):
        m = fxdp.make_geometric(10, bounds=(10, 30), constant_time=ct)
        assert m.local_d_in == 20 and m.local_epsilon == m.privacy_map(20) == 2.0 and m.epsilon == 0.1
        rep = fxdp.audit(m, d_in="all")
        assert 1.99 < rep.epsilon_realized <= 2.0
        assert {rep.witness["x"], rep.witness["x_prime"]} == {10, 30}
    # and equals the pairwise enumeration at d_in = hi - lo (a different algorithm)
    m = fxdp.make_geometric(10, bounds=(10, 30), constant_time=True)
    assert fxdp.audit(m, d_in="all").epsilon_realized == fxdp.audit(m, d_in=20).epsilon_realized


def test_vector_geometric_local_epsilon_multiplies_over_coordinates():
    m = fxdp.make_geometric(3, bounds=(0, 5), constant_time=True, vector=True, dim=3)
    assert m.local_d_in == 15 and m.local_epsilon == m.privacy_map(15)
    scalar = fxdp.make_geometric(3, bounds=(0, 5), constant_time=True)
    r1 = fxdp.audit(scalar, d_in="all")
    r3 = fxdp.audit(m, d_in="all")
    ratio = worst_over_all(range(0, 6), scalar.table.output_pmf)[0]
    assert r1.epsilon_realized == ratio_eps(ratio)
    assert r3.epsilon_realized == ratio_eps(ratio ** 3) <= m.local_epsilon


@pytest.mark.parametrize("m", [fxdp.make_geometric(2), fxdp.make_geometric(2, vector=True),
                               fxdp.make_geometric(2, bounds=(0, 9), vector=True)], ids=repr)
def test_unbounded_inputs_have_no_local_epsilon_and_accounting_refuses_them(m):
    assert m.local_d_in == math.inf and m.local_epsilon == math.inf
    hint = "set dim" if m._args["bounds"] is not None else "set bounds"
    for call in (lambda: shuffled_epsilon(m, 10**4, 1e-8), lambda: compose_epsilon(m, 2),
                 lambda: deployment(m, 10**4), lambda: fxdp.audit(m, d_in="all")):
        with pytest.raises(ValueError, match="set bounds|set dim"):
            call()
    with pytest.raises(ValueError, match=hint):
        fxdp.audit(m, d_in="all")


def _finite_pmf_1d(m):
    from fxdp.mechanisms.finite.audit_finite import _Dist1D
    dist = _Dist1D(m)
    return lambda x: {y: Fraction(c, dist.total) for y, c in dist.pmf(x).items()}


@pytest.mark.parametrize("truncation", ["exception", "clamp"])
def test_laplace_fixed_audit_all_is_the_brute_force_over_every_raw_input(truncation):
    m = fxdp.make_laplace_fixed(1, bounds=(-2, 2), qformat="Q11.4", L="1/2", uniform_bits=16,
                                truncation=truncation)
    assert m.local_d_in == 4 and m.local_epsilon == m.privacy_map(4)
    ratio, _ = worst_over_all(range(m.lo, m.hi + 1), _finite_pmf_1d(m))
    rep = fxdp.audit(m, d_in="all")
    assert rep.epsilon_realized == ratio_eps(ratio)
    assert rep.epsilon_realized <= rep.epsilon_bound_tight <= rep.epsilon_bound_paper
    assert rep.epsilon_realized <= m.local_epsilon and rep.epsilon_ideal == 4.0
    assert rep.conditions["realized_le_tight_le_paper"]


def test_laplace_fixed_issue_config_local_is_the_map_at_16():
    m = fxdp.make_laplace_fixed(0.5, bounds=(-8, 8), qformat="Q15.16", L="1/4")
    assert m.local_d_in == 16 and m.local_epsilon == m.privacy_map(16) >= 8
    rep = fxdp.audit(m, d_in="all")
    assert 7.9 < rep.epsilon_realized <= m.local_epsilon
    assert deployment(m, 10**6, audit=rep)["epsilon0_used"] == rep.epsilon_realized


def test_planar_laplace_fixed_audit_all_is_the_brute_force():
    from fxdp.mechanisms.finite.audit_finite import _Dist2D
    m = fxdp.make_planar_laplace_fixed(1, bounds=(-1, 1), qformat="Q13.2", L=1, radius_bits=10,
                                       angle_bits=8)
    dist = _Dist2D(m)
    R = dist.R
    cells = dist.cells()
    exc = dist.exception()
    gs = range(m.lo, m.hi + 1, m.step)

    def pmf(x):
        out = {(gx, gy): Fraction(int(cells[gx - x[0] + R, gy - x[1] + R]), dist.total) for gx in gs for gy in gs}
        out[None] = Fraction(int(exc[x[0] - m.lo, x[1] - m.lo]), dist.total)
        return out
    domain = list(itertools.product(range(m.lo, m.hi + 1), repeat=2))
    ratio, _ = worst_over_all(domain, pmf)
    rep = fxdp.audit(m, d_in="all")
    assert m.local_d_in == 3                                  # ceil(sqrt(2) * 2)
    assert rep.epsilon_realized == ratio_eps(ratio) <= m.local_epsilon


def test_grid_laplace_local_epsilon_is_the_closed_form():
    m = fxdp.make_laplace_grid(0.5, bounds=(-8, 8), L="1/4")
    assert m.local_epsilon == fxdp.audit(m, d_in="all").epsilon_realized == 8.0 <= m.privacy_map(m.local_d_in)
    p = fxdp.make_planar_laplace_grid(0.5, bounds=(-8, 8), L="1/4")
    assert p.local_epsilon == fxdp.audit(p, d_in="all").epsilon_realized
    assert p.local_epsilon == float_up(Fraction(2 * 64 * p.s, p.t))


# --------------------------------------------------------------------------
# the figure a team signs

def test_the_demo_temperature_certifies_the_local_shuffled_epsilon(tmp_path):
    from fxdp import cli, demo
    cfg = tmp_path / "temperature.toml"
    cfg.write_text(demo.config_text(demo.TEMPERATURE, "cortex-m0plus", 10**6, 2026))
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli.main(["account", str(cfg), "--devices", "1000000", "--shuffled", "--json"])
    assert code == 0
    out = json.loads(buf.getvalue())
    assert out["local_d_in"] == 20 and out["local_epsilon_claimed"] == 2.0
    assert out["epsilon_claimed"] == 0.1                       # the d_in = 1 figure, shown, not used
    assert 1.99 < out["epsilon0_used"] <= 2.0
    assert out["shuffled"]["certified"] >= 0.01756             # not 0.000355 (the d_in = 1 figure)
    assert shuffled_epsilon(demo_mechanism(), 10**6, 1e-8).certified >= 0.01756
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert cli.main(["account", str(cfg), "--devices", "1000000", "--shuffled"]) == 0
    text = buf.getvalue()
    assert "local epsilon (all inputs), claimed" in text and "epsilon (d_in = 1), claimed" in text


def demo_mechanism():
    return fxdp.make_geometric(10, bounds=(10, 30), constant_time=True)


def test_shuffled_epsilon_of_a_mechanism_takes_its_local_epsilon():
    m = demo_mechanism()
    s = shuffled_epsilon(m, 10**6, 1e-8)
    assert s.epsilon0 == 2.0 and "local_epsilon" in s.epsilon0_source and "d_in = 20" in s.epsilon0_source
    assert s.certified == shuffled_epsilon(2.0, 10**6, 1e-8).certified


def test_deployment_refuses_an_audit_at_d_in_1():
    m = demo_mechanism()
    with pytest.raises(ValueError, match="d_in='all'"):
        deployment(m, 10**6, audit=fxdp.audit(m))


def test_cli_account_refuses_an_integer_d_in_and_audit_takes_all(tmp_path, capsys):
    from fxdp import cli
    cfg = tmp_path / "t.toml"
    cfg.write_text('[mechanism]\nkind = "geometric"\nscale = 10\nbounds = [10, 30]\n')
    assert cli.main(["account", str(cfg), "--devices", "100", "--d-in", "1"]) == 2
    assert "--d-in all" in capsys.readouterr().err
    assert cli.main(["audit", str(cfg), "--d-in", "all", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["d_in"] == "all" and d["epsilon_label"] == "local epsilon (all inputs)" and d["epsilon_claimed"] == 2.0
    assert cli.main(["audit", str(cfg), "--d-in", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["d_in"] == 3 and d["epsilon_label"] == "epsilon (d_in = 3)"
    assert cli.main(["audit", str(cfg), "--d-in", "x"]) == 2
    assert "--d-in must be an integer >= 1 or 'all'" in capsys.readouterr().err
    assert cli.main(["audit", str(cfg)]) == 0
    text = capsys.readouterr().out
    assert "epsilon (d_in = 1)" in text and "local epsilon (all inputs, d_in = 20) claimed 2.0" in text


def test_audit_d_in_validation():
    m = demo_mechanism()
    for bad in ("some", 0, -1, 1.5, None):
        with pytest.raises((ValueError, TypeError), match="d_in"):
            fxdp.audit(m, d_in=bad)


def test_plot_account_uses_the_local_epsilon():
    from fxdp.plots import account_curve
    ac = account_curve(demo_mechanism(), sizes=[10**4, 10**6])
    assert 1.99 < ac.epsilon0[1] <= 2.0


def test_the_accounting_module_never_reads_the_d_in_1_epsilon_of_a_mechanism():
    # the bug of issue 28 was `m.epsilon` in fxdp/accounting.py: only the local figure may enter
    import ast
    from pathlib import Path
    tree = ast.parse((Path(fxdp.__file__).parent / "accounting.py").read_text())
    reads = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "epsilon"]
    assert reads == []
