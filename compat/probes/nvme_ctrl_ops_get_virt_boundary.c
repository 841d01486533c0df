// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_ctrl_ops.get_virt_boundary, which nvme-core calls for every
 * controller with no NULL check ("nvme: remove virtual boundary for sgl
 * capable devices", v6.19): a transport that leaves it unset crashes.
 */
#include "nvme.h"

const struct nvme_ctrl_ops probe = {
	.get_virt_boundary	= nvme_get_virt_boundary,
};
