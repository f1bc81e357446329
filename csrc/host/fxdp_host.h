/*
 * fxdp_host.h -- host-only bulk helpers (fxdp_host.c): one call fills an
 * array, so Python (cffi) pays one call per array, not per sample.  Not part
 * of the firmware library.  Also parsed as a cffi cdef (see fxdp.h).
 *
 * Every fxdp_fill_* validates its parameters once (FXDP_ERR_PARAM: nothing
 * drawn, nothing written; out may be NULL only if count == 0), fails with
 * FXDP_ERR_ENTROPY if the rng has failed before (even for count == 0), then draws
 * out[0], out[1], ... in order, exactly as count calls of the single-sample
 * function would; it stops at the first error and returns that status.
 * *produced (if produced is not NULL) is always set: the number of outputs
 * written, all before the failing draw.
 */
#ifndef FXDP_HOST_H
#define FXDP_HOST_H

#include "../fxdp.h"

/* out[i] = fxdp_bits(r, n) for i < count. */
fxdp_status fxdp_fill_bits(fxdp_rng *r, unsigned n, uint32_t *out, size_t count, size_t *produced);
/* out[i] = fxdp_bits64(r, n) for i < count. */
fxdp_status fxdp_fill_bits64(fxdp_rng *r, unsigned n, uint64_t *out, size_t count, size_t *produced);
/* out[i] = fxdp_uniform_below_u32(r, n) for i < count. */
fxdp_status fxdp_fill_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out, size_t count, size_t *produced);
/* out[i] = fxdp_uniform_below_ct_u32(r, n) for i < count (FXDP_ERR_RANGE stops the loop). */
fxdp_status fxdp_fill_uniform_below_ct_u32(fxdp_rng *r, uint32_t n, uint32_t *out, size_t count, size_t *produced);
/* out[i] = fxdp_uniform_below_u64(r, n) for i < count. */
fxdp_status fxdp_fill_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out, size_t count, size_t *produced);
/* out[i] = fxdp_bernoulli_dyadic(r, a, k) for i < count. */
fxdp_status fxdp_fill_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out, size_t count,
                                       size_t *produced);
/* out[i] = fxdp_bernoulli_dyadic_ct(r, a, k) for i < count. */
fxdp_status fxdp_fill_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out, size_t count,
                                          size_t *produced);
/* out[i] = fxdp_bernoulli_rational(r, n, d) for i < count. */
fxdp_status fxdp_fill_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out, size_t count,
                                         size_t *produced);
/* out[i] = fxdp_bernoulli_exp(r, n, d) for i < count. */
fxdp_status fxdp_fill_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out, size_t count,
                                    size_t *produced);
/* out[i] = fxdp_discrete_laplace(r, s, t) for i < count. */
fxdp_status fxdp_fill_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out, size_t count,
                                       size_t *produced);
/* out[i] = fxdp_discrete_laplace_censored(r, s, t, lo, hi) for i < count. */
fxdp_status fxdp_fill_discrete_laplace_censored(fxdp_rng *r, uint32_t s, uint32_t t, int64_t lo, int64_t hi,
                                                int64_t *out, size_t count, size_t *produced);
/* out[i] = fxdp_table_sample_ct(r, thresholds, n_thresholds, k) for i < count. */
fxdp_status fxdp_fill_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds, unsigned k,
                                      uint32_t *out, size_t count, size_t *produced);

/* ---- mechanism fleets (fxdp_host_mech.c) ----
 * One call simulates a fleet through the layer-4 entry points (fxdp.h), device
 * by device, as firmware would.  seed[9] holds the seed words (8 key words,
 * then the stream version 1 or 2).  Device i uses the keyed stream (seed,
 * device_ids[i], stream 0) with its block counter started at first_block (0 for
 * the real stream), and releases its input row with the _ct form if ct != 0:
 * row i of x and out is element i (rr_bool, rr), k bytes (rappor) or cfg->n
 * values (geometric).  status[i] = that release's fxdp_status (out row written
 * only on FXDP_OK); bits_used[i] (bits_used may be NULL) = the stream position
 * afterwards.  For rr with ct != 0, x[i] == t (not a category) is answered by
 * fxdp_uniform_below_u32(t), as the Python host does.  Returns FXDP_ERR_PARAM
 * (nothing done) for NULL pointers, else the first device's non-OK status, or
 * FXDP_OK. */
