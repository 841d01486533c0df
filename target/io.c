// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target: the I/O fast path (command receive, SGL
 * mapping, RDMA READ/WRITE, response send).
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/atomic.h>
#include <linux/blk-integrity.h>
#include <linux/nvme.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>

#include "nvmet_rdma.h"
#include "wire.h"
#include "trace.h"

static bool nvmet_rdma_execute_command(struct nvmet_rdma_rsp *rsp);

/* a work request failed (not flushed): its queue's controller fails */
static void nvmet_rdma_wr_failed(struct nvmet_rdma_queue *queue)
{
	atomic64_inc(&queue->stats.wc_errors);
	nvmet_rdma_error_comp(queue);
}

static inline bool nvmet_rdma_need_data_in(struct nvmet_rdma_rsp *rsp)
{
	return nvme_is_write(rsp->req.cmd) &&
		rsp->req.transfer_len &&
		!(rsp->flags & NVMET_RDMA_REQ_IN_CAPSULE_DATA);
}

static inline bool nvmet_rdma_need_data_out(struct nvmet_rdma_rsp *rsp)
{
	return !nvme_is_write(rsp->req.cmd) &&
		rsp->req.transfer_len &&
		!rsp->req.cqe->status &&
		!(rsp->flags & NVMET_RDMA_REQ_IN_CAPSULE_DATA);
}

static inline struct nvmet_rdma_rsp *
nvmet_rdma_get_rsp(struct nvmet_rdma_queue *queue)
{
	struct llist_node *node = llist_del_first(&queue->free_rsps);
	struct nvmet_rdma_rsp *rsp;

	if (likely(node)) {
		rsp = llist_entry(node, struct nvmet_rdma_rsp, free_node);
		rsp->in_use = true;
	} else {
		int ret;

		WRITE_ONCE(queue->stats.rsps_discrete,
			   queue->stats.rsps_discrete + 1);
		rsp = kzalloc(sizeof(*rsp), GFP_KERNEL);
		if (unlikely(!rsp))
			return NULL;
		ret = nvmet_rdma_alloc_rsp(queue->dev, rsp,
					   NVMET_RDMA_DISCRETE_RSP_TAG);
		if (unlikely(ret)) {
			kfree(rsp);
			return NULL;
		}
	}

	return rsp;
}

/*
 * A receive buffer's in-capsule data pages stay DMA-mapped for the buffer's
 * lifetime, so the DMA API has to hand them over explicitly, as it does the
 * command: to the CPU before the backend reads what the last receive put
 * there (behind swiotlb the data is still in the bounce buffer until then;
 * on a CPU without coherent DMA, stale cache lines would be read), and back
 * to the device before the buffer is posted again. Only the pages that
 * receive filled; nothing on a software device (virtual DMA).
 */
static void nvmet_rdma_sync_in_capsule(struct ib_device *dev,
				       struct nvmet_rdma_cmd *cmd, bool for_cpu)
{
	u32 pages = min_t(u32, DIV_ROUND_UP(cmd->in_capsule_received, PAGE_SIZE),
			  cmd->wr.num_sge - 1);
	struct ib_sge *sge;

	for (sge = &cmd->sge[1]; sge <= &cmd->sge[pages]; sge++) {
		if (for_cpu)
			ib_dma_sync_single_for_cpu(dev, sge->addr, sge->length,
						   DMA_FROM_DEVICE);
		else
			ib_dma_sync_single_for_device(dev, sge->addr,
						      sge->length,
						      DMA_FROM_DEVICE);
	}
}

/**
 * nvmet_rdma_post_recv() - post a command buffer for the next RDMA RECV
 * @ndev: the device the buffer is mapped for
 * @cmd: the command buffer; posted to its SRQ if it has one, else to its
 *	queue's QP
 *
 * Return: 0, or the error from posting the receive.
 */
int nvmet_rdma_post_recv(struct nvmet_rdma_device *ndev,
			 struct nvmet_rdma_cmd *cmd)
{
	int ret;

	ib_dma_sync_single_for_device(ndev->device,
				      cmd->sge[0].addr, cmd->sge[0].length,
				      DMA_FROM_DEVICE);
	nvmet_rdma_sync_in_capsule(ndev->device, cmd, false);

	if (cmd->nsrq)
		ret = ib_post_srq_recv(cmd->nsrq->srq, &cmd->wr, NULL);
	else
		ret = ib_post_recv(cmd->queue->qp, &cmd->wr, NULL);

	if (unlikely(ret))
		pr_err("post_recv cmd failed\n");

	return ret;
}

/*
 * A command waiting for send-queue credits on a queue that is going is not
 * run (nothing may be posted once its QP drains), only released, with the
 * sq reference it holds: nvmet's for a command, ours for a response alone.
 */
static void nvmet_rdma_drop_waiting(struct nvmet_rdma_rsp *rsp)
{
	atomic_inc(&rsp->queue->waiting_dropped);
	if (!(rsp->flags & NVMET_RDMA_REQ_RSP_ONLY))
		nvmet_req_uninit(&rsp->req);
	nvmet_rdma_free_rsp_resources(rsp);
	nvmet_rdma_put_rsp(rsp);
}

/*
 * Run the commands that waited for send-queue credits, oldest first, until
 * one has to wait again. Called where credits come back: completions (the
 * CQ's work) and never from a backend's completion, which may be hard IRQ:
 * running a command may sleep (the bdev backend allocates).
 */
