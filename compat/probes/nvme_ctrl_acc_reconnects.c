// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_ctrl.acc_reconnects: the reconnects of the controller's life, which
 * sysfs shows and a transport adds nr_reconnects to before it resets it
 * on a successful reconnect: Debian's 7.2 has it, its 6.12 not.
 */
#include "nvme.h"

void probe(struct nvme_ctrl *ctrl);
void probe(struct nvme_ctrl *ctrl)
{
	atomic_long_add(ctrl->nr_reconnects, &ctrl->acc_reconnects);
}
