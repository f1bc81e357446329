"""The report wire format (docs/wire.md): packing, the header and its fingerprint, every decoding
error with its offset, the corruption sweep, the host C encoder against m.encode_reports, and
`fxdp estimate` / `fxdp simulate --write-reports` end to end."""
import json
import math
import struct
import sys
import zlib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import Seed
import fxdp.export as E
import fxdp.mechanisms as M
from fxdp.cli import main
from fxdp.export import harness as H
from fxdp.mechanisms._wire import HEADER, HEADER_BYTES, MAGIC, ReportField, WireError
from fxdp.reportfiles import estimate_files, write_reports

sys.path.insert(0, str(Path(__file__).resolve().parent / "export_fake"))
from cases import CASES  # noqa: E402


def _outputs(m, n=3000, seed=11):
    return H.simulate_outputs(m, E.device_spec(m), seed, n)


def _batch(m, body_records, count=None, fingerprint=None, version=1, reserved=0):
    """A batch with a valid CRC around hand-made records (to reach the checks behind the CRC)."""
    lay = m.report_layout()
    n = len(body_records) // lay.record_bytes if count is None else count
    head = HEADER.pack(MAGIC, version, reserved, 0, lay.fingerprint if fingerprint is None else fingerprint,
                       lay.record_bytes, n)
    body = head + body_records
    return body + struct.pack("<I", zlib.crc32(body))


def _same_rows(a, b):
    """Estimate rows equal: exactly for the names and counts, to rounding for the float moments
    (a multiset sums in another order than the file; docs/wire.md)."""
    assert [r["name"] for r in a] == [r["name"] for r in b]
    for x, y in zip(a, b):
        for k in ("estimate", "stderr"):
            assert math.isclose(x[k], y[k], rel_tol=1e-12, abs_tol=1e-15), (x, y)


@pytest.mark.parametrize("case", sorted(CASES))
def test_round_trip_every_exportable_case(case):
    m = CASES[case]()
    out = _outputs(m)
    data = m.encode_reports(out)
    lay = m.report_layout()
    assert len(data) == HEADER_BYTES + len(out) * lay.record_bytes + 4
    back = m.decode_reports(data)
    assert back.dtype == out.dtype and back.shape == out.shape and np.array_equal(back, out)
    magic, version, r8, r16, fp, rec, count = HEADER.unpack(data[:HEADER_BYTES])
    assert (magic, version, r8, r16, fp, rec, count) == (MAGIC, 1, 0, 0, lay.fingerprint, lay.record_bytes, len(out))
    # streamed in small chunks, into the sufficient statistic: the in-memory estimate
    stat = m.report_statistic()
    firsts = []
    for first, chunk in m.iter_report_chunks(data, chunk_records=700):
        firsts.append(first)
        stat.add(chunk)
    assert firsts == list(range(0, len(out), 700)) and stat.n == len(out)
    if m.kind == "count_mean_sketch":       # a sketch estimates the candidates it is given
        with pytest.raises(ValueError, match="--candidates"):
            stat.estimate_rows()
        truth = m.true_statistic(m.synthetic_words()[:5])
        _same_rows(stat.estimate_rows(truth), m.estimate_rows(out, truth))
    elif m.kind != "rappor_full":             # its default decoder's candidates need value_bytes >= 9
        _same_rows(stat.estimate_rows(), m.estimate_rows(out))


@pytest.mark.parametrize("case", ["unary_encoding_ct", "rappor_lazy", "rr_bool_lazy", "rr_kary_ct",
                                  "hadamard_response_ct", "hadamard_response_lazy"])
def test_compact_statistics_are_exact(case):
    """RAPPOR and unary encoding stream into per-bit sums, the index mechanisms into a histogram
    (memory independent of n): the estimate equals the in-memory one exactly, and merging two
    halves equals adding both."""
    from fxdp.mechanisms._wire import ColumnSums, Histogram
    m = CASES[case]()
    out = _outputs(m, 5000)
    a, b = m.report_statistic(), m.report_statistic()
    assert isinstance(a, ColumnSums if out.ndim == 2 else Histogram)
    a.add(out[:1234])
    b.add(out[1234:])
    assert a.merge(b).n == 5000
    assert a.estimate_rows() == m.estimate_rows(out)


