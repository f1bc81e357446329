/*
 * eva_builtins.c -- models of the GCC builtins the library calls (csrc/ uses them under
 * __GNUC__), for the Eva analysis.  Frama-C's __fc_gcc_builtins.h declares them with
 * `requires x != 0` (the builtin is undefined for 0: Eva checks this at every call) and a
 * result in [0, width); these bodies compute the exact count (GCC manual: the number of
 * leading 0-bits of x, starting at the most significant bit position), so that Eva knows,
 * for example, that __builtin_clzl of a 32-bit value is at least 32.  64-bit long (LP64).
 */
int __builtin_clzll(unsigned long long x)
{
    int n = 0;
    if ((x >> 32) == 0u) { n += 32; x <<= 32; }
    if ((x >> 48) == 0u) { n += 16; x <<= 16; }
    if ((x >> 56) == 0u) { n += 8; x <<= 8; }
    if ((x >> 60) == 0u) { n += 4; x <<= 4; }
    if ((x >> 62) == 0u) { n += 2; x <<= 2; }
    if ((x >> 63) == 0u) { n += 1; }
    return n;
}

int __builtin_clzl(unsigned long x)
{
    return __builtin_clzll((unsigned long long)x);
}
