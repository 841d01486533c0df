// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_wait_freeze_timeout(ctrl): the timeout argument dropped for the
 * controller's own io_timeout (settable in sysfs): Debian's 7.2 has it,
 * its 6.12 not.
 */
#include "nvme.h"

int probe(struct nvme_ctrl *ctrl);
int probe(struct nvme_ctrl *ctrl)
{
	return nvme_wait_freeze_timeout(ctrl);
}