fxdp_status fxdp_fleet_rr_bool(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                               const fxdp_rr_bool_cfg *cfg, int ct, const uint8_t *x, uint8_t *out,
                               uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_rr(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                          const fxdp_rr_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                          uint64_t *bits_used);
fxdp_status fxdp_fleet_rappor(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                              const fxdp_rappor_cfg *cfg, int ct, const uint8_t *x, uint8_t *out, uint8_t *status,
                              uint64_t *bits_used);
fxdp_status fxdp_fleet_unary_encoding(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                      uint32_t first_block, const fxdp_ue_cfg *cfg, int ct, const uint32_t *x,
                                      uint8_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_hadamard_response(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                         uint32_t first_block, const fxdp_hr_cfg *cfg, int ct, const uint32_t *x,
                                         uint32_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_subset_selection(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                        uint32_t first_block, const fxdp_ss_cfg *cfg, int ct, const uint32_t *x,
                                        uint16_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_local_hashing(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                     uint32_t first_block, const fxdp_lh_cfg *cfg, int ct, const uint32_t *x,
                                     uint32_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_duchi(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                             const fxdp_duchi_cfg *cfg, int ct, const uint32_t *x, uint8_t *out, uint8_t *status,
                             uint64_t *bits_used);
fxdp_status fxdp_fleet_piecewise(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                 const fxdp_pm_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                 uint64_t *bits_used);
fxdp_status fxdp_fleet_square_wave(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                   const fxdp_sw_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                   uint64_t *bits_used);
fxdp_status fxdp_fleet_hybrid(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                              const fxdp_hm_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                              uint64_t *bits_used);
/* fxdp_numeric_md[_ct] per device: x holds n rows of cfg->d grid indices, out n rows of 2 cfg->k values. */
fxdp_status fxdp_fleet_numeric_md(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                  const fxdp_md_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                  uint64_t *bits_used);
fxdp_status fxdp_fleet_geometric(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                 const fxdp_geometric_cfg *cfg, int ct, const int64_t *x, int64_t *out,
                                 uint8_t *status, uint64_t *bits_used);

/* Longitudinal oracle fleets (csrc/host/fxdp_host_long.c): device i runs `rounds` export releases
 * (fxdp_longitudinal_grr[_ct] / _ue[_ct]) on one rng, (seed, device_ids[i], stream 0) from block
 * first_block, round j with input x[j*n + i] into out[j*n + i] (UE: d bytes at (j*n + i)*d), until one
 * fails; status[i] = its first non-OK status; bits_used[i] (may be NULL) = the position afterwards.
 * The _fleet_ forms are one round (the convention above). */
fxdp_status fxdp_longitudinal_grr_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                         size_t rounds, uint32_t first_block, const fxdp_long_grr_cfg *cfg, int ct,
                                         const uint32_t *x, uint32_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_longitudinal_ue_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n, size_t rounds,
                                        uint32_t first_block, const fxdp_long_ue_cfg *cfg, int ct, const uint32_t *x,
                                        uint8_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_longitudinal_grr(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                        uint32_t first_block, const fxdp_long_grr_cfg *cfg, int ct, const uint32_t *x,
                                        uint32_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_longitudinal_ue(const uint32_t seed[9], const uint64_t *device_ids, size_t n,
                                       uint32_t first_block, const fxdp_long_ue_cfg *cfg, int ct, const uint32_t *x,
                                       uint8_t *out, uint8_t *status, uint64_t *bits_used);

/* dBitFlip fleets (csrc/host/fxdp_host_dbf.c): as the longitudinal ones, through
 * fxdp_dbitflip[_ct]; out: 2 * cfg->sampled uint32 at (j*n + i) * 2 * sampled. */
fxdp_status fxdp_dbitflip_rounds(const uint32_t seed[9], const uint64_t *device_ids, size_t n, size_t rounds,
                                 uint32_t first_block, const fxdp_dbf_cfg *cfg, int ct, const uint32_t *x,
                                 uint32_t *out, uint8_t *status, uint64_t *bits_used);
fxdp_status fxdp_fleet_dbitflip(const uint32_t seed[9], const uint64_t *device_ids, size_t n, uint32_t first_block,
                                const fxdp_dbf_cfg *cfg, int ct, const uint32_t *x, uint32_t *out, uint8_t *status,
                                uint64_t *bits_used);

#endif /* FXDP_HOST_H */
