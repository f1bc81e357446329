/*
 * fxdp_host_fleets.h -- the one table of the host fleet entry points over the single-release
 * mechanisms (not firmware): an X-macro list, included by fxdp_host_mech.c only (no include
 * guard on purpose).  One line per family:
 *
 *   FLEET(kind, entry, cfg type, x element, out element, x row elements, out row elements)
 *   FLEET_CUSTOM(kind, entry, cfg type, x element, out element, device function)
 *
 * fxdp_host_mech.c expands each line into fxdp_fleet_<kind> (device i: entry[_ct] on row i; rows
 * given in elements, cfg in scope); tools/gen_host_fleets.py writes their prototypes into the
 * generated block of fxdp_host.h (the cffi cdef needs them spelled out), and
 * tests/test_c_glue.py fails when that block is stale.
 */
FLEET(rr_bool, fxdp_rr_bool, fxdp_rr_bool_cfg, uint8_t, uint8_t, 1u, 1u)
FLEET_CUSTOM(rr, fxdp_rr, fxdp_rr_cfg, uint32_t, uint32_t, rr_device)
FLEET(rappor, fxdp_rappor, fxdp_rappor_cfg, uint8_t, uint8_t, (size_t)cfg->k, (size_t)cfg->k)
FLEET(unary_encoding, fxdp_unary_encoding, fxdp_ue_cfg, uint32_t, uint8_t, 1u, (size_t)cfg->d)
FLEET(hadamard_response, fxdp_hadamard_response, fxdp_hr_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET(subset_selection, fxdp_subset_selection, fxdp_ss_cfg, uint32_t, uint16_t, 1u, (size_t)cfg->k)
FLEET(local_hashing, fxdp_local_hashing, fxdp_lh_cfg, uint32_t, uint32_t, 1u, 3u)
FLEET(duchi, fxdp_duchi, fxdp_duchi_cfg, uint32_t, uint8_t, 1u, 1u)
FLEET(piecewise, fxdp_piecewise, fxdp_pm_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET(square_wave, fxdp_square_wave, fxdp_sw_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET(hybrid, fxdp_hybrid, fxdp_hm_cfg, uint32_t, uint32_t, 1u, 1u)
FLEET(numeric_md, fxdp_numeric_md, fxdp_md_cfg, uint32_t, uint32_t, (size_t)cfg->d, 2u * (size_t)cfg->k)
FLEET(geometric, fxdp_geometric, fxdp_geometric_cfg, int64_t, int64_t, (size_t)cfg->n, (size_t)cfg->n)
