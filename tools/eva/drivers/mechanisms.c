/* Eva drivers: the layer 4 mechanisms of csrc/fxdp.h whose cfg needs more than arbitrary fields
 * (a table pointer; parts); the others are generated (generated.c, tools/gen_c_glue.py).  Every
 * cfg field is arbitrary (pointer fields valid or NULL); input and output buffers are the largest any valid cfg needs (x and out have
 * the count the contract gives for every cfg that passes the checks, so an access beyond them
 * would be a read or write before the parameter check). */
#include "eva_common.h"

/* rr: t - 1 thresholds with t <= 2^(k-1) <= 2^31; geometric: 2 width <= 65534.  The fuzz build
 * (tools/fuzz) has no 8 GiB: its table is smaller and any_rr_cfg clamps t to fit it. */
#ifdef FXDP_FUZZ
#define RR_TABLE_ENTRIES (1u << 16)
#else
#define RR_TABLE_ENTRIES 0x80000000u
#endif
static uint32_t rr_table[RR_TABLE_ENTRIES];
static uint32_t geo_table[1u << 16];

static fxdp_rr_cfg rc;
static fxdp_geometric_cfg gc;
static fxdp_numeric_multidim_cfg mdc;

static uint32_t x32, o32;
static int64_t x64[FXDP_GEOMETRIC_MAX_N], o64[FXDP_GEOMETRIC_MAX_N];
static uint32_t md_x[FXDP_NUMERIC_MULTIDIM_MAX_D], md_out[2u * FXDP_NUMERIC_MULTIDIM_MAX_K];   /* d <= FXDP_NUMERIC_MULTIDIM_MAX_D, 2k outputs */

static void any_rr_cfg(void)
{
    eva_unknown(&rc, sizeof rc);
    eva_unknown(rr_table, sizeof rr_table);
    rc.thresholds = EVA_OR_NULL(rr_table);
#ifdef FXDP_FUZZ
    /* the contract: thresholds holds t - 1 entries for every valid t (<= 2^31); above that t is
     * invalid whatever the table, and stays so */
    if (rc.t > RR_TABLE_ENTRIES + 1u && rc.t <= 0x80000000u) {
        rc.t = RR_TABLE_ENTRIES + 1u;
    }
#endif
    x32 = any_u32();
}

void eva_rr(void)
{
    any_rr_cfg();
    (void)fxdp_rr(eva_rng_or_null(), EVA_OR_NULL(&rc), EVA_OR_NULL(&x32), EVA_OR_NULL(&o32));
}

void eva_rr_ct(void)
{
    any_rr_cfg();
    (void)fxdp_rr_ct(eva_rng_or_null(), EVA_OR_NULL(&rc), EVA_OR_NULL(&x32), EVA_OR_NULL(&o32));
}

static void any_geo_cfg(void)
{
    eva_unknown(&gc, sizeof gc);
    eva_unknown(geo_table, sizeof geo_table);
    gc.thresholds = EVA_OR_NULL(geo_table);
    eva_unknown(x64, sizeof x64);
#ifdef FXDP_FUZZ
    /* the fuzz build: a valid width of more than 2^10 becomes 2^10.  The constant-time forms scan
     * the whole table on each of n <= 16 draws; one corpus that found wide tables took 261 CPU s for
     * geometric_ct_rom's 10^6 executions (2026-12-07), against 9-12 s for the other forms.  A wider
     * table runs the same code with longer loops (Eva analyses every width). */
    if (gc.width > 1024u && gc.width <= 32767u) {
        gc.width = 1024u;
    }
#endif
}

void eva_geometric(void)
{
    any_geo_cfg();
    (void)fxdp_geometric(eva_rng_or_null(), EVA_OR_NULL(&gc), EVA_OR_NULL(x64), EVA_OR_NULL(o64));
}

void eva_geometric_ct(void)
{
    any_geo_cfg();
    (void)fxdp_geometric_ct(eva_rng_or_null(), EVA_OR_NULL(&gc), EVA_OR_NULL(x64), EVA_OR_NULL(o64));
}

void eva_geometric_ct_rom(void)
{
    any_geo_cfg();
    (void)fxdp_geometric_ct_rom(eva_rng_or_null(), EVA_OR_NULL(&gc), EVA_OR_NULL(x64), EVA_OR_NULL(o64));
}

/*
 * Parts.  The multi-dimensional cfg is analysed in parts whose union is every value (the other
 * fields stay arbitrary), so nothing is assumed: its base 0 (Duchi), 1 (Piecewise), 2 (Hybrid) or
 * any other value, times k each of 1..FXDP_NUMERIC_MULTIDIM_MAX_K, 0, or any value above.  md_check validates
 * only the part of cfg->hm that the base selects; with the base one constant, that validation is
 * still known where md_report runs the same base (in one joined state, the fields a base did not
 * check are arbitrary and the other bases' shifts raise alarms).  With k one constant, the check
 * k <= d bounds Floyd's j = d - k + n < d <= FXDP_NUMERIC_MULTIDIM_MAX_D (non-relational, d - k could wrap),
 * hence every sampled attribute, which indexes x.
 */
static void md_part(uint8_t b, uint32_t k)
{
    eva_unknown(&mdc, sizeof mdc);
    mdc.base = b < 3u ? b : Frama_C_unsigned_char_interval(3u, UINT8_MAX);
    mdc.k = k == 0u ? 0u : k <= FXDP_NUMERIC_MULTIDIM_MAX_K ? k : Frama_C_unsigned_int_interval(FXDP_NUMERIC_MULTIDIM_MAX_K + 1u, UINT32_MAX);
}

void eva_numeric_multidim(void)
{
    uint8_t b = Frama_C_unsigned_char_interval(0u, 3u);
    uint32_t k = Frama_C_unsigned_int_interval(0u, FXDP_NUMERIC_MULTIDIM_MAX_K + 1u);
    /*@ split b; */
    /*@ split k; */
    md_part(b, k);
    eva_unknown(md_x, sizeof md_x);
    (void)fxdp_numeric_multidim(eva_rng_or_null(), EVA_OR_NULL(&mdc), EVA_OR_NULL(md_x), EVA_OR_NULL(md_out));
}

void eva_numeric_multidim_ct(void)
{
    uint8_t b = Frama_C_unsigned_char_interval(0u, 3u);
    uint32_t k = Frama_C_unsigned_int_interval(0u, FXDP_NUMERIC_MULTIDIM_MAX_K + 1u);
    /*@ split b; */
    /*@ split k; */
    md_part(b, k);
    eva_unknown(md_x, sizeof md_x);
    (void)fxdp_numeric_multidim_ct(eva_rng_or_null(), EVA_OR_NULL(&mdc), EVA_OR_NULL(md_x), EVA_OR_NULL(md_out));
}
