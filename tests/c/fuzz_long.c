/*
 * fuzz_long.c -- fixed-seed fuzz driver of the longitudinal oracles (csrc/fxdp_mech_longitudinal.c), run under
 * AddressSanitizer + UndefinedBehaviorSanitizer by tests/test_longitudinal.py:
 *
 *   fuzz_long SEED ITERATIONS
 *
 * Each iteration builds an rng (keyed, near counter exhaustion, replay of 0..18 words, a board hook
 * failing after some words), a configuration (mostly valid: the weights of a real realization, some
 * fields then broken) and an input (mostly in range), and calls one of the nine entry points, NULL
 * pointers included.  Checked: FXDP_ERR_PARAM exactly for an invalid call, with nothing written and
 * the rng untouched; outputs written only on FXDP_OK and in range (an item < d, or d bytes 0/1; L-OUE,
 * drawn in place, zeroed on an entropy failure during its draws); the
 * rng's bit buffer stays consistent; a report on a stored device is the export release's report when
 * the device is the one the export derives (keyed rng).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxdp.h"

static uint64_t g_state;
static unsigned long n_calls, n_fail, n_ok, n_param, n_entropy;

#define CHECK(c) do { if (!(c)) { n_fail++; printf("FAIL line %d: %s\n", __LINE__, #c); } } while (0)

static uint64_t rnd(void)   /* xorshift64* */
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * UINT64_C(2685821657736338717);
}

static uint64_t below(uint64_t n) { return rnd() % n; }

struct hook_ctx { uint32_t calls, fail_at; };

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

/* A GRR configuration: valid (w0 + (d-1) w = v0 + (d-1) v = 2^bits, w < w0, v <= v0) unless broken. */
static int grr_cfg(fxdp_longitudinal_grr_cfg *c)
{
    unsigned bits = 2u + (unsigned)below(31);
    uint64_t two_k = UINT64_C(1) << bits, wmax, vmax;
    uint32_t dmax = (uint32_t)((two_k >> 1) < FXDP_LONGITUDINAL_GRR_MAX_D ? (two_k >> 1) : FXDP_LONGITUDINAL_GRR_MAX_D);
    int valid = 1;

    if (below(4) == 0) {
        c->d = dmax;
    } else {
        c->d = 2u + (uint32_t)below(dmax < 40u ? dmax - 1u : 39u);
    }
    if (c->d < 2u) c->d = 2u;
    vmax = two_k / c->d;
    wmax = vmax;
    if (two_k - (uint64_t)(c->d - 1u) * wmax <= wmax) wmax--;  /* w < w0 */
    c->bits = (uint8_t)bits;
    if (wmax < 1u) {
        c->w = 1u;
        c->w0 = 0u;
        valid = 0;
    } else {
        c->w = (uint32_t)(1u + below(wmax));
        c->w0 = (uint32_t)(two_k - (uint64_t)(c->d - 1u) * c->w);
    }
    c->v = (uint32_t)(1u + below(vmax));
    c->v0 = (uint32_t)(two_k - (uint64_t)(c->d - 1u) * c->v);
    switch (below(12)) {
    case 0: c->w0 += 1u; valid = 0; break;
    case 1: c->v = 0u; valid = 0; break;
    case 2: c->bits = (uint8_t)(below(2) ? 1u : 33u + below(200)); valid = 0; break;
    case 3: c->d = below(2) ? (uint32_t)below(2) : FXDP_LONGITUDINAL_GRR_MAX_D + 1u + (uint32_t)below(5); valid = 0; break;
    default: break;
    }
    return valid;
}

