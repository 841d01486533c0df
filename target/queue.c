// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target: queues -- their response rings, queue pair
 * and CQ, and the RDMA CM events that connect and disconnect them.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/nvme.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <rdma/ib_cm.h>

#include <linux/nvme-rdma.h>
#include "mem_reserve.h"
#include "nvmet_rdma.h"
#include "wire.h"

DEFINE_IDA(nvmet_rdma_queue_ida);
LIST_HEAD(nvmet_rdma_queue_list);
/* protects nvmet_rdma_queue_list and the queues' queue_list */
DEFINE_MUTEX(nvmet_rdma_queue_mutex);

static void nvmet_rdma_qp_event(struct ib_event *event, void *priv);
static void nvmet_rdma_qp_error_work(struct work_struct *w);

/**
 * nvmet_rdma_queue_buffer_bytes() - what a queue's own buffers hold
 * @ndev: its device
 * @recv_queue_size: its receive queue's depth
 * @admin: an admin queue (its receive buffers have no in-capsule data)
 * @srq: on a shared receive queue, whose receive buffers are not its own
 *
 * Two responses per receive buffer and, without an SRQ, the receive
 * buffers; fixed from the queue's creation to its release.
 *
 * Return: bytes, as allocated (slab rounding not counted).
 */
size_t nvmet_rdma_queue_buffer_bytes(const struct nvmet_rdma_device *ndev,
				     int recv_queue_size, bool admin, bool srq)
{
	size_t bytes = recv_queue_size * 2 *
		       (sizeof(struct nvmet_rdma_rsp) +
			sizeof(struct nvme_completion));

	if (!srq)
		bytes += nvmet_rdma_cmds_bytes(ndev, recv_queue_size, admin);
	return bytes;
}

/**
 * nvmet_rdma_alloc_rsp() - set up a response context
 * @ndev: the device the CQE buffer is mapped for
 * @r: the response context to set up
 * @tag: its index in the queue's ring, or NVMET_RDMA_DISCRETE_RSP_TAG for
 *	one allocated outside the ring
 *
 * Allocates and DMA-maps the CQE buffer and prepares the SEND work request
 * and the RDMA READ/WRITE completion handlers.
 *
 * Return: 0 or -ENOMEM.
 */
int nvmet_rdma_alloc_rsp(struct nvmet_rdma_device *ndev,
			 struct nvmet_rdma_rsp *r, int tag)
{
	/* NVMe CQE / RDMA SEND */
	r->req.cqe = kmalloc(sizeof(*r->req.cqe), GFP_KERNEL);
	if (!r->req.cqe)
		goto out;

	r->send_sge.addr = ib_dma_map_single(ndev->device, r->req.cqe,
					     sizeof(*r->req.cqe), DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ndev->device, r->send_sge.addr))
		goto out_free_rsp;

	if (ib_dma_pci_p2p_dma_supported(ndev->device))
		r->req.p2p_client = &ndev->device->dev;
	r->send_sge.length = sizeof(*r->req.cqe);
	r->send_sge.lkey = ndev->pd->local_dma_lkey;

	r->send_cqe.done = nvmet_rdma_send_done;

	r->send_wr.wr_cqe = &r->send_cqe;
	r->send_wr.sg_list = &r->send_sge;
	r->send_wr.num_sge = 1;
	r->send_wr.send_flags = IB_SEND_SIGNALED;
	r->inline_sge.addr = (uintptr_t)r->req.cqe;
	r->inline_sge.length = sizeof(*r->req.cqe);

	/* Data In / RDMA READ */
	r->read_cqe.done = nvmet_rdma_read_data_done;
	/* Data Out / RDMA WRITE */
	r->write_cqe.done = nvmet_rdma_write_data_done;
	r->tag = tag;

	return 0;

out_free_rsp:
	kfree(r->req.cqe);
out:
	return -ENOMEM;
}

/**
 * nvmet_rdma_free_rsp() - tear down a response context
 * @ndev: the device the CQE buffer is mapped for
 * @r: the response context set up by nvmet_rdma_alloc_rsp()
 */
void nvmet_rdma_free_rsp(struct nvmet_rdma_device *ndev,
			 struct nvmet_rdma_rsp *r)
{
	ib_dma_unmap_single(ndev->device, r->send_sge.addr,
			    sizeof(*r->req.cqe), DMA_TO_DEVICE);
	kfree(r->req.cqe);
}

static int
nvmet_rdma_alloc_rsps(struct nvmet_rdma_queue *queue)
{
	struct nvmet_rdma_device *ndev = queue->dev;
	int nr_rsps = queue->recv_queue_size * 2;
	int ret = -ENOMEM, i;

	queue->rsps = kcalloc(nr_rsps, sizeof(*queue->rsps), GFP_KERNEL);
	if (!queue->rsps)
		goto out;

	init_llist_head(&queue->free_rsps);
	for (i = 0; i < nr_rsps; i++) {
		struct nvmet_rdma_rsp *rsp = &queue->rsps[i];

		ret = nvmet_rdma_alloc_rsp(ndev, rsp, i);
		if (ret)
			goto out_free;
	}
	/* pushed last to first, so that the first ones are taken first */
	for (i = nr_rsps - 1; i >= 0; i--)
		llist_add(&queue->rsps[i].free_node, &queue->free_rsps);

	return 0;

out_free:
	while (--i >= 0)
		nvmet_rdma_free_rsp(ndev, &queue->rsps[i]);
	kfree(queue->rsps);
out:
	return ret;
}

