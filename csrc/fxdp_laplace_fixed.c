/*
 * fxdp_laplace_fixed.c -- finite-precision Laplace mechanisms after Gazeau,
 * Miller and Palamidessi (2013), and their exact-grid alternatives (layer 4).
 *
 * Python twins: fxdp/mechanisms/finite/laplace.py (reference, the definition) and
 * fxdp/mechanisms/finite/_kernels_laplace.py (Numba).  Same bits, same integers:
 *
 *   1-D:    j = bits(k); sign = top bit (0: negative); i = low k-1 bits;
 *           w = 2i+1 (negative) or 2^k-1-2i (positive);
 *           mag = min(cap, round(B * neglog(w, k) / 2^shift))            method 0
 *               = min(cap, round(neglog(w, k) / 2^shift) << n)           method 1 (naive)
 *           y = clamp(x, lo, hi) +- mag; g = step * floor((y + step/2) / step);
 *           g outside [lo, hi]: exception (truncation 0) or lo / hi (truncation 1).
 *   planar: ja = bits(ka), i1 = bits(kr), i2 = bits(kr);
 *           (c, s) = cordic(((2 ja + 1) << (31 - ka)));
 *           r = min(cap, round(B (neglog(2 i1 + 1, kr + 1) + neglog(2 i2 + 1, kr + 1)) / 2^shift));
 *           dx = round(r c / 2^30), dy = round(r s / 2^30); both coordinates snapped;
 *           outside [lo, hi]^2: exception.
 *   cap = 2 (hi - lo + step).
 *   grid:   xg = floor((clamp(x) + step/2) / step); z = discrete_laplace_censored(s, t,
 *           lo/step - xg, hi/step - xg); out = (xg + z) step  (planar: x then y).
 *
 * Every function validates its parameters first (FXDP_ERR_PARAM: nothing
 * drawn), fails with FXDP_ERR_ENTROPY on a failed rng, and writes its outputs
 * only on FXDP_OK.  The ranges checked below keep every intermediate inside
 * int64 / uint64: no undefined behaviour for any input.
 */
#include "fxdp.h"
#include "fxdp_internal.h"

#define FXDP_LF_RAW_LIMIT (INT64_C(1) << 61)

static int64_t fxdp_lf_asr64(int64_t v, unsigned s)
{
    if (v >= 0) {
        return v >> s;
    }
    return ~((~v) >> s);
}

/* The int64_t whose two's-complement bit pattern is u (no implementation-defined conversion;
 * as fxdp__s64 of fxdp_fixed.c; gcc compiles it to nothing). */
static int64_t fxdp_lf_s64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX) {
        return (int64_t)u;
    }
    return (int64_t)(u - UINT64_C(0x8000000000000000)) + INT64_MIN;
}

static int64_t fxdp_lf_floordiv(int64_t a, int64_t b)      /* b > 0 */
{
    int64_t q = a / b;
    if ((a % b) != 0 && a < 0) {
        q -= 1;
    }
    return q;
}

static uint64_t fxdp_lf_rsr(uint64_t v, unsigned s)          /* round(v / 2^s), ties up */
{
    if (s == 0u) {
        return v;
    }
    return ((v >> (s - 1u)) + 1u) >> 1;
}

/* step * floor((y + step/2) / step), as a - (a mod step) (floored mod, in [0, step)): the same
 * value as the product, but every term is bounded by an operand, so no product of two ranges has
 * to be ruled out (Eva proves it in range: |y| < 2^62, step < 2^61). */
static int64_t fxdp_lf_snap(int64_t y, int64_t step)
{
    int64_t a = y + step / 2;
    int64_t m = a % step;

    if (m < 0) {
        m += step;
    }
    return a - m;
}

