"""Secret-taint constant-time check (ctgrind, issue 13 item 4; tools/ctgrind/run_ctgrind.py).

Every constant-time entry point of csrc/fxdp.h runs under valgrind memcheck with the random words
(the rng's key) and the secret input marked undefined; a branch or a memory index on them is a
report.  Constant-time entries must have none but the listed allowed reports (validity checks, the
fixed budget's public verdict; no known finding is left since issue 32); the lazy forms must be flagged, which shows the check
can fail.  valgrind is installed by .ci/run; there is no skip when it is missing.  About 70 s
with 2 parallel runs.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CTG = ROOT / "tools" / "ctgrind"


def _runner():
    sys.path.insert(0, str(CTG))
    try:
        import run_ctgrind
    finally:
        sys.path.pop(0)
    return run_ctgrind


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("ctgrind") / "ctgrind.json"
    p = subprocess.run([sys.executable, str(CTG / "run_ctgrind.py"), "-j", "2", "--json", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert out.exists(), p.stdout[-4000:] + p.stderr[-4000:]
    doc = json.loads(out.read_text())
    doc["rc"], doc["log"] = p.returncode, p.stdout
    return doc


def test_every_constant_time_entry_point_is_run(results):
    run = _runner()
    assert len(run.ct_entry_points()) >= 18
    assert results["not_run"] == []
    assert all(r["calls"] > 0 and r["failed_calls"] == 0 for r in results["results"]), results["log"]


def test_constant_time_entries_are_clean(results):
    ct = [r for r in results["results"] if r["constant_time"]]
    assert len(ct) >= 18                                  # 17 export/sampler _ct entries + health_fill
    bad = {r["entry"]: r["unexplained"] + [f"stale: {k}" for k in r["stale_known"]] for r in ct if not r["ok"]}
    assert bad == {}, results["log"]
    clean = [r["entry"] for r in ct if not r["known"]]
    # No known finding is left (issue 32): subset selection's, the multi-dimensional form's and
    # dBitFlip's constant-time forms draw their uniform indices with the fixed budget
    # (uniform_version 2), also where the rejection draws reject (d = 1024, k = 3; d = 7, k = 3;
    # buckets = 64, sampled = 3): clean.
    assert sorted(set(r["entry"] for r in ct) - set(clean)) == []
    assert json.loads((CTG / "allowed.json").read_text())["known"] == {}
    assert {"mechanism:subset_selection_ct", "mechanism:subset_selection_ct_d1024", "mechanism:numeric_multidim_ct",
            "mechanism:numeric_multidim_ct_d7", "mechanism:dbitflip_ct", "mechanism:dbitflip_ct_b64"} <= set(clean)


def test_lazy_forms_are_flagged(results):
    """The check can fail: every lazy form branches on its random words (or its input) somewhere that
    is not a listed validity check."""
    allowed, _ = _runner().load_allowed()
    lazy = [r for r in results["results"] if not r["constant_time"]]
    assert len(lazy) >= 13
    for r in lazy:
        assert [k for k in r["keys"] if k not in allowed], r["entry"]
    assert results["rc"] == 0, results["log"]


def test_allowed_and_known_reports_have_reasons():
    doc = json.loads((CTG / "allowed.json").read_text())
    for a in doc["allowed"] + [{"why": w} for w in doc["categories"].values()]:
        assert len(a["why"]) > 40, a
    for entry, lst in doc["known"].items():
        assert entry.startswith("mechanism:") and lst
        for a in lst:
            assert a["why"].startswith("Real finding"), a


def test_a_marked_source_line_is_allowed_by_its_category_only():
    """A family states a validity check beside its code (``/* ct-allowed: validity */`` on the line);
    can fail: an unknown category, or no mark, is not allowed, and the judge then fails a _ct entry."""
    rc = _runner()
    allowed, known = rc.load_allowed()
    marked = "fxdp_mech_x.c: x_check: if (*x > 1u) {   /* ct-allowed: validity */"
    assert marked in allowed and allowed[marked] == json.loads((CTG / "allowed.json").read_text())["categories"]["validity"]
    for key in ("fxdp_mech_x.c: x_check: if (*x > 1u) {   /* ct-allowed: because */",
                "fxdp_mech_x.c: x_check: if (*x > 1u) {"):
        assert key not in allowed
        res = rc.judge({"entry": "mechanism:x_ct", "constant_time": True, "reports": [{"key": key}]}, allowed, known)
        assert not res["ok"] and res["unexplained"] == [key]
    ok = rc.judge({"entry": "mechanism:x_ct", "constant_time": True, "reports": [{"key": marked}]}, allowed, known)
    assert ok["ok"]


def test_parser_reads_branches_and_addresses():
    log = """==1== Conditional jump or move depends on uninitialised value(s)
==1==    at 0x10A752: fxdp_bernoulli_dyadic_ct (fxdp_bernoulli.c:114)
==1==    by 0x109374: main (samplers.c:45)
==1==
==1== Use of uninitialised value of size 8
==1==    at 0x10B000: ss_run (fxdp_mech_subset_selection.c:214)
==1==    by 0x109374: main (ctgrind_main.c:24)
==1==
"""
    reps = _runner().parse_reports(log, [ROOT / "csrc"])
    assert [r["kind"] for r in reps] == ["Conditional jump or move", "Use of uninitialised value"]
    assert reps[0]["key"].startswith("fxdp_bernoulli.c: fxdp_bernoulli_dyadic_ct: ")
    assert reps[1]["key"].startswith("fxdp_mech_subset_selection.c: ss_run: ")
