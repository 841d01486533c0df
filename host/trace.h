/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the NVMe/RDMA host (nvmeof-rdma). Queue IDs are the NVMe
 * qid (0 = admin) of the controller named by its instance (nvmeN).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvme_rdma

#if !defined(_NVME_RDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NVME_RDMA_TRACE_H

#include <linux/tracepoint.h>

#include "nvme_rdma.h"

/*
 * nvme_rdma_post_batch - commands queued while blk-mq had more to come
 * went out in one ib_post_send() (nvme_rdma_post_pending()).
 */
TRACE_EVENT(nvme_rdma_post_batch,
	    TP_PROTO(struct nvme_rdma_queue *queue, unsigned int nr),
	    TP_ARGS(queue, nr),
	    TP_STRUCT__entry(__field(int, ctrl_id)
			     __field(int, qid)
			     __field(unsigned int, nr)),
	    TP_fast_assign(__entry->ctrl_id = queue->ctrl->ctrl.instance;
			   __entry->qid = nvme_rdma_queue_idx(queue);
			   __entry->nr = nr;),
	    TP_printk("nvme%d qid=%d commands=%u",
		      __entry->ctrl_id, __entry->qid, __entry->nr)
);

/*
 * nvme_rdma_post_send_err - ib_post_send() refused a command's work
 * requests; reg_posted: its REG_MR went in before its SEND was refused.
 */
TRACE_EVENT(nvme_rdma_post_send_err,
	    TP_PROTO(struct nvme_rdma_queue *queue, struct request *rq,
		     int err, bool reg_posted),
	    TP_ARGS(queue, rq, err, reg_posted),
	    TP_STRUCT__entry(__field(int, ctrl_id)
			     __field(int, qid)
			     __field(int, tag)
			     __field(int, err)
			     __field(bool, reg_posted)),
	    TP_fast_assign(__entry->ctrl_id = queue->ctrl->ctrl.instance;
			   __entry->qid = nvme_rdma_queue_idx(queue);
			   __entry->tag = rq->tag;
			   __entry->err = err;
			   __entry->reg_posted = reg_posted;),
	    TP_printk("nvme%d qid=%d tag=%d err=%d reg_posted=%d",
		      __entry->ctrl_id, __entry->qid, __entry->tag,
		      __entry->err, __entry->reg_posted)
);

#endif /* _NVME_RDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