static void nvmet_rdma_free_rsps(struct nvmet_rdma_queue *queue)
{
	struct nvmet_rdma_device *ndev = queue->dev;
	int i, nr_rsps = queue->recv_queue_size * 2;

	for (i = 0; i < nr_rsps; i++)
		nvmet_rdma_free_rsp(ndev, &queue->rsps[i]);
	kfree(queue->rsps);
}

static bool nvmet_rdma_unsignalled_responses = true;
module_param_named(unsignalled_responses, nvmet_rdma_unsignalled_responses,
		   bool, 0444);
MODULE_PARM_DESC(unsignalled_responses,
		 "Send responses without data out (writes, most admin commands) in unsignalled inline SENDs, one in queue depth / 8 signalled (default Y; N = every response signalled)");

/*
 * Unsignalled responses (io.c nvmet_rdma_goes_unsignalled()): one SEND in
 * send_queue_size / 8 (a power of two) is signalled. The unsignalled ones
 * posted since the last signalled one keep their credits -- at most
 * signal_mask of them when no signalled SEND is in flight to return them --
 * so the send queue must hold that many besides the largest command (its
 * SEND and up to one RDMA READ/WRITE per page), or a lone command could
 * wait for credits nothing will return. rdma_rw's share of the queue (a
 * work request or more per command and page group) normally leaves ample
 * room; where it does not, every SEND is signalled.
 */
static void nvmet_rdma_init_unsignalled_sends(struct nvmet_rdma_queue *queue,
					      const struct ib_qp_cap *cap)
{
	u32 largest = 1 + (1 << NVMET_RDMA_MAX_MDTS);

	queue->signal_mask =
		rounddown_pow_of_two(max(queue->send_queue_size / 8, 1)) - 1;
	queue->unsignalled_sends = nvmet_rdma_unsignalled_responses &&
		cap->max_inline_data >= sizeof(struct nvme_completion) &&
		queue->sq_wr_max > queue->signal_mask + largest;
	queue->unsignalled_inv = !rdma_protocol_iwarp(queue->dev->device,
						      queue->cm_id->port_num);
	atomic_set(&queue->unsignalled_count, 0);
	atomic_set(&queue->unsignalled_held, 0);
	queue->unsignalled_cqe.done = nvmet_rdma_unsignalled_done;
}

/* rdma_rw_fr_page_list_len()'s cap on an MR's page list */
#define NVMET_RDMA_RW_MR_PAGES_MAX	256

/* rdma_rw contexts: one per send-queue entry, times the MRs an MDTS needs */
static u32 nvmet_rdma_rdma_ctxs(struct ib_device *dev, u32 port_num,
				u32 send_queue_size)
{
	return send_queue_size *
	       rdma_rw_mr_factor(dev, port_num, 1 << NVMET_RDMA_MAX_MDTS);
}

/*
 * The MRs rdma_rw_init_mrs() (drivers/infiniband/core/rw.c) makes for the
 * QP, by its rules: a pool of fast-registration MRs, one per rdma_rw
 * context, where the device must register for RDMA READ (iWARP) or may
 * (max_sgl_rd: ConnectX); with T10-PI, that pool and one of integrity MRs.
 * ib_core's force_mr, a debugging parameter, makes a pool not seen here.
 */
static u64 nvmet_rdma_queue_mr_bytes(struct ib_device *dev, u32 port_num,
				     u32 send_queue_size, bool pi)
{
	u32 ctxs = nvmet_rdma_rdma_ctxs(dev, port_num, send_queue_size);

	if (pi)
		return 2 * nvmeof_mr_pool_bytes(ctxs,
			min_t(u32, dev->attrs.max_pi_fast_reg_page_list_len,
			      NVMET_RDMA_RW_MR_PAGES_MAX));
	if (rdma_protocol_iwarp(dev, port_num) || dev->attrs.max_sgl_rd)
		return nvmeof_mr_pool_bytes(ctxs,
			min_t(u32, dev->attrs.max_fast_reg_page_list_len,
			      NVMET_RDMA_RW_MR_PAGES_MAX));
	return 0;
}

