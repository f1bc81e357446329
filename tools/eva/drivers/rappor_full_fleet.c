/* Eva driver: the full RAPPOR host fleet (csrc/host/fxdp_host_rappor_full.c), analysed modularly.
 *
 * The fleet is a loop of fxdp_rappor_full_release over n devices.  Analysing the release's body
 * inside that loop took 144-217 s alone and over 600 s beside other jobs in CI (2026-12-06), so
 * here Eva uses the release's contract below (-eva-use-spec, run_eva.py ENTRY_OPTS): at every call
 * it checks the contract's preconditions (the row pointers the fleet computes are valid for the
 * largest cfg) and havocs what the contract assigns.  The release itself is analysed from its body
 * by eva_rappor_full_release (rappor_full.c) under those same preconditions: any rng state, any
 * cfg, a block of MAX_VALUE_BYTES and an out of MAX_K + 2 bytes. */
#include "eva_common.h"

#ifdef FXDP_FUZZ
#define FLEET_MAX 4u       /* the fuzz build: few devices per call, more calls per second (16: 69 CPU s per 10^6, 2026-12-06) */
#else
#define FLEET_MAX 4096u   /* fleet: n devices, n in 0..FLEET_MAX (rows of the largest cfg) */
#endif

static fxdp_rappor_full_cfg cfg;
static uint32_t seed[9];          /* seed words: 8 key words, then the stream version */
static uint64_t ids[FLEET_MAX];
static uint8_t blocks[FLEET_MAX * FXDP_RAPPOR_FULL_MAX_VALUE_BYTES];
static uint8_t outs[FLEET_MAX * (FXDP_RAPPOR_FULL_MAX_K + 2u)];
static uint8_t status[FLEET_MAX];

/* The release's contract as eva_rappor_full_release establishes it (Frama-C merges it with the
 * declaration in fxdp.h; a C compiler sees a plain redeclaration). */
/*@ requires \valid(r);
    requires \valid_read(cfg);
    requires \valid_read(block + (0 .. FXDP_RAPPOR_FULL_MAX_VALUE_BYTES - 1));
    requires \valid(out + (0 .. FXDP_RAPPOR_FULL_MAX_K + 1));
    assigns *r, out[0 .. FXDP_RAPPOR_FULL_MAX_K + 1];
    ensures FXDP_OK <= \result <= FXDP_ERR_RANGE;
*/
fxdp_status fxdp_rappor_full_release(fxdp_rng *r, const fxdp_rappor_full_cfg *cfg, const uint8_t *block,
                                     uint8_t *out);

void eva_rappor_full_fleet(void)
{
    eva_unknown(&cfg, sizeof cfg);
    eva_unknown(seed, sizeof seed);
    eva_unknown(ids, sizeof ids);
    eva_unknown(blocks, sizeof blocks);
    (void)fxdp_rappor_full_fleet(EVA_OR_NULL(&cfg), EVA_OR_NULL(seed), EVA_OR_NULL(ids), EVA_OR_NULL(blocks),
                                 Frama_C_size_t_interval(0u, FLEET_MAX), EVA_OR_NULL(outs), EVA_OR_NULL(status));
}
