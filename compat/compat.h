/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place where kernel API differences are handled.
 *
 * Every wrapper here tests a HAVE_* macro that compat/conftest.sh produced by
 * compiling a probe against the kernel being built for (see
 * compat/probes/). No kernel version number is compared anywhere. Code in
 * host/, target/ and common/ calls only the nvmeof_* wrappers below for APIs
 * that differ, and contains no #if of its own.
 */
#ifndef NVMEOF_COMPAT_H
#define NVMEOF_COMPAT_H

#include "compat-config.h"

#ifdef HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include <linux/nvme.h>
#include <linux/nvme-rdma.h>
#include <linux/workqueue.h>

/*
 * A per-CPU workqueue names itself so where workqueues are to become
 * unbound by default (alloc_workqueue() warns of one that says neither).
 */
#ifdef HAVE_WQ_PERCPU
#define NVMEOF_WQ_PERCPU	WQ_PERCPU
#else
#define NVMEOF_WQ_PERCPU	0
#endif

/*
 * Where the RDMA queue limit rose to 256, queues with metadata stay at 128
 * and ports default to 128; before, one limit of 128 was all there was.
 */
#ifndef NVME_RDMA_MAX_METADATA_QUEUE_SIZE
#define NVME_RDMA_MAX_METADATA_QUEUE_SIZE	NVME_RDMA_MAX_QUEUE_SIZE
#endif
#ifndef NVME_RDMA_DEFAULT_QUEUE_SIZE
#define NVME_RDMA_DEFAULT_QUEUE_SIZE		NVME_RDMA_MAX_QUEUE_SIZE
#endif

/* A read/write command's application tag and its mask (LBAT, LBATM). */
#ifdef HAVE_NVME_RW_LBAT
#define nvmeof_rw_apptag(rw)	((rw)->lbat)
#define nvmeof_rw_appmask(rw)	((rw)->lbatm)
#else
#define nvmeof_rw_apptag(rw)	((rw)->apptag)
#define nvmeof_rw_appmask(rw)	((rw)->appmask)
#endif

#ifdef NVMEOF_COMPAT_NVME_HOST
#include <linux/blk-mq.h>
#include <linux/blk-integrity.h>
#include "nvme.h"
#include "fabrics.h"

static inline void nvmeof_start_request(struct request *rq)
{
#ifdef HAVE_NVME_START_REQUEST
	nvme_start_request(rq);
#else
	blk_mq_start_request(rq);
#endif
}

static inline void nvmeof_quiesce_io_queues(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_QUIESCE_IO_QUEUES
	nvme_quiesce_io_queues(ctrl);
#else
	nvme_stop_queues(ctrl);
#endif
}

static inline void nvmeof_unquiesce_io_queues(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_QUIESCE_IO_QUEUES
	nvme_unquiesce_io_queues(ctrl);
#else
	nvme_start_queues(ctrl);
#endif
}

static inline void nvmeof_quiesce_admin_queue(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_QUIESCE_IO_QUEUES
	nvme_quiesce_admin_queue(ctrl);
#else
	nvme_stop_admin_queue(ctrl);
#endif
}

static inline void nvmeof_unquiesce_admin_queue(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_QUIESCE_IO_QUEUES
	nvme_unquiesce_admin_queue(ctrl);
#else
	nvme_start_admin_queue(ctrl);
#endif
}

/* Orderly shutdown (CC.SHN) when @shutdown, else a plain disable (CC.EN=0). */
static inline int nvmeof_disable_ctrl(struct nvme_ctrl *ctrl, bool shutdown)
{
#ifdef HAVE_NVME_DISABLE_CTRL_SHUTDOWN
	return nvme_disable_ctrl(ctrl, shutdown);
#else
	return shutdown ? nvme_shutdown_ctrl(ctrl) : nvme_disable_ctrl(ctrl);
#endif
}

static inline int nvmeof_init_ctrl_finish(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_INIT_CTRL_FINISH_WAS_SUSPENDED
	return nvme_init_ctrl_finish(ctrl, false);
#else
	return nvme_init_ctrl_finish(ctrl);
#endif
}

static inline bool nvmeof_should_reconnect(struct nvme_ctrl *ctrl, int status)
{
#ifdef HAVE_NVMF_SHOULD_RECONNECT_STATUS
	return nvmf_should_reconnect(ctrl, status);
#else
	return nvmf_should_reconnect(ctrl);
#endif
}

/*
 * Make an initialised controller visible (its character device and sysfs
 * entries). Where nvme_init_ctrl() does that itself there is nothing to do;
 * where it is split out, a failure leaves a controller to put, not uninit.
 */
static inline int nvmeof_add_ctrl(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_ADD_CTRL
	return nvme_add_ctrl(ctrl);
#else
	return 0;
#endif
}

/*
 * An I/O queue's connect request names its controller where the private
 * data has the field, as stock does on that kernel, so that a target
 * sees the same request from either host.
 */
