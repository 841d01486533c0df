// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA host code: the I/O path (the blk-mq callbacks,
 * submission, data mapping, completions, polling, timeouts and the queue
 * stop they need).
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#include "nvme_rdma.h"
#include "trace.h"

static void nvme_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void nvme_rdma_complete_rq(struct request *rq);

static void nvme_rdma_end_request(struct nvme_rdma_request *req)
{
	struct request *rq = blk_mq_rq_from_pdu(req);

	if (!refcount_dec_and_test(&req->ref))
		return;
	if (!nvme_try_complete_req(rq, req->status, req->result))
		nvme_rdma_complete_rq(rq);
}

static void nvme_rdma_wr_error(struct ib_cq *cq, struct ib_wc *wc,
			       const char *op)
{
	struct nvme_rdma_queue *queue = wc->qp->qp_context;
	struct nvme_rdma_ctrl *ctrl = queue->ctrl;

	/*
	 * Flushes are the normal end of a queue's work requests, worth a line
	 * only while the controller is live; any other failure is news in
	 * every state, also while connecting.
	 */
	if (ctrl->ctrl.state == NVME_CTRL_LIVE ||
	    wc->status != IB_WC_WR_FLUSH_ERR)
		dev_info_ratelimited(ctrl->ctrl.device,
				     "%s for CQE 0x%p failed with status %s (%d)\n",
				     op, wc->wr_cqe,
				     ib_wc_status_msg(wc->status), wc->status);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		atomic64_inc(&queue->stats.wc_errors);
	nvme_rdma_error_recovery(ctrl, NVME_RDMA_RECOVERY_WC_ERROR);
}

/* a response the host cannot take: error recovery ends its command */
static void nvme_rdma_reject_response(struct nvme_rdma_queue *queue)
{
	atomic64_inc(&queue->stats.rsp_rejected);
	nvme_rdma_error_recovery(queue->ctrl, NVME_RDMA_RECOVERY_BAD_RESPONSE);
}

static void nvme_rdma_memreg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (unlikely(wc->status != IB_WC_SUCCESS))
		nvme_rdma_wr_error(cq, wc, "MEMREG");
}

static void nvme_rdma_inv_rkey_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvme_rdma_request *req =
		container_of(wc->wr_cqe, struct nvme_rdma_request, reg_cqe);

	nvmeof_sq_retire(&req->queue->sq, req->inv_mark);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		nvme_rdma_wr_error(cq, wc, "LOCAL_INV");
	else
		nvme_rdma_end_request(req);
}

/* the LOCAL_INV, in the room its command reserved when admitted */
static int nvme_rdma_inv_rkey(struct nvme_rdma_queue *queue,
			      struct nvme_rdma_request *req)
{
	struct ib_send_wr wr = {
		.opcode		    = IB_WR_LOCAL_INV,
		.next		    = NULL,
		.num_sge	    = 0,
		.send_flags	    = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = req->mr->rkey,
	};
	int ret;

	req->reg_cqe.done = nvme_rdma_inv_rkey_done;
	wr.wr_cqe = &req->reg_cqe;

	spin_lock_bh(&queue->sq_lock);
	req->inv_reserved = false;
	req->inv_mark = nvmeof_sq_post_signalled(&queue->sq, 1);
	ret = ib_post_send(queue->qp, &wr, NULL);
	if (unlikely(ret))
		nvmeof_sq_unpost(&queue->sq, 1);
	spin_unlock_bh(&queue->sq_lock);
	return ret;
}

/* a response made the LOCAL_INV its command reserved room for needless */
static void nvme_rdma_inv_unneeded(struct nvme_rdma_queue *queue,
				   struct nvme_rdma_request *req)
{
	if (!req->inv_reserved)
		return;
	spin_lock_bh(&queue->sq_lock);
	req->inv_reserved = false;
	nvmeof_sq_unreserve(&queue->sq, 1);
	spin_unlock_bh(&queue->sq_lock);
}

static void nvme_rdma_dma_unmap_req(struct ib_device *ibdev, struct request *rq)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);

	if (blk_integrity_rq(rq)) {
		ib_dma_unmap_sg(ibdev, req->metadata_sgl->sg_table.sgl,
				req->metadata_sgl->nents, rq_dma_dir(rq));
		sg_free_table_chained(&req->metadata_sgl->sg_table,
				      NVME_INLINE_METADATA_SG_CNT);
	}

	ib_dma_unmap_sg(ibdev, req->data_sgl.sg_table.sgl, req->data_sgl.nents,
			rq_dma_dir(rq));
	sg_free_table_chained(&req->data_sgl.sg_table, NVME_RDMA_INLINE_SG_CNT);
}

static void nvme_rdma_unmap_data(struct nvme_rdma_queue *queue,
				 struct request *rq)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvme_rdma_device *dev = queue->device;
	struct ib_device *ibdev = dev->dev;

	if (!blk_rq_nr_phys_segments(rq))
		return;

	/* a data MR is the tag's own: nothing to give back */
	if (req->mr && req->use_sig_mr)
		ib_mr_pool_put(queue->qp, &queue->qp->sig_mrs, req->mr);
	req->mr = NULL;

	nvme_rdma_dma_unmap_req(ibdev, rq);
}

static int nvme_rdma_map_sg_in_capsule(struct nvme_rdma_queue *queue,
				       struct nvme_rdma_request *req,
				       struct nvme_command *c, int count)
{
	struct nvme_sgl_desc *sg = &c->common.dptr.sgl;
	struct ib_sge *sge = &req->sge[1];
	u32 lkey = queue->device->pd->local_dma_lkey;
	struct scatterlist *sgl;
	u32 len = 0;
	int i;

	for_each_sg(req->data_sgl.sg_table.sgl, sgl, count, i) {
		sge->addr = sg_dma_address(sgl);
		sge->length = sg_dma_len(sgl);
		sge->lkey = lkey;
		len += sge->length;
		sge++;
	}

	nvmeof_put_in_capsule_sgl(sg, queue->ctrl->ctrl.icdoff, len);
	req->num_sge += count;
	return 0;
}

static int nvme_rdma_map_sg_single(struct nvme_rdma_queue *queue,
				   struct nvme_rdma_request *req,
				   struct nvme_command *c)
{
	struct scatterlist *sgl = req->data_sgl.sg_table.sgl;

	return nvmeof_put_keyed_sgl(&c->common.dptr.ksgl, sg_dma_address(sgl),
				    sg_dma_len(sgl),
				    queue->device->pd->unsafe_global_rkey,
				    false);
}

static int nvme_rdma_map_sg_fr(struct nvme_rdma_queue *queue,
			       struct nvme_rdma_request *req,
			       struct nvme_command *c, int count)
{
	struct request *rq = blk_mq_rq_from_pdu(req);
	int nr, ret;

	req->mr = queue->mrs[rq->tag];

	/*
	 * Align the MR to a 4K page size to match the ctrl page size and
	 * the block virtual boundary.
	 */
	nr = ib_map_mr_sg(req->mr, req->data_sgl.sg_table.sgl, count, NULL,
			  SZ_4K);
	if (unlikely(nr < count)) {
		ret = nr < 0 ? nr : -EINVAL;
		goto out_no_mr;
	}

