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
#include <linux/types.h>

/**
 * enum nvmeof_sgl_kind - how a target handles a command's SGL descriptor
 * @NVMEOF_SGL_INLINE: data block descriptor with an offset: in-capsule data
 * @NVMEOF_SGL_KEYED: keyed data block descriptor with an address
 * @NVMEOF_SGL_KEYED_INVALIDATE: keyed data block descriptor with an address,
 *	whose key the host asks the target to remotely invalidate
 * @NVMEOF_SGL_BAD_SUBTYPE: a data block or keyed data block descriptor with
 *	a subtype the RDMA transport does not support
 * @NVMEOF_SGL_BAD_TYPE: any other descriptor type
 */
enum nvmeof_sgl_kind {
	NVMEOF_SGL_INLINE,
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

u16 nvmeof_classify_sgl(u8 type, enum nvmeof_sgl_kind *kind);
u16 nvmeof_check_inline_sgl(u64 off, u32 len, u32 inline_data_size,
			    u32 received, bool is_write, u16 *error_loc);
int nvmeof_parse_cm_req(const void *pdata, u8 pdata_len,
			u32 max_queue_size, struct nvmeof_cm_req_params *p);

#endif /* NVMEOF_WIRE_H */