static int nvmet_rdma_create_queue_ib(struct nvmet_rdma_queue *queue)
{
	struct ib_qp_init_attr qp_attr = { };
	struct nvmet_rdma_device *ndev = queue->dev;
	int nr_cqe, ret, i;

	/*
	 * Reserve CQ slots for RECV + RDMA_READ/RDMA_WRITE + RDMA_SEND.
	 */
	nr_cqe = queue->recv_queue_size + 2 * queue->send_queue_size;

	queue->cq = ib_cq_pool_get(ndev->device, nr_cqe + 1,
				   queue->comp_vector, IB_POLL_WORKQUEUE);
	if (IS_ERR(queue->cq)) {
		ret = PTR_ERR(queue->cq);
		pr_err("failed to create CQ cqe= %d ret= %d\n",
		       nr_cqe + 1, ret);
		goto out;
	}

	qp_attr.qp_context = queue;
	qp_attr.event_handler = nvmet_rdma_qp_event;
	qp_attr.send_cq = queue->cq;
	qp_attr.recv_cq = queue->cq;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	/* +1 for drain */
	qp_attr.cap.max_send_wr = queue->send_queue_size + 1;
	qp_attr.cap.max_rdma_ctxs =
		nvmet_rdma_rdma_ctxs(ndev->device, queue->cm_id->port_num,
				     queue->send_queue_size);
	qp_attr.cap.max_send_sge = max(ndev->device->attrs.max_sge_rd,
				       ndev->device->attrs.max_send_sge);

	if (queue->nsrq) {
		qp_attr.srq = queue->nsrq->srq;
	} else {
		/* +1 for drain */
		qp_attr.cap.max_recv_wr = 1 + queue->recv_queue_size;
		qp_attr.cap.max_recv_sge = 1 + ndev->in_capsule_pages;
	}

	if (queue->port->pi_enable && queue->host_qid)
		qp_attr.create_flags |= IB_QP_CREATE_INTEGRITY_EN;

	/* room for a CQE in the work request: unsignalled responses (io.c) */
	if (nvmet_rdma_unsignalled_responses)
		qp_attr.cap.max_inline_data = sizeof(struct nvme_completion);
	ret = rdma_create_qp(queue->cm_id, ndev->pd, &qp_attr);
	if (ret && qp_attr.cap.max_inline_data) {
		/* a device without inline data: every SEND signalled */
		qp_attr.cap.max_inline_data = 0;
		ret = rdma_create_qp(queue->cm_id, ndev->pd, &qp_attr);
	}
	if (ret) {
		pr_err("failed to create_qp ret= %d\n", ret);
		goto err_destroy_cq;
	}
	queue->qp = queue->cm_id->qp;

	/* the drain's WR is not a credit: it must find room in a full queue */
	queue->sq_wr_max = qp_attr.cap.max_send_wr - 1;
	atomic_set(&queue->sq_wr_avail, queue->sq_wr_max);
	nvmet_rdma_init_unsignalled_sends(queue, &qp_attr.cap);

	pr_debug("%s: max_cqe= %d max_sge= %d sq_size = %d cm_id= %p\n",
		 __func__, queue->cq->cqe, qp_attr.cap.max_send_sge,
		 qp_attr.cap.max_send_wr, queue->cm_id);

	if (!queue->nsrq) {
		for (i = 0; i < queue->recv_queue_size; i++) {
			queue->cmds[i].queue = queue;
			ret = nvmet_rdma_post_recv(ndev, &queue->cmds[i]);
			if (ret)
				goto err_destroy_qp;
		}
	}

out:
	return ret;

err_destroy_qp:
	rdma_destroy_qp(queue->cm_id);
err_destroy_cq:
	ib_cq_pool_put(queue->cq, nr_cqe + 1);
	goto out;
}

static void nvmet_rdma_destroy_queue_ib(struct nvmet_rdma_queue *queue)
{
	struct nvmet_rdma_rsp *rsp, *next;
	int i, stranded = 0;

	ib_drain_qp(queue->qp);

	/*
	 * Reclaim resources of a response that is still in-flight when the
	 * queue is being torn down. This happens when the connection was
	 * forcefully disconnected while an I/O is in flight, or a chain went
	 * in part (nvmet_rdma_posted_in_part()): after the drain, no WR of
	 * theirs is left on the device.
	 */
	for (i = 0; i < queue->recv_queue_size * 2; i++)
		if (queue->rsps[i].in_use)
			nvmet_rdma_free_rsp_resources(&queue->rsps[i]);
	llist_for_each_entry_safe(rsp, next, llist_del_all(&queue->stranded_rsps),
				  free_node) {
		nvmet_rdma_free_rsp_resources(rsp);
		nvmet_rdma_put_rsp(rsp);
		stranded++;
	}
	if (stranded)
		pr_info("queue %d: released %d responses from outside the ring that chains posted in part had kept\n",
			queue->idx, stranded);

	if (queue->cm_id)
		rdma_destroy_id(queue->cm_id);
	ib_destroy_qp(queue->qp);
	ib_cq_pool_put(queue->cq, queue->recv_queue_size + 2 *
		       queue->send_queue_size + 1);
}

