"""CSV report files: written with LF line ends, read with LF or CRLF to the same estimate (issue 31,
point 5)."""
import json

import fxdp.mechanisms as M
from fxdp.cli import main
from fxdp.reportfiles import estimate_files, write_reports

HR = '[mechanism]\nkind = "hadamard_response"\nd = 40\nepsilon = 2\n'


def test_written_csv_has_lf_line_ends_and_crlf_reads_the_same(tmp_path):
    m = M.make_randomized_response_bool(0.75)
    vals, _ = m.synthetic_population(3000, 1)
    out = m.simulate(vals, 4)
    p = write_reports(m, out, tmp_path / "r.csv")
    data = p.read_bytes()
    assert b"\r" not in data
    assert data.count(b"\n") == 3001 and data.startswith(b"y\n")
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    lf_est = estimate_files(m, [p], progress=False)["estimates"]
    crlf_est = estimate_files(m, [crlf], progress=False)["estimates"]
    assert lf_est == crlf_est == m.estimate_rows(out)


def test_simulate_write_reports_csv_is_lf_and_estimate_reads_crlf(capsys, tmp_path):
    cfg = tmp_path / "hr.toml"
    cfg.write_text(HR)
    f = tmp_path / "r.csv"
    assert main(["simulate", str(cfg), "--devices", "2000", "--seed", "3", "--write-reports", str(f), "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)
    data = f.read_bytes()
    assert b"\r\n" not in data and data.count(b"\n") == 2001
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    assert main(["estimate", str(cfg), str(crlf), "--json"]) == 0
    est = json.loads(capsys.readouterr().out)
    for a, b in zip(est["estimates"], sim["estimates"]):
        assert (a["name"], a["estimate"], a["stderr"]) == (b["name"], b["estimate"], b["stderr"])
