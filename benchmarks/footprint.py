"""Firmware footprint of every exported mechanism on every MCU target.

    python benchmarks/footprint.py [--targets a,b] [--mechanisms x,y] [--json] [--releases 64]

Each mechanism is exported with ``fxdp.export.generate`` and built with the
target's toolchain at -Os (the flags of ``fxdp.targets.build``: strict C99,
-ffunction-sections -fdata-sections, --gc-sections).  Columns:

* **flash** (text + rodata + data initialisers) and **RAM** (data + bss) of the
  mechanism *alone*: the growth of a program that already seeds the ChaCha20
  DRBG and draws from it (program A: ``fxdp_rng_init_drbg`` + ``fxdp_bits``)
  when it also calls ``fxdp_release`` (program B).  B - A counts the
  mechanism's code, its baked config and tables, the samplers it pulls in and
  any libgcc helpers only it needs (plus the ~10-20 bytes of the call itself).
  On AVR, const data lives in RAM (avr-gcc copies .rodata to RAM unless it is
  placed in program memory), so tables count in RAM there as well, except
  where the entry point has a ``_rom`` twin (``fxdp_geometric_ct_rom``): the
  exporter then places the tables in program memory (read with LPM).
* **DRBG** flash/RAM: program A minus an empty program (ChaCha20 block
  function, bit reader, DRBG seeding, libgcc helpers they need, and the
  ``fxdp_rng`` state, which the program holds statically).
* **stack**: worst case along the release call chain.  Frame sizes come from
  ``-fstack-usage`` (.su files of the same compilation); the call graph from
  the disassembly of program B (direct calls and tail calls from
  ``fxdp_release``); the figure is the maximum, over call paths, of the sum of
  frames.  libgcc helpers have no .su: their frame is read from their
  prologue (pushes and stack-pointer adjustments).  On AVR each call level
  adds 2 bytes of return address (not in GCC's figure).  The board's entropy
  hook is not on the release path in DRBG mode.  Recursion would be reported
  as "rec"; a figure marked * is a lower bound, because a function on the
  path makes an indirect call (through a pointer) that is not followed.  The table gives the full figure (a release that triggers a
  refill, i.e. generates a ChaCha20 block) and, in parentheses, the figure
  without the ChaCha20 block function's frame (``fxdp_i_chacha20_block``, which the refill
  calls; the mechanism's own chain), then
  the **measured** high-water mark: free RAM below main's frame is painted
  before each release and scanned after it (max over the measured releases;
  it includes the few bytes of main's frame below the probe, so it can exceed
  the static figure by a little on some targets; a lazy release may not reach
  the deepest path).
* **per release** (QEMU targets: executed instructions; AVR: exact cycles),
  the mechanism alone: ``port_mark()`` before and after one release of device
  i on its fresh keyed stream, over ``--releases`` devices with varied inputs,
  minus (ChaCha20 blocks the release generated for its rng) x (the block
  cost measured alone); a single number for constant-time forms (all equal),
  else min-mean-max.  The refill bookkeeping stays in the figure; ChaCha20
  work a mechanism does internally (full RAPPOR's memoized PRR) too.
* **ChaCha20 block**: one ``fxdp_chacha20_block`` (64 bytes of keystream).

Goals (issue 5): binary randomized response in constant time on Cortex-M0+
<= 512 bytes of flash without the DRBG; bounded discrete Laplace (the
constant-time geometric mechanism, scale 10) <= 2 KiB including its table; no
mechanism above 256 bytes of stack (issue 13: with a ChaCha20 refill included),
printed MET/MISSED per mechanism and target (a figure marked * is a lower bound
and counts as MISSED).
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fxdp.mechanisms as M  # noqa: E402
from fxdp import targets as T  # noqa: E402
from fxdp.export import device_spec, generate, library_sources  # noqa: E402
from fxdp.export import harness as H  # noqa: E402

# The ChaCha20 block functions: the public one (copies key and nonce) and the in-place one the refill calls.
BLOCK_FUNCTIONS = ("fxdp_chacha20_block", "fxdp_i_chacha20_block")

MCU_TARGETS = ["avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4", "rv32imac"]

# name -> (what it is, constructor)
MECHANISMS = {
    "rr_bool_ct": ("binary RR p=3/4, constant time", lambda: M.make_randomized_response_bool(0.75, constant_time=True)),
    "rr_bool": ("binary RR p=3/4, lazy", lambda: M.make_randomized_response_bool(0.75)),
    "rr_kary_ct": ("k-ary RR t=8, constant time",
                   lambda: M.make_randomized_response(list(range(8)), 0.5, constant_time=True)),
    "rr_kary": ("k-ary RR t=8, lazy", lambda: M.make_randomized_response(list(range(8)), 0.5)),
    "rappor_ct": ("RAPPOR k=64 m=4, constant time", lambda: M.make_rappor(0.5, 4, 64, constant_time=True)),
    "rappor": ("RAPPOR k=64 m=4, lazy", lambda: M.make_rappor(0.5, 4, 64)),
    "geometric": ("geometric scale 10, int64, lazy (CKS)", lambda: M.make_geometric(10)),
    "geometric_ct": ("bounded discrete Laplace scale 10 on [0,100], constant time (201-entry table)",
                     lambda: M.make_geometric(10, bounds=(0, 100), constant_time=True)),
    "unary_encoding_ct": ("OUE frequency oracle d=1024 eps=1, constant time",
                          lambda: M.make_unary_encoding(1024, 1, constant_time=True)),
    "unary_encoding": ("OUE frequency oracle d=1024 eps=1, lazy", lambda: M.make_unary_encoding(1024, 1)),
    "hadamard_response_ct": ("Hadamard response d=1024 eps=1, constant time",
                             lambda: M.make_hadamard_response(1024, 1, constant_time=True)),
    "longitudinal_grr_ct": ("L-GRR d=1024 eps_perm=4 eps_1=1, constant time",
                            lambda: M.make_longitudinal_grr(1024, 4, 1, constant_time=True)),
    "longitudinal_ue_ct": ("L-OUE d=1024 eps_perm=4 eps_1=1, constant time",
                           lambda: M.make_longitudinal_ue(1024, 4, 1, constant_time=True)),
    "longitudinal_ue": ("L-OUE d=1024 eps_perm=4 eps_1=1, lazy", lambda: M.make_longitudinal_ue(1024, 4, 1)),
    "dbitflip_ct": ("dBitFlip d=1024 buckets=32 sampled=4 eps=2, constant time",
                    lambda: M.make_dbitflip(1024, 32, 2, sampled_buckets=4, constant_time=True)),
    "rappor_full_ct": ("full RAPPOR k=32 h=2 64 cohorts, constant time",
                       lambda: M.make_rappor_full(32, 2, 64, 0.5, 0.25, 0.75, constant_time=True, value_bytes=16)),
    # issue 10: d = 1024; constant time in x and inclusion, the count varies with the stream's rejections
    "subset_selection_ct": ("subset selection d=1024 eps=1 (k=275 uint16 out), constant time in x and b",
                            lambda: M.make_subset_selection(1024, 1, constant_time=True)),
    "subset_selection": ("subset selection d=1024 eps=1 (k=275 uint16 out), lazy",
                         lambda: M.make_subset_selection(1024, 1)),
    "local_hashing_ct": ("OLH d=1024 eps=2 (g=8), constant time in x",
                         lambda: M.make_local_hashing(1024, 2, constant_time=True)),
    "local_hashing": ("OLH d=1024 eps=2 (g=8), lazy", lambda: M.make_local_hashing(1024, 2)),
    "duchi_ct": ("Duchi one-bit, [-20, 60] at 12 bits, eps 1, constant time",
                 lambda: M.make_duchi(-20, 60, 1, constant_time=True)),
    "duchi": ("Duchi one-bit, [-20, 60] at 12 bits, eps 1, lazy", lambda: M.make_duchi(-20, 60, 1)),
    "piecewise_ct": ("Piecewise, [0, 40] at 12 bits, eps 2, constant time",
                     lambda: M.make_piecewise(0, 40, 2, constant_time=True)),
    "piecewise": ("Piecewise, [0, 40] at 12 bits, eps 2, lazy", lambda: M.make_piecewise(0, 40, 2)),
    "hybrid_ct": ("Hybrid, [0, 40] at 12 bits, eps 2, constant time", lambda: M.make_hybrid(0, 40, 2, constant_time=True)),
    "hybrid": ("Hybrid, [0, 40] at 12 bits, eps 2, lazy", lambda: M.make_hybrid(0, 40, 2)),
    "square_wave_ct": ("Square Wave, [0, 40] at 12 bits, eps 2, constant time",
                       lambda: M.make_square_wave(0, 40, 2, constant_time=True)),
    "square_wave": ("Square Wave, [0, 40] at 12 bits, eps 2, lazy", lambda: M.make_square_wave(0, 40, 2)),
    # issue 17, several readings per device: k = 2 of d = 8 attributes on [0, 40] at 12 bits, eps 6 (3 per report)
    "numeric_multidim_duchi_ct": ("multi-dim d=8 k=2, Duchi base, [0, 40] at 12 bits, eps 6, constant time",
                            lambda: M.make_numeric_multidim(0, 40, 6, 8, base="duchi", report_dims=2,
                                                            constant_time=True)),
    "numeric_multidim_duchi": ("multi-dim d=8 k=2, Duchi base, [0, 40] at 12 bits, eps 6, lazy",
                         lambda: M.make_numeric_multidim(0, 40, 6, 8, base="duchi", report_dims=2)),
    "numeric_multidim_piecewise_ct": ("multi-dim d=8 k=2, Piecewise base, [0, 40] at 12 bits, eps 6, constant time",
                                lambda: M.make_numeric_multidim(0, 40, 6, 8, base="piecewise", report_dims=2,
                                                                constant_time=True)),
    "numeric_multidim_piecewise": ("multi-dim d=8 k=2, Piecewise base, [0, 40] at 12 bits, eps 6, lazy",
                             lambda: M.make_numeric_multidim(0, 40, 6, 8, base="piecewise", report_dims=2)),
    "numeric_multidim_hybrid_ct": ("multi-dim d=8 k=2, Hybrid base, [0, 40] at 12 bits, eps 6, constant time",
                             lambda: M.make_numeric_multidim(0, 40, 6, 8, base="hybrid", report_dims=2,
                                                             constant_time=True)),
    "numeric_multidim_hybrid": ("multi-dim d=8 k=2, Hybrid base, [0, 40] at 12 bits, eps 6, lazy",
                          lambda: M.make_numeric_multidim(0, 40, 6, 8, base="hybrid", report_dims=2)),
    # issue 34, strings: Apple's sizes (CMS m = 1024 bits a report; HCMS k = 65536 hash indices), strings of <= 32 bytes
    "count_mean_sketch_ct": ("CMS m=1024 k=64 eps=4, strings <= 32 B, constant time",
                             lambda: M.make_count_mean_sketch(1024, 64, 4, constant_time=True)),
    "count_mean_sketch": ("CMS m=1024 k=64 eps=4, strings <= 32 B, lazy", lambda: M.make_count_mean_sketch(1024, 64, 4)),
    "hadamard_count_mean_sketch_ct": ("HCMS m=1024 k=65536 eps=4, strings <= 32 B, constant time",
                                      lambda: M.make_count_mean_sketch(1024, 65536, 4, hadamard=True,
                                                                       constant_time=True)),
    "hadamard_count_mean_sketch": ("HCMS m=1024 k=65536 eps=4, strings <= 32 B, lazy",
                                   lambda: M.make_count_mean_sketch(1024, 65536, 4, hadamard=True)),
    "prefix_extending_ct": ("PEM strings <= 32 B, byte prefixes (start 1, step 1), OLH eps=4, constant time",
                            lambda: M.make_prefix_extending(32, 4, start=1, step=1, constant_time=True)),
    "prefix_extending": ("PEM strings <= 32 B, byte prefixes (start 1, step 1), OLH eps=4, lazy",
                         lambda: M.make_prefix_extending(32, 4, start=1, step=1)),
    # SFP: the fragment and the word each through a sketch at eps 4 (eps 8 in all).  CMS at m = 256:
    # two rows of m = 1024 (a 2,053-byte report) do not fit the ATmega328P's 2 KB of RAM
    "sequence_fragment_puzzle_ct": ("SFP CMS m=256 k=64 (both sketches) eps=8, strings <= 32 B, constant time",
                                    lambda: M.make_sequence_fragment_puzzle(8, 32, 256, 64, constant_time=True)),
    "sequence_fragment_puzzle": ("SFP CMS m=256 k=64 (both sketches) eps=8, strings <= 32 B, lazy",
                                 lambda: M.make_sequence_fragment_puzzle(8, 32, 256, 64)),
    "hadamard_sequence_fragment_puzzle_ct": ("SFP HCMS m=1024 k=65536, fragments m=65536, eps=8, strings <= 32 B, "
                                             "constant time",
                                             lambda: M.make_sequence_fragment_puzzle(8, 32, 1024, 65536,
                                                                                     fragment_width=65536,
                                                                                     hadamard=True,
                                                                                     constant_time=True)),
    "hadamard_sequence_fragment_puzzle": ("SFP HCMS m=1024 k=65536, fragments m=65536, eps=8, strings <= 32 B, lazy",
                                          lambda: M.make_sequence_fragment_puzzle(8, 32, 1024, 65536,
                                                                                  fragment_width=65536,
                                                                                  hadamard=True)),
    "hierarchical_histogram_ct": ("hierarchical histogram, 12-bit grid, branching 4 (6 levels), OLH at every level, "
                                  "eps=2, constant time",
                                  lambda: M.make_hierarchical_histogram(0, 80, 2, bits=12, constant_time=True)),
    "hierarchical_histogram": ("hierarchical histogram, 12-bit grid, branching 4 (6 levels), k-ary RR at 2 levels "
                               "then OLH, eps=2, lazy", lambda: M.make_hierarchical_histogram(0, 80, 2, bits=12)),
    "haar_hrr_ct": ("HaarHRR, 12-bit grid (12 levels), eps=1, constant time",
                    lambda: M.make_haar_hrr(0, 80, 1, bits=12, constant_time=True)),
    "haar_hrr": ("HaarHRR, 12-bit grid (12 levels), eps=1, lazy", lambda: M.make_haar_hrr(0, 80, 1, bits=12)),
    "treehist_ct": ("TreeHist strings <= 32 B, byte prefixes (start 1, step 1), OLH eps=4, HCMS m=1024 k=1024 eps=4, "
                    "constant time", lambda: M.make_treehist(32, 8, constant_time=True)),
    "treehist": ("TreeHist strings <= 32 B, byte prefixes (start 1, step 1), OLH eps=4, HCMS m=1024 k=1024 eps=4, lazy",
                 lambda: M.make_treehist(32, 8)),
}

FP_MAIN = r"""/* footprint program (benchmarks/footprint.py) */
#include "fxdp_config.h"
#include "fxdp_port.h"

