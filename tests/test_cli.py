"""The command line: stable JSON keys, the demo end to end, and clear errors (exit 2)."""
import json
import math
import re
import subprocess
import sys

import pytest

import fxdp
from pathlib import Path

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
    """fxdp demo --json on a small fleet: every figure is computed and consistent."""
    out_dir = tmp_path / "demo"
    code, out, _ = run(capsys, "demo", "--json", "--out", str(out_dir), "--devices", "30000", "--seed", "7")
    assert code == 0
    d = json.loads(out)
    assert d == json.loads((out_dir / "report.json").read_text())     # the report is also saved
    assert (d["devices"], d["seed"], d["target"]) == (30000, 7, "cortex-m0plus")
    assert "plot" not in d                                     # only with --plot
    names = [mm["name"] for mm in d["mechanisms"]]
    assert names == ["temperature", "heating"]
    for mm in d["mechanisms"]:
        assert mm["constant_time"] is True
        assert mm["parity"] == {"releases": 10_000, "mismatches": 0}
        e, a = mm["estimate"], mm["audit"]
        assert set(e) == {"name", "true", "estimate", "stderr", "z", "naive"}
        assert e["stderr"] > 0 and abs(e["estimate"] - e["true"]) < 5 * e["stderr"]
        assert math.isclose(e["z"], (e["estimate"] - e["true"]) / e["stderr"])
        assert 0 < a["epsilon_realized"] <= a["epsilon_claimed"]
        # CI installs the AVR and Cortex-M toolchains: both sizes are reported
        assert [b["target"] for b in mm["builds"]] == ["avr-atmega328p", "cortex-m0plus"]
        for b in mm["builds"]:
            assert Path(b["elf"]).is_file() and b["flash_bytes"] > 500
        # the written config is what was run: `fxdp audit` on it gives the same claimed epsilon
        code, out2, _ = run(capsys, "audit", mm["config"], "--json")
        assert code == 0 and json.loads(out2)["mechanism"] == mm["mechanism"]
    temp, heat = d["mechanisms"]
    assert temp["audit"]["d_in"] == "all" and temp["audit"]["local_d_in"] == 20
    assert temp["audit"]["epsilon_claimed"] == 2.0 and temp["audit"]["epsilon_d_in_1"] == 0.1
    assert temp["audit"]["epsilon_realized"] > 1.99        # the table is tight, not loose
    assert math.isclose(heat["audit"]["epsilon_realized"], math.log(3))
    assert d["builds_skipped"] == []
    eps = d["epsilon_per_device"]
    assert eps["claimed"] >= temp["audit"]["epsilon_claimed"] + heat["audit"]["epsilon_claimed"]
    assert eps["realized"] <= eps["claimed"]
    assert all(Path(f).is_file() and f.startswith(str(out_dir)) for f in d["files"])
    assert any(f.endswith("temperature/src/fxdp_config.h") for f in d["files"])
    assert d["seconds"]["total"] > 0
    # the stable summary keys (design.md)
    assert d["parity"] == {"releases": 20_000, "mismatches": 0}
    assert [e["name"] for e in d["estimates"]] == ["temperature.mean", "heating.frequency(true)"]
    for e, mm in zip(d["estimates"], d["mechanisms"]):
        assert set(e) == {"name", "true", "estimate", "stderr"}
        assert (e["true"], e["estimate"], e["stderr"]) == tuple(mm["estimate"][k] for k in ("true", "estimate", "stderr"))
    for a, mm in zip(d["audit"], d["mechanisms"]):
        assert a == {"mechanism": mm["mechanism"], "epsilon_claimed": mm["audit"]["epsilon_claimed"],
                     "epsilon_realized": mm["audit"]["epsilon_realized"]}
    # the temperature through recommend_numeric's first choice at the geometric's epsilon
    rec = d["temperature_recommended"]
    assert rec["epsilon_geometric"] == temp["audit"]["epsilon_claimed"] and rec["epsilon"] <= 2.0
    assert rec["geometric"] == {k: temp["estimate"][k] for k in ("true", "estimate", "stderr")}
    e = rec["estimate"]
    assert e["true"] == temp["estimate"]["true"] and abs(e["estimate"] - e["true"]) < 5 * e["stderr"]
    assert 0 < e["stderr"] <= rec["geometric"]["stderr"]
    assert math.isclose(rec["stderr_ratio"], rec["geometric"]["stderr"] / e["stderr"])
    assert rec["kind"] == fxdp.recommend_numeric(10, 30, 2, 30000, integer_readings=True)[0]["kind"]


