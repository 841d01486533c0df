// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA host code: queue setup, start and teardown, RDMA
 * CM event handling, device references, QP/CQ creation and receive rings.
 * Stopping a queue is io.c's, whose timeout handler needs it.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#include "nvme_rdma.h"

/* every nvme_rdma_device in use, one per ib_device */
LIST_HEAD(nvme_rdma_device_list);
/* protects nvme_rdma_device_list */
DEFINE_MUTEX(nvme_rdma_device_list_mutex);

static int nvme_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event);

static bool nvme_rdma_poll_queue(struct nvme_rdma_queue *queue)
{
	return nvme_rdma_queue_idx(queue) >
		queue->ctrl->io_queues[HCTX_TYPE_DEFAULT] +
		queue->ctrl->io_queues[HCTX_TYPE_READ];
}

/*
 * A buffer the device writes (a 16-byte response) owns its cache lines: on
 * a CPU without coherent DMA, invalidating them for the device would lose
 * a neighbour's stores (DMA-API debugging reports the overlap). kmalloc
 * aligns a power-of-two size to itself.
 */
static size_t nvme_rdma_qe_alloc_size(size_t capsule_size,
				      enum dma_data_direction dir)
{
	if (dir == DMA_TO_DEVICE)
		return capsule_size;
	return roundup_pow_of_two(max3(capsule_size, (size_t)L1_CACHE_BYTES,
				       (size_t)dma_get_cache_alignment()));
}

/**
 * nvme_rdma_free_qe() - unmap and free a queue entry buffer
 * @ibdev: RDMA device the buffer was mapped for
 * @qe: queue entry allocated by nvme_rdma_alloc_qe()
 * @capsule_size: size of the buffer, as passed at allocation
 * @dir: DMA direction, as passed at allocation
 */
void nvme_rdma_free_qe(struct ib_device *ibdev, struct nvme_rdma_qe *qe,
		       size_t capsule_size, enum dma_data_direction dir)
{
	ib_dma_unmap_single(ibdev, qe->dma, capsule_size, dir);
	kfree(qe->data);
}

/**
 * nvme_rdma_alloc_qe() - allocate and DMA-map a queue entry buffer
 * @ibdev: RDMA device to map the buffer for
 * @qe: queue entry whose @data and @dma are set up
 * @capsule_size: size of the buffer to allocate
 * @dir: DMA direction of the mapping
 *
 * Return: 0 on success, -ENOMEM if allocation or mapping fails.
 */
int nvme_rdma_alloc_qe(struct ib_device *ibdev, struct nvme_rdma_qe *qe,
		       size_t capsule_size, enum dma_data_direction dir)
{
	qe->data = kzalloc(nvme_rdma_qe_alloc_size(capsule_size, dir),
			   GFP_KERNEL);
	if (!qe->data)
		return -ENOMEM;

	qe->dma = ib_dma_map_single(ibdev, qe->data, capsule_size, dir);
	if (ib_dma_mapping_error(ibdev, qe->dma)) {
		kfree(qe->data);
		qe->data = NULL;
		return -ENOMEM;
	}

	return 0;
}

static void nvme_rdma_free_ring(struct ib_device *ibdev,
				struct nvme_rdma_qe *ring, size_t ib_queue_size,
				size_t capsule_size, enum dma_data_direction dir)
{
	int i;

	for (i = 0; i < ib_queue_size; i++)
		nvme_rdma_free_qe(ibdev, &ring[i], capsule_size, dir);
	kfree(ring);
}

static int nvme_rdma_alloc_sqes(struct ib_device *ibdev,
				struct nvme_rdma_queue *queue, u32 nr)
{
	queue->sqes = kcalloc(nr, sizeof(*queue->sqes), GFP_KERNEL);
	if (!queue->sqes)
		return -ENOMEM;
	queue->sqes_dma = ib_dma_map_single(ibdev, queue->sqes,
					    nr * sizeof(*queue->sqes),
					    DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, queue->sqes_dma)) {
		kfree(queue->sqes);
		queue->sqes = NULL;
		return -ENOMEM;
	}
	queue->nr_sqes = nr;
	return 0;
}

static void nvme_rdma_free_sqes(struct ib_device *ibdev,
				struct nvme_rdma_queue *queue)
{
	ib_dma_unmap_single(ibdev, queue->sqes_dma,
			    queue->nr_sqes * sizeof(*queue->sqes),
			    DMA_TO_DEVICE);
	kfree(queue->sqes);
	queue->sqes = NULL;
	queue->nr_sqes = 0;
}

static void nvme_rdma_free_mrs(struct nvme_rdma_queue *queue)
{
	u32 i;

	if (!queue->mrs)
		return;
	for (i = 0; i < queue->nr_sqes && queue->mrs[i]; i++)
		ib_dereg_mr(queue->mrs[i]);
	kfree(queue->mrs);
	queue->mrs = NULL;
}

/* an MR for every tag (nr_sqes, set by nvme_rdma_alloc_sqes()) */
static int nvme_rdma_alloc_mrs(struct nvme_rdma_queue *queue, u32 pages)
{
	u32 i;

	queue->mrs = kcalloc(queue->nr_sqes, sizeof(*queue->mrs), GFP_KERNEL);
	if (!queue->mrs)
		return -ENOMEM;
	for (i = 0; i < queue->nr_sqes; i++) {
		struct ib_mr *mr = ib_alloc_mr(queue->device->pd,
					       IB_MR_TYPE_MEM_REG, pages);

		if (IS_ERR(mr)) {
			nvme_rdma_free_mrs(queue);
			return PTR_ERR(mr);
		}
		queue->mrs[i] = mr;
	}
	return 0;
}

