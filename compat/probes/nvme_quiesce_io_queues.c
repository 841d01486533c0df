// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_quiesce_io_queues() and friends replace nvme_stop_queues():
 * commit 9f27bd701d18 ("nvme: rename the queue quiescing helpers") in v6.2.
 */
#include "nvme.h"

void probe(struct nvme_ctrl *ctrl);
void probe(struct nvme_ctrl *ctrl)
{
	nvme_quiesce_io_queues(ctrl);
	nvme_unquiesce_io_queues(ctrl);
	nvme_quiesce_admin_queue(ctrl);
	nvme_unquiesce_admin_queue(ctrl);
}