	ib_update_fast_reg_key(req->mr, ib_inc_rkey(req->mr->rkey));
	ret = nvmeof_put_keyed_sgl(&c->common.dptr.ksgl, req->mr->iova,
				   req->mr->length, req->mr->rkey, true);
	if (unlikely(ret))
		goto out_no_mr;

	req->reg_cqe.done = nvme_rdma_memreg_done;
	memset(&req->reg_wr, 0, sizeof(req->reg_wr));
	req->reg_wr.wr.opcode = IB_WR_REG_MR;
	req->reg_wr.wr.wr_cqe = &req->reg_cqe;
	req->reg_wr.wr.num_sge = 0;
	req->reg_wr.mr = req->mr;
	req->reg_wr.key = req->mr->rkey;
	req->reg_wr.access = nvmeof_host_mr_access(rq_data_dir(rq) == WRITE);
	return 0;

out_no_mr:
	req->mr = NULL;
	return ret;
}

static void nvme_rdma_set_sig_domain(struct blk_integrity *bi,
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

static void nvme_rdma_set_sig_attrs(struct blk_integrity *bi,
				    struct nvme_command *cmd,
				    struct ib_sig_attrs *sig_attrs,
				    u8 pi_type)
{
	u16 control = le16_to_cpu(cmd->rw.control);

	memset(sig_attrs, 0, sizeof(*sig_attrs));
	if (control & NVME_RW_PRINFO_PRACT) {
		/* for WRITE_INSERT/READ_STRIP no memory domain */
		sig_attrs->mem.sig_type = IB_SIG_TYPE_NONE;
		nvme_rdma_set_sig_domain(bi, cmd, &sig_attrs->wire, control,
					 pi_type);
		/* Clear the PRACT bit since HCA will generate/verify the PI */
		control &= ~NVME_RW_PRINFO_PRACT;
		cmd->rw.control = cpu_to_le16(control);
	} else {
		/* for WRITE_PASS/READ_PASS both wire/memory domains exist */
		nvme_rdma_set_sig_domain(bi, cmd, &sig_attrs->wire, control,
					 pi_type);
		nvme_rdma_set_sig_domain(bi, cmd, &sig_attrs->mem, control,
					 pi_type);
	}
}

static void nvme_rdma_set_prot_checks(struct nvme_command *cmd, u8 *mask)
{
	*mask = 0;
	if (le16_to_cpu(cmd->rw.control) & NVME_RW_PRINFO_PRCHK_REF)
		*mask |= IB_SIG_CHECK_REFTAG;
	if (le16_to_cpu(cmd->rw.control) & NVME_RW_PRINFO_PRCHK_GUARD)
		*mask |= IB_SIG_CHECK_GUARD;
}

static void nvme_rdma_sig_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (unlikely(wc->status != IB_WC_SUCCESS))
		nvme_rdma_wr_error(cq, wc, "SIG");
}

static int nvme_rdma_map_sg_pi(struct nvme_rdma_queue *queue,
			       struct nvme_rdma_request *req,
			       struct nvme_command *c,
			       int count, int pi_count)
{
	struct nvme_rdma_sgl *sgl = &req->data_sgl;
	struct ib_reg_wr *wr = &req->reg_wr;
	struct request *rq = blk_mq_rq_from_pdu(req);
	struct nvme_ns *ns = rq->q->queuedata;
	struct blk_integrity *bi = blk_get_integrity(rq->bio->bi_bdev->bd_disk);
	u32 xfer_len;
	int nr, ret;

	req->mr = ib_mr_pool_get(queue->qp, &queue->qp->sig_mrs);
	if (WARN_ON_ONCE(!req->mr))
		return -EAGAIN;

	nr = ib_map_mr_sg_pi(req->mr, sgl->sg_table.sgl, count, NULL,
			     req->metadata_sgl->sg_table.sgl, pi_count, NULL,
			     SZ_4K);
	if (unlikely(nr)) {
		ret = nr < 0 ? nr : -EINVAL;
		goto mr_put;
	}

	nvme_rdma_set_sig_attrs(bi, c, req->mr->sig_attrs,
				nvmeof_ns_pi_type(ns));
	nvme_rdma_set_prot_checks(c, &req->mr->sig_attrs->check_mask);

	ib_update_fast_reg_key(req->mr, ib_inc_rkey(req->mr->rkey));
	xfer_len = req->mr->length;
	/*
	 * Without a metadata buffer the controller inserts and strips the PI
	 * (PRACT), and the wire carries it: the transfer is longer than the
	 * MR by the PI of every interval. The keyed SGL says so, as stock,
	 * so that a target that wants data plus PI (nvmet does) takes it.
	 */
	if (!pi_count)
		xfer_len += (xfer_len >> bi->interval_exp) *
			    nvmeof_ns_pi_size(ns);
	ret = nvmeof_put_keyed_sgl(&c->common.dptr.ksgl, req->mr->iova,
				   xfer_len, req->mr->rkey, false);
	if (unlikely(ret))
		goto mr_put;

	req->reg_cqe.done = nvme_rdma_sig_done;
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_REG_MR_INTEGRITY;
	wr->wr.wr_cqe = &req->reg_cqe;
	wr->wr.num_sge = 0;
	wr->wr.send_flags = 0;
	wr->mr = req->mr;
	wr->key = req->mr->rkey;
	wr->access = IB_ACCESS_LOCAL_WRITE |
		     IB_ACCESS_REMOTE_READ |
		     IB_ACCESS_REMOTE_WRITE;
	return 0;

mr_put:
	ib_mr_pool_put(queue->qp, &queue->qp->sig_mrs, req->mr);
	req->mr = NULL;
	return ret;
}

/*
 * A request of one physical segment is one bio_vec (req_bvec(), which also
 * gives a discard's range buffer): the table's inline first entry is set
 * from it directly, as sg_alloc_table_chained() and blk_rq_map_sg() would
 * set it, without walking the bios (nvme-pci does the same with its
 * single-segment requests). sg_free_table_chained() has nothing to free.
 */
static void nvme_rdma_sg_one_segment(struct request *rq, struct sg_table *t)
{
	struct bio_vec bv = req_bvec(rq);

	t->nents = 1;
	t->orig_nents = 1;
	sg_init_table(t->sgl, 1);
	sg_set_page(t->sgl, bv.bv_page, bv.bv_len, bv.bv_offset);
}