static void nvmet_rdma_free_queue(struct nvmet_rdma_queue *queue)
{
	unsigned long flags;

	pr_debug("freeing queue %d\n", queue->idx);

	/*
	 * No QP error work from now on (nvmet_rdma_fail_queue_later()), and
	 * none running: it reads the sq's controller, which the sq's
	 * destruction puts. A queue whose connect failed is still CONNECTING.
	 */
	spin_lock_irqsave(&queue->state_lock, flags);
	queue->state = NVMET_RDMA_Q_DISCONNECTING;
	spin_unlock_irqrestore(&queue->state_lock, flags);
	cancel_work_sync(&queue->qp_error_work);
	/* before the sq, whose controller its file shows */
	nvmet_rdma_stats_remove_queue(queue);

	/*
	 * Before the sq's destruction, which waits for every reference:
	 * commands waiting for credits hold one, and may wait for good.
	 */
	nvmet_rdma_drop_wait_list(queue);
	nvmet_sq_destroy(&queue->nvme_sq);
	/* all dropped now: the sq's destruction waited for the last */
	if (atomic_read(&queue->waiting_dropped))
		pr_info("queue %d: gone with %d commands unanswered that waited for send queue credits\n",
			queue->idx, atomic_read(&queue->waiting_dropped));
	/* the last reference: the controller's, which the connect gave it */
	nvmeof_cq_put(&queue->nvme_cq);

	nvmet_rdma_destroy_queue_ib(queue);
	if (!queue->nsrq) {
		nvmet_rdma_free_cmds(queue->dev, queue->cmds,
				     queue->recv_queue_size,
				     !queue->host_qid);
	}
	nvmet_rdma_free_rsps(queue);
	/* after the responses: none holds a data page any more */
	nvmet_rdma_page_cache_destroy(queue);
	ida_free(&nvmet_rdma_queue_ida, queue->idx);
	kfree(queue);
}

static void nvmet_rdma_release_queue_work(struct work_struct *w)
{
	struct nvmet_rdma_queue *queue =
		container_of(w, struct nvmet_rdma_queue, release_work);
	struct nvmet_rdma_device *dev = queue->dev;

	/*
	 * First: the commands it runs need the sq, the QP and the responses.
	 * Not in nvmet_rdma_free_queue(), whose other caller is a failed
	 * connect: the CM handler, under handler_mutex, of a queue never
	 * established (so the work was never queued). A flush there shows
	 * lockdep a cycle, idle or not: the work's Connect takes
	 * nvmet_config_sem, under which port removal takes handler_mutex.
	 */
	flush_work(&queue->wait_list_work);
	nvmet_rdma_free_queue(queue);

	nvmet_rdma_put_device(dev);
}

static int
nvmet_rdma_parse_cm_connect_req(struct rdma_conn_param *conn,
				struct nvmet_port *nport,
				struct nvmet_rdma_queue *queue)
{
	struct nvmeof_cm_req_params p;
	int ret;

	/* the port's queue size - 1 is the CAP.MQES nvmet reports */
	ret = nvmeof_parse_cm_req(conn->private_data, conn->private_data_len,
				  nvmeof_port_queue_size(nport), &p);
	if (ret)
		return ret;

	queue->host_qid = p.qid;
	queue->recv_queue_size = p.recv_queue_size;
	queue->send_queue_size = p.send_queue_size;
	return 0;
}

static int nvmet_rdma_cm_reject(struct rdma_cm_id *cm_id,
				enum nvme_rdma_cm_status status)
{
	struct nvme_rdma_cm_rej rej;

	pr_warn_ratelimited("rejecting connect request from %pISpcs: %s (%d)\n",
			    &cm_id->route.addr.dst_addr,
			    nvme_rdma_cm_msg(status), status);

	rej.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rej.sts = cpu_to_le16(status);

	return rdma_reject(cm_id, (void *)&rej, sizeof(rej),
			   IB_CM_REJ_CONSUMER_DEFINED);
}

/*
 * The commands that arrived before the connection was established, run once
 * it is (queued by nvmet_rdma_queue_established()); dropped if the queue is
 * already being disconnected, as __nvmet_rdma_queue_disconnect() drops them
 * before it is established.
 */
