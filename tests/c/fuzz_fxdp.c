/*
 * fuzz_fxdp.c -- libFuzzer-free fuzz driver for every fxdp entry point, run
 * under ASan + UBSan by tests/test_c_sanitizers.py.
 *
 *   fuzz_fxdp SEED ITERATIONS
 *
 * A fixed-seed xorshift generator picks an rng (keyed, near counter
 * exhaustion, replay of 0..16 words, failing hook, DRBG), a random prefix of
 * bit reads, then random calls with random parameters biased to the edges
 * (0, 1, 2^j +- 1, INT64_MIN, ...), invalid ones included.  Each call is
 * checked against the contract: FXDP_ERR_PARAM exactly when a parameter is
 * invalid, and then nothing drawn (state unchanged); FXDP_ERR_ENTROPY when the
 * rng had failed before or fails now (sticky status); no output written
 * unless FXDP_OK; outputs in range; bitcount <= 31 and bitbuf < 2^bitcount.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxdp.h"
#include "host/fxdp_host.h"

static uint64_t g_state;
static unsigned long n_calls, n_fail, n_ok, n_param, n_entropy;

#define CHECK(cond) do { if (!(cond)) { n_fail++; \
        if (n_fail < 30) fprintf(stderr, "%s:%d: iteration %lu op %d: CHECK failed: %s\n", \
                                 __FILE__, __LINE__, iter, op, #cond); } } while (0)

static uint64_t rnd(void)   /* xorshift64* */
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * UINT64_C(2685821657736338717);
}

static uint64_t below(uint64_t n) { return rnd() % n; }

static uint64_t pick64(void)
{
    unsigned j = (unsigned)below(64);
    switch (below(12)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return below(16);
    case 3: return below(1000);
    case 4: return UINT64_C(1) << j;
    case 5: return (UINT64_C(1) << j) - 1u;
    case 6: return (UINT64_C(1) << j) + 1u;
    case 7: return UINT64_MAX - below(3);
    case 8: return (uint64_t)(uint32_t)rnd();
    case 9: return UINT32_MAX - below(3);
    case 10: return rnd() >> below(64);
    default: return rnd();
    }
}

static uint32_t pick32(void)
{
    uint64_t v = pick64();
    return below(4) == 0 ? (uint32_t)v : (uint32_t)(v > UINT32_MAX ? v >> 32 : v);
}

static int64_t picki64(void)
{
    switch (below(8)) {
    case 0: return INT64_MIN + (int64_t)below(3);
    case 1: return INT64_MAX - (int64_t)below(3);
    case 2: return (int64_t)below(21) - 10;
    case 3: return 0;
    default: return (int64_t)pick64();
    }
}

static unsigned pick_k(void)
{
    switch (below(10)) {
    case 0: return (unsigned)below(70);
    case 1: return 0xFFFFu;
    case 2: return 0;
    case 3: return 64u - (unsigned)below(2);
    default: return (unsigned)below(64);
    }
}

struct hook_ctx {
    uint32_t calls, fail_at;
};

static int hook_fill(void *ctx, uint8_t *out, size_t n)
{
    struct hook_ctx *h = (struct hook_ctx *)ctx;
    size_t i;
    if (h->calls++ >= h->fail_at) {
        return 1;
    }
    for (i = 0; i < n; i++) {
        out[i] = (uint8_t)rnd();
    }
    return 0;
}

static int state_ok(const fxdp_rng *r)
{
    return r->bitcount <= 31u && (r->bitbuf >> r->bitcount) == 0u;
}

