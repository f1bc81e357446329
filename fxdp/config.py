"""One TOML schema for every mechanism, shared by the Python API and the command line.

    [mechanism]
    kind = "randomized_response_bool"   # constructor name without make_
    prob = 0.75                          # the constructor's keyword arguments
    constant_time = true

    [target]                             # optional
    name = "cortex-m0plus"
    min_entropy = "2"                    # optional: bits per byte of the board's source (health tests)

    [simulation]                         # optional
    devices = 100000
    seed = 42
    stream_version = 2                   # the keyed stream's rule (docs/bitstream.md); absent: 1,
                                         # the rule of configs written before version 2

Rationals may be written exactly as strings, e.g. prob = "2/3".
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from . import registry
from .validate import fmt_int, parse_rational

# The largest simulated fleet: [simulation] devices and `fxdp simulate --devices` share it.
MAX_DEVICES = 10 ** 9
# `fxdp simulate --devices` with --engine dask: partitions draw their own devices, the client holds none
MAX_CLUSTER_DEVICES = 10 ** 12
MAX_SEED = (1 << 256) - 1


def constructors():
    """{kind: constructor} for every mechanism kind of fxdp.registry."""
    return registry.constructors()


def _convert(value):
    """A TOML value as the constructor takes it.  A string is passed as it is: every rational
    parameter parses exact strings itself (fxdp.validate.parse_rational), in Python as in TOML,
    and other strings (hash_key = "0011...", a key of decimal digits) stay strings.  A list's
    elements that read as exact rationals become Fractions (bounds; numeric category names,
    which then match the command line's numeric inputs as before)."""
    if isinstance(value, list):
        return [_convert_item(v) for v in value]
    return value


def _convert_item(value):
    if isinstance(value, str):
        try:
            return parse_rational("value", value)
        except ValueError:
            return value
    if isinstance(value, list):
        return [_convert_item(v) for v in value]
    return value


def mechanism_from_table(table):
    """Build a mechanism from a [mechanism] table (dict with `kind` and keyword arguments)."""
    if not isinstance(table, dict) or "kind" not in table:
        raise ValueError("config: a [mechanism] table with a `kind` key is required; "
                         f"kinds: {', '.join(registry.kinds())}")
    kind = table["kind"]
    if kind not in registry.kinds():
        raise ValueError(f"config: unknown mechanism kind {kind!r}; valid kinds: {', '.join(registry.kinds())}")
    make = registry.constructor(kind)
    allowed = list(inspect.signature(make).parameters)
    kwargs = {k: _convert(v) for k, v in table.items() if k != "kind"}
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise ValueError(f"config: unknown key(s) {unknown} for kind {kind!r}; valid keys: {', '.join(allowed)}")
    required = [n for n, p in inspect.signature(make).parameters.items()
                if p.default is inspect.Parameter.empty and n not in kwargs]
    if required:
        raise ValueError(f"config: kind {kind!r} needs key(s) {required} in [mechanism]")
    if "bounds" in kwargs and isinstance(kwargs["bounds"], list):
        kwargs["bounds"] = tuple(kwargs["bounds"])
    try:
        return make(**kwargs)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"config: [mechanism] {exc}") from None


def mechanism_to_table(m):
    """The [mechanism] table that rebuilds m."""
    from .mechanisms.base import check_mechanism
    out = {"kind": check_mechanism(m, "fxdp.config.mechanism_to_table").kind}
    for k, v in m.config().items():
        if v is None:
            continue
        out[k] = _table_value(v)
    return out


def _table_value(v):
    """Fractions as exact strings, also inside lists (bounds = ["-1/2", "1/2"]); tuples as lists."""
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, (tuple, list)):
        return [_table_value(x) for x in v]
    return v