static void nvmet_rdma_process_wr_wait_list(struct nvmet_rdma_queue *queue)
{
	spin_lock(&queue->rsp_wr_wait_lock);
	while (!list_empty(&queue->rsp_wr_wait_list)) {
		struct nvmet_rdma_rsp *rsp;
		bool ret;

		rsp = list_entry(queue->rsp_wr_wait_list.next,
				 struct nvmet_rdma_rsp, wait_list);
		list_del(&rsp->wait_list);

		spin_unlock(&queue->rsp_wr_wait_lock);
		if (unlikely(READ_ONCE(queue->state) ==
			     NVMET_RDMA_Q_DISCONNECTING)) {
			nvmet_rdma_drop_waiting(rsp);
			spin_lock(&queue->rsp_wr_wait_lock);
			continue;
		}
		ret = nvmet_rdma_execute_command(rsp);
		spin_lock(&queue->rsp_wr_wait_lock);

		if (!ret) {
			list_add(&rsp->wait_list, &queue->rsp_wr_wait_list);
			break;
		}
	}
	spin_unlock(&queue->rsp_wr_wait_lock);
}

/**
 * nvmet_rdma_drop_wait_list() - release the commands still waiting for
 *	send-queue credits on a queue that is going
 * @queue: the queue, DISCONNECTING
 *
 * Before the sq is destroyed, which waits for the references they hold:
 * with the QP in error, credits may never come back to run them.
 */
void nvmet_rdma_drop_wait_list(struct nvmet_rdma_queue *queue)
{
	struct nvmet_rdma_rsp *rsp, *next;
	LIST_HEAD(waiting);

	spin_lock(&queue->rsp_wr_wait_lock);
	list_splice_init(&queue->rsp_wr_wait_list, &waiting);
	spin_unlock(&queue->rsp_wr_wait_lock);
	list_for_each_entry_safe(rsp, next, &waiting, wait_list) {
		list_del(&rsp->wait_list);
		nvmet_rdma_drop_waiting(rsp);
	}
}

static u16 nvmet_rdma_check_pi_status(struct ib_mr *sig_mr)
{
	struct ib_mr_status mr_status;
	int ret;
	u16 status = 0;

	ret = ib_check_mr_status(sig_mr, IB_MR_CHECK_SIG_STATUS, &mr_status);
	if (ret) {
		pr_err("ib_check_mr_status failed, ret %d\n", ret);
		return NVME_SC_INVALID_PI;
	}

	if (mr_status.fail_status & IB_MR_CHECK_SIG_STATUS) {
		switch (mr_status.sig_err.err_type) {
		case IB_SIG_BAD_GUARD:
			status = NVME_SC_GUARD_CHECK;
			break;
		case IB_SIG_BAD_REFTAG:
			status = NVME_SC_REFTAG_CHECK;
			break;
		case IB_SIG_BAD_APPTAG:
			status = NVME_SC_APPTAG_CHECK;
			break;
		}
		pr_err("PI error found type %d expected 0x%x vs actual 0x%x\n",
		       mr_status.sig_err.err_type,
		       mr_status.sig_err.expected,
		       mr_status.sig_err.actual);
	}

	return status;
}

static void nvmet_rdma_set_sig_domain(struct blk_integrity *bi,
				      struct nvme_command *cmd,
				      struct ib_sig_domain *domain,
				      u16 control, u8 pi_type)
{
	domain->sig_type = IB_SIG_TYPE_T10_DIF;
	domain->sig.dif.bg_type = IB_T10DIF_CRC;
	domain->sig.dif.pi_interval = 1 << bi->interval_exp;
	domain->sig.dif.ref_tag = le32_to_cpu(cmd->rw.reftag);
	if (control & NVME_RW_PRINFO_PRCHK_REF)
		domain->sig.dif.ref_remap = true;

	domain->sig.dif.app_tag = le16_to_cpu(nvmeof_rw_apptag(&cmd->rw));
	domain->sig.dif.apptag_check_mask = le16_to_cpu(nvmeof_rw_appmask(&cmd->rw));
	domain->sig.dif.app_escape = true;
	if (pi_type == NVME_NS_DPS_PI_TYPE3)
		domain->sig.dif.ref_escape = true;
}

static void nvmet_rdma_set_sig_attrs(struct nvmet_req *req,
				     struct ib_sig_attrs *sig_attrs)
{
	struct nvme_command *cmd = req->cmd;
	u16 control = le16_to_cpu(cmd->rw.control);
	u8 pi_type = req->ns->pi_type;
	struct blk_integrity *bi;

	bi = bdev_get_integrity(req->ns->bdev);

	memset(sig_attrs, 0, sizeof(*sig_attrs));

	if (control & NVME_RW_PRINFO_PRACT) {
		/* for WRITE_INSERT/READ_STRIP no wire domain */
		sig_attrs->wire.sig_type = IB_SIG_TYPE_NONE;
		nvmet_rdma_set_sig_domain(bi, cmd, &sig_attrs->mem, control,
					  pi_type);
		/* Clear the PRACT bit since HCA will generate/verify the PI */
		control &= ~NVME_RW_PRINFO_PRACT;
		cmd->rw.control = cpu_to_le16(control);
		/* PI is added by the HW */
		req->transfer_len += req->metadata_len;
	} else {
		/* for WRITE_PASS/READ_PASS both wire/memory domains exist */
		nvmet_rdma_set_sig_domain(bi, cmd, &sig_attrs->wire, control,
					  pi_type);
		nvmet_rdma_set_sig_domain(bi, cmd, &sig_attrs->mem, control,
					  pi_type);
	}

