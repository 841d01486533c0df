// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA host code: controller setup, reset, reconnect,
 * error recovery and deletion, and the blk-mq tag sets.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#include "nvme_rdma.h"

/* every controller that finished creation */
LIST_HEAD(nvme_rdma_ctrl_list);
/* protects nvme_rdma_ctrl_list */
DEFINE_MUTEX(nvme_rdma_ctrl_mutex);

static int nvme_rdma_alloc_tag_set(struct nvme_ctrl *ctrl)
{
	unsigned int cmd_size = sizeof(struct nvme_rdma_request) +
				NVME_RDMA_DATA_SGL_SIZE;

	if (ctrl->max_integrity_segments)
		cmd_size += sizeof(struct nvme_rdma_sgl) +
			    NVME_RDMA_METADATA_SGL_SIZE;

	return nvme_alloc_io_tag_set(ctrl, &to_rdma_ctrl(ctrl)->tag_set,
				     &nvme_rdma_mq_ops,
				     ctrl->opts->nr_poll_queues ? HCTX_MAX_TYPES : 2,
				     cmd_size);
}

static void nvme_rdma_destroy_admin_queue(struct nvme_rdma_ctrl *ctrl)
{
	if (ctrl->async_event_sqe.data) {
		cancel_work_sync(&ctrl->ctrl.async_event_work);
		nvme_rdma_free_qe(ctrl->device->dev, &ctrl->async_event_sqe,
				  sizeof(struct nvme_command), DMA_TO_DEVICE);
		ctrl->async_event_sqe.data = NULL;
	}
	nvme_rdma_free_queue(&ctrl->queues[0]);
}

/*
 * The longest request one DMA mapping of the device takes: where DMA goes
 * through swiotlb's bounce buffers, a segment longer than one bounce
 * (256 KiB by default; blk-mq merges physically contiguous pages up to a
 * whole request) fails to map every time it is tried.
 */
static u32 nvme_rdma_dma_max_sectors(struct ib_device *ibdev)
{
	if (ib_uses_virt_dma(ibdev))
		return U32_MAX;
	return min_t(size_t, dma_max_mapping_size(ibdev->dma_device) >>
			     SECTOR_SHIFT, U32_MAX);
}

static int nvme_rdma_configure_admin_queue(struct nvme_rdma_ctrl *ctrl,
					   bool new)
{
	bool pi_capable = false;
	int error;

	error = nvme_rdma_alloc_queue(ctrl, 0, NVME_AQ_DEPTH);
	if (error)
		return error;

	ctrl->device = ctrl->queues[0].device;
	ctrl->ctrl.numa_node = ibdev_to_node(ctrl->device->dev);

	/* T10-PI support */
	if (ctrl->device->dev->attrs.kernel_cap_flags &
	    IBK_INTEGRITY_HANDOVER)
		pi_capable = true;

	ctrl->max_fr_pages = nvme_rdma_get_max_fr_pages(ctrl->device->dev,
							pi_capable);

	/*
	 * Bind the async event SQE DMA mapping to the admin queue lifetime.
	 * It's safe, since any change in the underlying RDMA device will issue
	 * error recovery and queue re-creation.
	 */
	error = nvme_rdma_alloc_qe(ctrl->device->dev, &ctrl->async_event_sqe,
				   sizeof(struct nvme_command), DMA_TO_DEVICE);
	if (error)
		goto out_free_queue;

	if (new) {
		error = nvme_alloc_admin_tag_set(&ctrl->ctrl,
						 &ctrl->admin_tag_set,
						 &nvme_rdma_admin_mq_ops,
						 sizeof(struct nvme_rdma_request) +
						 NVME_RDMA_DATA_SGL_SIZE);
		if (error)
			goto out_free_async_qe;
	}

	error = nvme_rdma_start_queue(ctrl, 0);
	if (error)
		goto out_remove_admin_tag_set;

	error = nvme_enable_ctrl(&ctrl->ctrl);
	if (error)
		goto out_stop_queue;

	ctrl->ctrl.max_segments = ctrl->max_fr_pages;
	ctrl->ctrl.max_hw_sectors = min(ctrl->max_fr_pages << (ilog2(SZ_4K) - 9),
					nvme_rdma_dma_max_sectors(ctrl->device->dev));
	if (pi_capable)
		ctrl->ctrl.max_integrity_segments = ctrl->max_fr_pages;
	else
		ctrl->ctrl.max_integrity_segments = 0;

	nvmeof_unquiesce_admin_queue(&ctrl->ctrl);

	error = nvmeof_init_ctrl_finish(&ctrl->ctrl);
	if (error)
		goto out_quiesce_queue;

	return 0;

out_quiesce_queue:
	nvmeof_quiesce_admin_queue(&ctrl->ctrl);
	blk_sync_queue(ctrl->ctrl.admin_q);
out_stop_queue:
	nvme_rdma_stop_queue(&ctrl->queues[0]);
	nvme_cancel_admin_tagset(&ctrl->ctrl);
out_remove_admin_tag_set:
	if (new) {
		/*
		 * As nvme_rdma_teardown_admin_queue(): destroying a quiesced
		 * queue would wait forever for a request it holds. None can
		 * be queued here today (nothing submits before the
		 * controller is live); kept so that none ever hangs it.
		 */
		nvmeof_unquiesce_admin_queue(&ctrl->ctrl);
		nvme_remove_admin_tag_set(&ctrl->ctrl);
	}
out_free_async_qe:
	if (ctrl->async_event_sqe.data) {
		nvme_rdma_free_qe(ctrl->device->dev, &ctrl->async_event_sqe,
				  sizeof(struct nvme_command), DMA_TO_DEVICE);
		ctrl->async_event_sqe.data = NULL;
	}
out_free_queue:
	nvme_rdma_free_queue(&ctrl->queues[0]);
	return error;
}

