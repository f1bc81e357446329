"""k-ary randomized response and values that are not categories (issue 28 part 4, point 3): by
default a ValueError naming the categories; unknown="uniform" keeps the documented uniform answer.
The device form, the bit stream and the wire format are the same either way."""
import json

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source
from fxdp.config import config_from_dict, dumps, mechanism_to_table

CATS = ["red", "green", "blue"]


def test_a_value_that_is_not_a_category_is_refused_by_default():
    m = fxdp.make_randomized_response(CATS, 0.6)
    with pytest.raises(ValueError, match=r"x = 'Red' is not a category; the categories are \['red', 'green', 'blue'\]"):
        m("Red")
    with pytest.raises(ValueError, match="unknown='uniform'"):
        m(None, rng=ChaCha20Source(1, 0))
    assert m("red", rng=ChaCha20Source(1, 0)) in CATS
    with pytest.raises(ValueError, match="not a category"):           # the plots take host values too
        m.output_distribution("Red", "red")


def test_unknown_uniform_keeps_the_uniform_answer():
    m = fxdp.make_randomized_response(CATS, 0.6, unknown="uniform")
    seen = [m("Red", rng=ChaCha20Source(s, 0)) for s in range(300)]
    counts = np.array([seen.count(c) for c in CATS])
    assert counts.sum() == 300 and counts.min() > 60                 # uniform over the 3 categories
    assert m.output_distribution("Red", "red").x == "(not a category)"
    with pytest.raises(ValueError, match="unknown must be 'error'.*or 'uniform'"):
        fxdp.make_randomized_response(CATS, 0.6, unknown="drop")


def test_config_and_repr_stay_identical_by_default_and_round_trip():
    m = fxdp.make_randomized_response(CATS, 0.6)
    assert "unknown" not in m.config() and "unknown" not in repr(m)
    assert repr(m) == "make_randomized_response(categories=['red', 'green', 'blue'], prob=0.6, constant_time=False, bits=32)"
    u = fxdp.make_randomized_response(CATS, 0.6, unknown="uniform")
    assert u.config()["unknown"] == "uniform" and repr(u).endswith("unknown='uniform')")
    from fxdp.config import tomllib
    back = config_from_dict(tomllib.loads(dumps(u))).mechanism      # the TOML key is the keyword
    assert repr(back) == repr(u) and mechanism_to_table(back)["unknown"] == "uniform"
    with pytest.raises(ValueError, match="unknown must be"):
        config_from_dict({"mechanism": {"kind": "randomized_response", "categories": CATS, "prob": 0.6,
                                        "unknown": "skip"}})


def test_device_form_and_bit_stream_unchanged():
    m = fxdp.make_randomized_response(CATS, 0.6)
    u = fxdp.make_randomized_response(CATS, 0.6, unknown="uniform")
    assert m.device_spec() == u.device_spec() and m.report_fingerprint == u.report_fingerprint
    idx = np.array([0, 1, 2, 3, 3, 1])                                # 3 = t, the device's "not a category"
    assert m.simulate(idx, 5).tolist() == u.simulate(idx, 5).tolist()
    assert m.true_statistic(idx).tolist() == pytest.approx([1 / 6, 1 / 3, 1 / 6])


def test_estimates_are_named_by_the_categories(tmp_path, capsys):
    from fxdp.cli import main
    cfg = tmp_path / "c.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response"\ncategories = ["red", "green", "blue"]\nprob = 0.6\n')
    rep = tmp_path / "r.bin"
    assert main(["simulate", str(cfg), "--devices", "2000", "--json", "--write-reports", str(rep)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in d["estimates"]] == CATS
    assert set(d["estimates"][0]) == {"name", "true", "estimate", "stderr"}
    assert main(["estimate", str(cfg), str(rep), "--json"]) == 0
    assert [r["name"] for r in json.loads(capsys.readouterr().out)["estimates"]] == CATS
    assert main(["estimate", str(cfg), str(rep)]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[0] for line in lines] == CATS