	if (control & NVME_RW_PRINFO_PRCHK_REF)
		sig_attrs->check_mask |= IB_SIG_CHECK_REFTAG;
	if (control & NVME_RW_PRINFO_PRCHK_GUARD)
		sig_attrs->check_mask |= IB_SIG_CHECK_GUARD;
	if (control & NVME_RW_PRINFO_PRCHK_APP)
		sig_attrs->check_mask |= IB_SIG_CHECK_APPTAG;
}

/**
 * nvmet_rdma_free_rsp_resources() - release what a response holds for I/O
 * @rsp: the response
 *
 * Destroys the RDMA R/W context if one was set up and releases the
 * request's data buffers unless they are the command's in-capsule pages.
 */
void nvmet_rdma_free_rsp_resources(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue *queue = rsp->queue;

	if (rsp->n_rdma)
		nvmet_rdma_rw_destroy(rsp);

	if (rsp->req.sg < rsp->cmd->in_capsule_sg ||
	    rsp->req.sg >= rsp->cmd->in_capsule_sg + queue->dev->in_capsule_pages)
		nvmet_rdma_free_data_sgl(rsp);
}

static void nvmet_rdma_release_rsp(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue *queue = rsp->queue;

	atomic_add(1 + rsp->n_rdma + rsp->unsignalled_credits, &queue->sq_wr_avail);

	nvmet_rdma_free_rsp_resources(rsp);

	if (unlikely(!list_empty_careful(&queue->rsp_wr_wait_list)))
		nvmet_rdma_process_wr_wait_list(queue);

	nvmet_rdma_put_rsp(rsp);
}

/*
 * ib_post_send() of @rsp's chain failed at @bad_wr. When WRs before it went
 * in -- RDMA READs into the command's data pages, RDMA WRITEs out of them,
 * the REG_MR of them -- the device runs or flushes them later, so nothing
 * they use may be released or reused now: the queue is failed (its QP
 * flushed), @rsp stays taken, and the queue's teardown reclaims its
 * resources once the QP is drained (nvmet_rdma_destroy_queue_ib()).
 *
 * Return: true if part of the chain was posted.
 */
static bool nvmet_rdma_posted_in_part(struct nvmet_rdma_rsp *rsp,
				      const struct ib_send_wr *first_wr,
				      const struct ib_send_wr *bad_wr, int ret,
				      const char *what)
{
	struct nvmet_rdma_queue *queue = rsp->queue;

	if (!bad_wr || bad_wr == first_wr)
		return false;
	pr_err("queue %d: %s posted in part (%d): failing the queue\n",
	       queue->idx, what, ret);
	if (rsp->tag == NVMET_RDMA_DISCRETE_RSP_TAG)
		llist_add(&rsp->free_node, &queue->stranded_rsps);
	nvmet_rdma_fail_queue_later(queue);	/* may be hard IRQ here */
	return true;
}

/*
 * Post the response's chain (the RDMA WRITEs before it, if any, then the
 * SEND of the CQE); if that fails, the response is released here (or, when
 * part of the chain went in, left to the queue's teardown) and false
 * returned.
 *
 * This runs where the backend completes a command, hard IRQ for nvme-pci
 * and most block drivers: a failure fails the queue from a work item and
 * runs no waiting command. Its own WRs' credits come back (the device took
 * none); the unsignalled SENDs it would have retired are still on the
 * queue, so their credits stay held for the next signalled one. The host
 * never gets this answer: the queue's failure makes it reconnect.
 */
static bool nvmet_rdma_post_response(struct nvmet_rdma_rsp *rsp,
				     struct ib_send_wr *first_wr)
{
	struct nvmet_rdma_queue *queue = rsp->queue;
	const struct ib_send_wr *bad_wr = NULL;
	int ret = ib_post_send(queue->qp, first_wr, &bad_wr);

	if (likely(!ret))
		return true;
	if (nvmet_rdma_posted_in_part(rsp, first_wr, bad_wr, ret,
				      "a response with its data"))
		return false;
	pr_err("queue %d: posting a %ssignalled response failed (%d): failing the queue\n",
	       queue->idx,
	       rsp->send_wr.send_flags & IB_SEND_SIGNALED ? "" : "un", ret);
	nvmet_rdma_fail_queue_later(queue);
	atomic_add(1 + rsp->n_rdma, &queue->sq_wr_avail);
	atomic_add(rsp->unsignalled_credits, &queue->unsignalled_held);
	nvmet_rdma_free_rsp_resources(rsp);
	nvmet_rdma_put_rsp(rsp);
	return false;
}

