"""Known-answer vectors (tests/vectors/*.json, from the Python reference) on every
target: the C samplers, cross-built and run under each emulator, must
reproduce every output and the stream position (bits used) after every draw.

One generated C program holds every case (straight-line code per case, no
tables of function pointers); it prints one line per draw:
``<case>.<draw> <output as 64-bit hex> <bits used, hex>``.  ~2,600 draws per
target; the whole file takes 5-15 s.
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

from fxdp import targets as T
from fxdp.export.firmware import find_csrc

VECTORS = Path(__file__).resolve().parent / "vectors"
TARGETS = ["host", "avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4", "rv32imac"]
SPLIT = {"avr-atmega328p"}   # targets whose flash does not hold every case in one program
U32 = 0xFFFFFFFF
SAMPLER_FILES = ["fxdp_chacha20.c", "fxdp_rng.c", "fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_laplace.c",
                 "fxdp_table.c"]


def _u64(v):
    return f"UINT64_C({v})"


def _i64(v):
    if v == -(1 << 63):
        return "(-INT64_C(9223372036854775807) - 1)"
    return f"INT64_C({v})"


def load_cases():
    """[(name, case)] for every sampler case, plus u64 twins of uniform_below cases that fit u32."""
    out = []
    for f in sorted(VECTORS.glob("*.json")) + sorted((VECTORS / "v2").glob("*.json")):
        if f.name in ("chacha20.json", "discrete_laplace_fast.json"):   # the latter: host only
            continue
        for i, case in enumerate(json.loads(f.read_text())["cases"]):
            v = case.get("stream_version", 1)          # version-1 files predate the key
            case = dict(case, stream_version=v)
            out.append((f"v{v}-{case['sampler']}#{i}", case))
            if case["sampler"] == "uniform_below" and case["params"][0] <= U32:
                out.append((f"v{v}-uniform_below_u64#{i}", dict(case, sampler="uniform_below_u64")))
    return out


def _call(sampler, params, tag):
    """(declarations, call statement setting st and v (uint64_t))."""
    p = params
    if sampler == "uniform_below":
        if p[0] <= U32:
            return "uint32_t o;", f"st = fxdp_uniform_below_u32(&r, UINT32_C({p[0]}), &o); v = o;"
        return "uint64_t o;", f"st = fxdp_uniform_below_u64(&r, {_u64(p[0])}, &o); v = o;"
    if sampler == "uniform_below_ct":
        return "uint32_t o;", f"st = fxdp_uniform_below_ct_u32(&r, UINT32_C({p[0]}), &o); v = o;"
    if sampler == "uniform_below_u64":
        return "uint64_t o;", f"st = fxdp_uniform_below_u64(&r, {_u64(p[0])}, &o); v = o;"
    if sampler in ("bernoulli_dyadic", "bernoulli_dyadic_ct"):
        return "uint8_t o;", f"st = fxdp_{sampler}(&r, {_u64(p[0])}, {p[1]}u, &o); v = o;"
    if sampler in ("bernoulli_block", "bernoulli_block_ct"):
        return "uint32_t o;", (f"st = fxdp_{sampler}(&r, {p[0]}u, {_u64(p[1])}, {_u64(p[2])}, {p[3]}u, "
                               f"UINT32_C({p[4]}), &o); v = o;")
    if sampler == "bernoulli_rational":
        return "uint8_t o;", f"st = fxdp_bernoulli_rational(&r, {_u64(p[0])}, {_u64(p[1])}, &o); v = o;"
    if sampler == "bernoulli_exp":
        return "uint8_t o;", f"st = fxdp_bernoulli_exp(&r, UINT32_C({p[0]}), UINT32_C({p[1]}), &o); v = o;"
    if sampler == "discrete_laplace":
        return "int64_t o;", f"st = fxdp_discrete_laplace(&r, UINT32_C({p[0]}), UINT32_C({p[1]}), &o); v = (uint64_t)o;"
    if sampler == "discrete_laplace_censored":
        return ("int64_t o;",
                f"st = fxdp_discrete_laplace_censored(&r, UINT32_C({p[0]}), UINT32_C({p[1]}), {_i64(p[2])}, "
                f"{_i64(p[3])}, &o); v = (uint64_t)o;")
    if sampler == "table_sample_ct":
        th = ", ".join(f"UINT32_C({x})" for x in p[0])
        return (f"static const uint32_t th_{tag}[{len(p[0])}] = {{ {th} }};\n    uint32_t o;",
                f"st = fxdp_table_sample_ct(&r, th_{tag}, {len(p[0])}u, {p[1]}u, &o); v = o;")
    raise ValueError(f"no C call for sampler {sampler}")


def render_program(cases, part=range(0)) -> str:
    parts = [r'''#include "fxdp.h"
#include "fxdp_port.h"

static const char dg[] = "0123456789abcdef";
static char line[48];

static unsigned hex32(unsigned pos, uint32_t v, unsigned digits)
{
    unsigned i;
    for (i = digits; i > 0u; i--) {
        line[pos + i - 1u] = dg[v & 15u];
        v >>= 4;
    }
    return pos + digits;
}

/* "<case>.<draw> <value> <bits used>" or "<case>.<draw> E<status>" */
static void emit(uint32_t c, uint32_t d, fxdp_status st, uint64_t v, const fxdp_rng *r)
{
    unsigned p = hex32(0u, c, 2u);
    line[p++] = '.';
    p = hex32(p, d, 2u);
    line[p++] = ' ';
    if (st != FXDP_OK) {
        line[p++] = 'E';
        p = hex32(p, (uint32_t)st, 1u);
    } else {
        p = hex32(p, (uint32_t)(v >> 32), 8u);
        p = hex32(p, (uint32_t)(v & UINT32_C(0xFFFFFFFF)), 8u);
        line[p++] = ' ';
        /* bits used of a keyed stream started at counter 0 (docs/bitstream.md) */
        p = hex32(p, r->counter * (r->mode == FXDP_MODE_CHACHA_FKE ? 256u : 512u)
                     - (r->block_len - r->word_pos) * 32u - r->bitcount, 8u);
    }
    line[p++] = '\n';
    line[p] = '\0';
    port_puts(line);
}
''']
    # const data lives in RAM on AVR (2 KiB): one array per distinct seed
    seeds = sorted({int(c["seed"], 16) for _, c in cases})
    for si, seed in enumerate(seeds):
        words = ", ".join(f"UINT32_C(0x{(seed >> (32 * i)) & U32:08X})" for i in range(8))
        parts.append(f"static const uint32_t seed_{si}[8] = {{ {words} }};\n")
    for ci, (name, case) in enumerate(cases):
        if part and ci not in part:
            continue
        si = seeds.index(int(case["seed"], 16))
        dev = int(case["device_id"])
        decl, call = _call(case["sampler"], case["params"], ci)
        parts.append(f'''
/* {name}: {case["sampler"]}{tuple(case["params"]) if case["sampler"] != "table_sample_ct" else ""} */
static void case_{ci}(void)
{{
    {decl}
    fxdp_rng r;
    fxdp_status st;
    uint64_t v = 0;
    uint32_t d;
    (void)fxdp_rng_init_stream(&r, {case["stream_version"]}u, seed_{si}, UINT32_C({dev & U32}), UINT32_C({dev >> 32}),
                               UINT32_C({case["stream"]}));
    for (d = 0; d < {len(case["outputs"])}u; d++) {{
        {call}
        emit({ci}u, d, st, v, &r);
    }}
}}
''')
    parts.append("int main(void)\n{\n    port_init();\n    port_puts(\"BEGIN\\n\");\n")
    parts += [f"    case_{ci}();\n" for ci in (part or range(len(cases)))]
    parts.append("    port_puts(\"END\\n\");\n    return 0;\n}\n")
    return "".join(parts)


def expected_lines(cases) -> list[str]:
    out = []
    for ci, (_, case) in enumerate(cases):
        for d, (v, b) in enumerate(zip(case["outputs"], case["bits_used"])):
            out.append(f"{ci:02x}.{d:02x} {int(v) & ((1 << 64) - 1):016x} {b:08x}")
    return out


@pytest.fixture(scope="module")
def vector_runs(tmp_path_factory):
    cases = load_cases()
    assert len(cases) > 60 and {c["stream_version"] for _, c in cases} == {1, 2}
    base = tmp_path_factory.mktemp("vectors")
    src = base / "kat.c"
    src.write_text(render_program(cases))
    csrc = find_csrc()

    def one(t):
        if t not in SPLIT:
            elf = T.build(t, [src, *[csrc / f for f in SAMPLER_FILES]], [csrc], out_dir=base / t, name="kat")
            return T.run(t, elf, timeout=300)
        # the whole program passes the ATmega328P's 32 KiB of flash: two programs, half the cases each
        half = (len(cases) + 1) // 2
        runs = []
        for k, part in enumerate((range(0, half), range(half, len(cases)))):
            src_k = base / f"kat{k}.c"
            src_k.write_text(render_program(cases, part))
            elf = T.build(t, [src_k, *[csrc / f for f in SAMPLER_FILES]], [csrc], out_dir=base / f"{t}-{k}",
                          name=f"kat{k}")
            runs.append(T.run(t, elf, timeout=300))
        bad = next((r for r in runs if r.exit_code != 0 or r.lines[:1] != ["BEGIN"] or r.lines[-1:] != ["END"]), None)
        if bad is not None:
            return bad
        return SimpleNamespace(exit_code=0, stderr="", lines=["BEGIN", *runs[0].lines[1:-1], *runs[1].lines[1:-1], "END"])

    with ThreadPoolExecutor(max_workers=3) as ex:
        runs = dict(zip(TARGETS, ex.map(one, TARGETS)))
    return cases, runs


@pytest.mark.parametrize("target", TARGETS)
def test_known_answer_vectors_on_target(vector_runs, target):
    cases, runs = vector_runs
    r = runs[target]
    assert r.exit_code == 0, r.stderr
    assert r.lines[0] == "BEGIN" and r.lines[-1] == "END", r.lines[-3:]
    got = r.lines[1:-1]
    want = expected_lines(cases)
    assert len(got) == len(want)
    bad = [(cases[int(w[:2], 16)][0], w, g) for w, g in zip(want, got) if w != g]
    assert not bad, f"{target}: {len(bad)} of {len(want)} draws differ, first: {bad[:3]}"


def test_every_sampler_is_covered(vector_runs):
    cases, _ = vector_runs
    samplers = {c["sampler"] for _, c in cases}
    assert {"uniform_below", "uniform_below_u64", "bernoulli_dyadic", "bernoulli_dyadic_ct",
            "bernoulli_rational", "bernoulli_exp", "discrete_laplace", "discrete_laplace_censored",
            "table_sample_ct", "bernoulli_block", "bernoulli_block_ct"} <= samplers
