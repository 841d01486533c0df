// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count-plugin.c - a QEMU TCG plugin that counts the guest instructions
 * executed per translation block, between markers the guest sets itself.
 *
 * `make bench` turns instructions per I/O into one figure; this says where
 * they go. The guest runs tests/tools/insn-mark (which executes the marker
 * instruction `xchg %rbx,%rbx` in user space) around what it wants measured;
 * at every marker the plugin takes a snapshot of all counters, and at exit it
 * writes one line per block that ran between the first and the last marker:
 *
 *	<vaddr hex> <instructions in block> <executions at marker 1> ... <at marker N>
 *
 * scripts/insn-report.py turns that into instructions per I/O per function.
 * Single vCPU (icount runs TCG single-threaded), so no locking.
 *
 * Usage: qemu-system-x86_64 ... -plugin build/insn-count.so,out=FILE
 *
 * Only the handful of plugin API calls used here are declared (API version 1,
 * QEMU 7.2 as shipped by Debian 12).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
		int op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
		void (*cb)(unsigned int, void *), int flags, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t, void *), void *udata);

#define QEMU_PLUGIN_INLINE_ADD_U64	0
#define QEMU_PLUGIN_CB_NO_REGS		0
#define MAX_MARKS			4
#define TABLE_BITS			20	/* 1M blocks: a boot translates far fewer */

/*
 * mov $0x6e766d65,%ebx; xchg %rbx,%rbx: "nvme" into a register, then a
 * no-op no compiler emits (the xchg alone turned up in other programs)
 */
static const unsigned char marker_mov[] = { 0xbb, 0x65, 0x6d, 0x76, 0x6e };
static const unsigned char marker[] = { 0x48, 0x87, 0xdb };

static bool insn_is(struct qemu_plugin_insn *insn, const unsigned char *bytes,
		    size_t len)
{
	return qemu_plugin_insn_size(insn) == len &&
	       !memcmp(qemu_plugin_insn_data(insn), bytes, len);
}

struct block {
	uint64_t vaddr;
	uint64_t n_insns;	/* 0: free slot */
	uint64_t execs;
	uint64_t snap[MAX_MARKS];
};

static struct block *table;
static unsigned int n_marks;
/* instructions run so far, and when the last marker was taken */
static uint64_t total_insns, total_at_mark[MAX_MARKS];
static const char *out_path = "insn-count.txt";

static struct block *lookup(uint64_t vaddr, uint64_t n_insns)
{
	uint64_t mask = (1ull << TABLE_BITS) - 1;
	uint64_t i = ((vaddr ^ (n_insns << 56)) * 0x9e3779b97f4a7c15ull) >> (64 - TABLE_BITS);

	for (;; i = (i + 1) & mask) {
		struct block *b = &table[i];

		if (!b->n_insns) {
			b->vaddr = vaddr;
			b->n_insns = n_insns;
			return b;
		}
		if (b->vaddr == vaddr && b->n_insns == n_insns)
			return b;
	}
}

static void on_marker(unsigned int vcpu, void *udata)
{
	size_t i;

	(void)vcpu;
	(void)udata;
	/*
	 * TCG may run the marker's block twice in a row (a block restarted
	 * after an exception): a marker right after a marker replaces it.
	 */
	if (n_marks && total_insns - total_at_mark[n_marks - 1] < 10000)
		n_marks--;
	if (n_marks == MAX_MARKS)
		return;
	for (i = 0; i < (1ull << TABLE_BITS); i++)
		table[i].snap[n_marks] = table[i].execs;
	total_at_mark[n_marks] = total_insns;
	n_marks++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct block *b = lookup(qemu_plugin_tb_vaddr(tb), n);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &total_insns, n);
	for (i = 1; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_vaddr(insn) >= 0x800000000000ull ||
		    !insn_is(insn, marker, sizeof(marker)) ||
		    !insn_is(qemu_plugin_tb_get_insn(tb, i - 1), marker_mov,
			     sizeof(marker_mov)))
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
						       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void write_counts(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	size_t i;
	unsigned int m;

	(void)id;
	(void)udata;
	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "# marks %u instructions", n_marks);
	for (m = 0; m < n_marks; m++)
		fprintf(f, " %llu", (unsigned long long)total_at_mark[m]);
	fputc('\n', f);
	for (i = 0; n_marks >= 2 && i < (1ull << TABLE_BITS); i++) {
		struct block *b = &table[i];

		if (!b->n_insns || b->snap[n_marks - 1] == b->snap[0])
			continue;
		fprintf(f, "%llx %llu", (unsigned long long)b->vaddr,
			(unsigned long long)b->n_insns);
		for (m = 0; m < n_marks; m++)
			fprintf(f, " %llu", (unsigned long long)b->snap[m]);
		fputc('\n', f);
	}
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	table = calloc(1ull << TABLE_BITS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
