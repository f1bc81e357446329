#!/usr/bin/env python3
"""The record of WP's full proof (tools/eva/run_wp.sh), for CI's fixed budget of this proof run.

    python3 tools/eva/wp_record.py          # prove every function (WP_PAR=2) and, if every goal is
                                            # proved, write tools/eva/record_wp.json

The key is a SHA-256 over everything the proof reads: csrc/fxdp_fixed.c, every header of csrc/,
run_wp.sh (the functions, helpers, options and step budget) and the versions of Frama-C, Why3 and
Z3.  When the record's key equals the key of the sources now, the full proof of exactly these
sources is on record, and tests/test_eva.py proves again a sample of SAMPLE functions drawn by the
key (each change of the sources draws another); when it differs, it proves every function.  The
same scheme as Eva's record (tools/eva/run_eva.py).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
RUN_WP = HERE / "run_wp.sh"
RECORD = HERE / "record_wp.json"
SAMPLE = 4      # functions proved again in CI when the record matches (of 17; about 50 CPU s)


def functions() -> list[str]:
    """The functions run_wp.sh proves by default."""
    m = re.search(r"^fns=\$\{WP_FNS:-([\w,]+)\}", RUN_WP.read_text(), re.M)
    return m.group(1).split(",")


def _version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except OSError:
        return "absent"


def key(src: Path = REPO / "csrc") -> str:
    h = hashlib.sha256()
    # ordered by name, not by absolute path: the key of a copy of the library elsewhere is the original's
    for name, f in sorted((f"csrc/{f.name}", f) for f in [src / "fxdp_fixed.c", *src.glob("*.h")]) + [("run_wp.sh", RUN_WP)]:
        data = f.read_bytes()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    for cmd in (["frama-c", "-version"], ["why3", "--version"], ["z3", "--version"]):
        h.update(_version(cmd).encode() + b"\0")
    return h.hexdigest()


def plan(record: dict, k: str) -> tuple[str, list[str]]:
    """("sample", SAMPLE functions drawn by the key) when the record is of these sources and lists
    every function run_wp.sh proves; else ("full", every function)."""
    fns = functions()
    if record.get("key") == k and sorted(record.get("functions", [])) == sorted(fns) \
            and record.get("proved") == record.get("total"):
        return "sample", sorted(fns, key=lambda f: hashlib.sha256((k + f).encode()).hexdigest())[:SAMPLE]
    return "full", fns


def load() -> dict:
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


def main() -> int:
    k = key()
    t0 = time.monotonic()
    p = subprocess.run(["sh", str(RUN_WP)], cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "WP_PAR": os.environ.get("WP_PAR", "2")})
    wall = time.monotonic() - t0
    print(p.stdout, end="")
    m = re.search(r"Proved goals:\s*(\d+) / (\d+)", p.stdout)
    if p.returncode != 0 or not m or m.group(1) != m.group(2):
        print("record not written: not every goal was proved", file=sys.stderr)
        return 1
    RECORD.write_text(json.dumps({
        "comment": "WP's full proof of the sources whose key this is (tools/eva/wp_record.py); CI proves "
                   "a sample again when the key matches, every function when it does not",
        "key": k, "date": datetime.date.today().isoformat(), "frama_c": _version(["frama-c", "-version"]),
        "proved": int(m.group(1)), "total": int(m.group(2)), "wall_s": round(wall, 1),
        "functions": functions()}, indent=1) + "\n")
    print(f"record written: {RECORD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
