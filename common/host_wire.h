/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure logic of the host's wire handling, shared by nvme-rdma and its KUnit
 * suite: how a request's data travels (in the capsule, through a global
 * rkey or a registered MR), how its SGL descriptor is written, and what a
 * received response may do. Plain integers and <linux/nvme.h> types only, so
 * that every value a target can send is unit tested.
 *
 * Lifted from the NVMe over Fabrics RDMA host.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#ifndef NVMEOF_HOST_WIRE_H
#define NVMEOF_HOST_WIRE_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/nvme.h>
#include <linux/nvme-rdma.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include "compat.h"

/* The keyed SGL data block descriptor's length field is 24 bits wide. */
#define NVMEOF_KEYED_SGL_MAX_LEN	0xffffffu

/* Identify Controller SGLS bits the host looks at */
#define NVMEOF_SGLS_KEYED		BIT(2)
#define NVMEOF_SGLS_OFFSET		BIT(20)

/**
 * nvmeof_host_in_capsule_size() - in-capsule data an I/O queue may send
 * @ioccsz: the controller's I/O queue command capsule size from Identify
 *	Controller, in 16-byte units, command included
 * @sgls: the controller's SGL support field from Identify Controller
 *
 * The capsule must at least hold the 64-byte command (IOCCSZ >= 4 in the
 * specification). For a controller that reports less, ioccsz * 16 - 64
 * in a size_t wraps: every write would "fit" in the capsule and overrun the
 * target's receive buffers. @ioccsz * 16 is computed without wrapping 32
 * bits. In-capsule data is only sent when the
 * controller supports SGL offsets (bit 20 of @sgls).
 *
 * Return: bytes of data an I/O command capsule may carry; 0 when in-capsule
 * data is not to be used; -EINVAL when @ioccsz is below the command's size
 * (the caller warns and sends every write through a keyed SGL).
 */
static inline long nvmeof_host_in_capsule_size(u32 ioccsz, u32 sgls)
{
	u64 capsule = (u64)ioccsz * 16;

	if (capsule < sizeof(struct nvme_command))
		return -EINVAL;
	if (!(sgls & NVMEOF_SGLS_OFFSET))
		return 0;
	return min_t(u64, capsule - sizeof(struct nvme_command), U32_MAX);
}

/**
 * nvmeof_host_capsule_fits() - whether the controller's I/O command capsule
 *	fits in one RDMA message
 * @ioccsz: the controller's I/O queue command capsule size from Identify
 *	Controller, in 16-byte units
 * @max_msg_sz: the largest message the RDMA port carries (the max_msg_sz
 *	of its &struct ib_port_attr)
 *
 * A capsule travels in one SEND. A controller whose capsules are larger
 * than any SEND the port can carry (IOCCSZ 0xffffffff is a 64 GiB capsule)
 * reports something no RDMA target can receive, and in-capsule data sized
 * from it would fail every receive. @ioccsz * 16 is computed in 64 bits.
 *
 * Return: true if an @ioccsz capsule fits in a @max_msg_sz message.
 */
static inline bool nvmeof_host_capsule_fits(u32 ioccsz, u32 max_msg_sz)
{
	return (u64)ioccsz * 16 <= max_msg_sz;
}

/**
 * nvmeof_host_hctx_queue() - the controller queue behind a blk-mq hardware
 *	context of the I/O tag set
 * @hctx_idx: the hardware context's index in the I/O tag set
 * @queue_count: the controller's queues, the admin queue (index 0) included
 *
 * I/O queue hctx_idx + 1 serves hardware context hctx_idx, so the last
 * context that can exist is queue_count - 2 (checking hctx_idx against
 * queue_count lets one through, one past the end of the queue array).
 *
 * Return: the queue's index, or -EINVAL if there is no such I/O queue.
 */
static inline int nvmeof_host_hctx_queue(unsigned int hctx_idx,
					 unsigned int queue_count)
{
	if (hctx_idx >= queue_count || hctx_idx + 1 >= queue_count)
		return -EINVAL;
	return hctx_idx + 1;
}

