// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA host code: transport registration, RDMA device
 * removal and module parameters.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#include "nvme_rdma.h"

/*
 * Disabling this option makes small I/O goes faster, but is fundamentally
 * unsafe.  With it turned off we will have to register a global rkey that
 * allows read and write access to all physical memory.
 */
bool nvme_rdma_register_always = true;
module_param_named(register_always, nvme_rdma_register_always, bool, 0444);
MODULE_PARM_DESC(register_always,
		 "Use memory registration even for contiguous memory regions");

/*
 * How long a queue's connect waits for each answer of the RDMA CM
 * (nvme_rdma_wait_for_cm()): above the 74 s (6.12) or 98 s (6.1) after
 * which the CM gives up a connect request nobody answers on RoCE. 0 waits
 * for the CM alone, as stock does.
 */
unsigned int nvme_rdma_cm_wait_s = 120;
module_param_named(cm_wait_s, nvme_rdma_cm_wait_s, uint, 0644);
MODULE_PARM_DESC(cm_wait_s,
		 "Seconds a queue's connect waits for an answer of the RDMA CM before it gives the attempt up (0: no bound, as stock; default 120)");

/*
 * Where the I/O queues' Connect commands wait (nvme_rdma_start_io_queues()):
 * flushed from nvme-core's reset and reconnect work, which reclaims memory,
 * so it has a rescuer too.
 */
struct workqueue_struct *nvme_rdma_start_wq;

static struct nvmf_transport_ops nvme_rdma_transport = {
	.name		= "rdma",
	.module		= THIS_MODULE,
	.required_opts	= NVMF_OPT_TRADDR,
	.allowed_opts	= NVMF_OPT_TRSVCID | NVMF_OPT_RECONNECT_DELAY |
			  NVMF_OPT_HOST_TRADDR | NVMF_OPT_CTRL_LOSS_TMO |
			  NVMF_OPT_NR_WRITE_QUEUES | NVMF_OPT_NR_POLL_QUEUES |
			  NVMF_OPT_TOS,
	.create_ctrl	= nvme_rdma_create_ctrl,
};

static void nvme_rdma_remove_one(struct ib_device *ib_device, void *client_data)
{
	struct nvme_rdma_ctrl *ctrl;
	struct nvme_rdma_device *ndev;
	bool found = false;

	mutex_lock(&nvme_rdma_device_list_mutex);
	list_for_each_entry(ndev, &nvme_rdma_device_list, entry) {
		if (ndev->dev == ib_device) {
			found = true;
			break;
		}
	}
	mutex_unlock(&nvme_rdma_device_list_mutex);

	if (!found)
		return;

	/* Delete all controllers using this device */
	mutex_lock(&nvme_rdma_ctrl_mutex);
	list_for_each_entry(ctrl, &nvme_rdma_ctrl_list, list) {
		if (ctrl->device->dev != ib_device)
			continue;
		nvme_delete_ctrl(&ctrl->ctrl);
	}
	mutex_unlock(&nvme_rdma_ctrl_mutex);

	flush_workqueue(nvme_delete_wq);
}

static struct ib_client nvme_rdma_ib_client = {
	.name   = "nvme_rdma",
	.remove = nvme_rdma_remove_one
};

static int __init nvme_rdma_init_module(void)
{
	int ret;

	nvme_rdma_start_wq = alloc_workqueue("nvme-rdma-start-wq",
					     WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!nvme_rdma_start_wq)
		return -ENOMEM;
	nvme_rdma_stats_init();
	ret = ib_register_client(&nvme_rdma_ib_client);
	if (ret)
		goto err_stats;

	ret = nvmf_register_transport(&nvme_rdma_transport);
	if (ret)
		goto err_unreg_client;

	return 0;

err_unreg_client:
	ib_unregister_client(&nvme_rdma_ib_client);
err_stats:
	nvme_rdma_stats_exit();
	destroy_workqueue(nvme_rdma_start_wq);
	return ret;
}

static void __exit nvme_rdma_cleanup_module(void)
{
	struct nvme_rdma_ctrl *ctrl;

	nvmf_unregister_transport(&nvme_rdma_transport);
	ib_unregister_client(&nvme_rdma_ib_client);

	mutex_lock(&nvme_rdma_ctrl_mutex);
	list_for_each_entry(ctrl, &nvme_rdma_ctrl_list, list)
		nvme_delete_ctrl(&ctrl->ctrl);
	mutex_unlock(&nvme_rdma_ctrl_mutex);
	flush_workqueue(nvme_delete_wq);
	nvme_rdma_stats_exit();
	destroy_workqueue(nvme_rdma_start_wq);
}

module_init(nvme_rdma_init_module);
module_exit(nvme_rdma_cleanup_module);

MODULE_DESCRIPTION("nvmeof-rdma NVMe over Fabrics RDMA host transport");
MODULE_VERSION(NVMEOF_VERSION);
MODULE_LICENSE("GPL v2");
