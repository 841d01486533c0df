/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure validation of NVMe/RDMA wire input, shared by the transports and
 * their KUnit suite: plain integers and <linux/nvme.h> types only, no RDMA
 * verbs and no nvmet state, so that every hostile value can be unit tested.
 *
 * Lifted from the NVMe over Fabrics RDMA target.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#ifndef NVMEOF_WIRE_H
#define NVMEOF_WIRE_H

#include <linux/nvme.h>
#include <linux/nvme-rdma.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#include <linux/types.h>

/**
 * enum nvmeof_sgl_kind - how a target handles a command's SGL descriptor
 * @NVMEOF_SGL_IN_CAPSULE: data block descriptor with an offset: in-capsule data
 * @NVMEOF_SGL_KEYED: keyed data block descriptor with an address
 * @NVMEOF_SGL_KEYED_INVALIDATE: keyed data block descriptor with an address,
 *	whose key the host asks the target to remotely invalidate
 * @NVMEOF_SGL_BAD_SUBTYPE: a data block or keyed data block descriptor with
 *	a subtype the RDMA transport does not support
 * @NVMEOF_SGL_BAD_TYPE: any other descriptor type
 */
enum nvmeof_sgl_kind {
	NVMEOF_SGL_IN_CAPSULE,
	NVMEOF_SGL_KEYED,
	NVMEOF_SGL_KEYED_INVALIDATE,
	NVMEOF_SGL_BAD_SUBTYPE,
	NVMEOF_SGL_BAD_TYPE,
};

/**
 * struct nvmeof_cm_req_params - what a valid RDMA CM connect request asks for
 * @qid: the NVMe queue id (0 = admin queue)
 * @recv_queue_size: commands the host may have outstanding (hsqsize + 1):
 *	the target's receive queue depth
 * @send_queue_size: responses the host can take (hrqsize): the target's
 *	send queue depth
 */
struct nvmeof_cm_req_params {
	u16 qid;
	u32 recv_queue_size;
	u32 send_queue_size;
};

/* The per-command checks are static inline: they run for every command. */

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
static inline u16 nvmeof_classify_sgl(u8 type, enum nvmeof_sgl_kind *kind)
{
	switch (type >> 4) {
	case NVME_SGL_FMT_DATA_DESC:
		switch (type & 0xf) {
		case NVME_SGL_FMT_OFFSET:
			*kind = NVMEOF_SGL_IN_CAPSULE;
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
 * nvmeof_check_in_capsule_sgl() - validate an in-capsule data SGL descriptor
 * @off: the descriptor's offset into the in-capsule data, as sent
 * @len: the descriptor's length, as sent
 * @in_capsule_size: bytes of in-capsule data the receive buffers hold
 * @received: bytes of in-capsule data that actually arrived with this
 *	capsule (the receive completion's byte count minus the command)
 * @is_write: whether the command transfers data from host to controller
 * @error_loc: set to the offset of the offending command field when the
 *	failure has one (the opcode, for a non-write); otherwise untouched
 *
 * In-capsule data is only valid for a write, and [@off, @off + @len) must
 * lie within the @in_capsule_size bytes the target offers. @off comes from
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
 * wraps or ends past @in_capsule_size; NVME_SC_SGL_INVALID_DATA |
 * NVME_STATUS_DNR if it ends past the @received bytes.
 */
static inline u16 nvmeof_check_in_capsule_sgl(u64 off, u32 len,
					      u32 in_capsule_size,
					      u32 received, bool is_write,
					      u16 *error_loc)
{
	u64 end;

	if (!is_write) {
		*error_loc = offsetof(struct nvme_common_command, opcode);
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}

	if (check_add_overflow(off, (u64)len, &end) || end > in_capsule_size)
		return NVME_SC_SGL_INVALID_OFFSET | NVME_STATUS_DNR;
	if (end > received)
		return NVME_SC_SGL_INVALID_DATA | NVME_STATUS_DNR;

	return NVME_SC_SUCCESS;
}

/**
 * nvmeof_check_keyed_sgl_len() - validate the length of a keyed SGL
 *	descriptor before any buffer is taken or RDMA READ posted for it
 * @len: the descriptor's length, as sent (24 bits)
 * @expected: the length the command itself implies (for a read or write:
 *	(NLB + 1) x block size, plus metadata), or 0 if it implies none
 * @max_len: the largest transfer the target advertises (MDTS), in bytes
 *
 * A host may otherwise make the target allocate and RDMA READ up to 16 MiB
 * per command, only for the command to fail its length check once the data
 * is in.
 *
 * Return: %NVME_SC_SUCCESS; NVME_SC_SGL_INVALID_DATA | NVME_STATUS_DNR if
 * @expected is set and @len differs from it (the status the length check
 * after the transfer would give); NVME_SC_INVALID_FIELD | NVME_STATUS_DNR if
 * @len is above @max_len.
 */
static inline u16 nvmeof_check_keyed_sgl_len(u32 len, u32 expected,
					     u32 max_len)
{
	if (expected && len != expected)
		return NVME_SC_SGL_INVALID_DATA | NVME_STATUS_DNR;
	if (len > max_len)
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	return NVME_SC_SUCCESS;
}

/**
 * nvmeof_rw_wire_len() - the bytes a read or write moves through its SGL
 * @data_len: the data, (NLB + 1) x block size
 * @metadata_len: its metadata, (NLB + 1) x metadata size; 0 without
 *	protection information
 * @pract: the command's PRINFO.PRACT bit
 *
 * With PRACT set the controller inserts (write) or strips (read) the
 * protection information -- over RDMA the RNIC's signature offload does --
 * so the host's buffer, and the SGL that describes it, holds the data alone.
 *
 * Return: @data_len with PRACT set, else @data_len + @metadata_len.
 */
static inline u32 nvmeof_rw_wire_len(u32 data_len, u32 metadata_len,
				     bool pract)
{
	return pract ? data_len : data_len + metadata_len;
}

int nvmeof_parse_cm_req(const void *pdata, u8 pdata_len,
			u32 max_queue_size, struct nvmeof_cm_req_params *p);

#endif /* NVMEOF_WIRE_H */
