/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Posting work requests from task context without waking ksoftirqd.
 *
 * Soft-RoCE (rdma_rxe) runs its send engine as a tasklet, scheduled by
 * ib_post_send(). A softirq raised from task context wakes ksoftirqd: one
 * wakeup and two context switches per post, the poster then sleeping while
 * ksoftirqd sends what it posted. With bottom halves disabled around the
 * post, the tasklet runs right at local_bh_enable(), in the poster's own
 * context, and everything it sets off (the peer's receive, its completion
 * handlers, our own completions) runs there too. Measured with
 * `make bench-insn`; see Documentation/benchmark.md.
 *
 * Hardware devices raise no softirq from a post, so there this costs a
 * preempt-count increment and decrement. In interrupt or softirq context,
 * or with interrupts off, softirqs are already handled on the way out, and
 * local_bh_enable() must not be called: nothing is done then.
 */
#ifndef NVMEOF_POST_CONTEXT_H
#define NVMEOF_POST_CONTEXT_H

#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>

/* Returns whether it disabled bottom halves: pass that to _end(). */
static inline bool nvmeof_post_begin(void)
{
	if (!in_task() || irqs_disabled())
		return false;
	local_bh_disable();
	return true;
}

static inline void nvmeof_post_end(bool bh_disabled)
{
	if (bh_disabled)
		local_bh_enable();
}

#endif /* NVMEOF_POST_CONTEXT_H */
