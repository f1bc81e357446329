/*
 * fxdp_mech_prefix_extending.h -- private to csrc: the Prefix Extending Method's config check
 * (fxdp_mech_prefix_extending.c), which TreeHist (fxdp_mech_treehist.c) runs before it draws
 * anything.  Shipped with fxdp_mech_prefix_extending.c by the export.
 */
#ifndef FXDP_MECH_PREFIX_EXTENDING_H
#define FXDP_MECH_PREFIX_EXTENDING_H

#include "fxdp_internal.h"

/* 1 iff cfg is a valid config (fxdp.h's conditions; local hashing's own fields are its check's). */
int fxdp_i_prefix_extending_ok(const fxdp_prefix_extending_cfg *cfg);

#endif /* FXDP_MECH_PREFIX_EXTENDING_H */
