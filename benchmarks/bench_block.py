"""Bit-sliced Bernoulli blocks against one draw per item (issue 33, item 1), on the host.

    python3 benchmarks/bench_block.py [--items 4000000] [--eps 1 2] [--k 32]

An OUE-shaped vector: items in blocks of 32 lanes, one hot lane (probability 1/2) in every 32nd block,
the others at q = 1/(e^eps + 1) rounded down to k bits.  Rows, one Numba thread, one stream each:
``fill_bernoulli_dyadic`` (lazy) and ``fill_bernoulli_dyadic_ct`` draw item by item; ``fill_bernoulli_block``
(lazy and ct) draws 32 items per call.  Printed: lane outcomes per second, bits read per item, and the
ratio of each block form to its one-item twin measured in the same run.  Keystream included (ChaCha20,
stream version 2).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from fxdp.samplers import _kernels as K
from fxdp.samplers import _nb_block as NB


def _best(fn, reps=3):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=4_000_000)
    ap.add_argument("--eps", type=float, nargs="+", default=[1.0, 2.0])
    ap.add_argument("--k", type=int, default=32)
    args = ap.parse_args(argv)
    n_blocks = args.items // 32
    items = n_blocks * 32
    print("| eps | form | one item per draw: items/s, bits/item | 32-lane block: items/s, bits/item | ratio |")
    print("|---:|---|---|---|---:|")
    for eps in args.eps:
        k = args.k
        a0, a1 = int(2**k / (math.exp(eps) + 1)), 1 << (k - 1)
        masks = np.zeros(n_blocks, np.uint64)
        masks[::32] = np.uint64(1) << np.uint64(5)
        for ct in (False, True):
            scalar = K.fill_bernoulli_dyadic_ct if ct else K.fill_bernoulli_dyadic
            out1 = np.zeros(items, np.bool_)
            out2 = np.zeros(n_blocks, np.uint32)

            def one():
                st = K.seed_state(K.new_state(), 7, 1, 0)
                scalar(st, np.uint64(a0), np.uint64(k), out1)
                return st

            def block():
                st = K.seed_state(K.new_state(), 7, 1, 0)
                NB.fill_bernoulli_block(st, 32, a1, a0, k, masks, ct, out2)
                return st

            b1 = K.bits_used(one()) / items
            b2 = K.bits_used(block()) / items
            t1, t2 = _best(one), _best(block)
            r1, r2 = items / t1, items / t2
            print(f"| {eps:g} | {'ct' if ct else 'lazy'} | {r1:.3g}, {b1:.2f} | {r2:.3g}, {b2:.2f} | **{r2 / r1:.2f}** |")


if __name__ == "__main__":
    main()
