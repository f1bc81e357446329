/*
 * ct_mech_harness.c -- instruction counts of single mechanism releases under
 * callgrind (tests/test_mech_constant_time.py), in the manner of ct_harness.c:
 *
 *   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=F ct_mech_harness < combos
 *
 * Each stdin line is one combination of configuration, secret input and stream
 * (numbers in hex, int64 values in signed decimal; ct = 1 selects the _ct form):
 *   B ct pre a k seed x                               fxdp_rr_bool[_ct]
 *   K ct pre t w0 k seed x n thr_0 .. thr_{n-1}       fxdp_rr[_ct]
 *   R ct pre a bits k m seed x_0 .. x_{k-1}           fxdp_rappor[_ct]
 *   G ct pre s t lo hi n k width seed x_0 .. x_{n-1} m thr_0 .. thr_{m-1}
 *                                                     fxdp_geometric[_ct]
 *   U ct pre a_p a_q d bits seed x                    fxdp_unary_encoding[_ct]
 *   H ct pre a_p d log2k bits seed x                  fxdp_hadamard_response[_ct]
 *   L ct pre d w0 w v0 v bits seed x                  fxdp_longitudinal_grr[_ct]
 *   O ct pre a_p1 a_q1 a_p2 d bits seed x             fxdp_longitudinal_ue[_ct]
 * The rng is the keyed stream of (key(seed), nonce 0) after `pre` (public)
 * bits were read; the release is called
 * twice, each call alone between CALLGRIND_TOGGLE_COLLECT client requests and
 * followed by a stats dump, so dumps 2i+1 and 2i+2 hold line i's two calls.
 */
#include <stdint.h>
#include <stdio.h>

#include <valgrind/callgrind.h>

#include "fxdp.h"

#define MAX_TBL 70000
#define MAX_X 1024

static uint32_t table[MAX_TBL];
static uint8_t xb[MAX_X], yb[MAX_X];
static int64_t xg[FXDP_GEOMETRIC_MAX_N], yg[FXDP_GEOMETRIC_MAX_N];
volatile uint32_t sink;

static int read_table(unsigned long n)
{
    unsigned long i;
    unsigned long long t;

    if (n > MAX_TBL) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (scanf("%llx", &t) != 1) {
            return 0;
        }
        table[i] = (uint32_t)t;
    }
    return 1;
}

