/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the NVMe/RDMA target (nvmeof-rdma). Queues are named by
 * the host's qid (0 = admin) and the target's queue index (as in its log
 * messages).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvmet_rdma

#if !defined(_NVMET_RDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NVMET_RDMA_TRACE_H

#include <linux/tracepoint.h>

#include "nvmet_rdma.h"
#include "wire.h"

/*
 * nvmet_rdma_map_data - how a command's data travels, once its SGL
 * descriptor is checked: in the capsule, by RDMA READ/WRITE through the
 * host's key (keyed_inv: the host asked for remote invalidation), or
 * refused (status, the NVMe status the command completes with). For keyed
 * data, wrs is the number of RDMA READ/WRITE work requests, and rw says
 * who built them: "premapped" (rdma_data.c, over the queue's mapped pages)
 * or "rdma_rw" (the kernel's, mapping the data for this I/O).
 */
TRACE_EVENT(nvmet_rdma_map_data,
	    TP_PROTO(struct nvmet_rdma_rsp *rsp, enum nvmeof_sgl_kind kind,
		     u32 len, u16 status),
	    TP_ARGS(rsp, kind, len, status),
	    TP_STRUCT__entry(__field(int, queue)
			     __field(u16, qid)
			     __field(u16, cid)
			     __field(u8, opcode)
			     __field(int, kind)
			     __field(u32, len)
			     __field(u16, status)
			     __field(u8, wrs)
			     __field(bool, premapped)),
	    TP_fast_assign(__entry->queue = rsp->queue->idx;
			   __entry->qid = rsp->queue->host_qid;
			   __entry->cid = rsp->req.cmd->common.command_id;
			   __entry->opcode = rsp->req.cmd->common.opcode;
			   __entry->kind = kind;
			   __entry->len = len;
			   __entry->status = status;
			   __entry->wrs = rsp->n_rdma;
			   __entry->premapped = rsp->flags &
				NVMET_RDMA_REQ_PREMAPPED_RW;),
	    TP_printk("queue=%d qid=%u cid=%u opcode=%#x data=%s len=%u status=%#x wrs=%u rw=%s",
		      __entry->queue, __entry->qid, __entry->cid,
		      __entry->opcode,
		      __print_symbolic(__entry->kind,
				       { NVMEOF_SGL_IN_CAPSULE, "in_capsule" },
				       { NVMEOF_SGL_KEYED, "keyed" },
				       { NVMEOF_SGL_KEYED_INVALIDATE, "keyed_inv" },
				       { NVMEOF_SGL_BAD_SUBTYPE, "bad_subtype" },
				       { NVMEOF_SGL_BAD_TYPE, "bad_type" }),
		      __entry->len, __entry->status, __entry->wrs,
		      !__entry->wrs ? "none" :
		      __entry->premapped ? "premapped" : "rdma_rw")
);

/*
 * nvmet_rdma_post_response - a response is about to be posted (before
 * its command's receive buffer is reposted): its command's opcode, its
 * CQE's status, the RDMA WRITEs of read data chained before it (wrs),
 * whether it invalidates the host's key (inv), and whether its SEND is
 * signalled (a completion releases it) or unsignalled (inline, released at
 * once; see unsignalled_responses).
 */
TRACE_EVENT(nvmet_rdma_post_response,
	    TP_PROTO(struct nvmet_rdma_rsp *rsp, bool signalled),
	    TP_ARGS(rsp, signalled),
	    TP_STRUCT__entry(__field(int, queue)
			     __field(u16, qid)
			     __field(u16, cid)
			     __field(u8, opcode)
			     __field(u16, status)
			     __field(u8, wrs)
			     __field(bool, inv)
			     __field(bool, signalled)),
	    TP_fast_assign(__entry->queue = rsp->queue->idx;
			   __entry->qid = rsp->queue->host_qid;
			   __entry->cid = rsp->req.cqe->command_id;
			   __entry->opcode = rsp->req.cmd->common.opcode;
			   __entry->status = le16_to_cpu(rsp->req.cqe->status) >> 1;
			   __entry->wrs = rsp->n_rdma;
			   __entry->inv = rsp->flags &
				NVMET_RDMA_REQ_INVALIDATE_RKEY;
			   __entry->signalled = signalled;),
	    TP_printk("queue=%d qid=%u cid=%u opcode=%#x status=%#x wrs=%u inv=%d send=%s",
		      __entry->queue, __entry->qid, __entry->cid,
		      __entry->opcode, __entry->status, __entry->wrs,
		      __entry->inv,
		      __entry->signalled ? "signalled" : "unsignalled")
);

#endif /* _NVMET_RDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