static int nvme_rdma_dma_map_req(struct ib_device *ibdev, struct request *rq,
				 int *count, int *pi_count)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	int ret;

	req->data_sgl.sg_table.sgl = (struct scatterlist *)(req + 1);
	if (blk_rq_nr_phys_segments(rq) == 1) {
		nvme_rdma_sg_one_segment(rq, &req->data_sgl.sg_table);
		req->data_sgl.nents = 1;
	} else {
		ret = sg_alloc_table_chained(&req->data_sgl.sg_table,
					     blk_rq_nr_phys_segments(rq),
					     req->data_sgl.sg_table.sgl,
					     NVME_RDMA_INLINE_SG_CNT);
		if (ret)
			return -ENOMEM;
		req->data_sgl.nents = nvmeof_rq_map_sg(rq,
						       req->data_sgl.sg_table.sgl);
	}

	*count = ib_dma_map_sg(ibdev, req->data_sgl.sg_table.sgl,
			       req->data_sgl.nents, rq_dma_dir(rq));
	if (unlikely(*count <= 0)) {
		ret = -EIO;
		goto out_free_table;
	}

	if (blk_integrity_rq(rq)) {
		struct scatterlist *md_sgl =
			(struct scatterlist *)(req->metadata_sgl + 1);

		req->metadata_sgl->sg_table.sgl = md_sgl;
		ret = sg_alloc_table_chained(&req->metadata_sgl->sg_table,
					     nvmeof_rq_count_integrity_sg(rq),
					     md_sgl, NVME_INLINE_METADATA_SG_CNT);
		if (unlikely(ret)) {
			ret = -ENOMEM;
			goto out_unmap_sg;
		}

		req->metadata_sgl->nents = nvmeof_rq_map_integrity_sg(rq,
								      md_sgl);
		*pi_count = ib_dma_map_sg(ibdev,
					  req->metadata_sgl->sg_table.sgl,
					  req->metadata_sgl->nents,
					  rq_dma_dir(rq));
		if (unlikely(*pi_count <= 0)) {
			ret = -EIO;
			goto out_free_pi_table;
		}
	}

	return 0;

out_free_pi_table:
	sg_free_table_chained(&req->metadata_sgl->sg_table,
			      NVME_INLINE_METADATA_SG_CNT);
out_unmap_sg:
	ib_dma_unmap_sg(ibdev, req->data_sgl.sg_table.sgl, req->data_sgl.nents,
			rq_dma_dir(rq));
out_free_table:
	sg_free_table_chained(&req->data_sgl.sg_table, NVME_RDMA_INLINE_SG_CNT);
	return ret;
}

static int nvme_rdma_map_data(struct nvme_rdma_queue *queue,
			      struct request *rq, struct nvme_command *c)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvme_rdma_device *dev = queue->device;
	struct ib_device *ibdev = dev->dev;
	struct nvmeof_data_req facts;
	int pi_count = 0;
	int count, ret;

	req->num_sge = 1;
	req->data_map = NVMEOF_MAP_NONE;
	refcount_set(&req->ref, 2); /* send and recv completions */

	c->common.flags |= NVME_CMD_SGL_METABUF;

	if (!blk_rq_nr_phys_segments(rq))
		return nvmeof_put_keyed_sgl(&c->common.dptr.ksgl, 0, 0, 0,
					    false);

	ret = nvme_rdma_dma_map_req(ibdev, rq, &count, &pi_count);
	if (unlikely(ret))
		return ret;

	facts = (struct nvmeof_data_req) {
		.nr_segments = count,
		.payload = blk_rq_payload_bytes(rq),
		.is_write = rq_data_dir(rq) == WRITE,
		.use_pi = req->use_sig_mr,
		.in_capsule_size = queue->in_capsule_size,
		.max_in_capsule_segments = dev->num_in_capsule_segments,
		.global_rkey = dev->pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY,
	};
	req->data_map = nvmeof_choose_data_map(&facts);
	switch (req->data_map) {
	case NVMEOF_MAP_PI:
		ret = nvme_rdma_map_sg_pi(queue, req, c, count, pi_count);
		break;
	case NVMEOF_MAP_IN_CAPSULE:
		ret = nvme_rdma_map_sg_in_capsule(queue, req, c, count);
		break;
	case NVMEOF_MAP_GLOBAL_RKEY:
		ret = nvme_rdma_map_sg_single(queue, req, c);
		break;
	default:
		ret = nvme_rdma_map_sg_fr(queue, req, c, count);
		break;
	}
	if (unlikely(ret))
		goto out_dma_unmap_req;

	return 0;

out_dma_unmap_req:
	nvme_rdma_dma_unmap_req(ibdev, rq);
	return ret;
}

static void nvme_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvme_rdma_qe *qe =
		container_of(wc->wr_cqe, struct nvme_rdma_qe, cqe);
	struct nvme_rdma_request *req =
		container_of(qe, struct nvme_rdma_request, sqe);

	nvmeof_sq_retire(&req->queue->sq, req->send_mark);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		nvme_rdma_wr_error(cq, wc, "SEND");
	else
		nvme_rdma_end_request(req);
}

/*
 * Post @first and the work requests chained behind it. Return: 0, or the
 * ib_post_send() error with *@bad_wr the first one not posted.
 */
static int nvme_rdma_post_wrs(struct nvme_rdma_queue *queue,
			      struct ib_send_wr *first,
			      const struct ib_send_wr **bad_wr)
{
	int ret = ib_post_send(queue->qp, first, bad_wr);

	if (unlikely(ret))
		dev_err_ratelimited(queue->ctrl->ctrl.device,
				    "posting a command failed with error code %d\n",
				    ret);
	return ret;
}

/*
 * Post a signalled SEND of the command mapped at @dma, followed by the
 * @num_sge - 1 in-capsule data entries already in @sge; it completes on @cqe.
 */
static int nvme_rdma_post_send(struct nvme_rdma_queue *queue,
			       struct ib_cqe *cqe, u64 dma, struct ib_sge *sge,
			       u32 num_sge)
{
	const struct ib_send_wr *bad_wr;
	struct ib_send_wr wr;

	sge->addr   = dma;
	sge->length = sizeof(struct nvme_command);
	sge->lkey   = queue->device->pd->local_dma_lkey;

	wr.next       = NULL;
	wr.wr_cqe     = cqe;
	wr.sg_list    = sge;
	wr.num_sge    = num_sge;
	wr.opcode     = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;

	return nvme_rdma_post_wrs(queue, &wr, &bad_wr);
}

/*
 * Prepare the SEND of a command with in-capsule data: the command is copied
 * to the tag's buffer of the queue's ring, mapped once for the queue's
 * lifetime. The device may read it until the SEND completes, which the
 * request waits for, so the tag is not reused before.
 */
static void nvme_rdma_prep_cmd_send(struct nvme_rdma_queue *queue,
				    struct nvme_rdma_request *req,
				    struct nvme_command *c)
{
	struct request *rq = blk_mq_rq_from_pdu(req);
	u64 dma = queue->sqes_dma + rq->tag * sizeof(*c);

	memcpy(&queue->sqes[rq->tag], c, sizeof(*c));
	ib_dma_sync_single_for_device(queue->device->dev, dma, sizeof(*c),
				      DMA_TO_DEVICE);

	req->sge[0].addr = dma;
	req->sge[0].length = sizeof(*c);
	req->sge[0].lkey = queue->device->pd->local_dma_lkey;
	req->sqe.cqe.done = nvme_rdma_send_done;
	req->send_wr = (struct ib_send_wr) {
		.wr_cqe		= &req->sqe.cqe,
		.sg_list	= req->sge,
		.num_sge	= req->num_sge,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};
}

/**
 * nvme_rdma_cmd_send_done() - completion of a command SEND posted inline
 * @cq: the completion queue
 * @wc: the work completion, its wr_cqe being the queue's cmd_send_cqe
 *
 * Only the signalled ones and the flushed ones complete: nothing to do but
 * start error recovery on a failure.
 */