int main(void)
{
    char kind;
    int ct;
    unsigned pre;

    while (scanf(" %c %d %x", &kind, &ct, &pre) == 3) {
        fxdp_rng r;
        uint32_t key[8], nonce[3] = {0u, 0u, 0u}, call, i;
        unsigned long long seed = 0, a = 0, w0 = 0, t = 0, s = 0, k = 0, m = 0, n = 0, width = 0, x = 0;
        long long lo = 0, hi = 0, xv;
        fxdp_rr_bool_cfg cb;
        fxdp_rr_cfg ck;
        fxdp_rappor_cfg cr;
        fxdp_geometric_cfg cg;
        fxdp_unary_encoding_cfg cu;
        fxdp_hadamard_response_cfg ch;
        fxdp_longitudinal_grr_cfg cl;
        fxdp_longitudinal_ue_cfg co;
        unsigned long long w = 0, v0 = 0, v = 0, a3 = 0;
        unsigned long long a2 = 0, d = 0, l2 = 0;
        uint8_t xb1 = 0, yb1 = 0;
        uint32_t xk = 0, yk = 0;
        fxdp_status st = FXDP_OK;

        if (kind == 'B') {
            if (scanf("%llx %llx %llx %llx", &a, &k, &seed, &x) != 4) return 2;
            cb.a = a;
            cb.k = (uint8_t)k;
            xb1 = (uint8_t)x;
        } else if (kind == 'K') {
            if (scanf("%llx %llx %llx %llx %llx %llx", &t, &w0, &k, &seed, &x, &n) != 6) return 2;
            if (!read_table((unsigned long)n)) return 2;
            ck.t = (uint32_t)t;
            ck.w0 = (uint32_t)w0;
            ck.k = (uint8_t)k;
            ck.thresholds = table;
            xk = (uint32_t)x;
        } else if (kind == 'R') {
            if (scanf("%llx %llx %llx %llx %llx", &a, &k, &n, &m, &seed) != 5 || n > MAX_X) return 2;
            cr.a = a;
            cr.bits = (uint8_t)k;
            cr.k = (uint32_t)n;
            cr.m = (uint32_t)m;
            for (i = 0; i < (uint32_t)n; i++) {
                if (scanf("%llx", &x) != 1) return 2;
                xb[i] = (uint8_t)x;
            }
        } else if (kind == 'G') {
            if (scanf("%llx %llx %lld %lld %llx %llx %llx %llx", &s, &t, &lo, &hi, &n, &k, &width, &seed) != 8 ||
                n > FXDP_GEOMETRIC_MAX_N) return 2;
            cg.s = (uint32_t)s;
            cg.t = (uint32_t)t;
            cg.lo = (int64_t)lo;
            cg.hi = (int64_t)hi;
            cg.n = (uint32_t)n;
            cg.k = (uint8_t)k;
            cg.half = 0u;                   /* the full table (m = 2 width entries) */
            cg.width = (uint32_t)width;
            cg.thresholds = table;
            for (i = 0; i < (uint32_t)n; i++) {
                if (scanf("%lld", &xv) != 1) return 2;
                xg[i] = (int64_t)xv;
            }
            if (scanf("%llx", &m) != 1 || !read_table((unsigned long)m)) return 2;
        } else if (kind == 'U') {
            if (scanf("%llx %llx %llx %llx %llx %llx", &a, &a2, &d, &k, &seed, &x) != 6) return 2;
            cu.a_p = a;
            cu.a_q = a2;
            cu.d = (uint32_t)d;
            cu.bits = (uint8_t)k;
            xk = (uint32_t)x;
        } else if (kind == 'H') {
            if (scanf("%llx %llx %llx %llx %llx %llx", &a, &d, &l2, &k, &seed, &x) != 6) return 2;
            ch.a_p = a;
            ch.d = (uint32_t)d;
            ch.log2k = (uint8_t)l2;
            ch.bits = (uint8_t)k;
            xk = (uint32_t)x;
        } else if (kind == 'L') {
            if (scanf("%llx %llx %llx %llx %llx %llx %llx %llx", &d, &w0, &w, &v0, &v, &k, &seed, &x) != 8) return 2;
            cl.d = (uint32_t)d;
            cl.w0 = (uint32_t)w0;
            cl.w = (uint32_t)w;
            cl.v0 = (uint32_t)v0;
            cl.v = (uint32_t)v;
            cl.bits = (uint8_t)k;
            xk = (uint32_t)x;
        } else if (kind == 'O') {
            if (scanf("%llx %llx %llx %llx %llx %llx %llx", &a, &a2, &a3, &d, &k, &seed, &x) != 7) return 2;
            co.a_p1 = a;
            co.a_q1 = a2;
            co.a_p2 = a3;
            co.d = (uint32_t)d;
            co.bits = (uint8_t)k;
            xk = (uint32_t)x;
        } else {
            return 2;
        }
        for (i = 0; i < 8u; i++) {
            key[i] = (uint32_t)(seed >> (32u * (i & 1u))) ^ (uint32_t)(i * 0x9E3779B9u);
        }
        fxdp_rng_init_keyed(&r, key, nonce);
        while (pre > 0u) {
            unsigned c = pre > 32u ? 32u : pre;
            uint32_t w;
            if (fxdp_bits(&r, c, &w) != FXDP_OK) return 3;
            pre -= c;
        }
        for (call = 0; call < 2u; call++) {
            CALLGRIND_TOGGLE_COLLECT;
            if (kind == 'B') {
                st = ct ? fxdp_rr_bool_ct(&r, &cb, &xb1, &yb1) : fxdp_rr_bool(&r, &cb, &xb1, &yb1);
            } else if (kind == 'K') {
                st = ct ? fxdp_rr_ct(&r, &ck, &xk, &yk) : fxdp_rr(&r, &ck, &xk, &yk);
            } else if (kind == 'R') {
                st = ct ? fxdp_rappor_ct(&r, &cr, xb, yb) : fxdp_rappor(&r, &cr, xb, yb);
            } else if (kind == 'U') {
                st = ct ? fxdp_unary_encoding_ct(&r, &cu, &xk, yb) : fxdp_unary_encoding(&r, &cu, &xk, yb);
            } else if (kind == 'H') {
                st = ct ? fxdp_hadamard_response_ct(&r, &ch, &xk, &yk) : fxdp_hadamard_response(&r, &ch, &xk, &yk);
            } else if (kind == 'L') {
                st = ct ? fxdp_longitudinal_grr_ct(&r, &cl, &xk, &yk) : fxdp_longitudinal_grr(&r, &cl, &xk, &yk);
            } else if (kind == 'O') {
                st = ct ? fxdp_longitudinal_ue_ct(&r, &co, &xk, yb) : fxdp_longitudinal_ue(&r, &co, &xk, yb);
            } else {
                st = ct ? fxdp_geometric_ct(&r, &cg, xg, yg) : fxdp_geometric(&r, &cg, xg, yg);
            }
            CALLGRIND_TOGGLE_COLLECT;
            CALLGRIND_DUMP_STATS_AT("call");
            if (st != FXDP_OK) return 4;
            sink += (uint32_t)yb1 + yk + yb[0] + (uint32_t)yg[0];
        }
    }
    return 0;
}
