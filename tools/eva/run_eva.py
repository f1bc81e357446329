#!/usr/bin/env python3
"""Frama-C Eva analysis of every public entry point of csrc/fxdp.h (issue 18).

Each driver function ``eva_<name>`` in tools/eva/drivers/*.c calls ``fxdp_<name>`` with every
input arbitrary (see tools/eva/eva_common.h).  This script runs Eva once per driver with the
fixed options below (the library and each driver file are parsed once and saved, and every
entry point of that file loads the saved AST), collects the alarms (properties Eva could not prove: possible undefined
behaviour), prints a per-entry-point table, and compares them with the committed baseline
(tools/eva/baseline.json: each remaining alarm with the reason it is believed to be
imprecision).  Exit status 1 on a new alarm (one not in the baseline), on a driver missing for
a public entry point, or on an analysis that did not complete.

    python3 tools/eva/run_eva.py [-j N] [--only NAME ...] [--src DIR] [--json FILE]
                                 [--update-baseline] [--no-baseline]
                                 [--record] [--sample-budget S [--sample NAME ...]]

--src analyses another copy of the library (the test of the check itself analyses a copy with
one parameter check removed and expects a new alarm).

The record (tools/eva/record.json).  --record, after a full run that passed, writes the analysis
key of these sources and every entry point's alarms and time.  The key is a SHA-256 over everything
the analysis reads or depends on: every library source and header, the drivers, eva_builtins.c,
eva_common.h, the options (global, per entry point, SPLIT_RETURN), the baseline's alarms and
Frama-C's version.  --sample-budget S is CI's fixed budget for this proof run (the brief: proof
runs get a few minutes in CI, longer runs are documented): when the record's key equals the key of
the sources analysed now, the full run on exactly these sources is on record, and Eva re-analyses
a sample of the entry points (drawn by the key, so each change of the sources draws another) of
about S seconds of recorded time, each of which must give its recorded alarms; when the key
differs (a source changed and nobody recorded the full run since), every entry point is analysed,
as without the option.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DRIVERS = HERE / "drivers"
BASELINE = HERE / "baseline.json"
RECORD = HERE / "record.json"

EXTRA = os.environ.get("EVA_EXTRA", "").split()   # experiments only

# Internal functions returning an fxdp_status: their return states are split on "== FXDP_OK"
# (-eva-split-return-function f:0), so that what holds only when the check or draw succeeded
# (pointers non-NULL, counts in range, outputs written) is not joined with the failure states.
# "-eva-split-return auto" alone cannot split a function that ends in `return g(...)` or
# `return st;` after a join: it reports "cannot properly split" and every caller then sees
# NULL pointers and unwritten outputs after `if (st != FXDP_OK) return st;`.
SPLIT_RETURN = [
    "fxdp_i_ready", "fxdp_i_refill", "refill_fail", "refill_hook",
    "fxdp_i_bit", "fxdp_i_bits", "fxdp_i_bits64",
    "fxdp_i_rd_bit", "fxdp_i_rd_bits", "fxdp_i_rd_bits64", "fxdp_i_rd_dyadic_ct", "fxdp_i_rd_dyadic_odd",
    "fxdp_i_rd_rational", "fxdp_i_rd_uniform32", "fxdp_i_rd_uniform64",
    "fxdp_i_uniform_below_u32", "fxdp_i_uniform_below_u64",
    "fxdp_i_bernoulli_dyadic", "fxdp_i_bernoulli_dyadic_ct", "fxdp_i_bernoulli_exp",
    "fxdp_i_bernoulli_rational", "rational_core", "fxdp_i_take_bits", "fxdp_i_discrete_laplace", "fxdp_i_table_sample_ct",
    "rr_bool_check", "rr_check", "geo_check", "geo_ct_check",
    "rappor_check", "rappor_run", "ue_check", "ue_run", "cms_check", "cms_cell", "pem_check", "pem_item", "hh_check", "treehist_check", "fxdp_i_strhash32", "lh_check", "lh_run", "fxdp_lg_one", "draw", "run", "finish",
    "fxdp_rappor_full_provision", "fxdp_longitudinal_provision", "fxdp_i_memo_device", "grr_step", "grr_report", "grr_report_checked",
    "grr_export", "ue_report", "ue_report_checked", "ue_export",
    "sample_buckets", "dbf_report", "dbf_report_checked", "dbf_export",
    "md_check", "md_subset", "md_report", "md_run", "duchi_run", "fxdp_i_duchi_lazy", "fxdp_i_duchi_ct",
    "fxdp_i_piecewise_lazy", "fxdp_i_piecewise_ct", "fxdp_i_hybrid_run",
]

# The analysis, stated once (docs/verification.md quotes it).
EVA_OPTS = [
    "-machdep", "gcc_x86_64",          # LP64 host ABI with GCC's builtins declared (first: the
                                       # parse takes EVA_OPTS[:2], a loaded run the rest)
    "-eva",
    "-eva-precision", "1",             # then the explicit settings below override its choices
    "-eva-auto-loop-unroll", "64",     # constant-bound loops up to 64 iterations (init, wipes, cordic)
    "-eva-slevel", "10",
    "-eva-split-return", "auto",       # keep "returned OK" apart from "failed" (outputs written only on OK)
    "-eva-split-return-function", ",".join(f"{f}:0" for f in SPLIT_RETURN),   # and explicitly (above)
    "-eva-partition-history", "1",     # keep the two sides of the last if apart (check-then-draw loops)
    "-eva-domains", "cvalue,symbolic-locations,octagon,equality",   # octagon: relations x - y in [a, b]
                                       # (the bit reader); equality: a local copy of a cfg field and
                                       # the field stay equal, so a check on one reduces the other
    "-eva-no-show-progress",
    "-eva-msg-key=-initial-state,-final-states",
    "-eva-print-callstacks",
    *EXTRA,
]
# Per-entry-point additions to EVA_OPTS (driver name without eva_ -> extra options), each with
# its reason; docs/verification.md states them with the global options.
ENTRY_OPTS: dict[str, list[str]] = {
    # provision: secret[0..8) and the cohort are written by `for (i = 0; st == FXDP_OK && i < 8u; i++)`
    # and copied only if st == FXDP_OK; slevel 100 in that function keeps the loop's exits apart
    # geo_ct_release: one loop of FXDP_GEOMETRIC_MAX_N writes every index entry, drawing for i < n
    # until a draw fails; slevel keeps "drawn, so v written" apart from "not drawn" in each pass
    "geometric_ct": ["-eva-slevel-function", "geo_ct_release:200"],
    "geometric_ct_rom": ["-eva-slevel-function", "geo_ct_release:200"],
    # the lazy RAPPOR release's chunk loop (runs of 32 flips): one state per iteration is precise
    # enough (0 alarms) and cheaper (37.8 -> 26.2 s alone, 2026-12-07)
    "rappor": ["-eva-slevel-function", "rappor_run_chunks:0"],
    # the fleet: the release's contract in place of its body (drivers/rappor_full_fleet.c says why)
    "rappor_full_fleet": ["-eva-use-spec", "fxdp_rappor_full_release"],
    "rappor_full_provision": ["-eva-slevel-function", "fxdp_rappor_full_provision:100"],
    "rappor_full_release": ["-eva-slevel-function", "fxdp_rappor_full_provision:100"],
    "rappor_full_release_w": ["-eva-slevel-function", "fxdp_rappor_full_provision:100"],
    # the same loop shape in the longitudinal oracles' provisioning (secret[0..8) copied only on OK)
    "longitudinal_provision": ["-eva-slevel-function", "fxdp_longitudinal_provision:100"],
    # and in the export release of L-GRR, L-OUE and dBitFlip (fxdp_i_memo_device: the secret drawn
    # into the workspace, `for (i = 0; st == FXDP_OK && i < 8u; i++)`), convenience and _w forms
    **{name: ["-eva-slevel-function", "fxdp_i_memo_device:100"]
       for base in ("longitudinal_grr", "longitudinal_grr_ct", "longitudinal_ue", "longitudinal_ue_ct",
                    "dbitflip", "dbitflip_ct") for name in (base, base + "_w")},
}

TIMEOUT_S = 600     # per driver (the slowest, dBitFlip's ct forms: 81-83 s in the CI run of 2026-12-06);
                    # the whole run has a fixed budget in tests/test_eva.py
# Started first, so that the other drivers fill the second core meanwhile (the slowest in the CI
# run of 2026-12-06, -j 2, beside the rest of the suite: 58-83 s each).
LONGEST = ("dbitflip_report_ct", "dbitflip_ct", "dbitflip_ct_w", "dbitflip", "numeric_multidim_ct", "dbitflip_w")

ALARM_RE = re.compile(r"^\[eva:alarm\] (?P<file>[^:]+):(?P<line>\d+): Warning: *\n(?P<body>(?:  .*\n)+)", re.M)
SUMMARY_RE = re.compile(r"(\d+) alarms? generated by the analysis")
NO_ALARM_RE = re.compile(r"No alarms raised during the analysis")
DRIVER_RE = re.compile(r"^void eva_(\w+)\(void\)", re.M)
PROTO_RE = re.compile(r"^[a-z_][a-z0-9_ ]*?\b(fxdp_\w+)\s*\(", re.M)


def public_entry_points(header: Path) -> list[str]:
    """Function names declared in fxdp.h (typedefs excluded)."""
    text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
    names = []
    for m in PROTO_RE.finditer(text):
        line = text[m.start(): text.index("\n", m.start())]
        if line.startswith("typedef"):
            continue
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def drivers() -> dict[str, Path]:
    out = {}
    for f in sorted(DRIVERS.glob("*.c")):
        for name in DRIVER_RE.findall(f.read_text()):
            out[name] = f
    return out


def sources(src: Path) -> list[str]:
    files = sorted(str(p) for p in src.glob("*.c"))
    files.append(str(src / "host" / "fxdp_host_rappor_full.c"))    # fxdp_rappor_full_fleet (in fxdp.h)
    files.append(str(HERE / "eva_builtins.c"))
    return files


def frama_c_version() -> str:
    return subprocess.run(["frama-c", "-version"], capture_output=True, text=True).stdout.strip()


def analysis_key(src: Path, baseline: Path) -> str:
    """SHA-256 over every input of the analysis (the module docstring lists them).  Whole-program
    on purpose: any change to any source or header changes every entry point's key."""
    lib = {Path(f) for f in sources(src) if Path(f).is_relative_to(src)} | set(src.rglob("*.h"))
    tools = set(DRIVERS.glob("*.c")) | set(HERE.glob("*.h")) | {HERE / "eva_builtins.c"}
    # ordered by name within the library and the tools, not by absolute path: the key of a copy
    # of the library elsewhere is the key of the original
    files = sorted((f"csrc/{f.relative_to(src)}", f) for f in lib) + sorted((f"eva/{f.relative_to(HERE)}", f) for f in tools)
    h = hashlib.sha256()
    for rel, f in files:
        data = f.read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    alarms = json.loads(baseline.read_text()).get("alarms", {}) if baseline.exists() else {}
    h.update(json.dumps({"options": EVA_OPTS, "entry_options": ENTRY_OPTS, "baseline": alarms,
                         "frama-c": frama_c_version()}, sort_keys=True).encode())
    return h.hexdigest()


