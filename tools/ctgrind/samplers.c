/*
 * samplers.c -- ctgrind driver for the constant-time samplers of csrc/fxdp.h (tools/ctgrind/run_ctgrind.py).
 *
 *   samplers ENTRY      ENTRY: bernoulli_dyadic_ct, bernoulli_block_ct, table_sample_ct (constant time),
 *                              bernoulli_dyadic, bernoulli_block, uniform_below_u32 (lazy twins, which must be flagged),
 *                              health_fill (the SP 800-90B tests over secret raw bytes: only the
 *                              verdict of a call may be branched on), strhash32 (a secret string of
 *                              secret length: only the length's validity check may be branched on)
 *
 * Every call draws from a keyed stream whose key words are marked undefined, so every keystream
 * word is secret to memcheck; the secret parameter (a of the Bernoulli, the table's entries) is
 * marked undefined too.  Any branch or memory index on them is a memcheck report.
 */
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "fxdp.h"

#define CALLS 8u

static void secret_rng(fxdp_rng *r, uint32_t dev)
{
    static const uint32_t seed[8] = {0x243F6A88u, 0x85A308D3u, 0x13198A2Eu, 0x03707344u,
                                     0xA4093822u, 0x299F31D0u, 0x082EFA98u, 0xEC4E6C89u};
    fxdp_rng_init_seed(r, seed, dev, 0u, 0u);
    VALGRIND_MAKE_MEM_UNDEFINED(r->key, sizeof r->key);
}

/* Mark the low `bits` bits of the little-endian object at p undefined (secret), the rest defined:
 * its valid values differ in those bits only, so the parameter check (a public fact) stays defined. */
static void secret_low_bits(void *p, size_t size, unsigned bits)
{
    uint8_t vbits[16];
    size_t i;

    for (i = 0; i < size && i < sizeof vbits; i++) {
        unsigned lo = 8u * (unsigned)i;
        vbits[i] = bits >= lo + 8u ? 0xFFu : bits > lo ? (uint8_t)((1u << (bits - lo)) - 1u) : 0u;
    }
    (void)VALGRIND_SET_VBITS(p, vbits, size);
}

/* A board hook whose bytes are secret (undefined to memcheck) and healthy (a counter mixed so that no
 * test fails: the run's verdicts are all "pass"). */
static uint32_t board_state = 0x12345u;
static int secret_board(void *ctx, uint8_t *out, size_t n)
{
    size_t i;

    (void)ctx;
    for (i = 0; i < n; i++) {
        board_state = board_state * 1103515245u + 12345u;
        out[i] = (uint8_t)(board_state >> 23);
    }
    VALGRIND_MAKE_MEM_UNDEFINED(out, n);
    return 0;
}

int main(int argc, char **argv)
{
    const char *e = argc > 1 ? argv[1] : "";
    unsigned bad = 0u, i;

    for (i = 0; i < CALLS; i++) {
        fxdp_rng r;
        fxdp_status st = FXDP_ERR_PARAM;
        uint8_t b = 0u;
        uint32_t idx = 0u;
        uint64_t a = (UINT64_C(0x9E3779B97F4A7C15) * (i + 1u)) >> 44;   /* a < 2^20 = 2^k */
        uint32_t table[7];
        unsigned j;

        secret_rng(&r, i);
        if (strcmp(e, "bernoulli_dyadic_ct") == 0 || strcmp(e, "bernoulli_dyadic") == 0) {
            secret_low_bits(&a, sizeof a, 20u);
            st = e[16] == '_' ? fxdp_bernoulli_dyadic_ct(&r, a, 20u, &b) : fxdp_bernoulli_dyadic(&r, a, 20u, &b);
        } else if (strcmp(e, "bernoulli_block_ct") == 0 || strcmp(e, "bernoulli_block") == 0) {
            uint32_t mask = UINT32_C(1) << (i % 32u);            /* the hot lane: the secret */
            secret_low_bits(&mask, sizeof mask, 32u);
            st = e[15] == '_' ? fxdp_bernoulli_block_ct(&r, 32u, UINT64_C(1) << 19, a | 1u, 20u, mask, &idx)
                              : fxdp_bernoulli_block(&r, 32u, UINT64_C(1) << 19, a | 1u, 20u, mask, &idx);
        } else if (strcmp(e, "table_sample_ct") == 0) {
            for (j = 0; j < 7u; j++) {
                table[j] = (j + 1u) * 1000u + i;
            }
            VALGRIND_MAKE_MEM_UNDEFINED(table, sizeof table);
            st = fxdp_table_sample_ct(&r, table, 7u, 13u, &idx);
        } else if (strcmp(e, "health_fill") == 0) {
            fxdp_health hc;
            uint8_t buf[600];
            st = fxdp_health_init(&hc, secret_board, NULL, 1024u, 62u);
            if (st == FXDP_OK && fxdp_health_fill(&hc, buf, sizeof buf) != 0) {
                st = FXDP_ERR_ENTROPY;
            }
            VALGRIND_MAKE_MEM_DEFINED(buf, sizeof buf);
        } else if (strcmp(e, "strhash32") == 0) {
            /* the string and its length are secret; the key (public) and max_len are not */
            static const uint32_t hkey[8] = {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u};
            uint8_t s[40];
            uint32_t len = i * 5u;                               /* 0 .. 35 <= max_len */
            for (j = 0; j < sizeof s; j++) {
                s[j] = (uint8_t)(j * 7u + i);
            }
            VALGRIND_MAKE_MEM_UNDEFINED(s, sizeof s);
            VALGRIND_MAKE_MEM_UNDEFINED(&len, sizeof len);
            st = fxdp_strhash32(hkey, i, s, len, 40u, &idx);
        } else if (strcmp(e, "uniform_below_u32") == 0) {
            st = fxdp_uniform_below_u32(&r, 1000u + i, &idx);
        } else {
            fprintf(stderr, "unknown entry %s\n", e);
            return 2;
        }
        VALGRIND_MAKE_MEM_DEFINED(&b, sizeof b);      /* outputs are secret; only status is public */
        VALGRIND_MAKE_MEM_DEFINED(&idx, sizeof idx);
        bad += st != FXDP_OK;
    }
    printf("calls %u failed %u\n", CALLS, bad);
    return bad != 0u;
}