/**
 * nvmeof_host_check_cm_rep() - validate the private data of a controller's
 *	RDMA CM accept (NVMe/RDMA transport specification, "RDMA_CM_ACCEPT")
 * @pdata: the private data as received; may be NULL
 * @pdata_len: its length as received
 *
 * An accept the host cannot read
 * (too short, another record format) or whose controller has no receive
 * queue at all (CRQSIZE 0) can carry no command. A CRQSIZE below the
 * host's submission queue is not refused here: the host's sends then wait
 * on receiver-not-ready retries, which is slow but works: accepted, as
 * stock, so that such a target keeps working (the caller warns). On IB and
 * RoCE the CM pads private data with zeros, so a short accept there reads
 * as CRQSIZE 0; only iWARP shows the real length.
 *
 * Return: 0 if the accept is usable; -EMSGSIZE for missing or short private
 * data; -EPROTONOSUPPORT for a record format other than 1.0 (0); -ERANGE
 * for a CRQSIZE of 0.
 */
static inline int nvmeof_host_check_cm_rep(const void *pdata, u8 pdata_len)
{
	const struct nvme_rdma_cm_rep *rep = pdata;

	if (!rep || pdata_len < sizeof(*rep))
		return -EMSGSIZE;
	if (le16_to_cpu(rep->recfmt) != NVME_RDMA_CM_FMT_1_0)
		return -EPROTONOSUPPORT;
	if (!le16_to_cpu(rep->crqsize))
		return -ERANGE;
	return 0;
}

/**
 * enum nvmeof_data_map - how a request's data is described to the target
 * @NVMEOF_MAP_NONE: no data: a null keyed SGL descriptor
 * @NVMEOF_MAP_PI: an integrity (signature) MR covering data and metadata
 * @NVMEOF_MAP_IN_CAPSULE: the data follows the command in the capsule
 * @NVMEOF_MAP_GLOBAL_RKEY: one segment, addressed through the PD's global
 *	rkey (only when the module was told registration is not required)
 * @NVMEOF_MAP_MR: a fast-registered MR, invalidated after the command
 * @NVMEOF_DATA_MAPS: how many there are
 */
enum nvmeof_data_map {
	NVMEOF_MAP_NONE,
	NVMEOF_MAP_PI,
	NVMEOF_MAP_IN_CAPSULE,
	NVMEOF_MAP_GLOBAL_RKEY,
	NVMEOF_MAP_MR,
	NVMEOF_DATA_MAPS
};

/**
 * struct nvmeof_data_req - what decides how a request's data travels
 * @nr_segments: DMA-mapped data segments (0: the request has no data)
 * @payload: bytes of data
 * @is_write: data goes from host to controller
 * @use_pi: the request carries protection information through a
 *	signature MR
 * @in_capsule_size: in-capsule bytes the queue may send (0 on the admin
 *	queue and when the controller does not take in-capsule data)
 * @max_in_capsule_segments: data segments a SEND can carry besides the command
 * @global_rkey: the PD has an unsafe global rkey
 */
struct nvmeof_data_req {
	unsigned int nr_segments;
	u32 payload;
	bool is_write;
	bool use_pi;
	u32 in_capsule_size;
	unsigned int max_in_capsule_segments;
	bool global_rkey;
};

/**
 * nvmeof_choose_data_map() - choose how a request's data travels
 * @r: the request and queue facts
 *
 * As stock decides, so that a target sees the same descriptors from either
 * host: a write that fits in the capsule and in the SEND's scatter/gather
 * entries goes in-capsule; otherwise one segment may use the global rkey
 * when it exists; otherwise the data is registered.
 *
 * Return: the &enum nvmeof_data_map to use.
 */
static inline enum nvmeof_data_map
nvmeof_choose_data_map(const struct nvmeof_data_req *r)
{
	if (!r->nr_segments)
		return NVMEOF_MAP_NONE;
	if (r->use_pi)
		return NVMEOF_MAP_PI;
	if (r->nr_segments <= r->max_in_capsule_segments) {
		if (r->is_write && r->in_capsule_size &&
		    r->payload <= r->in_capsule_size)
			return NVMEOF_MAP_IN_CAPSULE;
		if (r->nr_segments == 1 && r->global_rkey)
			return NVMEOF_MAP_GLOBAL_RKEY;
	}
	return NVMEOF_MAP_MR;
}

/**
 * nvmeof_put_keyed_sgl() - write a keyed data block SGL descriptor
 * @sg: the command's descriptor
 * @addr: the address the target reads or writes (an MR's iova)
 * @len: bytes to transfer
 * @key: the rkey
 * @invalidate: ask the target to invalidate @key remotely with its response
 *
 * Return: 0; -EINVAL (descriptor untouched) if @len does not fit the 24-bit
 * length field: truncating it would move the wrong amount of data.
 */
