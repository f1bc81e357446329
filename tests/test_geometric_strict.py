"""Issue 15, item 5: the bounded geometric clamps inputs outside its bounds (documented);
strict=True refuses them in m(x) and m.simulate with a ValueError naming the input, the
value (and index) and the bounds.  Host-side only: releases, bit stream, C and every
existing repr/config are unchanged."""
from __future__ import annotations

import tomllib

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source
from fxdp.config import config_from_dict, dumps, mechanism_from_table, mechanism_to_table

FORMS = [dict(), dict(constant_time=True), dict(vector=True), dict(vector=True, dim=3)]


def test_default_clamps_silently_and_is_documented():
    m = fxdp.make_geometric(2.0, bounds=(0, 100))
    assert 90 <= m(1000, ChaCha20Source(1)) <= 100
    assert "clamped" in fxdp.make_geometric.__doc__ and "strict" in fxdp.make_geometric.__doc__
    assert m.strict is False


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_repr_config_unchanged_unless_strict(form):
    m = fxdp.make_geometric(2, bounds=(0, 9), **form)
    assert "strict" not in m.config() and "strict" not in repr(m) and "strict" not in dumps(m)
    s = fxdp.make_geometric(2, bounds=(0, 9), strict=True, **form)
    assert s.config() == {**m.config(), "strict": True}
    assert repr(s) == repr(m)[:-1] + ", strict=True)"
    # TOML round trip, and the key in a hand-written config
    assert config_from_dict(tomllib.loads(dumps(s))).mechanism.config() == s.config()
    assert mechanism_from_table({**mechanism_to_table(m), "strict": True}).strict is True
    assert mechanism_from_table({**mechanism_to_table(m), "strict": False}).config() == m.config()
    # the device form is the same
    dim = 3 if form.get("vector") else None
    assert s.device_spec(dim=dim) == m.device_spec(dim=dim)


def test_strict_scalar_call():
    s = fxdp.make_geometric(2, bounds=(0, 100), strict=True)
    for bad in (1000, 101, -1):
        with pytest.raises(ValueError, match=rf"x = {bad} is outside bounds \[0, 100\]"):
            s(bad)
    m = fxdp.make_geometric(2, bounds=(0, 100))
    for x in (0, 50, 100):                  # in range: the same release, bit for bit
        assert s(x, ChaCha20Source(7)) == m(x, ChaCha20Source(7))
    ct = fxdp.make_geometric(2, bounds=(0, 10), constant_time=True, strict=True)
    with pytest.raises(ValueError, match=r"x = 11 is outside bounds \[0, 10\]"):
        ct(11)
    # unbounded (int64 range): nothing is out of range
    assert isinstance(fxdp.make_geometric(2, strict=True)(2 ** 62, ChaCha20Source(1)), int)


def test_strict_vector_call():
    s = fxdp.make_geometric(1, bounds=(0, 9), vector=True, strict=True)
    with pytest.raises(ValueError, match=r"x\[2\] = 30 is outside bounds \[0, 9\]"):
        s([1, 2, 30])
    m = fxdp.make_geometric(1, bounds=(0, 9), vector=True)
    assert s([1, 2, 3], ChaCha20Source(3)) == m([1, 2, 3], ChaCha20Source(3))


def test_strict_simulate():
    s = fxdp.make_geometric(2, bounds=(0, 100), strict=True)
    m = fxdp.make_geometric(2, bounds=(0, 100))
    with pytest.raises(ValueError, match=r"values\[2\] = -3 is outside bounds \[0, 100\]"):
        s.simulate(np.array([5, 7, -3, 200]), seed=1)
    with pytest.raises(ValueError, match=r"values\[1\] = 200 is outside bounds"):
        s.simulate([5, 200], seed=1)
    vals = np.arange(0, 101)
    assert np.array_equal(s.simulate(vals, seed=5), m.simulate(vals, seed=5))
    # vector: row and element
    sv = fxdp.make_geometric(1, bounds=(0, 9), vector=True, dim=2, strict=True)
    with pytest.raises(ValueError, match=r"values\[1\]\[1\] = 40 is outside bounds \[0, 9\]"):
        sv.simulate([[1, 2], [3, 40]], seed=1)
    mv = fxdp.make_geometric(1, bounds=(0, 9), vector=True, dim=2)
    ok = [[1, 2], [3, 4], [0, 9]]
    assert np.array_equal(sv.simulate(ok, seed=2), mv.simulate(ok, seed=2))
    # the usual input errors come first, unchanged
    with pytest.raises(ValueError, match="must hold integers"):
        s.simulate([0.5, 1.5], seed=1)
    # without strict, out-of-range inputs are clamped as before
    assert m.simulate([1000], seed=1)[0] <= 100


def test_strict_must_be_bool():
    with pytest.raises(ValueError, match="strict must be a bool, got 1"):
        fxdp.make_geometric(2, bounds=(0, 9), strict=1)
    with pytest.raises(ValueError, match=r"config: \[mechanism\] strict must be a bool"):
        mechanism_from_table({"kind": "geometric", "scale": 2, "strict": "yes"})
