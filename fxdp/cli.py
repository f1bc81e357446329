"""The `fxdp` command line (layer 6).

    fxdp demo [--json] [--out DIR] [--devices N] [--seed S] [--releases N] [--target NAME]
    fxdp export CONFIG --target NAME --out DIR [--force]
    fxdp simulate CONFIG [--devices N] [--seed S] [--json]
    fxdp audit CONFIG [--json] [--plot FILE]
    fxdp targets [--json]

JSON output (--json) is one object per command; its keys are stable
(docs/cli.md).  Errors print one line to stderr and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def _jsonable(x):
    from fractions import Fraction
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if hasattr(x, "item"):
        return x.item()
    return x


def _print_json(obj):
    print(json.dumps(_jsonable(obj), indent=2, sort_keys=True))


def cmd_targets(args):
    from . import targets
    rows = []
    for t in targets.list_targets():
        ok, why = t.available()
        rows.append({"name": t.name, "description": t.description, "available": ok,
                     "missing": "" if ok else why})
    if args.json:
        _print_json({"targets": rows})
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        state = "ok" if r["available"] else f"missing: {r['missing']}"
        print(f"{r['name']:<{width}}  {state:<10}  {r['description']}")
    return 0


def cmd_audit(args):
    from .audit import audit
    from .config import load_config
    cfg = load_config(args.config)
    report = audit(cfg.mechanism)
    if args.plot:
        from .finite.plot import plot_distributions
        plot_distributions(cfg.mechanism, args.plot)
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report)
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def cmd_simulate(args):
    from .config import load_config
    from .fleet import estimate_rows, simulate_fleet
    cfg = load_config(args.config)
    devices = args.devices if args.devices is not None else int(cfg.simulation.get("devices", 100_000))
    seed = args.seed if args.seed is not None else int(cfg.simulation.get("seed", 0))
    if devices < 1:
        raise ValueError(f"--devices must be >= 1, got {devices}")
    m = cfg.mechanism
    _, reports, truth, seconds = simulate_fleet(m, devices, seed)
    rows = estimate_rows(m, reports, truth)
    out = {"mechanism": repr(m), "devices": devices, "seed": seed, "epsilon": m.epsilon,
           "seconds": seconds, "estimates": rows}
    if args.json:
        _print_json(out)
    else:
        print(f"{repr(m)}: {devices:,} devices, seed {seed}, epsilon {m.epsilon:.6g}, {seconds:.2f} s")
        for r in rows[:20]:
            print(f"  {r['name']:<16} true {r['true']:>14.6g}  estimate {r['estimate']:>14.6g}  ± {r['stderr']:.3g}")
        if len(rows) > 20:
            print(f"  ... {len(rows) - 20} more rows (use --json)")
    return 0


def cmd_export(args):
    from .config import load_config
    from .export import generate
    cfg = load_config(args.config)
    target = args.target or cfg.target
    if not target:
        raise ValueError("--target NAME is required (or a [target] table in the config); see `fxdp targets`")
    files = generate(cfg.mechanism, target, args.out, force=args.force)
    if args.json:
        _print_json({"files": [str(f) for f in files]})
    else:
        print(f"wrote {len(files)} files to {args.out}")
        for f in files:
            print(f"  {f}")
    return 0


def cmd_demo(args):
    from .demo import format_report, run_demo
    report = run_demo(out=args.out, devices=args.devices, seed=args.seed, releases=args.releases,
                      target=args.target, progress=None if not args.json else False)
    if args.json:
        _print_json(report)
    else:
        print(format_report(report))
    return 0


def build_parser():
    p = argparse.ArgumentParser(prog="fxdp", description="Exact differential privacy for small devices.")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="the main job end to end on an embedded default")
    d.add_argument("--json", action="store_true", help="print the report as one JSON object (docs/cli.md)")
    d.add_argument("--out", default="fxdp-demo", help="directory for the generated files (default: ./fxdp-demo)")
    d.add_argument("--devices", type=int, default=1_000_000, help="fleet size (default 1,000,000)")
    d.add_argument("--seed", type=int, default=2026, help="key of the simulated streams (default 2026)")
    d.add_argument("--releases", type=int, default=10_000,
                   help="releases compared between the host C build and Numba (default 10,000)")
    d.add_argument("--target", default="cortex-m0plus", help="firmware target (default cortex-m0plus)")
    d.set_defaults(func=cmd_demo)
    e = sub.add_parser("export", help="generate firmware C for a mechanism and target")
    e.add_argument("config")
    e.add_argument("--target")
    e.add_argument("--out", required=True)
    e.add_argument("--force", action="store_true", help="write into a non-empty directory")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_export)
    s = sub.add_parser("simulate", help="simulate a fleet and estimate the statistic")
    s.add_argument("config")
    s.add_argument("--devices", type=int)
    s.add_argument("--seed", type=int)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_simulate)
    a = sub.add_parser("audit", help="exact realized epsilon of the implementation")
    a.add_argument("config")
    a.add_argument("--json", action="store_true")
    a.add_argument("--plot", metavar="FILE")
    a.set_defaults(func=cmd_audit)
    t = sub.add_parser("targets", help="list MCU targets and whether their tools are installed")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_targets)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"fxdp {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
