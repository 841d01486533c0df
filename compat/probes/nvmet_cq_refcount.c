// SPDX-License-Identifier: GPL-2.0
/*
 * A reference-counted nvmet CQ (nvmet_cq_init() sets it to one,
 * nvmet_sq_init() takes one, the last nvmet_cq_put() drops the controller
 * reference a connect gave it), the nvmet CQ rework of v6.16.
 */
#include "nvmet.h"

void probe(struct nvmet_cq *cq);
void probe(struct nvmet_cq *cq)
{
	nvmet_cq_init(cq);
	nvmet_cq_put(cq);
}