def sample_of(record: dict, budget_s: float) -> list[str]:
    """Driver names, in an order drawn by the record's key, until their recorded times pass budget_s."""
    names = sorted(record["entries"], key=lambda e: hashlib.sha256((record["key"] + e).encode()).hexdigest())
    out, spent = [], 0.0
    for e in names:
        if spent >= budget_s:
            break
        out.append(e[len("fxdp_"):])
        spent += record["entries"][e]["time_s"]
    return out


def plan(record: dict, key: str, driver_names: list[str], budget_s: float,
         sample: list[str] | None = None) -> tuple[str, list[str]]:
    """("sample", the drivers to re-analyse) when the record is of these sources (its key) and
    covers every driver; else ("full", every driver)."""
    if record.get("key") == key and sorted(record.get("entries", {})) == sorted(f"fxdp_{n}" for n in driver_names):
        return "sample", list(sample) if sample else sample_of(record, budget_s)
    return "full", list(driver_names)


def alarm_key(src: Path, file: str, line: int, body: str) -> str:
    """A key that survives edits elsewhere: file name, the source line's text, the assertion."""
    p = Path(file)
    try:
        text = p.read_text().splitlines()[line - 1].strip()
    except (OSError, IndexError):
        text = "?"
    text = re.sub(r"\s+", " ", text)
    body = re.sub(r"\s+", " ", body).strip()
    return f"{p.name}: {text} :: {body}"


