"""Checks shared by the tests of the string discovery kinds (tests/test_sequence_fragment_puzzle.py,
tests/test_treehist.py): the fleet against the C host fleet and the reference, and the command
line's round trip."""
import json

import numpy as np

from fxdp import strhash
from fxdp.bitsource import ChaCha20Source


def check_fleet_c_and_reference(m, seed, id_step, id_base):
    """The Numba fleet's reports and bits used are the reference's device by device; the C host
    fleet (cffi) gives the same reports, statuses and bits; junk past a string's length changes
    nothing; one C release equals the reference release.  Returns the fleet's reports."""
    from fxdp import native
    from fxdp.mechanisms import _device as dv
    from fxdp.mechanisms._fleet import simulate_detailed
    L = m.max_length
    vals = [f"d{i}".encode()[:L] for i in range(400)] + [b"\xff" * L, b"x", "Grüße".encode()[:L]]
    ids = np.arange(len(vals), dtype=np.uint64) * id_step + id_base
    out_nb, st_nb, bits_nb, _ = simulate_detailed(m, vals, seed, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, vals, seed, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert np.array_equal(out_nb, out_c) and np.array_equal(bits_nb, bits_c)
    for i in range(0, len(vals), 9):
        src = ChaCha20Source(seed, device_id=int(ids[i]))
        assert m.release_output(out_nb[i]) == m.release(src, vals[i]), i
        assert bits_nb[i] == src.bits_used, i
    rows = strhash.encoded_rows(vals, m.check_input, L)
    for i in range(rows.shape[0]):
        rows[i, 1 + rows[i, 0]:] = 0x5A
    assert np.array_equal(dv.c_fleet(m, rows, seed, device_ids=ids)[0], out_nb)
    for i in (0, 7, len(vals) - 1):
        r = native.new_rng_seeded(seed, int(ids[i]))
        assert dv.c_release(m, r, vals[i]) == m.release(ChaCha20Source(seed, device_id=int(ids[i])), vals[i])
    return out_nb


def check_cli_round_trip_and_discovery(tmp_path, capsys, mechanism_toml):
    """simulate --values writes the reports (fingerprinted), decode gives them back; fxdp estimate
    without --candidates prints the three frequent strings discovery finds (30,000, 20,000 and
    12,000 of 65,000 devices), with --candidates their estimates within 4 standard errors."""
    from fxdp.cli import main
    from fxdp.config import load_config
    cfg = tmp_path / "kind.toml"
    cfg.write_text("[mechanism]\n" + mechanism_toml)
    words = ["alpha"] * 30000 + ["beta"] * 20000 + ["gamma"] * 12000 + [f"z{i}" for i in range(3000)]
    (tmp_path / "v.txt").write_text("\n".join(words) + "\n")
    assert main(["simulate", str(cfg), "--values", str(tmp_path / "v.txt"), "--seed", "2",
                 "--write-reports", str(tmp_path / "r.bin")]) == 0
    capsys.readouterr()
    conf = load_config(cfg)
    m = conf.mechanism
    reports = m.decode_reports(tmp_path / "r.bin")
    assert np.array_equal(reports, m.simulate(words, seed=conf.seed(2)))
    assert main(["estimate", str(cfg), str(tmp_path / "r.bin"), "--top", "3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["estimates"]
    assert [r["name"] for r in rows] == ["alpha", "beta", "gamma"]
    (tmp_path / "c.txt").write_text("beta\nnobody\n")
    assert main(["estimate", str(cfg), str(tmp_path / "r.bin"), "--candidates", str(tmp_path / "c.txt"),
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["estimates"]
    assert [r["name"] for r in rows] == ["beta", "nobody"]
    assert abs(rows[0]["estimate"] - 20000 / 65000) < 4 * rows[0]["stderr"]
    assert abs(rows[1]["estimate"]) < 4 * rows[1]["stderr"]


def check_c_refuses(fn, cfg_type, base_cfg, cases, x_len, out_type, out_count):
    """Each (length, field, bad) case: the input's length byte, then a cfg field ("a.b.c") set to a
    bad value: FXDP_ERR_PARAM, and the output (a sentinel) untouched."""
    from fxdp import native
    ffi, lib = native.ffi, native.lib
    for length, field, bad in cases:
        cfg = ffi.new(cfg_type + " *", base_cfg)
        if field:
            obj = cfg
            *path, last = field.split(".")
            for part in path:
                obj = getattr(obj, part)
            setattr(obj, last, bad)
        x = np.zeros(x_len, np.uint8)
        x[0], x[1] = length, 65
        out = np.full(out_count, 9, np.dtype(out_type[:-2]))
        st = fn(native.new_rng_seeded(1, 1), cfg, ffi.from_buffer("uint8_t[]", x), ffi.from_buffer(out_type + "[]", out))
        assert st == lib.FXDP_ERR_PARAM and (out == 9).all(), (length, field, bad)
