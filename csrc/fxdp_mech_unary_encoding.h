/*
 * fxdp_mech_unary_encoding.h -- private to csrc: unary encoding's report draw
 * (fxdp_mech_unary_encoding.c), which the Count Mean Sketch (fxdp_mech_count_mean_sketch.c) calls
 * for its row.  Shipped with fxdp_mech_unary_encoding.c by the export.
 */
#ifndef FXDP_MECH_UNARY_ENCODING_H
#define FXDP_MECH_UNARY_ENCODING_H

#include "fxdp_internal.h"

/* out[0..d) = unary encoding's report of item x < d: bit i is Bernoulli((i == x ? a_p : a_q) / 2^bits),
 * i in order (0 < a_q, a_p < 2^bits, 1 <= bits <= 63, r ready); ct: exactly bits bits per item and no
 * branch on x; an entropy failure zeroes out[0..d). */
fxdp_status fxdp_i_unary_encoding_run(fxdp_rng *r, uint64_t a_p, uint64_t a_q, unsigned bits, uint32_t d, uint32_t x,
                                      uint8_t *out, int ct);

#endif /* FXDP_MECH_UNARY_ENCODING_H */
