/* Eva drivers: the finite-precision Laplace section of csrc/fxdp.h (fixmath, 1-D and planar
 * fixed-point Laplace, exact-grid forms, exporter entry points); params structs arbitrary. */
#include "eva_common.h"

static fxdp_laplace_fixed_params lp;
static fxdp_planar_laplace_fixed_params pp;
static fxdp_laplace_grid_cfg gc;
static int64_t xin[2];
static int64_t xout[2];

void eva_ln_mantissa_q32(void) { (void)fxdp_ln_mantissa_q32(any_u32()); }

void eva_neglog_q26(void)
{
    uint32_t o;
    (void)fxdp_neglog_q26(any_u32(), any_unsigned(), EVA_OR_NULL(&o));
}

void eva_cordic_q30(void)
{
    int32_t c, s;
    fxdp_cordic_q30(any_u32(), EVA_OR_NULL(&c), EVA_OR_NULL(&s));
}

/*
 * Parts.  The params of the 1-D fixed-point Laplace are analysed in parts whose union is every
 * value (so nothing is assumed): the method 0, 1 or any other value, times the bits per uniform
 * draw k each of 1..32 on its own, 0, or any value above 32 (the other fields stay arbitrary).
 * With k one constant, Eva relates the draw w < 2^k to k (fxdp_neglog_q26 then writes its
 * output), and with the method one constant that method's shift checks hold where the shifts
 * are done.  m and k index the parts (Eva's split annotation keeps each part a separate state).
 */
static void lf_part(uint32_t m, uint32_t k)
{
    lp.method = m < 2u ? m : Frama_C_unsigned_int_interval(2u, UINT32_MAX);
    lp.uniform_bits = k == 0u ? 0u : k <= 32u ? k : Frama_C_unsigned_int_interval(33u, UINT32_MAX);
}

void eva_laplace_fixed_noise(void)
{
    int64_t n;
    uint32_t m = Frama_C_unsigned_int_interval(0u, 2u), k = Frama_C_unsigned_int_interval(0u, 33u);
    /*@ split m; */
    /*@ split k; */
    eva_unknown(&lp, sizeof lp);
    lf_part(m, k);
    (void)fxdp_laplace_fixed_noise(eva_rng_or_null(), EVA_OR_NULL(&lp), EVA_OR_NULL(&n));
}

void eva_laplace_fixed(void)
{
    int64_t o;
    uint8_t e;
    uint32_t m = Frama_C_unsigned_int_interval(0u, 2u), k = Frama_C_unsigned_int_interval(0u, 33u);
    /*@ split m; */
    /*@ split k; */
    eva_unknown(&lp, sizeof lp);
    lf_part(m, k);
    (void)fxdp_laplace_fixed(eva_rng_or_null(), EVA_OR_NULL(&lp), any_i64(), EVA_OR_NULL(&o), EVA_OR_NULL(&e));
}

void eva_planar_laplace_fixed_noise(void)
{
    int64_t dx, dy;
    eva_unknown(&pp, sizeof pp);
    (void)fxdp_planar_laplace_fixed_noise(eva_rng_or_null(), EVA_OR_NULL(&pp), EVA_OR_NULL(&dx), EVA_OR_NULL(&dy));
}

void eva_planar_laplace_fixed(void)
{
    int64_t ox, oy;
    uint8_t e;
    eva_unknown(&pp, sizeof pp);
    (void)fxdp_planar_laplace_fixed(eva_rng_or_null(), EVA_OR_NULL(&pp), any_i64(), any_i64(), EVA_OR_NULL(&ox),
                                    EVA_OR_NULL(&oy), EVA_OR_NULL(&e));
}

void eva_laplace_grid(void)
{
    int64_t o;
    (void)fxdp_laplace_grid(eva_rng_or_null(), any_u32(), any_u32(), any_i64(), any_i64(), any_i64(), any_i64(),
                            EVA_OR_NULL(&o));
}

void eva_planar_laplace_grid(void)
{
    int64_t ox, oy;
    (void)fxdp_planar_laplace_grid(eva_rng_or_null(), any_u32(), any_u32(), any_i64(), any_i64(), any_i64(),
                                   any_i64(), any_i64(), EVA_OR_NULL(&ox), EVA_OR_NULL(&oy));
}

void eva_laplace_fixed_release(void)
{
    uint32_t m = Frama_C_unsigned_int_interval(0u, 2u), k = Frama_C_unsigned_int_interval(0u, 33u);
    /*@ split m; */
    /*@ split k; */
    eva_unknown(&lp, sizeof lp);
    lf_part(m, k);
    eva_unknown(xin, sizeof xin);
    (void)fxdp_laplace_fixed_release(eva_rng_or_null(), EVA_OR_NULL(&lp), EVA_OR_NULL(xin), EVA_OR_NULL(xout));
}

void eva_planar_laplace_fixed_release(void)
{
    eva_unknown(&pp, sizeof pp);
    eva_unknown(xin, sizeof xin);
    (void)fxdp_planar_laplace_fixed_release(eva_rng_or_null(), EVA_OR_NULL(&pp), EVA_OR_NULL(xin),
                                            EVA_OR_NULL(xout));
}

void eva_laplace_grid_release(void)
{
    eva_unknown(&gc, sizeof gc);
    eva_unknown(xin, sizeof xin);
    (void)fxdp_laplace_grid_release(eva_rng_or_null(), EVA_OR_NULL(&gc), EVA_OR_NULL(xin), EVA_OR_NULL(xout));
}

void eva_planar_laplace_grid_release(void)
{
    eva_unknown(&gc, sizeof gc);
    eva_unknown(xin, sizeof xin);
    (void)fxdp_planar_laplace_grid_release(eva_rng_or_null(), EVA_OR_NULL(&gc), EVA_OR_NULL(xin),
                                           EVA_OR_NULL(xout));
}