/*
 * A response without data out needs no completion: its CQE travels inline
 * (the device copies it into the work request at post time) and the device
 * no longer reads its data pages. So most go in unsignalled SENDs and are
 * released right after the post: a CQ entry and a callback less per write.
 * One in signal_mask + 1 is signalled, because on a hardware queue pair the
 * slots of unsignalled work requests are free only once a later signalled
 * one completes: that one takes the credits the unsignalled ones posted
 * before it hold (unsignalled_held) and gives them back with its own.
 * Responses whose command still holds RDMA credits (a read failed after its
 * WRITEs were set up) stay signalled, and on iWARP those with remote
 * invalidation: siw takes inline data in a plain SEND only (it accepts an
 * inline SEND_WITH_INV, then fails the queue pair's send queue), and what
 * other iWARP devices do is untested.
 */
static bool nvmet_rdma_goes_unsignalled(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue *queue = rsp->queue;

	if (!queue->unsignalled_sends || rsp->n_rdma ||
	    (!queue->unsignalled_inv &&
	     (rsp->flags & NVMET_RDMA_REQ_INVALIDATE_RKEY)))
		return false;
	if (atomic_inc_return(&queue->unsignalled_count) & queue->signal_mask)
		return true;
	rsp->unsignalled_credits = atomic_xchg(&queue->unsignalled_held, 0);
	return false;
}

static void nvmet_rdma_post_unsignalled_response(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue *queue = rsp->queue;

	rsp->send_wr.send_flags = IB_SEND_INLINE;
	rsp->send_wr.wr_cqe = &queue->unsignalled_cqe;
	rsp->send_wr.sg_list = &rsp->inline_sge;
	if (!nvmet_rdma_post_response(rsp, &rsp->send_wr))
		return;
	/*
	 * Its credit stays taken until a signalled SEND posted after this
	 * point completes: counted only now that the post is done, so that
	 * no signalled SEND posted before it can give it back.
	 */
	atomic_inc(&queue->unsignalled_held);
	nvmet_rdma_free_rsp_resources(rsp);
	nvmet_rdma_put_rsp(rsp);
}

/**
 * nvmet_rdma_unsignalled_done() - completion of an unsignalled work
 *	request: a response SEND, or an RDMA READ or WRITE before the
 *	signalled or chained last one of its transfer
 * @cq: the completion queue
 * @wc: the work completion, its wr_cqe being the queue's unsignalled_cqe
 *
 * Only a failed or flushed one completes (an RNIC reports every failure,
 * signalled or not), its response perhaps long released: a failure other
 * than a flush is a fatal controller error. Without it the WRs behind the
 * failed one are only flushed, which is no error of its own, and the host
 * would wait for its commands to time out.
 */
void nvmet_rdma_unsignalled_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvmet_rdma_queue *queue = wc->qp->qp_context;

	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		pr_err("queue %d: an unsignalled work request failed with status %s (%d)\n",
		       queue->idx, ib_wc_status_msg(wc->status), wc->status);
		nvmet_rdma_wr_failed(queue);
	}
}

/**
 * nvmet_rdma_send_done() - completion of the RDMA SEND of a response
 * @cq: the completion queue
 * @wc: the work completion, its wr_cqe being the response's send_cqe
 *
 * Releases the response; a failure other than a flush is a fatal
 * controller error.
 */
void nvmet_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvmet_rdma_rsp *rsp =
		container_of(wc->wr_cqe, struct nvmet_rdma_rsp, send_cqe);
	struct nvmet_rdma_queue *queue = wc->qp->qp_context;

	nvmet_rdma_release_rsp(rsp);

	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		pr_err("SEND for CQE 0x%p failed with status %s (%d).\n",
		       wc->wr_cqe, ib_wc_status_msg(wc->status), wc->status);
		nvmet_rdma_wr_failed(queue);
	}
}

/**
 * nvmet_rdma_queue_response() - nvmet_fabrics_ops.queue_response: send the
 *	completion of a request to the host
 * @req: the completed request, embedded in a struct nvmet_rdma_rsp
 *
 * Reposts the command's receive buffer, then posts the RDMA WRITE of the
 * read data (if any) chained with the SEND of the CQE, or the SEND alone.
 */
