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
 * nvmeof_classify_sgl() - classify the SGL descriptor of a command capsule
 * @type: the descriptor's type byte (SGL identifier): descriptor type in
 *	the high nibble, subtype in the low nibble
 * @kind: set to how the descriptor is to be handled, also on failure
 *	(%NVMEOF_SGL_BAD_SUBTYPE or %NVMEOF_SGL_BAD_TYPE)
 *
 * Only a data block descriptor with an offset (in-capsule data) and a keyed
 * data block descriptor with an address, optionally with remote
 * invalidation, are supported.
 *
 * Return: %NVME_SC_SUCCESS; NVME_SC_INVALID_FIELD | NVME_STATUS_DNR for an
 * unsupported subtype; NVME_SC_SGL_INVALID_TYPE | NVME_STATUS_DNR for an
 * unsupported descriptor type. On failure the error location is the
 * command's dptr field.
 */
u16 nvmeof_classify_sgl(u8 type, enum nvmeof_sgl_kind *kind)
{
	switch (type >> 4) {
	case NVME_SGL_FMT_DATA_DESC:
		switch (type & 0xf) {
		case NVME_SGL_FMT_OFFSET:
			*kind = NVMEOF_SGL_INLINE;
			return NVME_SC_SUCCESS;
		default:
			*kind = NVMEOF_SGL_BAD_SUBTYPE;
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		}
	case NVME_KEY_SGL_FMT_DATA_DESC:
		switch (type & 0xf) {
		case NVME_SGL_FMT_ADDRESS | NVME_SGL_FMT_INVALIDATE:
			*kind = NVMEOF_SGL_KEYED_INVALIDATE;
			return NVME_SC_SUCCESS;
		case NVME_SGL_FMT_ADDRESS:
			*kind = NVMEOF_SGL_KEYED;
			return NVME_SC_SUCCESS;
		default:
			*kind = NVMEOF_SGL_BAD_SUBTYPE;
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		}
	default:
		*kind = NVMEOF_SGL_BAD_TYPE;
		return NVME_SC_SGL_INVALID_TYPE | NVME_STATUS_DNR;
	}
}

/**
 * nvmeof_check_inline_sgl() - validate an in-capsule data SGL descriptor
 * @off: the descriptor's offset into the in-capsule data, as sent
 * @len: the descriptor's length, as sent
 * @inline_data_size: bytes of in-capsule data the receive buffers hold
 * @received: bytes of in-capsule data that actually arrived with this
 *	capsule (the receive completion's byte count minus the command)
 * @is_write: whether the command transfers data from host to controller
 * @error_loc: set to the offset of the offending command field when the
 *	failure has one (the opcode, for a non-write); otherwise untouched
 *
 * In-capsule data is only valid for a write, and [@off, @off + @len) must
 * lie within the @inline_data_size bytes the target offers. @off comes from
 * the wire as 64 bits, so the end of the range is computed with overflow
 * checking: an offset near U64_MAX must not wrap around into an accepted
 * range. The range must also have arrived: a capsule shorter than its SGL
 * claims would otherwise hand the backend whatever an earlier capsule left
 * in the receive buffer (with a shared receive queue, another host's data).
 *
 * A zero @len with an in-range @off is valid: the command has no data.
 *
 * Return: %NVME_SC_SUCCESS; NVME_SC_INVALID_FIELD | NVME_STATUS_DNR if
 * !@is_write; NVME_SC_SGL_INVALID_OFFSET | NVME_STATUS_DNR if the range
 * wraps or ends past @inline_data_size; NVME_SC_SGL_INVALID_DATA |
 * NVME_STATUS_DNR if it ends past the @received bytes.
 */
u16 nvmeof_check_inline_sgl(u64 off, u32 len, u32 inline_data_size,
			    u32 received, bool is_write, u16 *error_loc)
{
	u64 end;

	if (!is_write) {
		*error_loc = offsetof(struct nvme_common_command, opcode);
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}

	if (check_add_overflow(off, (u64)len, &end) || end > inline_data_size)
		return NVME_SC_SGL_INVALID_OFFSET | NVME_STATUS_DNR;
	if (end > received)
		return NVME_SC_SGL_INVALID_DATA | NVME_STATUS_DNR;

	return NVME_SC_SUCCESS;
}

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
	 * an I/O queue, which is what stock accepted.
	 */
	if (!p->send_queue_size || p->send_queue_size > max_queue_size)
		return NVME_RDMA_CM_INVALID_HRQSIZE;

	return 0;
}