static struct nvme_rdma_qe *nvme_rdma_alloc_ring(struct ib_device *ibdev,
						 size_t ib_queue_size,
						 size_t capsule_size,
						 enum dma_data_direction dir)
{
	struct nvme_rdma_qe *ring;
	int i;

	ring = kcalloc(ib_queue_size, sizeof(struct nvme_rdma_qe), GFP_KERNEL);
	if (!ring)
		return NULL;

	/*
	 * Bind the CQEs (post recv buffers) DMA mapping to the RDMA queue
	 * lifetime. It's safe, since any change in the underlying RDMA device
	 * will issue error recovery and queue re-creation.
	 */
	for (i = 0; i < ib_queue_size; i++) {
		if (nvme_rdma_alloc_qe(ibdev, &ring[i], capsule_size, dir))
			goto out_free_ring;
	}

	return ring;

out_free_ring:
	nvme_rdma_free_ring(ibdev, ring, i, capsule_size, dir);
	return NULL;
}

/*
 * A QP that a local error of the device moved to the error state (no CQE
 * of its own says so; its WRs are only flushed) is a failed queue: the
 * controller recovers now rather than when a flush or a timeout tells it.
 * The event may come in atomic context (mlx5: its event queue's
 * interrupt); nvme_rdma_error_recovery() only changes state and queues.
 */
static void nvme_rdma_qp_event(struct ib_event *event, void *context)
{
	struct nvme_rdma_queue *queue = context;

	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		if (!test_bit(NVME_RDMA_Q_LIVE, &queue->flags))
			break;
		dev_warn(queue->ctrl->ctrl.device,
			 "queue %d: %s (%d): the queue pair is in error\n",
			 nvme_rdma_queue_idx(queue),
			 ib_event_msg(event->event), event->event);
		nvme_rdma_error_recovery(queue->ctrl,
					 NVME_RDMA_RECOVERY_QP_ERROR);
		break;
	default:
		pr_debug("QP event %s (%d)\n",
			 ib_event_msg(event->event), event->event);
		break;
	}
}

/*
 * Wait for the CM handler's next answer, @what the step it ends. The CM
 * ends every step by itself (errors at NVME_RDMA_CM_TIMEOUT_MS, UNREACHABLE
 * after the connect request's retries); the bound, above those, ends a
 * wait the CM keeps far longer -- a target that asked for more time (an
 * MRA) and then says nothing: 17 minutes -- or for good: a connect request
 * whose send the device flushed leaves the CM no timer. It holds the
 * reconnect work, and a disconnect behind it. The caller then destroys the
 * CM ID, after which no handler runs.
 */
static int nvme_rdma_wait_for_cm(struct nvme_rdma_queue *queue,
				 const char *what)
{
	unsigned int wait_s = READ_ONCE(nvme_rdma_cm_wait_s);
	unsigned long bound = wait_s ? (unsigned long)wait_s * HZ :
			      MAX_SCHEDULE_TIMEOUT;
	long ret;

	ret = wait_for_completion_interruptible_timeout(&queue->cm_done, bound);
	if (ret < 0)
		return ret;
	if (!ret) {
		dev_warn(queue->ctrl->ctrl.device,
			 "queue %d: no answer from the RDMA CM (%s) in %u s: giving the connection attempt up\n",
			 nvme_rdma_queue_idx(queue), what, wait_s);
		return -ETIMEDOUT;
	}
	WARN_ON_ONCE(queue->cm_error > 0);
	return queue->cm_error;
}

static int nvme_rdma_create_qp(struct nvme_rdma_queue *queue, const int factor)
{
	struct nvme_rdma_device *dev = queue->device;
	struct ib_qp_init_attr init_attr;
	int ret;

	memset(&init_attr, 0, sizeof(init_attr));
	init_attr.event_handler = nvme_rdma_qp_event;
	/* +1 for drain */
	init_attr.cap.max_send_wr = factor * queue->queue_size + 1;
	/* +1 for drain */
	init_attr.cap.max_recv_wr = queue->queue_size + 1;
	init_attr.cap.max_recv_sge = 1;
	init_attr.cap.max_send_sge = 1 + dev->num_in_capsule_segments;
	init_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	init_attr.qp_type = IB_QPT_RC;
	init_attr.send_cq = queue->ib_cq;
	init_attr.recv_cq = queue->ib_cq;
	if (queue->pi_support)
		init_attr.create_flags |= IB_QP_CREATE_INTEGRITY_EN;
	init_attr.qp_context = queue;
	/* the 64-byte command as inline data (nvme_rdma_prep_cmd_inline()) */
	init_attr.cap.max_inline_data = sizeof(struct nvme_command);

	ret = rdma_create_qp(queue->cm_id, dev->pd, &init_attr);
	if (ret) {
		/* no inline data: every command goes from memory, signalled */
		init_attr.cap.max_inline_data = 0;
		ret = rdma_create_qp(queue->cm_id, dev->pd, &init_attr);
	}
	queue->inline_cmd = !ret && init_attr.cap.max_inline_data >=
				    sizeof(struct nvme_command);
	/*
	 * The send queue is sized for three WRs per command (MR, SEND, INV)
	 * and counted as an RNIC retires it (nvme_rdma_sq_admit()), in the
	 * size the device reports (mlx5 rounds it up): a command that does
	 * not fit waits in blk-mq, whatever the unsignalled WRs before it
	 * still hold. At most queue_size / 4 WRs follow a signalled one (one
	 * command in queue_size / 8 with a REG_MR and its SEND). The drain's WR
	 * is not counted; the admin queue keeps two for AERs, whose SENDs
	 * may outlive the AER (nvme_rdma_submit_async_event()), besides its
	 * tags' (one fewer than queue_size: nvme-core keeps it for the AER).
	 */
	spin_lock_init(&queue->sq_lock);
	nvmeof_sq_init(&queue->sq, init_attr.cap.max_send_wr - 1,
		       nvme_rdma_queue_idx(queue) ? 0 : NVMEOF_SQ_KEPT_MAX);
	if (!nvme_rdma_queue_idx(queue))
		queue->ctrl->async_waiting = false;
	nvmeof_sq_limit_unsignalled(&queue->sq, max(queue->queue_size / 4, 1));
	queue->cmd_send_cqe.done = nvme_rdma_cmd_send_done;

	queue->qp = queue->cm_id->qp;
	return ret;
}

