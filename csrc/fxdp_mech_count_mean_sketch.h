/*
 * fxdp_mech_count_mean_sketch.h -- private to csrc: the Count Mean Sketch's config check
 * (fxdp_mech_count_mean_sketch.c), which the Sequence Fragment Puzzle (fxdp_mech_sequence_fragment_puzzle.c)
 * runs on both of its sketches before it draws anything.  Shipped with fxdp_mech_count_mean_sketch.c by
 * the export.
 */
#ifndef FXDP_MECH_COUNT_MEAN_SKETCH_H
#define FXDP_MECH_COUNT_MEAN_SKETCH_H

#include "fxdp_internal.h"

/* 1 iff cfg is a valid sketch config with log2_width <= max_log2_width (fxdp.h's conditions). */
int fxdp_i_count_mean_sketch_ok(const fxdp_count_mean_sketch_cfg *cfg, uint32_t max_log2_width);

#endif /* FXDP_MECH_COUNT_MEAN_SKETCH_H */
