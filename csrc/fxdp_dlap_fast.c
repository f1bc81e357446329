/*
 * fxdp_dlap_fast.c -- discrete_laplace_fast: the exact discrete Laplace of
 * fxdp.samplers.fast_laplace (the reference; its docstring has the proof),
 * exactly its bits:
 *
 *   loop: a = lazy inversion of U against the boundaries q^j = exp(-j s/t),
 *             j = 1..64, one bit at a time, with B_j = floor(2^64 q^j)
 *             (the caller's table): after d bits U is in [lo/2^d, (lo+1)/2^d);
 *             a grows while lo < B_(a+1) >> (64-d), b shrinks while
 *             lo > B_(b-1) >> (64-d); stop when a + 1 = b
 *         Y = a if a < 64, else 64 + (U' + t V) / s (CKS's geometric steps)
 *         sign = bit; if sign and Y == 0: continue
 *         return sign ? -Y : Y
 *
 * NOT constant time.  Table: 64 uint64 words (512 bytes), computed exactly on
 * the host (fast_laplace.boundary_table); it must be the table of (s, t).
 * A draw still undecided after 64 bits (probability below 2^-58) would need
 * digits past the table: the Python path computes them exactly; this portable
 * C has no big integers and returns FXDP_ERR_RANGE (bits read stay consumed).
 *
 * Eva: the four loops carry "loop unroll 0" (unrolling the 64-step bit loop
 * and its inner scans multiplied the states past the runner's 300 s); with
 * them the driver finishes in about 30 s with no alarm.
 */
#include "fxdp_internal.h"

#define DLAP_FAST_N 64u

static fxdp_status dlap_fast(fxdp_rng *r, const uint64_t *table, uint32_t s, uint32_t t, int64_t *out)
{
    fxdp_status st;
    uint32_t bit, a, b;
    unsigned d, sh;
    uint64_t lo, y = 0u;          /* set on every path; initialized for Eva (y is written through a pointer) */

    for (;;) {
        lo = 0u;
        a = 0u;
        b = DLAP_FAST_N + 1u;
        /*@ loop unroll 0; */
        for (d = 0u; a + 1u < b; ) {
            if (d == 64u) {
                return FXDP_ERR_RANGE;
            }
            st = fxdp_i_bit(r, &bit);
            if (st != FXDP_OK) {
                return st;
            }
            lo = (lo << 1) | bit;
            d += 1u;
            sh = 64u - d;
            /*@ loop unroll 0; */
            while (a < DLAP_FAST_N && lo < (table[a] >> sh)) {
                a += 1u;
            }
            /*@ loop unroll 0; */
            while (b > 1u && lo > (table[b - 2u] >> sh)) {
                b -= 1u;
            }
        }
        if (a < DLAP_FAST_N) {
            y = a;
        } else {
            st = fxdp_i_geometric_cks(r, s, t, &y);
            if (st != FXDP_OK) {
                return st;
            }
            if (y > (uint64_t)INT64_MAX - DLAP_FAST_N) {
                return FXDP_ERR_RANGE;
            }
            y += DLAP_FAST_N;
        }
        st = fxdp_i_bit(r, &bit);
        if (st != FXDP_OK) {
            return st;
        }
        if (bit != 0u && y == 0u) {
            continue;
        }
        *out = bit != 0u ? -(int64_t)y : (int64_t)y;
        return FXDP_OK;
    }
}

fxdp_status fxdp_discrete_laplace_fast(fxdp_rng *r, const uint64_t *table, uint32_t s, uint32_t t, int64_t *out)
{
    int64_t z;
    fxdp_status st;
    uint32_t j;

    if (r == NULL || table == NULL || out == NULL || s == 0u || t == 0u) {
        return FXDP_ERR_PARAM;
    }
    /*@ loop unroll 0; */
    for (j = 1u; j < DLAP_FAST_N; j++) {      /* boundaries never increase: q^j >= q^(j+1) */
        if (table[j] > table[j - 1u]) {
            return FXDP_ERR_PARAM;
        }
    }
    st = fxdp_i_ready(r);
    if (st == FXDP_OK) {
        st = dlap_fast(r, table, s, t, &z);
    }
    if (st == FXDP_OK) {
        *out = z;
    }
    return st;
}