static void nvmet_rdma_wait_list_work(struct work_struct *w)
{
	struct nvmet_rdma_queue *queue =
		container_of(w, struct nvmet_rdma_queue, wait_list_work);
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	while (!list_empty(&queue->rsp_wait_list)) {
		struct nvmet_rdma_rsp *cmd;

		cmd = list_first_entry(&queue->rsp_wait_list,
				       struct nvmet_rdma_rsp, wait_list);
		list_del(&cmd->wait_list);
		if (queue->state != NVMET_RDMA_Q_LIVE) {
			nvmet_rdma_put_rsp(cmd);
			continue;
		}

		spin_unlock_irqrestore(&queue->state_lock, flags);
		nvmet_rdma_handle_command(queue, cmd);
		spin_lock_irqsave(&queue->state_lock, flags);
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

/*
 * A new queue is refused when its buffers, its page cache at its fullest
 * and its QP's MR pools would leave less than the memory reserve
 * (min_available_mb) available: a refusal that says why, which the host
 * retries, rather than an allocation that does not fit waking the OOM
 * killer. What is available does not yet hold what the queues admitted
 * before may still take (their page caches grow with their I/O): that is
 * counted too. Two queues admitted at the same moment do not see each
 * other's cache. The RDMA device's own rings for the queue come on top;
 * the reserve is there for them too.
 */
static bool nvmet_rdma_queue_fits_memory(struct nvmet_rdma_device *ndev,
					 struct nvmet_rdma_queue *queue,
					 struct rdma_cm_id *cm_id,
					 struct nvmet_port *nport)
{
	u64 mrs = nvmet_rdma_queue_mr_bytes(ndev->device, cm_id->port_num,
					    queue->send_queue_size,
					    nport->pi_enable && queue->host_qid);
	u64 need = nvmet_rdma_queue_buffer_bytes(ndev, queue->recv_queue_size,
						 !queue->host_qid,
						 !!ndev->srqs) +
		   nvmet_rdma_page_cache_max_bytes(queue->host_qid) + mrs;
	struct nvmet_rdma_memory_figures f;

	if (nvmet_rdma_memory_fits(need, &f))
		return true;
	pr_warn_ratelimited("refusing queue %u of the host at %pISpc: its buffers need %llu KiB (%llu KiB of them memory registrations) and the queues admitted before may still take %llu KiB for their page caches, %llu KiB of memory is available and min_available_mb keeps %u MiB%s\n",
			    queue->host_qid, &cm_id->route.addr.dst_addr,
			    need >> 10, mrs >> 10, f.caches >> 10,
			    f.available >> 10, f.reserve_mb, ndev->srqs ? "" :
			    " (use_srq=Y shares receive buffers among queues)");
	return false;
}

static struct nvmet_rdma_queue *
nvmet_rdma_alloc_queue(struct nvmet_rdma_device *ndev,
		       struct rdma_cm_id *cm_id,
		       struct rdma_cm_event *event)
{
	struct nvmet_rdma_port *port = cm_id->context;
	struct nvmet_rdma_queue *queue;
	int ret;

	queue = kzalloc(sizeof(*queue), GFP_KERNEL);
	if (!queue) {
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_reject;
	}

	/* the SQ takes a reference on its CQ (where nvmet counts them) */
	nvmeof_cq_init(&queue->nvme_cq);
	ret = nvmeof_sq_init(&queue->nvme_sq, &queue->nvme_cq);
	if (ret) {
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_put_cq;
	}

	ret = nvmet_rdma_parse_cm_connect_req(&event->param.conn, port->nport,
					      queue);
	if (ret)
		goto out_destroy_sq;

	if (!nvmet_rdma_queue_fits_memory(ndev, queue, cm_id, port->nport)) {
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_destroy_sq;
	}

	/*
	 * Schedules the actual release because calling rdma_destroy_id from
	 * inside a CM callback would trigger a deadlock. (great API design..)
	 */
	INIT_WORK(&queue->release_work, nvmet_rdma_release_queue_work);
	INIT_WORK(&queue->wait_list_work, nvmet_rdma_wait_list_work);
	INIT_WORK(&queue->qp_error_work, nvmet_rdma_qp_error_work);
	queue->dev = ndev;
	queue->cm_id = cm_id;
	queue->port = port->nport;

	spin_lock_init(&queue->state_lock);
	queue->state = NVMET_RDMA_Q_CONNECTING;
	INIT_LIST_HEAD(&queue->rsp_wait_list);
	INIT_LIST_HEAD(&queue->rsp_wr_wait_list);
	spin_lock_init(&queue->rsp_wr_wait_lock);
	INIT_LIST_HEAD(&queue->queue_list);

	queue->idx = ida_alloc(&nvmet_rdma_queue_ida, GFP_KERNEL);
	if (queue->idx < 0) {
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_destroy_sq;
	}

	/*
	 * Spread the io queues across completion vectors,
	 * but still keep all admin queues on vector 0.
	 */
	queue->comp_vector = !queue->host_qid ? 0 :
		queue->idx % ndev->device->num_comp_vectors;

	if (nvmet_rdma_page_cache_init(queue)) {
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_ida_remove;
	}

	ret = nvmet_rdma_alloc_rsps(queue);
	if (ret) {
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_free_page_cache;
	}

	if (ndev->srqs) {
		queue->nsrq = ndev->srqs[queue->comp_vector % ndev->srq_count];
	} else {
		queue->cmds = nvmet_rdma_alloc_cmds(ndev,
						    queue->recv_queue_size,
						    !queue->host_qid);
		if (IS_ERR(queue->cmds)) {
			ret = NVME_RDMA_CM_NO_RSC;
			goto out_free_responses;
		}
	}

	ret = nvmet_rdma_create_queue_ib(queue);
	if (ret) {
		pr_err("%s: creating RDMA queue failed (%d).\n",
		       __func__, ret);
		ret = NVME_RDMA_CM_NO_RSC;
		goto out_free_cmds;
	}
	/* after the QP: its limits bound a premapped RDMA READ */
	queue->premapped_read_pages = nvmet_rdma_premapped_read_pages(queue);

	nvmet_rdma_stats_add_queue(queue);
	return queue;

out_free_cmds:
	if (!queue->nsrq) {
		nvmet_rdma_free_cmds(queue->dev, queue->cmds,
				     queue->recv_queue_size,
				     !queue->host_qid);
	}
out_free_responses:
	nvmet_rdma_free_rsps(queue);
out_free_page_cache:
	nvmet_rdma_page_cache_destroy(queue);
out_ida_remove:
	ida_free(&nvmet_rdma_queue_ida, queue->idx);
out_destroy_sq:
	nvmet_sq_destroy(&queue->nvme_sq);
out_put_cq:
	nvmeof_cq_put(&queue->nvme_cq);
	kfree(queue);
out_reject:
	nvmet_rdma_cm_reject(cm_id, ret);
	return NULL;
}

/**
 * nvmet_rdma_error_comp() - fail a queue: a fatal error of its controller,
 *	or, before the controller exists (an admin Connect), its disconnect
 * @queue: the queue
 *
 * Context: process context (it takes mutexes).
 */
void nvmet_rdma_error_comp(struct nvmet_rdma_queue *queue)
{
	if (queue->nvme_sq.ctrl) {
		nvmet_ctrl_fatal_error(queue->nvme_sq.ctrl);
	} else {
		/*
		 * we didn't setup the controller yet in case
		 * of admin connect error, just disconnect and
		 * cleanup the queue
		 */
		nvmet_rdma_queue_disconnect(queue);
	}
}

/*
 * A QP that a local error of the device moved to the error state (no CQE
 * of its own says so) only flushes its WRs, and the completions take a
 * flush for the echo of a teardown: without this the host would wait for
 * its commands to time out. The event may come in atomic context (mlx5:
 * its event queue's interrupt), so a work item fails the queue; it is
 * queued only before the queue starts going away, and
 * nvmet_rdma_free_queue() waits for it before anything it uses goes.
 */
static void nvmet_rdma_qp_error_work(struct work_struct *w)
{
	struct nvmet_rdma_queue *queue =
		container_of(w, struct nvmet_rdma_queue, qp_error_work);

	nvmet_rdma_error_comp(queue);
}

/**
 * nvmet_rdma_fail_queue_later() - fail a queue from a work item
 * @queue: the queue
 *
 * For a failure met in atomic context (a QP event, a post where a backend
 * completes a command), where nvmet_rdma_error_comp() cannot sleep; nothing
 * once the queue is going.
 */
void nvmet_rdma_fail_queue_later(struct nvmet_rdma_queue *queue)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state != NVMET_RDMA_Q_DISCONNECTING)
		queue_work(nvmet_wq, &queue->qp_error_work);
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

static void nvmet_rdma_qp_event(struct ib_event *event, void *priv)
{
	struct nvmet_rdma_queue *queue = priv;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(queue->cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		pr_debug("received last WQE reached event for queue=0x%p\n",
			 queue);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		pr_err("queue %d: %s (%d): the queue pair is in error\n",
		       queue->idx, ib_event_msg(event->event), event->event);
		nvmet_rdma_fail_queue_later(queue);
		break;
	default:
		pr_err("received IB QP event: %s (%d)\n",
		       ib_event_msg(event->event), event->event);
		break;
	}
}

static int nvmet_rdma_cm_accept(struct rdma_cm_id *cm_id,
				struct nvmet_rdma_queue *queue,
				struct rdma_conn_param *p)
{
	struct rdma_conn_param  param = { };
	struct nvme_rdma_cm_rep priv = { };
	int ret = -ENOMEM;

	param.rnr_retry_count = 7;
	param.flow_control = 1;
	param.initiator_depth = min_t(u8, p->initiator_depth,
				      queue->dev->device->attrs.max_qp_init_rd_atom);
	param.private_data = &priv;
	param.private_data_len = sizeof(priv);
	priv.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	priv.crqsize = cpu_to_le16(queue->recv_queue_size);

	ret = rdma_accept(cm_id, &param);
	if (ret)
		pr_err("rdma_accept failed (error code = %d)\n", ret);

	return ret;
}

static int nvmet_rdma_queue_connect(struct rdma_cm_id *cm_id,
				    struct rdma_cm_event *event)
{
	struct nvmet_rdma_device *ndev;
	struct nvmet_rdma_queue *queue;
	int ret = -EINVAL;

	ndev = nvmet_rdma_find_get_device(cm_id);
	if (!ndev) {
		nvmet_rdma_cm_reject(cm_id, NVME_RDMA_CM_NO_RSC);
		return -ECONNREFUSED;
	}

	queue = nvmet_rdma_alloc_queue(ndev, cm_id, event);
	if (!queue) {
		ret = -ENOMEM;
		goto put_device;
	}

	if (queue->host_qid == 0) {
		struct nvmet_rdma_queue *q;
		int pending = 0;

		/* Check for pending controller teardown */
		mutex_lock(&nvmet_rdma_queue_mutex);
		list_for_each_entry(q, &nvmet_rdma_queue_list, queue_list) {
			if (q->nvme_sq.ctrl == queue->nvme_sq.ctrl &&
			    q->state == NVMET_RDMA_Q_DISCONNECTING)
				pending++;
		}
		mutex_unlock(&nvmet_rdma_queue_mutex);
		if (pending > NVMET_RDMA_BACKLOG) {
			ret = NVME_SC_CONNECT_CTRL_BUSY;
			goto free_queue;
		}
	}

	ret = nvmet_rdma_cm_accept(cm_id, queue, &event->param.conn);
	if (ret)
		goto free_queue;

	mutex_lock(&nvmet_rdma_queue_mutex);
	list_add_tail(&queue->queue_list, &nvmet_rdma_queue_list);
	mutex_unlock(&nvmet_rdma_queue_mutex);

	return 0;

free_queue:
	/*
	 * Don't destroy the cm_id in free path, as we implicitly
	 * destroy the cm_id here with non-zero ret code.
	 */
	WRITE_ONCE(queue->cm_id, NULL);	/* its statistics file reads it */
	nvmet_rdma_free_queue(queue);
put_device:
	nvmet_rdma_put_device(ndev);

	return ret;
}

/**
 * nvmet_rdma_queue_host_traddr() - the host's address of a queue's RDMA
 *	connection, as nvmet shows a controller's host_traddr
 * @queue: the queue
 * @buf: where the address goes, as text
 * @len: the size of @buf
 *
 * Return: the length of the text (snprintf's), 0 when the queue has no
 * connection any more (its connect failed).
 */
ssize_t nvmet_rdma_queue_host_traddr(struct nvmet_rdma_queue *queue,
				     char *buf, size_t len)
{
	struct rdma_cm_id *cm_id = READ_ONCE(queue->cm_id);

	if (!cm_id) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	return snprintf(buf, len, "%pISc",
			(struct sockaddr *)&cm_id->route.addr.dst_addr);
}

static void nvmet_rdma_queue_established(struct nvmet_rdma_queue *queue)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state != NVMET_RDMA_Q_CONNECTING) {
		pr_warn("trying to establish a connected queue\n");
		goto out_unlock;
	}
	queue->state = NVMET_RDMA_Q_LIVE;
	/*
	 * Not here: this is the CM handler, under the cm_id's handler_mutex,
	 * and a Connect command takes nvmet_config_sem, which disabling a
	 * port holds while destroying its listening cm_id (handler_mutex):
	 * the two locks would be taken in both orders.
	 */
	if (!list_empty(&queue->rsp_wait_list))
		queue_work(nvmet_rdma_wq, &queue->wait_list_work);

