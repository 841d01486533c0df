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
 * would exceed the size ib_create_qp() gave the consumer back in
 * cap.max_send_wr (6.1's rxe: what it asked; 6.12's: its ring, rounded up,
 * as mlx5 gives back its max_post) fails with -ENOMEM, bad_wr the first WR
 * not taken, as mlx5's post_send does.
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
 * hold_us has passed; the send CQEs after it wait behind it, so the send
 * queue's CQEs stay in order. The default 20 ms stands for a lost ACK and
 * its retransmission (the correctness scenarios); `make bench` sets an
 * ACK's time, as an RNIC gives a SEND's CQE microseconds after the SEND
 * when no reply overtakes it.
 *
 * Completion events. rxe tells a CQ's consumer of a completion at once. An
 * RNIC moderates its interrupts (mlx5: cq_period, adapted by DIM): CQEs
 * wait in the CQ for the event. cq_event_delay_us=N holds a kernel CQ's
 * event N microseconds (the CQEs posted meanwhile ride on it), then raises
 * it from the timer's hard interrupt, as an RNIC's comes from its own.
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
 *
 * Work requests that end in error. An RNIC whose peer stops answering (a
 * pulled cable, a dead switch port) completes the WR with a transport retry
 * error and moves the QP to the error state, flushing the rest.
 * error_write_in=K makes the K-th RDMA WRITE of a kernel QP from now do
 * that (once: the knob goes back to 0), error_read_in the K-th RDMA READ,
 * error_send_in the K-th SEND (a host's command or a target's response).
 *
 * A QP in error by itself. An RNIC moves a QP to the error state on a
 * local catastrophic error (mlx5: a WQ catastrophic error event) with no
 * CQE to say so: its WRs are flushed, and its consumer hears of it through
 * IB_EVENT_QP_FATAL, from the event queue's interrupt. Writing "DEVICE QPN"
 * to debugfs rxe_hw/qp_fatal does that to a kernel QP: the QP to error,
 * then the event, raised with interrupts off.
 *
 * Real DMA. rxe's DMA is virtual: ib_dma_map_*() never reach the DMA API.
 * rxe-hw registers its devices with a PCI function of the guest that no
 * other driver claims (QEMU's pci-testdev) as their DMA device, so the
 * consumer's mappings go through the DMA API (and its debugging), and
 * through the IOMMU when the guest has one. Every address the consumer
 * gave as a DMA address (SGEs under a DMA MR, FRWR page lists) is
 * translated at the time of the transfer, page by page, through that
 * device's IOMMU domain; an address it does not map fails the WR (a local
 * protection or remote access error), as an IOMMU fault ends the I/O on a
 * server. Behind QEMU's intel-iommu the page table entry's access bits are
 * checked too, as VT-d does: a page mapped DMA_TO_DEVICE is read-only for
 * the device, and its writing there faults (dma_direction_faults). (Linux
 * sets every entry's read bit -- the first stage's "present" -- so a
 * DMA_FROM_DEVICE page is readable as well, here as on a server.) Without
 * an IOMMU, a DMA address is the physical address.
 * Inline data is copied from kernel virtual addresses, as verbs say.
 */

#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_queue.h"
#include "rxe_hw.h"
#if IS_ENABLED(CONFIG_INTEL_IOMMU)
/* the kernel source's drivers/iommu/intel/iommu.h (build.sh copies it) */
#include "intel_iommu.h"
#endif
#include "rxe_hw_compat.h"

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

static unsigned int hold_us = 20000;
module_param(hold_us, uint, 0644);
MODULE_PARM_DESC(hold_us,
		 "Longest a SEND's CQE waits for replies, in us (default 20000)");

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

static unsigned int cq_event_delay_us;
module_param(cq_event_delay_us, uint, 0644);
MODULE_PARM_DESC(cq_event_delay_us,
		 "Hold a kernel CQ's completion event this many microseconds, as an RNIC's interrupt moderation does (default 0: at once)");

static bool real_dma = true;
module_param(real_dma, bool, 0444);
MODULE_PARM_DESC(real_dma,
		 "DMA through the DMA API of QEMU's pci-testdev, and its IOMMU if any, when the guest has one (default Y)");

/* WRs that end in error, once, by the opcode they carry */
enum rxe_hw_error_kind {
	RXE_HW_ERROR_WRITE,
	RXE_HW_ERROR_READ,
	RXE_HW_ERROR_SEND,
	RXE_HW_ERROR_KINDS
};

