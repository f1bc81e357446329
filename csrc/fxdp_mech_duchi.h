/*
 * fxdp_mech_duchi.h -- private to csrc: the Duchi draws (fxdp_mech_duchi.c) that the Hybrid and
 * multi-dimensional readings call.  Shipped with fxdp_mech_duchi.c by the export.
 */
#ifndef FXDP_MECH_DUCHI_H
#define FXDP_MECH_DUCHI_H

#include "fxdp_internal.h"

/* Shared with the Hybrid mechanism (fxdp_mech_hybrid.c) and the multi-dimensional form
 * (fxdp_mech_numeric_multidim.c): *_ok is 1 iff cfg is valid and x a grid index in
 * range; *_lazy and *_ct draw (r ready, cfg and x valid; *out written only on FXDP_OK; Duchi's *out
 * is its bit).  One function per form with four arguments: no ct argument on the ARM stack, and
 * a constant-time caller links only constant-time samplers (issue 13's 256 B goal). */
int fxdp_i_duchi_ok(const fxdp_duchi_cfg *cfg, uint32_t x);
fxdp_status fxdp_i_duchi_lazy(fxdp_rng *r, const fxdp_duchi_cfg *cfg, uint32_t x, uint32_t *out);
fxdp_status fxdp_i_duchi_ct(fxdp_rng *r, const fxdp_duchi_cfg *cfg, uint32_t x, uint32_t *out);

#endif /* FXDP_MECH_DUCHI_H */
