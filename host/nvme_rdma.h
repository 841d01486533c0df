/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe over Fabrics RDMA host code: private definitions shared by the
 * files of the nvme-rdma module.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#ifndef NVME_RDMA_H
#define NVME_RDMA_H

/* Must precede every other include: each host .c file includes us first. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/blk-mq.h>

#include <linux/blk-integrity.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/nvme.h>

#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <linux/nvme-rdma.h>

#include "nvme.h"
#include "fabrics.h"
#include "compat.h"
#include "host_wire.h"
#include "sq_count.h"
#include "stats.h"

#define NVME_RDMA_CM_TIMEOUT_MS		3000		/* 3 second */

#define NVME_RDMA_MAX_SEGMENTS		256

/*
 * Data segments a SEND carries after the command: our target takes up to
 * 64 KiB in the capsule, 16 pages; fewer where the device has fewer send
 * SGEs.
 */
#define NVME_RDMA_MAX_IN_CAPSULE_SEGMENTS	16

/*
 * Scatterlist entries inside each request: a request of up to this many
 * segments (a 16 KiB I/O in separate pages) needs no chained table from the
 * sg mempool, an allocation and a free per I/O (stock keeps 2 inline).
 */
#define NVME_RDMA_INLINE_SG_CNT		4

#define NVME_RDMA_DATA_SGL_SIZE \
	(sizeof(struct scatterlist) * NVME_RDMA_INLINE_SG_CNT)
#define NVME_RDMA_METADATA_SGL_SIZE \
	(sizeof(struct scatterlist) * NVME_INLINE_METADATA_SG_CNT)

struct nvme_rdma_device {
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct kref		ref;
	struct list_head	entry;
	unsigned int		num_in_capsule_segments;
};

struct nvme_rdma_qe {
	struct ib_cqe		cqe;
	void			*data;
	u64			dma;
};

struct nvme_rdma_sgl {
	int			nents;
	struct sg_table		sg_table;
};

struct nvme_rdma_queue;
struct nvme_rdma_request {
	struct nvme_request	req;
	struct ib_mr		*mr;
	struct nvme_rdma_qe	sqe;
	union nvme_result	result;
	__le16			status;
	refcount_t		ref;
	struct ib_sge		sge[1 + NVME_RDMA_MAX_IN_CAPSULE_SEGMENTS];
	u32			num_sge;
	struct ib_reg_wr	reg_wr;
	struct ib_cqe		reg_cqe;
	/* the command's SEND, behind reg_wr when the request has an MR */
	struct ib_send_wr	send_wr;
	/* on the queue's pending_sends until posted with the batch */
	struct llist_node	pending;
	struct nvme_rdma_queue  *queue;
	struct nvme_rdma_sgl	data_sgl;
	struct nvme_rdma_sgl	*metadata_sgl;
	bool			use_sig_mr;
	/*
	 * Its WRs went to the device (set under sq_lock before the post, so
	 * that its response cannot come first): a response for a command
	 * still parked on pending_sends, or not taken by a failed post, is
	 * the target's error.
	 */
	bool			posted;
	/* its response came: a second one is the target's error */
	bool			rsp_received;
	/* a keep-alive error recovery ends (nvme_rdma_end_keep_alive()) */
	bool			ended_by_recovery;
	/* send-queue accounting (common/sq_count.h) */
	u8			sq_wrs;		/* posted at submission */
	bool			inv_reserved;	/* room for a LOCAL_INV */
	u32			send_mark;	/* of its SEND, if signalled */
	u32			inv_mark;	/* of its LOCAL_INV */
	u8			data_map;	/* enum nvmeof_data_map */
};

enum nvme_rdma_queue_flags {
	NVME_RDMA_Q_ALLOCATED		= 0,
	NVME_RDMA_Q_LIVE		= 1,
	NVME_RDMA_Q_TR_READY		= 2,
};

/*
 * What a queue counts (Documentation/statistics.md), kept across the
 * controller's reconnects. The commands' counters are written under the
 * queue's sq_lock, beside the admission that writes there anyway; the
 * events' come from completions and timeouts in any context, and are rare.
 */
struct nvme_rdma_queue_stats {
	u64			cmds[NVMEOF_CMD_CLASSES];
	u64			bytes_read;
	u64			bytes_written;
	u64			data[NVMEOF_DATA_MAPS];
	u64			sq_full;
	atomic64_t		status[NVMEOF_STATUS_CLASSES];
	atomic64_t		rsp_rejected;
	atomic64_t		wc_errors;
	atomic64_t		timeouts;
};

