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

#ifdef NVMEOF_COMPAT_NVME_HOST
#include <linux/blk-mq.h>
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
#endif /* NVMEOF_COMPAT_NVME_HOST */

#ifdef NVMEOF_COMPAT_NVMET
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
#endif /* NVMEOF_COMPAT_NVMET */

#endif /* NVMEOF_COMPAT_H */
