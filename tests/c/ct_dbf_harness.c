/*
 * ct_dbf_harness.c -- instruction counts of single dBitFlip reports under callgrind
 * (tests/test_dbitflip.py), in the manner of ct_mech_harness.c:
 *
 *   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=F ct_dbf_harness < lines
 *
 * Each stdin line (hex): ct a_p d buckets sampled bits secret_0 .. secret_7 x; the report of x by
 * the stored device (fxdp_dbitflip_report[_ct]) is called twice, each call alone between
 * CALLGRIND_TOGGLE_COLLECT client requests and followed by a stats dump, so dumps 2i+1 and 2i+2
 * hold line i's two calls.
 */
#include <stdint.h>
#include <stdio.h>

#include <valgrind/callgrind.h>

#include "fxdp.h"

volatile uint32_t sink;

int main(void)
{
    int ct;
    unsigned long long a_p, d, buckets, sampled, bits, w, x;

    while (scanf("%d %llx %llx %llx %llx %llx", &ct, &a_p, &d, &buckets, &sampled, &bits) == 6) {
        fxdp_dbitflip_cfg cfg;
        fxdp_longitudinal_device dev;
        uint32_t xk, out[2u * FXDP_DBITFLIP_MAX_S], call, i;
        fxdp_status st;

        for (i = 0; i < 8u; i++) {
            if (scanf("%llx", &w) != 1) {
                return 2;
            }
            dev.secret[i] = (uint32_t)w;
        }
        if (scanf("%llx", &x) != 1) {
            return 2;
        }
        cfg.a_p = (uint64_t)a_p;
        cfg.d = (uint32_t)d;
        cfg.buckets = (uint32_t)buckets;
        cfg.sampled = (uint8_t)sampled;
        cfg.bits = (uint8_t)bits;
        cfg.uniform_version = (uint8_t)(ct == 2 ? 2 : 1);   /* ct: 0 lazy, 1 _ct by rejection, 2 _ct budget */
        xk = (uint32_t)x;
        for (call = 0; call < 2u; call++) {
            CALLGRIND_TOGGLE_COLLECT;
            st = ct ? fxdp_dbitflip_report_ct(&cfg, &dev, &xk, out) : fxdp_dbitflip_report(&cfg, &dev, &xk, out);
            CALLGRIND_TOGGLE_COLLECT;
            CALLGRIND_DUMP_STATS_AT("call");
            if (st != FXDP_OK) {
                return 4;
            }
            sink += out[0] + out[2u * cfg.sampled - 1u];
        }
    }
    return 0;
}