out_unlock:
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

/**
 * __nvmet_rdma_queue_disconnect() - disconnect a queue and schedule its
 *	release
 * @queue: the queue, already removed from nvmet_rdma_queue_list by the
 *	caller
 *
 * Drops the commands still waiting for the connection to be established,
 * moves the queue to DISCONNECTING and, unless it was already there,
 * disconnects the cm_id and queues the release work.
 */
void __nvmet_rdma_queue_disconnect(struct nvmet_rdma_queue *queue)
{
	bool disconnect = false;
	unsigned long flags;

	pr_debug("cm_id= %p queue->state= %d\n", queue->cm_id, queue->state);

	spin_lock_irqsave(&queue->state_lock, flags);
	switch (queue->state) {
	case NVMET_RDMA_Q_CONNECTING:
		while (!list_empty(&queue->rsp_wait_list)) {
			struct nvmet_rdma_rsp *rsp;

			rsp = list_first_entry(&queue->rsp_wait_list,
					       struct nvmet_rdma_rsp,
					       wait_list);
			list_del(&rsp->wait_list);
			nvmet_rdma_put_rsp(rsp);
		}
		fallthrough;
	case NVMET_RDMA_Q_LIVE:
		queue->state = NVMET_RDMA_Q_DISCONNECTING;
		disconnect = true;
		break;
	case NVMET_RDMA_Q_DISCONNECTING:
		break;
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);

	if (disconnect) {
		rdma_disconnect(queue->cm_id);
		queue_work(nvmet_wq, &queue->release_work);
	}
}