static int nvme_rdma_configure_io_queues(struct nvme_rdma_ctrl *ctrl, bool new)
{
	int ret, nr_queues;

	ret = nvme_rdma_alloc_io_queues(ctrl);
	if (ret)
		return ret;

	if (new) {
		ret = nvme_rdma_alloc_tag_set(&ctrl->ctrl);
		if (ret)
			goto out_free_io_queues;
	}

	/*
	 * Only start IO queues for which we have allocated the tagset
	 * and limitted it to the available queues. On reconnects, the
	 * queue number might have changed.
	 */
	nr_queues = min(ctrl->tag_set.nr_hw_queues + 1, ctrl->ctrl.queue_count);
	ret = nvme_rdma_start_io_queues(ctrl, 1, nr_queues);
	if (ret)
		goto out_cleanup_tagset;

	if (!new) {
		nvme_start_freeze(&ctrl->ctrl);
		nvmeof_unquiesce_io_queues(&ctrl->ctrl);
		if (!nvmeof_wait_freeze_timeout(&ctrl->ctrl)) {
			/*
			 * If we timed out waiting for freeze we are likely to
			 * be stuck.  Fail the controller initialization just
			 * to be safe.
			 */
			ret = -ENODEV;
			nvme_unfreeze(&ctrl->ctrl);
			goto out_wait_freeze_timed_out;
		}
		blk_mq_update_nr_hw_queues(ctrl->ctrl.tagset,
					   ctrl->ctrl.queue_count - 1);
		nvme_unfreeze(&ctrl->ctrl);
	}

	/*
	 * If the number of queues has increased (reconnect case)
	 * start all new queues now.
	 */
	ret = nvme_rdma_start_io_queues(ctrl, nr_queues,
					ctrl->tag_set.nr_hw_queues + 1);
	if (ret)
		goto out_wait_freeze_timed_out;

	return 0;

out_wait_freeze_timed_out:
	nvmeof_quiesce_io_queues(&ctrl->ctrl);
	nvme_sync_io_queues(&ctrl->ctrl);
	nvme_rdma_stop_io_queues(ctrl);
out_cleanup_tagset:
	nvme_cancel_tagset(&ctrl->ctrl);
	if (new)
		nvme_remove_io_tag_set(&ctrl->ctrl);
out_free_io_queues:
	nvme_rdma_free_io_queues(ctrl);
	return ret;
}

static void nvme_rdma_teardown_admin_queue(struct nvme_rdma_ctrl *ctrl,
					   bool remove)
{
	nvmeof_quiesce_admin_queue(&ctrl->ctrl);
	blk_sync_queue(ctrl->ctrl.admin_q);
	nvme_rdma_stop_queue(&ctrl->queues[0]);
	nvme_cancel_admin_tagset(&ctrl->ctrl);
	if (remove) {
		nvmeof_unquiesce_admin_queue(&ctrl->ctrl);
		nvme_remove_admin_tag_set(&ctrl->ctrl);
	}
	nvme_rdma_destroy_admin_queue(ctrl);
}

