"""Issue 15, item 3: every rational parameter of every make_* constructor takes an exact
rational string ("3/4", "0.75", "1e-3") in Python as in TOML, parsed exactly (never via a
float) by one parser, fxdp.validate.parse_rational; the realized mechanism equals the one
built from the equal Fraction, and a bad string is a ValueError naming the parameter and
its allowed range."""
from __future__ import annotations

import math
import re
import tomllib
from fractions import Fraction as F

import pytest

import fxdp
from fxdp.config import config_from_dict, constructors, dumps, mechanism_from_table, mechanism_to_table
from fxdp.validate import check_rational, parse_rational

BOUNDS = (F(-8), F(8))

# (kind, keyword arguments with Fractions, the rational parameters) for every constructor
CASES = [
    ("geometric", dict(scale=F(5, 2), bounds=(0, 10)), ["scale"]),
    ("geometric", dict(scale=F(5, 2), bounds=(0, 10), constant_time=True), ["scale"]),
    ("randomized_response_bool", dict(prob=F(3, 4)), ["prob"]),
    ("randomized_response", dict(categories=["a", "b", "c"], prob=F(2, 3)), ["prob"]),
    ("rappor", dict(f=F(1, 2), m=1, k=4), ["f"]),
    ("rappor_full", dict(k=16, h=2, cohorts=2, f=F(1, 2), p=F(1, 4), q=F(3, 4)), ["f", "p", "q"]),
    ("longitudinal_grr", dict(d=5, epsilon_perm=F(5, 2), epsilon_1=F(3, 4)), ["epsilon_perm", "epsilon_1"]),
    ("longitudinal_ue", dict(d=5, epsilon_perm=F(5, 2), epsilon_1=F(3, 4), constant_time=True),
     ["epsilon_perm", "epsilon_1"]),
    ("dbitflip", dict(d=12, buckets=4, epsilon=F(5, 2), sampled_buckets=2), ["epsilon"]),
    ("laplace_fixed", dict(epsilon=F(1, 2), bounds=BOUNDS, sensitivity=F(1, 2), L=F(1, 4)),
     ["epsilon", "bounds", "sensitivity", "L"]),
    ("naive_laplace_fixed", dict(epsilon=F(1, 2), sensitivity=F(1), bounds=(F(-4), F(4))),
     ["epsilon", "sensitivity", "bounds"]),
    ("planar_laplace_fixed", dict(epsilon=F(1, 2), bounds=(F(-2), F(2)), sensitivity=F(1, 2), L=F(1, 2)),
     ["epsilon", "bounds", "sensitivity", "L"]),
    ("laplace_grid", dict(epsilon=F(1, 2), bounds=BOUNDS, sensitivity=F(1, 2), L=F(1, 4)),
     ["epsilon", "bounds", "sensitivity", "L"]),
    ("planar_laplace_grid", dict(epsilon=F(1, 2), bounds=BOUNDS, sensitivity=F(1, 2), L=F(1, 4)),
     ["epsilon", "bounds", "sensitivity", "L"]),
]
IDS = [f"{kind}-{i}" for i, (kind, _, _) in enumerate(CASES)]


def _fingerprint(m):
    """Everything the device and the host use: realized parameters, epsilon, config, repr,
    the Numba/C parameter block and the C configuration."""
    out = {"realized": m.realized(), "epsilon": m.epsilon, "config": m.config(), "repr": repr(m)}
    if hasattr(m, "kernel_params"):
        out["kernel"] = [v.tolist() if hasattr(v, "tolist") else v for v in m.kernel_params()]
    if m.kind != "naive_laplace_fixed":
        spec = m.device_spec()
        out["device"] = spec if isinstance(spec, dict) else (spec.c_function, spec.cfg_init, spec.tables)
    return out


def _terminates(q):
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _as_text(v, style):
    if isinstance(v, F):
        if style == "slash" or v.denominator == 1 or not _terminates(v):
            return str(v)
        text = repr(float(v))                 # a terminating decimal: exact as text
        assert F(text) == v
        return text
    if isinstance(v, tuple):
        return tuple(_as_text(x, style) for x in v)
    return v


@pytest.mark.parametrize("kind, kwargs, params", CASES, ids=IDS)
@pytest.mark.parametrize("style", ["slash", "decimal"])
def test_python_strings_realize_as_the_equal_fraction(kind, kwargs, params, style):
    make = constructors()[kind]
    ref = _fingerprint(make(**kwargs))
    for p in params:                       # one parameter as a string at a time, then all
        m = make(**{**kwargs, p: _as_text(kwargs[p], style)})
        assert _fingerprint(m) == ref, p
    m = make(**{**kwargs, **{p: _as_text(kwargs[p], style) for p in params}})
    assert _fingerprint(m) == ref


@pytest.mark.parametrize("kind, kwargs, params", CASES, ids=IDS)
def test_toml_strings_realize_as_python(kind, kwargs, params):
    make = constructors()[kind]
    ref = _fingerprint(make(**kwargs))
    table = {"kind": kind, **{k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()}}
    for p in params:
        v = kwargs[p]
        table[p] = [str(x) for x in v] if isinstance(v, tuple) else str(v)
    text = "[mechanism]\n" + "\n".join(
        f"{k} = {_toml(v)}" for k, v in table.items())
    m = config_from_dict(tomllib.loads(text)).mechanism
    assert _fingerprint(m) == ref
    # and back: dumps writes exact strings that load to the same mechanism
    m2 = config_from_dict(tomllib.loads(dumps(m))).mechanism
    assert _fingerprint(m2) == ref


