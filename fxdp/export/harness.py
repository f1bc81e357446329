"""Test harness for exported firmware: one C program, run on the host or under
an MCU emulator, checked against ``m.simulate``.

(One module: the input model, the C program it renders (template_files/fxdp_harness.c.in), its build and run on every target and
the parsing of its output are one format; each half is useless without the other.)

The harness links the export's library (``src/``) with a generated
``fxdp_harness.c`` and runs, in order:

1. **constant time** (``n_ct`` releases): ``port_mark(); fxdp_release(); port_mark();``
   for devices ``CT_DEV0 + i`` with inputs drawn over the whole input domain
   (salt ``SALT_CT``); the region counts of the releases (every other region)
   are instructions (QEMU, callgrind) or cycles (AVR).
2. **parity** (``n`` releases): device ``dev0 + i`` draws from the keyed stream
   ``fxdp_rng_init_stream(version, seed words, dev, 0, 0)`` (docs/bitstream.md), exactly as
   ``m.simulate_device(values, seed, device_ids)`` does for device i; one output line
   per release.
3. **DRBG** (``n_drbg`` releases): the same devices, but the rng is the built-in
   DRBG ``fxdp_rng_init_drbg`` seeded by a hook that serves the seed words and the
   device id as key and nonce: the DRBG (always stream version 2, fast key erasure)
   must give the same stream as a version-2 seed.
4. **entropy failure**: a board hook that serves j words and then fails, for
   several j; and a DRBG whose seeding hook fails.  A release either completes
   (FXDP_OK) or returns FXDP_ERR_ENTROPY with the output buffer untouched (all
   zero for the forms that draw in place, ``DeviceSpec.in_place``), and every
   later release fails too, writing nothing.

Inputs are a deterministic function of (device id, salt) -- ``hrand`` below,
the same integer hash in C and Python -- mapped into the mechanism's input
domain by an :class:`InputModel`, so the harness needs no input tables.

An output line is the release's output elements in hex (each element as an
unsigned integer of its C width, most significant digit first, concatenated)
when they fit in 8 bytes, else the FNV-1a-32 hash of their little-endian bytes.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import targets as _targets
from .spec import CTYPES, DeviceSpec, _c_literal, device_spec, library_sources
from .templates import template

MASK32 = 0xFFFFFFFF
GOLDEN = 0x9E3779B9
SALT_PARITY = 0x5EED0001
SALT_CT = 0xC0DE0002
CT_DEV0 = 0x40000000
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
ENTROPY_STEPS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55)


# ---------------------------------------------------------------------------
# deterministic synthetic inputs

def mix32(x):
    """lowbias32 (C. Wellons) on a uint64 array holding 32-bit values; C twin h_mix."""
    x = np.asarray(x, dtype=np.uint64) & MASK32
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7FEB352D)) & MASK32
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846CA68B)) & MASK32
    x ^= x >> np.uint64(16)
    return x


def hrand(dev, j, salt):
    """32-bit hash of (device, j, salt); C twin h_rand."""
    dev = np.asarray(dev, dtype=np.uint64) & MASK32
    a = mix32(dev ^ np.uint64(salt & MASK32))
    return mix32((a + np.uint64((j * GOLDEN) & MASK32)) & MASK32)


@dataclass
class InputModel:
    """How synthetic device-form inputs are drawn.

    kind "bool": hrand & 1; "index": hrand % n; "bits": count bits with at
    most `ones` ones (c = hrand(0) % (ones+1) positions hrand(j) % count set);
    "int": lo + hrand(2j) % span, or one of `extremes` when hrand(2j+1) % 8 == 0.
    """
    kind: str
    ctype: str
    count: int = 1
    n: int = 2
    ones: int = 0
    lo: int = 0
    span: int = 1
    extremes: tuple = ()
    sim_dtype: str = "int64"          # numpy dtype m.simulate expects
    sim_flat: bool = True             # count == 1: pass shape (n,) rather than (n, 1)

    def matrix(self, devs, salt) -> np.ndarray:
        """(len(devs), count) int64/uint64 array of inputs."""
        devs = np.asarray(list(devs) if not isinstance(devs, np.ndarray) else devs, dtype=np.uint64)
        n = len(devs)
        if self.kind == "bool":
            return (hrand(devs, 0, salt) & np.uint64(1)).astype(np.int64).reshape(n, 1)
        if self.kind == "index":
            return (hrand(devs, 0, salt) % np.uint64(self.n)).astype(np.int64).reshape(n, 1)
        if self.kind == "bits":
            out = np.zeros((n, self.count), dtype=np.int64)
            c = hrand(devs, 0, salt) % np.uint64(self.ones + 1)
            rows = np.arange(n)
            for j in range(1, self.ones + 1):
                pos = (hrand(devs, j, salt) % np.uint64(self.count)).astype(np.int64)
                sel = c >= np.uint64(j)
                out[rows[sel], pos[sel]] = 1
            return out
        if self.kind == "int":
            out = np.empty((n, self.count), dtype=object)
            for j in range(self.count):
                h = hrand(devs, 2 * j, salt) % np.uint64(self.span)
                e = hrand(devs, 2 * j + 1, salt)
                vals = [self.lo + int(v) for v in h]
                if self.extremes:
                    ne = len(self.extremes)
                    for i in np.nonzero((e & np.uint64(7)) == 0)[0]:
                        vals[i] = self.extremes[int((e[i] >> np.uint64(3)) % np.uint64(ne))]
                out[:, j] = vals
            return out.astype(np.int64)
        raise ValueError(f"unknown input model kind {self.kind!r}")

    def values(self, devs, salt) -> list:
        return [[int(v) for v in row] for row in self.matrix(devs, salt)]

    def for_simulate(self, devs, salt) -> np.ndarray:
        mat = self.matrix(devs, salt)
        arr = mat.reshape(len(mat)) if (self.count == 1 and self.sim_flat) else mat
        return arr.astype(self.sim_dtype)

    def c_code(self) -> str:
        """static void h_input(uint32_t dev, uint32_t salt, fxdp_input_t x[FXDP_INPUT_COUNT])."""
        head = "static void h_input(uint32_t dev, uint32_t salt, fxdp_input_t x[FXDP_INPUT_COUNT])\n{\n"
        if self.kind == "bool":
            body = "    x[0] = (fxdp_input_t)(h_rand(dev, 0u, salt) & 1u);\n"
        elif self.kind == "index":
            body = f"    x[0] = (fxdp_input_t)(h_rand(dev, 0u, salt) % UINT32_C({self.n}));\n"
        elif self.kind == "bits":
            body = ("    uint32_t c, j;\n"
                    "    for (j = 0; j < FXDP_INPUT_COUNT; j++) {\n        x[j] = 0;\n    }\n"
                    f"    c = h_rand(dev, 0u, salt) % UINT32_C({self.ones + 1});\n"
                    "    for (j = 1; j <= c; j++) {\n"
                    f"        x[h_rand(dev, j, salt) % UINT32_C({self.count})] = 1;\n"
                    "    }\n")
        elif self.kind == "int":
            ext = ""
            if self.extremes:
                lits = ", ".join(_c_literal(v, "int64_t") for v in self.extremes)
                ext = (f"    static const int64_t ext[{len(self.extremes)}] = {{ {lits} }};\n")
            body = (ext + "    uint32_t j, h, e;\n"
                    "    for (j = 0; j < FXDP_INPUT_COUNT; j++) {\n"
                    "        h = h_rand(dev, 2u * j, salt);\n"
                    "        e = h_rand(dev, 2u * j + 1u, salt);\n"
                    f"        x[j] = (fxdp_input_t)({_c_literal(self.lo, 'int64_t')} + "
                    f"(int64_t)(h % UINT32_C({self.span})));\n")
            if self.extremes:
                body += (f"        if ((e & 7u) == 0u) {{\n"
                         f"            x[j] = (fxdp_input_t)ext[(e >> 3) % {len(self.extremes)}u];\n"
                         "        }\n")
            else:
                body += "        (void)e;\n"
            body += "    }\n"
        else:
            raise ValueError(self.kind)
        return head + body + "}\n"


def input_model(m, spec: DeviceSpec | None = None) -> InputModel:
    """The synthetic-input model for mechanism m (device form, as m.simulate takes it)."""
    spec = spec if spec is not None else device_spec(m)
    ctype, count = spec.input["ctype"], spec.input["count"]
    hint = spec.raw.get("input", {})
    model = m.harness_inputs()
    if model is not None:
        return InputModel(ctype=ctype, count=count, **model)
    # generic: a spec may state its input domain
    if "min" in hint and "max" in hint:
        lo, hi = int(hint["min"]), int(hint["max"])
        bits, signed = CTYPES[ctype]
        return InputModel("int", ctype, count, lo=lo, span=min(hi - lo + 1, MASK32), extremes=(lo, hi),
                          sim_dtype=f"{'' if signed else 'u'}int{bits}", sim_flat=count == 1)
    raise ValueError(f"no synthetic input model for mechanism kind {m.kind!r}: give it harness_inputs() "
                     "or give device_spec()['input'] 'min' and 'max'")


# ---------------------------------------------------------------------------
# output lines (Python side)

def _fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & MASK32
    return h


def output_line(values, ctype: str) -> str:
    """The harness's text for one release's output elements."""
    bits, _ = CTYPES[ctype]
    mask = (1 << bits) - 1
    nbytes = bits // 8
    vals = [int(v) & mask for v in values]
    if nbytes * len(vals) <= 8:
        return "".join(f"{v:0{2 * nbytes}x}" for v in vals)
    return f"h{_fnv1a32(b''.join(v.to_bytes(nbytes, 'little') for v in vals)):08x}"


def expected_lines(outputs, spec: DeviceSpec) -> list[str]:
    """Lines for the outputs of m.simulate (shape (n,) or (n, count))."""
    arr = np.asarray(outputs)
    n = arr.shape[0]
    arr = arr.reshape(n, -1)
    if arr.shape[1] != spec.output["count"]:
        raise ValueError(f"simulate gave {arr.shape[1]} output elements per release, device_spec says "
                         f"{spec.output['count']}")
    ctype = spec.output["ctype"]
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if spec.output["count"] == 1 and CTYPES[ctype][0] <= 32:       # fast path
        bits = CTYPES[ctype][0]
        v = arr[:, 0].astype(np.int64) & ((1 << bits) - 1)
        return [f"{int(x):0{bits // 4}x}" for x in v]
    return [output_line(row, ctype) for row in arr.tolist()]


# ---------------------------------------------------------------------------
# C harness

HARNESS_C = template("fxdp_harness.c.in")


def _emit_element(ctype: str) -> str:
    bits, _ = CTYPES[ctype]
    if bits <= 32:
        return f"h_hex32((uint32_t)(uint{bits}_t)y[j], {bits // 4}u);"
    return ("h_hex32((uint32_t)((uint64_t)y[j] >> 32), 8u);\n"
            "        h_hex32((uint32_t)((uint64_t)y[j] & UINT32_C(0xFFFFFFFF)), 8u);")


def _bad_output(m, spec):
    """A value of the output's C type outside the first report field (None if every value fits)."""
    f = m.report_layout().fields[0]
    bits, signed = CTYPES[spec.output["ctype"]]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    for v in (f.hi + 1, f.hi + 2, f.lo - 1, f.lo - 2):
        if lo <= v <= hi and v != f.escape:
            return v
    return None