void nvme_rdma_cmd_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (unlikely(wc->status != IB_WC_SUCCESS))
		nvme_rdma_wr_error(cq, wc, "SEND");
}

/*
 * Prepare a command without in-capsule data as inline data of its SEND:
 * the device copies the 64 bytes into the work request at post time, so
 * nothing of ours is read after ib_post_send() returns -- not even when the
 * HCA retransmits the SEND after the response has completed the request
 * (why a SEND that points at memory must complete before its request may).
 * So the request completes on its response alone, and no completion is
 * generated per command. Some SENDs are signalled all the same, only so
 * that a hardware send queue gets the slots of the unsignalled WRs back:
 * which ones, nvme_rdma_sq_posting() decides as they are posted. Flushed
 * on a connection error, every unsignalled SEND completes on the queue's
 * cmd_send_cqe, which starts error recovery, as any failed SEND does.
 */
static void nvme_rdma_prep_cmd_inline(struct nvme_rdma_queue *queue,
				      struct nvme_rdma_request *req)
{
	req->sge[0].addr = (uintptr_t)req->sqe.data;
	req->sge[0].length = sizeof(struct nvme_command);
	req->sge[0].lkey = 0;
	req->send_wr = (struct ib_send_wr) {
		.wr_cqe		= &queue->cmd_send_cqe,
		.sg_list	= req->sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_INLINE,
	};
	refcount_set(&req->ref, 1);	/* the response alone */
}

/* The request's first work request: its REG_MR if it has an MR. */
static struct ib_send_wr *nvme_rdma_first_wr(struct nvme_rdma_request *req)
{
	if (!req->mr)
		return &req->send_wr;
	req->reg_wr.wr.next = &req->send_wr;
	return &req->reg_wr.wr;
}

/*
 * Admit @req to the send queue: room for the WRs it posts now (its REG_MR,
 * if any, and its SEND) and for the LOCAL_INV its response may need. A
 * command that does not fit is not posted at all -- never a REG_MR without
 * its SEND -- and blk-mq gives it back shortly (BLK_STS_RESOURCE), while
 * the WRs before it retire.
 */
static bool nvme_rdma_sq_admit(struct nvme_rdma_queue *queue,
			       struct nvme_rdma_request *req)
{
	lockdep_assert_held(&queue->sq_lock);
	req->sq_wrs = req->mr ? 2 : 1;
	req->inv_reserved = req->mr;
	return nvmeof_sq_admit(&queue->sq, req->sq_wrs + req->inv_reserved);
}

/*
 * @req's WRs go on the queue now; the caller holds sq_lock and posts them
 * in this order. An unsignalled SEND is signalled here when the WRs since
 * the newest signalled one reach the count's bound: its request then also
 * waits for the SEND's completion, which carries the count's mark
 * (nvme_rdma_send_done()). Decided here, not when the command is prepared:
 * a command that is not admitted would take its signal back to blk-mq.
 */
static void nvme_rdma_sq_posting(struct nvme_rdma_queue *queue,
				 struct nvme_rdma_request *req)
{
	struct ib_send_wr *wr = &req->send_wr;

	if (!(wr->send_flags & IB_SEND_SIGNALED) &&
	    nvmeof_sq_signal_due(&queue->sq, req->sq_wrs)) {
		wr->send_flags |= IB_SEND_SIGNALED;
		wr->wr_cqe = &req->sqe.cqe;
		req->sqe.cqe.done = nvme_rdma_send_done;
		refcount_set(&req->ref, 2);	/* the send and recv completions */
	}
	if (wr->send_flags & IB_SEND_SIGNALED)
		req->send_mark = nvmeof_sq_post_signalled(&queue->sq,
							  req->sq_wrs);
	else
		nvmeof_sq_post(&queue->sq, req->sq_wrs);
	WRITE_ONCE(req->posted, true);
}

/* the request a work request of a command belongs to */
static struct nvme_rdma_request *nvme_rdma_wr_req(const struct ib_send_wr *wr)
{
	if (wr->opcode == IB_WR_SEND)
		return container_of(wr, struct nvme_rdma_request, send_wr);
	return container_of(wr, struct nvme_rdma_request, reg_wr.wr);
}

/*
 * A post failed: the WRs from @bad_wr on hold nothing, and the commands not
 * wholly posted will post no LOCAL_INV. The caller holds sq_lock.
 */
static void nvme_rdma_sq_unposted(struct nvme_rdma_queue *queue,
				  const struct ib_send_wr *bad_wr)
{
	while (bad_wr) {
		struct nvme_rdma_request *req = nvme_rdma_wr_req(bad_wr);

		nvmeof_sq_unpost(&queue->sq,
				 bad_wr == &req->send_wr ? 1 : req->sq_wrs);
		WRITE_ONCE(req->posted, false);
		if (req->inv_reserved) {
			nvmeof_sq_unreserve(&queue->sq, 1);
			req->inv_reserved = false;
		}
		bad_wr = req->send_wr.next;
	}
}

/*
 * @bad_wr, the first work request ib_post_send() did not take, is @req's
 * SEND: its REG_MR went in, and the MR is registered for a command the
 * target never sees. Only a reconnect, which rebuilds the MRs, puts that MR
 * back in a known state.
 */
static void nvme_rdma_check_half_posted(struct nvme_rdma_queue *queue,
					struct nvme_rdma_request *req,
					const struct ib_send_wr *bad_wr, int err)
{
	bool reg_posted = req->mr && bad_wr == &req->send_wr;

	trace_nvme_rdma_post_send_err(queue, blk_mq_rq_from_pdu(req), err,
				      reg_posted);
	if (reg_posted) {
		dev_warn_ratelimited(queue->ctrl->ctrl.device,
				     "memory registration posted without its command: recovering\n");
		nvme_rdma_error_recovery(queue->ctrl,
					 NVME_RDMA_RECOVERY_POST_FAILED);
	}
}

/*
 * End @req, which was not posted and so never completes by itself, as
 * queue_rq would have ended it: a full send queue is BLK_STS_RESOURCE (the
 * request goes back to blk-mq and is dispatched again shortly), any other
 * failure a path error (retried or failed over by nvme-core).
 */
static void nvme_rdma_end_unposted(struct nvme_rdma_queue *queue,
				   struct nvme_rdma_request *req, int err)
{
	struct request *rq = blk_mq_rq_from_pdu(req);

	nvme_rdma_unmap_data(queue, rq);
	if (err == -ENOMEM || err == -EAGAIN) {
		nvme_cleanup_cmd(rq);
		blk_mq_requeue_request(rq, false);
		/* as blk-mq reruns a queue after BLK_STS_RESOURCE */
		blk_mq_delay_kick_requeue_list(rq->q, 3);
		return;
	}
	nvme_host_path_error(rq);
}

/**
 * nvme_rdma_post_pending() - post the commands queued while more were coming
 * @queue: the queue
 *
 * blk-mq tells a driver when more requests follow (bd->last false) and ends
 * such a run with a last one or a commit_rqs call. The commands in between
 * wait on the queue's pending_sends and go out here as one chain of work
 * requests: one ib_post_send() for the lot -- on hardware one doorbell, on
 * rxe one run of the requester task. A dispatcher on another CPU may post
 * commands of ours, or we its: every dispatch ends with this call, so none
 * is left behind.
 *
 * If the post fails, the commands from the first work request not taken on
 * were not posted: they are ended as queue_rq would have ended them. Their
 * requests are found through the work-request chain itself, which is ours
 * until posted; the requests already posted may complete, and their tags be
 * reused, at any moment, so they are not touched again.
 */