/**
 * nvmet_rdma_queue_disconnect() - disconnect a queue if still listed
 * @queue: the queue
 *
 * Removes @queue from nvmet_rdma_queue_list and disconnects it, unless
 * someone else already did.
 */
void nvmet_rdma_queue_disconnect(struct nvmet_rdma_queue *queue)
{
	bool disconnect = false;

	mutex_lock(&nvmet_rdma_queue_mutex);
	if (!list_empty(&queue->queue_list)) {
		list_del_init(&queue->queue_list);
		disconnect = true;
	}
	mutex_unlock(&nvmet_rdma_queue_mutex);

	if (disconnect)
		__nvmet_rdma_queue_disconnect(queue);
}

static void nvmet_rdma_queue_connect_fail(struct rdma_cm_id *cm_id,
					  struct nvmet_rdma_queue *queue)
{
	WARN_ON_ONCE(queue->state != NVMET_RDMA_Q_CONNECTING);

	mutex_lock(&nvmet_rdma_queue_mutex);
	if (!list_empty(&queue->queue_list))
		list_del_init(&queue->queue_list);
	mutex_unlock(&nvmet_rdma_queue_mutex);

	pr_err("failed to connect queue %d\n", queue->idx);
	queue_work(nvmet_wq, &queue->release_work);
}

/**
 * nvmet_rdma_device_removal() - Handle RDMA device removal
 * @cm_id:	rdma_cm id, used for nvmet port
 * @queue:      nvmet rdma queue (cm id qp_context)
 *
 * DEVICE_REMOVAL event notifies us that the RDMA device is about
 * to unplug. Note that this event can be generated on a normal
 * queue cm_id and/or a device bound listener cm_id (where in this
 * case queue will be null).
 *
 * We registered an ib_client to handle device removal for queues,
 * so we only need to handle the listening port cm_ids. In this case
 * we nullify the priv to prevent double cm_id destruction and destroying
 * the cm_id implicitely by returning a non-zero rc to the callout.
 * The port then tries to listen again every 5 seconds, so that it serves
 * again once a device has its address: a driver reload, a re-added soft
 * device.
 */
