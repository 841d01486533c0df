// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_add_ctrl(): nvme_init_ctrl() split into init and add, commit
 * 3f30a79c2e2c ("nvme: split nvme_init_ctrl into alloc and add") in v6.11.
 */
#include "nvme.h"

int probe(struct nvme_ctrl *ctrl);
int probe(struct nvme_ctrl *ctrl)
{
	return nvme_add_ctrl(ctrl);
}