void nvmet_rdma_queue_response(struct nvmet_req *req)
{
	struct nvmet_rdma_rsp *rsp =
		container_of(req, struct nvmet_rdma_rsp, req);
	bool data_out = nvmet_rdma_need_data_out(rsp);
	struct ib_send_wr *first_wr;
	enum nvmeof_status_class status;

	/*
	 * A command refused before it ran (by nvmet_req_init() or the SGL
	 * checks) took no send queue credit, yet its SEND takes a slot and
	 * gives a credit back once released (or, unsignalled, through
	 * unsignalled_held). So it takes one first, waiting for it like a
	 * command does: posted without one, every refusal would add a credit
	 * the queue pair does not have, until posts overflow the send queue
	 * and fail, their commands never answered.
	 * It holds no reference of the sq (nvmet's is a command's), so it
	 * takes one, as a command does, until it is released: the queue's
	 * teardown, which waits for the sq's references before it drains
	 * the QP, then waits for it too, and nothing is posted after the
	 * drain (a WR behind the drain's completes after the responses are
	 * freed). A queue whose sq is going answers it no more.
	 */
	if (unlikely(!(rsp->flags & NVMET_RDMA_REQ_SQ_CREDITS))) {
		struct nvmet_rdma_queue *queue = rsp->queue;

		if (!percpu_ref_tryget_live(&queue->nvme_sq.ref)) {
			nvmet_rdma_free_rsp_resources(rsp);
			nvmet_rdma_put_rsp(rsp);
			return;
		}
		rsp->flags |= NVMET_RDMA_REQ_RSP_ONLY | NVMET_RDMA_REQ_SQ_REF;
		if (!nvmet_rdma_execute_command(rsp)) {
			spin_lock(&queue->rsp_wr_wait_lock);
			list_add_tail(&rsp->wait_list, &queue->rsp_wr_wait_list);
			spin_unlock(&queue->rsp_wr_wait_lock);
		}
		return;
	}

	status = nvmeof_status_class(le16_to_cpu(req->cqe->status));
	if (unlikely(status != NVMEOF_STATUS_CLASSES))
		atomic64_inc(&rsp->queue->stats.status[status]);

	if (rsp->flags & NVMET_RDMA_REQ_INVALIDATE_RKEY) {
		rsp->send_wr.opcode = IB_WR_SEND_WITH_INV;
		rsp->send_wr.ex.invalidate_rkey = rsp->invalidate_rkey;
	} else {
		rsp->send_wr.opcode = IB_WR_SEND;
	}

	if (!data_out && nvmet_rdma_goes_unsignalled(rsp)) {
		trace_nvmet_rdma_post_response(rsp, false);
		nvmet_rdma_post_recv(rsp->queue->dev, rsp->cmd);
		nvmet_rdma_post_unsignalled_response(rsp);
		return;
	}

	rsp->send_wr.send_flags = IB_SEND_SIGNALED;
	rsp->send_wr.wr_cqe = &rsp->send_cqe;
	rsp->send_wr.sg_list = &rsp->send_sge;
	if (data_out) {
		if (rsp->req.metadata_len)
			first_wr = nvmet_rdma_rw_wrs(rsp, &rsp->write_cqe, NULL);
		else
			first_wr = nvmet_rdma_rw_wrs(rsp, NULL, &rsp->send_wr);
	} else {
		first_wr = &rsp->send_wr;
	}

	trace_nvmet_rdma_post_response(rsp, true);
	nvmet_rdma_post_recv(rsp->queue->dev, rsp->cmd);

	ib_dma_sync_single_for_device(rsp->queue->dev->device,
				      rsp->send_sge.addr, rsp->send_sge.length,
				      DMA_TO_DEVICE);

	nvmet_rdma_post_response(rsp, first_wr);
}

/**
 * nvmet_rdma_read_data_done() - completion of the RDMA READ of write data
 * @cq: the completion queue
 * @wc: the work completion, its wr_cqe being the response's read_cqe
 *
 * Checks the protection information if any, then executes the request.
 */
void nvmet_rdma_read_data_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvmet_rdma_rsp *rsp =
		container_of(wc->wr_cqe, struct nvmet_rdma_rsp, read_cqe);
	struct nvmet_rdma_queue *queue = wc->qp->qp_context;
	u16 status = 0;

	WARN_ON(rsp->n_rdma <= 0);
	atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
	rsp->n_rdma = 0;
	/*
	 * Credits came back: a command may wait for them. Not only at a
	 * SEND's completion, since most responses to writes complete none.
	 */
	if (unlikely(!list_empty_careful(&queue->rsp_wr_wait_list)))
		nvmet_rdma_process_wr_wait_list(queue);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		nvmet_rdma_rw_destroy(rsp);
		nvmet_req_uninit(&rsp->req);
		nvmet_rdma_release_rsp(rsp);
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_info("RDMA READ for CQE 0x%p failed with status %s (%d).\n",
				wc->wr_cqe, ib_wc_status_msg(wc->status), wc->status);
			nvmet_rdma_wr_failed(queue);
		}
		return;
	}

	if (rsp->req.metadata_len)
		status = nvmet_rdma_check_pi_status(rsp->rw.reg->mr);
	nvmet_rdma_rw_destroy(rsp);

	if (unlikely(status))
		nvmet_req_complete(&rsp->req, status);
	else
		rsp->req.execute(&rsp->req);
}

/**
 * nvmet_rdma_write_data_done() - completion of the RDMA WRITE of read data
 * @cq: the completion queue
 * @wc: the work completion, its wr_cqe being the response's write_cqe
 *
 * Only signalled with protection information: checks its status, sets the
 * CQE status accordingly and posts the SEND of the CQE.
 */
void nvmet_rdma_write_data_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvmet_rdma_rsp *rsp =
		container_of(wc->wr_cqe, struct nvmet_rdma_rsp, write_cqe);
	struct nvmet_rdma_queue *queue = wc->qp->qp_context;
	u16 status;

	if (!IS_ENABLED(CONFIG_BLK_DEV_INTEGRITY))
		return;

	WARN_ON(rsp->n_rdma <= 0);
	atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
	rsp->n_rdma = 0;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		nvmet_rdma_rw_destroy(rsp);
		nvmet_req_uninit(&rsp->req);
		nvmet_rdma_release_rsp(rsp);
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_info("RDMA WRITE for CQE failed with status %s (%d).\n",
				ib_wc_status_msg(wc->status), wc->status);
			nvmet_rdma_wr_failed(queue);
		}
		return;
	}

	/*
	 * Upon RDMA completion check the signature status
	 * - if succeeded send good NVMe response
	 * - if failed send bad NVMe response with appropriate error
	 */
	status = nvmet_rdma_check_pi_status(rsp->rw.reg->mr);
	if (unlikely(status))
		rsp->req.cqe->status = cpu_to_le16(status << 1);
	nvmet_rdma_rw_destroy(rsp);

	nvmet_rdma_post_response(rsp, &rsp->send_wr);
}

