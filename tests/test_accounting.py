"""Deployment accounting (fxdp.accounting): the certified FMT 2021 shuffling bound against an
independent scipy computation of the same bound, the authors' published example, monotonicity,
the closed form, the reverse search fed forward, KOV composition, and bad input."""
import json
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, logsumexp

import fxdp
from fxdp import _certified as cf
from fxdp.accounting import compose_epsilon, deployment, local_epsilon_for, shuffled_delta, shuffled_epsilon
from fxdp.cli import main
from fxdp.conservative import exp_interval


# --------------------------------------------------------------------------
# an independent float computation of the FMT bound (scipy, every c summed, no blocks)

_PC = {}


def _clone_counts(eps0, n):
    """(c, Pr[C = c]) for C ~ Bin(n-1, e^-eps0), where Pr[C = c] > 1e-30 (cached)."""
    if (eps0, n) not in _PC:
        p = math.exp(-eps0)
        sd = math.sqrt(n * p * (1 - p)) + 1
        c = np.arange(max(0, int((n - 1) * p - 14 * sd)), min(n - 1, int((n - 1) * p + 14 * sd)) + 1)
        pc = stats.binom.pmf(c, n - 1, p)
        _PC[eps0, n] = (c[pc > 1e-30], pc[pc > 1e-30])
    return _PC[eps0, n]


def ref_delta(eps0, n, eps):
    """D_{e^eps}(P || Q) of FMT 2021 Thm 3.2 summed over every c with Pr[C = c] > 1e-30."""
    E0, x = math.exp(eps0), math.exp(eps)
    if x >= E0:
        return 0.0
    c, pc = _clone_counts(eps0, n)
    beta = (x * E0 - 1) / ((x + 1) * (E0 - 1))
    k1 = (E0 - x) / (1 + E0)
    t = np.floor((c + 1) * beta) + 1
    # sum_{a >= t} P_c(a) - x Q_c(a) = k1 Pr[B = t-1] + (1 - x) Pr[B >= t], B ~ Bin(c, 1/2)
    f = k1 * stats.binom.pmf(t - 1, c, 0.5) + (1 - x) * stats.binom.sf(t - 1, c, 0.5)
    f = np.where(t > c + 1, 0.0, np.maximum(f, 0.0))
    return float(np.sum(pc * f))


