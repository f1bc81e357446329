/*
 * fxdp_host_fleets.h -- the one table of the host fleet entry points over the single-release
 * mechanisms (not firmware): an X-macro list, included by fxdp_host_mech.c only (no include
 * guard on purpose).  One line per family:
 *
 *   FLEET(kind, entry, cfg type, x element, out element, x row elements, out row elements,
 *         x max, out max)
 *   FLEET_CUSTOM(kind, entry, cfg type, x element, out element, device function, x max, out max)
 *
 * The kind is the entry point's name without fxdp_.  fxdp_host_mech.c expands each line into
 * fxdp_fleet_<kind> (device i: entry[_ct] on row i; rows given in elements, cfg in scope).
 * tools/gen_c_glue.py writes from it the prototypes of those fleets into the generated block of
 * fxdp_host.h (the cffi cdef needs them spelled out) and the Frama-C Eva drivers of entry[_ct]
 * (tools/eva/drivers/generated.c; x max and out max: the most elements of x and out that any
 * valid cfg needs, a compile-time constant), except where tools/eva/drivers/ has a hand-written
 * one (a cfg holding a table pointer, or analysed in parts).  tests/test_c_glue.py fails when a
 * generated file is stale.
 */
FLEET(rr_bool, fxdp_rr_bool, fxdp_rr_bool_cfg, uint8_t, uint8_t, 1u, 1u, 1u, 1u)
FLEET_CUSTOM(rr, fxdp_rr, fxdp_rr_cfg, uint32_t, uint32_t, rr_device, 1u, 1u)
FLEET(rappor, fxdp_rappor, fxdp_rappor_cfg, uint8_t, uint8_t, (size_t)cfg->k, (size_t)cfg->k, FXDP_RAPPOR_MAX_K, FXDP_RAPPOR_MAX_K)
FLEET(unary_encoding, fxdp_unary_encoding, fxdp_unary_encoding_cfg, uint32_t, uint8_t, 1u, (size_t)cfg->d, 1u, FXDP_UNARY_ENCODING_MAX_D)
FLEET(hadamard_response, fxdp_hadamard_response, fxdp_hadamard_response_cfg, uint32_t, uint32_t, 1u, 1u, 1u, 1u)
FLEET(subset_selection, fxdp_subset_selection, fxdp_subset_selection_cfg, uint32_t, uint16_t, 1u, (size_t)cfg->k, 1u, FXDP_SUBSET_SELECTION_MAX_D - 1u)
FLEET(local_hashing, fxdp_local_hashing, fxdp_local_hashing_cfg, uint32_t, uint32_t, 1u, 3u, 1u, 3u)
FLEET(duchi, fxdp_duchi, fxdp_duchi_cfg, uint32_t, uint8_t, 1u, 1u, 1u, 1u)
FLEET(piecewise, fxdp_piecewise, fxdp_piecewise_cfg, uint32_t, uint32_t, 1u, 1u, 1u, 1u)
FLEET(square_wave, fxdp_square_wave, fxdp_square_wave_cfg, uint32_t, uint32_t, 1u, 1u, 1u, 1u)
FLEET(hybrid, fxdp_hybrid, fxdp_hybrid_cfg, uint32_t, uint32_t, 1u, 1u, 1u, 1u)
FLEET(numeric_multidim, fxdp_numeric_multidim, fxdp_numeric_multidim_cfg, uint32_t, uint32_t, (size_t)cfg->d, 2u * (size_t)cfg->k, FXDP_NUMERIC_MULTIDIM_MAX_D, 2u * FXDP_NUMERIC_MULTIDIM_MAX_K)
FLEET(geometric, fxdp_geometric, fxdp_geometric_cfg, int64_t, int64_t, (size_t)cfg->n, (size_t)cfg->n, FXDP_GEOMETRIC_MAX_N, FXDP_GEOMETRIC_MAX_N)
