/* Stand-in for the Raspberry Pi Pico SDK header hardware/structs/rosc.h: the RP2040 ring oscillator
 * registers as the RP2040 Datasheet, section 2.17 "Ring Oscillator (ROSC)", List of Registers gives
 * them (ROSC_BASE 0x40060000; RANDOMBIT at 0x1c).  Compile checks of docs/porting.md only. */
#ifndef HARDWARE_STRUCTS_ROSC_H_SHIM
#define HARDWARE_STRUCTS_ROSC_H_SHIM
#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t ctrl;       /* 0x00 */
    volatile uint32_t freqa;      /* 0x04 */
    volatile uint32_t freqb;      /* 0x08 */
    volatile uint32_t dormant;    /* 0x0c */
    volatile uint32_t div;        /* 0x10 */
    volatile uint32_t phase;      /* 0x14 */
    volatile uint32_t status;     /* 0x18 */
    volatile uint32_t randombit;  /* 0x1c: bit 0 */
    volatile uint32_t count;      /* 0x20 */
} rosc_hw_t;

typedef char rosc_offsets_check[(offsetof(rosc_hw_t, randombit) == 0x1cu) ? 1 : -1];

#define rosc_hw ((rosc_hw_t *)0x40060000u)
#endif