static atomic_t error_in[RXE_HW_ERROR_KINDS];
static atomic_t wrs_errored[RXE_HW_ERROR_KINDS];
/* their debugfs counters, as tests/wr-errors.sh reads them */
static const char *const rxe_hw_wrs_errored_names[RXE_HW_ERROR_KINDS] = {
	[RXE_HW_ERROR_WRITE] = "write_wrs_errored",
	[RXE_HW_ERROR_READ] = "read_wrs_errored",
	[RXE_HW_ERROR_SEND] = "send_wrs_errored",
};

static int rxe_hw_error_in_set(const char *val, const struct kernel_param *kp)
{
	unsigned int k;
	int err = kstrtouint(val, 0, &k);

	if (err)
		return err;
	atomic_set(kp->arg, k);
	return 0;
}

static int rxe_hw_error_in_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops rxe_hw_error_in_ops = {
	.set = rxe_hw_error_in_set,
	.get = rxe_hw_error_in_get,
};

module_param_cb(error_write_in, &rxe_hw_error_in_ops,
		&error_in[RXE_HW_ERROR_WRITE], 0644);
MODULE_PARM_DESC(error_write_in,
		 "The Nth RDMA WRITE of a kernel QP from now ends with a retry error, its QP in error (once; default 0: none)");
module_param_cb(error_read_in, &rxe_hw_error_in_ops,
		&error_in[RXE_HW_ERROR_READ], 0644);
MODULE_PARM_DESC(error_read_in,
		 "The Nth RDMA READ of a kernel QP from now ends with a retry error, its QP in error (once; default 0: none)");
module_param_cb(error_send_in, &rxe_hw_error_in_ops,
		&error_in[RXE_HW_ERROR_SEND], 0644);
MODULE_PARM_DESC(error_send_in,
		 "The Nth SEND of a kernel QP from now ends with a retry error, its QP in error (once; default 0: none)");

static struct dentry *rxe_hw_debugfs;
static atomic_t sq_full_refusals;
static atomic_t send_cqes_held;
/*
 * held SEND CQEs that no reply released: their timer did (time a bench
 * case spends idle under icount)
 */
static atomic_t send_cqe_holds_expired;
static atomic_t cq_events_delayed;
static atomic_t chains_seen[RXE_HW_CHAIN_KINDS];
static atomic_t chains_failed[RXE_HW_CHAIN_KINDS];
static atomic64_t dma_pages_translated;
static atomic_t dma_faults;
static atomic_t dma_direction_faults;
static atomic_t qps_fatal;
/* the PCI function whose DMA API and IOMMU domain rxe-hw devices use */
static struct pci_dev *rxe_hw_pdev;
/* its IOMMU is VT-d, whose page tables rxe_hw_vtd_access() walks */
static bool rxe_hw_behind_vtd;
static bool rxe_hw_pci_registered;

static int rxe_hw_atomic64_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rxe_hw_atomic64_fops, rxe_hw_atomic64_get, NULL,
			 "%llu\n");