static void nvme_rdma_post_pending(struct nvme_rdma_queue *queue)
{
	struct llist_node *node = llist_del_all(&queue->pending_sends);
	struct nvme_rdma_request *req, *prev = NULL;
	const struct ib_send_wr *bad_wr;
	struct ib_send_wr *first = NULL;
	unsigned long flags;
	unsigned int nr = 0;
	int ret;

	if (!node)
		return;

	/* oldest first: each SEND links to the next command's first WR */
	node = llist_reverse_order(node);
	llist_for_each_entry(req, node, pending) {
		struct ib_send_wr *wr = nvme_rdma_first_wr(req);

		if (prev)
			prev->send_wr.next = wr;
		else
			first = wr;
		prev = req;
		nr++;
	}
	trace_nvme_rdma_post_batch(queue, nr);

	/* counted in the order posted: nobody posts in between */
	spin_lock_irqsave(&queue->sq_lock, flags);
	llist_for_each_entry(req, node, pending)
		nvme_rdma_sq_posting(queue, req);
	ret = nvme_rdma_post_wrs(queue, first, &bad_wr);
	if (unlikely(ret))
		nvme_rdma_sq_unposted(queue, bad_wr ?: first);
	spin_unlock_irqrestore(&queue->sq_lock, flags);
	while (unlikely(ret) && bad_wr) {
		req = nvme_rdma_wr_req(bad_wr);
		nvme_rdma_check_half_posted(queue, req, bad_wr, ret);
		bad_wr = req->send_wr.next;
		nvme_rdma_end_unposted(queue, req, ret);
	}
}

/**
 * nvme_rdma_post_recv() - post a receive buffer for one NVMe completion
 * @queue: queue to post on
 * @qe: receive ring entry; its completion is handled by the recv handler
 *
 * Return: 0 on success, else the ib_post_recv() error.
 */
int nvme_rdma_post_recv(struct nvme_rdma_queue *queue,
			struct nvme_rdma_qe *qe)
{
	struct ib_recv_wr wr;
	struct ib_sge list;
	int ret;

	list.addr   = qe->dma;
	list.length = sizeof(struct nvme_completion);
	list.lkey   = queue->device->pd->local_dma_lkey;

	qe->cqe.done = nvme_rdma_recv_done;

	wr.next     = NULL;
	wr.wr_cqe   = &qe->cqe;
	wr.sg_list  = &list;
	wr.num_sge  = 1;

	ret = ib_post_recv(queue->qp, &wr, NULL);
	if (unlikely(ret)) {
		dev_err(queue->ctrl->ctrl.device,
			"%s failed with error code %d\n", __func__, ret);
	}
	return ret;
}

static struct blk_mq_tags *nvme_rdma_tagset(struct nvme_rdma_queue *queue)
{
	u32 queue_idx = nvme_rdma_queue_idx(queue);

	if (queue_idx == 0)
		return queue->ctrl->admin_tag_set.tags[queue_idx];
	return queue->ctrl->tag_set.tags[queue_idx - 1];
}

static void nvme_rdma_async_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvme_rdma_queue *queue = wc->qp->qp_context;
	struct nvme_rdma_ctrl *ctrl = queue->ctrl;
	bool waiting;

	spin_lock_bh(&queue->sq_lock);
	nvmeof_sq_kept_done(&queue->sq);
	waiting = ctrl->async_waiting;
	ctrl->async_waiting = false;
	spin_unlock_bh(&queue->sq_lock);

	if (unlikely(wc->status != IB_WC_SUCCESS))
		nvme_rdma_wr_error(cq, wc, "ASYNC");
	else if (unlikely(waiting))	/* its kept WR is free now */
		queue_work(nvme_wq, &ctrl->ctrl.async_event_work);
}

/**
 * nvme_rdma_submit_async_event() - post an Asynchronous Event Request
 * @arg: controller
 *
 * The AER uses the controller's preallocated async_event_sqe and no
 * struct request; its completion is special-cased in the recv handler.
 */
void nvme_rdma_submit_async_event(struct nvme_ctrl *arg)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(arg);
	struct nvme_rdma_queue *queue = &ctrl->queues[0];
	struct ib_device *dev = queue->device->dev;
	struct nvme_rdma_qe *sqe = &ctrl->async_event_sqe;
	struct nvme_command *cmd = sqe->data;
	struct ib_sge sge;
	int ret;

	ib_dma_sync_single_for_cpu(dev, sqe->dma, sizeof(*cmd), DMA_TO_DEVICE);

	memset(cmd, 0, sizeof(*cmd));
	cmd->common.opcode = nvme_admin_async_event;
	cmd->common.command_id = NVME_AQ_BLK_MQ_DEPTH;
	cmd->common.flags |= NVME_CMD_SGL_METABUF;
	nvmeof_put_keyed_sgl(&cmd->common.dptr.ksgl, 0, 0, 0, false);

	sqe->cqe.done = nvme_rdma_async_done;

	ib_dma_sync_single_for_device(dev, sqe->dma, sizeof(*cmd),
				      DMA_TO_DEVICE);

	/*
	 * The SEND goes in a WR the admin queue keeps for it (create_qp).
	 * Should the SENDs of the last AERs still hold those (their CQEs
	 * late, the target answered on), nvme_rdma_async_done() asks again.
	 */
	spin_lock_bh(&queue->sq_lock);
	if (unlikely(!nvmeof_sq_kept_post(&queue->sq))) {
		ctrl->async_waiting = true;
		spin_unlock_bh(&queue->sq_lock);
		return;
	}
	ret = nvme_rdma_post_send(queue, &sqe->cqe, sqe->dma, &sge, 1);
	if (ret) {
		nvmeof_sq_kept_unpost(&queue->sq);
	} else {
		queue->stats.cmds[NVMEOF_CMD_ADMIN]++;
		queue->stats.data[NVMEOF_MAP_NONE]++;
	}
	spin_unlock_bh(&queue->sq_lock);
	WARN_ON_ONCE(ret);
}

static void nvme_rdma_count_status(struct nvme_rdma_queue *queue,
				   __le16 cqe_status)
{
	enum nvmeof_status_class class =
		nvmeof_status_class(le16_to_cpu(cqe_status));

	if (unlikely(class != NVMEOF_STATUS_CLASSES))
		atomic64_inc(&queue->stats.status[class]);
}

static void nvme_rdma_process_nvme_rsp(struct nvme_rdma_queue *queue,
				       struct nvme_completion *cqe,
				       struct ib_wc *wc)
{
	struct request *rq;
	struct nvme_rdma_request *req;
	int ret;

