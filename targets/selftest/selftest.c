/* Self-test for the target infrastructure (tests/test_targets_infra.py).
 * Strict C99, freestanding. Exercises 32- and 64-bit arithmetic that needs
 * libgcc helpers on small cores (64-bit multiply/divide/shift, 32-bit divide
 * on cores without a divider), prints known lines, measures three count
 * regions (loop(N), loop(N), loop(2N)) and exits with status 3.
 * -DSELFTEST_N=... sets N; -DSELFTEST_HANG makes it loop forever. */
#include <stdint.h>
#include "fxdp_port.h"

#ifndef SELFTEST_N
#define SELFTEST_N 100
#endif

/* volatile: keep the compiler from folding the arithmetic at compile time. */
static volatile uint32_t seed = UINT32_C(0x12345678);
static volatile uint64_t big = UINT64_C(0x0123456789abcdef);
static volatile int64_t neg = -INT64_C(1000000000000);

static void put_hex(const char *label, uint64_t v)
{
    char buf[40];
    int i = 0, k;
    while (*label)
        buf[i++] = *label++;
    buf[i++] = ' ';
    for (k = 15; k >= 0; k--)
        buf[i++] = "0123456789abcdef"[(v >> (4 * k)) & 15u];
    buf[i++] = '\n';
    buf[i] = '\0';
    port_puts(buf);
}

/* noinline: both measured calls must run the very same code. */
static __attribute__((noinline)) uint32_t lcg_loop(uint32_t n)
{
    uint32_t x = seed, i;
    for (i = 0; i < n; i++)
        x = x * UINT32_C(1664525) + UINT32_C(1013904223);
    return x;
}

int main(void)
{
    uint64_t a, b;
    uint32_t s, r1, r2, r3;

    port_init();
    port_puts("selftest start\n");
    a = big;
    s = seed;
    b = s;
    put_hex("mul64", a * b);
    put_hex("div64", a / b);
    put_hex("mod64", a % b);
    put_hex("shl64", a << (s & 31u));
    put_hex("shr64", a >> (b & 63u));
    put_hex("sdiv64", (uint64_t)(neg / 12345));
    put_hex("div32", s / UINT32_C(7));
    put_hex("mod32", s % UINT32_C(1000));

#ifdef SELFTEST_HANG
    for (;;)
        seed++;
#endif
    port_mark();
    r1 = lcg_loop(SELFTEST_N);
    port_mark();
    r2 = lcg_loop(SELFTEST_N);
    port_mark();
    r3 = lcg_loop(2 * SELFTEST_N);
    port_mark();
    put_hex("lcg", (uint64_t)r1 << 32 | (r2 ^ r3));
    port_puts("selftest end\n");
    return 3;
}