static void nvme_rdma_teardown_io_queues(struct nvme_rdma_ctrl *ctrl,
					 bool remove)
{
	if (ctrl->ctrl.queue_count > 1) {
		nvmeof_quiesce_io_queues(&ctrl->ctrl);
		nvme_sync_io_queues(&ctrl->ctrl);
		nvme_rdma_stop_io_queues(ctrl);
		nvme_cancel_tagset(&ctrl->ctrl);
		if (remove) {
			nvmeof_unquiesce_io_queues(&ctrl->ctrl);
			nvme_remove_io_tag_set(&ctrl->ctrl);
		}
		nvme_rdma_free_io_queues(ctrl);
	}
}

static void nvme_rdma_stop_ctrl(struct nvme_ctrl *nctrl)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(nctrl);

	flush_work(&ctrl->err_work);
	cancel_delayed_work_sync(&ctrl->reconnect_work);
}

static void nvme_rdma_free_ctrl(struct nvme_ctrl *nctrl)
{
	struct nvme_rdma_ctrl *ctrl = to_rdma_ctrl(nctrl);

	/* before the queues its files show go */
	nvme_rdma_stats_remove_ctrl(ctrl);
	if (list_empty(&ctrl->list))
		goto free_ctrl;

	mutex_lock(&nvme_rdma_ctrl_mutex);
	list_del(&ctrl->list);
	mutex_unlock(&nvme_rdma_ctrl_mutex);

	nvmf_free_options(nctrl->opts);
free_ctrl:
	kfree(ctrl->queues);
	kfree(ctrl);
}

static void nvme_rdma_reconnect_or_remove(struct nvme_rdma_ctrl *ctrl)
{
	/* If we are resetting/deleting then do nothing */
	if (ctrl->ctrl.state != NVME_CTRL_CONNECTING) {
		WARN_ON_ONCE(ctrl->ctrl.state == NVME_CTRL_NEW ||
			     ctrl->ctrl.state == NVME_CTRL_LIVE);
		return;
	}

	/*
	 * The reconnect count alone decides, on every kernel: no NVMe status
	 * is passed where nvmf_should_reconnect() takes one, so a DNR status
	 * never suppresses the reconnect.
	 */
	if (nvmeof_should_reconnect(&ctrl->ctrl, 0)) {
		dev_info(ctrl->ctrl.device, "Reconnecting in %d seconds...\n",
			 ctrl->ctrl.opts->reconnect_delay);
		queue_delayed_work(nvme_wq, &ctrl->reconnect_work,
				   ctrl->ctrl.opts->reconnect_delay * HZ);
	} else {
		nvme_delete_ctrl(&ctrl->ctrl);
	}
}

/*
 * In-capsule data the I/O queues may send, from what the controller reports
 * (IOCCSZ and SGL offset support), re-read on every connect. A controller
 * whose I/O command capsule is larger than any message the RDMA port can
 * carry is refused: it reports something no RDMA target can receive.
 */
static int nvme_rdma_set_in_capsule_size(struct nvme_rdma_ctrl *ctrl)
{
	u32 ioccsz = ctrl->ctrl.ioccsz;
	struct ib_port_attr attr;
	long size;
	int ret;

	ret = ib_query_port(ctrl->device->dev, ctrl->queues[0].cm_id->port_num,
			    &attr);
	if (ret) {
		dev_err(ctrl->ctrl.device,
			"querying RDMA port %u failed (%d)\n",
			ctrl->queues[0].cm_id->port_num, ret);
		return ret;
	}
	if (!nvmeof_host_capsule_fits(ioccsz, attr.max_msg_sz)) {
		dev_err(ctrl->ctrl.device,
			"I/O command capsule size of %llu bytes (IOCCSZ %u) exceeds the RDMA port's largest message of %u bytes: refusing the controller\n",
			(u64)ioccsz * 16, ioccsz, attr.max_msg_sz);
		return -EINVAL;
	}

	size = nvmeof_host_in_capsule_size(ioccsz, ctrl->ctrl.sgls);
	if (size < 0) {
		dev_warn(ctrl->ctrl.device,
			 "I/O command capsule size of %u bytes (IOCCSZ %u) cannot hold a command: sending no in-capsule data\n",
			 ioccsz * 16, ioccsz);
		size = 0;
	}
	ctrl->in_capsule_size = size;
	return 0;
}