	rq = nvme_find_rq(nvme_rdma_tagset(queue), cqe->command_id);
	if (!rq) {
		dev_err(queue->ctrl->ctrl.device,
			"got bad command_id %#x on QP %#x\n",
			cqe->command_id, queue->qp->qp_num);
		nvme_rdma_reject_response(queue);
		return;
	}
	req = blk_mq_rq_to_pdu(rq);
	/*
	 * A second response for a command, or one for a command not posted
	 * (never issued, or still parked on pending_sends), would end a
	 * request early (before its data or its SEND is done) or twice; a
	 * bogus remote invalidation leaves the MR open. Neither ends the
	 * request here: error recovery does, once the QP has stopped.
	 */
	switch (nvmeof_host_rsp_action(!req->rsp_received &&
				       blk_mq_request_started(rq) &&
				       READ_ONCE(req->posted),
				       req->mr, req->mr ? req->mr->rkey : 0,
				       wc->wc_flags & IB_WC_WITH_INVALIDATE,
				       wc->ex.invalidate_rkey)) {
	case NVMEOF_RSP_NOT_OUTSTANDING:
		dev_err(queue->ctrl->ctrl.device,
			"response for command_id %#x, which is not outstanding, on QP %#x\n",
			cqe->command_id, queue->qp->qp_num);
		nvme_rdma_reject_response(queue);
		return;
	case NVMEOF_RSP_BOGUS_INV:
		req->rsp_received = true;
		dev_err(queue->ctrl->ctrl.device,
			"response for command_id %#x invalidated rkey %#x, but the command's is %#x, on QP %#x\n",
			cqe->command_id, wc->ex.invalidate_rkey,
			req->mr ? req->mr->rkey : 0, queue->qp->qp_num);
		nvme_rdma_reject_response(queue);
		return;
	case NVMEOF_RSP_LOCAL_INV:
		req->rsp_received = true;
		nvme_rdma_count_status(queue, cqe->status);
		req->status = cqe->status;
		req->result = cqe->result;
		ret = nvme_rdma_inv_rkey(queue, req);
		if (unlikely(ret < 0)) {
			dev_err(queue->ctrl->ctrl.device,
				"Queueing INV WR for rkey %#x failed (%d)\n",
				req->mr->rkey, ret);
			nvme_rdma_error_recovery(queue->ctrl,
						 NVME_RDMA_RECOVERY_POST_FAILED);
		}
		/* the local invalidation completion will end the request */
		return;
	case NVMEOF_RSP_END:
		req->rsp_received = true;
		nvme_rdma_count_status(queue, cqe->status);
		req->status = cqe->status;
		req->result = cqe->result;
		nvme_rdma_inv_unneeded(queue, req);
		nvme_rdma_end_request(req);
		return;
	}
}

static void nvme_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct nvme_rdma_qe *qe =
		container_of(wc->wr_cqe, struct nvme_rdma_qe, cqe);
	struct nvme_rdma_queue *queue = wc->qp->qp_context;
	struct ib_device *ibdev = queue->device->dev;
	struct nvme_completion *cqe = qe->data;
	const size_t len = sizeof(struct nvme_completion);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		nvme_rdma_wr_error(cq, wc, "RECV");
		return;
	}

	if (unlikely(!nvmeof_host_rsp_len_ok(wc->byte_len))) {
		dev_err(queue->ctrl->ctrl.device,
			"Unexpected nvme completion length(%d)\n", wc->byte_len);
		nvme_rdma_reject_response(queue);
		return;
	}

	ib_dma_sync_single_for_cpu(ibdev, qe->dma, len, DMA_FROM_DEVICE);
	/*
	 * AEN requests are special as they don't time out and can
	 * survive any kind of queue freeze and often don't respond to
	 * aborts.  We don't even bother to allocate a struct request
	 * for them but rather special case them here.
	 */
	if (unlikely(nvme_is_aen_req(nvme_rdma_queue_idx(queue),
				     cqe->command_id)))
		nvme_complete_async_event(&queue->ctrl->ctrl, cqe->status,
					  &cqe->result);
	else
		nvme_rdma_process_nvme_rsp(queue, cqe, wc);
	ib_dma_sync_single_for_device(ibdev, qe->dma, len, DMA_FROM_DEVICE);

	nvme_rdma_post_recv(queue, qe);
}

/**
 * __nvme_rdma_stop_queue() - disconnect a queue and drain its QP
 * @queue: an allocated queue
 *
 * Here, beside the timeout handler that stops a queue, rather than with the
 * queue's setup in queue.c: the I/O path calls nothing above it.
 */
void __nvme_rdma_stop_queue(struct nvme_rdma_queue *queue)
{
	rdma_disconnect(queue->cm_id);
	ib_drain_qp(queue->qp);
}

/**
 * nvme_rdma_stop_queue() - disconnect a live queue and drain its QP
 * @queue: queue to stop; nothing is done unless it is allocated and live
 */
void nvme_rdma_stop_queue(struct nvme_rdma_queue *queue)
{
	if (!test_bit(NVME_RDMA_Q_ALLOCATED, &queue->flags))
		return;

	mutex_lock(&queue->queue_lock);
	if (test_and_clear_bit(NVME_RDMA_Q_LIVE, &queue->flags))
		__nvme_rdma_stop_queue(queue);
	mutex_unlock(&queue->queue_lock);
}

static void nvme_rdma_complete_timed_out(struct request *rq)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvme_rdma_queue *queue = req->queue;

	nvme_rdma_stop_queue(queue);
	nvmf_complete_timed_out_request(rq);
}

static enum blk_eh_timer_return nvme_rdma_timeout(struct request *rq)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvme_rdma_queue *queue = req->queue;
	struct nvme_rdma_ctrl *ctrl = queue->ctrl;

	if (req->ended_by_recovery) {
		dev_info(ctrl->ctrl.device,
			 "keep-alive ended by the controller's recovery\n");
	} else {
		dev_warn(ctrl->ctrl.device, "I/O %d QID %d timeout\n",
			 rq->tag, nvme_rdma_queue_idx(queue));
		atomic64_inc(&queue->stats.timeouts);
	}

	if (ctrl->ctrl.state != NVME_CTRL_LIVE) {
		/*
		 * If we are resetting, connecting or deleting we should
		 * complete immediately because we may block controller
		 * teardown or setup sequence
		 * - ctrl disable/shutdown fabrics requests
		 * - connect requests
		 * - initialization admin requests
		 * - I/O requests that entered after unquiescing and
		 *   the controller stopped responding
		 *
		 * All other requests should be cancelled by the error
		 * recovery work, so it's fine that we fail it here.
		 */
		nvme_rdma_complete_timed_out(rq);
		return BLK_EH_DONE;
	}

	/*
	 * LIVE state should trigger the normal error recovery which will
	 * handle completing this request.
	 */
	nvme_rdma_error_recovery(ctrl, NVME_RDMA_RECOVERY_TIMEOUT);
	return BLK_EH_RESET_TIMER;
}

/*
 * A command sent while the controller connects (Connect, Identify,
 * Property Get/Set, Set Features) that the controller dropped -- it gives a
 * controller up when its keep-alive timeout passes without a command, and
 * a lost DREQ leaves the host unaware -- never comes back; error recovery
 * cannot start while connecting, so the attempt would sit for the whole
 * admin_timeout (60 s). Twice the keep-alive timeout is as long as waiting
 * can help; then the attempt fails and the next one begins.
 */
