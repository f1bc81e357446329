"""The `fxdp` command line (layer 6).

    fxdp demo [--json] [--out DIR] [--devices N] [--seed S] [--releases N] [--target NAME] [--plot]
    fxdp export CONFIG --target NAME --out DIR [--force] [--format FMT] [--min-entropy BITS]
    fxdp simulate CONFIG [--devices N] [--seed S] [--values FILE [--column C]... [--clamp]] [--write-reports FILE [--format F]] [--json]
    fxdp estimate CONFIG REPORTS... [--format bin|csv|parquet] [--allow-duplicates] [--candidates FILE] [--top K]
                  [--quantiles P,P...] [--json]
    fxdp audit CONFIG [--d-in N|all] [--json] [--plot FILE]
    fxdp plot CONFIG {distribution,loss,error,account,cdf} --out FILE [--x X --x-prime X'] [--dpi N] [--json]
    fxdp account CONFIG --devices N [--rounds R] [--shuffled] [--delta D] [--d-in all] [--json]
    fxdp targets [--json]
    fxdp mechanisms [--json]
    fxdp --version

`fxdp COMMAND --help` describes every option with its default and shows examples.
JSON output (--json) is one object per command; its keys are stable
(docs/cli.md).  Errors print one line to stderr and exit with status 2.  When the reader of stdout
closes early (`| head`), the command stops quietly with status 141 (128 + SIGPIPE).
"""
from __future__ import annotations

import argparse
import json
import sys

from ._jsonout import jsonable


def _print_json(obj):
    print(json.dumps(jsonable(obj), indent=2, sort_keys=True))


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


def _d_in(text):
    """--d-in N|all: an integer >= 1 or 'all' (every pair of inputs: the local epsilon)."""
    if text is None:
        return None
    if text.strip().lower() == "all":
        return "all"
    try:
        v = int(text)
    except ValueError:
        raise ValueError(f"--d-in must be an integer >= 1 or 'all', got {text!r}") from None
    if v < 1:
        raise ValueError(f"--d-in must be an integer >= 1 or 'all', got {v}")
    return v


