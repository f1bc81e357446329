/*
 * fuzz_mech.c -- fixed-seed fuzz driver over the layer-4 mechanism entry points
 * (tests/test_mech_c_errors.py runs it under ASan + UBSan).
 *
 *   fuzz_mech SEED CALLS
 *
 * Each call picks an entry point, a configuration (mostly well formed, often
 * broken in one field, sometimes garbage), an input (mostly valid) and an rng
 * (fresh keyed stream, a short replay, a keystream about to run out, or a dead
 * rng), with the output buffer filled with a sentinel.  Invariants checked:
 * the status is a known code; on any status but FXDP_OK the output is
 * untouched, except that the in-place forms (basic RAPPOR, the lazy
 * geometric) may instead have zeroed exactly their k / n outputs after a
 * failure during the draws (never on FXDP_ERR_PARAM); on FXDP_ERR_PARAM the
 * rng state is untouched; a FXDP_OK release writes only outputs in range (0/1
 * bits, indices < t, values in [lo, hi]).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxdp.h"

static uint64_t st_x;

static uint64_t rnd64(void)          /* splitmix64 */
{
    uint64_t z = (st_x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)      /* uniform-ish below n (n >= 1) */
{
    return (uint32_t)(rnd64() % n);
}

#define MAXT 70000
static uint32_t tbl[MAXT];
static uint8_t xb[1100], yb[1100];
static int64_t xg[20], yg[20];
static unsigned long violations;

static void fill_table(uint32_t n, unsigned k)
{
    uint64_t top = (k >= 32u) ? UINT64_C(0xFFFFFFFF) : ((UINT64_C(1) << k) - 1u);
    uint64_t step = n ? top / ((uint64_t)n + 1u) : 1u;
    uint32_t i;

    if (step == 0u) {
        step = 1u;
    }
    for (i = 0; i < n && i < MAXT; i++) {
        tbl[i] = (uint32_t)(((uint64_t)i + 1u) * step);
        if (rnd(50) == 0) {
            tbl[i] = (uint32_t)rnd64();         /* a broken table: must still be memory-safe */
        }
    }
}

static void make_rng(fxdp_rng *r)
{
    uint32_t key[8], nonce[3], words[16], i, n;

    for (i = 0; i < 8u; i++) key[i] = (uint32_t)rnd64();
    for (i = 0; i < 3u; i++) nonce[i] = (uint32_t)rnd64();
    switch (rnd(5)) {
    case 0:
        n = rnd(17);
        for (i = 0; i < n; i++) words[i] = (uint32_t)rnd64();
        (void)fxdp_rng_init_replay(r, words, n);
        break;
    case 1:
        fxdp_rng_init_keyed(r, key, nonce);
        r->counter = UINT32_C(0xFFFFFFFF) - rnd(3);   /* 0..2 blocks left */
        break;
    case 2:
        (void)fxdp_rng_init_replay(r, words, 0u);    /* dead at once */
        break;
    default:
        fxdp_rng_init_keyed(r, key, nonce);
        break;
    }
    if (rnd(4) == 0) {                              /* some bits already used */
        uint32_t w;
        (void)fxdp_bits(r, rnd(33), &w);
    }
}

static void check(int ok, const char *what, unsigned long call)
{
    if (!ok) {
        violations++;
        if (violations < 20) {
            printf("violation at call %lu: %s\n", call, what);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned long calls, c, n_ok = 0, n_param = 0, n_entropy = 0, n_other = 0;

    if (argc != 3) {
        return 2;
    }
    st_x = strtoull(argv[1], NULL, 0);
    calls = strtoul(argv[2], NULL, 0);
    for (c = 0; c < calls; c++) {
        fxdp_rng r, before;
        fxdp_status st = FXDP_OK;
        unsigned kind = rnd(8), ct = kind & 1u, i, untouched = 1, wiped = 0;
        int garbage = rnd(10) == 0;

        make_rng(&r);
        memcpy(&before, &r, sizeof r);
        memset(yb, 0xA5, sizeof yb);
        memset(yg, 0xA5, sizeof yg);
        if (kind < 2u) {
            fxdp_rr_bool_cfg cfg;
            uint8_t x = (uint8_t)(rnd(8) == 0 ? rnd(256) : rnd(2));
            cfg.k = (uint8_t)(garbage ? rnd(256) : 1u + rnd(63));
            cfg.a = garbage ? rnd64() : (UINT64_C(1) << (cfg.k - 1u)) + (cfg.k > 1u ? rnd64() >> (65u - cfg.k) : 0u);
            if (rnd(10) == 0) cfg.a = rnd64();
            st = ct ? fxdp_rr_bool_ct(&r, &cfg, &x, yb) : fxdp_rr_bool(&r, &cfg, &x, yb);
            if (st == FXDP_OK) check(yb[0] <= 1u, "rr_bool output not 0/1", c);
            untouched = yb[0] == 0xA5u;
        } else if (kind < 4u) {
            fxdp_rr_cfg cfg;
            uint32_t x, y = 0xA5A5A5A5u;
            cfg.k = (uint8_t)(garbage ? rnd(40) : 1u + rnd(32));
            cfg.t = garbage ? (uint32_t)rnd64() : 2u + rnd(cfg.k >= 12u ? 2000u : (1u << (cfg.k - 1u)));
            if (cfg.t > MAXT) cfg.t = 2u + rnd(100);
            cfg.w0 = garbage ? (uint32_t)rnd64() : (uint32_t)(((cfg.k >= 32u ? UINT64_C(0xFFFFFFFF) :
                                                                 (UINT64_C(1) << cfg.k) - 1u) * 3u) / 4u);
            fill_table(cfg.t - 1u < MAXT ? cfg.t - 1u : 0u, cfg.k);
            if (cfg.t >= 2u && cfg.t - 1u < MAXT) tbl[0] = cfg.w0;
            cfg.thresholds = rnd(20) == 0 ? NULL : tbl;
            x = rnd(10) == 0 ? (uint32_t)rnd64() : rnd(cfg.t ? cfg.t + 1u : 1u);
            st = ct ? fxdp_rr_ct(&r, &cfg, &x, &y) : fxdp_rr(&r, &cfg, &x, &y);
            if (st == FXDP_OK) check(y < cfg.t, "rr output >= t", c);
            untouched = y == 0xA5A5A5A5u;
        } else if (kind < 6u) {
            fxdp_rappor_cfg cfg;
            uint32_t ones = 0;
            cfg.bits = (uint8_t)(garbage ? rnd(256) : 1u + rnd(63));
            cfg.a = garbage ? rnd64() : 1u + (cfg.bits > 1u ? rnd64() >> (65u - cfg.bits) : 0u);
            cfg.k = garbage ? (uint32_t)rnd64() % 2000u : 1u + rnd(rnd(4) == 0 ? 1030u : 70u);
            cfg.m = garbage ? (uint32_t)rnd64() : 1u + rnd(cfg.k ? cfg.k : 1u);
            for (i = 0; i < 1100u; i++) {
                xb[i] = (uint8_t)(rnd(50) == 0 ? rnd(256) : (rnd(8) == 0 && ones < cfg.m));
                ones += xb[i] == 1u;
            }
            st = ct ? fxdp_rappor_ct(&r, &cfg, xb, yb) : fxdp_rappor(&r, &cfg, xb, yb);
            wiped = cfg.k <= 1100u;             /* drawn in place: zeroed on a failure mid-draw */
            for (i = 0; i < 1100u; i++) {
                if (yb[i] != 0xA5u) untouched = 0;
                if (yb[i] != (i < cfg.k ? 0u : 0xA5u)) wiped = 0;
                if (st == FXDP_OK && i < cfg.k) check(yb[i] <= 1u, "rappor output not 0/1", c);
                if (st == FXDP_OK && i >= cfg.k) check(yb[i] == 0xA5u, "rappor wrote past k", c);
            }
        } else {
            fxdp_geometric_cfg cfg;
            cfg.s = garbage ? (uint32_t)rnd64() : rnd(3) + (rnd(10) == 0 ? 0u : 1u);
            cfg.t = garbage ? (uint32_t)rnd64() : 1u + rnd(40);
            cfg.lo = garbage ? (int64_t)rnd64() : -(int64_t)rnd(100);
            cfg.hi = garbage ? (int64_t)rnd64() : (int64_t)rnd(100);
            if (rnd(20) == 0) { cfg.lo = INT64_MIN; cfg.hi = INT64_MAX; }
            cfg.n = garbage ? (uint32_t)rnd64() : rnd(18);
            cfg.k = (uint8_t)(garbage ? rnd(40) : 8u + rnd(25));
            cfg.half = (uint8_t)(garbage ? rnd(5) : rnd(3));
            cfg.width = garbage ? rnd(40000) : 1u + rnd(200);
            fill_table(cfg.width < 32768u ? 2u * cfg.width : 0u, cfg.k);
            cfg.thresholds = rnd(20) == 0 ? NULL : tbl;
            for (i = 0; i < 20u; i++) {
                xg[i] = rnd(5) == 0 ? (int64_t)rnd64() : (int64_t)rnd(300) - 150;
            }
            st = ct ? fxdp_geometric_ct(&r, &cfg, xg, yg) : fxdp_geometric(&r, &cfg, xg, yg);
            wiped = !ct && cfg.n <= 20u;        /* the lazy form draws in place: zeroed on a failure */
            for (i = 0; i < 20u; i++) {
                if (yg[i] != (int64_t)UINT64_C(0xA5A5A5A5A5A5A5A5)) untouched = 0;
                if (yg[i] != (i < cfg.n ? 0 : (int64_t)UINT64_C(0xA5A5A5A5A5A5A5A5))) wiped = 0;
                if (st == FXDP_OK && i < cfg.n) check(yg[i] >= cfg.lo && yg[i] <= cfg.hi, "geometric out of bounds", c);
                if (st == FXDP_OK && i >= cfg.n) check(yg[i] == (int64_t)UINT64_C(0xA5A5A5A5A5A5A5A5),
                                                     "geometric wrote past n", c);
            }
        }
        check(st == FXDP_OK || st == FXDP_ERR_PARAM || st == FXDP_ERR_ENTROPY || st == FXDP_ERR_RANGE,
              "unknown status", c);
        if (st == FXDP_ERR_PARAM) {
            check(untouched, "output written on FXDP_ERR_PARAM", c);
        } else if (st != FXDP_OK) {
            check(untouched || wiped, "output written (and not wiped) on failure", c);
        }
        if (st == FXDP_ERR_PARAM) {
            check(memcmp(&before, &r, sizeof r) == 0, "rng changed on FXDP_ERR_PARAM", c);
        }
        n_ok += st == FXDP_OK;
        n_param += st == FXDP_ERR_PARAM;
        n_entropy += st == FXDP_ERR_ENTROPY;
        n_other += st == FXDP_ERR_RANGE;
    }
    printf("fuzz_mech: %lu calls, %lu ok, %lu param, %lu entropy, %lu violations\n", calls, n_ok, n_param,
           n_entropy, violations);
    return violations != 0u;
}
