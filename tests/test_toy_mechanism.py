"""A new family through the protocol and the registry only (docs/architecture.md, "Adding a
mechanism"): the folder tests/coin_flip/ (module, Numba kernels, C file and its prototype)
registers ``coin_flip``, and every upper layer serves it, the C export on an emulated target
included."""
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import fxdp
from fxdp import registry
from fxdp.bitsource import ChaCha20Source

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def toy():
    import coin_flip
    registry.register("coin_flip", coin_flip.__name__)
    yield coin_flip
    registry.unregister("coin_flip")


def test_registry_config_and_constructor(toy):
    m = fxdp.make_coin_flip(keep=Fraction(3, 4))
    assert isinstance(m, toy.CoinFlip) and "coin_flip" in fxdp.config.constructors()
    m2 = fxdp.config.config_from_dict({"mechanism": {"kind": "coin_flip", "keep": "3/4", "bits": 16}}).mechanism
    assert m2.realized() == m.realized() == {"keep": Fraction(3, 4), "a": 49152, "k": 16}
    assert "coin_flip" in fxdp.export.exportable_kinds()


def test_audit_is_exact(toy):
    rep = fxdp.audit(fxdp.make_coin_flip())
    assert rep.epsilon_claimed == rep.epsilon_realized == fxdp.make_randomized_response_bool(0.75).epsilon
    assert rep.witness == {"x": False, "x_prime": True, "output": False, "p": "3/4", "p_prime": "1/4"}


def test_simulate_is_the_reference_release_and_binary_rr(toy):
    m = fxdp.make_coin_flip(bits=16)
    x = np.random.default_rng(1).random(300) < 0.5
    out = m.simulate(x, seed=9)
    ref = [m.release(ChaCha20Source(9, i), bool(v)) for i, v in enumerate(x)]
    assert out.tolist() == ref
    rr = fxdp.make_randomized_response_bool(0.75, bits=16)
    assert out.tolist() == rr.simulate(x, seed=9).tolist()


def test_fleet_estimate_and_error_plot(toy):
    from fxdp import fleet, plots
    m = fxdp.make_coin_flip()
    values, reports, truth, _ = fleet.simulate_fleet(m, 200_000, seed=3, progress=False)
    (row,) = fleet.estimate_rows(m, reports, truth)
    assert row["name"] == "share(true)" and abs(row["estimate"] - row["true"]) < 4 * row["stderr"]
    assert fxdp.estimate.estimate(reports, m).name == "share(true)"
    err = plots.estimator_error(m, sizes=(1000, 4000), repeats=2)
    assert err.statistic == "share" and err.rmse.shape == (2,)
    dist = plots.output_distribution(m)
    assert dist.exact_p == [Fraction(3, 4), Fraction(1, 4)] or dist.exact_p == [Fraction(1, 4), Fraction(3, 4)]


def test_export_for_host_and_the_host_c_parity(toy, tmp_path):
    m = fxdp.make_coin_flip()
    files = fxdp.export.generate(m, "host", tmp_path / "fw")
    assert any(p.name == "fxdp_config.h" for p in files)
    assert "coin flip" in (tmp_path / "fw" / "src" / "fxdp_config.h").read_text()
    assert fxdp.export.verify_on_host(m, tmp_path / "fw", seed=5, devices=3000) == {"releases": 3000,
                                                                                     "mismatches": 0}


def test_its_own_c_on_an_emulated_target(toy, tmp_path):
    """The export carries the family's C file and prototype from its folder, and the firmware
    built for a Cortex-M0+ releases under QEMU what m.simulate releases (fxdp_coin_flip, not the
    binary-RR entry point)."""
    m = fxdp.make_coin_flip(keep=Fraction(5, 8), bits=12)
    fxdp.export.generate(m, "cortex-m0plus", tmp_path / "fw")
    assert (tmp_path / "fw" / "src" / "fxdp_mech_coin_flip.c").is_file()
    assert "fxdp_coin_flip(" in (tmp_path / "fw" / "src" / "fxdp_mech_coin_flip.h").read_text()
    assert "fxdp_mech_rr.c" not in {p.name for p in (tmp_path / "fw" / "src").iterdir()}
    r = fxdp.export.verify_on_target(m, tmp_path / "fw", "cortex-m0plus", seed=7, devices=400)
    assert r == {"target": "cortex-m0plus", "releases": 400, "mismatches": 0}


def test_the_family_is_one_folder_and_fxdp_does_not_know_it():
    """What adding the family touched: its folder (module with its registry line, kernels, C,
    prototype) and this test file; no file of the package names it."""
    folder = HERE / "coin_flip"
    assert sorted(p.name for p in folder.iterdir() if p.name != "__pycache__") == [
        "__init__.py", "_kernels_coin_flip.py", "fxdp_mech_coin_flip.c", "fxdp_mech_coin_flip.h"]
    package = Path(fxdp.__file__).resolve().parent
    named = [p for p in package.rglob("*") if p.suffix in (".py", ".c", ".h", ".toml", ".in")
             and "coin_flip" in p.read_text(errors="replace")]
    assert named == []


def test_cli(toy, tmp_path):
    cfg = tmp_path / "coin.toml"
    cfg.write_text('[mechanism]\nkind = "coin_flip"\nkeep = "3/4"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}

    def cli(*args):
        code = "import sys, coin_flip; from fxdp.cli import main; sys.exit(main(sys.argv[1:]))"
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path)
    r = cli("audit", str(cfg), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["epsilon_realized"] == fxdp.make_randomized_response_bool(0.75).epsilon
    r = cli("simulate", str(cfg), "--devices", "20000", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    assert "share(true)" in r.stdout
    r = cli("export", str(cfg), "--target", "host", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "src" / "fxdp_config.c").is_file()
    r = cli("mechanisms")
    assert "coin_flip" in r.stdout
