/*
 * fxdp_mech_local_hashing.h -- private to csrc: local hashing's config check and its release
 * without the checks (fxdp_mech_local_hashing.c), which the hierarchical histogram
 * (fxdp_mech_hierarchical_histogram.c) runs after its own checks.  Shipped with fxdp_mech_local_hashing.c by the export.
 */
#ifndef FXDP_MECH_LOCAL_HASHING_H
#define FXDP_MECH_LOCAL_HASHING_H

#include "fxdp_internal.h"

/* 1 iff cfg is a valid config (fxdp.h's conditions; the item is the caller's to check). */
int fxdp_i_local_hashing_ok(const fxdp_local_hashing_cfg *cfg);

/* The release of item x < cfg->d into out[0..3), lazy and constant time, for a caller that has
 * checked r (ready), cfg (fxdp_i_local_hashing_ok), x and out: fxdp_local_hashing[_ct] without
 * their checks, the same bits. */
fxdp_status fxdp_i_local_hashing_run(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, uint32_t x, uint32_t *out);
fxdp_status fxdp_i_local_hashing_run_ct(fxdp_rng *r, const fxdp_local_hashing_cfg *cfg, uint32_t x, uint32_t *out);

#endif /* FXDP_MECH_LOCAL_HASHING_H */