def cmd_audit(args):
    from .audit import audit
    from .config import load_config
    cfg = load_config(args.config)
    report = audit(cfg.mechanism, d_in=_d_in(args.d_in) or 1)
    if args.plot:
        if not cfg.mechanism.draw_audit(args.plot):              # a family's own audit figure, else
            from .plots import plot_output_distribution          # the exact output distributions
            plot_output_distribution(cfg.mechanism, path=args.plot)
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report)
        m = cfg.mechanism
        if report.d_in != "all" and m.local_d_in != 1:
            print(f"local epsilon (all inputs, d_in = {m.local_d_in}) claimed {m.local_epsilon!r}: "
                  f"what shuffling and rounds take (fxdp audit --d-in all)")
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def cmd_simulate(args):
    from .config import MAX_CLUSTER_DEVICES, MAX_DEVICES, load_config
    from .fleet import estimate_rows, simulate_fleet
    cfg = load_config(args.config)
    cap = MAX_CLUSTER_DEVICES if args.engine == "dask" else MAX_DEVICES
    if args.devices is not None and not 1 <= args.devices <= cap:
        raise ValueError(f"--devices must be an integer in [1, {cap}], got {args.devices}")
    devices = args.devices if args.devices is not None else int(cfg.simulation.get("devices", 100_000))
    seed = cfg.seed(args.seed)
    m = cfg.mechanism
    if args.write_reports:
        m.report_layout()                      # no wire format: fail before the simulation
    population = None
    if args.values:
        from .reportfiles import load_values, population_from_values
        values = load_values(args.values, args.column, strings=m.string_input)
        if args.devices is not None and args.devices != len(values):
            raise ValueError(f"--devices {args.devices} but {args.values} holds {len(values)} values "
                             "(leave --devices out: every value is one device)")
        devices = len(values)
        population = population_from_values(m, values, clamp=args.clamp, source=str(args.values))
    elif args.column:
        raise ValueError("--column applies to --values")
    elif args.clamp:
        raise ValueError("--clamp applies to --values")
    client = _dask_client(args)
    if client is not None:
        if args.write_reports:
            raise ValueError("--write-reports needs the reports on this machine: use --engine local")
        from .dask_engine import simulate_statistic, simulate_synthetic, simulate_values_file, warm
        from .reportfiles import ROW_RANGE_FORMATS
        try:
            warm(client, m)                      # kernels compiled once per host, loaded by the other workers
            if population is None:               # each partition generates its own devices
                stat, truth, seconds = simulate_synthetic(m, devices, seed, client, args.partitions)
            elif str(args.values).lower().endswith(ROW_RANGE_FORMATS) and not m.string_input:   # each reads its own rows
                truth = population.truth
                stat, _, seconds = simulate_values_file(m, args.values, args.column, seed, client, args.partitions,
                                                        clamp=args.clamp, devices=devices, truth=truth)
            else:                                # CSV: the rows travel in the tasks
                values, truth = population
                stat, seconds = simulate_statistic(m, values, seed, client, args.partitions)
        finally:
            client.close()
        rows = stat.estimate_rows(truth)
    else:
        _, reports, truth, seconds = simulate_fleet(m, devices, seed, population=population)
        rows = estimate_rows(m, reports, truth)
    out = {"mechanism": repr(m), "devices": devices, "seed": seed.value,
           "stream_version": seed.stream_version, "epsilon": m.epsilon,
           "local_epsilon": m.local_epsilon, "local_d_in": m.local_d_in,
           "seconds": seconds, "estimates": rows,
           "population": str(args.values) if args.values else "synthetic", "engine": args.engine}
    if args.clamp:
        out["clamped"] = population.clamped
    if args.write_reports:
        from .reportfiles import guess_format, write_reports
        write_reports(m, reports, args.write_reports, args.format)
        out["reports_file"] = {"path": str(args.write_reports), "format": guess_format(args.write_reports, args.format),
                               "fingerprint": f"0x{m.report_fingerprint:08x}"}
    if args.json:
        _print_json(out)
    else:
        print(f"{repr(m)}: {devices:,} devices, seed {seed.value} (stream version {seed.stream_version}), "
              f"{_eps_names(m)}, {seconds:.2f} s")
        if args.values:
            print(f"  true values from {args.values}"
                  + (f"; {population.clamped:,} clamped into the input range (the truth is the clamped "
                     "values')" if args.clamp else ""))
        if args.write_reports:
            print(f"  reports written to {args.write_reports} ({out['reports_file']['format']}, "
                  f"fingerprint {out['reports_file']['fingerprint']})")
        for r in rows[:20]:
            print(f"  {r['name']:<16} true {r['true']:>14.6g}  estimate {r['estimate']:>14.6g}  ± {r['stderr']:.3g}")
        if len(rows) > 20:
            print(f"  ... {len(rows) - 20} more rows (use --json)")
    return 0


def cmd_estimate(args):
    from .config import load_config
    from .reportfiles import estimate_files
    cfg = load_config(args.config)
    m = cfg.mechanism
    if args.candidates:
        from .reportfiles import load_string_values
        m.candidates = list(dict.fromkeys(load_string_values(args.candidates)))
    if args.top is not None and args.top < 1:
        raise ValueError(f"--top must be an integer >= 1, got {args.top}")
    if args.quantiles is not None:
        _set_quantiles(m, args.quantiles)
    client = _dask_client(args)
    if client is not None:
        from .dask_engine import estimate_dask
        try:
            out = estimate_dask(m, args.reports, client, args.format, allow_duplicates=args.allow_duplicates)
        finally:
            client.close()
    else:
        out = estimate_files(m, args.reports, args.format, progress=False if args.json else None,
                             allow_duplicates=args.allow_duplicates)
        out["engine"] = "local"
    if args.top is not None:               # the K largest estimates, largest first
        out["estimates"] = sorted(out["estimates"], key=lambda r: -r["estimate"])[:args.top]
    if args.json:
        _print_json(out)
        return 0
    print(f"{out['mechanism']}: {out['reports']:,} reports from {len(out['files'])} file(s) "
          f"({out['format']}, fingerprint {out['fingerprint']}), {out['seconds']:.2f} s")
    rows = out["estimates"]
    for r in rows[:20]:
        print(f"  {r['name']:<16} estimate {r['estimate']:>14.6g}  ± {r['stderr']:.3g}")
    if len(rows) > 20:
        print(f"  ... {len(rows) - 20} more rows (use --json)")
    return 0