static int fp_fill(void *ctx, uint8_t *out, size_t n)
{
    size_t i;
    (void)ctx;
    for (i = 0; i < n; i++) {
        out[i] = (uint8_t)(i * 151u + 7u);
    }
    return 0;
}

#if FP_MODE >= 1
static fxdp_rng fp_rng;
#endif
#if FP_MODE >= 2
static fxdp_input_t fp_x[FXDP_INPUT_COUNT];
static fxdp_output_t fp_y[FXDP_OUTPUT_COUNT];
#endif

#if FP_MODE == 3
/* measured stack: paint the free RAM below main's frame, release, find the deepest byte touched */
extern char __bss_end[];
static uintptr_t fp_lo, fp_hi;

static void fp_paint(void)
{
    uintptr_t a;
    for (a = fp_lo; a < fp_hi; a++) {
        *(volatile unsigned char *)a = 0xA5u;
    }
}

static uint32_t fp_used(uintptr_t top)
{
    uintptr_t a = fp_lo;
    while (a < fp_hi && *(volatile unsigned char *)a == 0xA5u) {
        a++;
    }
    return (uint32_t)(top - a);
}

static uint32_t h_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= UINT32_C(0x7FEB352D);
    x ^= x >> 15;
    x *= UINT32_C(0x846CA68B);
    x ^= x >> 16;
    return x;
}

