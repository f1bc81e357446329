/*
 * fxdp_host_fleet.h -- internal to csrc/host (not parsed by cffi, not firmware): the one fleet
 * loop every host fleet entry point (fxdp_fleet_*, fxdp_*_rounds in fxdp_host.h) runs, so the
 * per-device stream set-up, status and bit accounting live in one place.
 */
#ifndef FXDP_HOST_FLEET_H
#define FXDP_HOST_FLEET_H

#include "../fxdp.h"

/* What a fleet call was given: the per-device callback reads its rows from x and writes out. */
typedef struct fxdp_host_fleet {
    const uint32_t *seed; /* seed[9]: 8 key words, then the stream version */
    size_t n;             /* devices */
    size_t rounds;        /* releases per device (1 for the fxdp_fleet_* forms) */
    const void *cfg;      /* the mechanism's cfg struct */
    int ct;               /* nonzero: the _ct entry point */
    const void *x;        /* input rows */
    void *out;            /* output rows */
} fxdp_host_fleet;

/* Device i's releases on r (already at (seed, id, stream 0), block first_block); its status. */
typedef fxdp_status (*fxdp_host_device_fn)(const fxdp_host_fleet *f, fxdp_rng *r, uint64_t id, size_t i);

/* FXDP_ERR_PARAM (nothing done) if seed, cfg or (n != 0) device_ids, x, out, status is NULL; else for
 * each device i in order: r = (seed, device_ids[i], stream 0) from block first_block, status[i] =
 * device(f, &r, device_ids[i], i), bits_used[i] (if not NULL) = r's position; returns the first
 * non-OK status[i], or FXDP_OK. */
fxdp_status fxdp_host_fleet_run(const fxdp_host_fleet *f, const uint64_t *device_ids, uint32_t first_block,
                                fxdp_host_device_fn device, uint8_t *status, uint64_t *bits_used);

#endif /* FXDP_HOST_FLEET_H */
