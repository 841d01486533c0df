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
 *
 * Completion order. On rxe the CQE of a SEND is in the CQ before the reply
 * it provoked: the peer ACKs before it answers. On an RNIC the reply often
 * comes first (ACKs are coalesced), every I/O. With send_cqe_after_reply
 * (default on) a kernel QP's successful SEND CQE is held back until the
 * QP's next receive CQE has been posted (hold_replies of them: more stand
 * for an ACK lost and retransmitted while the peer's replies flow), or
 * hold_ms has passed; the send CQEs after it wait behind it, so the send
 * queue's CQEs stay in order.
 *
 * Posts that fail half-way. An RNIC's post_send takes WRs in order and
 * stops at the first it cannot take (a full queue, a bad WR, a device in
 * error): those before it are on the queue. rxe's never fails half-way on
 * a consumer that counts its queue. fail_write_chain_every=N makes every
 * Nth chain of two or more WRs that starts with an RDMA WRITE (a target's
 * read data, the response's SEND behind it) fail at its last WR with
 * -ENOMEM; fail_read_chain_every likewise for RDMA READs (a target fetching
 * a large write's data), fail_send_chain_every for REG_MR or SEND (a host's
 * commands). Counted in debugfs.
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

static bool send_cqe_after_reply = true;
module_param(send_cqe_after_reply, bool, 0644);
MODULE_PARM_DESC(send_cqe_after_reply,
		 "Hold a SEND's CQE until the QP's next receive CQE, as an RNIC's reply often overtakes it (default Y)");

static unsigned int hold_replies = 1;
module_param(hold_replies, uint, 0644);
MODULE_PARM_DESC(hold_replies,
		 "Receive CQEs a held SEND CQE waits for (default 1; more: a lost ACK)");

static unsigned int hold_ms = 20;
module_param(hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms,
		 "Longest a SEND's CQE waits for replies, in ms (default 20)");

/* chains of WRs failed at their last WR, by the opcode they start with */
enum rxe_hw_chain_kind {
	RXE_HW_WRITE_CHAIN,
	RXE_HW_READ_CHAIN,
	RXE_HW_SEND_CHAIN,
	RXE_HW_CHAIN_KINDS
};

static unsigned int fail_chain_every[RXE_HW_CHAIN_KINDS];
module_param_named(fail_write_chain_every,
		   fail_chain_every[RXE_HW_WRITE_CHAIN], uint, 0644);
MODULE_PARM_DESC(fail_write_chain_every,
		 "Fail every Nth chain of WRs starting with an RDMA WRITE at its last WR (default 0: never)");
module_param_named(fail_read_chain_every,
		   fail_chain_every[RXE_HW_READ_CHAIN], uint, 0644);
MODULE_PARM_DESC(fail_read_chain_every,
		 "Fail every Nth chain of WRs starting with an RDMA READ at its last WR (default 0: never)");
module_param_named(fail_send_chain_every,
		   fail_chain_every[RXE_HW_SEND_CHAIN], uint, 0644);
MODULE_PARM_DESC(fail_send_chain_every,
		 "Fail every Nth chain of WRs starting with a REG_MR or SEND at its last WR (default 0: never)");

static struct dentry *rxe_hw_debugfs;
static atomic_t sq_full_refusals;
static atomic_t send_cqes_held;
static atomic_t chains_seen[RXE_HW_CHAIN_KINDS];
static atomic_t chains_failed[RXE_HW_CHAIN_KINDS];

/* a kernel QP's send CQEs held back, oldest first (a ring of nr) */
struct rxe_hw_qp {
	spinlock_t		lock;	/* guards the ring */
	struct timer_list	timer;	/* releases them after hold_ms */
	struct rxe_qp		*qp;
	u32			head, count, nr;
	u32			replies_left;	/* before they are posted */
	struct rxe_cqe		held[];
};

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
 * rxe_hw_chain_fault() - should this WR of a kernel post fail (injected)?
 * @qp: the QP
 * @first: the first WR of the post
 * @wr: the WR about to be taken
 *
 * Return: -ENOMEM for the last WR of every fail_*_chain_every-th chain of
 * its kind, the WRs before it having been taken; else 0.
 */
int rxe_hw_chain_fault(struct rxe_qp *qp, const struct ib_send_wr *first,
		       const struct ib_send_wr *wr)
{
	enum rxe_hw_chain_kind kind;
	unsigned int every;

	if (qp->is_user || wr == first || wr->next)
		return 0;
	switch (first->opcode) {
	case IB_WR_RDMA_WRITE:
		kind = RXE_HW_WRITE_CHAIN;
		break;
	case IB_WR_RDMA_READ:
		kind = RXE_HW_READ_CHAIN;
		break;
	case IB_WR_REG_MR:
	case IB_WR_SEND:
		kind = RXE_HW_SEND_CHAIN;
		break;
	default:
		return 0;
	}
	every = READ_ONCE(fail_chain_every[kind]);
	if (!every || (u32)atomic_inc_return(&chains_seen[kind]) % every)
		return 0;
	atomic_inc(&chains_failed[kind]);
	return -ENOMEM;
}

/* post the held CQEs in order; the caller holds hw->lock */
static void rxe_hw_release_held(struct rxe_hw_qp *hw)
{
	while (hw->count) {
		rxe_cq_post(hw->qp->scq, &hw->held[hw->head], 0);
		hw->head = (hw->head + 1) % hw->nr;
		hw->count--;
	}
}

static void rxe_hw_hold_expired(struct timer_list *t)
{
	struct rxe_hw_qp *hw = from_timer(hw, t, timer);
	unsigned long flags;

	spin_lock_irqsave(&hw->lock, flags);
	rxe_hw_release_held(hw);
	spin_unlock_irqrestore(&hw->lock, flags);
}

/**
 * rxe_hw_qp_init() - a kernel QP's send queue is created
 * @qp: the QP
 * @max_send_wr: the send queue's size as the consumer asked for it
 */
void rxe_hw_qp_init(struct rxe_qp *qp, u32 max_send_wr)
{
	struct rxe_hw_qp *hw;

	qp->sq.hw_max_wr = max_send_wr;
	if (qp->is_user)
		return;
	/* at most one held CQE per WQE not yet retired, and a drain's */
	hw = kvzalloc(struct_size(hw, held, max_send_wr + 1), GFP_KERNEL);
	if (!hw)
		return;		/* SEND CQEs not held for this QP */
	spin_lock_init(&hw->lock);
	timer_setup(&hw->timer, rxe_hw_hold_expired, 0);
	hw->qp = qp;
	hw->nr = max_send_wr + 1;
	qp->hw = hw;
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
 * rxe_hw_post_send_cqe() - post a send CQE, or hold it for the reply
 * @qp: the QP whose send queue completed a WQE
 * @cqe: the CQE (copied)
 *
 * Return: 0, or rxe_cq_post()'s error when posted at once.
 */
int rxe_hw_post_send_cqe(struct rxe_qp *qp, struct rxe_cqe *cqe)
{
	struct rxe_hw_qp *hw = qp->hw;
	unsigned long flags;
	bool hold;

	if (!hw)
		return rxe_cq_post(qp->scq, cqe, 0);
	spin_lock_irqsave(&hw->lock, flags);
	/* behind held ones always; a SEND's own when asked for */
	hold = hw->count || (READ_ONCE(send_cqe_after_reply) &&
			     cqe->ibwc.status == IB_WC_SUCCESS &&
			     cqe->ibwc.opcode == IB_WC_SEND);
	if (hold && hw->count < hw->nr) {
		hw->held[(hw->head + hw->count) % hw->nr] = *cqe;
		if (!hw->count++) {
			hw->replies_left = READ_ONCE(hold_replies);
			mod_timer(&hw->timer,
				  jiffies + msecs_to_jiffies(READ_ONCE(hold_ms)));
		}
		atomic_inc(&send_cqes_held);
		spin_unlock_irqrestore(&hw->lock, flags);
		return 0;
	}
	rxe_hw_release_held(hw);	/* full: keep the order */
	spin_unlock_irqrestore(&hw->lock, flags);
	return rxe_cq_post(qp->scq, cqe, 0);
}

/**
 * rxe_hw_reply_delivered() - a receive CQE of the QP was posted: the
 *	SEND CQEs held for it follow, once hold_replies have come
 * @qp: the QP
 */
void rxe_hw_reply_delivered(struct rxe_qp *qp)
{
	struct rxe_hw_qp *hw = qp->hw;
	unsigned long flags;

	if (!hw || !READ_ONCE(hw->count))
		return;
	spin_lock_irqsave(&hw->lock, flags);
	if (hw->replies_left <= 1)
		rxe_hw_release_held(hw);
	else
		hw->replies_left--;
	spin_unlock_irqrestore(&hw->lock, flags);
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
 * rxe_hw_qp_reset() - the QP's send sequence starts again (created or reset)
 * @qp: the QP
 *
 * CQEs still held are posted first: they are of WQEs that completed.
 */
void rxe_hw_qp_reset(struct rxe_qp *qp)
{
	if (qp->hw) {
		del_timer_sync(&qp->hw->timer);
		rxe_hw_hold_expired(&qp->hw->timer);
	}
	rxe_hw_forget_qp(qp);
	WRITE_ONCE(qp->sq.hw_retired_ssn, 0);
}

/**
 * rxe_hw_qp_cleanup() - the QP is destroyed
 * @qp: the QP
 */
void rxe_hw_qp_cleanup(struct rxe_qp *qp)
{
	rxe_hw_qp_reset(qp);
	kvfree(qp->hw);
	qp->hw = NULL;
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
	debugfs_create_atomic_t("send_cqes_held", 0444, rxe_hw_debugfs,
				&send_cqes_held);
	debugfs_create_atomic_t("write_chains_failed", 0444, rxe_hw_debugfs,
				&chains_failed[RXE_HW_WRITE_CHAIN]);
	debugfs_create_atomic_t("read_chains_failed", 0444, rxe_hw_debugfs,
				&chains_failed[RXE_HW_READ_CHAIN]);
	debugfs_create_atomic_t("send_chains_failed", 0444, rxe_hw_debugfs,
				&chains_failed[RXE_HW_SEND_CHAIN]);
	pr_info("rxe-hw: send-queue slots retire as on hardware%s; SEND CQEs after the reply%s\n",
		sq_rule ? "" : " (off: sq_rule=N)",
		send_cqe_after_reply ? "" : " (off: send_cqe_after_reply=N)");
	return 0;
}

/**
 * rxe_hw_exit() - remove the debugfs directory
 */
void rxe_hw_exit(void)
{
	debugfs_remove_recursive(rxe_hw_debugfs);
}
