// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_sq_init(sq, cq): nvmet CQ sharing, commit 1eb380caf527 ("nvmet:
 * Introduce nvmet_sq_create() and nvmet_cq_create()") era, v6.16.
 */
#include "nvmet.h"

int probe(struct nvmet_sq *sq, struct nvmet_cq *cq);
int probe(struct nvmet_sq *sq, struct nvmet_cq *cq)
{
	return nvmet_sq_init(sq, cq);
}
