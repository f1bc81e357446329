/* Stand-in for Zephyr's <zephyr/random/random.h> (Zephyr >= 3.5): sys_csrand_get as the Zephyr API
 * documentation ("Random Number Generation") declares it.  Compile checks only (tests/test_packaging.py). */
#ifndef ZEPHYR_RANDOM_H_SHIM
#define ZEPHYR_RANDOM_H_SHIM
#include <stddef.h>
#include <stdint.h>
int sys_csrand_get(void *dst, size_t len);
#endif
