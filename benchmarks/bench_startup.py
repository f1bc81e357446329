"""Time to a first result: `import fxdp`, the first simulate of each kind, the cold and warm demo.

Each stage runs in a fresh Python process.  "Cold" stages get an empty Numba cache directory
(NUMBA_CACHE_DIR), so every fleet kernel they need is compiled; "warm" reuses the cache the
cold run filled.  Inside each process a Numba event listener ("numba:compile", which fires only
on a cache miss) sums the wall time spent compiling, so the table shows the compile share.

    python benchmarks/bench_startup.py                  # everything (about 5-10 minutes cold)
    python benchmarks/bench_startup.py --kinds geometric hybrid --skip-demo
    python benchmarks/bench_startup.py --markdown       # the table for docs/startup.md

Figures depend on the machine and on what else runs on it: the script prints the CPU count
and the load average at the start, and measures every row in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The child process: a compile listener, then one stage; prints one JSON line.
CHILD = r'''
import json, sys, threading, time
t_start = time.perf_counter()
from numba.core import event as ev
rows, depth = [], threading.local()
class L(ev.Listener):
    def on_start(self, event):
        d = getattr(depth, "d", 0)
        if d == 0:
            depth.t0 = time.perf_counter()
        depth.d = d + 1
    def on_end(self, event):
        depth.d -= 1
        if depth.d == 0:
            f = getattr(event.data.get("dispatcher"), "py_func", None)
            rows.append((time.perf_counter() - depth.t0, getattr(f, "__qualname__", "?")))
ev.register("numba:compile", L())
stage, arg = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
import fxdp
t_import = time.perf_counter() - t0
if stage == "simulate":
    kind, body, devices = json.loads(arg)
    try:
        import tomllib
    except ModuleNotFoundError:
        import tomli as tomllib
    from fxdp.config import config_from_dict
    m = config_from_dict(tomllib.loads(f'[mechanism]\nkind = "{kind}"\n{body}\n')).mechanism
    values, _ = m.synthetic_population(devices, 1)
    m.simulate(values, seed=1)
elif stage == "demo":
    from fxdp.demo import run_demo
    run_demo(out=arg, progress=False)
total = time.perf_counter() - t_start
print(json.dumps({"total": total, "import": t_import, "compile": sum(r[0] for r in rows),
                  "compiles": sorted(rows, reverse=True)}))
'''


def run_stage(stage, arg, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, stage, arg], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{stage} {arg[:80]} failed:\n{p.stderr[-3000:]}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def kind_configs():
    """One small config per registered kind: the rows of README's kind table."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_readme import kind_rows
    return kind_rows()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="*", help="kinds to time (default: every registered kind)")
    ap.add_argument("--devices", type=int, default=1000, help="devices in each first simulate (default 1000)")
    ap.add_argument("--skip-demo", action="store_true")
    ap.add_argument("--skip-kinds", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args(argv)
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start, "
          f"python {sys.version.split()[0]}", flush=True)
    rows = []                                          # (stage, wall, compile, compiles, top kernel)

    def add(name, r):
        top = r["compiles"][0] if r["compiles"] else None
        rows.append((name, r["wall"], r["compile"], len(r["compiles"]),
                     f"{top[1]} {top[0]:.1f} s" if top else "-"))
        print(f"{name:<34} {r['wall']:7.2f} s  compile {r['compile']:6.2f} s  ({len(r['compiles'])} kernels)",
              flush=True)

    with tempfile.TemporaryDirectory(prefix="fxdp-bench-startup-") as tmp:
        tmp = Path(tmp)
        imports = [run_stage("import", "", tmp / "c-import") for _ in range(3)]
        imports.sort(key=lambda r: r["wall"])
        add("import fxdp (process, median of 3)", imports[1])
        if not args.skip_demo:
            cache = tmp / "c-demo"
            add("fxdp demo, cold (empty cache)", run_stage("demo", str(tmp / "demo-cold"), cache))
            add("fxdp demo, warm", run_stage("demo", str(tmp / "demo-warm"), cache))
        if not args.skip_kinds:
            want = set(args.kinds) if args.kinds else None
            for kind, body in kind_configs():
                if want is not None and kind not in want:
                    continue
                r = run_stage("simulate", json.dumps([kind, body, args.devices]), tmp / f"c-{kind}")
                add(f"first simulate: {kind}", r)
    if args.markdown:
        print("\n| stage | wall (s) | compiling (s) | share | kernels compiled | slowest kernel |")
        print("|---|---|---|---|---|---|")
        for name, wall, comp, n, top in rows:
            print(f"| {name} | {wall:.1f} | {comp:.1f} | {comp / wall:.0%} | {n} | {top} |")
    return rows


if __name__ == "__main__":
    main()