/* An L-OUE configuration: valid (0 < a_q1 < a_p1 < 2^bits, 2^(bits-1) < a_p2 < 2^bits) unless broken. */
static int ue_cfg(fxdp_longitudinal_ue_cfg *c)
{
    unsigned bits = 2u + (unsigned)below(62);
    uint64_t two_k = UINT64_C(1) << bits, half = two_k >> 1;
    int valid = 1;

    c->bits = (uint8_t)bits;
    c->d = below(4) == 0 ? FXDP_LONGITUDINAL_UE_MAX_D : 2u + (uint32_t)below(40);
    c->a_p1 = half;
    c->a_q1 = half > 1u ? 1u + below(half - 1u) : 0u;
    c->a_p2 = half + 1u + below(half - 1u);
    if (c->a_q1 == 0u || c->a_p2 >= two_k) valid = 0;
    switch (below(12)) {
    case 0: c->a_q1 = 0u; valid = 0; break;
    case 1: c->a_p2 = half; valid = 0; break;
    case 2: c->bits = (uint8_t)(below(2) ? 1u : 64u + below(100)); valid = 0; break;
    case 3: c->d = below(2) ? (uint32_t)below(2) : FXDP_LONGITUDINAL_UE_MAX_D + 1u; valid = 0; break;
    case 4: c->a_p1 = two_k; valid = 0; break;
    default: break;
    }
    return valid;
}

