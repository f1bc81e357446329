"""Layer 6: `fxdp demo`, the main job end to end on an embedded default.

Scenario: a fleet of smart thermostats.  Each device reports

* its room temperature, a bounded integer (whole degrees C in [10, 30]),
  through the constant-time bounded geometric mechanism (local DP over the
  whole range: epsilon = 20 / scale), and
* a yes/no answer ("was the heating on last night?") through constant-time
  binary randomized response;

and, for comparison, the temperature through the mechanism ``recommend_numeric``
ranks first at the same epsilon (the gain in standard error over the geometric).

`run_demo` exports the firmware C for the default target, builds it on the
host and checks it release by release against the Numba simulation, builds
it with every cross toolchain present for the size table, simulates the
fleet, estimates the population mean and yes-share with standard errors,
audits the exact realized epsilon against the claimed one, and returns one
report dict (its keys are stable: docs/cli.md).  Every figure in the report
is computed in the run.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np

from .bitsource import STREAM_VERSION
from ._jsonout import jsonable

DEFAULT_OUT = "fxdp-demo"
DEFAULT_TARGET = "cortex-m0plus"
SIZE_TARGETS = ("avr-atmega328p", "cortex-m0plus")
MARKER = ".fxdp-demo"

TEMPERATURE_BOUNDS = (10, 30)

# The two configs the demo writes next to the firmware (fxdp/scenarios/*.toml: a comment and a
# [mechanism] table); `fxdp export`, `fxdp simulate` and `fxdp audit` take them as they are.
TEMPERATURE = "thermostat_temperature.toml"
HEATING = "thermostat_heating.toml"


def scenario(name):
    """(comment, [mechanism] table) of one scenario file in fxdp/scenarios."""
    from importlib.resources import files

    from .config import tomllib
    text = files("fxdp.scenarios").joinpath(name).read_text(encoding="utf-8")
    comment = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    return comment, tomllib.loads(text)["mechanism"]


def config_text(spec, target, devices, seed):
    """The TOML text of one demo config (fxdp.config's schema); spec: a scenario file name or a
    (comment, [mechanism] table) pair."""
    from .config import config_from_dict, dumps
    comment, table = scenario(spec) if isinstance(spec, str) else spec
    m = config_from_dict({"mechanism": table}).mechanism
    return comment + dumps(m, target=target, simulation={"devices": devices, "seed": seed,
                                                                   "stream_version": STREAM_VERSION})


class _Progress:
    """Step messages on stderr when it is a terminal; silent otherwise."""

    def __init__(self, enabled):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.t0 = time.perf_counter()

    def __call__(self, msg):
        if self.enabled:
            sys.stderr.write(f"[{time.perf_counter() - self.t0:6.1f} s] {msg}\n")
            sys.stderr.flush()


def population(devices, seed):
    """Synthetic true values (numpy, seeded; they stand for the data, not the privacy path).

    Temperatures ~ round(N(20.5, 2.5)) clamped to [10, 30]; colder homes say
    yes more often: P(yes) = clamp(0.35 + 0.06 (20 - temperature), 0.02, 0.98).
    """
    rng = np.random.default_rng([seed, 0xDE30])
    lo, hi = TEMPERATURE_BOUNDS
    temp = np.clip(np.rint(rng.normal(20.5, 2.5, devices)), lo, hi).astype(np.int64)
    p_yes = np.clip(0.35 + 0.06 * (20 - temp), 0.02, 0.98)
    heating = rng.random(devices) < p_yes
    return temp, heating


def _prepare_out(out):
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise ValueError(f"--out: {out} exists and is not a directory")
        if any(out.iterdir()) and not (out / MARKER).is_file():
            raise ValueError(f"--out: {out} is not empty and was not written by `fxdp demo`; "
                             "choose another directory (fxdp never deletes your files)")
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by `fxdp demo`; files here are regenerated on the next run\n")
    return out


def _elf_size(target, elf):
    """(flash, ram) bytes of an ELF from the target's `size` (Berkeley: text data bss)."""
    from . import targets as T
    t = T.get_target(target)
    tool = t.tool("size") if t.prefix else "size"
    out = subprocess.run([tool, str(elf)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    return text + data, data + bss


def _cross_build(m, target, fw_dir, export=True):
    """Export m for `target` into fw_dir (unless it is there already) and `make` its example
    firmware; returns (build row, files written)."""
    from .export import generate
    files = generate(m, target, fw_dir, force=True) if export else []
    p = subprocess.run(["make", "-s", "-j2", "-C", str(fw_dir), "build/fxdp_example.elf"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"make for {target} failed:\n{p.stdout}{p.stderr}")
    elf = fw_dir / "build" / "fxdp_example.elf"
    flash, ram = _elf_size(target, elf)
    return {"target": target, "flash_bytes": flash, "ram_bytes": ram, "elf": str(elf)}, files


def _eps_sum_up(values):
    """Basic composition, rounded up: the smallest float >= the exact sum of the floats."""
    from .conservative import float_up
    return float_up(sum((Fraction(v) for v in values), Fraction(0)))


def run_demo(out=DEFAULT_OUT, devices=1_000_000, seed=2026, releases=10_000,
             target=DEFAULT_TARGET, size_targets=SIZE_TARGETS, progress=None, plot=False):
    """Run the demo; return the report dict (docs/cli.md, "fxdp demo --json").  plot=True also
    draws the estimates against the truth to <out>/estimates.png (matplotlib: the plot extra;
    the report then has a "plot" key with its path)."""
    from . import targets as T
    from .audit import audit
    from .config import load_config
    from .estimate import bounded_geometric_mean, rr_bool_frequency
    from .export import generate, verify_on_host
    from .fleet import simulate_fleet
    from .validate import check_int

    if not isinstance(plot, bool):
        raise TypeError(f"plot must be True or False, got {type(plot).__name__}")
    if plot:
        from .plots import _plt
        _plt()                                  # ImportError with the install hint before any work
    devices = check_int("devices", devices, 2, 10 ** 8)
    seed = check_int("seed", seed, 0, (1 << 256) - 2)
    releases = check_int("releases", releases, 1, 10 ** 7)
    T.get_target(target)                                   # ValueError listing the targets
    say = _Progress(progress)
    t_start = time.perf_counter()
    seconds = {}
    out = _prepare_out(out)

    # 1. the scenario, as two config files the other commands accept
    specs = [("temperature", TEMPERATURE, "room temperature (degrees C), mean"),
             ("heating", HEATING, "heating on last night, yes-share")]
    mechs = []
    for i, (name, spec, stat) in enumerate(specs):
        path = out / f"{name}.toml"
        path.write_text(config_text(spec, target, devices, seed + i))
        cfg = load_config(path)
        mechs.append({"name": name, "statistic": stat, "config": path, "m": cfg.mechanism,
                      "seed": seed + i})

    # 2. firmware C for the default target; host build checked against the Numba simulation
    t0 = time.perf_counter()
    files = [m["config"] for m in mechs]
    for mm in mechs:
        mm["fw"] = out / "firmware" / target / mm["name"]
        say(f"exporting {mm['name']} firmware C for {target} -> {mm['fw']}")
        files += generate(mm["m"], target, mm["fw"], force=True)
    seconds["export"] = time.perf_counter() - t0

    # cross builds for the size table, where the toolchain is present: they run in a
    # background thread (make and gcc are subprocesses) while Numba compiles and simulates
    builds, skipped, jobs = {mm["name"]: [] for mm in mechs}, [], []
    for tname in size_targets:
        ok, why = T.get_target(tname).available(count=False)
        if ok and shutil.which("make") is None:
            ok, why = False, f"target {tname}: missing make (apt-get install make)"
        if not ok:
            skipped.append({"target": tname, "reason": why})
            say(f"skipping {tname}: {why}")
            continue
        jobs += [(tname, mm) for mm in mechs]

    def cross_builds():
        t = time.perf_counter()
        rows = []
        for tname, mm in jobs:
            say(f"building {mm['name']} example firmware for {tname}")
            # the default target's export is already there (and being read by the host check)
            rows.append((mm["name"], *_cross_build(mm["m"], tname, out / "firmware" / tname / mm["name"],
                                                   export=(tname != target))))
        return rows, time.perf_counter() - t

    with ThreadPoolExecutor(max_workers=1) as pool:
        cross = pool.submit(cross_builds)

        t0 = time.perf_counter()
        lo, hi = TEMPERATURE_BOUNDS
        compiling = _start_compiling(Fraction(mechs[0]["m"].privacy_map(hi - lo)), devices)
        for mm in mechs:
            say(f"building {mm['name']} for the host and comparing {releases:,} releases with the Numba simulation")
            mm["parity"] = verify_on_host(mm["m"], mm["fw"], seed=mm["seed"], devices=releases)
        seconds["host_parity"] = time.perf_counter() - t0

        # 3. the fleet
        t0 = time.perf_counter()
        temp, heating = population(devices, seed)
        truth = {"temperature": float(temp.mean()), "heating": float(heating.mean())}
        values = {"temperature": temp, "heating": heating}
        for mm in mechs:
            say(f"simulating {devices:,} devices: {mm['name']}")
            _, mm["reports"], _, _ = simulate_fleet(mm["m"], devices, mm["seed"], progress=say.enabled,
                                                    population=(values[mm["name"]], truth[mm["name"]]))
        seconds["simulate"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        estimators = {"temperature": bounded_geometric_mean, "heating": rr_bool_frequency}
        for mm in mechs:
            e = estimators[mm["name"]](mm["reports"], mm["m"])
            true = truth[mm["name"]]
            mm["estimate"] = {"name": e.name, "true": true, "estimate": float(e.estimate),
                              "stderr": float(e.stderr),
                              "z": (float(e.estimate) - true) / float(e.stderr) if e.stderr > 0 else 0.0,
                              "naive": float(np.mean(mm["reports"]))}
        seconds["estimate"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        say("ranking the numeric mechanisms for the temperature (recommend_numeric) and simulating the best")
        recommended = _recommended_temperature(mechs[0], values["temperature"], truth["temperature"], devices,
                                               compiling)
        seconds["recommend"] = time.perf_counter() - t0

        rows, seconds["cross_build"] = cross.result()
    for name, row, written in rows:
        builds[name].append(row)
        files += written

    # 4. the exact audit of the implementation as configured
    t0 = time.perf_counter()
    for mm in mechs:
        m = mm["m"]
        say(f"auditing {mm['name']} exactly over every pair of inputs (local epsilon, d_in = {m.local_d_in})")
        rep = audit(m, d_in="all")
        mm["audit"] = {"d_in": "all", "local_d_in": m.local_d_in, "label": rep.label,
                       "epsilon_claimed": rep.epsilon_claimed, "epsilon_realized": rep.epsilon_realized,
                       "method": rep.method, "witness": rep.witness, "epsilon_d_in_1": m.epsilon}
    seconds["audit"] = time.perf_counter() - t0
    seconds["total"] = time.perf_counter() - t_start

    report = {
        "scenario": "smart thermostats: room temperature (constant-time bounded geometric) and a "
                    "yes/no question (constant-time binary randomized response)",
        "devices": devices,
        "seed": seed,
        "target": target,
        "out_dir": str(out),
        "mechanisms": [{
            "name": mm["name"],
            "statistic": mm["statistic"],
            "mechanism": repr(mm["m"]),
            "constant_time": bool(mm["m"].constant_time),
            "config": str(mm["config"]),
            "firmware_dir": str(mm["fw"]),
            "seed": mm["seed"],
            "parity": {"releases": mm["parity"]["releases"], "mismatches": mm["parity"]["mismatches"]},
            "builds": builds[mm["name"]],
            "estimate": mm["estimate"],
            "audit": mm["audit"],
        } for mm in mechs],
        # the stable summary keys (design.md): parity, estimates, audit, files
        "parity": {"releases": sum(mm["parity"]["releases"] for mm in mechs),
                   "mismatches": sum(mm["parity"]["mismatches"] for mm in mechs)},
        "estimates": [{"name": f"{mm['name']}.{mm['estimate']['name']}",
                       **{k: mm["estimate"][k] for k in ("true", "estimate", "stderr")}} for mm in mechs],
        "audit": [{"mechanism": repr(mm["m"]), "epsilon_claimed": mm["audit"]["epsilon_claimed"],
                   "epsilon_realized": mm["audit"]["epsilon_realized"]} for mm in mechs],
        "temperature_recommended": recommended,
        "builds_skipped": skipped,
        "epsilon_per_device": {
            "claimed": _eps_sum_up(mm["audit"]["epsilon_claimed"] for mm in mechs),
            "realized": _eps_sum_up(mm["audit"]["epsilon_realized"] for mm in mechs),
            "composition": "basic (sum over the two releases), rounded up",
        },
        "seconds": seconds,
        "files": [str(f) for f in files],
    }
    if plot:
        from .plots import plot_demo_estimates
        report["plot"] = str(plot_demo_estimates(report, out / "estimates.png"))
        report["files"].append(report["plot"])
    (out / "report.json").write_text(json.dumps(jsonable(report), indent=2, sort_keys=True) + "\n")
    (out / "report.txt").write_text(format_report(report) + "\n")
    return report


def _recommended(eps, devices):
    """(kind, config, row) of the mechanism ``recommend_numeric`` ranks first for the
    temperature at local epsilon ``eps`` over the whole range (a closed form: no kernel runs)."""
    from .estimate import recommend_numeric
    from .registry import constructor
    lo, hi = TEMPERATURE_BOUNDS
    best = recommend_numeric(lo, hi, eps, devices, integer_readings=True)[0]      # whole degrees
    return constructor(best["kind"])(**best["config"]), best


def _compile_recommended(eps_text, devices):
    """The child process of `_start_compiling`: simulate a few devices through the recommended
    mechanism so that its kernels are compiled into Numba's cache (the output is discarded)."""
    m, best = _recommended(Fraction(eps_text), devices)
    x = np.arange(64, dtype=np.int64) % 3 + TEMPERATURE_BOUNDS[0]     # off the grid too: rounding compiles
    m.simulate(m.readings_input(x), seed=0)


def _start_compiling(eps, devices):
    """On a cold Numba cache and a machine with a second core, compile the recommended
    mechanism's kernels in a second process while this one compiles and checks the host
    parity kernels: both are CPU-bound compiles, and Numba compiles one function at a time
    per process.  This process first compiles the keystream core that every kernel calls, so
    that the child loads it from the cache instead of compiling it beside us.  Returns the
    child or None (a warm cache: nothing to gain, and a second process would only compete
    with the cross builds).  Nothing depends on the child: if it fails, this process compiles
    as it would without it."""
    from .samplers._nb_lanes import compile_stream_core
    if not compile_stream_core() or (os.cpu_count() or 1) < 2:
        return None
    root = str(Path(__file__).resolve().parent.parent)     # the same fxdp as this process
    code = (f"import sys; sys.path.insert(0, {root!r}); from fxdp.demo import _compile_recommended as c; "
            "c(sys.argv[1], int(sys.argv[2]))")
    try:
        return subprocess.Popen([sys.executable, "-c", code, str(eps), str(devices)],
                                env=dict(os.environ, FXDP_QUIET="1"),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _recommended_temperature(temp, readings, true, devices, compiling=None):
    """The temperature through the mechanism ``recommend_numeric`` ranks first at the bounded
    geometric's epsilon over the range: the same readings and key, its own estimator; with the
    geometric's estimate beside it (the report's ``temperature_recommended``)."""
    lo, hi = TEMPERATURE_BOUNDS
    eps = Fraction(temp["m"].privacy_map(hi - lo))          # local DP over the whole range
    m, best = _recommended(eps, devices)
    if compiling is not None:
        compiling.wait()                                    # its kernels are in the cache now
    e = m.estimate(m.simulate(m.readings_input(readings), seed=temp["seed"]))
    g = temp["estimate"]
    return {"kind": best["kind"], "mechanism": repr(m), "epsilon": float(best["epsilon"]),
            "epsilon_geometric": float(eps), "worst_case_stderr": float(best["mse"]) ** 0.5,
            "estimate": {"true": true, "estimate": float(e.estimate), "stderr": float(e.stderr)},
            "geometric": {"true": true, "estimate": g["estimate"], "stderr": g["stderr"]},
            "stderr_ratio": g["stderr"] / float(e.stderr) if e.stderr > 0 else float("inf")}


def format_report(r):
    """The human-readable report: what was done, where the files are, the key figures."""
    L = [f"fxdp demo: {r['devices']:,} smart thermostats, seed {r['seed']}, firmware target {r['target']}", ""]
    for mm in r["mechanisms"]:
        e, a, p = mm["estimate"], mm["audit"], mm["parity"]
        L.append(f"{mm['name']}: {mm['mechanism']}")
        L.append(f"  config            {mm['config']}")
        L.append(f"  firmware C        {mm['firmware_dir']}")
        verdict = "agree bit for bit" if p["mismatches"] == 0 else f"DISAGREE on {p['mismatches']:,}"
        L.append(f"  host C vs Numba   {p['releases']:,} releases on one keyed stream: {verdict}")
        for b in mm["builds"]:
            L.append(f"  {b['target']:<17} example firmware {b['flash_bytes']:,} B flash, "
                     f"{b['ram_bytes']:,} B static RAM (whole program, -Os; the rng state is on main's stack)")
        L.append(f"  {mm['statistic']}:")
        L.append(f"    true {e['true']:.4f}   estimate {e['estimate']:.4f} ± {e['stderr']:.4f} "
                 f"(z = {e['z']:+.2f}; raw mean of reports {e['naive']:.4f})")
        L.append(f"  local epsilon (all inputs, d_in = {a['local_d_in']})  claimed {a['epsilon_claimed']:.10g}, "
                 f"exact realized {a['epsilon_realized']:.10g}")
        if a["local_d_in"] != 1:
            L.append(f"                    (epsilon (d_in = 1), neighbouring inputs: {a['epsilon_d_in_1']:.10g}; "
                     f"central DP, not what a device promises)")
        L.append(f"                    ({a['method']})")
        L.append("")
    rec = r["temperature_recommended"]
    e, g = rec["estimate"], rec["geometric"]
    L.append(f"temperature at the same epsilon ({rec['epsilon_geometric']:.10g}): recommend_numeric picks "
             f"{rec['kind']} (realized epsilon {rec['epsilon']:.10g})")
    L.append(f"  {rec['kind']:<17} estimate {e['estimate']:.4f} ± {e['stderr']:.4f} (true {e['true']:.4f})")
    L.append(f"  {'bounded geometric':<17} estimate {g['estimate']:.4f} ± {g['stderr']:.4f} (today's)")
    L.append(f"  gain: standard error {rec['stderr_ratio']:.2f}x smaller than the bounded geometric's")
    L.append("")
    for s in r["builds_skipped"]:
        L.append(f"not built: {s['reason']}")
    eps = r["epsilon_per_device"]
    L.append(f"per device, both releases: local epsilon claimed {eps['claimed']:.10g}, realized "
             f"{eps['realized']:.10g} ({eps['composition']})")
    sec = r["seconds"]
    L.append("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in sec.items() if k != "total")
             + f"; total {sec['total']:.1f} s")
    L.append(f"files: {r['out_dir']} (report.json, report.txt, *.toml, firmware/"
             + (", estimates.png: the estimates against the truth)" if "plot" in r else ")"))
    return "\n".join(L)