def check_gain_lines(out):
    """The demo's comparison lines: the recommended mechanism and today's bounded geometric at the
    same epsilon, each an estimate with its standard error, and the gain they imply."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("temperature at the same epsilon (2): "
                                                                       "recommend_numeric picks "))
    kind = lines[head].split("picks ")[1].split()[0]
    pattern = re.compile(r"^  (.+?) +estimate (-?[\d.]+) ± ([\d.]+)")
    rec, geo = (pattern.match(lines[head + k]) for k in (1, 2))
    assert rec.group(1) == kind and geo.group(1) == "bounded geometric"
    rec_se, geo_se = float(rec.group(3)), float(geo.group(3))
    assert 0 < rec_se <= geo_se                     # the recommendation is never worse than today's
    gain = re.match(r"^  gain: standard error ([\d.]+)x smaller", lines[head + 3])
    assert float(gain.group(1)) >= 1 and math.isclose(float(gain.group(1)), geo_se / rec_se, rel_tol=0.02)
    return kind, float(rec.group(2)), rec_se


def test_demo_text_report_and_rerun(capsys, tmp_path):
    out_dir = tmp_path / "demo"
    argv = ["demo", "--out", str(out_dir), "--devices", "5000", "--releases", "2000"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    check_gain_lines(out)
    assert out.count("2,000 releases on one keyed stream: agree bit for bit") == 2
    assert out.strip() == (out_dir / "report.txt").read_text().strip()
    assert run(capsys, *argv)[0] == 0                    # rerun into its own directory
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    code, _, err = run(capsys, "demo", "--out", str(foreign), "--devices", "5000")
    assert code == 2 and "not written by `fxdp demo`" in err
    assert (foreign / "notes.txt").read_text() == "keep me" and len(list(foreign.iterdir())) == 1


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


def test_simulate_stream_version(capsys, tmp_path):
    """[simulation] stream_version selects the keyed stream's rule; absent means 1 (configs written
    before version 2 keep their reports); the reports are m.simulate's under fxdp.Seed(seed, v)."""
    import numpy as np
    from fxdp.bitsource import Seed
    from fxdp.config import load_config
    from fxdp.reportfiles import iter_reports
    rows = {}
    for v, extra in ((1, ""), (1, "stream_version = 1\n"), (2, "stream_version = 2\n")):
        cfg = write(tmp_path, KARY + "[simulation]\nseed = 7\n" + extra, f"v{v}{len(extra)}.toml")
        reports = tmp_path / f"r{v}{len(extra)}.csv"
        code, out, _ = run(capsys, "simulate", cfg, "--devices", "3000", "--json", "--write-reports", str(reports))
        d = json.loads(out)
        assert code == 0 and d["stream_version"] == v and d["seed"] == 7
        m = load_config(cfg).mechanism
        values, _ = m.synthetic_population(3000, 7)
        got = np.concatenate([np.asarray(c).ravel() for _, c in iter_reports(m, reports)])
        assert got.tolist() == np.asarray(m.simulate(values, Seed(7, v))).ravel().tolist()
        rows.setdefault(v, []).append(got.tolist())
    assert rows[1][0] == rows[1][1] and rows[1][0] != rows[2][0]


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
    # wrong types are named, with the allowed range
    ('[mechanism]\nkind = "randomized_response_bool"\nprob = "abc"\n', "prob must be a number in [1/2, 1)"),
    ('[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\nconstant_time = 1\n', "constant_time must be a bool"),
    ('[mechanism]\nkind = "rappor"\nf = 0.5\nm = 1.5\nk = 8\n', "m must be an integer in [1, 65536]"),
    ('[mechanism]\nkind = "laplace_fixed"\nepsilon = 0.5\nbounds = [-8, 8]\nqformat = 5\n', "qformat"),
    ('[mechanism]\nkind = "rappor"\nf = 0.5\n', "needs key(s) ['m', 'k']"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\n[target]\nnam = "host"\n', "unknown [target] key(s) ['nam']"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\n[target]\nname = "pic16"\n', "valid targets: avr-atmega328p"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\n[simulation]\ndevices = "many"\n',
     "devices must be an integer in [1, 1000000000]"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\n[simulation]\nseed = -1\n', "seed must be an integer"),
    ('[mechanism]\nkind = "geometric"\nscale = 1\n[simulation]\nstream_version = 3\n',
     "stream_version must be an integer in [1, 2]"),
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


def test_plot_commands(capsys, tmp_path):
    cfg = write(tmp_path, GEO)
    for kind in ("distribution", "loss"):
        out = tmp_path / f"{kind}.png"
        code, text, _ = run(capsys, "plot", cfg, kind, "--out", str(out), "--x", "3", "--x-prime", "4", "--json")
        assert code == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        d = json.loads(text)
        assert (d["kind"], d["x"], d["x_prime"]) == (kind, 3, 4)
    assert d["d_in"] == 1 and 0 < d["worst_loss"] <= d["epsilon_claimed"] == 0.4
    out = tmp_path / "error.png"
    code, text, _ = run(capsys, "plot", write(tmp_path, RR, "rr.toml"), "error", "--out", str(out),
                        "--sizes", "1000,100000", "--repeats", "3", "--json")
    d = json.loads(text)
    assert code == 0 and out.is_file() and d["sizes"] == [1000, 100000]
    assert d["stderr"][1] < d["stderr"][0] / 5              # ~ 1/sqrt(n): 10x
    code, _, err = run(capsys, "plot", cfg, "error", "--out", str(out), "--sizes", "a,b")
    assert code == 2 and "--sizes" in err


def test_cli_kind_without_a_protocol_hook_is_a_clean_error(tmp_path, capsys):
    """fxdp simulate --values on a kind with no true statistic of arbitrary values (full RAPPOR):
    exit 2 with a one-line message, no traceback."""
    import numpy as np

    from fxdp.cli import main
    cfg = tmp_path / "rf.toml"
    cfg.write_text('[mechanism]\nkind = "rappor_full"\nk = 32\nh = 2\ncohorts = 8\nf = 0.5\np = 0.25\n'
                   'q = 0.75\nvalue_bytes = 16\n')
    vals = tmp_path / "v.npy"
    np.save(vals, np.array([1, 2, 3]))
    assert main(["simulate", str(cfg), "--values", str(vals)]) == 2
    err = capsys.readouterr().err
    assert "no true statistic" in err and "Traceback" not in err


# --- issue 28, part 4: silent wrong answers -------------------------------------------------

@pytest.mark.parametrize("devices", ["0", "1000000001", "2000000000"])
def test_simulate_devices_flag_has_the_config_cap(capsys, tmp_path, devices):
    """--devices and [simulation] devices share one cap (fxdp.config.MAX_DEVICES), refused before
    anything is drawn or allocated."""
    from fxdp.config import MAX_DEVICES
    assert MAX_DEVICES == 10 ** 9
    code, out, err = run(capsys, "simulate", write(tmp_path, RR), "--devices", devices)
    assert code == 2 and out == ""
    assert err.strip() == f"fxdp simulate: error: --devices must be an integer in [1, 1000000000], got {devices}"
    cfg = write(tmp_path, RR + f"[simulation]\ndevices = {devices}\n", "cap.toml")
    code, _, err = run(capsys, "simulate", cfg)
    assert code == 2 and "[simulation] devices must be an integer in [1, 1000000000]" in err


def test_seed_range_is_written_as_a_power_of_two(capsys, tmp_path):
    code, _, err = run(capsys, "simulate", write(tmp_path, RR), "--devices", "10", "--seed", "-1")
    assert code == 2 and err.strip() == "fxdp simulate: error: seed must be an integer in [0, 2^256 - 1], got -1"
    code, _, err = run(capsys, "simulate", write(tmp_path, RR), "--devices", "10", "--seed", str(1 << 256))
    assert code == 2 and "seed must be an integer in [0, 2^256 - 1]" in err
    cfg = write(tmp_path, RR + "[simulation]\nseed = -1\n", "seed.toml")
    code, _, err = run(capsys, "audit", cfg)
    assert code == 2 and "[simulation] seed must be an integer in [0, 2^256 - 1], got -1" in err
    assert not re.search(r"\d{20}", err)


@pytest.mark.parametrize("argv", [["mechanisms", "--json"], ["targets"]])
def test_closed_stdout_exits_quietly_with_141(argv):
    """`fxdp ... | head -1`: the reader goes away before fxdp writes; fxdp stops quietly with status 141
    (128 + SIGPIPE, as a shell reports for Unix tools), no `error: [Errno 32] Broken pipe`, no
    traceback.  The pipe's read end is closed before the child starts: the write must fail."""
    import os
    r, w = os.pipe()
    os.close(r)                                   # the reader that closed early
    try:
        p = subprocess.run([sys.executable, "-m", "fxdp"] + argv, stdout=w, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    finally:
        os.close(w)
    assert p.returncode == 141 and p.stderr == ""


def test_head_reads_two_lines_of_simulate(tmp_path):
    """The user's pipeline, `fxdp simulate CONFIG | head -2`, through a shell: head prints two lines,
    fxdp exits 141 without a message, and a large output (--json of 40 categories) behaves the same."""
    cats = ", ".join(f'"c{i}"' for i in range(40))
    cfg = write(tmp_path, f'[mechanism]\nkind = "randomized_response"\ncategories = [{cats}]\nprob = 0.5\n')
    for extra in ("", " --json"):
        p = subprocess.run(["bash", "-c", f'set -o pipefail; "{sys.executable}" -m fxdp simulate {cfg} '
                                          f'--devices 2000{extra} | head -2; echo "status ${{PIPESTATUS[0]}}" >&2'],
                           capture_output=True, text=True, timeout=300)
        assert len(p.stdout.splitlines()) == 2
        assert "Broken pipe" not in p.stderr and "Traceback" not in p.stderr
        assert p.stderr.strip().splitlines()[-1] in ("status 141", "status 0")   # 0: head read it all first


GEO_T = '[mechanism]\nkind = "geometric"\nscale = 2\nbounds = [10, 30]\nconstant_time = true\n'


def test_simulate_values_outside_the_bounds_are_refused(capsys, tmp_path):
    """Values outside a bounded geometric's bounds were clamped by the release but compared with the
    unclamped truth (estimate ~90 standard errors off): refused, with the count, the first offending
    row and the range, before any draw."""
    import numpy as np
    vals = tmp_path / "t.npy"
    np.save(vals, np.array([12, 20, 35, 9, 30, 10]))
    code, out, err = run(capsys, "simulate", write(tmp_path, GEO_T), "--values", str(vals))
    assert code == 2 and out == ""
    assert "2 of 6 values lie outside [10, 30]" in err and "(bounds = [10, 30])" in err
    assert "the first is row 2: 35" in err and "--clamp" in err
    # a numeric reading kind (lo, hi): the same, through the same protocol hook
    duchi = write(tmp_path, '[mechanism]\nkind = "duchi"\nlo = 10\nhi = 30\nepsilon = 1\n', "duchi.toml")
    code, _, err = run(capsys, "simulate", duchi, "--values", str(vals))
    assert code == 2 and "2 of 6 values lie outside [10, 30]" in err and "(lo = 10, hi = 30)" in err


def test_simulate_clamp_compares_with_the_clamped_truth(capsys, tmp_path):
    import numpy as np
    vals = np.r_[np.full(3000, 0), np.full(3000, 20), np.full(2000, 45)]      # 5000 outside [10, 30]
    path = tmp_path / "t.csv"
    path.write_text("temp\n" + "\n".join(str(v) for v in vals) + "\n")
    code, out, _ = run(capsys, "simulate", write(tmp_path, GEO_T), "--values", str(path), "--clamp", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["clamped"] == 5000 and d["devices"] == 8000
    (row,) = d["estimates"]
    assert row["true"] == np.clip(vals, 10, 30).mean() == 18.75          # not the unclamped 24.375
    assert abs(row["estimate"] - row["true"]) < 5 * row["stderr"]
    code, out, _ = run(capsys, "simulate", write(tmp_path, GEO_T), "--values", str(path), "--clamp")
    assert code == 0 and "5,000 clamped into the input range" in out
    code, _, err = run(capsys, "simulate", write(tmp_path, GEO_T), "--clamp", "--devices", "10")
    assert code == 2 and "--clamp applies to --values" in err


def test_population_from_values_python_side():
    import numpy as np
    from fxdp.reportfiles import population_from_values
    m = fxdp.make_geometric(2, bounds=(10, 30), constant_time=True)
    with pytest.raises(ValueError, match=r"1 of 3 values lie outside \[10, 30\].*row 1: 31"):
        population_from_values(m, np.array([10, 31, 30]))
    pop = population_from_values(m, np.array([10, 31, 30]), clamp=True)
    assert pop.clamped == 1 and pop.values.tolist() == [10, 30, 30] and pop.truth == pytest.approx(70 / 3)
    values, truth = pop                                    # what simulate_fleet unpacks
    assert truth == pop.truth
    # vector form: rows of d values, the offending row shown whole
    mv = fxdp.make_geometric(2, bounds=(0, 5), vector=True)
    with pytest.raises(ValueError, match=r"1 of 4 values .* row 1: \[6, 0\]"):
        population_from_values(mv, np.array([[1, 2], [6, 0]]))
    # an unbounded lazy geometric clamps nothing: every int64 passes
    assert population_from_values(fxdp.make_geometric(2), np.array([-10 ** 12, 10 ** 12])).clamped == 0


def test_booleans_are_not_readings(capsys, tmp_path):
    """A true/false column fed to a numeric kind is refused (True is not 1 degree); numbers other
    than 0/1 fed to binary randomized response are refused; a column may not mix the two."""
    bools = tmp_path / "b.csv"
    bools.write_text("heating\ntrue\nfalse\ntrue\n")
    code, _, err = run(capsys, "simulate", write(tmp_path, GEO_T), "--values", str(bools))
    assert code == 2 and "true/false values, but geometric takes numbers in [10, 30]" in err
    lazy = write(tmp_path, '[mechanism]\nkind = "geometric"\nscale = 2\n', "lazy.toml")
    code, _, err = run(capsys, "simulate", lazy, "--values", str(bools))
    assert code == 2 and "booleans are not readings" in err
    code, out, _ = run(capsys, "simulate", write(tmp_path, RR, "rr.toml"), "--values", str(bools), "--json")
    assert code == 0 and json.loads(out)["estimates"][0]["true"] == pytest.approx(2 / 3)
    nums = tmp_path / "n.csv"
    nums.write_text("heating\n1\n0\n2\n")
    code, _, err = run(capsys, "simulate", write(tmp_path, RR, "rr.toml"), "--values", str(nums))
    assert code == 2 and str(nums) in err and "[0, 1], got 2" in err
    mixed = tmp_path / "m.csv"
    mixed.write_text("a\ntrue\n3\n")
    code, _, err = run(capsys, "simulate", lazy, "--values", str(mixed))
    assert code == 2 and "line 3: column a holds an integer" in err
    two = tmp_path / "two.csv"
    two.write_text("a,b\ntrue,3\n")
    code, _, err = run(capsys, "simulate", lazy, "--values", str(two))
    assert code == 2 and "column(s) a hold true/false but b hold integers" in err


def test_error_messages_name_the_file_and_the_parameter(capsys, tmp_path):
    """Each error names the file (and says what it is instead) or the parameter the user wrote."""
    import numpy as np
    cfg = write(tmp_path, KARY)
    reports = tmp_path / "r.bin"
    assert run(capsys, "simulate", cfg, "--devices", "300", "--write-reports", str(reports))[0] == 0
    data = bytearray(reports.read_bytes())
    data[30] = 0xFF                                   # a record with padding bits set (CRC checked later)
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(data))
    code, _, err = run(capsys, "estimate", cfg, str(bad))
    assert code == 2 and err.startswith(f"fxdp estimate: error: {bad}: record 6 at byte offset 30: padding")
    # a wire-format file read as CSV, and a binary values file named .csv: no raw UnicodeDecodeError
    code, _, err = run(capsys, "estimate", cfg, str(reports), "--format", "csv")
    assert code == 2 and f"{reports}: not a UTF-8 text file" in err and "'utf-8' codec" not in err
    binary_csv = tmp_path / "v.csv"
    binary_csv.write_bytes(reports.read_bytes())
    code, _, err = run(capsys, "simulate", cfg, "--values", str(binary_csv))
    assert code == 2 and f"{binary_csv}: not a UTF-8 text file" in err
    # a directory where a file is wanted
    d = tmp_path / "dir.bin"
    d.mkdir()
    for argv, what in ((["estimate", cfg, str(d)], "report file"), (["simulate", cfg, "--values", str(d)], "values file"),
                       (["audit", str(d)], "config:")):
        code, _, err = run(capsys, *argv)
        assert code == 2 and what in err and "is a directory" in err and "not found" not in err
    # a file named .npy that is not one, and a pickled one
    fake = tmp_path / "fake.npy"
    fake.write_bytes(b"temperature\n21\n")
    code, _, err = run(capsys, "simulate", cfg, "--values", str(fake))
    assert code == 2 and f"{fake}: not a valid .npy file" in err and "allow_pickle" not in err
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([1, "a"], dtype=object), allow_pickle=True)
    code, _, err = run(capsys, "simulate", cfg, "--values", str(obj))
    assert code == 2 and "holds Python objects" in err and "allow_pickle" not in err
    # a binary file given as the config
    code, _, err = run(capsys, "audit", str(reports))
    assert code == 2 and "not a UTF-8 text file, so not TOML" in err
    # the geometric's table names `bounds`, the key the user wrote, not the sampler's input_bounds
    wide = write(tmp_path, '[mechanism]\nkind = "geometric"\nscale = 1\nbounds = [0, 100000]\nconstant_time = true\n',
                 "wide.toml")
    code, _, err = run(capsys, "audit", wide)
    assert code == 2 and "bounds too wide for a table" in err and "narrow bounds" in err
    assert "input_bounds" not in err and "output_bounds" not in err


def test_estimate_refuses_repeated_reports(capsys, tmp_path):
    """The same file twice, a file concatenated with itself, a copy, a CSV twice: refused, naming
    both files (and the batch and byte offsets), unless --allow-duplicates.  Unrepeated, the standard
    error is that of n reports; repeated, it would shrink by sqrt(2)."""
    cfg = write(tmp_path, KARY)
    a = tmp_path / "a.bin"
    assert run(capsys, "simulate", cfg, "--devices", "3000", "--write-reports", str(a))[0] == 0
    code, out, _ = run(capsys, "estimate", cfg, str(a), "--json")
    one = json.loads(out)
    for argv in ([str(a), str(a)], [str(a), str(tmp_path / "." / "a.bin")]):
        code, _, err = run(capsys, "estimate", cfg, *argv)
        assert code == 2 and "are the same file" in err and "--allow-duplicates" in err and err.count("a.bin") == 2
    aa = tmp_path / "aa.bin"
    aa.write_bytes(a.read_bytes() * 2)
    code, _, err = run(capsys, "estimate", cfg, str(aa))
    size = a.stat().st_size
    assert code == 2 and f"{aa}: batch 1 (byte offset {size}, 3,000 reports) repeats batch 0 of {aa} (byte offset 0)" in err
    b = tmp_path / "b.bin"
    b.write_bytes(a.read_bytes())
    code, _, err = run(capsys, "estimate", cfg, str(a), str(b))
    assert code == 2 and f"{b}: batch 0" in err and f"of {a}" in err and "--allow-duplicates" in err
    code, out, _ = run(capsys, "estimate", cfg, str(a), str(a), "--allow-duplicates", "--json")
    two = json.loads(out)
    assert code == 0 and two["reports"] == 6000
    ratio = one["estimates"][0]["stderr"] / two["estimates"][0]["stderr"]
    assert ratio == pytest.approx(math.sqrt(2), rel=1e-3)        # what a silent duplicate did
    c1, c2 = tmp_path / "r1.csv", tmp_path / "r2.csv"
    assert run(capsys, "simulate", cfg, "--devices", "500", "--write-reports", str(c1))[0] == 0
    c2.write_bytes(c1.read_bytes())
    code, _, err = run(capsys, "estimate", cfg, str(c1), str(c2))
    assert code == 2 and f"report files {c1} and {c2} have the same content" in err
    assert run(capsys, "estimate", cfg, str(c1), str(c2), "--allow-duplicates")[0] == 0


def test_estimate_accepts_a_gateways_repeating_single_report_batches(capsys, tmp_path):
    """A gateway concatenates batches of one report (docs/wire.md): with 1-bit reports only two such
    batches exist, so repeats are honest; batches under DUPLICATE_MIN_BITS record bits are never
    refused.  The file as a whole is still compared with the other files."""
    import numpy as np
    from fxdp.config import load_config
    from fxdp.reportfiles import DUPLICATE_MIN_BITS
    cfg = write(tmp_path, RR)
    m = load_config(cfg).mechanism
    reports = np.random.default_rng(1).random(400) < 0.5
    g = tmp_path / "gateway.bin"
    g.write_bytes(b"".join(m.encode_reports(np.array([r])) for r in reports))
    assert m.report_layout().bits < DUPLICATE_MIN_BITS
    code, out, _ = run(capsys, "estimate", cfg, str(g), "--json")
    assert code == 0 and json.loads(out)["reports"] == 400
    g2 = tmp_path / "gateway2.bin"
    g2.write_bytes(g.read_bytes())
    code, _, err = run(capsys, "estimate", cfg, str(g), str(g2))
    assert code == 2 and "have the same content" in err
