/*
 * __fc_builtin.h (fuzzing shim) -- the Frama-C builtins that tools/eva/eva_common.h and the Eva
 * drivers (tools/eva/drivers/*.c) call, implemented over the libFuzzer input, so that every
 * driver eva_<entry>() becomes a fuzz body for fxdp_<entry> with no change.  The fuzz build puts
 * tools/fuzz/ first on the include path, so this file stands in for Frama-C's own header.
 *
 * Contract of every builtin: it consumes the next bytes of the current input (little endian) and
 * maps them into its range; an exhausted input gives zeros (Frama_C_make_unknown) or lo (the
 * intervals).  fuzz_builtins.c holds the cursor; fuzz_target.c sets it for each input.
 */
#ifndef FXDP_FUZZ_FC_BUILTIN_H
#define FXDP_FUZZ_FC_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

/* Frama_C_make_unknown takes at most this many bytes from the input; a longer buffer repeats
 * them (tables of 2^16 words would otherwise swallow the input that the later parameters need). */
#define FUZZ_UNKNOWN_MAX_BYTES 64u

/* Set the input the builtins read next (data[0..size)); fuzz_target.c calls it per input. */
void fuzz_input_set(const uint8_t *data, size_t size);
/* Bytes of the current input not consumed yet. */
size_t fuzz_input_left(void);

/* p[0..n) = the next min(n, FUZZ_UNKNOWN_MAX_BYTES) input bytes (zeros once exhausted), repeated. */
void Frama_C_make_unknown(char *p, size_t n);
/* A value in [lo, hi] (lo <= hi) from the next bytes; lo once the input is exhausted. */
int Frama_C_interval(int lo, int hi);
int Frama_C_int_interval(int lo, int hi);
unsigned char Frama_C_unsigned_char_interval(unsigned char lo, unsigned char hi);
unsigned int Frama_C_unsigned_int_interval(unsigned int lo, unsigned int hi);
long long Frama_C_long_long_interval(long long lo, long long hi);
unsigned long long Frama_C_unsigned_long_long_interval(unsigned long long lo, unsigned long long hi);
size_t Frama_C_size_t_interval(size_t lo, size_t hi);

#endif /* FXDP_FUZZ_FC_BUILTIN_H */