static void nvme_rdma_bound_setup_timeout(struct nvme_rdma_ctrl *ctrl,
					  struct request *rq)
{
	unsigned int bound = 2 * ctrl->ctrl.kato * HZ;

	if (likely(ctrl->ctrl.state != NVME_CTRL_CONNECTING) || !bound)
		return;
	if (!rq->timeout)
		rq->timeout = rq->q->rq_timeout;
	rq->timeout = min(rq->timeout, bound);
}

/* under sq_lock, once the command is admitted: its counters */
static void nvme_rdma_count_cmd(struct nvme_rdma_queue *queue,
				struct nvme_rdma_request *req,
				const struct nvme_command *c)
{
	struct nvme_rdma_queue_stats *s = &queue->stats;
	enum nvmeof_cmd_class class =
		nvmeof_cmd_class(!nvme_rdma_queue_idx(queue), c->common.opcode);
	u32 bytes = blk_rq_payload_bytes(blk_mq_rq_from_pdu(req));

	s->cmds[class]++;
	if (class == NVMEOF_CMD_READ)
		s->bytes_read += bytes;
	else if (class == NVMEOF_CMD_WRITE)
		s->bytes_written += bytes;
	s->data[req->data_map]++;
}

static blk_status_t nvme_rdma_queue_one(struct nvme_rdma_queue *queue,
					struct blk_mq_hw_ctx *hctx,
					const struct blk_mq_queue_data *bd)
{
	struct nvme_ns *ns = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvme_command *c = nvme_req(rq)->cmd;
	const struct ib_send_wr *bad_wr = NULL;
	struct ib_send_wr *first;
	bool queue_ready = test_bit(NVME_RDMA_Q_LIVE, &queue->flags);
	unsigned long flags;
	blk_status_t ret;
	int err = 0;

	if (!nvme_check_ready(&queue->ctrl->ctrl, rq, queue_ready))
		return nvme_fail_nonready_command(&queue->ctrl->ctrl, rq);

	/*
	 * A queue that takes commands has its command ring, with a buffer
	 * for every tag of its set (one torn down has none).
	 */
	if (WARN_ON_ONCE((u32)rq->tag >= queue->nr_sqes))
		return BLK_STS_IOERR;

	req->posted = false;
	req->rsp_received = false;
	req->ended_by_recovery = false;

	ret = nvme_setup_cmd(ns, rq);
	if (ret)
		return ret;

	nvme_rdma_bound_setup_timeout(queue->ctrl, rq);
	nvmeof_start_request(rq);

	if (IS_ENABLED(CONFIG_BLK_DEV_INTEGRITY) &&
	    queue->pi_support &&
	    (c->common.opcode == nvme_cmd_write ||
	     c->common.opcode == nvme_cmd_read) &&
	    nvmeof_ns_has_pi(ns))
		req->use_sig_mr = true;
	else
		req->use_sig_mr = false;

	err = nvme_rdma_map_data(queue, rq, c);
	if (unlikely(err < 0)) {
		dev_err(queue->ctrl->ctrl.device,
			"Failed to map data (%d)\n", err);
		goto err;
	}

	if (queue->inline_cmd && req->num_sge == 1)
		nvme_rdma_prep_cmd_inline(queue, req);
	else
		nvme_rdma_prep_cmd_send(queue, req, c);
	first = nvme_rdma_first_wr(req);

	spin_lock_irqsave(&queue->sq_lock, flags);
	if (unlikely(!nvme_rdma_sq_admit(queue, req))) {
		queue->stats.sq_full++;
		spin_unlock_irqrestore(&queue->sq_lock, flags);
		err = -ENOMEM;	/* the send queue is full: later */
		goto err_unmap;
	}
	nvme_rdma_count_cmd(queue, req, c);
	/* more to come, or others already waiting: post with them */
	if (!bd->last || !llist_empty(&queue->pending_sends)) {
		spin_unlock_irqrestore(&queue->sq_lock, flags);
		llist_add(&req->pending, &queue->pending_sends);
		return BLK_STS_OK;
	}
	nvme_rdma_sq_posting(queue, req);
	err = nvme_rdma_post_wrs(queue, first, &bad_wr);
	if (unlikely(err))
		nvme_rdma_sq_unposted(queue, bad_wr ?: first);
	spin_unlock_irqrestore(&queue->sq_lock, flags);
	if (unlikely(err)) {
		nvme_rdma_check_half_posted(queue, req, bad_wr, err);
		goto err_unmap;
	}
	return BLK_STS_OK;

err_unmap:
	nvme_rdma_unmap_data(queue, rq);
err:
	if (err != -EIO) {
		nvme_cleanup_cmd(rq);
		if (err == -ENOMEM || err == -EAGAIN)
			ret = BLK_STS_RESOURCE;
		else
			ret = BLK_STS_IOERR;
	}
	if (err == -EIO)
		return nvme_host_path_error(rq);
	return ret;
}

static blk_status_t nvme_rdma_queue_rq(struct blk_mq_hw_ctx *hctx,
				       const struct blk_mq_queue_data *bd)
{
	struct nvme_rdma_queue *queue = hctx->driver_data;
	blk_status_t ret = nvme_rdma_queue_one(queue, hctx, bd);

	/*
	 * The last of a run posts the commands before it, also when it did
	 * not go out itself: blk-mq calls commit_rqs only when it stops
	 * before the last.
	 */
	if (bd->last && !llist_empty(&queue->pending_sends))
		nvme_rdma_post_pending(queue);
	return ret;
}

static void nvme_rdma_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	nvme_rdma_post_pending(hctx->driver_data);
}

static int nvme_rdma_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct nvme_rdma_queue *queue = hctx->driver_data;

	return ib_process_cq_direct(queue->ib_cq, -1);
}

static void nvme_rdma_check_pi_status(struct nvme_rdma_request *req)
{
	struct request *rq = blk_mq_rq_from_pdu(req);
	struct ib_mr_status mr_status;
	int ret;

	ret = ib_check_mr_status(req->mr, IB_MR_CHECK_SIG_STATUS, &mr_status);
	if (ret) {
		pr_err("ib_check_mr_status failed, ret %d\n", ret);
		nvme_req(rq)->status = NVME_SC_INVALID_PI;
		return;
	}

	if (mr_status.fail_status & IB_MR_CHECK_SIG_STATUS) {
		switch (mr_status.sig_err.err_type) {
		case IB_SIG_BAD_GUARD:
			nvme_req(rq)->status = NVME_SC_GUARD_CHECK;
			break;
		case IB_SIG_BAD_REFTAG:
			nvme_req(rq)->status = NVME_SC_REFTAG_CHECK;
			break;
		case IB_SIG_BAD_APPTAG:
			nvme_req(rq)->status = NVME_SC_APPTAG_CHECK;
			break;
		}
		pr_err("PI error found type %d expected 0x%x vs actual 0x%x\n",
		       mr_status.sig_err.err_type, mr_status.sig_err.expected,
		       mr_status.sig_err.actual);
	}
}

static void nvme_rdma_complete_rq(struct request *rq)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	struct nvme_rdma_queue *queue = req->queue;

	if (req->use_sig_mr)
		nvme_rdma_check_pi_status(req);

	nvme_rdma_unmap_data(queue, rq);
	nvme_complete_rq(rq);
}

