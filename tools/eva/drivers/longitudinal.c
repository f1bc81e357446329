/* Eva drivers: the longitudinal frequency oracles of csrc/fxdp.h (fxdp_mech_longitudinal.c).  cfg, device
 * and input arbitrary; out the largest any valid cfg needs (GRR: one item, UE: FXDP_LONGITUDINAL_UE_MAX_D). */
#include "eva_common.h"

static fxdp_longitudinal_grr_cfg lg;
static fxdp_longitudinal_ue_cfg lu;
static fxdp_longitudinal_device ldev;
static uint32_t lx, ly;
static uint8_t lue_out[FXDP_LONGITUDINAL_UE_MAX_D];
static fxdp_lgrr_work lgw;                /* the _w forms' workspaces: static, any prior contents */
static fxdp_lue_work luw;

static void any_long(void)
{
    eva_unknown(&lg, sizeof lg);
    eva_unknown(&lu, sizeof lu);
    eva_unknown(&ldev, sizeof ldev);
    eva_unknown(&lx, sizeof lx);
}

void eva_longitudinal_provision(void)
{
    (void)fxdp_longitudinal_provision(eva_rng_or_null(), EVA_OR_NULL(&ldev));
}

void eva_longitudinal_grr_report(void)
{
    any_long();
    (void)fxdp_longitudinal_grr_report(EVA_OR_NULL(&lg), EVA_OR_NULL(&ldev), eva_rng_or_null(), EVA_OR_NULL(&lx),
                                       EVA_OR_NULL(&ly));
}

void eva_longitudinal_grr_report_ct(void)
{
    any_long();
    (void)fxdp_longitudinal_grr_report_ct(EVA_OR_NULL(&lg), EVA_OR_NULL(&ldev), eva_rng_or_null(),
                                          EVA_OR_NULL(&lx), EVA_OR_NULL(&ly));
}

void eva_longitudinal_grr(void)
{
    any_long();
    (void)fxdp_longitudinal_grr(eva_rng_or_null(), EVA_OR_NULL(&lg), EVA_OR_NULL(&lx), EVA_OR_NULL(&ly));
}

void eva_longitudinal_grr_ct(void)
{
    any_long();
    (void)fxdp_longitudinal_grr_ct(eva_rng_or_null(), EVA_OR_NULL(&lg), EVA_OR_NULL(&lx), EVA_OR_NULL(&ly));
}

void eva_longitudinal_ue_report(void)
{
    any_long();
    (void)fxdp_longitudinal_ue_report(EVA_OR_NULL(&lu), EVA_OR_NULL(&ldev), eva_rng_or_null(), EVA_OR_NULL(&lx),
                                      EVA_OR_NULL(lue_out));
}

void eva_longitudinal_ue_report_ct(void)
{
    any_long();
    (void)fxdp_longitudinal_ue_report_ct(EVA_OR_NULL(&lu), EVA_OR_NULL(&ldev), eva_rng_or_null(),
                                         EVA_OR_NULL(&lx), EVA_OR_NULL(lue_out));
}

void eva_longitudinal_ue(void)
{
    any_long();
    (void)fxdp_longitudinal_ue(eva_rng_or_null(), EVA_OR_NULL(&lu), EVA_OR_NULL(&lx), EVA_OR_NULL(lue_out));
}

void eva_longitudinal_ue_ct(void)
{
    any_long();
    (void)fxdp_longitudinal_ue_ct(eva_rng_or_null(), EVA_OR_NULL(&lu), EVA_OR_NULL(&lx), EVA_OR_NULL(lue_out));
}

void eva_longitudinal_grr_w(void)
{
    any_long();
    eva_unknown(&lgw, sizeof lgw);
    (void)fxdp_longitudinal_grr_w(eva_rng_or_null(), EVA_OR_NULL(&lg), EVA_OR_NULL(&lx), EVA_OR_NULL(&ly),
                                  EVA_OR_NULL(&lgw));
}

void eva_longitudinal_grr_ct_w(void)
{
    any_long();
    eva_unknown(&lgw, sizeof lgw);
    (void)fxdp_longitudinal_grr_ct_w(eva_rng_or_null(), EVA_OR_NULL(&lg), EVA_OR_NULL(&lx), EVA_OR_NULL(&ly),
                                     EVA_OR_NULL(&lgw));
}

void eva_longitudinal_ue_w(void)
{
    any_long();
    eva_unknown(&luw, sizeof luw);
    (void)fxdp_longitudinal_ue_w(eva_rng_or_null(), EVA_OR_NULL(&lu), EVA_OR_NULL(&lx), EVA_OR_NULL(lue_out),
                                 EVA_OR_NULL(&luw));
}

void eva_longitudinal_ue_ct_w(void)
{
    any_long();
    eva_unknown(&luw, sizeof luw);
    (void)fxdp_longitudinal_ue_ct_w(eva_rng_or_null(), EVA_OR_NULL(&lu), EVA_OR_NULL(&lx), EVA_OR_NULL(lue_out),
                                    EVA_OR_NULL(&luw));
}
