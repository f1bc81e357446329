/* rv32imac startup for QEMU virt with -bios none: the reset ROM jumps to the
 * start of DRAM (0x80000000), where the linker script puts _start. */
    .section .text.start, "ax"
    .global _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    /* Any trap (illegal instruction, misaligned access, ecall...) exits
     * loudly instead of jumping to address 0. */
    .option push
    .option arch, +zicsr
    la t0, fxdp_trap
    csrw mtvec, t0
    .option pop
    /* QEMU loads .data in place (LMA == VMA): only .bss needs zeroing. */
    la a0, __bss_start
    la a1, __bss_end
1:  bgeu a0, a1, 2f
    sw zero, 0(a0)
    addi a0, a0, 4
    j 1b
2:  call main
    tail port_exit          /* main's return value is already in a0 */

    .align 4                /* mtvec needs a 4-byte aligned address */
fxdp_trap:
    la sp, __stack_top
    tail port_trap