static int fxdp_lf_box_ok(int64_t lo, int64_t hi, int64_t step)
{
    if (step < 1 || lo >= hi || lo < -FXDP_LF_RAW_LIMIT || hi > FXDP_LF_RAW_LIMIT) {
        return 0;
    }
    if (lo % step != 0 || hi % step != 0) {
        return 0;
    }
    if (step >= FXDP_LF_RAW_LIMIT || hi - lo >= (INT64_C(1) << 60) - step) {
        return 0;
    }
    return 1;
}

static int64_t fxdp_lf_clamp(int64_t x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

static int fxdp_lf_params_ok(const fxdp_laplace_fixed_params *p)
{
    if (p->uniform_bits < 1u || p->uniform_bits > 32u || p->truncation > 1u) {
        return 0;
    }
    if (p->method == 0u) {
        if (p->shift < 1u || p->shift > 62u) {
            return 0;
        }
    } else if (p->method == 1u) {
        if (p->shift > 26u || p->scale_shift > 30u) {
            return 0;
        }
    } else {
        return 0;
    }
    return fxdp_lf_box_ok(p->lo, p->hi, p->step);
}

fxdp_status fxdp_laplace_fixed_noise(fxdp_rng *r, const fxdp_laplace_fixed_params *p, int64_t *noise)
{
    uint32_t j, i, w, lam;
    unsigned k;
    uint64_t mag, cap;
    int neg;
    fxdp_status st;

    if (r == NULL || p == NULL || noise == NULL || !fxdp_lf_params_ok(p)) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    k = (unsigned)p->uniform_bits;                 /* validated: 1..32 */
    if (fxdp_i_bits(r, k, &j) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    i = j & ((k == 32u ? UINT32_C(0x7FFFFFFF) : ((UINT32_C(1) << (k - 1u)) - 1u)));
    neg = ((j >> (k - 1u)) & 1u) == 0u;
    if (neg) {
        w = 2u * i + 1u;
    } else {
        w = (UINT32_C(0xFFFFFFFF) >> (32u - k)) - 2u * i;
    }
    (void)fxdp_neglog_q26(w, k, &lam);
    if (p->method == 1u) {
        mag = fxdp_lf_rsr(lam, (unsigned)p->shift) << (unsigned)p->scale_shift;
    } else {
        mag = fxdp_lf_rsr((uint64_t)p->scale_num * lam, (unsigned)p->shift);
    }
    cap = 2u * (uint64_t)(p->hi - p->lo + p->step);   /* < 2^61 (fxdp_lf_box_ok); unsigned: no
                                                         overflow for Eva to rule out */
    if (cap > (uint64_t)FXDP_LF_RAW_LIMIT) {
        cap = (uint64_t)FXDP_LF_RAW_LIMIT;   /* never taken (hi - lo + step < 2^60): states the bound
                                                that the box check implies, which Eva cannot relate */
    }
    if (mag > cap) {
        mag = cap;
    }
    *noise = neg ? -(int64_t)mag : (int64_t)mag;
    return FXDP_OK;
}

fxdp_status fxdp_laplace_fixed(fxdp_rng *r, const fxdp_laplace_fixed_params *p, int64_t x,
                               int64_t *out, uint8_t *exception)
{
    int64_t noise, g;
    fxdp_status st;

    if (out == NULL || exception == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_laplace_fixed_noise(r, p, &noise);
    if (st != FXDP_OK) {
        return st;
    }
    g = fxdp_lf_snap(fxdp_lf_clamp(x, p->lo, p->hi) + noise, p->step);
    if (g < p->lo || g > p->hi) {
        if (p->truncation == 1u) {
            *out = g < p->lo ? p->lo : p->hi;
            *exception = 0u;
        } else {
            *out = 0;
            *exception = 1u;
        }
        return FXDP_OK;
    }
    *out = g;
    *exception = 0u;
    return FXDP_OK;
}

static int fxdp_plf_params_ok(const fxdp_planar_laplace_fixed_params *p)
{
    if (p->angle_bits < 2u || p->angle_bits > 31u || p->radius_bits < 1u || p->radius_bits > 31u) {
        return 0;
    }
    if (p->shift < 1u || p->shift > 62u) {
        return 0;
    }
    if (!fxdp_lf_box_ok(p->lo, p->hi, p->step)) {
        return 0;
    }
    return p->hi - p->lo + p->step < (INT64_C(1) << 31);   /* cap = 2 (hi - lo + step) < 2^32 */
}

fxdp_status fxdp_planar_laplace_fixed_noise(fxdp_rng *r, const fxdp_planar_laplace_fixed_params *p,
                                            int64_t *dx, int64_t *dy)
{
    uint32_t ja, i1, i2, l1, l2, a, cap;
    int32_t c, s;
    uint64_t rad;
    unsigned n;
    fxdp_status st;

    if (r == NULL || p == NULL || dx == NULL || dy == NULL || !fxdp_plf_params_ok(p)) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_i_ready(r);
    if (st != FXDP_OK) {
        return st;
    }
    if (fxdp_i_bits(r, (unsigned)p->angle_bits, &ja) != FXDP_OK
        || fxdp_i_bits(r, (unsigned)p->radius_bits, &i1) != FXDP_OK
        || fxdp_i_bits(r, (unsigned)p->radius_bits, &i2) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    a = (2u * ja + 1u) << (31u - (unsigned)p->angle_bits);
    fxdp_cordic_q30(a, &c, &s);
    n = (unsigned)p->radius_bits + 1u;
    /* 2 i + 1 < 2^n since i < 2^radius_bits; only an rng state that breaks the bit reader's
     * invariant (bitbuf >= 2^bitcount) could give more: refused, nothing written */
    if (fxdp_neglog_q26(2u * i1 + 1u, n, &l1) != FXDP_OK || fxdp_neglog_q26(2u * i2 + 1u, n, &l2) != FXDP_OK) {
        return FXDP_ERR_PARAM;
    }
    rad = fxdp_lf_rsr((uint64_t)p->scale_num * ((uint64_t)l1 + l2), (unsigned)p->shift);
    cap = (uint32_t)(2u * (uint64_t)(p->hi - p->lo + p->step));   /* < 2^32 (fxdp_plf_params_ok) */
    if (rad > cap) {
        rad = cap;
    }
    *dx = fxdp_lf_asr64((int64_t)rad * c + (INT64_C(1) << 29), 30);
    *dy = fxdp_lf_asr64((int64_t)rad * s + (INT64_C(1) << 29), 30);
    return FXDP_OK;
}

fxdp_status fxdp_planar_laplace_fixed(fxdp_rng *r, const fxdp_planar_laplace_fixed_params *p,
                                      int64_t x, int64_t y, int64_t *out_x, int64_t *out_y,
                                      uint8_t *exception)
{
    int64_t dx, dy, gx, gy;
    fxdp_status st;

    if (out_x == NULL || out_y == NULL || exception == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_planar_laplace_fixed_noise(r, p, &dx, &dy);
    if (st != FXDP_OK) {
        return st;
    }
    gx = fxdp_lf_snap(fxdp_lf_clamp(x, p->lo, p->hi) + dx, p->step);
    gy = fxdp_lf_snap(fxdp_lf_clamp(y, p->lo, p->hi) + dy, p->step);
    if (gx < p->lo || gx > p->hi || gy < p->lo || gy > p->hi) {
        *out_x = 0;
        *out_y = 0;
        *exception = 1u;
        return FXDP_OK;
    }
    *out_x = gx;
    *out_y = gy;
    *exception = 0u;
    return FXDP_OK;
}

static fxdp_status fxdp_lg_one(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi, int64_t step,
                               int64_t x, int64_t *out)
{
    int64_t xg = fxdp_lf_floordiv(fxdp_lf_clamp(x, lo, hi) + step / 2, step);
    int64_t z;
    fxdp_status st = fxdp_discrete_laplace_censored(r, s, t, lo / step - xg, hi / step - xg, &z);
    if (st != FXDP_OK) {
        return st;
    }
    /* xg + z is in [lo/step, hi/step] (the censored draw's range), so the product is in [lo, hi];
     * computed unsigned (wrapping is defined) because that bound is a product of two ranges, beyond
     * Eva's intervals: for every valid call the value is the exact signed product */
    *out = fxdp_lf_s64((uint64_t)(xg + z) * (uint64_t)step);
    return FXDP_OK;
}

fxdp_status fxdp_laplace_grid(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi, int64_t step,
                              int64_t x, int64_t *out)
{
    if (r == NULL || out == NULL || s == 0u || t == 0u || !fxdp_lf_box_ok(lo, hi, step)) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_lg_one(r, s, t, lo, hi, step, x, out);
}

fxdp_status fxdp_planar_laplace_grid(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                     int64_t step, int64_t x, int64_t y, int64_t *out_x, int64_t *out_y)
{
    int64_t a, b;
    fxdp_status st;

    if (r == NULL || out_x == NULL || out_y == NULL || s == 0u || t == 0u || !fxdp_lf_box_ok(lo, hi, step)) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_lg_one(r, s, t, lo, hi, step, x, &a);
    if (st != FXDP_OK) {
        return st;
    }
    st = fxdp_lg_one(r, s, t, lo, hi, step, y, &b);
    if (st != FXDP_OK) {
        return st;
    }
    *out_x = a;
    *out_y = b;
    return FXDP_OK;
}

/* ---- exporter entry points: fxdp_status fn(fxdp_rng *, const CFG *, const int64_t *x, int64_t *out),
 * the exception value written as INT64_MIN (EXCEPTION_RAW of fxdp/mechanisms/finite/laplace.py). */

#define FXDP_LF_EXCEPTION_RAW (-INT64_C(9223372036854775807) - 1)

fxdp_status fxdp_laplace_fixed_release(fxdp_rng *r, const fxdp_laplace_fixed_params *cfg, const int64_t *x,
                                       int64_t *out)
{
    int64_t v;
    uint8_t exc;
    fxdp_status st;

    if (x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_laplace_fixed(r, cfg, x[0], &v, &exc);
    if (st != FXDP_OK) {
        return st;
    }
    out[0] = exc != 0u ? FXDP_LF_EXCEPTION_RAW : v;
    return FXDP_OK;
}

fxdp_status fxdp_planar_laplace_fixed_release(fxdp_rng *r, const fxdp_planar_laplace_fixed_params *cfg,
                                              const int64_t *x, int64_t *out)
{
    int64_t a, b;
    uint8_t exc;
    fxdp_status st;

    if (x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    st = fxdp_planar_laplace_fixed(r, cfg, x[0], x[1], &a, &b, &exc);
    if (st != FXDP_OK) {
        return st;
    }
    out[0] = exc != 0u ? FXDP_LF_EXCEPTION_RAW : a;
    out[1] = exc != 0u ? FXDP_LF_EXCEPTION_RAW : b;
    return FXDP_OK;
}

fxdp_status fxdp_laplace_grid_release(fxdp_rng *r, const fxdp_laplace_grid_cfg *cfg, const int64_t *x,
                                      int64_t *out)
{
    if (cfg == NULL || x == NULL) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_laplace_grid(r, cfg->s, cfg->t, cfg->lo, cfg->hi, cfg->step, x[0], out);
}

fxdp_status fxdp_planar_laplace_grid_release(fxdp_rng *r, const fxdp_laplace_grid_cfg *cfg, const int64_t *x,
                                             int64_t *out)
{
    if (cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_planar_laplace_grid(r, cfg->s, cfg->t, cfg->lo, cfg->hi, cfg->step, x[0], x[1], &out[0],
                                    &out[1]);
}