def ref_epsilon(eps0, n, delta):
    lo, hi = 0.0, float(eps0)
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if ref_delta(eps0, n, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


CASES = [(4, 10**5, 1e-6), (1, 10**4, 1e-8), (2, 10**4, 1e-8), (0.5, 1000, 1e-6), (3, 50, 0.1),
         (2, 10**6, 1e-8), (6, 10**5, 1e-7)]


@pytest.mark.parametrize("eps0,n,delta", CASES)
def test_certified_is_above_and_within_one_percent_of_the_float_bound(eps0, n, delta):
    r = shuffled_epsilon(eps0, n, delta)
    ref = ref_epsilon(eps0, n, delta)
    assert r.certified >= ref                       # never below the bound
    assert r.certified <= 1.01 * ref                # and close to it
    assert r.certified >= r.float_estimate
    assert abs(r.float_estimate / ref - 1) < 0.01
    assert r.certified < eps0


@pytest.mark.parametrize("eps0,n,delta", [(1, 10**4, 1e-8), (4, 10**5, 1e-6)])
def test_the_certificate_holds_at_the_answer_and_is_tight(eps0, n, delta):
    r = shuffled_epsilon(eps0, n, delta)
    assert shuffled_delta(eps0, n, r.certified, layout_delta=delta) <= Fraction(delta)
    # a little below the answer the certified delta (and the true one) exceed the target
    assert shuffled_delta(eps0, n, r.certified * 0.995, layout_delta=delta) > Fraction(delta)
    assert ref_delta(eps0, n, r.certified * 0.995) > delta


def test_reproduces_the_published_example_of_fmt():
    """apple/ml-shuffling-amplification README (example.py): n = 10^5, eps0 = 4, delta = 1e-6:
    'eps between 0.1675385583317841 and 0.172790550755978'; closed form 0.5378040242374512."""
    r = shuffled_epsilon(4, 10**5, 1e-6)
    assert 0.1675385583317841 <= r.certified <= 0.172790550755978
    assert r.closed_form >= 0.5378040242374512
    assert r.closed_form <= math.nextafter(0.5378040242374512, 1) * (1 + 1e-15)
    assert "valid" in r.closed_form_regime and "not valid" not in r.closed_form_regime


def test_monotone_in_n_and_in_epsilon0():
    by_n = [shuffled_epsilon(2, n, 1e-8).certified for n in (10**3, 10**4, 10**5, 10**6, 10**8)]
    assert all(a > b for a, b in zip(by_n, by_n[1:]))
    by_e = [shuffled_epsilon(e, 10**5, 1e-8).certified for e in (0.25, 0.5, 1, 2, 4, 6)]
    assert all(a < b for a, b in zip(by_e, by_e[1:]))
    by_d = [shuffled_epsilon(1, 10**5, d).certified for d in (1e-4, 1e-6, 1e-9, 1e-12)]
    assert all(a < b for a, b in zip(by_d, by_d[1:]))


def test_at_most_the_closed_form_where_it_applies_and_none_outside():
    seen = 0
    for eps0 in (0.5, 1, 2, 4, 8):
        for n in (10**3, 10**5, 10**7, 10**9):
            try:
                r = shuffled_epsilon(eps0, n, 1e-8)
            except ValueError:
                continue
            if r.closed_form is not None:
                seen += 1
                assert r.certified <= r.closed_form
            else:
                assert "not valid" in r.closed_form_regime
    assert seen >= 12
    r = shuffled_epsilon(4, 1000, 1e-6)            # ln(1000 / (16 ln 4e6)) < 4: outside
    assert r.closed_form is None and "epsilon0 <= ln(n / (16 ln(4/delta)))" in r.closed_form_regime


def test_a_billion_devices_is_fast_and_consistent():
    r = shuffled_epsilon(1, 10**9, 1e-8)
    assert r.seconds < 10
    r8 = shuffled_epsilon(1, 10**8, 1e-8)
    assert r.certified < r8.certified < 4 * r.certified        # ~ 1/sqrt(n)
    assert r.certified <= r.closed_form


def test_a_mechanism_feeds_its_realized_epsilon():
    m = fxdp.make_randomized_response_bool(0.75)
    a, b = shuffled_epsilon(m, 10**5, 1e-8), shuffled_epsilon(m.epsilon, 10**5, 1e-8)
    assert a.certified == b.certified and a.epsilon0 == m.epsilon >= math.log(3)
    assert "randomized_response_bool" in a.epsilon0_source


# --------------------------------------------------------------------------
# the reverse

def test_local_epsilon_for_fed_forward_meets_the_target_and_is_near_maximal():
    b = local_epsilon_for(0.5, 1e-8, 10**5)
    assert shuffled_epsilon(b.epsilon0, 10**5, 1e-8).certified <= 0.5
    assert shuffled_epsilon(b.epsilon0 * 1.01, 10**5, 1e-8).float_estimate > 0.5


def test_local_epsilon_for_a_mechanism_factory_returns_a_realizable_mechanism():
    def rr(e):
        return fxdp.make_randomized_response_bool(math.exp(e) / (1 + math.exp(e)), bits=16)
    b = local_epsilon_for(0.1, 1e-8, 10**6, rr)
    m = b.mechanism
    assert m.kind == "randomized_response_bool" and b.epsilon0_realized == m.epsilon <= b.epsilon0
    assert shuffled_epsilon(m, 10**6, 1e-8).certified <= 0.1
    assert b.epsilon0_realized > 0.98 * b.epsilon0                 # the search found a near-best one
    # the bounded geometric: its local epsilon is the map at the width of the bounds (20 / scale)
    b2 = local_epsilon_for(0.1, 1e-8, 10**6,
                           lambda e: fxdp.make_geometric(Fraction(20) / Fraction(e), bounds=(10, 30)))
    assert b2.mechanism.local_epsilon <= b2.epsilon0 < 2 * b2.mechanism.local_epsilon
    assert b2.mechanism.epsilon < b2.mechanism.local_epsilon / 19      # d_in = 1 is not what counts
    assert shuffled_epsilon(b2.mechanism, 10**6, 1e-8).certified <= 0.1
    assert float(b2) == b2.epsilon0


def test_local_epsilon_for_refuses_a_factory_without_bounds():
    with pytest.raises(ValueError, match="set bounds"):
        local_epsilon_for(0.1, 1e-8, 10**6, lambda e: fxdp.make_geometric(Fraction(1) / Fraction(e)))


# --------------------------------------------------------------------------
# repeated reports

def kov_ref_delta(eps0, k, eps):
    l = np.arange(k + 1)
    logc = gammaln(k + 1) - gammaln(l + 1) - gammaln(k - l + 1)
    pos = (k - l) * eps0 > eps + l * eps0
    if not pos.any():
        return 0.0
    lp = l[pos]
    terms = logc[pos] + (k - lp) * eps0 + np.log1p(-np.exp(eps + lp * eps0 - (k - lp) * eps0))
    return float(np.exp(logsumexp(terms) - k * np.log1p(math.exp(eps0))))


@pytest.mark.parametrize("eps0,k,delta", [(1.0, 10, 1e-5), (0.1, 100, 1e-6), (0.5, 365, 1e-8), (2.0, 3, 0.01)])
def test_kov_optimal_composition_matches_a_float_reference(eps0, k, delta):
    c = compose_epsilon(eps0, k, delta)
    assert c.basic == k * eps0 or c.basic == math.nextafter(k * eps0, math.inf)
    assert c.optimal <= c.basic and c.best == min(c.basic, c.advanced, c.optimal)
    # the certified optimum meets delta in the float reference, and a bit below it does not
    assert kov_ref_delta(eps0, k, c.optimal) <= delta * (1 + 1e-9)
    if c.optimal > 0:
        assert kov_ref_delta(eps0, k, c.optimal * (1 - 1e-6) - 1e-12) > delta


def test_kov_beats_basic_for_many_rounds_and_advanced_applies():
    c = compose_epsilon(0.1, 1000, 1e-6)
    assert c.optimal < 0.6 * c.basic and c.advanced < c.basic
    assert compose_epsilon(0.1, 2000, 1e-6).optimal is None          # past MAX_KOV_ROUNDS: said so
    assert "not computed" in compose_epsilon(0.1, 2000, 1e-6).regime["optimal"]


def test_memoized_mechanism_is_capped_by_epsilon_infinite():
    m = fxdp.make_rappor_full(k=32, h=2, cohorts=8, f=0.5, p=0.25, q=0.75)
    c = compose_epsilon(m, 100, 1e-8)
    assert c.memoized == m.epsilon_infinite and c.best == m.epsilon_infinite < c.basic
    c1 = compose_epsilon(fxdp.make_randomized_response_bool(0.75), 100, 1e-8)
    assert c1.memoized is None


def test_deployment_shuffled_rounds_and_memoized():
    m = fxdp.make_randomized_response_bool(0.75)
    out = deployment(m, 10**6, rounds=30, delta=1e-8, shuffled=True, audit=fxdp.audit(m, d_in="all"))
    assert out["shuffled"]["certified"] < out["central_budget"]["best"] < out["local_budget"]["best"]
    assert out["central_budget"]["per_round_delta"] == 1e-8 / 60
    rf = fxdp.make_rappor_full(k=32, h=2, cohorts=8, f=0.5, p=0.25, q=0.75)
    out = deployment(rf, 10**5, rounds=50, delta=1e-8, shuffled=True)
    assert out["central_budget"]["best"] == rf.epsilon_infinite
    assert "do not compose" in out["central_budget"]["regime"]


# --------------------------------------------------------------------------
# bad input: a ValueError naming the parameter and the regime, never a fallback to epsilon0

@pytest.mark.parametrize("call,match", [
    (lambda: shuffled_epsilon(0, 100, 1e-6), "epsilon0 must be > 0"),
    (lambda: shuffled_epsilon(-1, 100, 1e-6), "epsilon0 must be > 0"),
    (lambda: shuffled_epsilon(math.nan, 100, 1e-6), "epsilon0"),
    (lambda: shuffled_epsilon("1", 100, 1e-6), "epsilon0 must be a number"),
    (lambda: shuffled_epsilon(1, 1, 1e-6), "n must be"),
    (lambda: shuffled_epsilon(1, 2.5, 1e-6), "n must be an integer"),
    (lambda: shuffled_epsilon(1, 100, 0), r"delta must be in \(0, 1\)"),
    (lambda: shuffled_epsilon(1, 100, 1), r"delta must be in \(0, 1\)"),
    (lambda: shuffled_epsilon(1, 100, math.inf), "delta"),
    (lambda: shuffled_epsilon(8, 10**4, 1e-8), "no amplification.*regime"),
    (lambda: shuffled_epsilon(math.inf, 100, 1e-6), "infinite.*regime"),
    (lambda: compose_epsilon(1, 0), "rounds must be"),
    (lambda: compose_epsilon(1, 5, 1.5), "delta must be in"),
    (lambda: compose_epsilon(0, 5), "epsilon0 must be > 0"),
    (lambda: local_epsilon_for(0, 1e-8, 100), "epsilon must be a number > 0"),
    (lambda: local_epsilon_for(1, 1e-8, 1), "n must be"),
    (lambda: local_epsilon_for(0.1, 1e-8, 100, mechanism=3), "mechanism must be"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_an_unbounded_mechanism_is_refused():
    m = fxdp.make_geometric(0, bounds=(0, 3))           # no noise: epsilon = inf
    with pytest.raises(ValueError, match="local epsilon inf.*no finite privacy guarantee"):
        shuffled_epsilon(m, 10**5, 1e-8)
    with pytest.raises(ValueError, match="local epsilon inf"):
        compose_epsilon(m, 3, 1e-8)
    with pytest.raises(ValueError, match="infinite.*regime"):     # a number given by hand
        shuffled_epsilon(math.inf, 10**5, 1e-8)


# --------------------------------------------------------------------------
# the certified primitives

def test_certified_enclosures_of_ln_and_exp():
    rng = random.Random(7)
    for _ in range(40):
        x = Fraction(rng.randint(1, 10**15), rng.randint(1, 10**9))
        lo, hi = cf.ln_frac_iv(x)
        assert exp_interval(Fraction(lo, cf.ONE))[1] <= x <= exp_interval(Fraction(hi, cf.ONE))[0]
        assert hi - lo < 2**-100 * cf.ONE
        q = Fraction(rng.randint(-40 * 10**6, 40 * 10**6), 10**6)
        a, b = cf.exp_frac_iv(q)
        el, eh = exp_interval(q)
        assert a <= eh and b >= el and a <= b and (b - a) / a < Fraction(1, 2**100)
    for k in (2, 10, 1999, 2000, 2001, 10**6, 10**9):
        lo, hi = cf.ln_factorial_iv(k)
        assert Fraction(lo, cf.ONE) <= Fraction(math.lgamma(k + 1)) * (1 + Fraction(1, 10**12))
        assert abs(float(Fraction(lo, cf.ONE)) - math.lgamma(k + 1)) <= 1e-9 * math.lgamma(k + 1)
    lo, hi = cf.ln_factorial_iv(30)
    assert exp_interval(Fraction(lo, cf.ONE))[1] <= math.factorial(30) <= exp_interval(Fraction(hi, cf.ONE))[0]


# --------------------------------------------------------------------------
# command line

def test_cli_account_json_keys(capsys, tmp_path):
    p = tmp_path / "rr.toml"
    p.write_text('[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\n')
    code = main(["account", str(p), "--devices", "1000000", "--rounds", "10", "--shuffled", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    d = json.loads(out)
    assert {"mechanism", "devices", "rounds", "delta", "epsilon_claimed", "epsilon_realized", "epsilon0_used",
            "local_budget", "shuffled", "central_budget", "seconds", "local_d_in", "local_epsilon_claimed",
            "local_epsilon_realized", "epsilon0_source"} <= set(d)
    assert d["local_d_in"] == 1 and d["epsilon0_used"] == d["local_epsilon_realized"] == d["epsilon_realized"]
    assert {"basic", "advanced", "optimal", "memoized", "best", "regime"} <= set(d["local_budget"])
    assert {"certified", "float_estimate", "closed_form", "regime", "closed_form_regime", "method"} <= set(d["shuffled"])
    assert {"per_round", "per_round_delta", "best", "regime"} <= set(d["central_budget"])
    assert d["epsilon_realized"] <= d["epsilon_claimed"]
    assert d["shuffled"]["certified"] == shuffled_epsilon(d["epsilon0_used"], 10**6, 1e-8).certified
    code = main(["account", str(p), "--devices", "100"])
    text = capsys.readouterr().out
    assert code == 0 and "local epsilon (all inputs), realized" in text and "shuffled" not in text
    assert "epsilon (d_in = 1)" not in text           # randomized response: d_in = 1 covers every pair
    code = main(["account", str(p), "--devices", "1"])
    assert code == 2 and "devices must be" in capsys.readouterr().err
    code = main(["account", str(p), "--devices", "100", "--delta", "2"])
    assert code == 2 and "delta must be in (0, 1)" in capsys.readouterr().err


def test_plot_account_data_and_figure(tmp_path):
    from fxdp import plots
    m = fxdp.make_randomized_response_bool(0.75)
    ac = plots.plot_account(m, path=tmp_path / "a.png", sizes=[10**3, 10**5, 10**7])
    assert (tmp_path / "a.png").stat().st_size > 1000
    assert ac.epsilon0[1] == fxdp.audit(m).epsilon_realized and ac.epsilon0[0] < ac.epsilon0[1] < ac.epsilon0[2]
    for row in ac.central:
        vals = [v for v in row if not math.isnan(v)]
        assert all(a > b for a, b in zip(vals, vals[1:]))
    assert ac.central[0][-1] < ac.central[1][-1] < ac.central[2][-1]
