// SPDX-License-Identifier: GPL-2.0
/*
 * struct nvme_rdma_cm_req.cntlid: the controller ID an I/O queue's
 * connect request names (6.12; reserved bytes in 6.1.192).
 */
#include <linux/types.h>
#include <asm/byteorder.h>
#include <linux/nvme-rdma.h>

void probe(struct nvme_rdma_cm_req *req, u16 cntlid);
void probe(struct nvme_rdma_cm_req *req, u16 cntlid)
{
	req->cntlid = cpu_to_le16(cntlid);
}
