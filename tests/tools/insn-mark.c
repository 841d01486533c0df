// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark - execute the marker that rig/insn-count-plugin.c watches for
 * (`mov $0x6e766d65,%ebx; xchg %rbx,%rbx`), so the plugin snapshots its
 * instruction counters here. Harmless without the plugin. Used by
 * rig/guest/bench.sh.
 */
int main(void)
{
	__asm__ volatile("mov $0x6e766d65, %%ebx\n\txchg %%rbx, %%rbx" ::: "rbx", "memory");
	return 0;
}
