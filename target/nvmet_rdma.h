/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe over Fabrics RDMA target: private definitions shared by the files of
 * nvmet-rdma.ko.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#ifndef NVMET_RDMA_H
#define NVMET_RDMA_H

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/llist.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include <linux/nvme-rdma.h>
#include "nvmet.h"
#include "compat.h"
#include "page_stack.h"
#include "stats.h"

/*
 * In-capsule data: a page by default, as stock, so that a port left at its
 * default advertises hosts the same capsule size (IOCCSZ); up to 64 KiB
 * where the device takes enough receive SGEs, one per page. A write that
 * fits goes without the RDMA READ round trip and, from our host, without a
 * memory registration; the price is memory: every receive buffer holds the
 * full size (reported when a device is set up).
 */
#define NVMET_RDMA_DEFAULT_IN_CAPSULE_SIZE	PAGE_SIZE
#define NVMET_RDMA_MAX_IN_CAPSULE_SIZE		max_t(int, SZ_64K, PAGE_SIZE)

/*
 * Assume mpsmin == device_page_size == 4KB. The most the target offers;
 * max_mdts lowers it (nvmet_rdma_mdts()), queues are sized for the most.
 */
#define NVMET_RDMA_MAX_MDTS			8
#define NVMET_RDMA_MAX_METADATA_MDTS		5

#define NVMET_RDMA_BACKLOG 128

#define NVMET_RDMA_DISCRETE_RSP_TAG		-1

struct nvmet_rdma_srq;

struct nvmet_rdma_cmd {
	/* the command, then a page each of in-capsule data (in_capsule_sg) */
	struct ib_sge		*sge;
	struct ib_cqe		cqe;
	struct ib_recv_wr	wr;
	struct scatterlist	*in_capsule_sg;
	struct nvme_command     *nvme_cmd;
	struct nvmet_rdma_queue	*queue;
	struct nvmet_rdma_srq   *nsrq;
	/* in-capsule data bytes the last receive into this buffer carried */
	u32			in_capsule_received;
};

enum {
	NVMET_RDMA_REQ_IN_CAPSULE_DATA	= (1 << 0),
	NVMET_RDMA_REQ_INVALIDATE_RKEY	= (1 << 1),
	/* data buffers from nvmet_rdma_alloc_data_sgl(), not nvmet core */
	NVMET_RDMA_REQ_CACHED_DATA	= (1 << 2),
	/* RDMA READ/WRITE over premapped pages: rsp->own, not rsp->rw */
	NVMET_RDMA_REQ_PREMAPPED_RW	= (1 << 3),
	/* took its send queue credits (nvmet_rdma_execute_command()) */
	NVMET_RDMA_REQ_SQ_CREDITS	= (1 << 4),
	/* refused before it ran: only its response needs a credit */
	NVMET_RDMA_REQ_RSP_ONLY		= (1 << 5),
	/* holds a reference of the queue's sq, put with the response */
	NVMET_RDMA_REQ_SQ_REF		= (1 << 6),
};

/*
 * Pages whose SGEs fit in the response itself (32 KiB); a larger transfer
 * allocates them, and one of several work requests those.
 */
#define NVMET_RDMA_EMBEDDED_SGES	8

/**
 * struct nvmet_rdma_premapped_rw - RDMA READ/WRITE work requests laid over
 *	a request's premapped data pages (rdma_data.c)
 * @wrs: the work requests: @wr, or allocated when there are several
 * @sges: an entry per data page: @sge, or allocated when they are more
 * @nr_wrs: entries of @wrs
 * @nr_sge: entries of @sges
 * @wr: the work request of a transfer that takes one
 * @sge: the entries of a transfer of NVMET_RDMA_EMBEDDED_SGES pages at most
 */
struct nvmet_rdma_premapped_rw {
	struct ib_rdma_wr	*wrs;
	struct ib_sge		*sges;
	u32			nr_wrs;
	u32			nr_sge;
	struct ib_rdma_wr	wr;
	struct ib_sge		sge[NVMET_RDMA_EMBEDDED_SGES];
};