def test_multiset_merges_lazily_and_exactly(monkeypatch):
    """The default statistic over many chunks of mostly distinct reports, merged every few
    chunks: the same distinct rows and counts as one np.unique over everything."""
    from fxdp.mechanisms import _wire
    monkeypatch.setattr(_wire.ReportMultiset, "FLUSH_ROWS", 50)
    m = M.make_geometric(Fraction(7, 2), bounds=(-100, 100))
    out = _outputs(m, 4000)
    s = m.report_statistic()
    for i in range(0, 4000, 37):
        s.add(out[i:i + 37])
    rows, counts = np.unique(out, return_counts=True)
    assert s.n == 4000 and s.rows.reshape(-1).tolist() == rows.tolist() and s.counts.tolist() == counts.tolist()
    assert s.estimate_rows() == m.estimate_rows(np.sort(out))


def test_bits_are_packed():
    """RAPPOR's k bits travel in ceil(k/8) bytes; a field takes bit_length(hi - lo) bits."""
    for k in (1, 8, 9, 13, 64):
        assert M.make_rappor(0.5, 1, k).report_layout().record_bytes == math.ceil(k / 8)
    assert M.make_unary_encoding(12, 2).report_layout().record_bytes == 2
    assert M.make_hadamard_response(100, 2).report_layout().bits == 7          # K = 128
    assert M.make_randomized_response(list("abcde"), 0.6).report_layout().bits == 3
    assert M.make_geometric(10, bounds=(0, 40)).report_layout().bits == 6
    assert M.make_geometric(10).report_layout().bits == 64
    full = M.make_rappor_full(4, 1, 2, 0.5, 0.25, 0.75, bits=8, value_bytes=2)
    assert [f.width for f in full.report_layout().fields] == [1, 0, 1]        # cohort < 2: 1 bit, high byte 0 bits
    assert full.report_layout().bits == 1 + 4


def test_known_bytes_rr_bool():
    """Three binary reports 1, 0, 1: one record byte each, bit 7 first, behind the header."""
    m = M.make_randomized_response_bool(0.75)
    data = m.encode_reports(np.array([True, False, True]))
    assert data[HEADER_BYTES:-4] == bytes([0x80, 0x00, 0x80])
    assert data[-4:] == struct.pack("<I", zlib.crc32(data[:-4]))


def test_known_bytes_multi_field():
    """Fields one after another, MSB first: k-ary over 5 categories (3 bits) = 4 -> 100, then zero padding."""
    m = M.make_randomized_response(list("abcde"), 0.6)
    assert m.encode_reports(np.array([4, 1]))[HEADER_BYTES:-4] == bytes([0b10000000, 0b00100000])


def test_fingerprint_follows_every_baked_integer():
    a = M.make_hadamard_response(100, 2)
    assert a.report_fingerprint == M.make_hadamard_response(100, 2).report_fingerprint
    others = [M.make_hadamard_response(100, 2, bits=31), M.make_hadamard_response(101, 2),
              M.make_hadamard_response(100, Fraction(199, 100))]
    fps = {a.report_fingerprint} | {o.report_fingerprint for o in others}
    assert len(fps) == 4
    # the constant-time form bakes the same integers: its reports have the same distribution and
    # mix freely with the lazy form's
    assert M.make_hadamard_response(100, 2, constant_time=True).report_fingerprint == a.report_fingerprint
    # the constant-time rr's threshold table is baked too
    t1 = M.make_randomized_response(list("abc"), 0.6, constant_time=True, bits=16)
    t2 = M.make_randomized_response(list("abc"), 0.6, constant_time=True, bits=17)
    assert t1.report_fingerprint != t2.report_fingerprint


def test_wrong_fingerprint_refused_with_offset():
    a, b = M.make_hadamard_response(100, 2), M.make_hadamard_response(100, 1)
    data = b.encode_reports(np.array([3, 4, 5]))
    with pytest.raises(WireError, match=r"byte offset 8: configuration fingerprint"):
        a.decode_reports(data)


def test_wrong_version_reserved_record_size():
    m = M.make_randomized_response(list("abcde"), 0.6)
    with pytest.raises(WireError, match=r"byte offset 4: format version 2"):
        m.decode_reports(_batch(m, bytes([0x20]), version=2))
    with pytest.raises(WireError, match=r"byte offset 5: reserved"):
        m.decode_reports(_batch(m, bytes([0x20]), reserved=1))
    with pytest.raises(WireError, match="not a report batch"):
        m.decode_reports(b"XXXX" + bytes(40))