@dataclass
class Config:
    mechanism: object
    target: str | None = None
    simulation: dict = field(default_factory=dict)
    path: Path | None = None
    # [target] min_entropy: the board source's min-entropy per byte (bits, an exact string or int) for
    # the export's health tests (docs/health.md); None: the export's default
    min_entropy: str | int | None = None

    def seed(self, value=None):
        """The simulation seed as a fxdp.Seed: `value` (e.g. --seed) or [simulation] seed (default
        0), under [simulation] stream_version (absent: 1, the rule before version 2 existed)."""
        from .bitsource import Seed
        value = int(self.simulation.get("seed", 0)) if value is None else value
        return Seed(value, int(self.simulation.get("stream_version", 1)))


def load_config(path):
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ValueError(f"config: no such file {path}") from None
    except IsADirectoryError:
        raise ValueError(f"config: {path} is a directory, not a TOML file") from None
    except UnicodeDecodeError:
        raise ValueError(f"config: {path} is not a UTF-8 text file, so not TOML (a report or values file?)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"config: {path} is not valid TOML: {exc}") from None
    return config_from_dict(data, path)


def config_from_dict(data, path=None):
    unknown = sorted(set(data) - {"mechanism", "target", "simulation"})
    if unknown:
        raise ValueError(f"config: unknown table(s) {unknown}; valid: mechanism, target, simulation")
    m = mechanism_from_table(data.get("mechanism"))
    target = _target_from_table(data.get("target"))
    min_entropy = _min_entropy_from_table(data.get("target"))
    sim = data.get("simulation", {})
    if not isinstance(sim, dict):
        raise ValueError("config: [simulation] must be a table with keys devices, seed, stream_version")
    bad = sorted(set(sim) - {"devices", "seed", "stream_version"})
    if bad:
        raise ValueError(f"config: unknown [simulation] key(s) {bad}; valid: devices, seed, stream_version")
    sim = dict(sim)
    for key, lo, hi in (("devices", 1, MAX_DEVICES), ("seed", 0, MAX_SEED), ("stream_version", 1, 2)):
        if key in sim:
            v = sim[key]
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"config: [simulation] {key} must be an integer in [{fmt_int(lo)}, {fmt_int(hi)}], "
                                 f"got {v!r}")
    return Config(m, target, sim, path, min_entropy)


def _min_entropy_from_table(table):
    """[target] min_entropy: an integer or an exact string ("2", "1/2", "2.5") in [1/256, 8] bits per byte."""
    if not isinstance(table, dict) or "min_entropy" not in table:
        return None
    v = table["min_entropy"]
    from .health import h256_from_min_entropy
    try:
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise TypeError
        h256_from_min_entropy(v)
    except (TypeError, ValueError):
        raise ValueError('config: [target] min_entropy (bits per byte) must be an integer or an exact string '
                         f'such as "1/2" or "2.5", in [1/256, 8]; got {v!r}') from None
    return v


def _target_from_table(table):
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ValueError('config: [target] must be a table, e.g. [target] name = "cortex-m0plus"')
    bad = sorted(set(table) - {"name", "min_entropy"})
    if bad:
        raise ValueError(f"config: unknown [target] key(s) {bad}; valid: name, min_entropy")
    name = table.get("name")
    if name is None:
        return None
    from .targets import get_target, list_targets
    if not isinstance(name, str):
        raise ValueError(f"config: [target] name must be a string, one of "
                         f"{', '.join(t.name for t in list_targets())}; got {name!r}")
    return get_target(name).name          # ValueError listing the valid targets


def dumps(m, target=None, simulation=None):
    """A TOML text for m (and optional target/simulation tables)."""
    lines = ["[mechanism]"]
    for k, v in mechanism_to_table(m).items():
        lines.append(f"{k} = {_toml_value(v)}")
    if target:
        lines += ["", "[target]", f"name = {_toml_value(target)}"]
    if simulation:
        lines += ["", "[simulation]"] + [f"{k} = {_toml_value(v)}" for k, v in simulation.items()]
    return "\n".join(lines) + "\n"


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise ValueError(f"cannot write {v!r} to TOML")