struct nvmet_rdma_rsp {
	struct ib_sge		send_sge;
	struct ib_cqe		send_cqe;
	struct ib_send_wr	send_wr;
	/* the CQE by its kernel address, for a SEND with IB_SEND_INLINE */
	struct ib_sge		inline_sge;
	/* unsignalled SENDs' send queue credits this SEND's completion returns */
	u32			unsignalled_credits;

	struct nvmet_rdma_cmd	*cmd;
	struct nvmet_rdma_queue	*queue;

	struct ib_cqe		read_cqe;
	struct ib_cqe		write_cqe;
	/* the RDMA READ/WRITE: rdma_rw's, or ours with PREMAPPED_RW */
	union {
		struct rdma_rw_ctx		rw;
		struct nvmet_rdma_premapped_rw	own;
	};

	struct nvmet_req	req;

	bool			allocated;
	u8			n_rdma;
	/*
	 * nvmet_data_dir() of the transfer, taken before its data pages: by
	 * the time its response's SEND completes, req->cmd's receive buffer
	 * may hold the next command (it is posted again before the SEND).
	 */
	enum dma_data_direction	data_dir;
	u32			flags;
	u32			invalidate_rkey;

	struct list_head	wait_list;
	int			tag;
	/*
	 * on its queue's free_rsps while not in use; a discrete one left taken
	 * by a chain posted in part, on its queue's stranded_rsps
	 */
	struct llist_node	free_node;
	bool			in_use;
	/* the scatterlist of a one-page keyed-SGL transfer */
	struct scatterlist	data_sg;
};

enum nvmet_rdma_queue_state {
	NVMET_RDMA_Q_CONNECTING,
	NVMET_RDMA_Q_LIVE,
	NVMET_RDMA_Q_DISCONNECTING,
};

/**
 * enum nvmet_rdma_data_way - how a command's data travels
 * @NVMET_RDMA_DATA_NONE: it has none
 * @NVMET_RDMA_DATA_IN_CAPSULE: in the capsule, after the command
 * @NVMET_RDMA_DATA_KEYED: by RDMA READ or WRITE of the host's memory
 * @NVMET_RDMA_DATA_WAYS: how many there are
 */
enum nvmet_rdma_data_way {
	NVMET_RDMA_DATA_NONE,
	NVMET_RDMA_DATA_IN_CAPSULE,
	NVMET_RDMA_DATA_KEYED,
	NVMET_RDMA_DATA_WAYS
};

/*
 * What a queue counts (Documentation/statistics.md). A command is counted
 * where it is handled and answered, in its CQ's context, in the work that
 * runs the commands that came before the queue was established, and in the
 * backend's completions, so those counters are atomic; the page cache's are
 * written under page_cache_lock, where the cache is.
 */
struct nvmet_rdma_queue_stats {
	/*
	 * Per command: written only where the queue's commands are taken
	 * (its CQ's context; before the queue is live, its wait-list work,
	 * which a host must not race with commands of its own before its
	 * Connect is answered), so plain counters: no locked instruction per
	 * command. A host breaking that rule can only make them miss a count.
	 */
	u64			cmds[NVMEOF_CMD_CLASSES];
	u64			bytes_read;
	u64			bytes_written;
	u64			data[NVMET_RDMA_DATA_WAYS];
	u64			rsps_discrete;	/* the ring was empty */
	atomic64_t		sq_full;
	atomic64_t		status[NVMEOF_STATUS_CLASSES];
	atomic64_t		cmds_rejected;
	atomic64_t		wc_errors;
	atomic64_t		data_uncached;	/* buffers as stock takes them */
	u64			pages_reused;	/* from the page cache */
	u64			pages_new;	/* allocated and mapped for it */
	u64			pages_evicted;	/* given up for the other way */
};