/*
 * The target ends a controller whose keep-alive timeout passes with no
 * command from it. Setting many I/O queues up (a storm, a busy target) can
 * take longer than that, and an nvme-core that starts keep-alive only in
 * nvme_start_ctrl(), after the last I/O queue (6.1), then loses every
 * controller it sets up, for good. So keep-alive starts once the admin
 * queue is up, as nvme-core does itself from 6.7 on: where it already did,
 * the work is pending and queueing it again does nothing. Every way out of
 * setup stops it (nvme_stop_keep_alive() at destroy_admin, nvme_stop_ctrl()
 * and error recovery later), and the work re-arms only while CONNECTING or
 * LIVE.
 */
static void nvme_rdma_start_keep_alive(struct nvme_rdma_ctrl *ctrl)
{
	if (ctrl->ctrl.kato)
		queue_delayed_work(nvme_wq, &ctrl->ctrl.ka_work,
				   ctrl->ctrl.kato * HZ / 2);
}

static int nvme_rdma_setup_ctrl(struct nvme_rdma_ctrl *ctrl, bool new)
{
	u16 max_queue_size;
	int ret;
	bool changed;

	ret = nvme_rdma_configure_admin_queue(ctrl, new);
	if (ret)
		return ret;

	nvme_rdma_start_keep_alive(ctrl);

	if (ctrl->ctrl.icdoff) {
		ret = -EOPNOTSUPP;
		dev_err(ctrl->ctrl.device, "icdoff is not supported!\n");
		goto destroy_admin;
	}

	if (!(ctrl->ctrl.sgls & NVMEOF_SGLS_KEYED)) {
		ret = -EOPNOTSUPP;
		dev_err(ctrl->ctrl.device,
			"Mandatory keyed sgls are not supported!\n");
		goto destroy_admin;
	}

	if (ctrl->ctrl.opts->queue_size > ctrl->ctrl.sqsize + 1) {
		dev_warn(ctrl->ctrl.device,
			 "queue_size %zu > ctrl sqsize %u, clamping down\n",
			 ctrl->ctrl.opts->queue_size, ctrl->ctrl.sqsize + 1);
	}

	max_queue_size = ctrl->ctrl.max_integrity_segments ?
			 NVME_RDMA_MAX_METADATA_QUEUE_SIZE :
			 NVME_RDMA_MAX_QUEUE_SIZE;
	if (ctrl->ctrl.sqsize + 1 > max_queue_size) {
		dev_warn(ctrl->ctrl.device,
			 "ctrl sqsize %u > max queue size %u, clamping down\n",
			 ctrl->ctrl.sqsize + 1, max_queue_size);
		ctrl->ctrl.sqsize = max_queue_size - 1;
	}

	if (ctrl->ctrl.sqsize + 1 > ctrl->ctrl.maxcmd) {
		dev_warn(ctrl->ctrl.device,
			 "sqsize %u > ctrl maxcmd %u, clamping down\n",
			 ctrl->ctrl.sqsize + 1, ctrl->ctrl.maxcmd);
		ctrl->ctrl.sqsize = ctrl->ctrl.maxcmd - 1;
	}

	if (ctrl->ctrl.queue_count > 1) {
		ret = nvme_rdma_set_in_capsule_size(ctrl);
		if (ret)
			goto destroy_admin;
		ret = nvme_rdma_configure_io_queues(ctrl, new);
		if (ret)
			goto destroy_admin;
	}

	changed = nvme_change_ctrl_state(&ctrl->ctrl, NVME_CTRL_LIVE);
	if (!changed) {
		/*
		 * state change failure is ok if we started ctrl delete,
		 * unless we're during creation of a new controller to
		 * avoid races with teardown flow.
		 */
		WARN_ON_ONCE(ctrl->ctrl.state != NVME_CTRL_DELETING &&
			     ctrl->ctrl.state != NVME_CTRL_DELETING_NOIO);
		WARN_ON_ONCE(new);
		ret = -EINVAL;
		goto destroy_io;
	}

	nvme_start_ctrl(&ctrl->ctrl);
	return 0;

destroy_io:
	if (ctrl->ctrl.queue_count > 1) {
		nvmeof_quiesce_io_queues(&ctrl->ctrl);
		nvme_sync_io_queues(&ctrl->ctrl);
		nvme_rdma_stop_io_queues(ctrl);
		nvme_cancel_tagset(&ctrl->ctrl);
		if (new)
			nvme_remove_io_tag_set(&ctrl->ctrl);
		nvme_rdma_free_io_queues(ctrl);
	}
destroy_admin:
	/* keep-alive runs from the admin queue on (nvme_rdma_start_keep_alive) */
	nvme_stop_keep_alive(&ctrl->ctrl);
	nvme_rdma_teardown_admin_queue(ctrl, new);
	return ret;
}

