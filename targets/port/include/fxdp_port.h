/* fxdp_port.h - the minimal I/O API that test harnesses use on every target.
 *
 * One header for all targets; each target's port (targets/port/<name>/ or
 * the shared targets/port/cortex-m/) implements it. The port's startup code
 * calls main() and passes its return value to port_exit(), so a harness is
 *
 *     int main(void) { port_init(); port_puts("hello\n"); return 3; }
 *
 * Strict C99, freestanding: only <stdint.h>/<stddef.h> may be used on MCUs.
 */
#ifndef FXDP_PORT_H
#define FXDP_PORT_H

/* Set up whatever the target needs before output (may do nothing). */
void port_init(void);

/* Write a NUL-terminated string. Lines end in "\n"; the runner hands back
 * clean text lines. Output is slow on some emulators (see targets/README.md):
 * print compact hex rather than long decimal reports. */
void port_puts(const char *s);

/* Stop with exit status `code` (0..255); never returns. */
void port_exit(int code);

/* Count-region marker. The runner (with count=True) records the number of
 * executed instructions (QEMU, host) or cycles (AVR) between each pair of
 * consecutive calls: calls m0, m1, ..., mN give N region counts, the i-th
 * being the work between m(i-1) and m(i). A region's count includes a small
 * constant overhead (the call to and return from port_mark). */
void port_mark(void);

/* Exit status reported when the CPU faults or takes an unexpected trap or
 * interrupt (MCU targets). */
#define PORT_EXIT_FAULT 254

#endif