struct nvmet_rdma_queue {
	struct rdma_cm_id	*cm_id;
	struct ib_qp		*qp;
	struct nvmet_port	*port;
	struct ib_cq		*cq;
	atomic_t		sq_wr_avail;
	int			sq_wr_max;	/* sq_wr_avail when idle */
	/* cached data pages stay DMA-mapped, moved by our own WRs (rdma_data.c) */
	bool			premapped;
	/* most pages a premapped RDMA READ takes (more: as stock) */
	u32			premapped_read_pages;
	/*
	 * Responses without data out go in unsignalled inline SENDs, one in
	 * signal_mask + 1 signalled (io.c nvmet_rdma_goes_unsignalled()); the
	 * send queue credits of the unsignalled ones posted since the last
	 * signalled one are held in unsignalled_held. Errors and flushes of
	 * the unsignalled ones, and of a transfer's unsignalled RDMA READs and
	 * WRITEs, complete on unsignalled_cqe.
	 */
	bool			unsignalled_sends;
	/* also SEND_WITH_INV (not iWARP) */
	bool			unsignalled_inv;
	u32			signal_mask;
	atomic_t		unsignalled_count;
	atomic_t		unsignalled_held;
	struct ib_cqe		unsignalled_cqe;
	struct nvmet_rdma_device *dev;
	struct nvmet_rdma_srq   *nsrq;
	spinlock_t		state_lock; /* protects state and rsp_wait_list */
	enum nvmet_rdma_queue_state state;
	struct nvmet_cq		nvme_cq;
	struct nvmet_sq		nvme_sq;

	struct nvmet_rdma_rsp	*rsps;
	/*
	 * Free ring responses, last freed on top (its cache lines are the
	 * warmest). Put from any context; taken only by the queue's receive
	 * completion, which one CQ poller at a time runs: llist_del_first()
	 * needs a single consumer.
	 */
	struct llist_head	free_rsps;
	/*
	 * Discrete responses a chain posted in part left taken: not in the
	 * ring, so the teardown finds them here (the ring's by in_use).
	 */
	struct llist_head	stranded_rsps;
	struct nvmet_rdma_cmd	*cmds;

	struct work_struct	release_work;
	/* runs rsp_wait_list once established (nvmet_rdma_wq) */
	struct work_struct	wait_list_work;
	/* fails the queue after a QP_FATAL event (queue.c) */
	struct work_struct	qp_error_work;
	struct list_head	rsp_wait_list;
	struct list_head	rsp_wr_wait_list;
	spinlock_t		rsp_wr_wait_lock; /* protects rsp_wr_wait_list */

	int			idx;
	int			host_qid;
	int			comp_vector;
	int			recv_queue_size;
	int			send_queue_size;

	/* free data pages kept for reuse by this queue (rdma_data.c) */
	struct nvmeof_page_stack page_cache;
	spinlock_t		page_cache_lock; /* protects page_cache */

	struct list_head	queue_list;
	struct nvmet_rdma_queue_stats stats;
	/* commands that waited for credits, released unanswered as it went */
	atomic_t		waiting_dropped;
	struct dentry		*debugfs_file;	/* its statistics */
};

struct nvmet_rdma_port {
	struct nvmet_port	*nport;
	struct sockaddr_storage addr;
	/*
	 * Guards @cm_id and @removing: whoever takes the listener from
	 * @cm_id destroys it, and a listener's DEVICE_REMOVAL handler, which
	 * hands it to the RDMA CM instead, is done with the port once it
	 * lets go of the lock (port.c, nvmet_rdma_remove_port()).
	 */
	spinlock_t		lock;
	struct rdma_cm_id	*cm_id;
	/* listens again after an address change or a device removal */
	struct delayed_work	repair_work;
	/* set by remove_port: no repair may bring the listener back */
	bool			removing;
};

/*
 * An SRQ is "low" when fewer than 1/NVMET_RDMA_SRQ_LOW_DIV of its receive
 * buffers are posted: hosts may soon wait for receives (RNR NAKs). The
 * device reports it once per arming (IB_EVENT_SRQ_LIMIT_REACHED); it is
 * armed again a second later, so a run of it costs one event a second.
 */