def parse_cmd(driver: Path, src: Path) -> list[str]:
    """The kernel part of a run: the machine, the preprocessor and the files (library + driver)."""
    return [*EVA_OPTS[:2], f"-cpp-extra-args=-I{src} -I{HERE}", *sources(src), str(driver)]


def parse_once(driver: Path, src: Path, save: Path) -> dict:
    """Parse the library with one driver file and save the AST (frama-c -save): each of the file's
    entry points then loads it (-load) instead of parsing the ~30 files again (3 CPU s a parse)."""
    t0 = time.monotonic()
    p = subprocess.run(["frama-c", *parse_cmd(driver, src), "-save", str(save)], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    return {"driver": driver.name, "rc": p.returncode, "time_s": round(time.monotonic() - t0, 2),
            "log_tail": "" if p.returncode == 0 else (p.stdout + p.stderr)[-3000:]}


def run_one(name: str, driver: Path, src: Path, saved: Path | None = None) -> dict:
    """Eva on eva_<name>: from the saved AST of its driver file when given (parse_once), else
    parsing the sources itself."""
    head = ["-load", str(saved)] if saved is not None else parse_cmd(driver, src)
    cmd = ["frama-c", *head, *EVA_OPTS[2:], *ENTRY_OPTS.get(name, []), "-main", f"eva_{name}"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
        log, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        log, rc = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), -1
    dt = time.monotonic() - t0
    alarms = []
    for m in ALARM_RE.finditer(log):
        if "postcondition got status" in m.group("body") and m.group("file").endswith("fxdp.h"):
            continue    # the ACSL contracts of fxdp.h's fixed-point helpers: WP proves them (run_wp.sh)
        k = alarm_key(src, m.group("file"), int(m.group("line")), m.group("body").split("\n  stack:")[0])
        k = k.split(" stack: ")[0]
        if k not in alarms:
            alarms.append(k)
    complete = rc == 0 and ("ANALYSIS SUMMARY" in log)
    m = SUMMARY_RE.search(log)
    summary = int(m.group(1)) if m else (0 if NO_ALARM_RE.search(log) else None)
    reached = f"fxdp_{name}" in log or complete
    return {"entry": f"fxdp_{name}", "alarms": alarms, "summary_alarms": summary, "time_s": round(dt, 2),
            "complete": complete, "rc": rc, "log_tail": "" if complete else log[-3000:], "reached": reached}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", type=int, default=1, help="parallel Frama-C runs (default 1)")
    ap.add_argument("--only", nargs="*", help="driver names (without eva_), default all")
    ap.add_argument("--src", type=Path, default=REPO / "csrc", help="library sources (default csrc/)")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    ap.add_argument("--no-baseline", action="store_true", help="report only, compare with nothing")
    ap.add_argument("--update-baseline", action="store_true",
                    help="write the current alarms into the baseline (keeping existing reasons)")
    ap.add_argument("-v", action="store_true", help="list every alarm")
    ap.add_argument("--record", action="store_true",
                    help="after a full run that passed, write the record (key, alarms, times)")
    ap.add_argument("--record-file", type=Path, default=RECORD)
    ap.add_argument("--sample-budget", type=float,
                    help="if the record matches these sources, re-analyse a sample of about this many "
                         "recorded seconds; else analyse every entry point")
    ap.add_argument("--sample", nargs="*", help="with --sample-budget: these drivers as the sample")
    args = ap.parse_args(argv)
    if args.sample_budget is not None and (args.only or args.record):
        ap.error("--sample-budget analyses the record's sample or everything: not with --only or --record")

    if shutil.which("frama-c") is None:
        print("frama-c not found: apt-get install frama-c-base", file=sys.stderr)
        return 2
    src = args.src.resolve()
    drv = drivers()
    public = public_entry_points(src / "fxdp.h")
    missing = [f for f in public if f[len("fxdp_"):] not in drv]
    extra = [n for n in drv if f"fxdp_{n}" not in public]
    names = args.only if args.only else list(drv)

    mode, record, key = "full" if not args.only else "only", None, None
    if args.sample_budget is not None or args.record:
        key = analysis_key(src, args.baseline)
    if args.sample_budget is not None:
        old = json.loads(args.record_file.read_text()) if args.record_file.exists() else {}
        mode, names = plan(old, key, list(drv), args.sample_budget, args.sample)
        if mode == "sample":
            record = old
            print(f"record {args.record_file.name} matches these sources: every entry point analysed on "
                  f"{old['date']} ({old['frama_c']}), {old['wall_s']} s wall; re-analysing {len(names)}: "
                  + ", ".join(names))
        else:
            print(f"record {args.record_file.name} does not match these sources "
                  f"({'no record' if not old else 'key ' + old.get('key', '?')[:12] + ' != ' + key[:12]}): "
                  "analysing every entry point (run_eva.py -j 2 --record writes the record)")

    t0 = time.monotonic()
    results = {}
    with tempfile.TemporaryDirectory(prefix="fxdp_eva_") as tmp, \
            cf.ThreadPoolExecutor(max_workers=max(1, args.j)) as ex:
        files = sorted({drv[n] for n in names})
        saves = {f: Path(tmp) / (f.stem + ".sav") for f in files}
        parsed = dict(zip(files, ex.map(lambda f: parse_once(f, src, saves[f]), files)))
        for f, r in parsed.items():
            if r["rc"] != 0:
                print(f"parse of the library with {f.name} failed (rc {r['rc']}):\n{r['log_tail']}", file=sys.stderr)
                return 1
        order = sorted(names, key=lambda n: n not in LONGEST)          # stable: the rest keep their order
        futs = {ex.submit(run_one, n, drv[n], src, saves[drv[n]]): n for n in order}
        for f in cf.as_completed(futs):
            r = f.result()
            results[r["entry"]] = r
    wall = time.monotonic() - t0

    base = {}
    if args.baseline.exists() and not args.no_baseline:
        base = json.loads(args.baseline.read_text()).get("alarms", {})

    failed = False
    print(f"{'entry point':42s} {'alarms':>6s} {'new':>4s} {'time':>7s}")
    total = new_total = 0
    for e in sorted(results, key=lambda e: public.index(e) if e in public else 999):
        r = results[e]
        known = {a["alarm"] for a in base.get(e, [])}
        new = [a for a in r["alarms"] if a not in known]
        r["new"] = new
        total += len(r["alarms"])
        new_total += len(new)
        flag = "" if r["complete"] else "  INCOMPLETE (rc %s)" % r["rc"]
        print(f"{e:42s} {len(r['alarms']):6d} {len(new) if not args.no_baseline else '-':>4} "
              f"{r['time_s']:6.1f}s{flag}")
        if args.v or new:
            for a in r["alarms"]:
                print(f"    {'NEW ' if a in new else '    '}{a}")
        if not r["complete"]:
            failed = True
            print(r["log_tail"], file=sys.stderr)
        if new and not args.no_baseline and not args.update_baseline:
            failed = True
        if record is not None and r["complete"] and r["alarms"] != record["entries"][e]["alarms"]:
            failed = True
            print(f"    differs from the record: {record['entries'][e]['alarms']}")
    print(f"{'total':42s} {total:6d} {new_total if not args.no_baseline else '-':>4} {wall:6.1f}s wall")
    print(f"entry points in fxdp.h: {len(public)}, with a driver: {len(public) - len(missing)}"
          + (f"; missing: {', '.join(missing)}" if missing else ""))
    if extra:
        print(f"drivers without a public entry point: {', '.join(extra)}")
    if missing and not args.only:
        failed = True

    if args.record and not failed and not args.only and args.src.resolve() == (REPO / "csrc").resolve():
        args.record_file.write_text(json.dumps({
            "comment": "Eva's full run on the sources whose key this is (tools/eva/run_eva.py --record); "
                       "CI re-analyses a sample when the key matches, everything when it does not",
            "key": key, "frama_c": frama_c_version(), "date": datetime.date.today().isoformat(),
            "wall_s": round(wall, 1), "entries": {e: {"alarms": results[e]["alarms"], "time_s": results[e]["time_s"]}
                                                  for e in sorted(results)}}, indent=1, ensure_ascii=False) + "\n")
        print(f"record written: {args.record_file}")
    elif args.record:
        print("record not written: the run failed, or was not a full run of csrc/", file=sys.stderr)
        failed = True

    if args.update_baseline:
        old = json.loads(args.baseline.read_text()) if args.baseline.exists() else {}
        reasons = {(e, a["alarm"]): a.get("why", "") for e, lst in old.get("alarms", {}).items() for a in lst}
        alarms = dict(old.get("alarms", {})) if args.only else {}
        for e, r in results.items():
            alarms[e] = [{"alarm": a, "why": reasons.get((e, a), "TODO")} for a in r["alarms"]]
        doc = {"comment": old.get("comment", "Eva alarms believed to be imprecision, per entry point "
                                  "(tools/eva/run_eva.py fails on any alarm not listed here)."),
               "options": EVA_OPTS, "entry_options": ENTRY_OPTS,
               "alarms": {e: alarms[e] for e in sorted(alarms) if alarms[e]}}
        for k, v in old.items():        # other sections (the WP figures) are kept as they are
            doc.setdefault(k, v)
        args.baseline.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(f"baseline written: {args.baseline}")

    if args.json:
        args.json.write_text(json.dumps({"mode": mode, "key": key, "options": EVA_OPTS, "entry_options": ENTRY_OPTS,
                                         "wall_s": round(wall, 1), "public": public,
                                         "missing": missing, "results": results}, indent=1,
                                        ensure_ascii=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
