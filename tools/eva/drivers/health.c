/* Eva drivers: the SP 800-90B health tests of csrc/fxdp_health.c (layer 2). */
#include "eva_common.h"

static uint8_t eva_health_buf[64];

/* A health state in any condition: initialised over eva_fill (which may fail the start-up test)
 * or with arbitrary parameters, then optionally any counters, cut-offs and failure code. */
static void eva_health(fxdp_health *h)
{
    (void)fxdp_health_init(h, EVA_OR_NULL(eva_fill), &eva_ctx, any_u32(), any_u32());
    if (any_bool()) {
        h->rct_cutoff = (uint16_t)any_u32();
        h->apt_cutoff = (uint16_t)any_u32();
        h->rct_count = (uint16_t)any_u32();
        h->apt_count = (uint16_t)any_u32();
        h->apt_seen = (uint16_t)any_u32();
        h->rct_last = any_u8();
        h->apt_first = any_u8();
        h->failed = any_u8();
    }
}

void eva_health_rct_cutoff(void)
{
    (void)fxdp_health_rct_cutoff(any_u32());
}

void eva_health_init(void)
{
    fxdp_health h;
    (void)fxdp_health_init(EVA_OR_NULL(&h), EVA_OR_NULL(eva_fill), EVA_OR_NULL((void *)&eva_ctx), any_u32(),
                           any_u32());
}

void eva_health_fill(void)
{
    fxdp_health h;
    eva_health(&h);
    (void)fxdp_health_fill(EVA_OR_NULL((void *)&h), EVA_OR_NULL(eva_health_buf),
                           Frama_C_size_t_interval(0u, sizeof eva_health_buf));
}
