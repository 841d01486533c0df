// SPDX-License-Identifier: GPL-2.0
/*
 * Pure validation of NVMe/RDMA wire input (see wire.h).
 *
 * Lifted from the NVMe over Fabrics RDMA target.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#include <asm/byteorder.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#include "wire.h"

/**
 * nvmeof_parse_cm_req() - validate the private data of an RDMA CM connect
 *	request (NVMe/RDMA transport specification, "RDMA_CM_REQUEST")
 * @pdata: the private data as received; may be NULL
 * @pdata_len: its length as received
 * @max_queue_size: the deepest I/O queue the target accepts (its CAP.MQES
 *	+ 1); the admin queue is bounded by %NVME_AQ_DEPTH
 * @p: filled in on success
 *
 * Everything here arrives before the host is a controller, and the queue
 * sizes decide how much the target allocates for the connection, so each is
 * bounded before use: a host may not ask for more than the target offers.
 *
 * Return: 0 on success, else the &enum nvme_rdma_cm_status to reject with:
 * %NVME_RDMA_CM_INVALID_LEN for missing or short private data,
 * %NVME_RDMA_CM_INVALID_RECFMT for a record format other than 1.0,
 * %NVME_RDMA_CM_INVALID_HSQSIZE for a submission queue deeper than allowed,
 * %NVME_RDMA_CM_INVALID_HRQSIZE for a receive queue of zero or deeper than
 * allowed.
 */
int nvmeof_parse_cm_req(const void *pdata, u8 pdata_len,
			u32 max_queue_size, struct nvmeof_cm_req_params *p)
{
	const struct nvme_rdma_cm_req *req = pdata;
	u32 max;

	if (!req || pdata_len < sizeof(*req))
		return NVME_RDMA_CM_INVALID_LEN;
	if (le16_to_cpu(req->recfmt) != NVME_RDMA_CM_FMT_1_0)
		return NVME_RDMA_CM_INVALID_RECFMT;

	p->qid = le16_to_cpu(req->qid);
	/* hsqsize is 0's based; widened first so that 0xffff cannot wrap */
	p->recv_queue_size = (u32)le16_to_cpu(req->hsqsize) + 1;
	p->send_queue_size = le16_to_cpu(req->hrqsize);

	max = p->qid ? max_queue_size : NVME_AQ_DEPTH;
	if (p->recv_queue_size > max)
		return NVME_RDMA_CM_INVALID_HSQSIZE;
	/*
	 * Hosts size their receive queue like their submission queue (Linux
	 * sends hrqsize = hsqsize + 1); the admin queue's may be as deep as
	 * an I/O queue: accepted, as stock, so that hosts that connect to
	 * stock connect here.
	 */
	if (!p->send_queue_size || p->send_queue_size > max_queue_size)
		return NVME_RDMA_CM_INVALID_HRQSIZE;

	return 0;
}