static void nvme_rdma_free_dev(struct kref *ref)
{
	struct nvme_rdma_device *ndev =
		container_of(ref, struct nvme_rdma_device, ref);

	mutex_lock(&nvme_rdma_device_list_mutex);
	list_del(&ndev->entry);
	mutex_unlock(&nvme_rdma_device_list_mutex);

	ib_dealloc_pd(ndev->pd);
	kfree(ndev);
}

static void nvme_rdma_dev_put(struct nvme_rdma_device *dev)
{
	kref_put(&dev->ref, nvme_rdma_free_dev);
}

static int nvme_rdma_dev_get(struct nvme_rdma_device *dev)
{
	return kref_get_unless_zero(&dev->ref);
}

static struct nvme_rdma_device *
nvme_rdma_find_get_device(struct rdma_cm_id *cm_id)
{
	struct nvme_rdma_device *ndev;

	mutex_lock(&nvme_rdma_device_list_mutex);
	list_for_each_entry(ndev, &nvme_rdma_device_list, entry) {
		if (ndev->dev->node_guid == cm_id->device->node_guid &&
		    nvme_rdma_dev_get(ndev))
			goto out_unlock;
	}

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		goto out_err;

	ndev->dev = cm_id->device;
	kref_init(&ndev->ref);

	ndev->pd = ib_alloc_pd(ndev->dev,
			       nvme_rdma_register_always ? 0 : IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(ndev->pd))
		goto out_free_dev;

	if (!(ndev->dev->attrs.device_cap_flags &
	      IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		dev_err(&ndev->dev->dev,
			"Memory registrations not supported.\n");
		goto out_free_pd;
	}

	ndev->num_in_capsule_segments = min(NVME_RDMA_MAX_IN_CAPSULE_SEGMENTS,
					    ndev->dev->attrs.max_send_sge - 1);
	list_add(&ndev->entry, &nvme_rdma_device_list);
out_unlock:
	mutex_unlock(&nvme_rdma_device_list_mutex);
	return ndev;

out_free_pd:
	ib_dealloc_pd(ndev->pd);
out_free_dev:
	kfree(ndev);
out_err:
	mutex_unlock(&nvme_rdma_device_list_mutex);
	return NULL;
}

static void nvme_rdma_free_cq(struct nvme_rdma_queue *queue)
{
	if (nvme_rdma_poll_queue(queue))
		ib_free_cq(queue->ib_cq);
	else
		ib_cq_pool_put(queue->ib_cq, queue->cq_size);
}

static void nvme_rdma_destroy_queue_ib(struct nvme_rdma_queue *queue)
{
	struct nvme_rdma_device *dev;
	struct ib_device *ibdev;

	if (!test_and_clear_bit(NVME_RDMA_Q_TR_READY, &queue->flags))
		return;

	WRITE_ONCE(queue->buffer_bytes, 0);
	WRITE_ONCE(queue->nr_mrs, 0);
	WRITE_ONCE(queue->mr_pages, 0);
	dev = queue->device;
	ibdev = dev->dev;

	if (queue->pi_support)
		ib_mr_pool_destroy(queue->qp, &queue->qp->sig_mrs);
	nvme_rdma_free_mrs(queue);

	/*
	 * The cm_id object might have been destroyed during RDMA connection
	 * establishment error flow to avoid getting other cma events, thus
	 * the destruction of the QP shouldn't use rdma_cm API.
	 */
	ib_destroy_qp(queue->qp);
	nvme_rdma_free_cq(queue);

	nvme_rdma_free_ring(ibdev, queue->rsp_ring, queue->queue_size,
			    sizeof(struct nvme_completion), DMA_FROM_DEVICE);
	nvme_rdma_free_sqes(ibdev, queue);

	nvme_rdma_dev_put(dev);
}

/**
 * nvme_rdma_get_max_fr_pages() - pages one fast registration MR may map
 * @ibdev: RDMA device
 * @pi_support: whether the MR is an integrity (T10-PI) MR
 *
 * Return: the device's fast registration page list length minus one,
 * capped at NVME_RDMA_MAX_SEGMENTS.
 */
int nvme_rdma_get_max_fr_pages(struct ib_device *ibdev, bool pi_support)
{
	u32 max_page_list_len;

	if (pi_support)
		max_page_list_len = ibdev->attrs.max_pi_fast_reg_page_list_len;
	else
		max_page_list_len = ibdev->attrs.max_fast_reg_page_list_len;

	return min_t(u32, NVME_RDMA_MAX_SEGMENTS, max_page_list_len - 1);
}

static int nvme_rdma_create_cq(struct ib_device *ibdev,
			       struct nvme_rdma_queue *queue)
{
	int ret, comp_vector, idx = nvme_rdma_queue_idx(queue);
	enum ib_poll_context poll_ctx;

	/*
	 * Spread I/O queues completion vectors according their queue index.
	 * Admin queues can always go on completion vector 0.
	 */
	comp_vector = (idx == 0 ? idx : idx - 1) % ibdev->num_comp_vectors;

	/* Polling queues need direct cq polling context */
	if (nvme_rdma_poll_queue(queue)) {
		poll_ctx = IB_POLL_DIRECT;
		queue->ib_cq = ib_alloc_cq(ibdev, queue, queue->cq_size,
					   comp_vector, poll_ctx);
	} else {
		poll_ctx = IB_POLL_SOFTIRQ;
		queue->ib_cq = ib_cq_pool_get(ibdev, queue->cq_size,
					      comp_vector, poll_ctx);
	}

	if (IS_ERR(queue->ib_cq)) {
		ret = PTR_ERR(queue->ib_cq);
		return ret;
	}

	return 0;
}

static int nvme_rdma_create_queue_ib(struct nvme_rdma_queue *queue)
{
	struct blk_mq_tag_set *set;
	struct ib_device *ibdev;
	const int send_wr_factor = 3;			/* MR, SEND, INV */
	const int cq_factor = send_wr_factor + 1;	/* + RECV */
	int ret;

	queue->device = nvme_rdma_find_get_device(queue->cm_id);
	if (!queue->device) {
		dev_err(queue->cm_id->device->dev.parent,
			"no client data found!\n");
		return -ECONNREFUSED;
	}
	ibdev = queue->device->dev;

	/* +1 for ib_stop_cq */
	queue->cq_size = cq_factor * queue->queue_size + 1;

	ret = nvme_rdma_create_cq(ibdev, queue);
	if (ret)
		goto out_put_dev;

	ret = nvme_rdma_create_qp(queue, send_wr_factor);
	if (ret)
		goto out_destroy_ib_cq;

	queue->rsp_ring = nvme_rdma_alloc_ring(ibdev, queue->queue_size,
					       sizeof(struct nvme_completion),
					       DMA_FROM_DEVICE);
	if (!queue->rsp_ring) {
		ret = -ENOMEM;
		goto out_destroy_qp;
	}

	/*
	 * A command buffer for every tag. On a reconnect the tag set exists
	 * already and may be deeper than this queue (a smaller sqsize is
	 * only clamped, the set is not shrunk).
	 */
	set = nvme_rdma_queue_idx(queue) ? &queue->ctrl->tag_set :
					   &queue->ctrl->admin_tag_set;
	ret = nvme_rdma_alloc_sqes(ibdev, queue,
				   max_t(u32, queue->queue_size,
					 set->queue_depth));
	if (ret)
		goto out_destroy_rsp_ring;

	/*
	 * What the statistics show as the queue's memory held (the MR array
	 * comes with its MRs, nvme_rdma_alloc_queue_mrs())
	 */
	WRITE_ONCE(queue->buffer_bytes,
		   queue->queue_size *
		   (sizeof(*queue->rsp_ring) +
		    nvme_rdma_qe_alloc_size(sizeof(struct nvme_completion),
					    DMA_FROM_DEVICE)) +
		   queue->nr_sqes * (sizeof(*queue->sqes) +
				     sizeof(*queue->mrs)));
	set_bit(NVME_RDMA_Q_TR_READY, &queue->flags);

	return 0;

out_destroy_rsp_ring:
	nvme_rdma_free_ring(ibdev, queue->rsp_ring, queue->queue_size,
			    sizeof(struct nvme_completion), DMA_FROM_DEVICE);
out_destroy_qp:
	rdma_destroy_qp(queue->cm_id);
out_destroy_ib_cq:
	nvme_rdma_free_cq(queue);
out_put_dev:
	nvme_rdma_dev_put(queue->device);
	return ret;
}

/*
 * A queue's memory regions: one per tag, and the PI pool. Made on the way
 * to its Connect command (nvme_rdma_start_queue()), in the queue's own
 * work for an I/O queue, not by the CM event handler: rdma_cm runs the
 * handlers of every queue on one ordered workqueue, and on an RNIC each MR
 * is a firmware command (an mlx5 mkey), so a queue's worth of them there
 * would set the queues up one after the other again. Freed with the
 * queue's other IB resources (nvme_rdma_destroy_queue_ib()).
 */
static int nvme_rdma_alloc_queue_mrs(struct nvme_rdma_queue *queue)
{
	/*
	 * Currently we don't use SG_GAPS MR's so if the first entry is
	 * misaligned we'll end up using two entries for a single data page,
	 * so one additional entry is required.
	 */
	u32 pages = nvme_rdma_get_max_fr_pages(queue->device->dev,
					       queue->pi_support) + 1;
	int ret;

	ret = nvme_rdma_alloc_mrs(queue, pages);
	if (ret) {
		dev_err(queue->ctrl->ctrl.device,
			"failed to allocate %u MRs for QID %d\n",
			queue->nr_sqes, nvme_rdma_queue_idx(queue));
		return ret;
	}

	if (queue->pi_support) {
		ret = ib_mr_pool_init(queue->qp, &queue->qp->sig_mrs,
				      queue->queue_size, IB_MR_TYPE_INTEGRITY,
				      pages, pages);
		if (ret) {
			dev_err(queue->ctrl->ctrl.device,
				"failed to initialize PI MR pool sized %d for QID %d\n",
				queue->queue_size, nvme_rdma_queue_idx(queue));
			nvme_rdma_free_mrs(queue);
			return ret;
		}
	}
	WRITE_ONCE(queue->nr_mrs, queue->nr_sqes +
		   (queue->pi_support ? queue->queue_size : 0));
	WRITE_ONCE(queue->mr_pages, pages);
	return 0;
}

/* sends a queue's Connect command (nvme_rdma_start_io_queues()) */
static void nvme_rdma_start_work(struct work_struct *work)
{
	struct nvme_rdma_queue *queue =
		container_of(work, struct nvme_rdma_queue, start_work);

	queue->start_error = nvme_rdma_start_queue(queue->ctrl,
						   nvme_rdma_queue_idx(queue));
}

/*
 * Undo a queue whose CM ID exists, however far its CM handler got: the ID
 * first, since rdma_destroy_id() waits for a handler still running and
 * none runs after it, then the IB resources that handler may have made.
 */
static void nvme_rdma_destroy_queue(struct nvme_rdma_queue *queue)
{
	rdma_destroy_id(queue->cm_id);
	nvme_rdma_destroy_queue_ib(queue);
	mutex_destroy(&queue->queue_lock);
}

/*
 * The address resolved: the queue's IB resources, then the route. Called
 * by the queue's own connecting thread, not the CM handler: rdma_cm
 * delivers every queue's ADDR_RESOLVED from one ordered workqueue, where
 * each queue's CQ and QP (firmware commands on an RNIC) would be made one
 * after another, for all controllers of the host.
 */
static int nvme_rdma_addr_resolved(struct nvme_rdma_queue *queue)
{
	struct nvme_ctrl *ctrl = &queue->ctrl->ctrl;
	int ret;

	ret = nvme_rdma_create_queue_ib(queue);
	if (ret)
		return ret;

	if (ctrl->opts->tos >= 0)
		rdma_set_service_type(queue->cm_id, ctrl->opts->tos);
	/* what the CM handler reports from here on: before it can run */
	queue->cm_error = -ETIMEDOUT;
	reinit_completion(&queue->cm_done);
	ret = rdma_resolve_route(queue->cm_id, NVME_RDMA_CM_TIMEOUT_MS);
	if (ret)
		dev_err(ctrl->device, "rdma_resolve_route failed (%d).\n", ret);
	return ret;
}

/*
 * Connect a begun queue: once its address has resolved, its IB resources
 * and the route, then the CM event handler connects it (ROUTE_RESOLVED,
 * ESTABLISHED) and completes cm_done again. A failed queue is undone
 * (rdma_destroy_id() waits for a handler still running), a connected one
 * marked allocated.
 */
static int nvme_rdma_alloc_queue_end(struct nvme_rdma_queue *queue)
{
	int ret = nvme_rdma_wait_for_cm(queue, "address resolution");

	if (!ret)
		ret = nvme_rdma_addr_resolved(queue);
	if (!ret)
		ret = nvme_rdma_wait_for_cm(queue, "route and accept");
	if (ret) {
		dev_info(queue->ctrl->ctrl.device,
			 "rdma connection establishment failed (%d)\n", ret);
		nvme_rdma_destroy_queue(queue);
		return ret;
	}
	set_bit(NVME_RDMA_Q_ALLOCATED, &queue->flags);
	return 0;
}

/* connects one begun I/O queue (nvme_rdma_alloc_io_queues()) */
static void nvme_rdma_alloc_work(struct work_struct *work)
{
	struct nvme_rdma_queue *queue =
		container_of(work, struct nvme_rdma_queue, alloc_work);

	queue->alloc_error = nvme_rdma_alloc_queue_end(queue);
}

/*
 * Create a queue's CM ID and start resolving its address; the CM event
 * handler completes cm_done when it has, or failed to, and
 * nvme_rdma_alloc_queue_end() goes on from there.
 */
static int nvme_rdma_alloc_queue_begin(struct nvme_rdma_ctrl *ctrl,
				       int idx, size_t queue_size)
{
	struct nvme_rdma_queue *queue;
	struct sockaddr *src_addr = NULL;
	int ret;

	queue = &ctrl->queues[idx];
	mutex_init(&queue->queue_lock);
	queue->ctrl = ctrl;
	if (idx && ctrl->ctrl.max_integrity_segments)
		queue->pi_support = true;
	else
		queue->pi_support = false;
	init_completion(&queue->cm_done);
	init_llist_head(&queue->pending_sends);
	INIT_WORK(&queue->start_work, nvme_rdma_start_work);
	INIT_WORK(&queue->alloc_work, nvme_rdma_alloc_work);

	/*
	 * In-capsule data only on I/O queues, as stock, so that any target
	 * takes the admin commands: IOCCSZ sizes only I/O queue capsules, and
	 * nvmet's admin receive buffers hold the command alone.
	 */
	queue->in_capsule_size = idx ? ctrl->in_capsule_size : 0;

	queue->queue_size = queue_size;

	queue->cm_id = rdma_create_id(&init_net, nvme_rdma_cm_handler, queue,
				      RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(queue->cm_id)) {
		dev_info(ctrl->ctrl.device,
			 "failed to create CM ID: %ld\n", PTR_ERR(queue->cm_id));
		ret = PTR_ERR(queue->cm_id);
		goto out_destroy_mutex;
	}

	if (ctrl->ctrl.opts->mask & NVMF_OPT_HOST_TRADDR)
		src_addr = (struct sockaddr *)&ctrl->src_addr;

	queue->cm_error = -ETIMEDOUT;
	ret = rdma_resolve_addr(queue->cm_id, src_addr,
				(struct sockaddr *)&ctrl->addr,
				NVME_RDMA_CM_TIMEOUT_MS);
	if (ret) {
		dev_info(ctrl->ctrl.device,
			 "rdma_resolve_addr failed (%d).\n", ret);
		nvme_rdma_destroy_queue(queue);
		return ret;
	}
	return 0;

out_destroy_mutex:
	mutex_destroy(&queue->queue_lock);
	return ret;
}

/**
 * nvme_rdma_alloc_queue() - create a queue's CM ID and connect it
 * @ctrl: controller owning the queue
 * @idx: queue index, 0 for the admin queue
 * @queue_size: number of entries in the queue
 *
 * Creates the RDMA CM ID, its IB resources once the address has resolved,
 * and waits until the CM event handler has resolved the route and
 * established the connection (or failed to).
 *
 * Return: 0 on success (the queue is marked allocated), else a negative
 * errno.
 */
int nvme_rdma_alloc_queue(struct nvme_rdma_ctrl *ctrl,
			  int idx, size_t queue_size)
{
	int ret = nvme_rdma_alloc_queue_begin(ctrl, idx, queue_size);

	return ret ?: nvme_rdma_alloc_queue_end(&ctrl->queues[idx]);
}

/**
 * nvme_rdma_free_queue() - destroy a queue's CM ID and IB resources
 * @queue: queue to free; nothing is done unless it is allocated
 */
void nvme_rdma_free_queue(struct nvme_rdma_queue *queue)
{
	if (!test_and_clear_bit(NVME_RDMA_Q_ALLOCATED, &queue->flags))
		return;

	/* a dispatch always ends with a post: quiesced, nothing is pending */
	WARN_ON_ONCE(!llist_empty(&queue->pending_sends));
	nvme_rdma_destroy_queue(queue);
}

/**
 * nvme_rdma_free_io_queues() - free all I/O queues of a controller
 * @ctrl: controller
 */
void nvme_rdma_free_io_queues(struct nvme_rdma_ctrl *ctrl)
{
	int i;

	for (i = 1; i < ctrl->ctrl.queue_count; i++)
		nvme_rdma_free_queue(&ctrl->queues[i]);
}

/**
 * nvme_rdma_stop_io_queues() - stop all I/O queues of a controller
 * @ctrl: controller
 */
void nvme_rdma_stop_io_queues(struct nvme_rdma_ctrl *ctrl)
{
	int i;

	for (i = 1; i < ctrl->ctrl.queue_count; i++)
		nvme_rdma_stop_queue(&ctrl->queues[i]);
}

/**
 * nvme_rdma_start_queue() - send the fabrics connect command on a queue
 * @ctrl: controller owning the queue
 * @idx: queue index, 0 for the admin queue
 *
 * Makes the queue's memory regions first (nvme_rdma_alloc_queue_mrs()).
 *
 * On success the queue is marked live; on failure an allocated queue is
 * disconnected and drained.
 *
 * Return: 0 on success, else the connect command's error.
 */
int nvme_rdma_start_queue(struct nvme_rdma_ctrl *ctrl, int idx)
{
	struct nvme_rdma_queue *queue = &ctrl->queues[idx];
	int ret;

	ret = nvme_rdma_alloc_queue_mrs(queue);
	if (!ret)
		ret = idx ? nvmf_connect_io_queue(&ctrl->ctrl, idx) :
			    nvmf_connect_admin_queue(&ctrl->ctrl);

	if (!ret) {
		set_bit(NVME_RDMA_Q_LIVE, &queue->flags);
	} else {
		if (test_bit(NVME_RDMA_Q_ALLOCATED, &queue->flags))
			__nvme_rdma_stop_queue(queue);
		dev_info(ctrl->ctrl.device,
			 "failed to connect queue: %d ret=%d\n", idx, ret);
	}
	return ret;
}

/**
 * nvme_rdma_start_io_queues() - connect a range of I/O queues
 * @ctrl: controller
 * @first: first queue index to start
 * @last: one past the last queue index to start
 *
 * On failure the queues of the range already started are stopped again.
 *
 * Return: 0 on success, else the first error.
 */
int nvme_rdma_start_io_queues(struct nvme_rdma_ctrl *ctrl,
			      int first, int last)
{
	int i, ret = 0;

	/*
	 * The queues' MRs are made and their Connect commands sent at once,
	 * each queue's from a work item of its own (nvmf_connect_io_queue()
	 * waits for its answer), and all are waited for before any failure
	 * is acted on.
	 */
	for (i = first; i < last; i++)
		queue_work(nvme_rdma_start_wq, &ctrl->queues[i].start_work);
	for (i = first; i < last; i++) {
		flush_work(&ctrl->queues[i].start_work);
		if (ctrl->queues[i].start_error && !ret)
			ret = ctrl->queues[i].start_error;
	}
	if (ret)	/* a failed queue is stopped already, a started one here */
		for (i = first; i < last; i++)
			nvme_rdma_stop_queue(&ctrl->queues[i]);
	return ret;
}

/**
 * nvme_rdma_alloc_io_queues() - negotiate the I/O queue count and allocate
 * @ctrl: controller
 *
 * Sets the queue count with the controller, splits the queues into
 * default/read/poll sets and allocates every I/O queue.
 *
 * Return: 0 on success, else a negative errno or NVMe status.
 */
int nvme_rdma_alloc_io_queues(struct nvme_rdma_ctrl *ctrl)
{
	struct nvmf_ctrl_options *opts = ctrl->ctrl.opts;
	struct ib_device *ibdev = ctrl->device->dev;
	unsigned int nr_io_queues, nr_default_queues;
	unsigned int nr_read_queues, nr_poll_queues;
	int i, begun, ret, err;

	nr_read_queues = min_t(unsigned int, ibdev->num_comp_vectors,
			       min(opts->nr_io_queues, num_online_cpus()));
	nr_default_queues =  min_t(unsigned int, ibdev->num_comp_vectors,
				   min(opts->nr_write_queues, num_online_cpus()));
	nr_poll_queues = min(opts->nr_poll_queues, num_online_cpus());
	nr_io_queues = nr_read_queues + nr_default_queues + nr_poll_queues;

	ret = nvme_set_queue_count(&ctrl->ctrl, &nr_io_queues);
	if (ret)
		return ret;

	if (nr_io_queues == 0) {
		dev_err(ctrl->ctrl.device,
			"unable to set any I/O queues\n");
		return -ENOMEM;
	}

	ctrl->ctrl.queue_count = nr_io_queues + 1;
	dev_info(ctrl->ctrl.device,
		 "creating %d I/O queues.\n", nr_io_queues);

	if (opts->nr_write_queues && nr_read_queues < nr_io_queues) {
		/*
		 * separate read/write queues
		 * hand out dedicated default queues only after we have
		 * sufficient read queues.
		 */
		ctrl->io_queues[HCTX_TYPE_READ] = nr_read_queues;
		nr_io_queues -= ctrl->io_queues[HCTX_TYPE_READ];
		ctrl->io_queues[HCTX_TYPE_DEFAULT] =
			min(nr_default_queues, nr_io_queues);
		nr_io_queues -= ctrl->io_queues[HCTX_TYPE_DEFAULT];
	} else {
		/*
		 * shared read/write queues
		 * either no write queues were requested, or we don't have
		 * sufficient queue count to have dedicated default queues.
		 */
		ctrl->io_queues[HCTX_TYPE_DEFAULT] =
			min(nr_read_queues, nr_io_queues);
		nr_io_queues -= ctrl->io_queues[HCTX_TYPE_DEFAULT];
	}

	if (opts->nr_poll_queues && nr_io_queues) {
		/* map dedicated poll queues only if we have queues left */
		ctrl->io_queues[HCTX_TYPE_POLL] =
			min(nr_poll_queues, nr_io_queues);
	}

	/*
	 * All I/O queues' connections are set up at once (stock sets up one
	 * queue after the other): each queue's address resolution is begun
	 * here, and the rest -- its CQ and QP, the route, the connection --
	 * goes on in a work item of its own. Every begun queue is waited for,
	 * also after a failure, before any is freed; one failure fails them
	 * all.
	 */
	for (i = 1; i < ctrl->ctrl.queue_count; i++) {
		ret = nvme_rdma_alloc_queue_begin(ctrl, i,
						  ctrl->ctrl.sqsize + 1);
		if (ret)
			break;
		queue_work(nvme_rdma_start_wq, &ctrl->queues[i].alloc_work);
	}
	begun = i;
	for (i = 1; i < begun; i++) {
		flush_work(&ctrl->queues[i].alloc_work);
		err = ctrl->queues[i].alloc_error;
		if (err && !ret)
			ret = err;
	}
	if (ret)
		for (i = 1; i < begun; i++)
			nvme_rdma_free_queue(&ctrl->queues[i]);
	return ret;
}

/*
 * The controller accepted: check its private data before the queue takes
 * any response (refused: an accept that cannot be read or a controller
 * without a receive queue; said: one shallower than our submission queue).
 */
static int nvme_rdma_conn_established(struct nvme_rdma_queue *queue,
				      struct rdma_cm_event *ev)
{
	struct nvme_ctrl *ctrl = &queue->ctrl->ctrl;
	const struct nvme_rdma_cm_rep *rep = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;
	int qid = nvme_rdma_queue_idx(queue);
	u32 sq_size = qid ? ctrl->sqsize + 1 : NVME_AQ_DEPTH;
	int ret, i;

	ret = nvmeof_host_check_cm_rep(rep, len);
	switch (ret) {
	case 0:
		break;
	case -EMSGSIZE:
		dev_err(ctrl->device,
			"QID %d: RDMA CM accept carries %u bytes of private data, fewer than %zu: refusing the connection\n",
			qid, rep ? len : 0, sizeof(*rep));
		return -ECONNREFUSED;
	case -EPROTONOSUPPORT:
		dev_err(ctrl->device,
			"QID %d: RDMA CM accept has record format %u, not 0: refusing the connection\n",
			qid, le16_to_cpu(rep->recfmt));
		return -ECONNREFUSED;
	default:
		dev_err(ctrl->device,
			"QID %d: controller receive queue size (CRQSIZE) 0 takes no command: refusing the connection\n",
			qid);
		return -ECONNREFUSED;
	}
	if (le16_to_cpu(rep->crqsize) < sq_size)
		dev_warn(ctrl->device,
			 "QID %d: controller receive queue size (CRQSIZE) %u is below the host's submission queue size %u: commands beyond it wait on receiver-not-ready retries\n",
			 qid, le16_to_cpu(rep->crqsize), sq_size);

	for (i = 0; i < queue->queue_size; i++) {
		ret = nvme_rdma_post_recv(queue, &queue->rsp_ring[i]);
		if (ret)
			return ret;
	}

	return 0;
}

static int nvme_rdma_conn_rejected(struct nvme_rdma_queue *queue,
				   struct rdma_cm_event *ev)
{
	struct rdma_cm_id *cm_id = queue->cm_id;
	int status = ev->status;
	const char *rej_msg;
	const struct nvme_rdma_cm_rej *rej_data;
	u8 rej_data_len;

	rej_msg = rdma_reject_msg(cm_id, status);
	rej_data = rdma_consumer_reject_data(cm_id, ev, &rej_data_len);

	if (rej_data && rej_data_len >= sizeof(u16)) {
		u16 sts = le16_to_cpu(rej_data->sts);

		dev_err(queue->ctrl->ctrl.device,
			"Connect rejected: status %d (%s) nvme status %d (%s).\n",
			status, rej_msg, sts, nvme_rdma_cm_msg(sts));
	} else {
		dev_err(queue->ctrl->ctrl.device,
			"Connect rejected: status %d (%s).\n", status, rej_msg);
	}

	return -ECONNRESET;
}

static int nvme_rdma_route_resolved(struct nvme_rdma_queue *queue)
{
	struct nvme_rdma_ctrl *ctrl = queue->ctrl;
	struct rdma_conn_param param = { };
	struct nvme_rdma_cm_req priv = { };
	int ret;

	param.qp_num = queue->qp->qp_num;
	param.flow_control = 1;

	param.responder_resources = queue->device->dev->attrs.max_qp_rd_atom;
	/* maximum retry count */
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	param.private_data = &priv;
	param.private_data_len = sizeof(priv);

	priv.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	priv.qid = cpu_to_le16(nvme_rdma_queue_idx(queue));
	/*
	 * set the admin queue depth to the minimum size
	 * specified by the Fabrics standard.
	 */
	if (priv.qid == 0) {
		priv.hrqsize = cpu_to_le16(NVME_AQ_DEPTH);
		priv.hsqsize = cpu_to_le16(NVME_AQ_DEPTH - 1);
	} else {
		/*
		 * current interpretation of the fabrics spec
		 * is at minimum you make hrqsize sqsize+1, or a
		 * 1's based representation of sqsize.
		 */
		priv.hrqsize = cpu_to_le16(queue->queue_size);
		priv.hsqsize = cpu_to_le16(queue->ctrl->ctrl.sqsize);
		nvmeof_cm_req_set_cntlid(&priv, queue->ctrl->ctrl.cntlid);
	}

	ret = rdma_connect_locked(queue->cm_id, &param);
	if (ret) {
		dev_err(ctrl->ctrl.device,
			"rdma_connect_locked failed (%d).\n", ret);
		return ret;
	}

	return 0;
}

static int nvme_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *ev)
{
	struct nvme_rdma_queue *queue = cm_id->context;
	int cm_error = 0;

	dev_dbg(queue->ctrl->ctrl.device, "%s (%d): status %d id %p\n",
		rdma_event_msg(ev->event), ev->event,
		ev->status, cm_id);

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		/* the waiting thread goes on: nvme_rdma_addr_resolved() */
		queue->cm_error = 0;
		complete(&queue->cm_done);
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		cm_error = nvme_rdma_route_resolved(queue);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		queue->cm_error = nvme_rdma_conn_established(queue, ev);
		/* complete cm_done regardless of success/failure */
		complete(&queue->cm_done);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		cm_error = nvme_rdma_conn_rejected(queue, ev);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
		dev_dbg(queue->ctrl->ctrl.device,
			"CM error event %d\n", ev->event);
		cm_error = -ECONNRESET;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		dev_dbg(queue->ctrl->ctrl.device,
			"disconnect received - connection closed\n");
		nvme_rdma_error_recovery(queue->ctrl,
					 NVME_RDMA_RECOVERY_DISCONNECT);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* device removal is handled via the ib_client API */
		break;
	default:
		dev_err(queue->ctrl->ctrl.device,
			"Unexpected RDMA CM event (%d)\n", ev->event);
		nvme_rdma_error_recovery(queue->ctrl,
					 NVME_RDMA_RECOVERY_DISCONNECT);
		break;
	}

	if (cm_error) {
		queue->cm_error = cm_error;
		complete(&queue->cm_done);
	}

	return 0;
}
