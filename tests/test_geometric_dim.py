"""The vector geometric with a fixed length (dim): validated, round-trips through TOML,
and exports (the emulator proof is in tests/test_export_targets.py: geometric_vec_*)."""
import numpy as np
import pytest

import fxdp
from fxdp.cli import main
from fxdp.mechanisms import make_geometric


def test_dim_validation():
    m = make_geometric(2, (-8, 8), vector=True, dim=3)
    assert m.device_spec()["input"]["count"] == 3 == m.device_spec(dim=3)["input"]["count"]
    with pytest.raises(ValueError, match="dim applies to vector=True only"):
        make_geometric(2, (-8, 8), dim=3)
    with pytest.raises(ValueError, match=r"dim must be in \[1, 16\]"):
        make_geometric(2, (-8, 8), vector=True, dim=17)
    with pytest.raises(ValueError, match="dim = 3"):
        m.device_spec(dim=4)
    with pytest.raises(ValueError, match="exactly dim = 3"):
        m([1, 2])
    with pytest.raises(ValueError, match="n x 3"):
        m.simulate(np.zeros((5, 2), dtype=np.int64), seed=1)
    assert len(m([1, 2, 3])) == 3
    assert m.simulate(np.zeros((5, 3), dtype=np.int64), seed=1).shape == (5, 3)


def test_dim_toml_round_trip_and_export(tmp_path, capsys):
    m = make_geometric(4, bounds=(0, 50), constant_time=True, vector=True, dim=3)
    text = fxdp.config.dumps(m, target="host")
    assert "dim = 3" in text
    cfg = tmp_path / "vec.toml"
    cfg.write_text(text)
    assert main(["export", str(cfg), "--out", str(tmp_path / "fw"), "--json"]) == 0
    capsys.readouterr()
    got = fxdp.export.verify_on_host(fxdp.config.load_config(cfg).mechanism, tmp_path / "fw", seed=5, devices=3000)
    assert got == {"releases": 3000, "mismatches": 0}
    # without dim the vector form has no fixed length: the export says what to add
    cfg.write_text(text.replace("dim = 3\n", ""))
    assert main(["export", str(cfg), "--out", str(tmp_path / "fw2")]) == 2
    assert "dim" in capsys.readouterr().err