static uint32_t h_rand(uint32_t dev, uint32_t j, uint32_t salt)
{
    return h_mix(h_mix(dev ^ salt) + j * UINT32_C(0x9E3779B9));
}

@@input_code@@
#endif

int main(void)
{
#if FP_MODE == 0
    (void)fp_fill;
    return 0;
#elif FP_MODE == 1 || FP_MODE == 2
    uint32_t w = 0;
    if (fxdp_rng_init_drbg(&fp_rng, fp_fill, NULL) != FXDP_OK || fxdp_bits(&fp_rng, 32u, &w) != FXDP_OK) {
        return 1;
    }
#if FP_MODE == 2
    if (fxdp_release(&fp_rng, @@x_arg@@, fp_y) != FXDP_OK) {
        return 2;
    }
    w ^= (uint32_t)fp_y[0];
#endif
    return (int)(w & 1u);
#else
    static const uint32_t key[8] = { 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u };
    static const uint32_t nonce[3] = { 9u, 10u, 11u };
    static uint32_t blk[16];
    static char line[12];
    uint32_t i, used, j;
    fxdp_status st;
    volatile unsigned char probe = 0;
    uintptr_t top = (uintptr_t)&probe;
    port_init();
    fp_hi = top - 64u;                              /* leave room for fp_paint's own frame */
    fp_lo = (uintptr_t)__bss_end + 16u;
    if (fp_hi - fp_lo > 4096u) {
        fp_lo = fp_hi - 4096u;
    }
    port_mark();
    fxdp_chacha20_block(key, 0u, nonce, blk);
    port_mark();
    port_puts(blk[0] == 0u ? "Z\n" : "B\n");
    for (i = 0; i < FP_RELEASES; i++) {
        h_input(i, UINT32_C(0xFEED), fp_x);
        fxdp_rng_init_seed(&fp_rng, key, i, 0u, 0u);
        fp_paint();
        port_mark();
        st = fxdp_release(&fp_rng, @@x_arg@@, fp_y);
        port_mark();
        used = fp_used(top);
        for (j = 0; j < 8u; j++) {
            line[j] = "0123456789abcdef"[(used >> (28u - 4u * j)) & 15u];
        }
        line[8] = '\n';
        line[9] = '\0';
        port_puts(line);
        /* ChaCha20 blocks this release generated for its own rng (a fresh stream starts at 0), in hex */
        for (j = 0; j < 8u; j++) {
            line[j] = "0123456789abcdef"[((uint32_t)fp_rng.counter >> (28u - 4u * j)) & 15u];
        }
        port_puts(st != FXDP_OK ? "skip\n" : line);
    }
    (void)fp_fill;
    return 0;
#endif
}
"""


def _render_main(m, spec, releases):
    from fxdp.export.templates import render
    code = H.input_model(m, spec).c_code()
    x_arg = "fp_x[0]" if (spec.input["count"] == 1 and not spec.in_param.pointer) else "fp_x"
    return render(FP_MAIN, input_code=code, x_arg=x_arg).replace("FP_RELEASES", f"{releases}u")


# --------------------------------------------------------------------------- stack

def _su_frames(target, files, incs, out_dir):
    """{function: bytes} from -fstack-usage, compiled exactly like fxdp.targets.build compiles."""
    t = T.get_target(target)
    out_dir.mkdir(parents=True, exist_ok=True)
    argv = [t.tool("gcc"), *T.STRICT_CFLAGS, *t.cflags, *T.COMMON_CFLAGS, "-Os", "-fstack-usage",
            *[f"-I{d}" for d in incs], "-c", *map(str, files)]
    subprocess.run(argv, cwd=out_dir, check=True, capture_output=True)
    frames = {}
    for su in out_dir.glob("*.su"):
        for line in su.read_text().splitlines():
            parts = line.split("\t")
            if len(parts) >= 3:
                fn = parts[0].rsplit(":", 1)[-1]
                frames[fn] = max(frames.get(fn, 0), int(parts[1]))
    return frames


_CALL = {
    "arm": re.compile(r"\s(bl|blx|b|b\.n|b\.w|b[a-z]{2}(\.[nw])?)\s+[0-9a-f]+\s+<([\w.]+)>"),
    "avr": re.compile(r"\s(call|rcall|jmp|rjmp)\s+[^;]*;\s*0x[0-9a-f]+\s+<([\w.]+)>"),
    "riscv": re.compile(r"\s(jal|j|c\.j|c\.jal|b\w+)\s+(?:\w+,\s*)*[0-9a-f]+\s+<([\w.]+)>"),
}
_INDIRECT = {"arm": re.compile(r"\sblx\s+r\d"), "avr": re.compile(r"\s(icall|eicall)\b"),
             "riscv": re.compile(r"\s(jalr|c\.jalr)\s")}


def _arch(t):
    return "avr" if t.kind == "simavr" else ("arm" if t.prefix.startswith("arm") else "riscv")


def _disassemble(t, elf):
    """{function: [instruction lines]} of an ELF."""
    out = subprocess.run([t.tool("objdump"), "-d", "--no-show-raw-insn", str(elf)], capture_output=True,
                         text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([\w.]+)>:$", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur and line.strip():
            funcs[cur].append(line)
    return funcs


def _prologue_frame(arch, lines):
    """Stack bytes a function without .su allocates, from its first instructions."""
    total = 0
    for ln in lines[:24]:
        if arch == "arm":
            m = re.search(r"\s(push|stmdb)\s+(sp!,\s*)?\{([^}]*)\}", ln)
            if m:
                regs = 0
                for part in m.group(3).split(","):
                    part = part.strip()
                    if "-" in part:
                        a, b = part.split("-")
                        regs += int(b.strip()[1:]) - int(a.strip()[1:]) + 1
                    elif part:
                        regs += 1
                total += 4 * regs
            m = re.search(r"\ssub(\.w)?\s+sp,\s*(sp,\s*)?#(\d+)", ln)
            if m:
                total += int(m.group(3))
        elif arch == "riscv":
            m = re.search(r"\s(c\.)?addi(16sp)?\s+sp,\s*(sp,\s*)?-(\d+)", ln)
            if m:
                total += int(m.group(4))
        else:
            if re.search(r"\spush\s+r\d+", ln):
                total += 1
            m = re.search(r"\ssbiw\s+r28,\s*0x([0-9a-f]+)", ln)
            if m:
                total += int(m.group(1), 16)
    return total


def worst_stack(target, elf, frames, root="fxdp_release", exclude=()):
    """(bytes, path) of the deepest call chain from root; bytes None if recursive.
    Functions in `exclude` (and what they call) are left out."""
    t = T.get_target(target)
    arch = _arch(t)
    funcs = _disassemble(t, elf)
    edges, indirect = {}, set()
    for f, lines in funcs.items():
        callees = set()
        for ln in lines:
            m = _CALL[arch].search(ln)
            if m:
                callee = m.group(m.lastindex)
                if callee != f and callee in funcs:
                    callees.add(callee)
            if _INDIRECT[arch].search(ln):
                indirect.add(f)
        edges[f] = sorted(callees - set(exclude))
    ret = 2 if arch == "avr" else 0

    def frame(f):
        return frames[f] if f in frames else _prologue_frame(arch, funcs.get(f, []))

    memo = {}

    def depth(f, stack):
        if f in stack:
            raise RecursionError(f)
        if f in memo:
            return memo[f]
        best, path = 0, []
        for c in edges.get(f, []):
            d, p = depth(c, stack | {f})
            if d + ret > best:
                best, path = d + ret, p
        memo[f] = (frame(f) + best, [f] + path)
        return memo[f]

    try:
        total, path = depth(root, frozenset())
    except RecursionError:
        return None, [], []
    # indirect calls reachable from root (the rng's board hook, called by fxdp_i_refill's out-of-line
    # refill_hook, is not on the path in DRBG mode: the hook runs only when the DRBG is seeded)
    seen, todo = set(), [root]
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo += edges.get(f, [])
    unresolved = sorted((seen & indirect) - {"fxdp_i_refill", "refill_hook"})
    return total, path, unresolved


# --------------------------------------------------------------------------- one (target, mechanism)

def measure(target, name, m, work: Path, releases=64):
    t = T.get_target(target)
    spec = device_spec(m)
    fw = work / "fw"
    generate(m, target, fw, force=True)
    lib = library_sources(fw)
    main = work / "fp_main.c"
    main.write_text(_render_main(m, spec, releases))
    sizes = {}
    elfs = {}
    for mode in (0, 1, 2, 3):
        elfs[mode] = T.build(target, [main, *lib], [fw / "src"], defines={"FP_MODE": mode},
                             out_dir=work / f"mode{mode}", name=f"fp{mode}")
        s = T.size(target, elfs[mode])
        sizes[mode] = (s["text"] + s["data"], s["data"] + s["bss"])
    flash_mech = sizes[2][0] - sizes[1][0]
    ram_mech = sizes[2][1] - sizes[1][1]
    flash_drbg = sizes[1][0] - sizes[0][0]
    ram_drbg = sizes[1][1] - sizes[0][1]
    frames = _su_frames(target, [*lib], [fw / "src"], work / "su")
    stack, path, unresolved = worst_stack(target, elfs[2], frames)
    stack_mech, _, _ = worst_stack(target, elfs[2], frames, exclude=BLOCK_FUNCTIONS)
    r = T.run(target, elfs[3], count=True, timeout=600)
    counts = r.region_counts or []
    chacha = counts[0] if counts else None
    # the release minus the ChaCha20 blocks it generated for its rng = the mechanism alone
    body = r.lines[1:]
    used = [int(x, 16) for x in body[0::2]]
    blocks = body[1::2]
    rel = [c - int(b, 16) * chacha for c, b in zip(counts[2::2], blocks) if b != "skip"]
    return {"target": target, "mechanism": name, "constant_time": bool(m.constant_time),
            "flash": flash_mech, "ram": ram_mech, "flash_drbg": flash_drbg, "ram_drbg": ram_drbg,
            "stack": stack, "stack_path": path, "stack_no_block": stack_mech,
            "stack_indirect": unresolved, "stack_measured": max(used) if used else None, "release_counts": rel, "chacha_block": chacha,
            "count_unit": t.count_unit, "releases_measured": len(rel), "releases_tried": releases}


def _counts_text(row):
    c = row["release_counts"]
    if not c:
        return "n/a"
    if len(set(c)) == 1:
        return f"{c[0]:,}"
    return f"{min(c):,}-{statistics.mean(c):,.0f}-{max(c):,}"


def table(rows):
    out = ["| target | mechanism | flash (B) | RAM (B) | stack (B): static (w/o block) / measured | per release "
           "| DRBG flash / RAM (B) "
           "| ChaCha20 block |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    fmt = lambda v: "rec" if v is None else str(v)  # noqa: E731
    for r in rows:
        unit = "cyc" if r["count_unit"] == "cycles" else "instr"
        star = "*" if r["stack_indirect"] else ""
        stack = f"{fmt(r['stack'])}{star} ({fmt(r['stack_no_block'])}{star}) / {fmt(r['stack_measured'])}"
        out.append(f"| {r['target']} | {r['mechanism']} | {r['flash']:,} | {r['ram']:,} | {stack} | "
                   f"{_counts_text(r)} {unit} | {r['flash_drbg']:,} / {r['ram_drbg']:,} | "
                   f"{r['chacha_block']:,} {unit} |")
    return "\n".join(out)


def goals(rows):
    lines = []

    def pick(target, prefix):
        return [r for r in rows if r["target"] == target and r["mechanism"].startswith(prefix)]

    for r in pick("cortex-m0plus", "rr_bool_ct"):
        lines.append(f"* binary RR, constant time, Cortex-M0+: {r['flash']} B flash without the DRBG "
                     f"(goal <= 512): {'MET' if r['flash'] <= 512 else 'MISSED'}")
    for r in [r for r in rows if r["mechanism"].startswith("geometric_ct")]:
        lines.append(f"* bounded discrete Laplace (geometric_ct, scale 10) on {r['target']}: {r['flash']} B "
                     f"flash incl. table (goal <= 2048): {'MET' if r['flash'] <= 2048 else 'MISSED'}")
    for r in [r for r in pick("cortex-m0plus", "count_mean_sketch") + pick("cortex-m0plus", "hadamard_count_mean")]:
        lines.append(f"* {r['mechanism']} (issue 34), Cortex-M0+: {r['flash']} B flash without the DRBG "
                     f"(goal <= 2048): {'MET' if r['flash'] <= 2048 else 'MISSED'}")
    worst = max((r for r in rows if r["stack"] is not None), key=lambda r: r["stack"], default=None)
    worst_nb = max((r for r in rows if r["stack_no_block"] is not None), key=lambda r: r["stack_no_block"],
                   default=None)
    rec = [r for r in rows if r["stack"] is None]
    if worst:
        lines.append(f"* stack, full release path incl. a ChaCha20 refill: worst {worst['stack']} B "
                     f"({worst['mechanism']} on {worst['target']}: {' > '.join(worst['stack_path'])}) "
                     f"(goal <= 256): {'MET' if worst['stack'] <= 256 and not rec else 'MISSED'}")
        over = [r for r in rows if r["stack"] is not None and r["stack"] > 256]
        if over:
            lines.append(f"  {len(over)} of {len(rows)} rows over 256 B: "
                         + ", ".join(f"{r['mechanism']} on {r['target']}" for r in over))
    if rows:
        lines.append("* stack <= 256 B per mechanism and target (full release path incl. a ChaCha20 refill):")
        for mech in dict.fromkeys(r["mechanism"] for r in rows):
            cells = []
            for r in (r for r in rows if r["mechanism"] == mech):
                ok = r["stack"] is not None and r["stack"] <= 256 and not r["stack_indirect"]
                cells.append(f"{r['target']} {'rec' if r['stack'] is None else r['stack']} "
                             f"{'MET' if ok else 'MISSED'}")
            lines.append(f"  {mech}: " + ", ".join(cells))
    if worst_nb:
        lines.append(f"* stack without the ChaCha20 block function's frame: worst {worst_nb['stack_no_block']} B "
                     f"({worst_nb['mechanism']} on {worst_nb['target']}): "
                     f"{'MET' if worst_nb['stack_no_block'] <= 256 else 'MISSED'}")
        ok = sorted({r["mechanism"] for r in rows} - {r["mechanism"] for r in rows
                                                      if (r["stack_no_block"] or 10**9) > 256})
        lines.append("  mechanisms within 256 B on every target without the block frame: " + (", ".join(ok) or "none"))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default=",".join(MCU_TARGETS))
    ap.add_argument("--mechanisms", default=None,
                    help="comma-separated names (default: all): " + ", ".join(MECHANISMS))
    ap.add_argument("--releases", type=int, default=64)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    names = list(MECHANISMS) if not args.mechanisms else args.mechanisms.split(",")
    rows = []
    with tempfile.TemporaryDirectory(prefix="fxdp-footprint-") as tmp:
        for target in args.targets.split(","):
            ok, why = T.get_target(target).available()
            if not ok:
                raise SystemExit(why)
            for i, name in enumerate(names):
                rows.append(measure(target, name, MECHANISMS[name][1](), Path(tmp) / target / str(i),
                                    args.releases))
                if not args.json:
                    print(f"  measured {target} {name}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(table(rows))
        print()
        for n in names:
            print(f"* {n}: {MECHANISMS[n][0]}")
        print()
        print(goals(rows))


if __name__ == "__main__":
    main()
