// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target code: the statistics, read under debugfs
 * as /sys/kernel/debug/nvmet_rdma/queue<N>, a file per queue while it
 * exists, one "name value" line per counter (Documentation/statistics.md).
 *
 * debugfs, not sysfs: the counters are for looking inside (the
 * nvmeof-rdma tool reads them), not an ABI that stock drivers share.
 */
#include "nvmet_rdma.h"

#include <linux/debugfs.h>
#include <linux/seq_file.h>

static const char *const nvmet_rdma_cmd_class_names[NVMEOF_CMD_CLASSES] = {
	NVMEOF_CMD_CLASS_NAMES
};

static const char *const nvmet_rdma_status_names[NVMEOF_STATUS_CLASSES] = {
	NVMEOF_STATUS_CLASS_NAMES
};

static const char *const nvmet_rdma_data_way_names[NVMET_RDMA_DATA_WAYS] = {
	[NVMET_RDMA_DATA_NONE]		= "data_none",
	[NVMET_RDMA_DATA_IN_CAPSULE]	= "data_in_capsule",
	[NVMET_RDMA_DATA_KEYED]		= "data_keyed",
};

static struct dentry *nvmet_rdma_debugfs_root;

/*
 * The queue's controller is set once its Connect command has run; the sq
 * holds it until nvmet_sq_destroy(), which comes after this file is gone.
 */
static int nvmet_rdma_queue_stats_show(struct seq_file *m, void *unused)
{
	struct nvmet_rdma_queue *queue = m->private;
	struct nvmet_rdma_queue_stats *s = &queue->stats;
	struct nvmet_ctrl *ctrl = READ_ONCE(queue->nvme_sq.ctrl);
	char traddr[64];
	int i;

	if (ctrl) {
		seq_printf(m, "cntlid %u\n", ctrl->cntlid);
		seq_printf(m, "hostnqn %s\n", ctrl->hostnqn);
	}
	if (nvmet_rdma_queue_host_traddr(queue, traddr, sizeof(traddr)) > 0)
		seq_printf(m, "host_traddr %s\n", traddr);
	/* nvmet's own view (its op reads the admin queue: this one) */
	if (ctrl && !queue->host_qid && ctrl->sqs[0] == &queue->nvme_sq &&
	    nvmeof_ctrl_host_traddr(ctrl, traddr, sizeof(traddr)) > 0)
		seq_printf(m, "ctrl_host_traddr %s\n", traddr);
	seq_printf(m, "qid %d\n", queue->host_qid);
	for (i = 0; i < NVMEOF_CMD_CLASSES; i++)
		seq_printf(m, "%s %llu\n", nvmet_rdma_cmd_class_names[i],
			   READ_ONCE(s->cmds[i]));
	seq_printf(m, "bytes_read %llu\n", READ_ONCE(s->bytes_read));
	seq_printf(m, "bytes_written %llu\n", READ_ONCE(s->bytes_written));
	for (i = 0; i < NVMET_RDMA_DATA_WAYS; i++)
		seq_printf(m, "%s %llu\n", nvmet_rdma_data_way_names[i],
			   READ_ONCE(s->data[i]));
	seq_printf(m, "rsps_discrete %llu\n", READ_ONCE(s->rsps_discrete));
	seq_printf(m, "sq_full %lld\n", atomic64_read(&s->sq_full));
	for (i = 0; i < NVMEOF_STATUS_CLASSES; i++)
		seq_printf(m, "%s %lld\n", nvmet_rdma_status_names[i],
			   atomic64_read(&s->status[i]));
	seq_printf(m, "cmds_rejected %lld\n",
		   atomic64_read(&s->cmds_rejected));
	seq_printf(m, "wc_errors %lld\n", atomic64_read(&s->wc_errors));
	/* written under page_cache_lock; a 64-bit load does not tear */
	seq_printf(m, "pages_reused %llu\n", READ_ONCE(s->pages_reused));
	seq_printf(m, "pages_new %llu\n", READ_ONCE(s->pages_new));
	seq_printf(m, "pages_evicted %llu\n", READ_ONCE(s->pages_evicted));
	seq_printf(m, "pages_held %u\n", READ_ONCE(queue->page_cache.owned));
	seq_printf(m, "data_uncached %lld\n",
		   atomic64_read(&s->data_uncached));
	seq_printf(m, "buffer_bytes %zu\n",
		   nvmet_rdma_queue_buffer_bytes(queue->dev,
						 queue->recv_queue_size,
						 !queue->host_qid,
						 !!queue->nsrq));
	seq_printf(m, "srq %d\n", queue->nsrq ? 1 : 0);
	seq_printf(m, "premapped %d\n", queue->premapped ? 1 : 0);
	seq_printf(m, "srq_low %lld\n",
		   queue->nsrq ? atomic64_read(&queue->nsrq->low_events) : 0);
	seq_printf(m, "srq_buffer_bytes %zu\n",
		   queue->nsrq ? nvmet_rdma_cmds_bytes(queue->dev,
						       queue->dev->srq_size,
						       false) : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvmet_rdma_queue_stats);

/**
 * nvmet_rdma_stats_add_queue() - the statistics file of a new queue
 * @queue: the queue, its index allocated
 *
 * A queue works without it: debugfs failures are not errors (as debugfs
 * asks of its users).
 */
void nvmet_rdma_stats_add_queue(struct nvmet_rdma_queue *queue)
{
	char name[24];

	snprintf(name, sizeof(name), "queue%d", queue->idx);
	queue->debugfs_file = debugfs_create_file(name, 0444,
						  nvmet_rdma_debugfs_root,
						  queue,
						  &nvmet_rdma_queue_stats_fops);
}

/**
 * nvmet_rdma_stats_remove_queue() - remove a queue's statistics file
 * @queue: the queue; it and its sq's controller must outlive this call,
 *	which waits for readers of the file
 */
void nvmet_rdma_stats_remove_queue(struct nvmet_rdma_queue *queue)
{
	debugfs_remove(queue->debugfs_file);
	queue->debugfs_file = NULL;
}

/**
 * nvmet_rdma_stats_init() - create /sys/kernel/debug/nvmet_rdma
 */
void nvmet_rdma_stats_init(void)
{
	nvmet_rdma_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

/**
 * nvmet_rdma_stats_exit() - remove /sys/kernel/debug/nvmet_rdma, once every
 *	queue is gone
 */
void nvmet_rdma_stats_exit(void)
{
	debugfs_remove(nvmet_rdma_debugfs_root);
}