def _toml(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return str(v)


@pytest.mark.parametrize("kind, kwargs, params", CASES, ids=IDS)
@pytest.mark.parametrize("bad", ["abc", "1/0", "inf", "nan", "0x10", "3/4/5", "", "1e"])
def test_bad_strings_name_the_parameter_and_range(kind, kwargs, params, bad):
    make = constructors()[kind]
    for p in params:
        v = (bad, kwargs[p][1]) if isinstance(kwargs[p], tuple) else bad
        name = "bounds[0]" if p == "bounds" else p
        with pytest.raises(ValueError, match=rf"{re.escape(name)}.* must be a number.*got {re.escape(repr(bad))}"):
            make(**{**kwargs, p: v})
        with pytest.raises(ValueError, match=rf"config: \[mechanism\] {re.escape(name)}"):
            mechanism_from_table({"kind": kind, **kwargs, p: list(v) if isinstance(v, tuple) else v})


def test_out_of_range_strings_name_the_range():
    with pytest.raises(ValueError, match=r"prob must be in \[1/2, 1\), got '1/3'"):
        fxdp.make_randomized_response_bool("1/3")
    with pytest.raises(ValueError, match=r"L must be in \(0, inf\), got '-1/4'"):
        fxdp.make_laplace_fixed(0.5, bounds=(-8, 8), L="-1/4")
    with pytest.raises(ValueError, match=r"f must be in \(0, 1\], got '0'"):
        fxdp.make_rappor("0", 1, 4)
    with pytest.raises(ValueError, match=r"scale must be in \[0, inf\), got '-5/2'"):
        fxdp.make_geometric("-5/2")


def test_issue_example_and_exactness():
    # the issue's example: L="1/4" is the Fraction 1/4
    m = fxdp.make_laplace_fixed(0.5, bounds=(-8, 8), L="1/4")
    assert m.L == F(1, 4) and m.config()["L"] == F(1, 4)
    # decimals are exact, not floats: at 63 bits "0.6" realizes 3/5, the float 0.6 does not
    a_str = fxdp.make_randomized_response_bool("0.6", bits=63).a
    assert a_str == math.floor(F(3, 5) * (1 << 63)) == fxdp.make_randomized_response_bool(F(3, 5), bits=63).a
    assert fxdp.make_randomized_response_bool(0.6, bits=63).a != a_str
    # config() records the Fraction a string denotes (as a TOML load always did)
    assert fxdp.make_randomized_response(["a", "b"], prob="3/4").config()["prob"] == F(3, 4)
    assert repr(fxdp.make_geometric("5/2")) == repr(fxdp.make_geometric(F(5, 2)))


def test_parser_grammar():
    ok = {"3/4": F(3, 4), " -3 / 4 ": F(-3, 4), "+2": F(2), "0.75": F(3, 4), ".5": F(1, 2), "5.": F(5),
          "1e-3": F(1, 1000), "2.5E+2": F(250), "0.1": F(1, 10), "-0": F(0)}
    for text, q in ok.items():
        assert parse_rational("x", text) == q and check_rational("x", text) == q
    for text in ["inf", "-inf", "nan", "1/0", "1_000", "\u0663/4", "1e1000", "3/-4", "1/2.5", "0b1"]:
        with pytest.raises(ValueError, match="x must be a number"):
            parse_rational("x", text)
    # non-strings keep their behaviour
    assert check_rational("x", 0.5) == F(1, 2) and check_rational("x", 3) == F(3)
    with pytest.raises(ValueError, match="x must be finite"):
        check_rational("x", math.inf)
    with pytest.raises(ValueError, match="x must be a number"):
        check_rational("x", True)


def test_toml_siblings():
    # a hash_key of decimal digits in TOML stays a string (it was read as a number before)
    digits = "00112233445566778899001122334455"
    m = mechanism_from_table({"kind": "rappor_full", "k": 16, "h": 2, "cohorts": 1, "f": "1/2",
                              "p": 0, "q": 1, "hash_key": digits})
    assert m.hash_key == bytes.fromhex(digits)
    # Fractions inside lists are written to TOML as exact strings (dumps raised before)
    m = fxdp.make_laplace_fixed(1, bounds=(F(-1, 2), F(1, 2)), L=F(1, 4))
    assert mechanism_to_table(m)["bounds"] == ["-1/2", "1/2"]
    m2 = config_from_dict(tomllib.loads(dumps(m))).mechanism
    assert m2.kernel_params() == m.kernel_params()
    # numeric category names keep reading as numbers (they match numeric command-line inputs)
    m = mechanism_from_table({"kind": "randomized_response", "categories": ["1", "2"], "prob": "3/4"})
    assert m.categories == [1, 2]
    m3 = config_from_dict(tomllib.loads(dumps(m))).mechanism
    assert m3.categories == [1, 2] and m3.config() == m.config()


def test_bounded_laplace_table_takes_strings():
    from fxdp.samplers.bounded import make_bounded_laplace_table
    assert (make_bounded_laplace_table("5/2", (0, 4), k=12).thresholds
            == make_bounded_laplace_table(F(5, 2), (0, 4), k=12).thresholds)

