/*
 * ct_harness.c -- instruction counts of single sampler calls under callgrind
 * (tests/test_constant_time.py).  Run as
 *
 *   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=F ct_harness < combos
 *
 * Each stdin line is one combination of secret input and stream:
 *   D a k pre seed            fxdp_bernoulli_dyadic_ct(a, k)
 *   L a k pre seed            fxdp_bernoulli_dyadic(a, k)      (lazy: NOT constant time)
 *   T k pre seed n t0 .. tn-1 fxdp_table_sample_ct(t, n, k)
 *   U n k pre seed            fxdp_uniform_below_ct_u32(n)     (k unused)
 *   V n k pre seed            fxdp_uniform_below_u32(n)        (rejection: NOT constant time)
 * The rng is the keyed stream of (seed, 0, 0) after `pre` public bits; the
 * sampler is then called twice, each call alone between
 * CALLGRIND_TOGGLE_COLLECT client requests and followed by a stats dump, so
 * dump 2i+1 and 2i+2 (F.1, F.2, ...) hold the counts of line i's two calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <valgrind/callgrind.h>

#include "fxdp.h"

#define MAX_T 4096

static uint32_t table[MAX_T];
volatile uint32_t sink;

int main(void)
{
    char kind;
    unsigned long long a, seed;
    unsigned k, pre, call;
    unsigned long n, i;

    while (scanf(" %c", &kind) == 1) {
        fxdp_rng r;
        uint32_t key[8], nonce[3] = {0u, 0u, 0u}, tmp;
        uint8_t b = 0;
        uint32_t idx = 0;
        fxdp_status st = FXDP_OK;

        a = 0;
        n = 0;
        if (kind == 'T') {
            if (scanf("%u %u %llx %lu", &k, &pre, &seed, &n) != 4 || n > MAX_T) return 2;
            for (i = 0; i < n; i++) {
                unsigned long long t;
                if (scanf("%llx", &t) != 1) return 2;
                table[i] = (uint32_t)t;
            }
        } else if (scanf("%llx %u %u %llx", &a, &k, &pre, &seed) != 4) {
            return 2;
        }
        for (i = 0; i < 8; i++) {
            key[i] = (uint32_t)(seed >> (32 * (i & 1u))) ^ (uint32_t)(i * 0x9E3779B9u);
        }
        fxdp_rng_init_keyed(&r, key, nonce);
        while (pre > 0u) {
            unsigned m = pre > 32u ? 32u : pre;
            if (fxdp_bits(&r, m, &tmp) != FXDP_OK) return 3;
            pre -= m;
        }
        for (call = 0; call < 2u; call++) {
            CALLGRIND_TOGGLE_COLLECT;
            if (kind == 'D') {
                st = fxdp_bernoulli_dyadic_ct(&r, (uint64_t)a, k, &b);
            } else if (kind == 'L') {
                st = fxdp_bernoulli_dyadic(&r, (uint64_t)a, k, &b);
            } else if (kind == 'U') {
                st = fxdp_uniform_below_ct_u32(&r, (uint32_t)a, &idx);
            } else if (kind == 'V') {
                st = fxdp_uniform_below_u32(&r, (uint32_t)a, &idx);
            } else if (kind == 'B' || kind == 'C') {   /* a: the lanes' mask (secret); thresholds from k */
                uint64_t a_one = k == 0u ? 1u : ((UINT64_C(1) << k) >> 1) | 1u, a_zero = k == 0u ? 0u : 1u;
                st = (kind == 'B' ? fxdp_bernoulli_block_ct : fxdp_bernoulli_block)(&r, 32u, a_one, a_zero, k,
                                                                                   (uint32_t)a, &idx);
            } else {
                st = fxdp_table_sample_ct(&r, table, (uint32_t)n, k, &idx);
            }
            CALLGRIND_TOGGLE_COLLECT;
            CALLGRIND_DUMP_STATS_AT("call");
            if (st != FXDP_OK) return 4;
            sink = b + idx;
        }
    }
    return 0;
}