def seed_words(seed) -> list[int]:
    """The 8 key words of a seed (an int in [0, 2^256) or a fxdp.Seed)."""
    from ..bitsource import seed_parts
    value, _ = seed_parts(seed)
    return [(value >> (32 * i)) & MASK32 for i in range(8)]


def stream_version(seed) -> int:
    """The stream version a seed selects (an int: the current one; a fxdp.Seed: its own)."""
    from ..bitsource import seed_parts
    return seed_parts(seed)[1]


def render_harness(m, spec: DeviceSpec, seed: int, n: int, dev0: int = 0, n_ct: int = 0,
                   n_drbg: int = 0, entropy: bool = True, wire_dump: bool = False) -> str:
    """The harness program; wire_dump=True also prints the report batch's header and every
    record in hex (the host test compares the bytes; emulators print only the batch CRC)."""
    from .templates import render
    model = input_model(m, spec)
    bits = CTYPES[spec.output["ctype"]][0]
    hashed = (bits // 8) * spec.output["count"] > 8
    if spec.input["count"] == 1 and not spec.in_param.pointer:
        call = "fxdp_release(&r, x[0], y)"
    else:
        call = "fxdp_release(&r, x, y)"
    if dev0 < 0 or dev0 + n > CT_DEV0:
        raise ValueError("parity devices must lie below CT_DEV0")
    bad = _bad_output(m, spec)
    fp_text = m.report_layout().fingerprint_text.decode()
    fp_c = '"' + fp_text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", '\\n"\n    "') + '"'
    return render(HARNESS_C, has_bad=int(bad is not None), fp_text=fp_c,
                  bad_value="0" if bad is None else _c_literal(bad, spec.output["ctype"]),
                  seed=", ".join(f"UINT32_C(0x{w:08X})" for w in seed_words(seed)),
                  stream_version=f"{stream_version(seed)}u",
                  dev0=dev0, n=n, n_ct=n_ct, n_drbg=n_drbg, ct_dev0=f"0x{CT_DEV0:08X}",
                  salt_parity=f"0x{SALT_PARITY:08X}", salt_ct=f"0x{SALT_CT:08X}",
                  entropy=1 if entropy else 0, input_code=model.c_code(), hashed=1 if hashed else 0,
                  uout_t=f"uint{bits}_t", emit_element=_emit_element(spec.output["ctype"]),
                  steps=", ".join(f"{s}u" for s in ENTROPY_STEPS), call=call, wire_dump=int(wire_dump),
                  line_len=max(40, 2 * max(m.report_layout().record_bytes, 24) + 4))


# ---------------------------------------------------------------------------
# running

@dataclass
class HarnessResult:
    target: str
    parity: list = field(default_factory=list)     # output lines of the parity phase
    drbg: list = field(default_factory=list)
    entropy: list = field(default_factory=list)    # (steps, st, untouched, st2, untouched2)
    drbg_fail: tuple | None = None                 # (st_init, st_release, untouched)
    health: dict = field(default_factory=dict)     # source S/A/G -> (st_init, st_release, untouched, failed)
    wire: tuple | None = None                      # (CRC-32 of the parity batch, records refused)
    wire_fingerprint: tuple | None = None          # (CRC-32 of the fingerprint text in C, FXDP_REPORT_FINGERPRINT)
    wire_refused: tuple | None = None              # (status, OR of the record bytes) for an output out of range
    wire_header: bytes = b""                       # the batch header (wire_dump=True)
    wire_records: list = field(default_factory=list)   # each record's bytes (wire_dump=True)
    ct_counts: list = field(default_factory=list)  # region counts of the releases
    ct_errors: list = field(default_factory=list)
    exit_code: int = 0
    raw: list = field(default_factory=list)


def parse(lines: list[str], counts, target: str, exit_code: int) -> HarnessResult:
    res = HarnessResult(target, exit_code=exit_code, raw=lines)
    if not lines or lines[0] != "BEGIN" or lines[-1] != "END":
        tail = "\n".join(lines[-5:])
        raise RuntimeError(f"{target}: harness output incomplete (exit {exit_code}); last lines:\n{tail}")
    for ln in lines[1:-1]:
        if ln == "CT":
            continue
        c = ln[0]
        if c == "C":
            res.ct_errors.append(ln)
        elif c == "D":
            res.drbg.append(ln[1:])
        elif c == "F":
            s, st, u, st2, u2 = ln[1:].split()
            res.entropy.append((int(s, 16), int(st, 16), int(u), int(st2, 16), int(u2)))
        elif c == "Z":
            crc, bad = ln[1:].split()
            res.wire = (int(crc, 16), int(bad, 16))
        elif c == "Y":
            a, b = ln[1:].split()
            res.wire_fingerprint = (int(a, 16), int(b, 16))
        elif c == "Q":
            a, b = ln[1:].split()
            res.wire_refused = (int(a, 16), int(b, 16))
        elif c == "H":
            res.wire_header = bytes.fromhex(ln[1:])
        elif c == "R":
            res.wire_records.append(bytes.fromhex(ln[1:]))
        elif c == "K":
            src, a, b, u, f = ln[1], *ln[2:].split()
            res.health[src] = (int(a, 16), int(b, 16), int(u), int(f, 16))
        elif c == "G":
            a, b, u = ln[1:].split()
            res.drbg_fail = (int(a, 16), int(b, 16), int(u))
        else:
            res.parity.append(ln)
    if counts:
        res.ct_counts = list(counts[0::2])
    return res


def write_harness(m, spec, build_dir, **kw) -> Path:
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    path = build_dir / "fxdp_harness.c"
    path.write_text(render_harness(m, spec, **kw))
    return path


def build_harness(m, fw_dir, target, build_dir=None, opt="-Os", **kw) -> Path:
    """Build the harness against the export in fw_dir for `target`; returns the ELF."""
    spec = device_spec(m)
    build_dir = Path(build_dir) if build_dir else Path(tempfile.mkdtemp(prefix="fxdp-harness-"))
    src = write_harness(m, spec, build_dir, **kw)
    fw = Path(fw_dir)
    return _targets.build(target, [src, *library_sources(fw)], [fw / "src"], out_dir=build_dir,
                          opt=opt, name="fxdp_harness")


def run_harness(target, elf, count=False, timeout=600.0) -> HarnessResult:
    r = _targets.run(target, elf, timeout=timeout, count=count)
    t = _targets.get_target(target).name
    return parse(r.lines, r.region_counts, t, r.exit_code)


def simulate_outputs(m, spec, seed: int, n: int, dev0: int = 0):
    """m.simulate_device over the parity phase's inputs and device ids."""
    model = input_model(m, spec)
    devs = np.arange(dev0, dev0 + n, dtype=np.uint64)
    values = model.for_simulate(devs, SALT_PARITY)
    return m.simulate_device(values, seed, device_ids=devs)


def simulate_lines(m, spec, seed: int, n: int, dev0: int = 0) -> list[str]:
    """What the parity phase must print: m.simulate over the same inputs and device ids."""
    return expected_lines(simulate_outputs(m, spec, seed, n, dev0), spec)


def expected_wire(m, outputs) -> tuple:
    """What the parity phase's wire line must say: (CRC-32 of m.encode_reports(outputs) without
    its trailer, i.e. the trailer itself; 0 records refused)."""
    data = m.encode_reports(outputs)
    return int.from_bytes(data[-4:], "little"), 0


def compare(expected: list[str], got: list[str]) -> int:
    """Mismatching releases (a missing or extra line counts as a mismatch)."""
    mism = sum(1 for a, b in zip(expected, got) if a != b)
    return mism + abs(len(expected) - len(got))


def check_entropy(res: HarnessResult, in_place: bool = False) -> list[str]:
    """Violations of the entropy-failure contract in a harness result ([] if none).  A failed
    release leaves the output untouched (u = 1) or, for an in_place form (DeviceSpec.in_place), all
    zero (u = 2); the sticky failure after it draws nothing and writes nothing (u2 = 1)."""
    bad = []
    released_nothing = (1, 2) if in_place else (1,)
    if not res.entropy:
        bad.append("no entropy-failure checks ran")
    for steps, st, u, st2, u2 in res.entropy:
        if st not in (0, 2):
            bad.append(f"hook failing after {steps} words: status {st}")
        if st == 2 and u not in released_nothing:
            bad.append(f"hook failing after {steps} words: output written despite FXDP_ERR_ENTROPY")
        if st == 2 and (st2 != 2 or u2 != 1):
            bad.append(f"hook failing after {steps} words: the next release gave status {st2}, "
                       f"untouched={u2} (failure must be sticky)")
    if res.entropy and res.entropy[0][0] == 0 and res.entropy[0][1] != 2:
        bad.append("a hook that fails at once did not give FXDP_ERR_ENTROPY")
    if res.drbg_fail is None:
        bad.append("no DRBG seeding-failure check ran")
    elif res.drbg_fail != (2, 2, 1):
        bad.append(f"DRBG with a failing seed hook: init {res.drbg_fail[0]}, release {res.drbg_fail[1]}, "
                   f"untouched {res.drbg_fail[2]} (want 2, 2, 1)")
    # the health-tested DRBG: stuck -> repetition count (2), alternating -> adaptive proportion (3),
    # nothing released; the good source passes and releases
    for src, name, code in (("S", "stuck", 2), ("A", "alternating", 3)):
        got = res.health.get(src)
        if got is None:
            bad.append(f"no health check with a {name} source ran")
        elif got[0] != 2 or got[1] != 2 or got[2] not in released_nothing or got[3] != code:
            bad.append(f"health-tested DRBG over a {name} source: init {got[0]}, release {got[1]}, untouched "
                       f"{got[2]}, failure code {got[3]} (want 2, 2, untouched, {code})")
    good = res.health.get("G")
    if good is None:
        bad.append("no health check with a good source ran")
    elif good[0] != 0 or good[1] != 0 or good[3] != 0:
        bad.append(f"health-tested DRBG over a good source: init {good[0]}, release {good[1]}, failure code "
                   f"{good[3]} (want 0, 0, 0)")
    return bad


__all__ = ["InputModel", "input_model", "hrand", "mix32", "render_harness", "build_harness", "run_harness",
           "simulate_lines", "simulate_outputs", "verify_on_host", "verify_on_target", "expected_wire", "host_report_batch", "host_wire_run", "expected_lines", "compare", "check_entropy", "HarnessResult", "seed_words",
           "SALT_PARITY", "SALT_CT", "CT_DEV0"]


def verify_on_target(m, fw_dir, target, seed=0, devices=1_000, build_dir=None):
    """Build the export in fw_dir for `target` with the parity harness, run it (the host, or the
    target's emulator: QEMU, simavr), release `devices` times (device ids 0..devices-1, keyed
    stream of `seed`, synthetic inputs from fxdp.export.harness.input_model, the same ones passed to
    m.simulate) and count the releases whose output differs from m.simulate's.

    Returns {"target": name, "releases": devices, "mismatches": M}.  Raises ValueError for a
    directory that is not an export or a bad count, and fxdp.targets.TargetError (naming the
    Debian package) when a compiler or emulator is missing or the build fails.
    """
    devices = int(devices)
    if devices < 1:
        raise ValueError(f"devices must be >= 1, got {devices}")
    name = _targets.get_target(target).name
    spec = device_spec(m)
    library_sources(fw_dir)                     # ValueError if fw_dir is not an export
    host = name == "host"
    with tempfile.TemporaryDirectory(prefix="fxdp-verify-") as tmp:
        bdir = Path(build_dir) if build_dir else Path(tmp)
        elf = build_harness(m, fw_dir, name, bdir, opt="-O2" if host else "-Os", seed=seed, n=devices,
                            n_drbg=0, entropy=False)
        res = run_harness(name, elf, timeout=max(60.0, devices / (2000 if host else 20)))
    expected = simulate_lines(m, spec, seed, devices)
    return {"target": name, "releases": devices, "mismatches": compare(expected, res.parity)}


def verify_on_host(m, fw_dir, seed=0, devices=10_000, build_dir=None):
    """``verify_on_target`` on the host (any export: the C is portable): {"releases": devices,
    "mismatches": M}."""
    r = verify_on_target(m, fw_dir, "host", seed=seed, devices=devices, build_dir=build_dir)
    return {"releases": r["releases"], "mismatches": r["mismatches"]}


def host_wire_run(m, fw_dir, seed=0, devices=10_000, build_dir=None) -> HarnessResult:
    """Run the parity releases of the export in fw_dir on the host with the report encoder's
    dump: every record, the header, the batch CRC, the fingerprint recomputed by the C CRC-32
    (``wire_fingerprint``) and the encoder's answer to an output outside the layout
    (``wire_refused``: status and the OR of the record bytes, None if every value fits)."""
    devices = int(devices)
    if devices < 1:
        raise ValueError(f"devices must be >= 1, got {devices}")
    library_sources(fw_dir)
    with tempfile.TemporaryDirectory(prefix="fxdp-wire-") as tmp:
        bdir = Path(build_dir) if build_dir else Path(tmp)
        elf = build_harness(m, fw_dir, "host", bdir, opt="-O2", seed=seed, n=devices, n_drbg=0,
                            entropy=False, wire_dump=True)
        return run_harness("host", elf, timeout=max(60.0, devices / 1000))


def host_report_batch(m, fw_dir, seed=0, devices=10_000, build_dir=None) -> bytes:
    """The report batch the export in fw_dir writes on the host for the parity releases (device
    ids 0..devices-1, keyed stream of `seed`, the harness's synthetic inputs): the C encoder's
    header and records and its CRC-32 trailer, to compare with
    ``m.encode_reports(simulate_outputs(m, spec, seed, devices))``.  RuntimeError if a release
    failed or the C encoder refused an output."""
    res = host_wire_run(m, fw_dir, seed, devices, build_dir)
    if res.wire is None or res.wire[1] or len(res.wire_records) != int(devices):
        raise RuntimeError(f"host wire run: {len(res.wire_records)} of {devices} records, "
                           f"{res.wire[1] if res.wire else '?'} refused by fxdp_encode_report")
    return res.wire_header + b"".join(res.wire_records) + res.wire[0].to_bytes(4, "little")
