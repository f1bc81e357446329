"""Frama-C Eva: no undefined behaviour in the C library for any input (issue 18).

tools/eva/run_eva.py analyses every public entry point of csrc/fxdp.h with a driver that
makes every input arbitrary, and fails on an alarm that is not in the committed baseline
(tools/eva/baseline.json, each entry with why it is believed to be imprecision).
tools/eva/run_wp.sh proves the ACSL contracts of the fixed-point helpers with WP.

CI installs frama-c-base, why3 and z3 (.ci/run); there is no skip when they are missing: on a
machine without them these tests fail (apt-get install frama-c-base why3 z3).  The full
analysis is a --slow test with a CPU-time budget (tests/heavy_jobs.py); docs/verification.md has the figures.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import heavy_jobs

ROOT = Path(__file__).resolve().parent.parent
EVA = ROOT / "tools" / "eva"
EVA_TIMEOUT_S = 1800    # wall: a hung run ends here (the CPU budget is heavy_jobs'; 600 s per driver besides)
WP_TIMEOUT_S = 1200


def _tool(name):
    """A module of tools/eva (run_eva, wp_record)."""
    sys.path.insert(0, str(EVA))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def _run_eva(*args, timeout):
    return subprocess.run([sys.executable, str(EVA / "run_eva.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_every_public_entry_point_has_a_driver():
    run_eva = _tool("run_eva")
    public = run_eva.public_entry_points(ROOT / "csrc" / "fxdp.h")
    drivers = run_eva.drivers()
    assert len(public) >= 65
    assert [f for f in public if f[len("fxdp_"):] not in drivers] == []
    assert [d for d in drivers if "fxdp_" + d not in public] == []


def test_baseline_alarms_have_reasons():
    base = json.loads((EVA / "baseline.json").read_text())
    for entry, alarms in base["alarms"].items():
        for a in alarms:
            assert a["why"] and a["why"] != "TODO", (entry, a["alarm"])


class _WPRun:
    """tools/eva/run_wp.sh in the background: started when the Eva run starts, so that its one
    prover fills the core Eva's two runs leave idle between drivers and at the end (about 4
    minutes less of CI wall time than one after the other); test_wp_fixed_point_contracts waits
    for it, or starts it itself when run alone."""
    proc = None
    mode = None     # "sample" (the record of the full proof matches these sources) or "full"

    @classmethod
    def start(cls):
        if cls.proc is None and shutil.which("frama-c") and shutil.which("why3") and shutil.which("z3"):
            wp_record = _tool("wp_record")
            cls.mode, fns = wp_record.plan(wp_record.load(), wp_record.key())
            # timed inside the child: the test may collect it long after it ended
            timed = ("import resource, subprocess, sys, time; t = time.monotonic(); rc = subprocess.call(sys.argv[1:]); "
                     "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
                     "print(f'WP wall time: {time.monotonic() - t:.1f} s, CPU time: {u.ru_utime + u.ru_stime:.1f} s'); "
                     "sys.exit(rc)")
            cls.proc = subprocess.Popen([sys.executable, "-c", timed, "sh", str(EVA / "run_wp.sh")], cwd=ROOT,
                                        stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, "WP_PAR": "1", "WP_FNS": ",".join(fns)},
                                        start_new_session=True)
        return cls.proc

    @classmethod
    def kill(cls):
        """The wrapper, run_wp.sh and its provers (their own process group)."""
        try:
            os.killpg(cls.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        cls.proc.communicate()

    @classmethod
    def result(cls, timeout):
        proc = cls.start()
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            cls.kill()
            raise
        return proc.returncode, out, err


@pytest.fixture(scope="module", autouse=True)
def _stop_wp_run():
    yield
    if _WPRun.proc is not None and _WPRun.proc.poll() is None:    # not collected (-k, -x): no orphan
        _WPRun.kill()


SAMPLE_BUDGET_S = 60    # recorded seconds of Eva re-analysed in CI when the record matches (run_eva.py)


@pytest.mark.slow
def test_eva_no_new_alarm(tmp_path):
    """CI's fixed budget for this proof run: when tools/eva/record.json holds the full run on exactly
    these sources (same analysis key), a sample drawn by the key is analysed again and must give
    its recorded alarms; otherwise every entry point is analysed.  Either way no alarm is new."""
    assert shutil.which("frama-c"), "frama-c not installed: apt-get install frama-c-base (CI does)"
    _WPRun.start()
    out = tmp_path / "eva.json"
    cpu0 = heavy_jobs.cpu_seconds()
    p = _run_eva("-j", "2", "--sample-budget", str(SAMPLE_BUDGET_S), "--json", str(out), timeout=EVA_TIMEOUT_S)
    print(p.stdout.splitlines()[0])
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    heavy_jobs.check("eva", heavy_jobs.cpu_seconds() - cpu0)
    res = json.loads(out.read_text())
    assert res["missing"] == []
    assert all(r["complete"] for r in res["results"].values())
    if res["mode"] == "sample":
        record = json.loads((EVA / "record.json").read_text())
        assert record["key"] == res["key"]
        assert sorted(record["entries"]) == sorted(res["public"])      # the record covers every entry point
        base = json.loads((EVA / "baseline.json").read_text())["alarms"]
        assert all(set(r["alarms"]) <= {a["alarm"] for a in base.get(e, [])} for e, r in record["entries"].items())
        assert len(res["results"]) >= 3
    else:
        assert res["mode"] == "full" and sorted(res["results"]) == sorted(res["public"])


def _record_for(tmp_path, entries):
    """A copy of the record with the current key and these entries changed."""
    run_eva = _tool("run_eva")
    key = run_eva.analysis_key(ROOT / "csrc", EVA / "baseline.json")
    doc = {"key": key, "frama_c": "x", "date": "x", "wall_s": 0,
           "entries": {f"fxdp_{n}": {"alarms": [], "time_s": 1.0} for n in run_eva.drivers()}}
    doc["entries"].update(entries)
    f = tmp_path / "record.json"
    f.write_text(json.dumps(doc))
    return f, key


def test_eva_sample_must_reproduce_the_record(tmp_path):
    """The sample can fail: in one run (both drivers of one file, one parse), the entry point whose
    record claims an alarm the analysis does not raise is refused, and the other, recorded as it is,
    passes.  (A record of other sources: test_eva_plan_...)"""
    assert shutil.which("frama-c"), "frama-c not installed: apt-get install frama-c-base (CI does)"
    f, _ = _record_for(tmp_path, {"fxdp_bits": {"alarms": ["fxdp_rng.c: made up :: assert x"], "time_s": 1.0}})
    p = _run_eva("-j", "2", "--sample-budget", "1", "--sample", "bits", "rng_position", "--record-file", str(f),
                 timeout=300)
    assert "matches these sources" in p.stdout and p.returncode == 1, p.stdout
    lines = p.stdout.splitlines()
    at = {ln.split()[0]: i for i, ln in enumerate(lines) if ln.startswith("fxdp_")}
    assert set(at) == {"fxdp_bits", "fxdp_rng_position"}, p.stdout
    assert "differs from the record" in lines[at["fxdp_bits"] + 1], p.stdout
    assert p.stdout.count("differs from the record") == 1, p.stdout


def test_eva_plan_samples_only_a_record_of_these_sources():
    run_eva = _tool("run_eva")
    names = ["bits", "rr", "geometric"]
    record = {"key": "k", "entries": {f"fxdp_{n}": {"alarms": [], "time_s": 10.0} for n in names}}
    mode, sample = run_eva.plan(record, "k", names, 15)
    assert mode == "sample" and len(sample) == 2 and set(sample) <= set(names)
    assert run_eva.plan(record, "k", names, 15) == (mode, sample)           # drawn by the key: repeatable
    assert run_eva.plan(record, "other", names, 15) == ("full", names)      # other sources
    assert run_eva.plan({}, "k", names, 15) == ("full", names)              # no record
    assert run_eva.plan(record, "k", names + ["rappor"], 15) == ("full", names + ["rappor"])   # a driver it lacks


def test_analysis_key_changes_with_any_source(tmp_path):
    run_eva = _tool("run_eva")
    src = tmp_path / "csrc"
    shutil.copytree(ROOT / "csrc", src)
    base = run_eva.analysis_key(src, EVA / "baseline.json")
    assert base == run_eva.analysis_key(ROOT / "csrc", EVA / "baseline.json")     # content, not place
    # and wherever the copy is: beside the checkout, in a directory whose path sorts before its
    # tools/ ("!" < "/") and in one that sorts after it ("~" > "/") (a key once ordered the files
    # by absolute path, and only a copy sorting after tools/ saw it)
    for mark in ("!", "~"):
        side = Path(tempfile.mkdtemp(prefix=ROOT.name + mark, dir=ROOT.parent))
        try:
            shutil.copytree(ROOT / "csrc", side / "csrc")
            assert run_eva.analysis_key(side / "csrc", EVA / "baseline.json") == base, side
        finally:
            shutil.rmtree(side)
    for f in ("fxdp_rng.c", "fxdp_internal.h", "host/fxdp_host_rappor_full.c"):
        old = (src / f).read_bytes()
        (src / f).write_bytes(old + b"\n")
        assert run_eva.analysis_key(src, EVA / "baseline.json") != base, f
        (src / f).write_bytes(old)
    assert run_eva.analysis_key(src, EVA / "baseline.json") == base


def test_eva_finds_a_removed_parameter_check(tmp_path):
    """The check can fail: drop fxdp_bits' `n > 32u` check in a copy and expect a new alarm
    (the bit reader would shift by n - 32 >= 32 bits: undefined behaviour)."""
    assert shutil.which("frama-c"), "frama-c not installed: apt-get install frama-c-base (CI does)"
    src = tmp_path / "csrc"
    shutil.copytree(ROOT / "csrc", src)
    rng = src / "fxdp_rng.c"
    text = rng.read_text()
    old = "if (r == NULL || out == NULL || n > 32u) {"
    assert text.count(old) == 1
    rng.write_text(text.replace(old, "if (r == NULL || out == NULL) {"))
    p = _run_eva("--src", str(src), "--only", "bits", timeout=300)
    assert p.returncode == 1, p.stdout
    assert re.search(r"NEW .*shift", p.stdout), p.stdout
    # and the unmodified library passes the same driver
    p = _run_eva("--only", "bits", timeout=300)
    assert p.returncode == 0, p.stdout


@pytest.mark.slow
def test_wp_fixed_point_contracts():
    """WP proves every goal of the fixed-point helpers' ACSL contracts (csrc/fxdp.h), with RTE
    guards: the header's one-line promises are theorems.  About 3 CPU minutes of Z3, one prover
    at a time, each goal within a budget of Z3 steps (not seconds: CI once failed a 5 s goal
    under a 10 s wall limit while the suite starved Z3 of CPU); a prover crash gets one rerun.
    CI's fixed budget: when tools/eva/record_wp.json holds the full proof of exactly these sources,
    a sample of wp_record.SAMPLE functions drawn by its key is proved again; else every function."""
    assert shutil.which("frama-c") and shutil.which("why3") and shutil.which("z3"), \
        "apt-get install frama-c-base why3 z3 (CI does)"
    rc, out, err = _WPRun.result(timeout=WP_TIMEOUT_S)
    m = re.search(r"Proved goals:\s*(\d+) / (\d+)", out)
    assert m, out + err
    proved, total = int(m.group(1)), int(m.group(2))
    wp = json.loads((EVA / "baseline.json").read_text())["wp"]
    if _WPRun.mode == "sample":                 # the full proof of these sources is on record
        record = _tool("wp_record").load()
        assert record["total"] >= wp["total"] and record["proved"] == record["total"], record
        assert total > 0, out
    else:
        assert total >= wp["total"], out        # none lost (a contract or function dropped)
    assert proved == total, out                 # every goal proved (run_wp.sh's exit status says the same)
    assert rc == 0, out
    cpu = re.search(r"WP wall time: [0-9.]+ s, CPU time: ([0-9.]+) s", out)
    assert cpu, out[-2000:]
    heavy_jobs.check("wp", float(cpu.group(1)))


def _fake_z3(tmp_path, body):
    """A z3 first in PATH: `body` decides, then the real one runs (why3 finds provers by PATH)."""
    d = tmp_path / "bin"
    d.mkdir()
    z3 = d / "z3"
    z3.write_text("#!/bin/sh\ncase \"$1\" in -version|--version) exec %s \"$@\";; esac\n%s\nexec %s \"$@\"\n"
                  % (shutil.which("z3"), body, shutil.which("z3")))
    z3.chmod(0o755)
    return {**os.environ, "PATH": f"{d}:{os.environ['PATH']}", "WP_FNS": "fxdp_clz32"}


@pytest.mark.parametrize("always", [False, True], ids=["once", "always"])
def test_wp_reruns_a_crashed_prover_once_and_no_more(tmp_path, always):
    """run_wp.sh's rerun: a goal whose Z3 crashed once is proved on the second run; a prover that
    always crashes leaves the goals unproved and the exit status 1 (the rerun proves nothing itself)."""
    assert shutil.which("frama-c") and shutil.which("why3") and shutil.which("z3"), \
        "apt-get install frama-c-base why3 z3 (CI does)"
    crash = ('echo "Segmentation fault" >&2; exit 139' if always else
             f'if mkdir {tmp_path}/crashed 2>/dev/null; then echo "Segmentation fault" >&2; exit 139; fi')
    p = subprocess.run(["sh", str(EVA / "run_wp.sh")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env=_fake_z3(tmp_path, crash))
    m = re.search(r"Proved goals:\s*(\d+) / (\d+)", p.stdout)
    assert m, p.stdout + p.stderr
    assert "prover errors in fxdp_clz32" in p.stdout, p.stdout
    proved, total = int(m.group(1)), int(m.group(2))
    if always:
        assert proved < total and p.returncode == 1, p.stdout
    else:
        assert "proved on the second run: typed_fxdp_clz32" in p.stdout, p.stdout
        assert proved == total and p.returncode == 0, p.stdout


def test_wp_plan_samples_only_a_record_of_these_sources(tmp_path):
    wp = _tool("wp_record")
    k, fns = wp.key(), wp.functions()
    assert len(fns) == 17 and "fxdp_mul_q_i64" in fns
    rec = {"key": k, "functions": fns, "proved": 5, "total": 5}
    mode, sample = wp.plan(rec, k)
    assert mode == "sample" and len(sample) == wp.SAMPLE and set(sample) <= set(fns)
    assert wp.plan(rec, "other") == ("full", fns)                       # other sources
    assert wp.plan({**rec, "proved": 4}, k) == ("full", fns)            # a record of a failed proof
    assert wp.plan({**rec, "functions": fns[:-1]}, k) == ("full", fns)  # a function it lacks
    src = tmp_path / "csrc"
    shutil.copytree(ROOT / "csrc", src)
    assert wp.key(src) == k
    (src / "fxdp_fixed.c").write_text((src / "fxdp_fixed.c").read_text() + "\n")
    assert wp.key(src) != k
