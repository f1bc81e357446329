"""The mechanical C glue is generated from the fleet annotations of csrc/fxdp.h (one line above
each single-release entry point's prototype), through one table, csrc/host/fxdp_host_fleets.h
(an X-macro list, itself generated): the host fleet entry points are defined by the preprocessor in fxdp_host_mech.c and
declared in fxdp_host.h's generated block, and the Eva (and fuzz) drivers of the single-release
entry points are tools/eva/drivers/generated.c; both must be current (tools/gen_c_glue.py)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_c_glue  # noqa: E402

from fxdp._cffi_build import build_cdef, fleet_table  # noqa: E402


def test_the_generated_prototypes_are_current():
    text = gen_c_glue.HEADER.read_text()
    assert gen_c_glue.render(text) == text, "run python3 tools/gen_c_glue.py"
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_c_glue.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_the_check_fails_on_a_stale_block():
    text = gen_c_glue.HEADER.read_text()
    stale = text.replace("const fxdp_rr_bool_cfg *cfg", "const fxdp_rr_cfg *cfg", 1)
    assert stale != text and gen_c_glue.render(stale) != stale
    assert gen_c_glue.render(stale) == text


def test_the_fleet_table_is_generated_from_the_annotations_of_fxdp_h():
    assert gen_c_glue.FLEETS.read_text() == gen_c_glue.annotated_fleets(), "run python3 tools/gen_c_glue.py"
    rows = fleet_table(ROOT / "csrc")
    by_kind = {r["kind"]: r for r in rows}
    assert not by_kind["rr_bool"]["custom"] and by_kind["rr"]["custom"]     # rr: a device struct of its own
    ue = next(r for r in rows if r["kind"] == "unary_encoding")
    assert (ue["cfg"], ue["x"], ue["out"], ue["out_max"]) == ("fxdp_unary_encoding_cfg", "uint32_t", "uint8_t",
                                                              "FXDP_UNARY_ENCODING_MAX_D")


def test_a_changed_or_malformed_annotation_is_seen(tmp_path):
    """Can fail: an edited annotation changes the table (so --check reports it stale), and one that
    does not parse, or is not above its prototype, is an error naming the entry point."""
    text = gen_c_glue.PUBLIC_HEADER.read_text()
    note = "/* fleet: x 1u max 1u; out (size_t)cfg->d max FXDP_UNARY_ENCODING_MAX_D */\n"
    assert text.count(note) == 1
    h = tmp_path / "fxdp.h"
    h.write_text(text.replace(note, note.replace("(size_t)cfg->d max", "(size_t)cfg->d + 1u max")))
    assert "FLEET(unary_encoding, fxdp_unary_encoding, fxdp_unary_encoding_cfg, uint32_t, uint8_t, 1u, " \
           "(size_t)cfg->d + 1u," in gen_c_glue.annotated_fleets(h)
    h.write_text(text.replace(note, note.replace("; out", ", out")))
    with pytest.raises(ValueError, match="fxdp_unary_encoding does not parse"):
        gen_c_glue.annotated_fleets(h)
    h.write_text(text.replace(note, note + "\n"))
    with pytest.raises(ValueError, match="not on the line before"):
        gen_c_glue.annotated_fleets(h)


def test_every_table_row_is_a_fleet_entry_point_of_the_host_library():
    from fxdp.native import lib
    rows = fleet_table(ROOT / "csrc")
    assert len(rows) >= 13 and len({r["kind"] for r in rows}) == len(rows)
    cdef = build_cdef(ROOT / "csrc")
    for r in rows:
        name = f"fxdp_fleet_{r['kind']}"
        assert f"{name}(" in cdef, name
        assert callable(getattr(lib, name)), name
        # the row's entry point and its constant-time twin are public firmware functions
        assert f"{r['entry']}(" in cdef and f"{r['entry']}_ct(" in cdef, r["entry"]


def test_the_generated_eva_drivers_are_current():
    assert gen_c_glue.EVA_OUT.read_text() == gen_c_glue.eva_drivers(), "run python3 tools/gen_c_glue.py"
    assert gen_c_glue.stale() == []


def test_the_eva_check_fails_on_a_stale_or_missing_driver(tmp_path):
    """A driver file copied without its last function, or a table row whose hand-written driver
    is removed, makes the generated file differ."""
    drivers = tmp_path / "drivers"
    drivers.mkdir()
    for f in gen_c_glue.EVA_DRIVERS.glob("*.c"):
        (drivers / f.name).write_text(f.read_text())
    assert gen_c_glue.eva_drivers(drivers=drivers) == gen_c_glue.EVA_OUT.read_text()
    # without the hand-written geometric driver, the generator writes one from the table row
    mech = drivers / "mechanisms.c"
    mech.write_text(mech.read_text().replace("void eva_geometric(void)", "void eva_off(void)")
                    .replace("void eva_geometric_ct(void)", "void eva_off_ct(void)"))
    assert "void eva_geometric(void)" in gen_c_glue.eva_drivers(drivers=drivers)
    assert "void eva_geometric(void)" not in gen_c_glue.EVA_OUT.read_text()


def test_every_table_entry_point_has_its_eva_drivers():
    """Each row's entry point and its _ct twin are analysed by Eva (and fuzzed): a generated driver
    or a hand-written one, never both."""
    import re
    hand = gen_c_glue.hand_written_drivers()
    generated = set(re.findall(r"^void eva_(\w+)\(void\)", gen_c_glue.EVA_OUT.read_text(), re.M))
    assert not hand & generated, hand & generated
    rows = fleet_table(ROOT / "csrc")
    for r in rows:
        name = r["entry"][len("fxdp_"):]
        assert {name, name + "_ct"} <= hand | generated, name
        assert r["x_max"] and r["out_max"], r
    assert len(generated) >= 2 * 8, sorted(generated)


def _family_code_in_internal_h(text, stems, samplers=""):
    """Names declared in a shared header that belong to one family (fxdp_i_<stem>_..., the memoized
    group's FXDP_I_MEMO_... and fxdp_i_memo_...), comments removed; a name the sampler files
    (samplers: their text) define is a sampler's, whatever its stem (fxdp_i_geometric_cks)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    defined = re.findall(r"\b(fxdp_i_\w+)\s*\(", text) + re.findall(r"#define\s+(FXDP_I_\w+)", text)
    sampler_names = set(re.findall(r"\b(fxdp_i_\w+)\s*\(", samplers))
    return sorted({n for n in defined if n not in sampler_names and (n.lower().startswith("fxdp_i_memo") or
                   any(n.startswith(f"fxdp_i_{s}_") or n == f"fxdp_i_{s}" for s in stems))})


def test_fxdp_internal_h_holds_no_mechanism_code():
    """The shared private header keeps the bit readers, the refill and the generic branch-free
    helpers; a family's draws live in its own fxdp_mech_<stem>.h, the memoized group's in
    fxdp_memoized.h.  Can fail: a family's draw or the memoized macro put back is found."""
    csrc = ROOT / "csrc"
    stems = [p.stem[len("fxdp_mech_"):] for p in csrc.glob("fxdp_mech_*.c")]
    assert "hybrid" in stems and "longitudinal" in stems
    samplers = "".join(p.read_text() for p in csrc.glob("fxdp_*.c") if not p.name.startswith("fxdp_mech_"))
    assert _family_code_in_internal_h((csrc / "fxdp_internal.h").read_text(), stems, samplers) == []
    planted = ("static inline fxdp_status fxdp_i_hybrid_run(fxdp_rng *r) { return 0; }\n"
               "#define FXDP_I_MEMO_ENTRY_POINTS(NAME) x\n")
    assert _family_code_in_internal_h(planted, stems, samplers) == ["FXDP_I_MEMO_ENTRY_POINTS", "fxdp_i_hybrid_run"]
