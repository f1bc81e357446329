/*
 * fuzz_target.c -- the one libFuzzer target over every public entry point of csrc/fxdp.h.
 *
 * The entry points are the Eva drivers eva_<entry>() of tools/eva/drivers/*.c, listed by
 * tools/fuzz/run_fuzz.py in the generated fuzz_entries.h (FUZZ_ENTRIES(X): X(entry) per driver),
 * so a driver added to tools/eva/drivers is fuzzed with no change here.  An input's first two
 * bytes (little endian, mod the number of drivers) select the driver; the driver then draws every
 * parameter from the rest of the input through the builtins of tools/fuzz/__fc_builtin.h.
 *
 * FXDP_FUZZ_ENTRY=<entry> pins one driver (the selector bytes are still consumed, so a corpus
 * keeps its meaning).  At exit the number of executions of each driver is printed to stderr,
 * one line "FUZZ-ENTRY <entry> <count>" each (tests/test_fuzz.py checks every driver ran).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "__fc_builtin.h"
#include "fuzz_entries.h"

#define FUZZ_DECLARE(name) void eva_##name(void);
FUZZ_ENTRIES(FUZZ_DECLARE)

typedef struct fuzz_entry {
    const char *name;
    void (*run)(void);
} fuzz_entry;

#define FUZZ_ROW(name) {#name, eva_##name},
static const fuzz_entry entries[] = {FUZZ_ENTRIES(FUZZ_ROW)};
#define N_ENTRIES (sizeof entries / sizeof entries[0])

static unsigned long long runs[N_ENTRIES];
static long pinned = -1;    /* index of FXDP_FUZZ_ENTRY, or -1 */

static void print_counts(void)
{
    for (size_t i = 0; i < N_ENTRIES; i++) {
        fprintf(stderr, "FUZZ-ENTRY %s %llu\n", entries[i].name, runs[i]);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *only = getenv("FXDP_FUZZ_ENTRY");
    if (only != NULL && only[0] != '\0') {
        for (size_t i = 0; i < N_ENTRIES; i++) {
            if (strcmp(entries[i].name, only) == 0) {
                pinned = (long)i;
            }
        }
        if (pinned < 0) {
            fprintf(stderr, "FXDP_FUZZ_ENTRY=%s: no driver eva_%s in tools/eva/drivers\n", only, only);
            exit(2);
        }
    }
    atexit(print_counts);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input_set(data, size);
    size_t pick = (size_t)Frama_C_unsigned_int_interval(0u, 0xFFFFu) % N_ENTRIES;
    if (pinned >= 0) {
        pick = (size_t)pinned;
    }
    runs[pick]++;
    entries[pick].run();
    return 0;
}
