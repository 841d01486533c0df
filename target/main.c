// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target: module parameters, the nvmet transport
 * and IB client registration.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/nvme.h>
#include <linux/workqueue.h>

#include <rdma/ib_verbs.h>

#include <linux/nvme-rdma.h>
#include "mem_reserve.h"
#include "nvmet_rdma.h"

bool nvmet_rdma_use_srq;
module_param_named(use_srq, nvmet_rdma_use_srq, bool, 0444);
MODULE_PARM_DESC(use_srq, "Use shared receive queue.");

static int srq_size_set(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops srq_size_ops = {
	.set = srq_size_set,
	.get = param_get_int,
};

int nvmet_rdma_srq_size = 1024;
module_param_cb(srq_size, &srq_size_ops, &nvmet_rdma_srq_size, 0644);
MODULE_PARM_DESC(srq_size, "set Shared Receive Queue (SRQ) size, should >= 256 (default: 1024)");

static int srq_size_set(const char *val, const struct kernel_param *kp)
{
	int n = 0, ret;

	ret = kstrtoint(val, 10, &n);
	if (ret != 0 || n < 256)
		return -EINVAL;

	return param_set_int(val, kp);
}

/*
 * Read at load time only: a controller's Identify and the checks of its
 * commands' SGLs must agree for its whole life.
 */
static int max_mdts_set(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops max_mdts_ops = {
	.set = max_mdts_set,
	.get = param_get_uint,
};

static unsigned int nvmet_rdma_max_mdts = NVMET_RDMA_MAX_MDTS;
module_param_cb(max_mdts, &max_mdts_ops, &nvmet_rdma_max_mdts, 0444);
MODULE_PARM_DESC(max_mdts,
		 "largest transfer offered, as MDTS: 2^N pages of 4 KiB, 1-8 (default 8: 1 MiB; 5 at most with metadata)");

static int max_mdts_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || n < 1 || n > NVMET_RDMA_MAX_MDTS) {
		pr_err("max_mdts %s: must be 1 to %d\n", val,
		       NVMET_RDMA_MAX_MDTS);
		return -EINVAL;
	}
	return param_set_uint(val, kp);
}

/*
 * The memory reserve a new queue must leave available (common/mem_reserve.h):
 * MiB, 0 for none, -1 (the default) for the automatic one, which is what
 * the parameter's file then shows.
 */
static int min_available_mb_set(const char *val, const struct kernel_param *kp);
/**
 * nvmet_rdma_memory_fits() - may buffers of @need bytes be taken now?
 * @need: bytes the buffers take
 * @f: the figures weighed, for the message of a refusal
 *
 * What is available does not yet hold what the live queues' page caches
 * may still take (they grow with their I/O, after their admission): that
 * counts as needed too.
 *
 * Return: true if they leave the memory reserve (min_available_mb)
 * available.
 */
bool nvmet_rdma_memory_fits(u64 need, struct nvmet_rdma_memory_figures *f)
{
	f->reserve_mb = nvmet_rdma_min_available_mb();
	f->caches = nvmet_rdma_page_cache_room_bytes();
	f->available = (u64)si_mem_available() << PAGE_SHIFT;
	return nvmeof_mem_admits(need + f->caches, f->available, f->reserve_mb);
}

static int min_available_mb_get(char *buf, const struct kernel_param *kp);
static const struct kernel_param_ops min_available_mb_ops = {
	.set = min_available_mb_set,
	.get = min_available_mb_get,
};

static int nvmet_rdma_min_available = -1;
module_param_cb(min_available_mb, &min_available_mb_ops,
		&nvmet_rdma_min_available, 0644);
MODULE_PARM_DESC(min_available_mb,
		 "memory (MiB) a new queue's buffers must leave available, else the queue is refused with a message (default -1: 1/64 of RAM, 32 MiB to 1 GiB; 0 = no reserve)");

static int min_available_mb_set(const char *val, const struct kernel_param *kp)
{
	int n;

	if (kstrtoint(val, 10, &n) || n < -1) {
		pr_err("min_available_mb %s: must be -1 (automatic), 0 (no reserve) or MiB\n",
		       val);
		return -EINVAL;
	}
	WRITE_ONCE(nvmet_rdma_min_available, n);
	return 0;
}

/**
 * nvmet_rdma_min_available_mb() - the memory reserve in force
 *
 * Return: MiB a new queue must leave available; 0 for none.
 */
u32 nvmet_rdma_min_available_mb(void)
{
	int n = READ_ONCE(nvmet_rdma_min_available);

	if (n >= 0)
		return n;
	return nvmeof_mem_reserve_auto_mb(totalram_pages() >>
					  (20 - PAGE_SHIFT));
}

static int min_available_mb_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%u\n", nvmet_rdma_min_available_mb());
}

/**
 * nvmet_rdma_mdts() - the MDTS the target offers (max_mdts, capped)
 * @metadata: for a controller or command with metadata (PI)
 *
 * Return: MDTS, in powers of two of 4 KiB pages (nvmet's CAP.MPSMIN).
 */