static void nvme_rdma_reconnect_ctrl_work(struct work_struct *work)
{
	struct nvme_rdma_ctrl *ctrl = container_of(to_delayed_work(work),
			struct nvme_rdma_ctrl, reconnect_work);

	++ctrl->ctrl.nr_reconnects;

	if (nvme_rdma_setup_ctrl(ctrl, false))
		goto requeue;

	dev_info(ctrl->ctrl.device, "Successfully reconnected (%d attempts)\n",
		 ctrl->ctrl.nr_reconnects);
	atomic64_inc(&ctrl->stats.reconnects);

	nvmeof_reconnected(&ctrl->ctrl);

	return;

requeue:
	/* of opts->max_reconnects (-1: no limit), as stock says it from 6.12 */
	dev_info(ctrl->ctrl.device, "Failed reconnect attempt %d/%d\n",
		 ctrl->ctrl.nr_reconnects, ctrl->ctrl.opts->max_reconnects);
	atomic64_inc(&ctrl->stats.reconnect_failures);
	nvme_rdma_reconnect_or_remove(ctrl);
}

static bool nvme_rdma_end_keep_alive_rq(struct request *rq, void *data)
{
	struct nvme_rdma_request *req = blk_mq_rq_to_pdu(rq);

	if (nvme_req(rq)->cmd->common.opcode == nvme_admin_keep_alive &&
	    blk_mq_request_started(rq)) {
		req->ended_by_recovery = true;
		blk_abort_request(rq);
	}
	return true;
}

/*
 * Where the core sends the keep-alive synchronously (Debian's 6.1 among
 * them), its work waits for the command and nvme_stop_keep_alive() for the
 * work: a failed controller never answers, so error recovery would sit
 * until the command's own timeout (KATO). The command ends now instead, by
 * the timeout handler (blk_abort_request()), which stops the admin queue
 * and fails it as when it times out; called before the teardown, whose
 * blk_sync_queue() waits for that handler. Not on a reset: that controller
 * may be well, and its shutdown still needs the admin queue.
 */
static void nvme_rdma_end_keep_alive(struct nvme_rdma_ctrl *ctrl)
{
	if (ctrl->ctrl.admin_q)
		blk_mq_tagset_busy_iter(&ctrl->admin_tag_set,
					nvme_rdma_end_keep_alive_rq, NULL);
}

static void nvme_rdma_error_recovery_work(struct work_struct *work)
{
	struct nvme_rdma_ctrl *ctrl = container_of(work,
			struct nvme_rdma_ctrl, err_work);

	nvme_rdma_end_keep_alive(ctrl);
	nvme_stop_keep_alive(&ctrl->ctrl);
	flush_work(&ctrl->ctrl.async_event_work);
	nvme_rdma_teardown_io_queues(ctrl, false);
	nvmeof_unquiesce_io_queues(&ctrl->ctrl);
	nvme_rdma_teardown_admin_queue(ctrl, false);
	nvmeof_unquiesce_admin_queue(&ctrl->ctrl);
	nvme_auth_stop(&ctrl->ctrl);

	if (!nvme_change_ctrl_state(&ctrl->ctrl, NVME_CTRL_CONNECTING)) {
		/* state change failure is ok if we started ctrl delete */
		WARN_ON_ONCE(ctrl->ctrl.state != NVME_CTRL_DELETING &&
			     ctrl->ctrl.state != NVME_CTRL_DELETING_NOIO);
		return;
	}

	nvme_rdma_reconnect_or_remove(ctrl);
}

