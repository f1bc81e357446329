/* Cortex-M startup: vector table, reset handler (copy .data, zero .bss, call
 * main, exit with its value) and a fault handler that exits loudly. */
#include <stdint.h>
#include "fxdp_port.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[], __stack_top[];
int main(void);

void Reset_Handler(void);
void Fault_Handler(void);

void Reset_Handler(void)
{
    uint32_t *src = __data_load, *dst = __data_start;
    while (dst < __data_end)
        *dst++ = *src++;
    for (dst = __bss_start; dst < __bss_end; dst++)
        *dst = 0;
    port_exit(main());
}

/* Every exception other than reset lands here: NMI, HardFault and (on M3/M4)
 * MemManage/BusFault/UsageFault, SVC, PendSV, SysTick, external IRQs. */
void Fault_Handler(void)
{
    port_puts("\nFXDP FAULT\n");
    port_exit(PORT_EXIT_FAULT);
}

typedef void (*vector_t)(void);

/* Entries 16..47 (external interrupts), spelled out: strict C99 has no range
 * initializer ([16 ... 47] = is a GNU extension). */
#define FAULT4 Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler
#define FAULT32 FAULT4, FAULT4, FAULT4, FAULT4, FAULT4, FAULT4, FAULT4, FAULT4

__attribute__((section(".vectors"), used)) const vector_t fxdp_vectors[48] = {
    (vector_t)(uintptr_t)__stack_top, Reset_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    0, 0, 0, 0,
    Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler,
    FAULT32
};