int main(int argc, char **argv)
{
    unsigned long iter, iters;
    static struct hook_ctx hook;
    static uint8_t ue_out[FXDP_LONGITUDINAL_UE_MAX_D + 8], ue_out2[FXDP_LONGITUDINAL_UE_MAX_D + 8];

    g_state = argc > 1 ? strtoull(argv[1], NULL, 0) : 1u;
    if (g_state == 0u) {
        g_state = 1u;
    }
    iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 10000u;

    for (iter = 0; iter < iters; iter++) {
        fxdp_rng r, before;
        fxdp_longitudinal_grr_cfg gc;
        fxdp_longitudinal_ue_cfg uc;
        fxdp_longitudinal_device dev;
        uint32_t words[18], key[8], i, x, o32 = 0xA5A5A5A5u;
        int op = (int)below(9), valid, keyed = 0, null_r = below(48) == 0, null_cfg = below(48) == 0;
        int null_x = below(48) == 0, null_out = below(48) == 0, null_dev = below(48) == 0;
        uint32_t was_failed;
        fxdp_status st = FXDP_OK;
        int written;

        for (i = 0; i < 18u; i++) words[i] = (uint32_t)rnd();
        for (i = 0; i < 8u; i++) key[i] = (uint32_t)rnd();
        switch (below(5)) {
        case 0:
        case 1:
            fxdp_rng_init_seed(&r, key, (uint32_t)rnd(), (uint32_t)rnd(), 0u);
            keyed = 1;
            break;
        case 2:
            fxdp_rng_init_seed(&r, key, 1u, 2u, 0u);
            r.counter = UINT32_MAX - (uint32_t)below(3);
            break;
        case 3:
            (void)fxdp_rng_init_replay(&r, words, (uint32_t)below(17));
            break;
        default:
            hook.calls = 0;
            hook.fail_at = (uint32_t)below(40);
            fxdp_rng_init_hook(&r, hook_fill, &hook);
            break;
        }
        for (i = 0; i < 8u; i++) dev.secret[i] = (uint32_t)rnd();
        valid = op == 0 ? 1 : (op <= 4 ? grr_cfg(&gc) : ue_cfg(&uc));
        {
            uint32_t dd = op <= 4 ? gc.d : uc.d;           /* (op 0 ignores x) */
            uint64_t pick = below(16);
            x = pick == 0u ? (uint32_t)rnd() : pick == 1u ? dd : pick == 2u ? dd - 1u : (uint32_t)below(dd ? dd : 1u);
        }
        if (op >= 1 && op <= 4 && x >= gc.d) valid = 0;
        if (op >= 5 && x >= uc.d) valid = 0;
        memset(ue_out, 0xA5, sizeof ue_out);
        before = r;
        was_failed = r.status;
        n_calls++;
        {
            fxdp_rng *rp = null_r ? NULL : &r;
            const uint32_t *xp = null_x ? NULL : &x;
            const fxdp_longitudinal_device *dp = null_dev ? NULL : &dev;
            switch (op) {
            case 0:
                st = fxdp_longitudinal_provision(rp, null_dev ? NULL : &dev);
                valid = !null_r && !null_dev;
                break;
            case 1: st = fxdp_longitudinal_grr(rp, null_cfg ? NULL : &gc, xp, null_out ? NULL : &o32); break;
            case 2: st = fxdp_longitudinal_grr_ct(rp, null_cfg ? NULL : &gc, xp, null_out ? NULL : &o32); break;
            case 3: st = fxdp_longitudinal_grr_report(null_cfg ? NULL : &gc, dp, rp, xp, null_out ? NULL : &o32); break;
            case 4: st = fxdp_longitudinal_grr_report_ct(null_cfg ? NULL : &gc, dp, rp, xp, null_out ? NULL : &o32); break;
            case 5: st = fxdp_longitudinal_ue(rp, null_cfg ? NULL : &uc, xp, null_out ? NULL : ue_out); break;
            case 6: st = fxdp_longitudinal_ue_ct(rp, null_cfg ? NULL : &uc, xp, null_out ? NULL : ue_out); break;
            case 7: st = fxdp_longitudinal_ue_report(null_cfg ? NULL : &uc, dp, rp, xp, null_out ? NULL : ue_out); break;
            default: st = fxdp_longitudinal_ue_report_ct(null_cfg ? NULL : &uc, dp, rp, xp, null_out ? NULL : ue_out); break;
            }
            if (op != 0 && (null_r || null_cfg || null_x || null_out || ((op == 3 || op == 4 || op >= 7) && null_dev))) {
                valid = 0;
            }
        }
        written = op >= 5 ? ue_out[0] != 0xA5 : (op >= 1 ? o32 != 0xA5A5A5A5u : 0);
        for (i = op >= 5 ? uc.d : 0u; op >= 5 && valid && i < sizeof ue_out; i++) {
            CHECK(ue_out[i] == 0xA5);                  /* nothing beyond d bytes */
        }
        if (!valid) {
            n_param++;
            CHECK(st == FXDP_ERR_PARAM);
            CHECK(!written);
            if (!null_r) CHECK(memcmp(&r, &before, sizeof r) == 0);
        } else if (was_failed != 0u) {
            n_entropy++;
            CHECK(st == FXDP_ERR_ENTROPY);
            CHECK(!written);
        } else if (st == FXDP_OK) {
            n_ok++;
            if (op >= 1 && op <= 4) CHECK(o32 < gc.d);
            for (i = 0; op >= 5 && i < uc.d; i++) CHECK(ue_out[i] <= 1u);
            /* the export release is the report of the device derived from the sibling stream */
            if (keyed && (op == 1 || op == 2 || op == 5 || op == 6)) {
                fxdp_rng sib, r2 = before;
                fxdp_longitudinal_device d2;
                uint32_t nonce[3], o2 = 0;
                nonce[0] = before.nonce[0];
                nonce[1] = before.nonce[1];
                nonce[2] = 1u;
                fxdp_rng_init_keyed(&sib, before.key, nonce);
                CHECK(fxdp_longitudinal_provision(&sib, &d2) == FXDP_OK);
                if (op <= 2) {
                    CHECK((op == 1 ? fxdp_longitudinal_grr_report : fxdp_longitudinal_grr_report_ct)(&gc, &d2, &r2, &x,
                                                                                                     &o2) == FXDP_OK);
                    CHECK(o2 == o32);
                } else {
                    CHECK((op == 5 ? fxdp_longitudinal_ue_report : fxdp_longitudinal_ue_report_ct)(&uc, &d2, &r2, &x,
                                                                                                   ue_out2) == FXDP_OK);
                    CHECK(memcmp(ue_out, ue_out2, uc.d) == 0);
                }
                CHECK(memcmp(&r2, &r, sizeof r) == 0);
            }
        } else {
            n_entropy++;
            CHECK(st == FXDP_ERR_ENTROPY);
            if (op >= 5 && written) {                   /* L-OUE draws in place: zeroed, nothing released */
                for (i = 0; i < uc.d; i++) CHECK(ue_out[i] == 0u);
            } else {
                CHECK(!written);
            }
            CHECK(r.status == FXDP_ERR_ENTROPY);
        }
        CHECK(state_ok(&r));
    }
    printf("fuzz: %lu calls (%lu ok, %lu param, %lu entropy)\n", n_calls, n_ok, n_param, n_entropy);
    printf("%lu passed, %lu failed\n", n_calls - n_fail, n_fail);
    return n_fail == 0 ? 0 : 1;
}