int main(int argc, char **argv)
{
    unsigned long iter, iters;
    int op = -1;
    static struct hook_ctx hook;

    g_state = argc > 1 ? strtoull(argv[1], NULL, 0) : 1u;
    if (g_state == 0u) {
        g_state = 1u;
    }
    iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 10000u;

    for (iter = 0; iter < iters; iter++) {
        fxdp_rng r, before;
        uint32_t words[20], thr[40], key[8], i, nthr;
        unsigned nops, pre;
        op = -1;

        for (i = 0; i < 20u; i++) {
            words[i] = (uint32_t)rnd();
        }
        for (i = 0; i < 8u; i++) {
            key[i] = (uint32_t)rnd();
        }
        switch (below(6)) {
        case 0:
        case 1:
            fxdp_rng_init_seed(&r, key, (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd());
            break;
        case 2:
            fxdp_rng_init_seed(&r, key, 1, 2, 3);
            r.counter = UINT32_MAX - (uint32_t)below(3);
            break;
        case 3: {
            uint32_t n = (uint32_t)below(19);
            const uint32_t *w = below(8) == 0 ? NULL : words;
            fxdp_status st = fxdp_rng_init_replay(&r, w, n);
            CHECK(st == ((n > 16u || (w == NULL && n != 0u)) ? FXDP_ERR_PARAM : FXDP_OK));
            break;
        }
        case 4:
            hook.calls = 0;
            hook.fail_at = (uint32_t)below(24);
            fxdp_rng_init_hook(&r, below(16) == 0 ? NULL : hook_fill, &hook);
            break;
        default:
            hook.calls = 0;
            hook.fail_at = (uint32_t)below(3);
            CHECK(fxdp_rng_init_drbg(&r, hook_fill, &hook) == (hook.fail_at == 0u ? FXDP_ERR_ENTROPY : FXDP_OK));
            break;
        }
        pre = (unsigned)below(4);
        while (pre-- > 0u) {
            uint32_t v;
            (void)fxdp_bits(&r, (unsigned)below(33), &v);
        }
        nthr = (uint32_t)below(40);
        thr[0] = (uint32_t)below(8);
        for (i = 1; i < 40u; i++) {
            thr[i] = below(8) == 0 ? (uint32_t)rnd() : thr[i - 1] + 1u + (uint32_t)below(1000);
        }

        nops = 1u + (unsigned)below(6);
        while (nops-- > 0u) {
            const uint32_t S32 = 0xA5A5A5A5u;
            const uint64_t S64 = UINT64_C(0xA5A5A5A5A5A5A5A5);
            const int64_t SI64 = INT64_C(-0x5A5A5A5A5A5A5A5A);
            uint32_t o32 = S32, arr32[8];
            uint64_t o64 = S64, arr64[8];
            uint8_t o8 = 0xA5, arr8[8];
            int64_t oi = SI64, arri[8];
            fxdp_status st = FXDP_OK;
            int valid = 1, written = 0, out_ok = 1;
            int null_rng = below(64) == 0, null_out = below(64) == 0;
            fxdp_rng *rp = null_rng ? NULL : &r;
            uint32_t was_failed = r.status;
            size_t count = (size_t)below(9), produced = 12345;
            unsigned k = pick_k();
            uint64_t a = pick64(), b64 = pick64();
            uint32_t n32 = pick32(), d32 = pick32();
            int64_t lo = picki64(), hi = picki64();

            if (below(3) != 0) {               /* mostly valid shapes */
                if (k > 63u) k = (unsigned)below(64);
                if (k <= 63u && a > (UINT64_C(1) << k)) a = below(4) == 0 ? (UINT64_C(1) << k) : a % ((UINT64_C(1) << k) + 1u);
                if (b64 == 0u) b64 = 1u;
                if (a > b64 && below(4) != 0) { uint64_t t = a; a = b64; b64 = t; }
                if (d32 == 0u) d32 = 1u;
                if (lo > hi) { int64_t t = lo; lo = hi; hi = t; }
            }
            for (i = 0; i < 8u; i++) {
                arr32[i] = S32; arr64[i] = S64; arr8[i] = 0xA5; arri[i] = SI64;
            }
            before = r;
            op = (int)below(23);
            n_calls++;
            switch (op) {
            case 0:
                valid = k <= 32u;
                st = fxdp_bits(rp, k, null_out ? NULL : &o32);
                written = o32 != S32;
                out_ok = k == 32u || (k <= 32u && (o32 >> k) == 0u) || st != FXDP_OK;
                break;
            case 1:
                valid = k <= 64u;
                st = fxdp_bits64(rp, k, null_out ? NULL : &o64);
                written = o64 != S64;
                out_ok = k >= 64u || (o64 >> k) == 0u || st != FXDP_OK;
                break;
            case 2:
                valid = n32 >= 1u;
                st = fxdp_uniform_below_u32(rp, n32, null_out ? NULL : &o32);
                written = o32 != S32;
                out_ok = st != FXDP_OK || o32 < n32;
                break;
            case 3:
                valid = b64 >= 1u;
                st = fxdp_uniform_below_u64(rp, b64, null_out ? NULL : &o64);
                written = o64 != S64;
                out_ok = st != FXDP_OK || o64 < b64;
                break;
            case 4:
            case 5:
                valid = k <= 63u && a <= (UINT64_C(1) << k);
                st = (op == 4 ? fxdp_bernoulli_dyadic : fxdp_bernoulli_dyadic_ct)(rp, a, k, null_out ? NULL : &o8);
                written = o8 != 0xA5;
                out_ok = st != FXDP_OK || (o8 <= 1u && (a != 0u || o8 == 0u) && (k > 63u || a != (UINT64_C(1) << k) || o8 == 1u));
                break;
            case 6:
                valid = b64 >= 1u && a <= b64;
                st = fxdp_bernoulli_rational(rp, a, b64, null_out ? NULL : &o8);
                written = o8 != 0xA5;
                out_ok = st != FXDP_OK || (o8 <= 1u && (a != 0u || o8 == 0u) && (a != b64 || o8 == 1u));
                break;
            case 7:
                valid = d32 >= 1u;
                st = fxdp_bernoulli_exp(rp, n32, d32, null_out ? NULL : &o8);
                written = o8 != 0xA5;
                out_ok = st != FXDP_OK || (o8 <= 1u && (n32 != 0u || o8 == 1u));
                break;
            case 8:
                valid = n32 >= 1u && d32 >= 1u;
                st = fxdp_discrete_laplace(rp, n32, d32, null_out ? NULL : &oi);
                written = oi != SI64;
                break;
            case 9:
                valid = n32 >= 1u && d32 >= 1u && lo <= hi;
                st = fxdp_discrete_laplace_censored(rp, n32, d32, lo, hi, null_out ? NULL : &oi);
                written = oi != SI64;
                out_ok = st != FXDP_OK || (oi >= lo && oi <= hi);
                break;
            case 10: {
                int null_thr = below(16) == 0;
                uint32_t m = below(16) == 0 ? 5u : nthr;
                valid = k >= 1u && k <= 32u && !(null_thr && m != 0u);
                st = fxdp_table_sample_ct(rp, null_thr ? NULL : thr, m, k, null_out ? NULL : &o32);
                written = o32 != S32;
                out_ok = st != FXDP_OK || o32 <= m;
                break;
            }
            default: {                        /* bulk helpers */
                int f = op - 11;
                void *outp = NULL;
                if (null_out) {
                    outp = NULL;
                } else {
                    outp = f == 1 || f == 3 ? (void *)arr64 : f >= 4 && f <= 7 ? (void *)arr8
                         : f == 8 || f == 9 ? (void *)arri : (void *)arr32;
                }
                switch (f) {
                case 0: valid = k <= 32u; st = fxdp_fill_bits(rp, k, outp, count, &produced); break;
                case 1: valid = k <= 64u; st = fxdp_fill_bits64(rp, k, outp, count, &produced); break;
                case 2: valid = n32 >= 1u; st = fxdp_fill_uniform_below_u32(rp, n32, outp, count, &produced); break;
                case 3: valid = b64 >= 1u; st = fxdp_fill_uniform_below_u64(rp, b64, outp, count, &produced); break;
                case 4: case 5:
                    valid = k <= 63u && a <= (UINT64_C(1) << k);
                    st = (f == 4 ? fxdp_fill_bernoulli_dyadic : fxdp_fill_bernoulli_dyadic_ct)(rp, a, k, outp, count, &produced);
                    break;
                case 6: valid = b64 >= 1u && a <= b64; st = fxdp_fill_bernoulli_rational(rp, a, b64, outp, count, &produced); break;
                case 7: valid = d32 >= 1u; st = fxdp_fill_bernoulli_exp(rp, n32, d32, outp, count, &produced); break;
                case 8: valid = n32 >= 1u && d32 >= 1u; st = fxdp_fill_discrete_laplace(rp, n32, d32, outp, count, &produced); break;
                case 9:
                    valid = n32 >= 1u && d32 >= 1u && lo <= hi;
                    st = fxdp_fill_discrete_laplace_censored(rp, n32, d32, lo, hi, outp, count, &produced);
                    break;
                default:
                    valid = k >= 1u && k <= 32u;
                    st = fxdp_fill_table_sample_ct(rp, thr, nthr, k, outp, count, &produced);
                    break;
                }
                if (null_out && count != 0u) {
                    valid = 0;
                }
                CHECK(produced <= count);
                CHECK(st == FXDP_OK ? produced == count : 1);
                for (i = (uint32_t)produced; i < 8u; i++) {  /* nothing written past produced */
                    CHECK(arr32[i] == S32 && arr64[i] == S64 && arr8[i] == 0xA5 && arri[i] == SI64);
                }
                for (i = 0; i < (uint32_t)produced; i++) {
                    if (f == 9) CHECK(arri[i] >= lo && arri[i] <= hi);
                    if (f >= 4 && f <= 7) CHECK(arr8[i] <= 1u);
                    if (f == 10) CHECK(arr32[i] <= nthr);
                }
                if (null_rng) valid = 0;
                if (!valid) CHECK(produced == 0u);
                written = 0;
                null_out = 0;
                break;
            }
            }
            if (null_rng || null_out) {
                valid = 0;
            }
            if (!valid) {
                n_param++;
                CHECK(st == FXDP_ERR_PARAM);
                CHECK(!written);
                if (!null_rng) {
                    CHECK(memcmp(&r, &before, sizeof r) == 0);
                }
            } else if (was_failed != 0u) {
                n_entropy++;
                CHECK(st == FXDP_ERR_ENTROPY);
                CHECK(!written);
            } else if (st == FXDP_OK) {
                n_ok++;
                CHECK(out_ok);
            } else {
                n_entropy++;
                CHECK(st == FXDP_ERR_ENTROPY || st == FXDP_ERR_RANGE);
                CHECK(!written);
                if (st == FXDP_ERR_ENTROPY) {
                    CHECK(r.status == FXDP_ERR_ENTROPY);
                }
            }
            CHECK(state_ok(&r));
        }
    }
    printf("fuzz: %lu calls (%lu ok, %lu param, %lu entropy)\n", n_calls, n_ok, n_param, n_entropy);
    printf("%lu passed, %lu failed\n", n_calls - n_fail, n_fail);
    return n_fail == 0 ? 0 : 1;
}