static void nvme_rdma_shutdown_ctrl(struct nvme_rdma_ctrl *ctrl, bool shutdown)
{
	nvme_rdma_teardown_io_queues(ctrl, shutdown);
	nvmeof_quiesce_admin_queue(&ctrl->ctrl);
	/* CC.SHN shutdown when deleting, else a plain disable (CC.EN=0) */
	nvmeof_disable_ctrl(&ctrl->ctrl, shutdown);
	nvme_rdma_teardown_admin_queue(ctrl, shutdown);
}

static void nvme_rdma_delete_ctrl(struct nvme_ctrl *ctrl)
{
	nvme_rdma_shutdown_ctrl(to_rdma_ctrl(ctrl), true);
}

static void nvme_rdma_reset_ctrl_work(struct work_struct *work)
{
	struct nvme_rdma_ctrl *ctrl =
		container_of(work, struct nvme_rdma_ctrl, ctrl.reset_work);

	atomic64_inc(&ctrl->stats.resets);
	nvme_stop_ctrl(&ctrl->ctrl);
	nvme_rdma_shutdown_ctrl(ctrl, false);

	if (!nvme_change_ctrl_state(&ctrl->ctrl, NVME_CTRL_CONNECTING)) {
		/* state change failure should never happen */
		WARN_ON_ONCE(1);
		return;
	}

	if (nvme_rdma_setup_ctrl(ctrl, false))
		goto out_fail;
	atomic64_inc(&ctrl->stats.reconnects);
	return;

out_fail:
	++ctrl->ctrl.nr_reconnects;
	atomic64_inc(&ctrl->stats.reconnect_failures);
	nvme_rdma_reconnect_or_remove(ctrl);
}

/*
 * May a namespace's requests carry PCI peer-to-peer pages (another device's
 * BAR)? Where the RDMA device's DMA mapping reaches them: the host hands
 * data pages only to ib_dma_map_sg() and never reads or copies them, and a
 * soft device (rxe, siw) "DMAs" with the CPU, so never there.
 */
static bool nvme_rdma_supports_pci_p2pdma(struct nvme_ctrl *nctrl)
{
	return ib_dma_pci_p2p_dma_supported(to_rdma_ctrl(nctrl)->device->dev);
}

static const struct nvme_ctrl_ops nvme_rdma_ctrl_ops = {
	.name			= "rdma",
	.module			= THIS_MODULE,
	.flags			= NVME_F_FABRICS | NVME_F_METADATA_SUPPORTED,
	.reg_read32		= nvmf_reg_read32,
	.reg_read64		= nvmf_reg_read64,
	.reg_write32		= nvmf_reg_write32,
	.subsystem_reset	= nvmf_subsystem_reset,
	.free_ctrl		= nvme_rdma_free_ctrl,
	.submit_async_event	= nvme_rdma_submit_async_event,
	.delete_ctrl		= nvme_rdma_delete_ctrl,
	.get_address		= nvmf_get_address,
	.stop_ctrl		= nvme_rdma_stop_ctrl,
	NVMEOF_CTRL_OPS_VIRT_BOUNDARY
	.supports_pci_p2pdma	= nvme_rdma_supports_pci_p2pdma,
};

/*
 * Fails a connection request if it matches an existing controller
 * (association) with the same tuple:
 * <Host NQN, Host ID, local address, remote address, remote port, SUBSYS NQN>
 *
 * if local address is not specified in the request, it will match an
 * existing controller with all the other parameters the same and no
 * local port address specified as well.
 *
 * The ports don't need to be compared as they are intrinsically
 * already matched by the port pointers supplied.
 */
static bool
nvme_rdma_existing_controller(struct nvmf_ctrl_options *opts)
{
	struct nvme_rdma_ctrl *ctrl;
	bool found = false;

	mutex_lock(&nvme_rdma_ctrl_mutex);
	list_for_each_entry(ctrl, &nvme_rdma_ctrl_list, list) {
		found = nvmf_ip_options_match(&ctrl->ctrl, opts);
		if (found)
			break;
	}
	mutex_unlock(&nvme_rdma_ctrl_mutex);

	return found;
}

/**
 * nvme_rdma_create_ctrl() - nvmf_transport_ops create_ctrl for "rdma"
 * @dev: the nvme-fabrics device
 * @opts: parsed connect options; owned by the controller on success
 *
 * Parses the addresses, allocates and initialises the controller, connects
 * the admin and I/O queues and adds it to the transport's controller list.
 *
 * Return: the new controller, or an ERR_PTR() on failure.
 */