def test_truncated_record_names_offset():
    m = M.make_unary_encoding(12, 2)                          # 2-byte records
    data = m.encode_reports(_outputs(m, 10))
    cut = data[:HEADER_BYTES + 2 * 4 + 1]                     # inside record 4
    with pytest.raises(WireError, match=r"inside record 4 \(byte offset 32\)"):
        m.decode_reports(cut)
    with pytest.raises(WireError, match=r"inside its CRC-32"):
        m.decode_reports(data[:-2])
    with pytest.raises(WireError, match=r"truncated batch header"):
        m.decode_reports(data + data[:10])


def test_out_of_range_value_and_padding_behind_a_valid_crc():
    m = M.make_randomized_response(list("abcde"), 0.6)        # codes 0..4 in 3 bits
    good = bytes([0b00100000])
    with pytest.raises(WireError, match=r"record 1 at byte offset 25: field y\[0\] code 6"):
        m.decode_reports(_batch(m, good + bytes([0b11000000]) + good))
    with pytest.raises(WireError, match=r"record 2 at byte offset 26: padding"):
        m.decode_reports(_batch(m, good + good + bytes([0b00100001])))
    with pytest.raises(ValueError, match=r"record 1: field y\[0\] = 5 is outside \[0, 4\]"):
        m.encode_reports(np.array([0, 5]))


def test_trailing_garbage_and_empty():
    m = M.make_randomized_response_bool(0.75)
    data = m.encode_reports(np.array([True, False]))
    with pytest.raises(WireError, match=rf"byte offset {len(data)}: not a report batch .*trailing"):
        m.decode_reports(data + b"\x00")
    with pytest.raises(WireError, match="empty"):
        m.decode_reports(b"")


def test_batches_concatenate_and_a_bad_batch_fails_all():
    m = M.make_hadamard_response(12, 1, bits=3)
    a, b = m.encode_reports(np.array([1, 2, 3])), m.encode_reports(np.array([7, 0]))
    assert m.decode_reports(a + b).tolist() == [1, 2, 3, 7, 0]
    bad = bytearray(a + b)
    bad[-5] ^= 0x10                                            # a code bit of the second batch's last record
    with pytest.raises(WireError, match=rf"batch at byte offset {len(a)} .* corrupted: CRC-32"):
        m.decode_reports(bytes(bad))


@pytest.mark.parametrize("case", ["rr_kary_lazy", "rappor_full_ct", "laplace_fixed", "geometric_vec_ct"])
def test_every_byte_flipped_errs_with_offset_or_decodes_identically(case):
    """The corruption sweep: each byte of a small file flipped (all 8 bits, and the low bit) once."""
    m = CASES[case]()
    out = _outputs(m, 6)
    data = m.encode_reports(out)
    for i in range(len(data)):
        for mask in (0xFF, 0x01):
            bad = bytearray(data)
            bad[i] ^= mask
            try:
                back = m.decode_reports(bytes(bad))
            except WireError as exc:
                assert "offset" in str(exc), str(exc)
            else:
                assert np.array_equal(back, out), f"byte {i} ^ {mask:#x} decoded to different reports"


def test_report_field_checks():
    with pytest.raises(ValueError, match="lo <= hi"):
        ReportField("y", 1, 3, 2)
    with pytest.raises(ValueError, match="escape"):
        ReportField("y", 1, 0, 9, escape=4)
    assert ReportField("y", 1, -5, 5, escape=-(1 << 63)).width == 4         # 11 values + the escape
    with pytest.raises(ValueError, match="no device form"):
        M.make_geometric(0).report_layout()


def test_decode_source_types(tmp_path):
    m = M.make_randomized_response_bool(0.75)
    data = m.encode_reports(np.array([True, True, False]))
    p = tmp_path / "r.bin"
    p.write_bytes(data)
    for src in (data, bytearray(data), p, str(p), open(p, "rb")):
        assert m.decode_reports(src).tolist() == [True, True, False]
    with pytest.raises(TypeError, match="bytes, a path or a binary file"):
        m.decode_reports(12)


# --- the exported C encoder on the host -------------------------------------------------------

