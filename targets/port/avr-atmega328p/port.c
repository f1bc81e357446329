/* ATmega328P port for simavr, run by targets/tools/simavr_run.c, which
 * watches three general-purpose I/O registers:
 *   GPIOR0 <- each output byte, GPIOR1 <- marker writes (it records
 *   avr->cycle), GPIOR2 <- the exit code, written just before cli+sleep
 *   (simavr stops on sleep with interrupts off). */
#include <stdint.h>
#include "fxdp_port.h"

#define GPIOR0 (*(volatile uint8_t *)0x3E)
#define GPIOR1 (*(volatile uint8_t *)0x4A)
#define GPIOR2 (*(volatile uint8_t *)0x4B)
#define SMCR (*(volatile uint8_t *)0x53)
#define SMCR_SE 0x01u

void port_fault(void);

void port_init(void) {}

void port_puts(const char *s)
{
    char c;
    while ((c = *s++) != '\0')
        GPIOR0 = (uint8_t)c;
}

void port_exit(int code)
{
    GPIOR2 = (uint8_t)code;
    __asm__ volatile("cli");
    SMCR = SMCR_SE;
    for (;;)
        __asm__ volatile("sleep");
}

void port_fault(void)
{
    port_puts("\nFXDP FAULT\n");
    port_exit(PORT_EXIT_FAULT);
}

/* One `out` instruction: a 1-cycle marker the harness sees exactly. */
__attribute__((noinline)) void port_mark(void) { GPIOR1 = 1; }