struct nvme_ctrl *nvme_rdma_create_ctrl(struct device *dev,
					struct nvmf_ctrl_options *opts)
{
	struct nvme_rdma_ctrl *ctrl;
	int ret;
	bool changed;

	ctrl = kzalloc(sizeof(*ctrl), GFP_KERNEL);
	if (!ctrl)
		return ERR_PTR(-ENOMEM);
	ctrl->ctrl.opts = opts;
	INIT_LIST_HEAD(&ctrl->list);

	if (!(opts->mask & NVMF_OPT_TRSVCID)) {
		opts->trsvcid =
			kstrdup(__stringify(NVME_RDMA_IP_PORT), GFP_KERNEL);
		if (!opts->trsvcid) {
			ret = -ENOMEM;
			goto out_free_ctrl;
		}
		opts->mask |= NVMF_OPT_TRSVCID;
	}

	ret = inet_pton_with_scope(&init_net, AF_UNSPEC,
				   opts->traddr, opts->trsvcid, &ctrl->addr);
	if (ret) {
		pr_err("malformed address passed: %s:%s\n",
		       opts->traddr, opts->trsvcid);
		goto out_free_ctrl;
	}

	if (opts->mask & NVMF_OPT_HOST_TRADDR) {
		ret = inet_pton_with_scope(&init_net, AF_UNSPEC,
					   opts->host_traddr, NULL,
					   &ctrl->src_addr);
		if (ret) {
			pr_err("malformed src address passed: %s\n",
			       opts->host_traddr);
			goto out_free_ctrl;
		}
	}

	if (!opts->duplicate_connect && nvme_rdma_existing_controller(opts)) {
		ret = -EALREADY;
		goto out_free_ctrl;
	}

	INIT_DELAYED_WORK(&ctrl->reconnect_work,
			  nvme_rdma_reconnect_ctrl_work);
	INIT_WORK(&ctrl->err_work, nvme_rdma_error_recovery_work);
	INIT_WORK(&ctrl->ctrl.reset_work, nvme_rdma_reset_ctrl_work);

	ctrl->ctrl.queue_count = opts->nr_io_queues + opts->nr_write_queues +
				opts->nr_poll_queues + 1;
	ctrl->ctrl.sqsize = opts->queue_size - 1;
	ctrl->ctrl.kato = opts->kato;

	ret = -ENOMEM;
	ctrl->queues = kcalloc(ctrl->ctrl.queue_count, sizeof(*ctrl->queues),
			       GFP_KERNEL);
	if (!ctrl->queues)
		goto out_free_ctrl;

	ret = nvme_init_ctrl(&ctrl->ctrl, dev, &nvme_rdma_ctrl_ops,
			     0 /* no quirks, we're perfect! */);
	if (ret)
		goto out_kfree_queues;
	ret = nvmeof_add_ctrl(&ctrl->ctrl);
	if (ret)
		goto out_put_ctrl;
	/*
	 * Named as the controller: not before nvme_add_ctrl(), which names it
	 * where the core has one (6.12; before, nvme_init_ctrl() did).
	 */
	nvme_rdma_stats_add_ctrl(ctrl);

	changed = nvme_change_ctrl_state(&ctrl->ctrl, NVME_CTRL_CONNECTING);
	WARN_ON_ONCE(!changed);

	ret = nvme_rdma_setup_ctrl(ctrl, true);
	if (ret)
		goto out_uninit_ctrl;

	dev_info(ctrl->ctrl.device, "new ctrl: NQN \"%s\", addr %pISpcs\n",
		 nvmf_ctrl_subsysnqn(&ctrl->ctrl), &ctrl->addr);

	mutex_lock(&nvme_rdma_ctrl_mutex);
	list_add_tail(&ctrl->list, &nvme_rdma_ctrl_list);
	mutex_unlock(&nvme_rdma_ctrl_mutex);

	return &ctrl->ctrl;

out_uninit_ctrl:
	nvme_uninit_ctrl(&ctrl->ctrl);
out_put_ctrl:
	nvme_put_ctrl(&ctrl->ctrl);
	if (ret > 0)
		ret = -EIO;
	return ERR_PTR(ret);
out_kfree_queues:
	kfree(ctrl->queues);
out_free_ctrl:
	kfree(ctrl);
	return ERR_PTR(ret);
}