@pytest.mark.parametrize("case", ["hadamard_response_ct", "geometric_lazy", "laplace_fixed", "rappor_full_ct"])
def test_host_c_encoder_equals_encode_reports(case, tmp_path):
    """10^4 releases of the host C build, encoded by fxdp_encode_report (header and CRC from C
    too): the same bytes as m.encode_reports(m.simulate(...)), and fxdp estimate on them equals
    the estimate on the in-memory outputs."""
    m = CASES[case]()
    E.generate(m, "host", tmp_path / "fw")
    got = H.host_report_batch(m, tmp_path / "fw", seed=2026, devices=10_000)
    out = H.simulate_outputs(m, E.device_spec(m), 2026, 10_000)
    assert got == m.encode_reports(out)
    if m.kind != "rappor_full":
        p = tmp_path / "reports.bin"
        p.write_bytes(got)
        _same_rows(estimate_files(m, [p], progress=False)["estimates"], m.estimate_rows(out))


@pytest.mark.parametrize("case", sorted(CASES))
def test_host_c_fingerprint_and_refusal(case, tmp_path):
    """Every export case on the host: the C CRC-32 of the fingerprint text (docs/wire.md) is
    FXDP_REPORT_FINGERPRINT and m.report_fingerprint; 50 records equal encode_reports; an output
    outside the layout gives FXDP_ERR_PARAM with the record all zero."""
    m = CASES[case]()
    E.generate(m, "host", tmp_path / "fw")
    res = H.host_wire_run(m, tmp_path / "fw", seed=7, devices=50)
    assert res.wire_fingerprint == (m.report_fingerprint, m.report_fingerprint)
    out = H.simulate_outputs(m, E.device_spec(m), 7, 50)
    assert res.wire_header + b"".join(res.wire_records) + res.wire[0].to_bytes(4, "little") == m.encode_reports(out)
    if m.kind == "geometric" and m.bounds[1] == (1 << 63) - 1:
        assert res.wire_refused is None                  # every int64 is a valid report
    else:
        assert res.wire_refused == (1, 0)                # FXDP_ERR_PARAM, out all zero


# --- the command line --------------------------------------------------------------------------

def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


HR = '[mechanism]\nkind = "hadamard_response"\nd = 40\nepsilon = 2\n'
RRB = '[mechanism]\nkind = "randomized_response_bool"\nprob = 0.75\n'


