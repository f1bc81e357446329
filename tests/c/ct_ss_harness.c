/*
 * ct_ss_harness.c -- instruction counts of single subset-selection releases under
 * callgrind (tests/test_subset_selection_ct.py):
 *
 *   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=F ct_ss_harness < lines
 *
 * Each stdin line (hex): ct a_p bits d k seed x; ct 0 lazy, 1 the constant-time form with
 * uniform_version 1 (rejection draws), 2 with uniform_version 2 (the fixed budget, issue 32).
 * The rng is the keyed stream of
 * (key(seed), nonce 0); the release is called once, alone between
 * CALLGRIND_TOGGLE_COLLECT client requests and followed by a stats dump (dump i+1
 * holds line i).  The report's first item goes to a volatile sink.
 */
#include <stdint.h>
#include <stdio.h>

#include <valgrind/callgrind.h>

#include "fxdp.h"

static uint16_t out[FXDP_SUBSET_SELECTION_MAX_D];
volatile uint32_t sink;

int main(void)
{
    int ct;
    unsigned long long a_p, bits, d, k, seed, x;

    while (scanf(" %d %llx %llx %llx %llx %llx %llx", &ct, &a_p, &bits, &d, &k, &seed, &x) == 7) {
        fxdp_rng r;
        uint32_t key[8], nonce[3] = {0u, 0u, 0u}, xi = (uint32_t)x, i;
        fxdp_subset_selection_cfg cfg;
        fxdp_status st;

        cfg.a_p = (uint64_t)a_p;
        cfg.bits = (uint8_t)bits;
        cfg.d = (uint32_t)d;
        cfg.k = (uint32_t)k;
        cfg.uniform_version = (uint8_t)(ct == 2 ? 2 : 1);
        for (i = 0; i < 8u; i++) {
            key[i] = (uint32_t)(seed >> (32u * (i & 1u))) ^ (uint32_t)(i * 0x9E3779B9u);
        }
        fxdp_rng_init_keyed(&r, key, nonce);
        CALLGRIND_TOGGLE_COLLECT;
        st = ct ? fxdp_subset_selection_ct(&r, &cfg, &xi, out) : fxdp_subset_selection(&r, &cfg, &xi, out);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("call");
        if (st != FXDP_OK) {
            return 4;
        }
        sink += out[0];
    }
    return 0;
}
