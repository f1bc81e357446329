/* Eva drivers: dBitFlip of csrc/fxdp.h (fxdp_mech_dbitflip.c).  cfg, device and input arbitrary; out the
 * largest any valid cfg needs (2 * FXDP_DBITFLIP_MAX_S words). */
#include "eva_common.h"

static fxdp_dbitflip_cfg dc;
static fxdp_longitudinal_device ddev;
static uint32_t dx;
static uint32_t dout[2u * FXDP_DBITFLIP_MAX_S];
static fxdp_dbitflip_work dw;                  /* the _w forms' workspace: static, any prior contents */

static void any_dbf(void)
{
    eva_unknown(&dc, sizeof dc);
    eva_unknown(&ddev, sizeof ddev);
    eva_unknown(&dx, sizeof dx);
}

void eva_dbitflip_report(void)
{
    any_dbf();
    (void)fxdp_dbitflip_report(EVA_OR_NULL(&dc), EVA_OR_NULL(&ddev), EVA_OR_NULL(&dx), EVA_OR_NULL(dout));
}

void eva_dbitflip_report_ct(void)
{
    any_dbf();
    (void)fxdp_dbitflip_report_ct(EVA_OR_NULL(&dc), EVA_OR_NULL(&ddev), EVA_OR_NULL(&dx), EVA_OR_NULL(dout));
}

void eva_dbitflip(void)
{
    any_dbf();
    (void)fxdp_dbitflip(eva_rng_or_null(), EVA_OR_NULL(&dc), EVA_OR_NULL(&dx), EVA_OR_NULL(dout));
}

void eva_dbitflip_ct(void)
{
    any_dbf();
    (void)fxdp_dbitflip_ct(eva_rng_or_null(), EVA_OR_NULL(&dc), EVA_OR_NULL(&dx), EVA_OR_NULL(dout));
}

void eva_dbitflip_w(void)
{
    any_dbf();
    eva_unknown(&dw, sizeof dw);
    (void)fxdp_dbitflip_w(eva_rng_or_null(), EVA_OR_NULL(&dc), EVA_OR_NULL(&dx), EVA_OR_NULL(dout), EVA_OR_NULL(&dw));
}

void eva_dbitflip_ct_w(void)
{
    any_dbf();
    eva_unknown(&dw, sizeof dw);
    (void)fxdp_dbitflip_ct_w(eva_rng_or_null(), EVA_OR_NULL(&dc), EVA_OR_NULL(&dx), EVA_OR_NULL(dout),
                             EVA_OR_NULL(&dw));
}
