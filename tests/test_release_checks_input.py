"""Issue 32, item 3: the public reference release m.release(src, x) checks its input as m(x)
does, for every registered kind: a bad input raises the same exception type through both.
The mechanisms come from tests/export_fake/cases.py (every kind with a device form, both forms)
plus naive_laplace_fixed; a kind added to the registry without a case here fails the walk."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import fxdp
from fxdp import registry
from fxdp.bitsource import ChaCha20Source

sys.path.insert(0, str(Path(__file__).resolve().parent / "export_fake"))
from cases import CASES  # noqa: E402

MECHS = dict(CASES)
MECHS["naive_laplace_fixed"] = lambda: fxdp.make_naive_laplace_fixed(1, 1, qformat="Q9.6")

BAD = [None, "abc", object(), 10**30, -1, 5, 2.5, float("nan"), (1,) * 13, b"\xff" * 40, [0, 2]]


def _raises(fn):
    try:
        fn()
    except Exception as exc:          # noqa: BLE001 - the type is what is compared
        return type(exc)
    return None


def test_every_registered_kind_is_walked():
    kinds = {make().kind for make in MECHS.values()}
    assert set(registry.kinds()) <= kinds, sorted(set(registry.kinds()) - kinds)


@pytest.mark.parametrize("name", sorted(MECHS))
def test_release_refuses_what_the_call_refuses(name):
    m = MECHS[name]()
    refused = 0
    for i, bad in enumerate(BAD):
        by_call = _raises(lambda: m(bad, ChaCha20Source(1, device_id=i)))
        if by_call is None:
            continue                  # this input is valid for m(x) (or clamped): nothing to compare
        refused += 1
        assert by_call is ValueError, (name, bad, by_call)
        by_release = _raises(lambda: m.release(ChaCha20Source(1, device_id=i), bad))
        assert by_release is by_call, (name, bad, by_call, by_release)
    assert refused >= 3, name


def test_the_issue_example():
    m = fxdp.make_randomized_response_bool(0.75)
    src = ChaCha20Source(1)
    with pytest.raises(ValueError, match="x must be a bool, got 5"):
        m(5, src)
    with pytest.raises(ValueError, match="x must be a bool, got 5"):
        m.release(src, 5)
    assert m.release(src, True) in (True, False)


def test_release_and_call_draw_the_same_bits():
    """The check changes nothing for a valid input: release(src, x) = m(x, src), bit for bit."""
    for name in ("rr_bool_ct", "rr_kary_lazy", "geometric_ct", "subset_selection_lazy", "hybrid_ct"):
        m = MECHS[name]()
        x = {"rr_bool_ct": True, "rr_kary_lazy": "c", "geometric_ct": 7, "subset_selection_lazy": 3,
             "hybrid_ct": 5}[name]
        a, b = ChaCha20Source(9), ChaCha20Source(9)
        if name == "hybrid_ct":            # m(x) takes a reading; release a grid index
            assert m.release(a, 5) == m._release(b, 5)
        else:
            assert m.release(a, x) == m(x, b)
        assert a.bits_used == b.bits_used