/* a kernel QP's send CQEs held back, oldest first (a ring of nr) */
struct rxe_hw_qp {
	spinlock_t		lock;	/* guards the ring */
	struct hrtimer		timer;	/* releases them after hold_us */
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

/**
 * rxe_hw_wqe_error() - should this WQE, about to complete, end in error?
 * @qp: the QP
 * @wqe: the WQE; given IB_WC_RETRY_EXC_ERR if so
 *
 * Return: true for the WQE an error_*_in knob counted down to (the
 * completer then completes it in error and moves the QP to error).
 */
bool rxe_hw_wqe_error(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	enum rxe_hw_error_kind kind;

	if (qp->is_user)
		return false;
	switch (wqe->wr.opcode) {
	case IB_WR_RDMA_WRITE:
		kind = RXE_HW_ERROR_WRITE;
		break;
	case IB_WR_RDMA_READ:
		kind = RXE_HW_ERROR_READ;
		break;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		kind = RXE_HW_ERROR_SEND;
		break;
	default:
		return false;
	}
	/* counts down to 0 and stays there: fires exactly once */
	if (atomic_dec_if_positive(&error_in[kind]) == 0) {
		wqe->status = IB_WC_RETRY_EXC_ERR;
		atomic_inc(&wrs_errored[kind]);
		return true;
	}
	return false;
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

static void rxe_hw_release_all(struct rxe_hw_qp *hw)
{
	unsigned long flags;

	spin_lock_irqsave(&hw->lock, flags);
	rxe_hw_release_held(hw);
	spin_unlock_irqrestore(&hw->lock, flags);
}

static enum hrtimer_restart rxe_hw_hold_expired(struct hrtimer *t)
{
	struct rxe_hw_qp *hw = container_of(t, struct rxe_hw_qp, timer);

	if (READ_ONCE(hw->count))
		atomic_inc(&send_cqe_holds_expired);
	rxe_hw_release_all(hw);
	return HRTIMER_NORESTART;
}

/**
 * rxe_hw_qp_init() - a kernel QP's send queue is created
 * @qp: the QP
 * @max_send_wr: the send queue's size as its consumer was told it
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
	/* soft: expires in softirq context, as a timer_list's would */
	rxe_hw_hrtimer_setup(&hw->timer, rxe_hw_hold_expired, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_SOFT);
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
			hrtimer_start(&hw->timer,
				      ns_to_ktime((u64)READ_ONCE(hold_us) *
						  NSEC_PER_USEC),
				      HRTIMER_MODE_REL_SOFT);
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
		hrtimer_cancel(&qp->hw->timer);
		rxe_hw_release_all(qp->hw);
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

static enum hrtimer_restart rxe_hw_cq_event_fire(struct hrtimer *timer)
{
	struct rxe_cq *cq = container_of(timer, struct rxe_cq, hw_event_timer);

	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return HRTIMER_NORESTART;
}

/**
 * rxe_hw_cq_init() - a CQ is created: its event timer, before anything
 *	that can fail (its cleanup cancels the timer)
 * @cq: the CQ
 */
void rxe_hw_cq_init(struct rxe_cq *cq)
{
	rxe_hw_hrtimer_setup(&cq->hw_event_timer, rxe_hw_cq_event_fire,
			     CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}

/**
 * rxe_hw_cq_event_deferred() - hold a CQ's completion event back?
 * @cq: the CQ, whose consumer asked for the event a CQE just earned
 *
 * Return: true if the event comes cq_event_delay_us later from a timer
 * (already running: the CQE rides on its event), false to raise it now.
 */
bool rxe_hw_cq_event_deferred(struct rxe_cq *cq)
{
	unsigned int us = READ_ONCE(cq_event_delay_us);

	if (cq->is_user || !us)
		return false;
	if (!hrtimer_is_queued(&cq->hw_event_timer))
		hrtimer_start(&cq->hw_event_timer,
			      ns_to_ktime((u64)us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
	atomic_inc(&cq_events_delayed);
	return true;
}

/**
 * rxe_hw_cq_cleanup() - a CQ goes: no event of it may come later
 * @cq: the CQ
 */
void rxe_hw_cq_cleanup(struct rxe_cq *cq)
{
	hrtimer_cancel(&cq->hw_event_timer);
}

/**
 * rxe_hw_dma_device() - the DMA device for a new rxe-hw device
 *
 * Return: the pci-testdev's device, or NULL (rxe's virtual DMA) if the
 * guest has none or real_dma is off.
 */
struct device *rxe_hw_dma_device(void)
{
	return rxe_hw_pdev ? &rxe_hw_pdev->dev : NULL;
}

#if IS_ENABLED(CONFIG_INTEL_IOMMU)
/* is @dev behind VT-d (its IOMMU one of intel-iommu's dmarN units)? */
static bool rxe_hw_is_vtd(struct device *dev)
{
	return dev->iommu && dev->iommu->iommu_dev &&
	       !strncmp(dev_name(dev->iommu->iommu_dev->dev), "dmar", 4);
}

/*
 * What @dma's leaf entry in @domain's VT-d page table lets the device do
 * (RXE_HW_DEV_READS, _WRITES, from DMA_PTE_READ, _WRITE), as the IOMMU
 * checks it on every DMA. QEMU's intel-iommu as the rig runs it (no
 * scalable mode) has second-stage tables only, which this walks from the
 * top the kernel keeps (rxe_hw_vtd_top(): its layout differs by kernel).
 */
static unsigned int rxe_hw_vtd_access(struct iommu_domain *domain, u64 dma)
{
	struct dma_pte *table, *pte;
	int level;
	u64 val;

	table = rxe_hw_vtd_top(to_dmar_domain(domain), &level);
	for (; level > 0; level--) {
		pte = &table[(dma >> (VTD_PAGE_SHIFT + (level - 1) * 9)) & 0x1ff];
		if (!dma_pte_present(pte))
			return 0;
		if (level == 1 || dma_pte_superpage(pte)) {
			val = READ_ONCE(pte->val);
			return (val & DMA_PTE_READ ? RXE_HW_DEV_READS : 0) |
			       (val & DMA_PTE_WRITE ? RXE_HW_DEV_WRITES : 0);
		}
		table = phys_to_virt(dma_pte_addr(pte));
	}
	return 0;
}
#else
static bool rxe_hw_is_vtd(struct device *dev)
{
	return false;
}

static unsigned int rxe_hw_vtd_access(struct iommu_domain *domain, u64 dma)
{
	return 0;
}
#endif

/* the page @dma stands for now, through @dev's IOMMU domain if any */
static struct page *rxe_hw_translate(struct device *dev, u64 dma,
				     unsigned int access)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);
	bool paging = domain && (domain->type & __IOMMU_DOMAIN_PAGING);
	phys_addr_t phys = dma;

	atomic64_inc(&dma_pages_translated);
	if (paging)
		phys = iommu_iova_to_phys(domain, dma);
	if (!phys || !pfn_valid(PHYS_PFN(phys))) {
		atomic_inc(&dma_faults);
		pr_err_ratelimited("rxe-hw: %s: DMA address %#llx is not mapped (an IOMMU fault on hardware): the WR fails\n",
				   dev_name(dev), dma);
		return NULL;
	}
	/* without VT-d, the mapping alone is checked */
	if (paging && rxe_hw_behind_vtd &&
	    (access & ~rxe_hw_vtd_access(domain, dma))) {
		atomic_inc(&dma_faults);
		atomic_inc(&dma_direction_faults);
		pr_err_ratelimited("rxe-hw: %s: the device %s DMA address %#llx, mapped for the other direction only (an IOMMU fault on hardware): the WR fails\n",
				   dev_name(dev),
				   access & RXE_HW_DEV_WRITES ? "writes" : "reads",
				   dma);
		return NULL;
	}
	return pfn_to_page(PHYS_PFN(phys));
}

/**
 * rxe_hw_dma_to_page() - the page a consumer's DMA address stands for now
 * @rxe: the device
 * @dma: the address, as the consumer's ib_dma_map_*() returned it
 * @access: RXE_HW_DEV_READS, RXE_HW_DEV_WRITES or both: what the device is
 *	about to do to the memory
 *
 * Return: the page holding @dma, or NULL if the IOMMU does not map it now,
 * or not for @access (counted in debugfs and logged).
 */
struct page *rxe_hw_dma_to_page(struct rxe_dev *rxe, u64 dma,
				unsigned int access)
{
	struct device *dev = rxe->ib_dev.dma_device;

	if (!dev)
		return virt_to_page((void *)(uintptr_t)dma);
	return rxe_hw_translate(dev, dma, access);
}

/**
 * rxe_hw_dma_copy() - copy to or from memory given by a DMA address
 * @rxe: the device
 * @dma: where the memory starts, as a DMA address of the consumer's
 * @addr: the kernel buffer on the other side
 * @length: bytes to copy
 * @to_dma: true to copy from @addr into the memory at @dma
 *
 * Return: 0, or -EFAULT if a page of the range is not mapped (nothing
 * copied from that page on).
 */
int rxe_hw_dma_copy(struct rxe_dev *rxe, u64 dma, void *addr,
		    unsigned int length, bool to_dma)
{
	while (length) {
		unsigned int offset = offset_in_page(dma);
		unsigned int bytes = min_t(unsigned int, length,
					   PAGE_SIZE - offset);
		struct page *page = rxe_hw_dma_to_page(rxe, dma, to_dma ?
						       RXE_HW_DEV_WRITES :
						       RXE_HW_DEV_READS);
		u8 *va;

		if (!page)
			return -EFAULT;
		va = kmap_local_page(page);
		if (to_dma)
			memcpy(va + offset, addr, bytes);
		else
			memcpy(addr, va + offset, bytes);
		kunmap_local(va);
		dma += bytes;
		addr += bytes;
		length -= bytes;
	}
	return 0;
}

/*
 * debugfs rxe_hw/dma_selftest: map a page for the DMA device, see that its
 * DMA address translates to it, unmap it, and see whether it still does:
 * "faults" behind a translating IOMMU (as every WR's data must), "translates"
 * without one. Then a page mapped for one direction, used both ways: behind
 * VT-d a write to a to-device page "faults", and a read of a from-device
 * page where the kernel maps it write-only ("vtd read bit: as mapped", the
 * last line; "always": the kernel sets every entry's read bit).
 */
static const char *rxe_hw_selftest_seen(struct page *page, struct page *seen)
{
	return seen == page ? "translates" :
		seen ? "translates to another page" : "faults";
}

static const char *rxe_hw_selftest_use(struct device *dev, struct page *page,
				       enum dma_data_direction dir,
				       unsigned int access)
{
	dma_addr_t dma = dma_map_page(dev, page, 0, PAGE_SIZE, dir);
	struct page *seen;

	if (dma_mapping_error(dev, dma))
		return "cannot map";
	seen = rxe_hw_translate(dev, dma + 8, access);
	dma_unmap_page(dev, dma, PAGE_SIZE, dir);
	return rxe_hw_selftest_seen(page, seen);
}

static int rxe_hw_dma_selftest_show(struct seq_file *m, void *unused)
{
	static const struct {
		const char *what;
		enum dma_data_direction dir;
		unsigned int access;
	} uses[] = {
		{ "to-device, device reads", DMA_TO_DEVICE, RXE_HW_DEV_READS },
		{ "to-device, device writes", DMA_TO_DEVICE, RXE_HW_DEV_WRITES },
		{ "from-device, device writes", DMA_FROM_DEVICE,
		  RXE_HW_DEV_WRITES },
		{ "from-device, device reads", DMA_FROM_DEVICE,
		  RXE_HW_DEV_READS },
	};
	const unsigned int rw = RXE_HW_DEV_READS | RXE_HW_DEV_WRITES;
	struct device *dev = rxe_hw_dma_device();
	struct page *page, *seen;
	dma_addr_t dma;
	size_t i;

	if (!dev) {
		seq_puts(m, "no DMA device\n");
		return 0;
	}
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	dma = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, dma)) {
		__free_page(page);
		return -ENOMEM;
	}
	seen = rxe_hw_translate(dev, dma + 8, rw);
	seq_printf(m, "mapped: %s\n", rxe_hw_selftest_seen(page, seen));
	dma_unmap_page(dev, dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	seen = rxe_hw_translate(dev, dma + 8, rw);
	seq_printf(m, "unmapped: %s\n", seen ? "translates" : "faults");
	for (i = 0; i < ARRAY_SIZE(uses); i++)
		seq_printf(m, "%s: %s\n", uses[i].what,
			   rxe_hw_selftest_use(dev, page, uses[i].dir,
					       uses[i].access));
	__free_page(page);
	if (rxe_hw_behind_vtd)
		seq_printf(m, "vtd read bit: %s\n", RXE_HW_VTD_READ_BIT);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rxe_hw_dma_selftest);

/*
 * rxe-hw's registered devices, to find one by name: an ib_client sees each
 * device registered and unregistered (the kernel's ib_device_get_by_name()
 * is gone from 7.x, and would find another driver's devices too).
 */
struct rxe_hw_ibdev {
	struct list_head	list;
	struct ib_device	*ibdev;
};

static LIST_HEAD(rxe_hw_ibdevs);
static DEFINE_MUTEX(rxe_hw_ibdevs_lock);	/* guards the list */
static struct ib_client rxe_hw_ib_client;
static bool rxe_hw_client_registered;

static int rxe_hw_client_add(struct ib_device *ibdev)
{
	struct rxe_hw_ibdev *d;

	if (ibdev->ops.owner != THIS_MODULE)
		return -EOPNOTSUPP;	/* not one of ours: not asked again */
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;
	mutex_lock(&rxe_hw_ibdevs_lock);
	list_add(&d->list, &rxe_hw_ibdevs);
	mutex_unlock(&rxe_hw_ibdevs_lock);
	ib_set_client_data(ibdev, &rxe_hw_ib_client, d);
	return 0;
}

/*
 * @ibdev is being unregistered: found no more. Its unregistering waits
 * for the references rxe_hw_get_device() gave out before.
 */
static void rxe_hw_client_remove(struct ib_device *ibdev, void *data)
{
	struct rxe_hw_ibdev *d = data;

	mutex_lock(&rxe_hw_ibdevs_lock);
	list_del(&d->list);
	mutex_unlock(&rxe_hw_ibdevs_lock);
	kfree(d);
}

static struct ib_client rxe_hw_ib_client = {
	.name	= "rxe_hw",
	.add	= rxe_hw_client_add,
	.remove	= rxe_hw_client_remove,
};

/**
 * rxe_hw_get_device() - hold the rxe-hw device of a name
 * @name: its name (rxehw0)
 *
 * Return: the device, held (ib_device_put() it), or NULL if rxe-hw has
 * no device of that name registered.
 */
struct ib_device *rxe_hw_get_device(const char *name)
{
	struct ib_device *found = NULL;
	struct rxe_hw_ibdev *d;

	mutex_lock(&rxe_hw_ibdevs_lock);
	list_for_each_entry(d, &rxe_hw_ibdevs, list) {
		if (!strcmp(dev_name(&d->ibdev->dev), name)) {
			if (ib_device_try_get(d->ibdev))
				found = d->ibdev;
			break;
		}
	}
	mutex_unlock(&rxe_hw_ibdevs_lock);
	return found;
}
EXPORT_SYMBOL_GPL(rxe_hw_get_device);	/* rxe_hw_test.ko */

/* debugfs rxe_hw/qp_fatal: "DEVICE QPN" -- that kernel QP fails by itself */
static ssize_t rxe_hw_qp_fatal_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_event ev = { .event = IB_EVENT_QP_FATAL };
	char buf[96], name[IB_DEVICE_NAME_MAX];
	struct ib_device *ibdev;
	unsigned long flags;
	struct rxe_qp *qp;
	ssize_t ret;
	u32 qpn;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%63s %u", name, &qpn) != 2)
		return -EINVAL;
	ibdev = rxe_hw_get_device(name);
	if (!ibdev)
		return -ENODEV;
	qp = rxe_pool_get_index(&to_rdev(ibdev)->qp_pool, qpn);
	if (!qp) {
		ret = -ENOENT;
		goto out_put_dev;
	}
	if (qp->is_user) {
		ret = -EPERM;
		goto out_put_qp;
	}
	/*
	 * The event first, then the error state and its flushes: raised
	 * after them (7.3's rxe flushes at once), the consumer's recovery
	 * from a flush could already have taken the queue down, and the
	 * event found nothing live to report.
	 */
	if (qp->ibqp.event_handler) {
		ev.device = ibdev;
		ev.element.qp = &qp->ibqp;
		/* as from an RNIC's event queue interrupt: no sleeping */
		local_irq_save(flags);
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
		local_irq_restore(flags);
	}
	ret = ib_modify_qp(&qp->ibqp, &attr, IB_QP_STATE);
	if (ret)
		goto out_put_qp;
	atomic_inc(&qps_fatal);
	ret = count;
out_put_qp:
	rxe_put(qp);
out_put_dev:
	ib_device_put(ibdev);
	return ret;
}

static const struct file_operations rxe_hw_qp_fatal_fops = {
	.owner	= THIS_MODULE,
	.write	= rxe_hw_qp_fatal_write,
};

static int rxe_hw_pci_probe(struct pci_dev *pdev,
			    const struct pci_device_id *id)
{
	struct iommu_domain *domain;
	int err;

	if (!real_dma || rxe_hw_pdev)
		return -ENODEV;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		return err;
	/* as mlx5 does: RDMA SGEs and MR pages may be large */
	dma_set_max_seg_size(&pdev->dev, SZ_2G);
	rxe_hw_pdev = pdev;
	rxe_hw_behind_vtd = rxe_hw_is_vtd(&pdev->dev);
	domain = iommu_get_domain_for_dev(&pdev->dev);
	dev_info(&pdev->dev, "rxe-hw: the DMA device of rxe-hw devices, %s\n",
		 !domain ? "no IOMMU" :
		 domain->type & __IOMMU_DOMAIN_PAGING ? "IOMMU translating" :
		 "IOMMU in passthrough");
	return 0;
}

static void rxe_hw_pci_remove(struct pci_dev *pdev)
{
	/* devices registered with it are gone (rxe-hw unloads) */
	rxe_hw_pdev = NULL;
}

static const struct pci_device_id rxe_hw_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT, 0x0005) },	/* QEMU pci-testdev */
	{ }
};

