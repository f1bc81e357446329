/* Stand-in for the nRF MDK device header (nrf.h -> nrf52840.h): only NRF_RNG, laid out as the
 * nRF52840 Product Specification, "RNG - Random number generator", Registers table gives it
 * (base 0x4000D000).  For compile checks of docs/porting.md only (tests/test_packaging.py). */
#ifndef NRF_H_SHIM
#define NRF_H_SHIM
#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t TASKS_START;      /* 0x000 */
    volatile uint32_t TASKS_STOP;       /* 0x004 */
    volatile uint32_t RESERVED0[62];
    volatile uint32_t EVENTS_VALRDY;    /* 0x100 */
    volatile uint32_t RESERVED1[63];
    volatile uint32_t SHORTS;           /* 0x200 */
    volatile uint32_t RESERVED2[64];
    volatile uint32_t INTENSET;         /* 0x304 */
    volatile uint32_t INTENCLR;         /* 0x308 */
    volatile uint32_t RESERVED3[126];
    volatile uint32_t CONFIG;           /* 0x504: bit 0 DERCEN (bias correction) */
    volatile uint32_t VALUE;            /* 0x508: bits 7:0 */
} NRF_RNG_Type;

/* the offsets of the manual (C99 has no _Static_assert: a negative array size fails the build) */
typedef char nrf_rng_offsets_check[(offsetof(NRF_RNG_Type, EVENTS_VALRDY) == 0x100u &&
                                    offsetof(NRF_RNG_Type, SHORTS) == 0x200u &&
                                    offsetof(NRF_RNG_Type, INTENSET) == 0x304u &&
                                    offsetof(NRF_RNG_Type, CONFIG) == 0x504u &&
                                    offsetof(NRF_RNG_Type, VALUE) == 0x508u) ? 1 : -1];

#define NRF_RNG ((NRF_RNG_Type *)0x4000D000u)
#define RNG_CONFIG_DERCEN_Pos 0u
#define RNG_CONFIG_DERCEN_Enabled 1u
#endif
