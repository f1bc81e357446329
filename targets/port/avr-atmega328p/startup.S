/* ATmega328P startup without avr-libc's crt: vector table, stack, then the
 * avr-gcc default linker script's .init sections run libgcc's
 * __do_copy_data/__do_clear_bss (.init4, pulled in by any unit that has
 * .data/.bss), then main; main's return value (r24:r25) is port_exit's
 * argument. */
#define SREG 0x3f
#define SPH 0x3e
#define SPL 0x3d
#define RAMEND 0x8ff

    .section .vectors, "ax", @progbits
    .global __vectors
__vectors:
    jmp __init
    .rept 25                /* the ATmega328P has 26 vectors */
    jmp __bad_interrupt
    .endr

    .section .init0, "ax", @progbits
    .global __init
__init:

    .section .init2, "ax", @progbits
    clr r1                  /* avr-gcc's zero register */
    out SREG, r1
    ldi r28, lo8(RAMEND)
    ldi r29, hi8(RAMEND)
    out SPH, r29
    out SPL, r28

    .section .init9, "ax", @progbits
    call main
    jmp port_exit

    .text
    .global __bad_interrupt
__bad_interrupt:
    jmp port_fault
