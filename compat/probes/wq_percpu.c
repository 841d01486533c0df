// SPDX-License-Identifier: GPL-2.0
/*
 * WQ_PERCPU: a workqueue says it is per-CPU, the default it was, since
 * workqueues are to become unbound by default; alloc_workqueue() warns of
 * one that says neither (Debian's 7.2 has it, its 6.12 not).
 */
#include <linux/workqueue.h>

unsigned int probe(void);
unsigned int probe(void)
{
	return WQ_PERCPU;
}