static inline void nvmeof_cm_req_set_cntlid(struct nvme_rdma_cm_req *req,
					    u16 cntlid)
{
#ifdef HAVE_NVME_RDMA_CM_REQ_CNTLID
	req->cntlid = cpu_to_le16(cntlid);
#endif
}

/* The namespace's protection information format. */
static inline bool nvmeof_ns_has_pi(struct nvme_ns *ns)
{
#ifdef HAVE_NVME_NS_HEAD_PI
	return nvme_ns_has_pi(ns->head);
#else
	return nvme_ns_has_pi(ns);
#endif
}

static inline u8 nvmeof_ns_pi_type(struct nvme_ns *ns)
{
#ifdef HAVE_NVME_NS_HEAD_PI
	return ns->head->pi_type;
#else
	return ns->pi_type;
#endif
}

static inline u16 nvmeof_ns_pi_size(struct nvme_ns *ns)
{
#ifdef HAVE_NVME_NS_HEAD_PI
	return ns->head->pi_size;
#else
	return ns->pi_size;
#endif
}

/* The NUMA node blk-mq's init_request gets: an int where NUMA_NO_NODE fits. */
#ifdef HAVE_BLK_MQ_INIT_REQUEST_INT_NODE
#define nvmeof_numa_node_t	int
#else
#define nvmeof_numa_node_t	unsigned int
#endif

/* A request's data mapped into @sgl: its segment count. */
static inline int nvmeof_rq_map_sg(struct request *rq, struct scatterlist *sgl)
{
#ifdef HAVE_BLK_RQ_MAP_SG_RQ
	return blk_rq_map_sg(rq, sgl);
#else
	return blk_rq_map_sg(rq->q, rq, sgl);
#endif
}

/*
 * Wait for the I/O queues to freeze, for the controller's I/O timeout
 * where it has its own (settable in sysfs), else nvme-core's default.
 * Returns 0 on a timeout, as nvme_wait_freeze_timeout() does.
 */
static inline int nvmeof_wait_freeze_timeout(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_WAIT_FREEZE_TIMEOUT_CTRL
	return nvme_wait_freeze_timeout(ctrl);
#else
	return nvme_wait_freeze_timeout(ctrl, NVME_IO_TIMEOUT);
#endif
}

/*
 * A reconnect succeeded: its count starts again from 0, after adding it to
 * the controller's lifetime count where nvme-core keeps one (sysfs).
 */
static inline void nvmeof_reconnected(struct nvme_ctrl *ctrl)
{
#ifdef HAVE_NVME_CTRL_ACC_RECONNECTS
	atomic_long_add(ctrl->nr_reconnects, &ctrl->acc_reconnects);
#endif
	ctrl->nr_reconnects = 0;
}

/*
 * nvme_ctrl_ops.get_virt_boundary, where nvme-core asks the transport for
 * it (and calls it unchecked): RDMA keeps the controller page boundary its
 * fast registrations need, the value nvme-core used before it asked.
 */
#ifdef HAVE_NVME_CTRL_OPS_GET_VIRT_BOUNDARY
#define NVMEOF_CTRL_OPS_VIRT_BOUNDARY	.get_virt_boundary = nvme_get_virt_boundary,
#else
#define NVMEOF_CTRL_OPS_VIRT_BOUNDARY
#endif

/* Scatterlist entries of a request's integrity payload, and mapping it. */
static inline unsigned int nvmeof_rq_count_integrity_sg(struct request *rq)
{
#ifdef HAVE_BLK_RQ_MAP_INTEGRITY_SG_RQ
	return rq->nr_integrity_segments;
#else
	return blk_rq_count_integrity_sg(rq->q, rq->bio);
#endif
}

static inline int nvmeof_rq_map_integrity_sg(struct request *rq,
					     struct scatterlist *sg)
{
#ifdef HAVE_BLK_RQ_MAP_INTEGRITY_SG_RQ
	return blk_rq_map_integrity_sg(rq, sg);
#else
	return blk_rq_map_integrity_sg(rq->q, rq->bio, sg);
#endif
}
#endif /* NVMEOF_COMPAT_NVME_HOST */

#ifdef NVMEOF_COMPAT_NVMET
#include <linux/inet.h>
#include "nvmet.h"

/*
 * nvmet_sq_init() takes the CQ the SQ completes to once nvmet shares CQs
 * (HAVE_NVMET_SQ_INIT_CQ); before that the CQ is not passed.
 */
static inline int nvmeof_sq_init(struct nvmet_sq *sq, struct nvmet_cq *cq)
{
#ifdef HAVE_NVMET_SQ_INIT_CQ
	return nvmet_sq_init(sq, cq);
#else
	return nvmet_sq_init(sq);
#endif
}

/*
 * The CQ of a queue is reference counted where nvmet shares CQs
 * (HAVE_NVMET_CQ_REFCOUNT): one reference from nvmeof_cq_init(), one that
 * nvmet_sq_init() takes for the SQ; the last nvmeof_cq_put() drops the
 * controller reference that the queue's connect gave the CQ. Elsewhere the
 * CQ is plain data.
 */
