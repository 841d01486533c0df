// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_init_ctrl_finish(ctrl, was_suspended): commit 94cc781f69f4 ("nvme:
 * skip the sanitize check after a controller reset") in v6.4.
 */
#include "nvme.h"

int probe(struct nvme_ctrl *ctrl);
int probe(struct nvme_ctrl *ctrl)
{
	return nvme_init_ctrl_finish(ctrl, false);
}
