"""Bit-sliced Bernoulli blocks against one draw per item on the microcontrollers (issue 33, item 1).

    python3 benchmarks/bench_block_mcu.py [--targets cortex-m0plus,avr-atmega328p] [--k 32] [--eps 1]
                                          [--stream-version 1|2]

An OUE-shaped vector of 1,024 items (one hot item at probability 1/2, the others at
q = 1/(e^eps + 1) rounded down to k bits), drawn four ways on a fresh keyed stream, each between two
``port_mark()`` calls (QEMU: executed instructions; AVR: exact cycles): item by item with
``fxdp_i_bernoulli_dyadic`` (lazy) and ``fxdp_i_bernoulli_dyadic_ct``, as fxdp_mech_unary_encoding.c
did before its runs, and in 32 blocks of 32 lanes with ``fxdp_i_bernoulli_block`` (lazy, constant time),
and the mechanism itself, ``fxdp_unary_encoding`` (lazy: the a_q items as two runs,
``fxdp_i_bernoulli_dyadic_run``, the one-item bits) and ``fxdp_unary_encoding_ct``.  Printed per
form: the count, the ChaCha20 blocks the stream generated, and the count without them (blocks x the
cost of one block, measured in the same program), and the block forms' ratios to their one-item twins.
Built at -Os with the target's flags (``fxdp.targets.build``), on the sources an OUE export ships.
"""
from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import fxdp.mechanisms as M
from fxdp import targets as T
from fxdp.export import generate
from fxdp.export.firmware import library_sources

MAIN = r"""
#include "fxdp_internal.h"
#include "fxdp_port.h"

#define N_ITEMS 1024u
#define HOT 37u
static fxdp_rng r;
static uint8_t items[N_ITEMS];
static uint32_t words[N_ITEMS / 32u];
static char line[12];

static void put_hex(uint32_t v)
{
    unsigned j;
    for (j = 0; j < 8u; j++) {
        line[j] = "0123456789abcdef"[(v >> (28u - 4u * j)) & 15u];
    }
    line[8] = '\n';
    line[9] = '\0';
    port_puts(line);
}

int main(void)
{
    static const uint32_t key[8] = { 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u };
    static const uint32_t nonce[3] = { 9u, 10u, 11u };
    static uint32_t blk[16];
    uint32_t i, acc = 0;
    unsigned form;
    fxdp_status st = FXDP_OK;

    port_init();
    port_mark();
    fxdp_chacha20_block(key, 0u, nonce, blk);
    port_mark();
    for (form = 0; form < 6u; form++) {
        (void)fxdp_rng_init_stream(&r, STREAM_VERSION, key, 1u, 0u, 0u);   /* 2: 8 words a block served */
        port_mark();
        if (form < 2u) {
            for (i = 0; i < N_ITEMS && st == FXDP_OK; i++) {
                uint64_t a = i == HOT ? A_ONE : A_ZERO;
                st = form == 0u ? fxdp_i_bernoulli_dyadic(&r, a, K, &items[i])
                                : fxdp_i_bernoulli_dyadic_ct(&r, a, K, &items[i]);
            }
        } else if (form >= 4u) {
            static const fxdp_unary_encoding_cfg cfg = { .a_p = A_ONE, .a_q = A_ZERO, .d = N_ITEMS, .bits = K };
            static const uint32_t hot = HOT;
            st = form == 4u ? fxdp_unary_encoding(&r, &cfg, &hot, items) : fxdp_unary_encoding_ct(&r, &cfg, &hot, items);
        } else {
            for (i = 0; i < N_ITEMS / 32u && st == FXDP_OK; i++) {
                uint32_t mask = i == HOT / 32u ? UINT32_C(1) << (31u - HOT % 32u) : 0u;
                st = fxdp_i_bernoulli_block(&r, 32u, A_ONE, A_ZERO, K, mask, &words[i], form == 3u);
            }
        }
        port_mark();
        put_hex((uint32_t)r.counter);
        for (i = 0; i < N_ITEMS; i++) {
            acc += items[i];
        }
        for (i = 0; i < N_ITEMS / 32u; i++) {
            acc += words[i];
        }
    }
    put_hex(st == FXDP_OK ? acc : 0xFFFFFFFFu);
    return 0;
}
"""

FORMS = ["one item, lazy", "one item, ct", "32-lane block, lazy", "32-lane block, ct",
         "fxdp_unary_encoding", "fxdp_unary_encoding_ct"]


def measure(target, k, eps, work: Path, stream_version=1):
    m = M.make_unary_encoding(1024, eps, constant_time=True)
    fw = work / "fw"
    generate(m, target, fw, force=True)
    main = work / "bench_main.c"
    a_zero, a_one = int(2**k / (math.exp(eps) + 1)), 1 << (k - 1)
    main.write_text(MAIN)
    elf = T.build(target, [main, *library_sources(fw)], [fw / "src"],
                  defines={"STREAM_VERSION": f"{stream_version}u", "K": f"{k}u", "A_ONE": f"UINT64_C({a_one})", "A_ZERO": f"UINT64_C({a_zero})"},
                  out_dir=work / "build", name="bench_block")
    res = T.run(target, elf, count=True, timeout=900)
    counts = res.region_counts
    block_cost = counts[0]
    blocks = [int(x, 16) for x in res.lines[:len(FORMS)]]
    rows = []
    for f in range(len(FORMS)):
        c = counts[2 + 2 * f]          # regions: block, gap, form 0, gap, form 1, ...
        rows.append((FORMS[f], c, blocks[f], c - blocks[f] * block_cost))
    return block_cost, rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default="cortex-m0plus,avr-atmega328p")
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--stream-version", type=int, choices=(1, 2), default=2,
                    help="the keystream's version: 2 (the default, the on-device DRBG's) serves 8 words a block")
    args = ap.parse_args(argv)
    print(f"1,024 OUE-shaped items, k = {args.k}, eps = {args.eps:g}, stream version {args.stream_version}\n")
    print("| target | form | count | ChaCha20 blocks | count without the blocks | block / one item (all; without blocks) |")
    print("|---|---|---:|---:|---:|---:|")
    for target in args.targets.split(","):
        unit = T.get_target(target).count_unit
        with tempfile.TemporaryDirectory() as tmp:
            block_cost, rows = measure(target, args.k, args.eps, Path(tmp), args.stream_version)
        for i, (name, c, b, body) in enumerate(rows):
            ratio = ""
            if i >= 2:
                _, c1, _, body1 = rows[(i - 2) % 2]
                ratio = f"**{c / c1:.2f}**; {body / body1:.2f}"
            print(f"| {target} | {name} | {c:,} {unit} | {b} | {body:,} | {ratio} |")
        print(f"| {target} | (one ChaCha20 block) | {block_cost:,} {unit} | | | |")


if __name__ == "__main__":
    main()
