// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA host code: the statistics, read under debugfs as
 * /sys/kernel/debug/nvme_rdma/<controller>/{ctrl,queue<N>}, one
 * "name value" line per counter (Documentation/statistics.md).
 *
 * debugfs, not sysfs: the counters are for looking inside (the
 * nvmeof-rdma tool reads them), not an ABI that stock drivers share.
 */
#include "nvme_rdma.h"

#include <linux/debugfs.h>
#include <linux/seq_file.h>

const char *const nvme_rdma_recovery_causes[NVME_RDMA_RECOVERY_CAUSES] = {
	[NVME_RDMA_RECOVERY_WC_ERROR]	  = "wc_error",
	[NVME_RDMA_RECOVERY_BAD_RESPONSE] = "bad_response",
	[NVME_RDMA_RECOVERY_TIMEOUT]	  = "timeout",
	[NVME_RDMA_RECOVERY_DISCONNECT]	  = "disconnect",
	[NVME_RDMA_RECOVERY_QP_ERROR]	  = "qp_error",
	[NVME_RDMA_RECOVERY_POST_FAILED]  = "post_failed",
};

static const char *const nvme_rdma_cmd_class_names[NVMEOF_CMD_CLASSES] = {
	NVMEOF_CMD_CLASS_NAMES
};

static const char *const nvme_rdma_status_names[NVMEOF_STATUS_CLASSES] = {
	NVMEOF_STATUS_CLASS_NAMES
};

static const char *const nvme_rdma_data_map_names[NVMEOF_DATA_MAPS] = {
	[NVMEOF_MAP_NONE]	 = "data_none",
	[NVMEOF_MAP_PI]		 = "data_pi",
	[NVMEOF_MAP_IN_CAPSULE]	 = "data_in_capsule",
	[NVMEOF_MAP_GLOBAL_RKEY] = "data_global_rkey",
	[NVMEOF_MAP_MR]		 = "data_registered",
};

static struct dentry *nvme_rdma_debugfs_root;

/*
 * The commands' counters are read without sq_lock: a 64-bit load does not
 * tear, and a count one command old is as good as any.
 */
static int nvme_rdma_queue_stats_show(struct seq_file *m, void *unused)
{
	struct nvme_rdma_queue *queue = m->private;
	struct nvme_rdma_queue_stats *s = &queue->stats;
	int i;

	for (i = 0; i < NVMEOF_CMD_CLASSES; i++)
		seq_printf(m, "%s %llu\n", nvme_rdma_cmd_class_names[i],
			   READ_ONCE(s->cmds[i]));
	seq_printf(m, "bytes_read %llu\n", READ_ONCE(s->bytes_read));
	seq_printf(m, "bytes_written %llu\n", READ_ONCE(s->bytes_written));
	for (i = 0; i < NVMEOF_DATA_MAPS; i++)
		seq_printf(m, "%s %llu\n", nvme_rdma_data_map_names[i],
			   READ_ONCE(s->data[i]));
	seq_printf(m, "sq_full %llu\n", READ_ONCE(s->sq_full));
	for (i = 0; i < NVMEOF_STATUS_CLASSES; i++)
		seq_printf(m, "%s %lld\n", nvme_rdma_status_names[i],
			   atomic64_read(&s->status[i]));
	seq_printf(m, "rsp_rejected %lld\n", atomic64_read(&s->rsp_rejected));
	seq_printf(m, "wc_errors %lld\n", atomic64_read(&s->wc_errors));
	seq_printf(m, "timeouts %lld\n", atomic64_read(&s->timeouts));
	seq_printf(m, "live %d\n",
		   test_bit(NVME_RDMA_Q_LIVE, &queue->flags) ? 1 : 0);
	seq_printf(m, "buffer_bytes %zu\n", READ_ONCE(queue->buffer_bytes));
	seq_printf(m, "mrs %u\n", READ_ONCE(queue->nr_mrs));
	seq_printf(m, "mr_pages %u\n", READ_ONCE(queue->mr_pages));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvme_rdma_queue_stats);

static int nvme_rdma_ctrl_stats_show(struct seq_file *m, void *unused)
{
	struct nvme_rdma_ctrl *ctrl = m->private;
	struct nvme_rdma_ctrl_stats *s = &ctrl->stats;
	int i;

	for (i = 0; i < NVME_RDMA_RECOVERY_CAUSES; i++)
		seq_printf(m, "recoveries_%s %lld\n",
			   nvme_rdma_recovery_causes[i],
			   atomic64_read(&s->recoveries[i]));
	seq_printf(m, "resets %lld\n", atomic64_read(&s->resets));
	seq_printf(m, "reconnects %lld\n", atomic64_read(&s->reconnects));
	seq_printf(m, "reconnect_failures %lld\n",
		   atomic64_read(&s->reconnect_failures));
	seq_printf(m, "queues %u\n", ctrl->ctrl.queue_count);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvme_rdma_ctrl_stats);

/**
 * nvme_rdma_stats_add_ctrl() - the statistics files of a new controller
 * @ctrl: the controller, named (nvmeof_add_ctrl()), its queues allocated
 *
 * A controller works without them: debugfs failures are not errors (as
 * debugfs asks of its users).
 */
void nvme_rdma_stats_add_ctrl(struct nvme_rdma_ctrl *ctrl)
{
	struct dentry *dir;
	char name[16];
	u32 i;

	if (WARN_ON_ONCE(!dev_name(ctrl->ctrl.device)))	/* not named yet */
		return;
	dir = debugfs_create_dir(dev_name(ctrl->ctrl.device),
				 nvme_rdma_debugfs_root);
	ctrl->debugfs_dir = dir;
	debugfs_create_file("ctrl", 0444, dir, ctrl,
			    &nvme_rdma_ctrl_stats_fops);
	for (i = 0; i < ctrl->ctrl.queue_count; i++) {
		snprintf(name, sizeof(name), "queue%u", i);
		debugfs_create_file(name, 0444, dir, &ctrl->queues[i],
				    &nvme_rdma_queue_stats_fops);
	}
}

/**
 * nvme_rdma_stats_remove_ctrl() - remove a controller's statistics files
 * @ctrl: the controller; its queues must outlive this call, which waits
 *	for readers of the files
 */
void nvme_rdma_stats_remove_ctrl(struct nvme_rdma_ctrl *ctrl)
{
	debugfs_remove(ctrl->debugfs_dir);
	ctrl->debugfs_dir = NULL;
}

/**
 * nvme_rdma_stats_init() - create /sys/kernel/debug/nvme_rdma
 */
void nvme_rdma_stats_init(void)
{
	nvme_rdma_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

/**
 * nvme_rdma_stats_exit() - remove /sys/kernel/debug/nvme_rdma, once every
 *	controller is gone
 */
void nvme_rdma_stats_exit(void)
{
	debugfs_remove(nvme_rdma_debugfs_root);
}