static inline int nvmeof_put_keyed_sgl(struct nvme_keyed_sgl_desc *sg,
				       u64 addr, u32 len, u32 key,
				       bool invalidate)
{
	if (len > NVMEOF_KEYED_SGL_MAX_LEN)
		return -EINVAL;
	sg->addr = cpu_to_le64(addr);
	put_unaligned_le24(len, sg->length);
	put_unaligned_le32(key, sg->key);
	sg->type = NVME_KEY_SGL_FMT_DATA_DESC << 4;
	if (invalidate)
		sg->type |= NVME_SGL_FMT_INVALIDATE;
	return 0;
}

/**
 * nvmeof_put_in_capsule_sgl() - write an in-capsule data block SGL descriptor
 * @sg: the command's descriptor
 * @offset: where the data starts in the capsule's data area (ICDOFF)
 * @len: bytes of in-capsule data
 */
static inline void nvmeof_put_in_capsule_sgl(struct nvme_sgl_desc *sg,
					     u32 offset, u32 len)
{
	sg->addr = cpu_to_le64(offset);
	sg->length = cpu_to_le32(len);
	sg->type = (NVME_SGL_FMT_DATA_DESC << 4) | NVME_SGL_FMT_OFFSET;
}

/**
 * nvmeof_host_mr_access() - the remote access a request's MR grants
 * @is_write: data goes from host to controller
 *
 * Each MR opens only the direction its command needs: the target reads a
 * write's data and writes a read's (remote write needs local write too),
 * so that a target cannot overwrite the source buffer of a write.
 *
 * Return: the IB_ACCESS_* flags for the registration.
 */
static inline int nvmeof_host_mr_access(bool is_write)
{
	return is_write ? IB_ACCESS_REMOTE_READ :
			  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
}

/**
 * nvmeof_host_rsp_len_ok() - whether a received response is long enough
 * @byte_len: bytes the receive completion reports
 *
 * Longer responses cannot arrive: the receive buffer holds one completion
 * queue entry, and the device fails a longer SEND with a length error.
 *
 * Return: true if a whole completion queue entry arrived.
 */
static inline bool nvmeof_host_rsp_len_ok(u32 byte_len)
{
	return byte_len >= sizeof(struct nvme_completion);
}

/**
 * enum nvmeof_rsp_action - what a response for a known command id does
 * @NVMEOF_RSP_END: end the request (its MR, if any, is invalid already)
 * @NVMEOF_RSP_LOCAL_INV: invalidate the request's MR locally; its
 *	completion ends the request
 * @NVMEOF_RSP_NOT_OUTSTANDING: the command has already had its response,
 *	or was never issued: ignore it and recover the controller
 * @NVMEOF_RSP_BOGUS_INV: the target invalidated a key this command does
 *	not hold: the request's MR may still be open to the target, so the
 *	request is not ended here but by error recovery, after the queue pair
 *	has stopped
 */
enum nvmeof_rsp_action {
	NVMEOF_RSP_END,
	NVMEOF_RSP_LOCAL_INV,
	NVMEOF_RSP_NOT_OUTSTANDING,
	NVMEOF_RSP_BOGUS_INV,
};

/**
 * nvmeof_host_rsp_action() - decide what a response does to its request
 * @outstanding: the request was issued and has had no response yet
 * @has_mr: the request's data is in a registered MR
 * @mr_rkey: that MR's rkey (ignored without @has_mr)
 * @remote_inv: the response came as SEND with Invalidate
 * @inv_rkey: the rkey the target invalidated (ignored without @remote_inv)
 *
 * Return: the &enum nvmeof_rsp_action to take.
 */
static inline enum nvmeof_rsp_action
nvmeof_host_rsp_action(bool outstanding, bool has_mr, u32 mr_rkey,
		       bool remote_inv, u32 inv_rkey)
{
	if (!outstanding)
		return NVMEOF_RSP_NOT_OUTSTANDING;
	if (remote_inv)
		return has_mr && inv_rkey == mr_rkey ?
			NVMEOF_RSP_END : NVMEOF_RSP_BOGUS_INV;
	return has_mr ? NVMEOF_RSP_LOCAL_INV : NVMEOF_RSP_END;
}

#endif /* NVMEOF_HOST_WIRE_H */