static int nvmet_rdma_device_removal(struct rdma_cm_id *cm_id,
				     struct nvmet_rdma_queue *queue)
{
	struct nvmet_rdma_port *port;

	if (queue) {
		/*
		 * This is a queue cm_id. we have registered
		 * an ib_client to handle queues removal
		 * so don't interfear and just return.
		 */
		return 0;
	}

	port = cm_id->context;

	/*
	 * A listener: take it from the port, or find that remove_port or a
	 * repair took it (they destroy it, waiting for this handler). Taken
	 * here, the RDMA CM destroys it when we return 1, and remove_port
	 * may free the port as soon as the lock is let go: nothing of the
	 * port is touched after that.
	 */
	spin_lock(&port->lock);
	if (port->cm_id != cm_id) {
		spin_unlock(&port->lock);
		return 0;
	}
	port->cm_id = NULL;
	pr_info("port %d (%pISpcs): RDMA device %s removed, listening again once a device has the address\n",
		le16_to_cpu(port->nport->disc_addr.portid),
		(struct sockaddr *)&port->addr, cm_id->device->name);
	if (!port->removing)
		queue_delayed_work(nvmet_wq, &port->repair_work, HZ);
	spin_unlock(&port->lock);
	return 1;
}

/**
 * nvmet_rdma_cm_handler() - RDMA CM event handler of listeners and queues
 * @cm_id: the listener's or the queue's cm_id
 * @event: the event
 *
 * Return: 0, or non-zero to have the RDMA CM destroy @cm_id.
 */
int nvmet_rdma_cm_handler(struct rdma_cm_id *cm_id,
			  struct rdma_cm_event *event)
{
	struct nvmet_rdma_queue *queue = NULL;
	int ret = 0;

	if (cm_id->qp)
		queue = cm_id->qp->qp_context;

	pr_debug("%s (%d): status %d id %p\n",
		 rdma_event_msg(event->event), event->event,
		 event->status, cm_id);

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		ret = nvmet_rdma_queue_connect(cm_id, event);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		nvmet_rdma_queue_established(queue);
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (!queue) {
			struct nvmet_rdma_port *port = cm_id->context;

			/* remove_port waits for us: it destroys this listener */
			spin_lock(&port->lock);
			if (!port->removing)
				queue_delayed_work(nvmet_wq, &port->repair_work,
						   0);
			spin_unlock(&port->lock);
			break;
		}
		fallthrough;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		nvmet_rdma_queue_disconnect(queue);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		ret = nvmet_rdma_device_removal(cm_id, queue);
		break;
	case RDMA_CM_EVENT_REJECTED:
		pr_debug("Connection rejected: %s\n",
			 rdma_reject_msg(cm_id, event->status));
		fallthrough;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		nvmet_rdma_queue_connect_fail(cm_id, queue);
		break;
	default:
		pr_err("received unrecognized RDMA CM event %d\n",
		       event->event);
		break;
	}

	return ret;
}

/**
 * nvmet_rdma_install_queue() - nvmet_fabrics_ops.install_queue: check a
 *	Connect against the connection it arrived on
 * @nvme_sq: the queue's nvmet SQ, set up for the Connect's qid
 *
 * The RDMA CM private data named the queue this connection is for, and the
 * connection was sized for that queue (an admin queue's: at most
 * NVME_AQ_DEPTH entries and no in-capsule data). A Connect for another
 * queue is refused: it would make, say, an I/O queue of a connection set
 * up as an admin queue. A Connect sqsize other than the CM's hsqsize is
 * taken, as stock, so that hosts that connect to stock connect here: the
 * receive queue bounds what the host can have outstanding, nvmet's SQ size
 * only where SQ head wraps.
 *
 * Return: 0, or NVME_SC_CONNECT_INVALID_PARAM | NVME_STATUS_DNR.
 */
u16 nvmet_rdma_install_queue(struct nvmet_sq *nvme_sq)
{
	struct nvmet_rdma_queue *queue =
		container_of(nvme_sq, struct nvmet_rdma_queue, nvme_sq);

	if (nvme_sq->qid == queue->host_qid)
		return 0;
	pr_warn_ratelimited("queue %d: Connect for qid %u on a connection for qid %d: refused\n",
			    queue->idx, nvme_sq->qid, queue->host_qid);
	return NVME_SC_CONNECT_INVALID_PARAM | NVME_STATUS_DNR;
}

/**
 * nvmet_rdma_delete_ctrl() - nvmet_fabrics_ops.delete_ctrl: disconnect all
 *	queues of a controller
 * @ctrl: the controller
 */
void nvmet_rdma_delete_ctrl(struct nvmet_ctrl *ctrl)
{
	struct nvmet_rdma_queue *queue;

restart:
	mutex_lock(&nvmet_rdma_queue_mutex);
	list_for_each_entry(queue, &nvmet_rdma_queue_list, queue_list) {
		if (queue->nvme_sq.ctrl == ctrl) {
			list_del_init(&queue->queue_list);
			mutex_unlock(&nvmet_rdma_queue_mutex);

			__nvmet_rdma_queue_disconnect(queue);
			goto restart;
		}
	}
	mutex_unlock(&nvmet_rdma_queue_mutex);
}
