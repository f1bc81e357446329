/* Host port: hosted libc. Counts come from valgrind --tool=callgrind: each
 * port_mark() dumps (and thereby resets) callgrind's counters, so dump k+1
 * holds the instructions between marks k and k+1. Outside valgrind the
 * client request is a few no-op instructions. */
#include <stdio.h>
#include <stdlib.h>
#include "fxdp_port.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define FXDP_MARK() CALLGRIND_DUMP_STATS
#endif
#endif
#ifndef FXDP_MARK
#define FXDP_MARK() ((void)0)
#endif

/* Line-buffered even into a pipe, so that the output before a hang or crash
 * reaches the runner. */
__attribute__((constructor)) static void line_buffered(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

void port_init(void) {}

void port_puts(const char *s) { fputs(s, stdout); }

void port_exit(int code)
{
    fflush(stdout);
    exit(code);
}

__attribute__((noinline)) void port_mark(void) { FXDP_MARK(); }
