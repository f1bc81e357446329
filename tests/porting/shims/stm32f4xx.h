/* Stand-in for the STM32F4 CMSIS device header (stm32f4xx.h): RNG and the one RCC register it needs,
 * laid out as RM0090 (STM32F405/415/407/417/427/437/429/439 reference manual) gives them:
 * section 24.4 "RNG registers" (RNG_CR 0x00, RNG_SR 0x04, RNG_DR 0x08; base 0x50060800) and the RCC
 * chapter's RCC_AHB2ENR (offset 0x34, bit 6 RNGEN).  Compile checks of docs/porting.md only. */
#ifndef STM32F4XX_H_SHIM
#define STM32F4XX_H_SHIM
#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t CR;     /* 0x00 */
    volatile uint32_t SR;     /* 0x04 */
    volatile uint32_t DR;     /* 0x08 */
} RNG_TypeDef;

typedef struct {
    volatile uint32_t REGS[13];   /* CR .. AHB1LPENR-area registers before AHB2ENR, not used here */
    volatile uint32_t AHB2ENR;    /* 0x34 */
} RCC_TypeDef;

typedef char stm32_offsets_check[(offsetof(RNG_TypeDef, DR) == 0x08u && offsetof(RCC_TypeDef, AHB2ENR) == 0x34u)
                                 ? 1 : -1];

#define RNG ((RNG_TypeDef *)0x50060800u)
#define RCC ((RCC_TypeDef *)0x40023800u)
#define RCC_AHB2ENR_RNGEN (1u << 6)
#define RNG_CR_RNGEN (1u << 2)
#define RNG_CR_IE (1u << 3)
#define RNG_SR_DRDY (1u << 0)
#define RNG_SR_CECS (1u << 1)
#define RNG_SR_SECS (1u << 2)
#define RNG_SR_CEIS (1u << 5)
#define RNG_SR_SEIS (1u << 6)
#endif
