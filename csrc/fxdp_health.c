/*
 * fxdp_health.c -- NIST SP 800-90B section 4.4 continuous health tests on raw TRNG bytes.
 *
 * fxdp_health_fill is an fxdp_fill_fn: it calls the board's fill, then runs every byte through the
 * repetition count test and the adaptive proportion test.  The definition and the cut-off
 * computation are fxdp/health.py (docs/health.md).  Give it to fxdp_rng_init_drbg or
 * fxdp_rng_init_hook in place of the board's fill:
 *
 *     fxdp_health hc;
 *     if (fxdp_health_init(&hc, board_fill, NULL, H256, APT_CUTOFF) != FXDP_OK) ...   // start-up test
 *     st = fxdp_rng_init_drbg(&rng, fxdp_health_fill, &hc);                           // FXDP_ERR_ENTROPY on failure
 *
 * The bytes become key material, so the per-byte update has no branch and no memory index on a
 * byte's value; only the verdict of a whole fill call (pass or fail) is branched on.
 */
#include "fxdp.h"

#define RCT_LIMIT_NUM 5120u    /* 20 (= -log2 alpha) * 256: H is in 1/256 bit */
#define APT_CUTOFF_MAX (FXDP_HEALTH_APT_WINDOW + 1u)   /* a window never holds more: the test is off */
#define STARTUP_CHUNK 32u

uint32_t fxdp_health_rct_cutoff(uint32_t h256)
{
    if (h256 < 1u || h256 > 2048u) {
        return 0u;
    }
    return 1u + (RCT_LIMIT_NUM + h256 - 1u) / h256;
}

/* 1 if a == b else 0, for bytes, without a branch: (a ^ b) - 1 wraps to the top bit only at 0. */
static uint32_t eq_byte(uint32_t a, uint32_t b)
{
    return ((a ^ b) - 1u) >> 31;
}

/* 1 if x >= c else 0, for x, c < 2^31, without a branch. */
static uint32_t ge(uint32_t x, uint32_t c)
{
    return ((c - 1u - x) >> 31) & 1u;
}

/* Run buf[0..n) through both tests; returns FXDP_HEALTH_OK, _RCT or _APT (RCT if both failed in
 * this call).  Counters only change; the caller branches on the verdict only. */
static uint32_t run_tests(fxdp_health *h, const uint8_t *buf, size_t n)
{
    uint32_t rct_fail = 0u, apt_fail = 0u;
    uint32_t rct_count = h->rct_count, rct_last = h->rct_last;
    uint32_t apt_count = h->apt_count, apt_first = h->apt_first, apt_seen = h->apt_seen;
    uint32_t rct_cut = h->rct_cutoff, apt_cut = h->apt_cutoff;
    size_t i;

    for (i = 0; i < n; i++) {
        uint32_t x = buf[i];
        uint32_t open = eq_byte(apt_seen, 0u);           /* public: a window position        */
        uint32_t open_mask = 0u - open;
        /* repetition count: the run grows on a repeat, else restarts at 1 (rct_count 0: none yet) */
        rct_count = (rct_count & (0u - eq_byte(x, rct_last))) + 1u;
        rct_last = x;
        rct_fail |= ge(rct_count, rct_cut);
        /* adaptive proportion: a new window takes x as its first byte and counts it */
        apt_first = (apt_first & ~open_mask) | (x & open_mask);
        apt_count = (apt_count & ~open_mask) + eq_byte(x, apt_first);
        apt_fail |= ge(apt_count, apt_cut);
        apt_seen += 1u;
        apt_seen &= 0u - (1u ^ eq_byte(apt_seen, FXDP_HEALTH_APT_WINDOW));   /* window full: 0 */
    }
    h->rct_count = (uint16_t)rct_count;     /* a run past 0xFFFF already failed (cut-off <= 5121) */
    h->rct_last = (uint8_t)rct_last;
    h->apt_count = (uint16_t)apt_count;
    h->apt_first = (uint8_t)apt_first;
    h->apt_seen = (uint16_t)apt_seen;
    if (rct_fail != 0u) {
        return FXDP_HEALTH_RCT;
    }
    return apt_fail != 0u ? (uint32_t)FXDP_HEALTH_APT : (uint32_t)FXDP_HEALTH_OK;
}

static void zero_bytes(uint8_t *buf, size_t n)
{
    volatile uint8_t *p = buf;
    size_t i;

    for (i = 0; i < n; i++) {
        p[i] = 0u;
    }
}

int fxdp_health_fill(void *ctx, uint8_t *buf, size_t n)
{
    fxdp_health *h = (fxdp_health *)ctx;
    uint32_t verdict;

    if (h == NULL) {
        return 1;
    }
    if (h->failed != FXDP_HEALTH_OK || h->fill == NULL) {
        if (h->failed == FXDP_HEALTH_OK) {
            h->failed = FXDP_HEALTH_INIT;
        }
        if (buf != NULL) {
            zero_bytes(buf, n);
        }
        return 1;
    }
    if (buf == NULL) {
        h->failed = FXDP_HEALTH_BOARD;
        return 1;
    }
    if (n == 0u) {
        return 0;
    }
    zero_bytes(buf, n);      /* a board that "succeeds" without writing then serves a stuck 0 run */
    if (h->fill(h->fill_ctx, buf, n) != 0) {
        h->failed = FXDP_HEALTH_BOARD;
        zero_bytes(buf, n);
        return 1;
    }
    verdict = run_tests(h, buf, n);
    if (verdict != FXDP_HEALTH_OK) {
        h->failed = (uint8_t)verdict;
        zero_bytes(buf, n);
        return 1;
    }
    return 0;
}

fxdp_status fxdp_health_init(fxdp_health *h, fxdp_fill_fn fill, void *ctx, uint32_t h256, uint32_t apt_cutoff)
{
    uint8_t chunk[STARTUP_CHUNK];
    uint32_t done;
    int rc = 0;

    if (h == NULL) {
        return FXDP_ERR_PARAM;
    }
    h->fill = NULL;
    h->fill_ctx = NULL;
    h->rct_cutoff = 0u;
    h->apt_cutoff = 0u;
    h->rct_count = 0u;
    h->apt_count = 0u;
    h->apt_seen = 0u;
    h->rct_last = 0u;
    h->apt_first = 0u;
    h->failed = FXDP_HEALTH_INIT;
    if (fill == NULL || h256 < 1u || h256 > 2048u || apt_cutoff < 2u || apt_cutoff > APT_CUTOFF_MAX) {
        return FXDP_ERR_PARAM;
    }
    h->fill = fill;
    h->fill_ctx = ctx;
    h->rct_cutoff = (uint16_t)fxdp_health_rct_cutoff(h256);
    h->apt_cutoff = (uint16_t)apt_cutoff;
    h->failed = FXDP_HEALTH_OK;
    /* start-up test (SP 800-90B 4.3): FXDP_HEALTH_STARTUP bytes tested, then discarded */
    for (done = 0u; rc == 0 && done < FXDP_HEALTH_STARTUP; done += STARTUP_CHUNK) {
        rc = fxdp_health_fill(h, chunk, STARTUP_CHUNK);
    }
    zero_bytes(chunk, STARTUP_CHUNK);
    return rc == 0 ? FXDP_OK : FXDP_ERR_ENTROPY;
}
