/* memcpy/memmove/memset/memcmp for the freestanding MCU ports.
 *
 * GCC may emit calls to these even in freestanding code (struct copies,
 * zeroing loops) and libgcc does not provide them. They are weak, so a
 * project may supply its own. Port files are built with
 * -fno-tree-loop-distribute-patterns so these loops are not themselves
 * turned into calls to memset/memcpy. */
#include <stddef.h>

__attribute__((weak)) void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    while (n--)
        *dp++ = *sp++;
    return d;
}

__attribute__((weak)) void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    if (dp < sp) {
        while (n--)
            *dp++ = *sp++;
    } else {
        while (n--)
            dp[n] = sp[n];
    }
    return d;
}

__attribute__((weak)) void *memset(void *d, int c, size_t n)
{
    unsigned char *dp = d;
    while (n--)
        *dp++ = (unsigned char)c;
    return d;
}

__attribute__((weak)) int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *ap = a, *bp = b;
    for (; n; n--, ap++, bp++)
        if (*ap != *bp)
            return *ap < *bp ? -1 : 1;
    return 0;
}