u8 nvmet_rdma_mdts(bool metadata)
{
	return min_t(u8, nvmet_rdma_max_mdts,
		     metadata ? NVMET_RDMA_MAX_METADATA_MDTS :
				NVMET_RDMA_MAX_MDTS);
}

static u8 nvmet_rdma_get_mdts(const struct nvmet_ctrl *ctrl)
{
	return nvmet_rdma_mdts(ctrl->pi_support);
}

static u16 nvmet_rdma_get_max_queue_size(const struct nvmet_ctrl *ctrl)
{
	if (ctrl->pi_support)
		return NVME_RDMA_MAX_METADATA_QUEUE_SIZE;
	return NVME_RDMA_MAX_QUEUE_SIZE;
}

/* the host's address of a controller: that of its admin queue's peer */
static ssize_t __maybe_unused nvmet_rdma_host_port_addr(struct nvmet_ctrl *ctrl,
							char *traddr,
							size_t traddr_len)
{
	return nvmet_rdma_queue_host_traddr(container_of(ctrl->sqs[0],
							 struct nvmet_rdma_queue,
							 nvme_sq),
					    traddr, traddr_len);
}

const struct nvmet_fabrics_ops nvmet_rdma_ops = {
	.owner			= THIS_MODULE,
	.type			= NVMF_TRTYPE_RDMA,
	.msdbd			= 1,
	.flags			= NVMF_KEYED_SGLS | NVMF_METADATA_SUPPORTED,
	.add_port		= nvmet_rdma_add_port,
	.remove_port		= nvmet_rdma_remove_port,
	.queue_response		= nvmet_rdma_queue_response,
	.delete_ctrl		= nvmet_rdma_delete_ctrl,
	.install_queue		= nvmet_rdma_install_queue,
	.disc_traddr		= nvmet_rdma_disc_port_addr,
	.get_mdts		= nvmet_rdma_get_mdts,
	.get_max_queue_size	= nvmet_rdma_get_max_queue_size,
	NVMEOF_OPS_HOST_TRADDR(nvmet_rdma_host_port_addr)
};

static void nvmet_rdma_remove_one(struct ib_device *ib_device, void *client_data)
{
	struct nvmet_rdma_queue *queue, *tmp;

	if (!nvmet_rdma_has_device(ib_device))
		return;

	/*
	 * IB Device that is used by nvmet controllers is being removed,
	 * delete all queues using this device.
	 */
	mutex_lock(&nvmet_rdma_queue_mutex);
	list_for_each_entry_safe(queue, tmp, &nvmet_rdma_queue_list,
				 queue_list) {
		if (queue->dev->device != ib_device)
			continue;

		pr_info("Removing queue %d\n", queue->idx);
		list_del_init(&queue->queue_list);
		__nvmet_rdma_queue_disconnect(queue);
	}
	mutex_unlock(&nvmet_rdma_queue_mutex);

	flush_workqueue(nvmet_wq);
	flush_workqueue(nvmet_aen_wq);
}

static struct ib_client nvmet_rdma_ib_client = {
	.name   = "nvmet_rdma",
	.remove = nvmet_rdma_remove_one
};

/*
 * Work of ours that a queue's release (on nvmet_wq) waits for: on a
 * workqueue of its own, since flushing a work of nvmet_wq from nvmet_wq is
 * a lockdep report of its own.
 */
struct workqueue_struct *nvmet_rdma_wq;

static int __init nvmet_rdma_init(void)
{
	int ret;

	nvmet_rdma_wq = alloc_workqueue("nvmet-rdma-wq",
					WQ_MEM_RECLAIM | NVMEOF_WQ_PERCPU, 0);
	if (!nvmet_rdma_wq)
		return -ENOMEM;
	nvmet_rdma_stats_init();

	ret = ib_register_client(&nvmet_rdma_ib_client);
	if (ret)
		goto err_wq;

	ret = nvmet_register_transport(&nvmet_rdma_ops);
	if (ret)
		goto err_ib_client;

	return 0;

err_ib_client:
	ib_unregister_client(&nvmet_rdma_ib_client);
err_wq:
	nvmet_rdma_stats_exit();
	destroy_workqueue(nvmet_rdma_wq);
	return ret;
}

static void __exit nvmet_rdma_exit(void)
{
	nvmet_unregister_transport(&nvmet_rdma_ops);
	ib_unregister_client(&nvmet_rdma_ib_client);
	WARN_ON_ONCE(!list_empty(&nvmet_rdma_queue_list));
	/* every queue's release flushed its work: nothing is left to run */
	destroy_workqueue(nvmet_rdma_wq);
	ida_destroy(&nvmet_rdma_queue_ida);
	nvmet_rdma_stats_exit();
}

module_init(nvmet_rdma_init);
module_exit(nvmet_rdma_exit);

MODULE_DESCRIPTION("nvmeof-rdma NVMe over Fabrics RDMA target transport");
MODULE_VERSION(NVMEOF_VERSION);
MODULE_LICENSE("GPL v2");
MODULE_ALIAS("nvmet-transport-1"); /* 1 == NVMF_TRTYPE_RDMA */
