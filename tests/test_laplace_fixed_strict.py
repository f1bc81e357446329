"""Issue 32, item 4: strict=True for the fixed-point Laplace family (make_laplace_fixed,
make_planar_laplace_fixed, make_laplace_grid, make_planar_laplace_grid), Python and TOML, as
make_geometric's strict (issue 15, tests/test_geometric_strict.py): an input outside the box
[m, M] is a ValueError naming it and the bounds, in m(x), m.release and m.simulate, instead of
being clamped.  Releases of in-range inputs, the bits, the device form and every existing repr
and config are unchanged."""
from __future__ import annotations

import tomllib
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source
from fxdp.config import config_from_dict, dumps, mechanism_from_table, mechanism_to_table

FAMILY = [
    ("laplace_fixed", lambda **kw: fxdp.make_laplace_fixed(1, (-4, 4), qformat="Q9.6", **kw), False),
    ("laplace_fixed_clamp", lambda **kw: fxdp.make_laplace_fixed(1, (-4, 4), qformat="Q9.6", truncation="clamp",
                                                                 **kw), False),
    ("planar_laplace_fixed", lambda **kw: fxdp.make_planar_laplace_fixed(Fraction(1, 4), (-4, 4), L=1, qformat="Q11.4",
                                                                         radius_bits=12, angle_bits=8, **kw), True),
    ("laplace_grid", lambda **kw: fxdp.make_laplace_grid(1, (-4, 4), qformat="Q9.6", **kw), False),
    ("planar_laplace_grid", lambda **kw: fxdp.make_planar_laplace_grid(1, (-4, 4), qformat="Q9.6", **kw), True),
]
IDS = [f[0] for f in FAMILY]


def _inp(planar, v, other=0):
    return (v, other) if planar else v


@pytest.mark.parametrize("name,make,planar", FAMILY, ids=IDS)
def test_default_still_clamps_and_config_unchanged(name, make, planar):
    m = make()
    assert m.strict is False
    assert "strict" not in m.config() and "strict" not in repr(m) and "strict" not in dumps(m)
    assert m(_inp(planar, 1000), ChaCha20Source(1)) == m(_inp(planar, 4), ChaCha20Source(1))


@pytest.mark.parametrize("name,make,planar", FAMILY, ids=IDS)
def test_strict_refuses_out_of_box(name, make, planar):
    s, m = make(strict=True), make()
    assert s.config() == {**m.config(), "strict": True}
    assert repr(s) == repr(m)[:-1] + ", strict=True)"
    for bad in (4.5, -5, 1000, 10**9, 2.0**80):
        with pytest.raises(ValueError, match=r"outside bounds \[-4, 4\]"):
            s(_inp(planar, bad))
        with pytest.raises(ValueError, match=r"outside bounds"):
            s.release(ChaCha20Source(1), _inp(planar, bad))
        if planar:
            with pytest.raises(ValueError, match=r"x\[1\] = .* is outside bounds"):
                s((0, bad))
    for ok in (-4, 0, 3.99, 4):                        # in range: the same release, bit for bit
        assert s(_inp(planar, ok), ChaCha20Source(5)) == m(_inp(planar, ok), ChaCha20Source(5))
    with pytest.raises(ValueError, match="must be a number"):
        s(_inp(planar, "abc"))
    with pytest.raises(ValueError, match="strict must be a bool"):
        make(strict=1)
    assert s.device_spec() == m.device_spec()


@pytest.mark.parametrize("name,make,planar", FAMILY, ids=IDS)
def test_strict_simulate(name, make, planar):
    s, m = make(strict=True), make()
    lo, hi = s.lo, s.hi
    good = np.array([[lo, hi], [0, 1]] if planar else [lo, 0, hi], np.int64)
    assert np.array_equal(s.simulate(good, 3), m.simulate(good, 3))
    bad = np.array([[0, 0], [lo, hi + 1]] if planar else [0, hi + 1, 0], np.int64)
    with pytest.raises(ValueError, match=r"values\[1\] .* is outside the raw box"):
        s.simulate(bad, 3)
    m.simulate(bad, 3)                                  # clamps


@pytest.mark.parametrize("name,make,planar", FAMILY, ids=IDS)
def test_strict_toml(name, make, planar):
    s, m = make(strict=True), make()
    assert config_from_dict(tomllib.loads(dumps(s))).mechanism.config() == s.config()
    assert mechanism_from_table({**mechanism_to_table(m), "strict": True}).strict is True
    assert mechanism_from_table({**mechanism_to_table(m), "strict": False}).config() == m.config()
    text = dumps(m).replace("[mechanism]\n", "[mechanism]\nstrict = true\n", 1)
    t = config_from_dict(tomllib.loads(text)).mechanism
    assert t.strict is True
    with pytest.raises(ValueError, match="outside bounds"):
        t(_inp(planar, 99))