struct nvme_rdma_queue {
	struct nvme_rdma_qe	*rsp_ring;
	/*
	 * A command buffer per tag, DMA-mapped in one piece for the queue's
	 * lifetime (so again on every reconnect, whatever the device): a
	 * command with in-capsule data is copied there and sent from there.
	 */
	struct nvme_command	*sqes;
	u64			sqes_dma;
	u32			nr_sqes;
	/*
	 * A fast-registration MR per tag (nr_sqes of them): a request's MR
	 * is its tag's, free again once the request completes, so taking one
	 * needs no pool and no lock. PI requests use the qp's sig_mrs pool.
	 */
	struct ib_mr		**mrs;
	/* memory held, for the statistics: 0 while the queue has none */
	size_t			buffer_bytes;
	u32			nr_mrs;
	u32			mr_pages;
	int			queue_size;
	u32			in_capsule_size;
	struct nvme_rdma_ctrl	*ctrl;
	struct nvme_rdma_device	*device;
	struct ib_cq		*ib_cq;
	struct ib_qp		*qp;

	unsigned long		flags;
	struct rdma_cm_id	*cm_id;
	int			cm_error;
	struct completion	cm_done;
	bool			pi_support;
	int			cq_size;
	/*
	 * Commands without in-capsule data go inline in an unsignalled SEND
	 * (the device takes 64 bytes of inline data), completing on
	 * cmd_send_cqe if flushed; the send-queue count decides which are
	 * signalled after all (see nvme_rdma_prep_cmd_inline()).
	 */
	bool			inline_cmd;
	struct ib_cqe		cmd_send_cqe;
	/*
	 * The send queue counted as an RNIC retires it (common/sq_count.h):
	 * admitting a command, posting and counting happen under sq_lock, so
	 * that the count's order is the queue's. Submission takes it with
	 * irqsave, the CQ's takers (softirq) with _bh: a driver's post_send
	 * disables interrupts anyway (mlx5 takes its own SQ lock irqsave), so
	 * irqsave adds only the admission's few instructions to that window,
	 * while spin_unlock_bh() would run the CPU's pending softirqs (the
	 * CQs' polling) inline in the submitter, between its commands.
	 */
	spinlock_t		sq_lock;
	struct nvmeof_sq_count	sq;
	/*
	 * Commands blk-mq gave with more to come (bd->last false), posted
	 * together by the last one or by commit_rqs: see
	 * nvme_rdma_post_pending().
	 */
	struct llist_head	pending_sends;
	/* serializes clearing NVME_RDMA_Q_LIVE with the queue disconnect */
	struct mutex		queue_lock;
	/* connects it (nvme_rdma_alloc_io_queues()) */
	struct work_struct	alloc_work;
	int			alloc_error;
	/* sends its Connect command (nvme_rdma_start_io_queues()) */
	struct work_struct	start_work;
	int			start_error;
	struct nvme_rdma_queue_stats stats;
};

/**
 * enum nvme_rdma_recovery_cause - what started a controller's error recovery
 * @NVME_RDMA_RECOVERY_WC_ERROR: a work request failed or was flushed
 * @NVME_RDMA_RECOVERY_BAD_RESPONSE: the target's response was rejected
 * @NVME_RDMA_RECOVERY_TIMEOUT: a command timed out
 * @NVME_RDMA_RECOVERY_DISCONNECT: the connection closed (RDMA CM)
 * @NVME_RDMA_RECOVERY_QP_ERROR: the device put a queue pair in error
 * @NVME_RDMA_RECOVERY_POST_FAILED: work requests went in only in part
 * @NVME_RDMA_RECOVERY_CAUSES: how many there are
 */
enum nvme_rdma_recovery_cause {
	NVME_RDMA_RECOVERY_WC_ERROR,
	NVME_RDMA_RECOVERY_BAD_RESPONSE,
	NVME_RDMA_RECOVERY_TIMEOUT,
	NVME_RDMA_RECOVERY_DISCONNECT,
	NVME_RDMA_RECOVERY_QP_ERROR,
	NVME_RDMA_RECOVERY_POST_FAILED,
	NVME_RDMA_RECOVERY_CAUSES
};

/* What a controller counts (Documentation/statistics.md). */
struct nvme_rdma_ctrl_stats {
	atomic64_t		recoveries[NVME_RDMA_RECOVERY_CAUSES];
	atomic64_t		resets;
	atomic64_t		reconnects;
	atomic64_t		reconnect_failures;
};

struct nvme_rdma_ctrl {
	/* read only in the hot path */
	struct nvme_rdma_queue	*queues;

	/* other member variables */
	struct blk_mq_tag_set	tag_set;
	struct work_struct	err_work;

	struct nvme_rdma_qe	async_event_sqe;
	/* an AER waits for a kept WR (admin queue's sq_lock) */
	bool			async_waiting;

	struct delayed_work	reconnect_work;

	struct list_head	list;

	struct blk_mq_tag_set	admin_tag_set;
	struct nvme_rdma_device	*device;

	u32			max_fr_pages;

	struct sockaddr_storage addr;
	struct sockaddr_storage src_addr;

	struct nvme_ctrl	ctrl;
	/* in-capsule data bytes an I/O queue may send (0: none) */
	u32			in_capsule_size;
	u32			io_queues[HCTX_MAX_TYPES];

