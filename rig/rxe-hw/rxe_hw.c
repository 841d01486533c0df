// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rxe-hw: soft-RoCE with the rules of a hardware RNIC, built by
 * nvmeof-rdma's rig from the guest kernel's own rxe sources; a test device,
 * never installed.
 *
 * Send-queue slots. rxe frees a send WQE's slot as soon as its completer is
 * done with it. An RNIC (mlx5, irdma, bnxt_re) frees it only when the
 * consumer has polled the WQE's own CQE or that of a later WQE on the same
 * send queue: an unsignalled WQE holds its slot until a signalled one after
 * it is polled. Here a kernel QP's send queue counts as outstanding every
 * WQE posted after the newest one whose CQE was polled, and a post that
 * would exceed the size the consumer asked for (max_send_wr; rxe rounds its
 * ring up, and a consumer may only count on what it asked) fails with
 * -ENOMEM, bad_wr the first WR not taken, as mlx5's post_send does.
 * The WQE's send sequence number (ssn, one per WQE in posting order; rxe
 * numbers all but local operations and never reads it, so REG_MR and
 * LOCAL_INV get theirs here) travels in the CQE, in fields rxe never fills
 * for a send completion, and is taken out again when polled. User QPs post
 * from user space through a shared queue and keep rxe's rule.
 */

#include <linux/debugfs.h>
#include <linux/module.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_queue.h"
#include "rxe_hw.h"

static bool sq_rule = true;
module_param(sq_rule, bool, 0644);
MODULE_PARM_DESC(sq_rule,
		 "Send-queue slots retire as on hardware: when a later signalled CQE is polled (default Y)");

/* in a stored send CQE's wc_flags: vendor_err holds the WQE's ssn */
#define RXE_HW_WC_SSN	((int)BIT(30))

static struct dentry *rxe_hw_debugfs;
static atomic_t sq_full_refusals;

/**
 * rxe_hw_sq_full() - may a kernel QP's send queue take one more WQE?
 * @qp: the QP, its sq_lock held
 *
 * Return: true if the WQEs posted since the newest polled send CQE fill
 * the queue, and counts the refusal.
 */
bool rxe_hw_sq_full(struct rxe_qp *qp)
{
	u32 outstanding;

	if (qp->is_user || !READ_ONCE(sq_rule))
		return false;
	outstanding = (u32)atomic_read(&qp->ssn) -
		      READ_ONCE(qp->sq.hw_retired_ssn);
	if (outstanding < qp->sq.hw_max_wr)
		return false;
	atomic_inc(&sq_full_refusals);
	return true;
}

/**
 * rxe_hw_posted() - a WQE was written to the send queue
 * @qp: the QP, its sq_lock held
 * @wqe: the WQE; a local operation (REG_MR, LOCAL_INV) gets its ssn here
 */
void rxe_hw_posted(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	if (wqe->mask & WR_LOCAL_OP_MASK)
		wqe->ssn = atomic_add_return(1, &qp->ssn);
}

/**
 * rxe_hw_tag_send_cqe() - carry a send WQE's ssn in its CQE
 * @qp: the QP
 * @wqe: the WQE that completes
 * @cqe: its CQE, about to be posted to the send CQ
 */
void rxe_hw_tag_send_cqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			 struct rxe_cqe *cqe)
{
	if (qp->is_user)
		return;
	cqe->ibwc.wc_flags |= RXE_HW_WC_SSN;
	cqe->ibwc.vendor_err = wqe->ssn;
}

/**
 * rxe_hw_polled() - a CQE leaves the CQ for the consumer
 * @wc: the work completion as the consumer will see it
 *
 * A send CQE retires its WQE's slot and those of the WQEs before it; the
 * fields that carried its ssn are cleared. Called under the CQ's lock, so
 * the QP still exists (rxe_hw_forget_qp()).
 */
void rxe_hw_polled(struct ib_wc *wc)
{
	struct rxe_qp *qp;

	if (!(wc->wc_flags & RXE_HW_WC_SSN))
		return;
	qp = to_rqp(wc->qp);
	WRITE_ONCE(qp->sq.hw_retired_ssn, wc->vendor_err);
	wc->wc_flags &= ~RXE_HW_WC_SSN;
	wc->vendor_err = 0;
}

/*
 * Untag the QP's send CQEs still in its send CQ: they must not touch the QP
 * once it is gone, or a reset one with an ssn of its earlier life.
 */
static void rxe_hw_forget_qp(struct rxe_qp *qp)
{
	struct rxe_cq *cq = qp->scq;
	struct rxe_queue *q;
	unsigned long flags;
	u32 i, end;

	if (qp->is_user || !cq)
		return;
	spin_lock_irqsave(&cq->cq_lock, flags);
	q = cq->queue;
	end = queue_get_producer(q, QUEUE_TYPE_TO_CLIENT);
	for (i = queue_get_consumer(q, QUEUE_TYPE_TO_CLIENT); i != end;
	     i = queue_next_index(q, i)) {
		struct rxe_cqe *cqe = queue_addr_from_index(q, i);

		if (cqe->ibwc.qp == &qp->ibqp &&
		    (cqe->ibwc.wc_flags & RXE_HW_WC_SSN)) {
			cqe->ibwc.wc_flags &= ~RXE_HW_WC_SSN;
			cqe->ibwc.vendor_err = 0;
		}
	}
	spin_unlock_irqrestore(&cq->cq_lock, flags);
}

/**
 * rxe_hw_qp_reset() - the QP's send sequence starts again (created, reset
 *	or destroyed)
 * @qp: the QP
 */
void rxe_hw_qp_reset(struct rxe_qp *qp)
{
	rxe_hw_forget_qp(qp);
	WRITE_ONCE(qp->sq.hw_retired_ssn, 0);
}

/**
 * rxe_hw_init() - rxe-hw's counters in debugfs (rxe_hw/)
 *
 * Return: 0; debugfs is optional.
 */
int rxe_hw_init(void)
{
	rxe_hw_debugfs = debugfs_create_dir("rxe_hw", NULL);
	debugfs_create_atomic_t("sq_full_refusals", 0444, rxe_hw_debugfs,
				&sq_full_refusals);
	pr_info("rxe-hw: send-queue slots retire as on hardware%s\n",
		sq_rule ? "" : " (off: sq_rule=N)");
	return 0;
}

/**
 * rxe_hw_exit() - remove the debugfs directory
 */
void rxe_hw_exit(void)
{
	debugfs_remove_recursive(rxe_hw_debugfs);
}
