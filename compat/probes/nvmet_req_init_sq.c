// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_req_init(req, sq, ops): the CQ comes from the SQ (req->cq =
 * sq->cq), the nvmet CQ rework of v6.16 ("nvmet: Introduce nvmet_sq_create()
 * and nvmet_cq_create()").
 */
#include "nvmet.h"

bool probe(struct nvmet_req *req, struct nvmet_sq *sq,
	   const struct nvmet_fabrics_ops *ops);
bool probe(struct nvmet_req *req, struct nvmet_sq *sq,
	   const struct nvmet_fabrics_ops *ops)
{
	return nvmet_req_init(req, sq, ops);
}