static inline void nvmeof_cq_init(struct nvmet_cq *cq)
{
#ifdef HAVE_NVMET_CQ_REFCOUNT
	nvmet_cq_init(cq);
#endif
}

static inline void nvmeof_cq_put(struct nvmet_cq *cq)
{
#ifdef HAVE_NVMET_CQ_REFCOUNT
	nvmet_cq_put(cq);
#endif
}

/* Start a command on @sq, whose CQ is @cq (nvmet finds it itself where it can). */
static inline bool nvmeof_req_init(struct nvmet_req *req, struct nvmet_sq *sq,
				   struct nvmet_cq *cq,
				   const struct nvmet_fabrics_ops *ops)
{
#ifdef HAVE_NVMET_REQ_INIT_SQ
	return nvmet_req_init(req, sq, ops);
#else
	return nvmet_req_init(req, cq, sq, ops);
#endif
}

/*
 * The MDTS a port lets through: the transport's @mdts, or the port's own
 * param_mdts where it has one and it is smaller (nvmet settles it to 0, none,
 * or 1..NVMET_MAX_MDTS when the port is enabled). nvmet's Identify says the
 * same, min_not_zero(get_mdts, port's).
 */
static inline u8 nvmeof_port_mdts(const struct nvmet_port *port, u8 mdts)
{
#ifdef HAVE_NVMET_PORT_MDTS
	if (port && port->mdts > 0 && port->mdts < mdts)
		return port->mdts;
#endif
	return mdts;
}

/* Whether a listening address is the wildcard (INADDR_ANY, in6addr_any). */
static inline bool nvmeof_inet_addr_is_any(struct sockaddr_storage *addr)
{
#ifdef HAVE_INET_ADDR_IS_ANY_STORAGE
	return inet_addr_is_any(addr);
#else
	return inet_addr_is_any((struct sockaddr *)addr);
#endif
}

/*
 * Whether nvmet would give this request peer-to-peer memory (its namespace
 * has p2pmem configured); such requests must use nvmet_req_alloc_sgls().
 * The map exists only with CONFIG_PCI_P2PDMA (off in Debian 6.1).
 */
static inline bool nvmeof_req_may_use_p2pmem(struct nvmet_req *req)
{
#ifdef CONFIG_PCI_P2PDMA
	return req->sq->ctrl && req->sq->qid && req->ns &&
	       radix_tree_lookup(&req->sq->ctrl->p2p_ns_map, req->ns->nsid);
#else
	return false;
#endif
}

/*
 * nvmet_fabrics_ops.host_traddr, where nvmet asks transports for a host's
 * address: the initializer for it, or nothing.
 */
#ifdef HAVE_NVMET_OPS_HOST_TRADDR
#define NVMEOF_OPS_HOST_TRADDR(fn)	.host_traddr = (fn),
#else
#define NVMEOF_OPS_HOST_TRADDR(fn)
#endif

/*
 * A controller's host address as nvmet shows it (its debugfs host_traddr,
 * through the transport's op: nvmet_ctrl_host_traddr(), not exported), or
 * -EOPNOTSUPP where nvmet has no such op.
 */
static inline ssize_t nvmeof_ctrl_host_traddr(struct nvmet_ctrl *ctrl,
					      char *traddr, size_t len)
{
#ifdef HAVE_NVMET_OPS_HOST_TRADDR
	if (ctrl->ops->host_traddr)
		return ctrl->ops->host_traddr(ctrl, traddr, len);
#endif
	return -EOPNOTSUPP;
}

/*
 * The queue depth a port offers: its configurable max_queue_size where the
 * port has one (settled by add_port, see nvmeof_port_settle_queue_size()),
 * else nvmet's fixed NVMET_QUEUE_SIZE (CAP.MQES + 1).
 */
static inline u32 nvmeof_port_queue_size(struct nvmet_port *nport)
{
#ifdef HAVE_NVMET_PORT_MAX_QUEUE_SIZE
	return nport->max_queue_size;
#else
	return NVMET_QUEUE_SIZE;
#endif
}

/*
 * Give a port without a configured max_queue_size the transport's default,
 * and cap a configured one at @max; returns the size it was capped from, or
 * 0. Nothing to settle where ports have no such setting.
 */
static inline int nvmeof_port_settle_queue_size(struct nvmet_port *nport,
						int dflt, int max)
{
#ifdef HAVE_NVMET_PORT_MAX_QUEUE_SIZE
	int asked = nport->max_queue_size;

	if (asked < 0) {
		nport->max_queue_size = dflt;
	} else if (asked > max) {
		nport->max_queue_size = max;
		return asked;
	}
#endif
	return 0;
}
#endif /* NVMEOF_COMPAT_NVMET */

#endif /* NVMEOF_COMPAT_H */
