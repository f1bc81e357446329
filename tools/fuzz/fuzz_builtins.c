/*
 * fuzz_builtins.c -- the Frama-C builtins of __fc_builtin.h (fuzzing shim) over the libFuzzer
 * input: a cursor that each builtin advances by the bytes it consumes.
 */
#include <string.h>

#include "__fc_builtin.h"

static const uint8_t *fuzz_data;
static size_t fuzz_size;
static size_t fuzz_pos;

void fuzz_input_set(const uint8_t *data, size_t size)
{
    fuzz_data = data;
    fuzz_size = size;
    fuzz_pos = 0;
}

size_t fuzz_input_left(void) { return fuzz_size - fuzz_pos; }

/* The next nbytes bytes as a little-endian integer; missing bytes read as 0. */
static uint64_t take(unsigned nbytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes && fuzz_pos < fuzz_size; i++) {
        v |= (uint64_t)fuzz_data[fuzz_pos++] << (8u * i);
    }
    return v;
}

/* A value in [0, span] (span = hi - lo as unsigned), from the fewest bytes that cover span. */
static uint64_t take_span(uint64_t span)
{
    unsigned nbytes = 1;
    while (nbytes < 8u && (span >> (8u * nbytes)) != 0u) {
        nbytes++;
    }
    uint64_t raw = take(nbytes);
    return span == UINT64_MAX ? raw : raw % (span + 1u);
}

void Frama_C_make_unknown(char *p, size_t n)
{
    size_t head = n < FUZZ_UNKNOWN_MAX_BYTES ? n : FUZZ_UNKNOWN_MAX_BYTES;
    size_t avail = fuzz_input_left();
    size_t got = head < avail ? head : avail;
    if (n == 0u) {
        return;
    }
    if (got != 0u) {
        memcpy(p, fuzz_data + fuzz_pos, got);
        fuzz_pos += got;
    }
    memset(p + got, 0, head - got);
    for (size_t done = head; done < n;) {    /* doubling copies: tables of 2^16 words per call */
        size_t chunk = done < n - done ? done : n - done;
        memcpy(p + done, p, chunk);
        done += chunk;
    }
}

int Frama_C_interval(int lo, int hi) { return Frama_C_int_interval(lo, hi); }

int Frama_C_int_interval(int lo, int hi)
{
    return (int)((int64_t)lo + (int64_t)take_span((uint64_t)((int64_t)hi - (int64_t)lo)));
}

unsigned char Frama_C_unsigned_char_interval(unsigned char lo, unsigned char hi)
{
    return (unsigned char)(lo + take_span((uint64_t)(hi - lo)));
}

unsigned int Frama_C_unsigned_int_interval(unsigned int lo, unsigned int hi)
{
    return (unsigned int)(lo + take_span((uint64_t)(hi - lo)));
}

long long Frama_C_long_long_interval(long long lo, long long hi)
{
    /* two's complement offset arithmetic in uint64_t: no signed overflow for any lo, hi */
    return (long long)((uint64_t)lo + take_span((uint64_t)hi - (uint64_t)lo));
}

unsigned long long Frama_C_unsigned_long_long_interval(unsigned long long lo, unsigned long long hi)
{
    return lo + take_span(hi - lo);
}

size_t Frama_C_size_t_interval(size_t lo, size_t hi)
{
    return (size_t)(lo + take_span((uint64_t)(hi - lo)));
}