/**
 * nvme_rdma_exit_request() - blk-mq exit_request: free the command buffer
 * @set: tag set the request belongs to
 * @rq: request being freed
 * @hctx_idx: hardware queue index
 */
static void nvme_rdma_exit_request(struct blk_mq_tag_set *set,
				   struct request *rq, unsigned int hctx_idx)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);

	kfree(req->sqe.data);
}

/**
 * nvme_rdma_init_request() - blk-mq init_request: set up the request PDU
 * @set: tag set the request belongs to (admin or I/O)
 * @rq: request being initialised
 * @hctx_idx: hardware queue index
 * @numa_node: NUMA node of the request
 *
 * Allocates the NVMe command buffer and binds the request to its queue.
 *
 * Return: 0 on success, -ENOMEM if the command buffer can't be allocated.
 */
static int nvme_rdma_init_request(struct blk_mq_tag_set *set,
				  struct request *rq, unsigned int hctx_idx,
				  nvmeof_numa_node_t numa_node)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(set->driver_data);
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);
	int queue_idx = (set == &ctrl->tag_set) ? hctx_idx + 1 : 0;
	struct nvme_rdma_queue *queue = &ctrl->queues[queue_idx];
	struct nvme_command *cmd;

	nvme_req(rq)->ctrl = &ctrl->ctrl;
	cmd = kzalloc(sizeof(*cmd), GFP_KERNEL);
	req->sqe.data = cmd;
	if (!req->sqe.data)
		return -ENOMEM;

	/* metadata nvme_rdma_sgl struct is located after command's data SGL */
	if (queue->pi_support)
		req->metadata_sgl = (void *)nvme_req(rq) +
			sizeof(struct nvme_rdma_request) +
			NVME_RDMA_DATA_SGL_SIZE;

	req->queue = queue;
	nvme_req(rq)->cmd = req->sqe.data;

	return 0;
}

/**
 * nvme_rdma_init_hctx() - blk-mq init_hctx for the I/O tag set
 * @hctx: hardware context
 * @data: the struct nvme_ctrl the tag set belongs to
 * @hctx_idx: hardware queue index; I/O queue hctx_idx + 1 serves it
 *
 * Return: 0, or -EINVAL if blk-mq asks for a queue the controller lacks.
 */
static int nvme_rdma_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			       unsigned int hctx_idx)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(data);
	int qid = nvmeof_host_hctx_queue(hctx_idx, ctrl->ctrl.queue_count);

	/* a queue the controller lacks: refused, and the machine stays up */
	if (WARN_ON_ONCE(qid < 0))
		return qid;

	hctx->driver_data = &ctrl->queues[qid];
	return 0;
}

/**
 * nvme_rdma_init_admin_hctx() - blk-mq init_hctx for the admin tag set
 * @hctx: hardware context
 * @data: the struct nvme_ctrl the tag set belongs to
 * @hctx_idx: hardware queue index, always 0
 *
 * Return: 0, or -EINVAL for any hctx but the first.
 */
static int nvme_rdma_init_admin_hctx(struct blk_mq_hw_ctx *hctx, void *data,
				     unsigned int hctx_idx)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(data);
	struct nvme_rdma_queue *queue = &ctrl->queues[0];

	if (WARN_ON_ONCE(hctx_idx != 0))
		return -EINVAL;

	hctx->driver_data = queue;
	return 0;
}

/**
 * nvme_rdma_map_queues() - blk-mq map_queues for the I/O tag set
 * @set: the I/O tag set
 *
 * Maps the default, read and poll hardware queue sets onto the I/O queues
 * split by nvme_rdma_alloc_io_queues().
 */
static void nvme_rdma_map_queues(struct blk_mq_tag_set *set)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(set->driver_data);
	struct nvmf_ctrl_options *opts = ctrl->ctrl.opts;

	if (opts->nr_write_queues && ctrl->io_queues[HCTX_TYPE_READ]) {
		/* separate read/write queues */
		set->map[HCTX_TYPE_DEFAULT].nr_queues =
			ctrl->io_queues[HCTX_TYPE_DEFAULT];
		set->map[HCTX_TYPE_DEFAULT].queue_offset = 0;
		set->map[HCTX_TYPE_READ].nr_queues =
			ctrl->io_queues[HCTX_TYPE_READ];
		set->map[HCTX_TYPE_READ].queue_offset =
			ctrl->io_queues[HCTX_TYPE_DEFAULT];
	} else {
		/* shared read/write queues */
		set->map[HCTX_TYPE_DEFAULT].nr_queues =
			ctrl->io_queues[HCTX_TYPE_DEFAULT];
		set->map[HCTX_TYPE_DEFAULT].queue_offset = 0;
		set->map[HCTX_TYPE_READ].nr_queues =
			ctrl->io_queues[HCTX_TYPE_DEFAULT];
		set->map[HCTX_TYPE_READ].queue_offset = 0;
	}
	/*
	 * No RDMA driver reports completion vector affinity, so this is what
	 * the RDMA mapping helper (absent from 6.12) does too.
	 */
	blk_mq_map_queues(&set->map[HCTX_TYPE_DEFAULT]);
	blk_mq_map_queues(&set->map[HCTX_TYPE_READ]);

	if (opts->nr_poll_queues && ctrl->io_queues[HCTX_TYPE_POLL]) {
		/* map dedicated poll queues only if we have queues left */
		set->map[HCTX_TYPE_POLL].nr_queues =
				ctrl->io_queues[HCTX_TYPE_POLL];
		set->map[HCTX_TYPE_POLL].queue_offset =
			ctrl->io_queues[HCTX_TYPE_DEFAULT] +
			ctrl->io_queues[HCTX_TYPE_READ];
		blk_mq_map_queues(&set->map[HCTX_TYPE_POLL]);
	}

	dev_info(ctrl->ctrl.device,
		 "mapped %d/%d/%d default/read/poll queues.\n",
		 ctrl->io_queues[HCTX_TYPE_DEFAULT],
		 ctrl->io_queues[HCTX_TYPE_READ],
		 ctrl->io_queues[HCTX_TYPE_POLL]);
}

const struct blk_mq_ops nvme_rdma_mq_ops = {
	.queue_rq	= nvme_rdma_queue_rq,
	.commit_rqs	= nvme_rdma_commit_rqs,
	.complete	= nvme_rdma_complete_rq,
	.init_request	= nvme_rdma_init_request,
	.exit_request	= nvme_rdma_exit_request,
	.init_hctx	= nvme_rdma_init_hctx,
	.timeout	= nvme_rdma_timeout,
	.map_queues	= nvme_rdma_map_queues,
	.poll		= nvme_rdma_poll,
};

const struct blk_mq_ops nvme_rdma_admin_mq_ops = {
	.queue_rq	= nvme_rdma_queue_rq,
	.commit_rqs	= nvme_rdma_commit_rqs,
	.complete	= nvme_rdma_complete_rq,
	.init_request	= nvme_rdma_init_request,
	.exit_request	= nvme_rdma_exit_request,
	.init_hctx	= nvme_rdma_init_admin_hctx,
	.timeout	= nvme_rdma_timeout,
};
