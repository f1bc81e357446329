/*
 * fxdp_mech_geometric.c -- the geometric mechanism (seed 004): two-sided
 * geometric (discrete Laplace) noise saturating at [lo, hi], on cfg->n
 * values per release (n = 1: scalar, absolute metric; n > 1: vector, L1).
 *
 * Definition and bit use: fxdp/mechanisms/geometric.py (Geometric.release_one
 * per value, values in order); the Numba twin is fxdp/mechanisms/_kernels_mech.py.
 *   lazy:          y = clamp(x + discrete_laplace(s, t), lo, hi), computed
 *                  without overflow (CKS 2020, exact; not constant time);
 *   constant time: xc = clamp(x, lo, hi); J = table_sample_ct(thresholds,
 *                  2 width, k) - width; y = clamp(xc + J, lo, hi), with
 *                  branch-free clamps: the same instructions, memory reads
 *                  and bits (exactly k per value) for every input and draw.
 *
 * All or nothing: the n outputs are built in a stack buffer
 * (FXDP_GEOMETRIC_MAX_N values) and copied to out only after the last draw
 * succeeded; the buffer is wiped before returning.
 */
#include "fxdp_internal.h"

#define SIGN64 UINT64_C(0x8000000000000000)

/* ---- branch-free int64 helpers (two's complement targets) ---------------- */

static uint64_t ct_lt_i64(int64_t a, int64_t b)       /* a < b ? 1 : 0 */
{
    return fxdp_i_ct_lt64((uint64_t)a ^ SIGN64, (uint64_t)b ^ SIGN64);
}

static int64_t ct_sel_i64(uint64_t c, int64_t a, int64_t b)   /* c ? a : b, c in {0, 1} */
{
    uint64_t m = 0u - c;
    return (int64_t)(((uint64_t)a & m) | ((uint64_t)b & ~m));
}

static int64_t ct_clamp_i64(int64_t v, int64_t lo, int64_t hi)
{
    v = ct_sel_i64(ct_lt_i64(v, lo), lo, v);
    return ct_sel_i64(ct_lt_i64(hi, v), hi, v);
}

/* ---- one value -------------------------------------------------------------- */

static fxdp_status geo_lazy_one(fxdp_rng *r, const fxdp_geometric_cfg *cfg, int64_t x, int64_t *y)
{
    int64_t z;
    fxdp_status st = fxdp_i_discrete_laplace(r, cfg->s, cfg->t, &z);

    if (st != FXDP_OK) {
        return st;
    }
    /* clamp(x + z, lo, hi) without overflow: an overflowing sum is beyond the int64 bounds */
    if (z > 0 && x > INT64_MAX - z) {
        *y = cfg->hi;
    } else if (z < 0 && x < INT64_MIN - z) {
        *y = cfg->lo;
    } else {
        int64_t v = x + z;
        *y = v < cfg->lo ? cfg->lo : v > cfg->hi ? cfg->hi : v;
    }
    return FXDP_OK;
}

static fxdp_status geo_ct_one(fxdp_rng *r, const fxdp_geometric_cfg *cfg, int64_t x, int64_t *y)
{
    uint32_t idx;
    int64_t xc = ct_clamp_i64(x, cfg->lo, cfg->hi);
    fxdp_status st = fxdp_i_table_sample_ct(r, cfg->thresholds, 2u * cfg->width, cfg->k, &idx);

    if (st != FXDP_OK) {
        return st;
    }
    /* |xc| <= 2^31, |J| <= width < 2^15: no overflow */
    *y = ct_clamp_i64(xc + ((int64_t)idx - (int64_t)cfg->width), cfg->lo, cfg->hi);
    return FXDP_OK;
}

/* ---- release ------------------------------------------------------------------ */

static fxdp_status geo_check(const fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x,
                             const int64_t *out, int ct)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->n < 1u || cfg->n > FXDP_GEOMETRIC_MAX_N || cfg->lo > cfg->hi) {
        return FXDP_ERR_PARAM;
    }
    if (ct) {
        /* the proved table: bounds within int32, 2 width + 1 <= 2^16 entries, k in 1..32 */
        if (cfg->k < 1u || cfg->k > 32u || cfg->width < 1u || cfg->width > 32767u || cfg->thresholds == NULL ||
            cfg->lo < -INT64_C(2147483648) || cfg->hi > INT64_C(2147483647) ||
            (uint64_t)cfg->thresholds[2u * cfg->width - 1u] >= (UINT64_C(1) << cfg->k)) {
            return FXDP_ERR_PARAM;
        }
    } else if (cfg->s == 0u || cfg->t == 0u) {
        return FXDP_ERR_PARAM;      /* scale 0 (no noise) is not a device mechanism */
    }
    return fxdp_i_ready(r);
}

/* Publish y[0..n) to out only if every draw succeeded (st == FXDP_OK), then wipe y.
 * Each entry point runs its own loop, so the constant-time form references only
 * the table sampler and the lazy form only the CKS sampler (no dead code linked). */
static fxdp_status geo_finish(const fxdp_geometric_cfg *cfg, int64_t *y, int64_t *out, fxdp_status st)
{
    volatile int64_t *vy = y;
    uint32_t i;

    if (st == FXDP_OK) {
        for (i = 0; i < cfg->n; i++) {
            out[i] = vy[i];
        }
    }
    for (i = 0; i < cfg->n; i++) {
        vy[i] = 0;
    }
    return st;
}

fxdp_status fxdp_geometric(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out)
{
    int64_t y[FXDP_GEOMETRIC_MAX_N];
    uint32_t i;
    fxdp_status st = geo_check(r, cfg, x, out, 0);

    if (st != FXDP_OK) {
        return st;
    }
    for (i = 0; i < cfg->n; i++) {
        st = geo_lazy_one(r, cfg, x[i], &y[i]);
        if (st != FXDP_OK) {
            break;
        }
    }
    return geo_finish(cfg, y, out, st);
}

fxdp_status fxdp_geometric_ct(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out)
{
    int64_t y[FXDP_GEOMETRIC_MAX_N];
    uint32_t i;
    fxdp_status st = geo_check(r, cfg, x, out, 1);

    if (st != FXDP_OK) {
        return st;
    }
    for (i = 0; i < cfg->n; i++) {
        st = geo_ct_one(r, cfg, x[i], &y[i]);
        if (st != FXDP_OK) {
            break;
        }
    }
    return geo_finish(cfg, y, out, st);
}
