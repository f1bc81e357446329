/* Run an AVR ELF under libsimavr with exact cycle counts.
 *
 *   simavr_run FIRMWARE.elf MCU FREQ_HZ RESULT_FILE
 *
 * The firmware (targets/port/avr-atmega328p) writes output bytes to GPIOR0,
 * marks to GPIOR1 and its exit code to GPIOR2, then sleeps with interrupts
 * off, which stops simavr. Output bytes go to stdout. RESULT_FILE receives
 * "exit N" (N = -1 if the firmware never exited), "state done|crashed|reset"
 * (reset: the program jumped to address 0, which on an AVR silently
 * restarts it),
 * "total CYCLES" and then one line per count
 * region: the cycles between consecutive GPIOR1 writes (the callback runs
 * during the `out`, before its cycle is added, so every mark sees the same
 * offset). Exit status: 0 if the firmware exited, 1 otherwise. simavr's own
 * messages go to stderr (its default logger prints some to stdout). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sim_avr.h>
#include <sim_elf.h>

#define GPIOR0 0x3E
#define GPIOR1 0x4A
#define GPIOR2 0x4B

static int exit_code = -1;
static avr_cycle_count_t last;
static unsigned long long *counts;
static size_t n_marks, cap;

static void log_to_stderr(avr_t *avr, const int level, const char *fmt, va_list ap)
{
    if (level <= (avr ? avr->log : LOG_ERROR))
        vfprintf(stderr, fmt, ap);
}

static void on_output(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *p)
{
    (void)avr, (void)addr, (void)p;
    putchar(v);
}

static void on_mark(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *p)
{
    (void)addr, (void)v, (void)p;
    if (n_marks > 0) {
        if (n_marks > cap) {
            cap = cap ? 2 * cap : 1024;
            counts = realloc(counts, cap * sizeof *counts);
            if (!counts)
                abort();
        }
        counts[n_marks - 1] = (unsigned long long)(avr->cycle - last);
    }
    n_marks++;
    last = avr->cycle;
}

static void on_exit_code(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *p)
{
    (void)avr, (void)addr, (void)p;
    exit_code = v;
}

int main(int argc, char **argv)
{
    elf_firmware_t fw;
    avr_t *avr;
    FILE *res;
    size_t i;
    int state;

    if (argc != 5) {
        fprintf(stderr, "usage: %s FIRMWARE.elf MCU FREQ_HZ RESULT_FILE\n", argv[0]);
        return 2;
    }
    avr_global_logger_set(log_to_stderr);
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "simavr_run: cannot read %s\n", argv[1]);
        return 2;
    }
    snprintf(fw.mmcu, sizeof fw.mmcu, "%s", argv[2]);
    fw.frequency = (uint32_t)strtoul(argv[3], NULL, 0);
    avr = avr_make_mcu_by_name(fw.mmcu);
    if (!avr) {
        fprintf(stderr, "simavr_run: unknown MCU %s\n", fw.mmcu);
        return 2;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    avr_register_io_write(avr, GPIOR0, on_output, NULL);
    avr_register_io_write(avr, GPIOR1, on_mark, NULL);
    avr_register_io_write(avr, GPIOR2, on_exit_code, NULL);

    /* Line-buffered: output up to a hang survives the runner's timeout kill. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    do
        state = avr_run(avr);
    while (state != cpu_Done && state != cpu_Crashed && avr->pc != 0);
    fflush(stdout);

    res = fopen(argv[4], "w");
    if (!res) {
        perror(argv[4]);
        return 2;
    }
    fprintf(res, "exit %d\nstate %s\ntotal %llu\n", exit_code,
            state == cpu_Done ? "done" : state == cpu_Crashed ? "crashed" : "reset",
            (unsigned long long)avr->cycle);
    for (i = 0; i + 1 < n_marks; i++)
        fprintf(res, "%llu\n", counts[i]);
    fclose(res);
    return exit_code < 0;
}