static void nvmet_rdma_use_in_capsule_sg(struct nvmet_rdma_rsp *rsp, u32 len,
					 u64 off)
{
	u64 page_off = off % PAGE_SIZE;
	u64 page_idx = off / PAGE_SIZE;
	int sg_count = num_pages(page_off + len);
	struct scatterlist *sg;
	int i;

	sg = &rsp->cmd->in_capsule_sg[page_idx];
	for (i = 0; i < sg_count; i++, sg++) {
		if (i < sg_count - 1)
			sg_unmark_end(sg);
		else
			sg_mark_end(sg);
		sg->offset = page_off;
		sg->length = min_t(u64, len, PAGE_SIZE - page_off);
		len -= sg->length;
		page_off = 0;
	}

	rsp->req.sg = &rsp->cmd->in_capsule_sg[page_idx];
	rsp->req.sg_cnt = sg_count;
}

static u16 nvmet_rdma_map_sgl_in_capsule(struct nvmet_rdma_rsp *rsp)
{
	struct nvme_sgl_desc *sgl = &rsp->req.cmd->common.dptr.sgl;
	u64 off = le64_to_cpu(sgl->addr);
	u32 len = le32_to_cpu(sgl->length);
	u16 status;

	/*
	 * Only a write may carry in-capsule data, and [off, off + len) must
	 * lie within the in-capsule data received; off + len is overflow
	 * checked.
	 */
	status = nvmeof_check_in_capsule_sgl(off, len,
					     rsp->queue->dev->in_capsule_size,
					     rsp->cmd->in_capsule_received,
					     nvme_is_write(rsp->req.cmd),
					     &rsp->req.error_loc);
	if (status) {
		if (nvme_is_write(rsp->req.cmd))
			pr_err_ratelimited("queue %d: in-capsule data offset %llu length %u outside the %u bytes received (%u offered)\n",
					   rsp->queue->idx, off, len,
					   rsp->cmd->in_capsule_received,
					   rsp->queue->dev->in_capsule_size);
		return status;
	}

	/* no data command? */
	if (!len)
		return 0;

	nvmet_rdma_use_in_capsule_sg(rsp, len, off);
	rsp->flags |= NVMET_RDMA_REQ_IN_CAPSULE_DATA;
	rsp->req.transfer_len += len;
	return 0;
}

/* a read or write with PRACT: the RNIC inserts or strips its metadata */
static bool nvmet_rdma_pract(struct nvmet_rdma_rsp *rsp)
{
	return rsp->req.metadata_len &&
		(le16_to_cpu(rsp->req.cmd->rw.control) & NVME_RW_PRINFO_PRACT);
}

/*
 * The bytes a read or write moves, from its own fields: a keyed SGL must say
 * the same (nvmet checks it too, but only once the data has been transferred).
 * 0 when the command implies no length here (admin, fabrics, passthru).
 */
static u32 nvmet_rdma_expected_len(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_req *req = &rsp->req;

	if (!req->ns || (req->cmd->common.opcode != nvme_cmd_read &&
			 req->cmd->common.opcode != nvme_cmd_write))
		return 0;
	return nvmeof_rw_wire_len(nvmet_rw_data_len(req), req->metadata_len,
				  nvmet_rdma_pract(rsp));
}

/*
 * The MDTS we advertise, in bytes on the wire (with metadata: data plus
 * metadata, unless PRACT): ours, or the port's param_mdts if smaller. MDTS
 * counts minimum memory pages, which nvmet sets to 4 KiB (CAP.MPSMIN = 0).
 * Identify gives it per controller (smaller where the controller supports
 * T10-PI, nvmet_rdma_get_mdts()), so it is checked per controller too; a
 * Connect, before there is one, by its own metadata (none).
 */
static u32 nvmet_rdma_max_transfer(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_ctrl *ctrl = rsp->req.sq->ctrl;
	bool pi = ctrl ? ctrl->pi_support : rsp->req.metadata_len;
	u8 mdts = nvmeof_port_mdts(rsp->req.port, nvmet_rdma_mdts(pi));

	return nvmeof_rw_wire_len(SZ_4K << mdts, rsp->req.metadata_len,
				  nvmet_rdma_pract(rsp));
}

