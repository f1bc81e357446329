"""The mechanical C glue is generated from one table: the host fleet entry points
(csrc/host/fxdp_host_fleets.h, an X-macro list) are defined by the preprocessor in
fxdp_host_mech.c and declared in fxdp_host.h's generated block, which must be current."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_host_fleets  # noqa: E402

from fxdp._cffi_build import build_cdef, fleet_table  # noqa: E402


def test_the_generated_prototypes_are_current():
    text = gen_host_fleets.HEADER.read_text()
    assert gen_host_fleets.render(text) == text, "run python3 tools/gen_host_fleets.py"
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_host_fleets.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_the_check_fails_on_a_stale_block():
    text = gen_host_fleets.HEADER.read_text()
    stale = text.replace("const fxdp_rr_bool_cfg *cfg", "const fxdp_rr_cfg *cfg", 1)
    assert stale != text and gen_host_fleets.render(stale) != stale
    assert gen_host_fleets.render(stale) == text


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
