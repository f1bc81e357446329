/*
 * fxdp_mech_local_hashing.h -- private to csrc: local hashing's config check
 * (fxdp_mech_local_hashing.c), which the hierarchical histogram (fxdp_mech_hierarchical_histogram.c)
 * runs before it draws anything.  Shipped with fxdp_mech_local_hashing.c by the export.
 */
#ifndef FXDP_MECH_LOCAL_HASHING_H
#define FXDP_MECH_LOCAL_HASHING_H

#include "fxdp_internal.h"

/* 1 iff cfg is a valid config (fxdp.h's conditions; the item is the caller's to check). */
int fxdp_i_local_hashing_ok(const fxdp_local_hashing_cfg *cfg);

#endif /* FXDP_MECH_LOCAL_HASHING_H */