static u16 nvmet_rdma_map_sgl_keyed(struct nvmet_rdma_rsp *rsp,
				    struct nvme_keyed_sgl_desc *sgl,
				    bool invalidate)
{
	u64 addr = le64_to_cpu(sgl->addr);
	u32 key = get_unaligned_le32(sgl->key);
	u32 len = get_unaligned_le24(sgl->length);
	struct ib_sig_attrs sig_attrs;
	u32 expected, max_len;
	u16 status;
	int ret;

	/* no data command? */
	if (!len)
		return 0;

	expected = nvmet_rdma_expected_len(rsp);
	max_len = nvmet_rdma_max_transfer(rsp);
	status = nvmeof_check_keyed_sgl_len(len, expected, max_len);
	if (unlikely(status)) {
		pr_warn_ratelimited("queue %d: keyed SGL of %u bytes for a command of %u (most %u): rejected\n",
				    rsp->queue->idx, len, expected, max_len);
		rsp->req.error_loc = offsetof(struct nvme_common_command, dptr);
		return status;
	}
	rsp->req.transfer_len = len;

	if (rsp->req.metadata_len)
		nvmet_rdma_set_sig_attrs(&rsp->req, &sig_attrs);

	/* before the data pages: they are cached by direction */
	rsp->data_dir = nvmet_data_dir(&rsp->req);
	ret = nvmet_rdma_alloc_data_sgl(rsp);
	if (unlikely(ret < 0))
		goto error_out;

	ret = nvmet_rdma_rw_init(rsp, addr, key, &sig_attrs);
	if (unlikely(ret < 0))
		goto error_out;
	rsp->n_rdma += ret;

	if (invalidate) {
		rsp->invalidate_rkey = key;
		rsp->flags |= NVMET_RDMA_REQ_INVALIDATE_RKEY;
	}

	return 0;

error_out:
	rsp->req.transfer_len = 0;
	return NVME_SC_INTERNAL;
}

static u16 nvmet_rdma_map_sgl(struct nvmet_rdma_rsp *rsp)
{
	struct nvme_keyed_sgl_desc *sgl = &rsp->req.cmd->common.dptr.ksgl;
	enum nvmeof_sgl_kind kind;
	u16 status;

	status = nvmeof_classify_sgl(sgl->type, &kind);
	switch (kind) {
	case NVMEOF_SGL_IN_CAPSULE:
		status = nvmet_rdma_map_sgl_in_capsule(rsp);
		break;
	case NVMEOF_SGL_KEYED_INVALIDATE:
		status = nvmet_rdma_map_sgl_keyed(rsp, sgl, true);
		break;
	case NVMEOF_SGL_KEYED:
		status = nvmet_rdma_map_sgl_keyed(rsp, sgl, false);
		break;
	/*
	 * Rate limited like the other refusals here: a host can send these
	 * as fast as the queue turns around.
	 */
	case NVMEOF_SGL_BAD_SUBTYPE:
		pr_err_ratelimited("queue %d: invalid SGL subtype %#x: rejected\n",
				   rsp->queue->idx, sgl->type);
		rsp->req.error_loc = offsetof(struct nvme_common_command, dptr);
		break;
	case NVMEOF_SGL_BAD_TYPE:
		pr_err_ratelimited("queue %d: invalid SGL type %#x: rejected\n",
				   rsp->queue->idx, sgl->type);
		rsp->req.error_loc = offsetof(struct nvme_common_command, dptr);
		break;
	}

	trace_nvmet_rdma_map_data(rsp, kind, rsp->req.transfer_len, status);
	return status;
}

/*
 * The RDMA READ of a command's data was not posted, or only in part: in
 * part, the command is never answered (its READs may still land in its
 * pages; the host's controller reconnects and retries it); not at all, it
 * is answered with a data transfer error, which the host may retry.
 */
static void nvmet_rdma_read_not_posted(struct nvmet_rdma_rsp *rsp,
				       const struct ib_send_wr *first_wr,
				       const struct ib_send_wr *bad_wr, int ret)
{
	if (nvmet_rdma_posted_in_part(rsp, first_wr, bad_wr, ret,
				      "the RDMA READ of a command's data")) {
		nvmet_req_uninit(&rsp->req);	/* the sq's reference */
		return;
	}
	pr_err_ratelimited("queue %d: posting the RDMA READ of a command's data failed (%d): answered with a data transfer error\n",
			   rsp->queue->idx, ret);
	nvmet_req_complete(&rsp->req, NVME_SC_DATA_XFER_ERROR);
}

static bool nvmet_rdma_execute_command(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue *queue = rsp->queue;

	if (unlikely(atomic_sub_return(1 + rsp->n_rdma,
				       &queue->sq_wr_avail) < 0)) {
		/* no cntlid: before the Connect command there is no ctrl */
		pr_debug("IB send queue full (needed %d): queue %u\n",
			 1 + rsp->n_rdma, queue->idx);
		atomic64_inc(&queue->stats.sq_full);
		atomic_add(1 + rsp->n_rdma, &queue->sq_wr_avail);
		return false;
	}
	rsp->flags |= NVMET_RDMA_REQ_SQ_CREDITS;

	/* a refused command: its response (nvmet_rdma_queue_response()) */
	if (unlikely(rsp->flags & NVMET_RDMA_REQ_RSP_ONLY)) {
		nvmet_rdma_queue_response(&rsp->req);
		return true;
	}

	if (nvmet_rdma_need_data_in(rsp)) {
		struct ib_send_wr *first_wr =
			nvmet_rdma_rw_wrs(rsp, &rsp->read_cqe, NULL);
		const struct ib_send_wr *bad_wr = NULL;
		int ret = ib_post_send(queue->qp, first_wr, &bad_wr);

		if (unlikely(ret))
			nvmet_rdma_read_not_posted(rsp, first_wr, bad_wr, ret);
	} else {
		rsp->req.execute(&rsp->req);
	}

	return true;
}

