/*
 * fxdp_mech_piecewise.h -- private to csrc: the Piecewise draws (fxdp_mech_piecewise.c) that the Hybrid and
 * multi-dimensional readings call.  Shipped with fxdp_mech_piecewise.c by the export.
 */
#ifndef FXDP_MECH_PIECEWISE_H
#define FXDP_MECH_PIECEWISE_H

#include "fxdp_internal.h"

/* The Piecewise draws, with the contract of fxdp_mech_duchi.h's Duchi draws (*_ok, *_lazy, *_ct). */
int fxdp_i_piecewise_ok(const fxdp_piecewise_cfg *cfg, uint32_t x);
fxdp_status fxdp_i_piecewise_lazy(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, uint32_t x, uint32_t *out);
fxdp_status fxdp_i_piecewise_ct(fxdp_rng *r, const fxdp_piecewise_cfg *cfg, uint32_t x, uint32_t *out);

#endif /* FXDP_MECH_PIECEWISE_H */
