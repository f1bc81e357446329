/* QEMU TCG plugin: count executed guest instructions between executions of
 * a marker address (the first instruction of port_mark()).
 *
 *   qemu-system-... -plugin qemu_mark_plugin.so,mark=0x1234,out=/path/counts
 *
 * Each time the marker executes, the number of instructions executed since
 * the previous marker is recorded; at exit the list (one per line, the first
 * one dropped since it counts from reset) is written to `out`. Counting is
 * an inline add on every instruction, so it is exact and identical run to
 * run (single vCPU, no interrupts in our programs).
 *
 * Debian ships no qemu-plugin.h, so the few plugin API v1 (QEMU 4.2 - 8.0)
 * declarations used here are written out. Build: gcc -shared -fPIC -O2. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb_t)(unsigned int vcpu_index, void *udata);
typedef void (*udata_cb_t)(qemu_plugin_id_t, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *,
                                                enum qemu_plugin_op, void *, uint64_t);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, vcpu_udata_cb_t,
                                            enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb_t, void *);

EXPORT int qemu_plugin_version = 1;

static uint64_t insns;      /* executed instructions so far */
static uint64_t last;       /* value of insns at the previous mark */
static uint64_t mark_addr;
static uint64_t *counts;    /* counts[i]: instructions from mark i to mark i+1 */
static size_t n_marks, cap;
static const char *out_path;

static void on_mark(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (n_marks > 0) {
        if (n_marks > cap) {
            cap = cap ? 2 * cap : 1024;
            counts = realloc(counts, cap * sizeof *counts);
            if (!counts)
                abort();
        }
        counts[n_marks - 1] = insns - last;
    }
    n_marks++;
    last = insns;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i, n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                   &insns, 1);
        if (qemu_plugin_insn_vaddr(insn) == mark_addr)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
                                                   NULL);
    }
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
    size_t i;
    FILE *f = out_path ? fopen(out_path, "w") : stderr;
    (void)id;
    (void)udata;
    if (!f)
        return;
    fprintf(f, "total %" PRIu64 "\n", insns);
    for (i = 0; i + 1 < n_marks; i++)
        fprintf(f, "%" PRIu64 "\n", counts[i]);
    if (f != stderr)
        fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
    int i;
    (void)info;
    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "mark=", 5) == 0)
            mark_addr = strtoull(argv[i] + 5, NULL, 0);
        else if (strncmp(argv[i], "out=", 4) == 0)
            out_path = argv[i] + 4;
        else {
            fprintf(stderr, "qemu_mark_plugin: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
    return 0;
}