#define NVMET_RDMA_SRQ_LOW_DIV		8

struct nvmet_rdma_srq {
	struct ib_srq            *srq;
	struct nvmet_rdma_cmd    *cmds;
	struct nvmet_rdma_device *ndev;
	int			 idx;
	/* guards @dying: no arming work queued once it is set */
	spinlock_t		 lock;
	bool			 dying;
	struct delayed_work	 arm_work;
	atomic64_t		 low_events;
};

struct nvmet_rdma_device {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct nvmet_rdma_srq	**srqs;
	int			srq_count;
	size_t			srq_size;
	struct kref		ref;
	struct list_head	entry;
	int			in_capsule_size;
	int			in_capsule_pages;
	bool			dma_bounces;	/* a mapping takes a bounce buffer */
};

/**
 * num_pages() - number of pages spanned by a buffer starting on a page
 * @len: buffer length in bytes
 *
 * Return: the number of pages @len bytes occupy from a page boundary (0 for
 * a @len of 0).
 */
static inline int num_pages(int len)
{
	return 1 + (((len - 1) & PAGE_MASK) >> PAGE_SHIFT);
}

/* main.c */
extern bool nvmet_rdma_use_srq;
u32 nvmet_rdma_min_available_mb(void);

/* what nvmet_rdma_memory_fits() weighed, in bytes and MiB */
struct nvmet_rdma_memory_figures {
	u64 caches;	/* the live queues' page caches may still take */
	u64 available;	/* MemAvailable */
	u32 reserve_mb;	/* min_available_mb in force */
};

bool nvmet_rdma_memory_fits(u64 need, struct nvmet_rdma_memory_figures *f);
extern int nvmet_rdma_srq_size;
extern const struct nvmet_fabrics_ops nvmet_rdma_ops;
u8 nvmet_rdma_mdts(bool metadata);
extern struct workqueue_struct *nvmet_rdma_wq;

/* stats.c: the statistics under debugfs */
void nvmet_rdma_stats_init(void);
void nvmet_rdma_stats_exit(void);
void nvmet_rdma_stats_add_queue(struct nvmet_rdma_queue *queue);
void nvmet_rdma_stats_remove_queue(struct nvmet_rdma_queue *queue);

/* port.c */
int nvmet_rdma_add_port(struct nvmet_port *nport);
void nvmet_rdma_remove_port(struct nvmet_port *nport);
void nvmet_rdma_disc_port_addr(struct nvmet_req *req,
			       struct nvmet_port *nport, char *traddr);

/* device.c */
struct nvmet_rdma_device *nvmet_rdma_find_get_device(struct rdma_cm_id *cm_id);
void nvmet_rdma_put_device(struct nvmet_rdma_device *ndev);
bool nvmet_rdma_has_device(struct ib_device *ib_device);
size_t nvmet_rdma_cmds_bytes(const struct nvmet_rdma_device *ndev,
			     int nr_cmds, bool admin);
struct nvmet_rdma_cmd *nvmet_rdma_alloc_cmds(struct nvmet_rdma_device *ndev,
					     int nr_cmds, bool admin);
void nvmet_rdma_free_cmds(struct nvmet_rdma_device *ndev,
			  struct nvmet_rdma_cmd *cmds, int nr_cmds, bool admin);

/* queue.c */
extern struct ida nvmet_rdma_queue_ida;
extern struct list_head nvmet_rdma_queue_list;
extern struct mutex nvmet_rdma_queue_mutex;

size_t nvmet_rdma_queue_buffer_bytes(const struct nvmet_rdma_device *ndev,
				     int recv_queue_size, bool admin,
				     bool srq);
int nvmet_rdma_alloc_rsp(struct nvmet_rdma_device *ndev,
			 struct nvmet_rdma_rsp *r, int tag);
