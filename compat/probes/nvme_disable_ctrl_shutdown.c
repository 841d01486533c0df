// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_disable_ctrl(ctrl, shutdown) merged nvme_shutdown_ctrl():
 * commit 285b6e9b5717 ("nvme: merge nvme_shutdown_ctrl into
 * nvme_disable_ctrl") in v6.3.
 */
#include "nvme.h"

int probe(struct nvme_ctrl *ctrl);
int probe(struct nvme_ctrl *ctrl)
{
	return nvme_disable_ctrl(ctrl, false);
}
