"""The command line: stable JSON keys, the demo end to end, and clear errors (exit 2)."""
import json
import math
import subprocess
import sys

import pytest

from fxdp.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, text, name="m.toml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


RR = '[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\nconstant_time = true\n'
GEO = '[mechanism]\nkind = "geometric"\nscale = "5/2"\nbounds = [0, 20]\nconstant_time = true\n'
KARY = '[mechanism]\nkind = "randomized_response"\ncategories = ["a", "b", "c"]\nprob = 0.6\n'


def test_demo_json_end_to_end(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "--json", "--out", str(tmp_path / "demo"))
    assert code == 0
    d = json.loads(out)
    assert d["parity"]["releases"] >= 10_000 and d["parity"]["mismatches"] == 0
    (est,) = d["estimates"]
    assert set(est) == {"name", "true", "estimate", "stderr"}
    assert abs(est["estimate"] - est["true"]) < 5 * est["stderr"]
    (aud,) = d["audit"]
    assert aud["epsilon_realized"] <= aud["epsilon_claimed"] and math.isclose(aud["epsilon_realized"], math.log(3))
    assert any(f.endswith("fxdp_config.h") for f in d["files"])
    from pathlib import Path
    assert all(Path(f).is_file() and f.startswith(str(tmp_path / "demo")) for f in d["files"])


def test_audit_json_keys(capsys, tmp_path):
    code, out, _ = run(capsys, "audit", write(tmp_path, GEO), "--json")
    assert code == 0
    d = json.loads(out)
    assert {"mechanism", "epsilon_claimed", "epsilon_realized", "witness", "method"} <= set(d)
    assert d["epsilon_realized"] <= d["epsilon_claimed"] == 0.4
    assert {"x", "x_prime", "output", "p", "p_prime"} <= set(d["witness"])


def test_audit_infinite_is_a_string(capsys, tmp_path):
    cfg = '[mechanism]\nkind = "geometric"\nscale = 0\nbounds = [0, 3]\n'
    code, out, _ = run(capsys, "audit", write(tmp_path, cfg), "--json")
    d = json.loads(out)
    assert code == 0 and d["epsilon_realized"] == "inf" and d["epsilon_claimed"] == "inf"


def test_simulate_json(capsys, tmp_path):
    code, out, _ = run(capsys, "simulate", write(tmp_path, KARY), "--devices", "20000", "--seed", "7", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["devices"] == 20000 and d["seed"] == 7 and len(d["estimates"]) == 3
    for row in d["estimates"]:
        assert abs(row["estimate"] - row["true"]) < 5 * row["stderr"]


def test_targets_json(capsys):
    code, out, _ = run(capsys, "targets", "--json")
    names = {t["name"] for t in json.loads(out)["targets"]}
    assert code == 0 and {"host", "avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4", "rv32imac"} <= names
    assert all(t["available"] for t in json.loads(out)["targets"])     # CI installs every tool


def test_export_refuses_non_empty_dir_and_unknown_target(capsys, tmp_path):
    cfg = write(tmp_path, RR)
    out_dir = tmp_path / "fw"
    out_dir.mkdir()
    (out_dir / "mine.txt").write_text("user file")
    code, _, err = run(capsys, "export", cfg, "--target", "host", "--out", str(out_dir))
    assert code == 2 and "force" in err
    assert (out_dir / "mine.txt").read_text() == "user file"
    code, _, err = run(capsys, "export", cfg, "--target", "z80", "--out", str(tmp_path / "x"))
    assert code == 2 and "avr-atmega328p" in err
    code, out, _ = run(capsys, "export", cfg, "--target", "host", "--out", str(out_dir), "--force", "--json")
    assert code == 0 and (out_dir / "mine.txt").read_text() == "user file"
    assert any(f.endswith("fxdp_config.c") for f in json.loads(out)["files"])


@pytest.mark.parametrize("text,match", [
    ('[mechanism]\nkind = "nope"\n', "valid kinds"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\nwidth = 3\n', "valid keys"),
    ('[mechanism]\nkind = "geometric"\nscale = -1\n', "scale"),
    ('[mech]\nkind = "geometric"\n', "unknown table"),
    ('not toml [', "not valid TOML"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\n[simulation]\ndevice = 3\n', "devices"),
])
def test_bad_config_exits_2_with_a_clear_message(capsys, tmp_path, text, match):
    code, _, err = run(capsys, "audit", write(tmp_path, text))
    assert code == 2 and match in err


def test_missing_config_file(capsys, tmp_path):
    code, _, err = run(capsys, "audit", str(tmp_path / "absent.toml"))
    assert code == 2 and "no such file" in err


def test_entry_point_runs_as_module():
    r = subprocess.run([sys.executable, "-m", "fxdp", "targets"], capture_output=True, text=True)
    assert r.returncode == 0 and "cortex-m3" in r.stdout