/* a command taken: its counters */
static void nvmet_rdma_count_cmd(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue_stats *s = &rsp->queue->stats;
	enum nvmeof_cmd_class class = nvmeof_cmd_class(!rsp->queue->host_qid,
						       rsp->req.cmd->common.opcode);
	enum nvmet_rdma_data_way way = NVMET_RDMA_DATA_NONE;

	WRITE_ONCE(s->cmds[class], s->cmds[class] + 1);
	if (class == NVMEOF_CMD_READ)
		WRITE_ONCE(s->bytes_read, s->bytes_read + rsp->req.transfer_len);
	else if (class == NVMEOF_CMD_WRITE)
		WRITE_ONCE(s->bytes_written,
			   s->bytes_written + rsp->req.transfer_len);
	if (rsp->flags & NVMET_RDMA_REQ_IN_CAPSULE_DATA)
		way = NVMET_RDMA_DATA_IN_CAPSULE;
	else if (rsp->req.transfer_len)
		way = NVMET_RDMA_DATA_KEYED;
	WRITE_ONCE(s->data[way], s->data[way] + 1);
}

/**
 * nvmet_rdma_handle_command() - start executing a received command
 * @queue: the queue it arrived on, live
 * @cmd: its response context, bound to the received command buffer
 *
 * Initializes the nvmet request, maps its data SGL and executes it, or
 * parks it on the queue's send-WR wait list when the send queue is full.
 */
void nvmet_rdma_handle_command(struct nvmet_rdma_queue *queue,
			       struct nvmet_rdma_rsp *cmd)
{
	u16 status;

	ib_dma_sync_single_for_cpu(queue->dev->device,
				   cmd->cmd->sge[0].addr, cmd->cmd->sge[0].length,
				   DMA_FROM_DEVICE);
	nvmet_rdma_sync_in_capsule(queue->dev->device, cmd->cmd, true);
	ib_dma_sync_single_for_cpu(queue->dev->device,
				   cmd->send_sge.addr, cmd->send_sge.length,
				   DMA_TO_DEVICE);

	if (!nvmeof_req_init(&cmd->req, &queue->nvme_sq, &queue->nvme_cq,
			     &nvmet_rdma_ops)) {
		atomic64_inc(&queue->stats.cmds_rejected);
		return;
	}

	status = nvmet_rdma_map_sgl(cmd);
	if (status) {
		atomic64_inc(&queue->stats.cmds_rejected);
		goto out_err;
	}
	nvmet_rdma_count_cmd(cmd);

	if (unlikely(!nvmet_rdma_execute_command(cmd))) {
		spin_lock(&queue->rsp_wr_wait_lock);
		list_add_tail(&cmd->wait_list, &queue->rsp_wr_wait_list);
		spin_unlock(&queue->rsp_wr_wait_lock);
	}

	return;

out_err:
	nvmet_req_complete(&cmd->req, status);
}

static bool nvmet_rdma_recv_not_live(struct nvmet_rdma_queue *queue,
				     struct nvmet_rdma_rsp *rsp)
{
	unsigned long flags;
	bool ret = true;

	spin_lock_irqsave(&queue->state_lock, flags);
	/*
	 * recheck queue state is not live to prevent a race condition
	 * with RDMA_CM_EVENT_ESTABLISHED handler.
	 */
	if (queue->state == NVMET_RDMA_Q_LIVE)
		ret = false;
	else if (queue->state == NVMET_RDMA_Q_CONNECTING)
		list_add_tail(&rsp->wait_list, &queue->rsp_wait_list);
	else
		nvmet_rdma_put_rsp(rsp);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return ret;
}

/**
 * nvmet_rdma_recv_done() - completion of the RDMA RECV of a command capsule
 * @cq: the completion queue
 * @wc: the work completion, its wr_cqe being the command buffer's cqe
 *
 * Binds a response context to the command and handles it, or queues it
 * until the connection is established.
 */
void nvmet_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvmet_rdma_cmd *cmd =
		container_of(wc->wr_cqe, struct nvmet_rdma_cmd, cqe);
	struct nvmet_rdma_queue *queue = wc->qp->qp_context;
	struct nvmet_rdma_rsp *rsp;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_err("RECV for CQE 0x%p failed with status %s (%d)\n",
			       wc->wr_cqe, ib_wc_status_msg(wc->status),
			       wc->status);
			nvmet_rdma_wr_failed(queue);
		}
		return;
	}

	if (unlikely(wc->byte_len < sizeof(struct nvme_command))) {
		pr_err("Ctrl Fatal Error: capsule size less than 64 bytes\n");
		atomic64_inc(&queue->stats.cmds_rejected);
		nvmet_rdma_error_comp(queue);
		return;
	}

	cmd->queue = queue;
	cmd->in_capsule_received = wc->byte_len - sizeof(struct nvme_command);
	rsp = nvmet_rdma_get_rsp(queue);
	if (unlikely(!rsp)) {
		/*
		 * we get here only under memory pressure,
		 * silently drop and have the host retry
		 * as we can't even fail it.
		 */
		nvmet_rdma_post_recv(queue->dev, cmd);
		return;
	}
	rsp->queue = queue;
	rsp->cmd = cmd;
	rsp->flags = 0;
	rsp->unsignalled_credits = 0;
	rsp->req.cmd = cmd->nvme_cmd;
	rsp->req.port = queue->port;
	rsp->n_rdma = 0;

	if (unlikely(queue->state != NVMET_RDMA_Q_LIVE) &&
	    nvmet_rdma_recv_not_live(queue, rsp))
		return;

	nvmet_rdma_handle_command(queue, rsp);
}
