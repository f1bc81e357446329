/*
 * fxdp_memoized.h -- private to csrc: what the memoized oracles' export releases share (L-GRR and
 * L-OUE: fxdp_mech_longitudinal.c; dBitFlip: fxdp_mech_dbitflip.c): the device secret drawn from
 * r's sibling stream, and their four entry points written once.  Shipped by the exporter with the
 * sources that include it.
 */
#ifndef FXDP_MEMOIZED_H
#define FXDP_MEMOIZED_H

#include "fxdp_internal.h"

/* The start of L-GRR's, L-OUE's and dBitFlip's export release: FXDP_ERR_PARAM if bad (then r is not
 * read: bad covers r == NULL), else r's readiness, then secret[0..8) = 8 x bits(32) from
 * fxdp_i_device_source(r, scratch).  secret is the caller's scratch (partly written on a failure). */
static inline fxdp_status fxdp_i_memo_device(fxdp_rng *r, int bad, uint32_t secret[8], fxdp_rng *scratch)
{
    fxdp_status st = bad ? FXDP_ERR_PARAM : fxdp_i_ready(r);
    unsigned i;

    if (st == FXDP_OK) {
        r = fxdp_i_device_source(r, scratch);
    }
    for (i = 0; st == FXDP_OK && i < 8u; i++) {
        st = fxdp_i_bits(r, 32u, &secret[i]);
    }
    return st;
}

/* The four entry points of a memoized oracle (L-GRR, L-OUE, dBitFlip; prototypes in fxdp.h): NAME_w
 * and NAME_ct_w run EXPORT(r, cfg, x, out, ct, work) on the caller's workspace; NAME and NAME_ct put
 * the workspace on their own stack (sizeof (WORK_T) more stack than the _w forms).  fxdp/_cffi_build.py
 * counts the four names as defined. */
#define FXDP_I_MEMO_ENTRY_POINTS(NAME, CFG_T, OUT_T, WORK_T, EXPORT)                                    \
    fxdp_status NAME##_w(fxdp_rng *r, const CFG_T *cfg, const uint32_t *x, OUT_T *out, WORK_T *work)     \
    {                                                                                                    \
        return EXPORT(r, cfg, x, out, 0, work);                                                          \
    }                                                                                                    \
    fxdp_status NAME##_ct_w(fxdp_rng *r, const CFG_T *cfg, const uint32_t *x, OUT_T *out, WORK_T *work)  \
    {                                                                                                    \
        return EXPORT(r, cfg, x, out, 1, work);                                                          \
    }                                                                                                    \
    fxdp_status NAME(fxdp_rng *r, const CFG_T *cfg, const uint32_t *x, OUT_T *out)                       \
    {                                                                                                    \
        WORK_T work;                                                                                     \
        return NAME##_w(r, cfg, x, out, &work);                                                          \
    }                                                                                                    \
    fxdp_status NAME##_ct(fxdp_rng *r, const CFG_T *cfg, const uint32_t *x, OUT_T *out)                  \
    {                                                                                                    \
        WORK_T work;                                                                                     \
        return NAME##_ct_w(r, cfg, x, out, &work);                                                       \
    }

#endif /* FXDP_MEMOIZED_H */