def _set_quantiles(m, text):
    """--quantiles "0.5,0.99": m.quantiles = (0.5, 0.99), for the range kinds only (the property validates)."""
    if not hasattr(type(m), "quantiles"):
        raise ValueError(f"--quantiles applies to the range kinds (hierarchical_histogram, haar_hrr), "
                         f"not to {m.kind}")
    try:
        m.quantiles = [float(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"--quantiles must be probabilities in (0, 1) separated by commas, such as "
                         f"0.5,0.9,0.99, got {text!r}") from None


def cmd_export(args):
    from .config import load_config
    from .export import generate
    cfg = load_config(args.config)
    target = args.target or cfg.target
    if not target:
        raise ValueError("--target NAME is required (or a [target] table in the config); see `fxdp targets`")
    min_entropy = args.min_entropy if args.min_entropy is not None else cfg.min_entropy
    files = generate(cfg.mechanism, target, args.out, force=args.force, formats=args.format,
                     min_entropy=min_entropy)
    if args.json:
        _print_json({"files": [str(f) for f in files]})
    else:
        print(f"wrote {len(files)} files to {args.out}")
        for f in files:
            print(f"  {f}")
    return 0


def _parse_input(text):
    """A command-line input value: true/false, an integer, a rational, or a string (category)."""
    if text is None:
        return None
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    if "," in text:
        return [_parse_input(v) for v in text.split(",")]
    try:
        from fractions import Fraction
        return Fraction(text)
    except ValueError:
        return text


def cmd_plot(args):
    from . import plots
    from .config import load_config
    cfg = load_config(args.config)
    m = cfg.mechanism
    x, xp = _parse_input(args.x), _parse_input(args.x_prime)
    if not 20 <= args.dpi <= 600:
        raise ValueError(f"--dpi must be an integer in [20, 600], got {args.dpi}")
    if args.kind == "distribution":
        r = plots.plot_output_distribution(m, x, xp, path=args.out, dpi=args.dpi)
        summary = {"kind": "distribution", "x": r.x, "x_prime": r.x_prime, "outputs": len(r.outputs)}
    elif args.kind == "loss":
        r = plots.plot_privacy_loss(m, x, xp, path=args.out, dpi=args.dpi)
        summary = {"kind": "loss", "x": r.x, "x_prime": r.x_prime, "d_in": r.d_in,
                   "epsilon_claimed": r.epsilon_claimed, "worst_output": r.worst_output,
                   "worst_loss": r.worst_loss}
    elif args.kind == "cdf":
        r = plots.plot_cdf(m, devices=args.devices, seed=args.seed, path=args.out, dpi=args.dpi)
        summary = {"kind": "cdf", "devices": r.devices, "edges": len(r.edges), "coverage": r.coverage,
                   "max_abs_error": float(abs(r.estimate - r.truth).max())}
    elif args.kind == "account":
        r = plots.plot_account(m, path=args.out, delta=args.delta, dpi=args.dpi)
        summary = {"kind": "account", "delta": r.delta, "sizes": list(r.sizes),
                   "epsilon0": list(r.epsilon0), "central": [list(c) for c in r.central]}
    else:
        try:
            sizes = [int(float(v)) for v in args.sizes.split(",")]
        except ValueError:
            raise ValueError(f"--sizes must be comma-separated integers, got {args.sizes!r}") from None
        if min(sizes) < 2:
            raise ValueError(f"--sizes must all be >= 2, got {sizes}")
        r = plots.plot_estimator_error(m, sizes, path=args.out, seed=args.seed, repeats=args.repeats,
                                       dpi=args.dpi)
        summary = {"kind": "error", "statistic": r.statistic, "sizes": list(r.sizes),
                   "rmse": [float(v) for v in r.rmse], "stderr": [float(v) for v in r.stderr]}
    summary.update(mechanism=repr(m), file=str(args.out))
    if args.json:
        _print_json(summary)
    else:
        print(f"{args.kind} plot of {repr(m)} written to {args.out}")
    return 0


def _fmt_eps(v):
    return "-" if v is None else f"{v:.6g}"


def _eps_names(m):
    """'epsilon (d_in = 1) 0.1, local epsilon (all inputs) 2' (one figure when they coincide)."""
    if m.local_d_in == 1:
        return f"local epsilon (all inputs) = epsilon (d_in = 1) {m.epsilon:.6g}"
    return f"epsilon (d_in = 1) {m.epsilon:.6g}, local epsilon (all inputs) {m.local_epsilon:.6g}"


def cmd_account(args):
    from .accounting import deployment, local_epsilon_of
    from .audit import audit
    from .config import load_config
    cfg = load_config(args.config)
    m = cfg.mechanism
    if args.devices is None:
        raise ValueError("--devices N is required (the number of reports shuffled together, >= 2)")
    d_in = _d_in(args.d_in) or "all"
    if d_in != "all":
        raise ValueError(f"--d-in {d_in}: a deployment's bounds (shuffling, rounds) hold only for the local "
                         f"epsilon over every pair of inputs: --d-in all (the default)")
    local_epsilon_of(m, "fxdp account")         # an unbounded input domain: say so before any audit
    report = audit(m, d_in="all")
    neighbours = audit(m) if m.local_d_in != 1 else None
    out = deployment(m, args.devices, rounds=args.rounds, delta=args.delta, shuffled=args.shuffled,
                     audit=report, audit_neighbours=neighbours)
    if args.json:
        _print_json(out)
        return 0
    lb = out["local_budget"]
    dl = out["local_d_in"]
    rows = []
    if dl != 1:
        rows += [("epsilon (d_in = 1), claimed", out["epsilon_claimed"],
                  "m.privacy_map(1): neighbouring inputs; central DP, not used below"),
                 ("epsilon (d_in = 1), realized", out["epsilon_realized"], "fxdp.audit(m); not used below")]
    rows += [("local epsilon (all inputs), claimed", out["local_epsilon_claimed"],
              f"m.local_epsilon = m.privacy_map({dl}), rounded up" if dl != 1 else
              "m.local_epsilon (d_in = 1 covers every pair of inputs), rounded up"),
             ("local epsilon (all inputs), realized", out["local_epsilon_realized"],
              f"fxdp.audit(m, d_in='all'): {report.method}"),
             ("  epsilon0 used below", out["epsilon0_used"], out["epsilon0_source"])]
    if args.shuffled:
        sh = out["shuffled"]
        rows += [("central epsilon, shuffled (certified)", sh["certified"], sh["regime"]),
                 ("  float estimate", sh["float_estimate"], "same bound, float, no directed rounding"),
                 ("  FMT closed form", sh["closed_form"], sh["closed_form_regime"])]
    rows += [(f"per-device budget, {out['rounds']} rounds, basic", lb["basic"], lb["regime"]["basic"])]
    if lb["advanced"] is not None:
        rows.append(("  advanced composition", lb["advanced"], lb["regime"]["advanced"]))
    if "optimal" in lb["regime"]:
        rows.append(("  optimal composition (KOV)", lb["optimal"], lb["regime"]["optimal"]))
    if lb["memoized"] is not None:
        rows.append(("  memoized (epsilon_infinite)", lb["memoized"], lb["regime"]["memoized"]))
    rows.append(("  local budget (best)", lb["best"], "the smallest of the bounds above"))
    if args.shuffled:
        cb = out["central_budget"]
        rows.append((f"central budget, {out['rounds']} rounds, shuffled", cb["best"], cb["regime"]))
    print(f"{out['mechanism']}: {out['devices']:,} devices, {out['rounds']} rounds, delta {out['delta']:g}"
          f" ({out['seconds']:.2f} s)")
    width = max(len(r[0]) for r in rows)
    for name, value, regime in rows:
        print(f"  {name:<{width}}  {_fmt_eps(value):>12}  {regime}")
    return 0


def cmd_mechanisms(args):
    from .registry import get, kinds
    rows = [{"kind": k, "constructor": f"fxdp.make_{k}", "exportable": get(k).exportable,
             "summary": get(k).summary} for k in kinds()]
    if args.json:
        _print_json({"mechanisms": rows})
    else:
        width = max(len(r["kind"]) for r in rows)
        for r in rows:
            print(f"{r['kind']:<{width}}  {'export ' if r['exportable'] else 'host   '}  {r['summary']}")
    return 0


def cmd_demo(args):
    from .demo import format_report, run_demo
    report = run_demo(out=args.out, devices=args.devices, seed=args.seed, releases=args.releases,
                      target=args.target, progress=None if not args.json else False, plot=args.plot)
    if args.json:
        _print_json(report)
    else:
        print(format_report(report))
    return 0


def _engine_args(p):
    p.add_argument("--engine", choices=["local", "dask"], default="local",
                   help="local: this machine; dask: shard over a Dask cluster (pip install 'fxdp[dask]'; "
                        "docs/scale.md) (default: %(default)s)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: the scheduler to join (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=2,
                   help="with --engine dask and no --scheduler: LocalCluster worker processes (default: %(default)s)")
    p.add_argument("--partitions", type=int,
                   help="with --engine dask: fleet partitions (default: 4 per worker)")


def _dask_client(args):
    if args.engine != "dask":
        for flag in ("scheduler", "partitions"):
            if getattr(args, flag, None) is not None:
                raise ValueError(f"--{flag} applies to --engine dask")
        return None
    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    from .dask_engine import connect
    return connect(args.scheduler, args.workers)


_CONFIG_HELP = "the mechanism's TOML file: [mechanism] kind and its keys, optional [target] and [simulation] (docs/cli.md)"
_JSON_HELP = "print one JSON object with stable keys instead of text (docs/cli.md) (default: text)"

# One or two invocations per subcommand, shown under "examples:" in its --help.
_EXAMPLES = {
    "demo": ["fxdp demo", "fxdp demo --devices 100000 --out /tmp/demo --json", "fxdp demo --plot"],
    "export": ["fxdp export m.toml --target cortex-m0plus --out fw",
               "fxdp export m.toml --target avr-atmega328p --out fw --format arduino --force"],
    "simulate": ["fxdp simulate m.toml", "fxdp simulate m.toml --devices 10000 --seed 7 --write-reports r.csv --json"],
    "estimate": ["fxdp estimate m.toml reports.bin", "fxdp estimate m.toml day1.csv day2.csv --json"],
    "audit": ["fxdp audit m.toml", "fxdp audit m.toml --d-in all --json --plot audit.png"],
    "plot": ["fxdp plot m.toml distribution --out dist.png", "fxdp plot m.toml error --out err.png --sizes 1000,10000"],
    "account": ["fxdp account m.toml --devices 100000", "fxdp account m.toml --devices 100000 --shuffled --rounds 30"],
    "mechanisms": ["fxdp mechanisms", "fxdp mechanisms --json"],
    "targets": ["fxdp targets", "fxdp targets --json"],
}


def _sub(sub, name, help_text):
    """A subcommand's parser: its description is its one-line help, its epilog the examples."""
    epilog = "examples:\n" + "\n".join(f"  {line}" for line in _EXAMPLES[name])
    return sub.add_parser(name, help=help_text, description=help_text[:1].upper() + help_text[1:] + ".",
                          epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser():
    from . import __version__
    p = argparse.ArgumentParser(prog="fxdp", description="Exact differential privacy for small devices.",
                                epilog="examples:\n  fxdp demo\n  fxdp simulate m.toml --devices 10000\n\n"
                                       "fxdp COMMAND --help describes each command's options.",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"fxdp {__version__}",
                   help="print fxdp's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    d = _sub(sub, "demo", "the main job end to end on an embedded default")
    d.add_argument("--json", action="store_true", help="print the report as one JSON object (docs/cli.md) "
                                                       "(default: text)")
    d.add_argument("--out", default="fxdp-demo", metavar="DIR",
                   help="directory for the generated files (default: ./%(default)s)")
    d.add_argument("--devices", type=int, default=1_000_000, metavar="N", help="fleet size (default: %(default)s)")
    d.add_argument("--seed", type=int, default=2026, metavar="S",
                   help="key of the simulated streams (default: %(default)s)")
    d.add_argument("--releases", type=int, default=10_000, metavar="N",
                   help="releases compared between the host C build and Numba (default: %(default)s)")
    d.add_argument("--target", default="cortex-m0plus", metavar="NAME",
                   help="firmware target, one of `fxdp targets` (default: %(default)s)")
    d.add_argument("--plot", action="store_true",
                   help="also draw the estimates against the true values to DIR/estimates.png "
                        "(needs pip install 'fxdp[plot]') (default: no plot)")
    d.set_defaults(func=cmd_demo)
    e = _sub(sub, "export", "generate firmware C for a mechanism and target")
    e.add_argument("config", help=_CONFIG_HELP)
    e.add_argument("--target", metavar="NAME",
                   help="MCU target, one of `fxdp targets` (default: the config's [target] name; one is required)")
    e.add_argument("--out", required=True, metavar="DIR", help="directory to write the C files into (required)")
    e.add_argument("--force", action="store_true",
                   help="write into a non-empty directory (default: refuse one)")
    e.add_argument("--format", choices=["arduino", "platformio", "esp-idf", "zephyr", "cmake", "make"],
                   help="packaging (docs/export.md) (default: Makefile, CMake and, for AVR and Cortex-M, Arduino)")
    e.add_argument("--min-entropy", metavar="BITS",
                   help="min-entropy per byte of the board's source for the SP 800-90B health tests, "
                        "an exact value in [1/256, 8] such as 2, 1/2 or 2.5 (default: [target] min_entropy, "
                        "else 2; docs/health.md)")
    e.add_argument("--json", action="store_true", help=_JSON_HELP)
    e.set_defaults(func=cmd_export)
    s = _sub(sub, "simulate", "simulate a fleet and estimate the statistic")
    s.add_argument("config", help=_CONFIG_HELP)
    s.add_argument("--devices", type=int, metavar="N",
                   help="fleet size, in [1, 10^9] (default: [simulation] devices, else 100000)")
    s.add_argument("--seed", type=int, metavar="S",
                   help="key of the simulated streams: device i draws from stream (S, i) "
                        "(default: [simulation] seed, else 0)")
    s.add_argument("--values", metavar="FILE",
                   help="simulate the fleet on these true values (.npy, or .csv / .parquet columns; strings: "
                        ".txt lines, or one .csv / .parquet column): one device each (default: the mechanism's "
                        "synthetic population)")
    s.add_argument("--column", action="append", metavar="NAME",
                   help="column of --values (repeat for several: an n x c input) (default: every column)")
    s.add_argument("--clamp", action="store_true",
                   help="with --values: clamp values outside the mechanism's input range into it (as a release "
                        "does) and compare with the clamped truth (default: refuse them)")
    s.add_argument("--write-reports", dest="write_reports", metavar="FILE",
                   help="write the simulated reports to FILE (docs/wire.md; format from --format or the "
                        "extension) (default: none written)")
    s.add_argument("--format", choices=["bin", "csv", "parquet"],
                   help="format of --write-reports (default: csv, parquet by extension, else bin)")
    s.add_argument("--json", action="store_true", help=_JSON_HELP)
    _engine_args(s)
    s.set_defaults(func=cmd_simulate)
    es = _sub(sub, "estimate", "the mechanism's estimate on report files (streamed in chunks)")
    es.add_argument("config", help=_CONFIG_HELP)
    es.add_argument("reports", nargs="+", metavar="REPORTS", help="report files (docs/wire.md), one or more")
    es.add_argument("--format", choices=["bin", "csv", "parquet"],
                    help="file format (default: csv, parquet by extension, else bin)")
    es.add_argument("--allow-duplicates", dest="allow_duplicates", action="store_true",
                    help="accept a file given twice (same path or content) or a repeated report batch "
                         "(default: refused, as its reports would count twice)")
    es.add_argument("--candidates", metavar="FILE",
                    help="candidate strings, one per line (UTF-8 .txt; .csv / .parquet: one column): the values a "
                         "string sketch (count_mean_sketch) estimates (required for it; default: none)")
    es.add_argument("--top", type=int, metavar="K",
                    help="print only the K largest estimates, largest first (default: every row, in order)")
    es.add_argument("--quantiles", metavar="P,P...",
                    help="the range kinds (hierarchical_histogram, haar_hrr): the quantiles to estimate, as "
                         "probabilities in (0, 1) separated by commas (default: 0.5,0.9,0.95,0.99)")
    es.add_argument("--json", action="store_true", help=_JSON_HELP)
    _engine_args(es)
    es.set_defaults(func=cmd_estimate)
    a = _sub(sub, "audit", "exact realized epsilon of the implementation")
    a.add_argument("config", help=_CONFIG_HELP)
    a.add_argument("--json", action="store_true", help=_JSON_HELP)
    a.add_argument("--d-in", dest="d_in", metavar="N|all",
                   help="input distance: an integer >= 1 or 'all' (every pair of inputs: the local epsilon "
                        "that deployments sign) (default: 1, neighbouring inputs)")
    a.add_argument("--plot", metavar="FILE",
                   help="also draw the output distributions of the witness pair to FILE (.png, .svg, .pdf; "
                        "matplotlib) (default: no plot)")
    a.set_defaults(func=cmd_audit)
    pl = _sub(sub, "plot", "plot a mechanism (matplotlib): output distribution, privacy loss, "
                           "estimator error against fleet size, deployment account")
    pl.add_argument("config", help=_CONFIG_HELP)
    pl.add_argument("kind", choices=["distribution", "loss", "error", "account", "cdf"],
                    help="distribution: output probabilities of two inputs; loss: privacy loss per output; "
                         "error: estimator error against fleet size; account: central epsilon against fleet size; "
                         "cdf: the estimated CDF of the readings with its band against the truth (range kinds)")
    pl.add_argument("--out", required=True, metavar="FILE", help="image file to write (.png, .svg, .pdf) (required)")
    pl.add_argument("--x", help="first input (default: the audit witness or a pair in the middle)")
    pl.add_argument("--x-prime", dest="x_prime", help="second (neighbouring) input (default: as --x)")
    pl.add_argument("--sizes", default="1000,10000,100000,1000000",
                    help="comma-separated fleet sizes for `error` (default: %(default)s)")
    pl.add_argument("--repeats", type=int, default=5, metavar="N",
                    help="fleets per size for `error` (default: %(default)s)")
    pl.add_argument("--seed", type=int, default=0, metavar="S",
                    help="key of the simulated streams for `error` and `cdf` (default: %(default)s)")
    pl.add_argument("--devices", type=int, default=100_000, metavar="N",
                    help="simulated devices for `cdf` (default: %(default)s)")
    pl.add_argument("--delta", type=float, default=1e-8, metavar="D",
                    help="delta of the central epsilon for `account` (default: %(default)s)")
    pl.add_argument("--dpi", type=int, default=130, metavar="N",
                    help="resolution of a raster image, dots per inch, 20 to 600 (default: %(default)s)")
    pl.add_argument("--json", action="store_true", help=_JSON_HELP)
    pl.set_defaults(func=cmd_plot)
    ac = _sub(sub, "account", "what a deployment promises: local epsilon (claimed, realized), the "
                              "shuffled central epsilon, the budget after R rounds (certified upward)")
    ac.add_argument("config", help=_CONFIG_HELP)
    ac.add_argument("--devices", type=int, metavar="N",
                    help="reports shuffled together per round, >= 2 (required)")
    ac.add_argument("--rounds", type=int, default=1, metavar="R", help="reports per device (default: %(default)s)")
    ac.add_argument("--shuffled", action="store_true",
                    help="reports pass through a shuffler: central epsilon (default: not shuffled)")
    ac.add_argument("--delta", type=float, default=1e-8, metavar="D", help="total delta (default: %(default)s)")
    ac.add_argument("--d-in", dest="d_in", metavar="all", default="all",
                    help="the epsilon the bounds take: 'all' (every pair of inputs, the only sound choice; an "
                         "integer is refused with the reason) (default: %(default)s)")
    ac.add_argument("--json", action="store_true", help=_JSON_HELP)
    ac.set_defaults(func=cmd_account)
    k = _sub(sub, "mechanisms", "list the mechanism kinds (TOML kind = make_<kind>) and which export")
    k.add_argument("--json", action="store_true", help=_JSON_HELP)
    k.set_defaults(func=cmd_mechanisms)
    t = _sub(sub, "targets", "list MCU targets and whether their tools are installed")
    t.add_argument("--json", action="store_true", help=_JSON_HELP)
    t.set_defaults(func=cmd_targets)
    return p


# Exit status when the reader of stdout goes away early (`fxdp simulate CONFIG | head -2`): 128 +
# SIGPIPE, what a shell reports for a Unix tool that SIGPIPE ended; quiet, like those tools.
EXIT_BROKEN_PIPE = 141


def _stdout_gone():
    """After a BrokenPipeError on stdout: point stdout at /dev/null, so that the interpreter's final
    flush cannot fail again (the Python docs' recipe, "Note on SIGPIPE")."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):      # stdout without a file descriptor
        pass
    return EXIT_BROKEN_PIPE


def main(argv=None):
    args = build_parser().parse_args(argv)
    from .dask_engine import ClusterError  # imports no Dask (that waits for --engine dask)
    try:
        code = args.func(args)
        sys.stdout.flush()                     # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:                    # no command writes to another pipe: stdout's reader left
        return _stdout_gone()
    except (ValueError, TypeError, OSError, ImportError, NotImplementedError, ClusterError) as exc:
        # NotImplementedError: a kind without the requested protocol hook (e.g. full RAPPOR has
        # no true statistic of arbitrary --values); ClusterError: devices or reports unaccounted for
        print(f"fxdp {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
