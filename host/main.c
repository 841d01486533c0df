// SPDX-License-Identifier: GPL-2.0
/* placeholder: replaced by the port of the host transport */
#include <linux/module.h>
#include "compat.h"

static int __init nvme_rdma_init_module(void)
{
	return 0;
}

static void __exit nvme_rdma_cleanup_module(void)
{
}

module_init(nvme_rdma_init_module);
module_exit(nvme_rdma_cleanup_module);
MODULE_DESCRIPTION("nvmeof-rdma NVMe over Fabrics RDMA host transport");
MODULE_VERSION(NVMEOF_VERSION);
MODULE_LICENSE("GPL v2");
