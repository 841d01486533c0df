// SPDX-License-Identifier: GPL-2.0
/*
 * nvmf_should_reconnect(ctrl, status): commit 51ba6f2b9aa1 ("nvme-fabrics:
 * reconnect only on transient errors") in v6.11.
 */
#include "nvme.h"
#include "fabrics.h"

bool probe(struct nvme_ctrl *ctrl);
bool probe(struct nvme_ctrl *ctrl)
{
	return nvmf_should_reconnect(ctrl, 0);
}