@pytest.mark.parametrize("fmt", ["bin", "csv", "parquet"])
def test_simulate_write_reports_then_estimate(capsys, tmp_path, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    cfg = tmp_path / "hr.toml"
    cfg.write_text(HR)
    f = tmp_path / f"r.{fmt}"
    code, out, err = _run(capsys, "simulate", cfg, "--devices", 30000, "--seed", 3, "--write-reports", f, "--json")
    assert code == 0, err
    sim = json.loads(out)
    assert sim["reports_file"]["format"] == fmt
    code, out, err = _run(capsys, "estimate", cfg, f, "--json")
    assert code == 0, err
    est = json.loads(out)
    assert est["reports"] == 30000 and est["format"] == fmt
    # the same fleet in memory: the estimate of fxdp simulate (truth aside)
    for a, b in zip(est["estimates"], sim["estimates"]):
        assert (a["name"], a["estimate"], a["stderr"]) == (b["name"], b["estimate"], b["stderr"])


def test_estimate_many_files_equals_one(capsys, tmp_path):
    m = M.make_randomized_response_bool(0.75)
    vals, _ = m.synthetic_population(5000, 1)
    out = m.simulate(vals, 4)
    write_reports(m, out[:2000], tmp_path / "a.bin")
    write_reports(m, out[2000:], tmp_path / "b.csv")
    cfg = tmp_path / "rr.toml"
    cfg.write_text(RRB)
    code, text, err = _run(capsys, "estimate", cfg, tmp_path / "a.bin", tmp_path / "b.csv", "--json")
    assert code == 0, err
    assert json.loads(text)["estimates"] == m.estimate_rows(out)


def test_estimate_errors(capsys, tmp_path):
    cfg = tmp_path / "rr.toml"
    cfg.write_text(RRB)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    code, _, err = _run(capsys, "estimate", cfg, empty)
    assert code == 2 and "empty" in err
    (tmp_path / "e.csv").write_text("")
    code, _, err = _run(capsys, "estimate", cfg, tmp_path / "e.csv")
    assert code == 2 and "empty" in err
    (tmp_path / "h.csv").write_text("y\n")
    code, _, err = _run(capsys, "estimate", cfg, tmp_path / "h.csv")
    assert code == 2 and "no reports" in err
    (tmp_path / "bad.csv").write_text("y\n1\n0\n2\n")
    code, _, err = _run(capsys, "estimate", cfg, tmp_path / "bad.csv")
    assert code == 2 and "line 4" in err and "outside [0, 1]" in err
    other = M.make_randomized_response_bool(0.8).encode_reports(np.array([True]))
    (tmp_path / "other.bin").write_bytes(other)
    code, _, err = _run(capsys, "estimate", cfg, tmp_path / "other.bin")
    assert code == 2 and "fingerprint" in err and "offset 8" in err
    code, _, err = _run(capsys, "estimate", cfg, tmp_path / "absent.bin")
    assert code == 2 and "not found" in err


# --- fxdp simulate --values: the user's true values -------------------------------------------

KARY5 = '[mechanism]\nkind = "randomized_response"\ncategories = ["a", "b", "c", "d"]\nprob = 0.7\n'


@pytest.mark.parametrize("ext", ["npy", "csv", "parquet"])
def test_simulate_on_given_values(capsys, tmp_path, ext):
    """The fleet runs on the file's values (device i holds value i) and the truth is their
    statistic; the estimate equals m.simulate on the same values."""
    if ext == "parquet":
        pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    values = rng.choice(4, size=20000, p=[0.5, 0.3, 0.15, 0.05]).astype(np.int64)
    f = tmp_path / f"v.{ext}"
    if ext == "npy":
        np.save(f, values)
    elif ext == "csv":
        f.write_text("other,item\n" + "".join(f"9,{v}\n" for v in values))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({"item": values, "other": values * 0}), str(f))
    cfg = tmp_path / "k.toml"
    cfg.write_text(KARY5)
    extra = [] if ext == "npy" else ["--column", "item"]
    code, out, err = _run(capsys, "simulate", cfg, "--values", f, *extra, "--seed", 9, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["devices"] == 20000 and d["population"] == str(f)
    truth = np.bincount(values, minlength=4) / 20000
    m = M.make_randomized_response(list("abcd"), 0.7)
    # the config has no stream_version: version 1, the rule of configs written before version 2
    want = m.estimate_rows(m.simulate(values, Seed(9, 1)), truth)
    assert d["estimates"] == want
    assert [r["true"] for r in d["estimates"]] == truth.tolist()
    for r in d["estimates"]:
        assert abs(r["estimate"] - r["true"]) < 5 * r["stderr"]


def test_simulate_values_errors(capsys, tmp_path):
    cfg = tmp_path / "k.toml"
    cfg.write_text(KARY5)
    np.save(tmp_path / "bad.npy", np.array([0, 1, 7]))
    code, _, err = _run(capsys, "simulate", cfg, "--values", tmp_path / "bad.npy")
    assert code == 2 and "values" in err and "[0, 4]" in err
    (tmp_path / "v.csv").write_text("item\n1\nx\n")
    code, _, err = _run(capsys, "simulate", cfg, "--values", tmp_path / "v.csv")
    assert code == 2 and "line 3" in err
    (tmp_path / "w.csv").write_text("item\n1\n2\n")
    code, _, err = _run(capsys, "simulate", cfg, "--values", tmp_path / "w.csv", "--column", "nope")
    assert code == 2 and "no column 'nope'" in err
    code, _, err = _run(capsys, "simulate", cfg, "--values", tmp_path / "w.csv", "--devices", 5)
    assert code == 2 and "holds 2 values" in err
    np.save(tmp_path / "empty.npy", np.zeros(0, dtype=np.int64))
    code, _, err = _run(capsys, "simulate", cfg, "--values", tmp_path / "empty.npy")
    assert code == 2 and "no values" in err


def test_true_statistic_on_known_values():
    """The statistic each estimator estimates, on small hand-checked populations."""
    assert M.make_randomized_response_bool(0.75).true_statistic([True, False, False, True]) == 0.5
    kary = M.make_randomized_response(list("abc"), 0.6)
    assert kary.true_statistic([0, 2, 2, 3]).tolist() == [0.25, 0.0, 0.5]       # 3 = not a category
    assert M.make_hadamard_response(4, 2).true_statistic([3, 3, 1, 0]).tolist() == [0.25, 0.25, 0.0, 0.5]
    assert M.make_rappor(0.5, 2, 3).true_statistic([[1, 0, 1], [0, 0, 1]]).tolist() == [1.0, 0.0, 2.0]
    assert M.make_geometric(10, bounds=(0, 40), constant_time=True).true_statistic([1, 2, 6]) == 3.0
    assert M.make_geometric(10).true_statistic([1, 2, 6]) == 9.0
    lap = M.make_laplace_fixed(1, (-8, 8), L=Fraction(1, 16), qformat="Q15.16")
    assert lap.true_statistic(np.array([1 << 16, 3 << 16])) == 2.0
    with pytest.raises(ValueError, match="item"):
        M.make_unary_encoding(5, 1).true_statistic([0, 5])


def test_progress_bar_only_when_asked(capsys, tmp_path):
    """progress=True draws the bar on stderr (the CLI asks for it on a terminal only); False is silent."""
    m = M.make_hadamard_response(12, 1, bits=3)
    p = tmp_path / "r.bin"
    p.write_bytes(m.encode_reports(_outputs(m, 3000)))
    estimate_files(m, [p], progress=False)
    assert capsys.readouterr().err == ""
    r = estimate_files(m, [p], progress=True, chunk=500)
    err = capsys.readouterr().err
    assert "%" in err and "reports" in err and r["reports"] == 3000


@pytest.mark.parametrize("make", [
    lambda: fxdp.make_geometric(4, (0, 30), constant_time=True),
    lambda: fxdp.make_geometric(3),
    lambda: fxdp.make_geometric(2, (-50, 50), vector=True, dim=3),
    lambda: fxdp.make_laplace_fixed(0.5, bounds=(-8, 8), L="1/4"),
    lambda: fxdp.make_duchi(-20, 60, 1),
    lambda: fxdp.make_piecewise(0, 40, 2),
    lambda: fxdp.make_hybrid(0, 40, 2, constant_time=True),
], ids=["bounded_ct", "unbounded", "vector", "laplace_fixed", "duchi", "piecewise", "hybrid"])
def test_multiset_statistic_estimates_without_expanding_reports(make, monkeypatch):
    """The default statistic hands (distinct rows, counts) to estimate_from_multiset: the same
    estimate as in memory, and the n reports are never rebuilt (O(distinct) memory)."""
    from fxdp.mechanisms import _wire
    m = make()
    values, truth = m.synthetic_population(20_000, 4)
    out = m.simulate(values, 4)
    stat = m.report_statistic()
    for lo in range(0, len(out), 3000):
        stat.add(out[lo:lo + 3000])
    monkeypatch.setattr(_wire.ReportMultiset, "reports", lambda self: pytest.fail("reports expanded"))
    got = stat.estimate_rows(truth)
    want = m.estimate_rows(out, truth)
    assert [r["name"] for r in got] == [r["name"] for r in want]
    for g, w in zip(got, want):
        assert g["estimate"] == pytest.approx(w["estimate"], rel=1e-12, abs=1e-12)
        assert g["stderr"] == pytest.approx(w["stderr"], rel=1e-9)


def test_rappor_full_statistic_is_per_cohort_sums():
    """Full RAPPOR streams into per-cohort bit sums (O(cohorts x k)); the decode equals the
    in-memory one, and the statistic merges."""
    m = fxdp.make_rappor_full(32, 2, 4, 0.5, 0.25, 0.75, value_bytes=16)
    values, truth = m.synthetic_population(6_000, 2)
    out = m.simulate(values, 2)
    a, b = m.report_statistic(), m.report_statistic()
    a.add(out[:2500])
    b.add(out[2500:])
    a.merge(b)
    assert a.n == 6_000 and a.y.shape == (4, 32)
    assert a.estimate_rows(truth) == m.estimate_rows(out, truth)


@pytest.mark.parametrize("make", [lambda: fxdp.make_local_hashing(40, 2), lambda: fxdp.make_subset_selection(40, 1),
                                  lambda: fxdp.make_longitudinal_grr(40, 3, 1)], ids=["olh", "ss", "lgrr"])
def test_item_oracles_stream_into_support_counts(make):
    """Item oracles without a cheaper statistic keep per-item support counts (O(d)): chunks and
    merges give the in-memory estimate."""
    m = make()
    values, truth = m.synthetic_population(8_000, 6)
    out = m.simulate(values, 6)
    a, b = m.report_statistic(), m.report_statistic()
    a.add(out[:3000])
    b.add(out[3000:5000])
    b.add(out[5000:])
    a.merge(b)
    assert type(a).__name__ == "SupportCounts" and a.n == 8_000 and a.counts.shape == (40,)
    got, want = a.estimate_rows(truth), m.estimate_rows(out, truth)
    for g, w in zip(got, want):
        assert g["name"] == w["name"] and g["estimate"] == pytest.approx(w["estimate"], rel=1e-12, abs=1e-15)
        assert g["stderr"] == pytest.approx(w["stderr"], rel=1e-12)