	struct nvme_rdma_ctrl_stats stats;
	struct dentry		*debugfs_dir;	/* its statistics */
};

static inline struct nvme_rdma_ctrl *to_rdma_ctrl(struct nvme_ctrl *ctrl)
{
	return container_of(ctrl, struct nvme_rdma_ctrl, ctrl);
}

static inline int nvme_rdma_queue_idx(struct nvme_rdma_queue *queue)
{
	return queue - queue->ctrl->queues;
}

extern const char *const nvme_rdma_recovery_causes[NVME_RDMA_RECOVERY_CAUSES];

/**
 * nvme_rdma_error_recovery() - start error recovery of a controller
 * @ctrl: controller
 * @cause: what went wrong, counted and said
 *
 * Moves the controller to RESETTING and queues the error recovery work;
 * does nothing if that state change is not allowed (e.g. recovery is
 * already running or the controller is being deleted). Defined in this
 * header so that the CM handler (queue.c) and the completions (io.c) reach
 * the controller without calling up into ctrl.c, which binds the work to
 * nvme_rdma_error_recovery_work().
 */
static inline void nvme_rdma_error_recovery(struct nvme_rdma_ctrl *ctrl,
					    enum nvme_rdma_recovery_cause cause)
{
	if (!nvme_change_ctrl_state(&ctrl->ctrl, NVME_CTRL_RESETTING))
		return;

	atomic64_inc(&ctrl->stats.recoveries[cause]);
	dev_warn(ctrl->ctrl.device, "starting error recovery: %s\n",
		 nvme_rdma_recovery_causes[cause]);
	queue_work(nvme_reset_wq, &ctrl->err_work);
}

/*
 * What one file calls in another. The calls go one way: ctrl.c
 * (controllers) -> queue.c (queues) -> io.c (the I/O path), and
 * ctrl.c -> io.c; nothing calls up. main.c, the module, calls ctrl.c
 * and keeps the module parameter queue.c reads; stats.c shows what the
 * others count, and the recovery causes' names.
 * Blk-mq and the RDMA stack call io.c's callbacks and queue.c's CM
 * handler directly.
 */

/* main.c: module parameters, the queues' Connect workqueue */
extern bool nvme_rdma_register_always;
extern unsigned int nvme_rdma_cm_wait_s;
extern struct workqueue_struct *nvme_rdma_start_wq;

/* stats.c: the statistics under debugfs */
void nvme_rdma_stats_init(void);
void nvme_rdma_stats_exit(void);
void nvme_rdma_stats_add_ctrl(struct nvme_rdma_ctrl *ctrl);
void nvme_rdma_stats_remove_ctrl(struct nvme_rdma_ctrl *ctrl);

/* ctrl.c */
extern struct list_head nvme_rdma_ctrl_list;
extern struct mutex nvme_rdma_ctrl_mutex;

struct nvme_ctrl *nvme_rdma_create_ctrl(struct device *dev,
					struct nvmf_ctrl_options *opts);

/* queue.c */
extern struct list_head nvme_rdma_device_list;
extern struct mutex nvme_rdma_device_list_mutex;

void nvme_rdma_free_qe(struct ib_device *ibdev, struct nvme_rdma_qe *qe,
		       size_t capsule_size, enum dma_data_direction dir);
int nvme_rdma_alloc_qe(struct ib_device *ibdev, struct nvme_rdma_qe *qe,
		       size_t capsule_size, enum dma_data_direction dir);
int nvme_rdma_get_max_fr_pages(struct ib_device *ibdev, bool pi_support);
int nvme_rdma_alloc_queue(struct nvme_rdma_ctrl *ctrl,
			  int idx, size_t queue_size);
void nvme_rdma_free_queue(struct nvme_rdma_queue *queue);
void nvme_rdma_free_io_queues(struct nvme_rdma_ctrl *ctrl);
void nvme_rdma_stop_io_queues(struct nvme_rdma_ctrl *ctrl);
int nvme_rdma_start_queue(struct nvme_rdma_ctrl *ctrl, int idx);
int nvme_rdma_start_io_queues(struct nvme_rdma_ctrl *ctrl,
			      int first, int last);
int nvme_rdma_alloc_io_queues(struct nvme_rdma_ctrl *ctrl);

/* io.c */
extern const struct blk_mq_ops nvme_rdma_mq_ops;
extern const struct blk_mq_ops nvme_rdma_admin_mq_ops;

int nvme_rdma_post_recv(struct nvme_rdma_queue *queue,
			struct nvme_rdma_qe *qe);
void nvme_rdma_cmd_send_done(struct ib_cq *cq, struct ib_wc *wc);
void __nvme_rdma_stop_queue(struct nvme_rdma_queue *queue);
void nvme_rdma_stop_queue(struct nvme_rdma_queue *queue);
void nvme_rdma_submit_async_event(struct nvme_ctrl *arg);

#endif /* NVME_RDMA_H */
