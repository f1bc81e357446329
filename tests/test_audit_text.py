"""`fxdp audit` text output says what its JSON says: a naive mechanism's "no guarantee claimed"
note appears in both (issue 31, point 5)."""
import json

from fxdp.cli import main

NAIVE = '[mechanism]\nkind = "naive_laplace_fixed"\nepsilon = 0.25\nqformat = "Q9.6"\n'
SAFE = ('[mechanism]\nkind = "laplace_fixed"\nepsilon = 0.5\nbounds = [-2, 2]\nqformat = "Q9.6"\n'
        'L = "1/4"\nuniform_bits = 20\n')


def _audit(capsys, tmp_path, text, *flags):
    cfg = tmp_path / "m.toml"
    cfg.write_text(text)
    assert main(["audit", str(cfg), *flags]) == 0
    return capsys.readouterr().out


def test_naive_audit_note_in_text_and_json(capsys, tmp_path):
    note = json.loads(_audit(capsys, tmp_path, NAIVE, "--json"))["constants"]["note"]
    assert "no guarantee claimed" in note
    text = _audit(capsys, tmp_path, NAIVE)
    assert "no guarantee claimed" in text
    assert note in " ".join(text.split())
    assert "constants          \n" not in text          # no empty constants line


def test_a_checked_audit_shows_its_constants_and_no_note(capsys, tmp_path):
    d = json.loads(_audit(capsys, tmp_path, SAFE, "--json"))
    assert "note" not in d["constants"] and "delta_0" in d["constants"]
    text = _audit(capsys, tmp_path, SAFE)
    assert "no guarantee claimed" not in text
    assert "constants          delta_0=" in text