static struct pci_driver rxe_hw_pci_driver = {
	.name		= "rxe_hw_dma",
	.id_table	= rxe_hw_pci_ids,
	.probe		= rxe_hw_pci_probe,
	.remove		= rxe_hw_pci_remove,
};

/**
 * rxe_hw_init() - rxe-hw's counters in debugfs (rxe_hw/), its DMA
 *	device's driver, and its ib_client (rxe_hw_get_device())
 *
 * Return: 0; debugfs is optional, and without a DMA device DMA is rxe's.
 */
int rxe_hw_init(void)
{
	enum rxe_hw_error_kind kind;
	int err;

	/* before any device of ours registers: qp_fatal finds them by it */
	err = ib_register_client(&rxe_hw_ib_client);
	rxe_hw_client_registered = !err;
	if (err)
		pr_warn("rxe-hw: no ib_client (%d): qp_fatal finds no device\n",
			err);
	rxe_hw_debugfs = debugfs_create_dir("rxe_hw", NULL);
	debugfs_create_atomic_t("sq_full_refusals", 0444, rxe_hw_debugfs,
				&sq_full_refusals);
	debugfs_create_atomic_t("send_cqes_held", 0444, rxe_hw_debugfs,
				&send_cqes_held);
	debugfs_create_atomic_t("send_cqe_holds_expired", 0444, rxe_hw_debugfs,
				&send_cqe_holds_expired);
	debugfs_create_atomic_t("cq_events_delayed", 0444, rxe_hw_debugfs,
				&cq_events_delayed);
	debugfs_create_atomic_t("write_chains_failed", 0444, rxe_hw_debugfs,
				&chains_failed[RXE_HW_WRITE_CHAIN]);
	debugfs_create_atomic_t("read_chains_failed", 0444, rxe_hw_debugfs,
				&chains_failed[RXE_HW_READ_CHAIN]);
	debugfs_create_atomic_t("send_chains_failed", 0444, rxe_hw_debugfs,
				&chains_failed[RXE_HW_SEND_CHAIN]);
	for (kind = 0; kind < RXE_HW_ERROR_KINDS; kind++)
		debugfs_create_atomic_t(rxe_hw_wrs_errored_names[kind], 0444,
					rxe_hw_debugfs, &wrs_errored[kind]);
	debugfs_create_atomic_t("dma_faults", 0444, rxe_hw_debugfs,
				&dma_faults);
	debugfs_create_atomic_t("dma_direction_faults", 0444, rxe_hw_debugfs,
				&dma_direction_faults);
	debugfs_create_file("dma_pages_translated", 0444, rxe_hw_debugfs,
			    &dma_pages_translated, &rxe_hw_atomic64_fops);
	debugfs_create_file("dma_selftest", 0444, rxe_hw_debugfs, NULL,
			    &rxe_hw_dma_selftest_fops);
	debugfs_create_file("qp_fatal", 0200, rxe_hw_debugfs, NULL,
			    &rxe_hw_qp_fatal_fops);
	debugfs_create_atomic_t("qps_fatal", 0444, rxe_hw_debugfs, &qps_fatal);
	err = pci_register_driver(&rxe_hw_pci_driver);
	rxe_hw_pci_registered = !err;
	if (err)
		pr_warn("rxe-hw: no driver for its DMA device (%d): DMA is rxe's\n",
			err);
	pr_info("rxe-hw: send-queue slots retire as on hardware%s; SEND CQEs after the reply%s\n",
		sq_rule ? "" : " (off: sq_rule=N)",
		send_cqe_after_reply ? "" : " (off: send_cqe_after_reply=N)");
	pr_info("rxe-hw: DMA %s\n", rxe_hw_pdev ?
		"through the DMA API of the pci-testdev" :
		"virtual (no pci-testdev, or real_dma=N)");
	return 0;
}

/**
 * rxe_hw_exit() - remove the debugfs directory, the DMA device's driver
 *	and the ib_client
 */
void rxe_hw_exit(void)
{
	if (rxe_hw_pci_registered)
		pci_unregister_driver(&rxe_hw_pci_driver);
	/* no qp_fatal write in flight after it: then the client may go */
	debugfs_remove_recursive(rxe_hw_debugfs);
	if (rxe_hw_client_registered)
		ib_unregister_client(&rxe_hw_ib_client);
}