void nvmet_rdma_free_rsp(struct nvmet_rdma_device *ndev,
			 struct nvmet_rdma_rsp *r);

/**
 * nvmet_rdma_put_rsp() - return a response context to its queue
 * @rsp: the response; a discrete one (allocated when the queue's ring was
 *	exhausted) is unmapped and freed, a ring one goes back on top of the
 *	queue's free list
 */
static inline void nvmet_rdma_put_rsp(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_sq *sq = &rsp->queue->nvme_sq;
	bool sq_ref = rsp->flags & NVMET_RDMA_REQ_SQ_REF;

	if (unlikely(rsp->tag == NVMET_RDMA_DISCRETE_RSP_TAG)) {
		nvmet_rdma_free_rsp(rsp->queue->dev, rsp);
		kfree(rsp);
	} else {
		rsp->in_use = false;
		llist_add(&rsp->free_node, &rsp->queue->free_rsps);
	}
	/* last: it may let the queue's teardown go on and free the queue */
	if (unlikely(sq_ref))
		percpu_ref_put(&sq->ref);
}

void __nvmet_rdma_queue_disconnect(struct nvmet_rdma_queue *queue);
void nvmet_rdma_queue_disconnect(struct nvmet_rdma_queue *queue);
void nvmet_rdma_error_comp(struct nvmet_rdma_queue *queue);
void nvmet_rdma_fail_queue_later(struct nvmet_rdma_queue *queue);
ssize_t nvmet_rdma_queue_host_traddr(struct nvmet_rdma_queue *queue,
				     char *buf, size_t len);
int nvmet_rdma_cm_handler(struct rdma_cm_id *cm_id,
			  struct rdma_cm_event *event);
void nvmet_rdma_delete_ctrl(struct nvmet_ctrl *ctrl);
u16 nvmet_rdma_install_queue(struct nvmet_sq *nvme_sq);

/* io.c */
int nvmet_rdma_post_recv(struct nvmet_rdma_device *ndev,
			 struct nvmet_rdma_cmd *cmd);
void nvmet_rdma_free_rsp_resources(struct nvmet_rdma_rsp *rsp);
void nvmet_rdma_drop_wait_list(struct nvmet_rdma_queue *queue);
void nvmet_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc);
void nvmet_rdma_unsignalled_done(struct ib_cq *cq, struct ib_wc *wc);
void nvmet_rdma_queue_response(struct nvmet_req *req);
void nvmet_rdma_read_data_done(struct ib_cq *cq, struct ib_wc *wc);
void nvmet_rdma_write_data_done(struct ib_cq *cq, struct ib_wc *wc);
void nvmet_rdma_handle_command(struct nvmet_rdma_queue *queue,
			       struct nvmet_rdma_rsp *cmd);
void nvmet_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/* rdma_data.c */
int nvmet_rdma_page_cache_init(struct nvmet_rdma_queue *queue);
size_t nvmet_rdma_page_cache_max_bytes(bool io_queue);
size_t nvmet_rdma_page_cache_room_bytes(void);
u32 nvmet_rdma_premapped_read_pages(struct nvmet_rdma_queue *queue);
void nvmet_rdma_page_cache_destroy(struct nvmet_rdma_queue *queue);
int nvmet_rdma_alloc_data_sgl(struct nvmet_rdma_rsp *rsp);
void nvmet_rdma_free_data_sgl(struct nvmet_rdma_rsp *rsp);
int nvmet_rdma_rw_init(struct nvmet_rdma_rsp *rsp, u64 addr, u32 key,
		       struct ib_sig_attrs *sig_attrs);
void nvmet_rdma_rw_destroy(struct nvmet_rdma_rsp *rsp);
struct ib_send_wr *nvmet_rdma_rw_wrs(struct nvmet_rdma_rsp *rsp,
				     struct ib_cqe *cqe,
				     struct ib_send_wr *chain_wr);

#endif /* NVMET_RDMA_H */
