// SPDX-License-Identifier: GPL-2.0
/* placeholder: replaced by the port of the target transport */
#include <linux/module.h>
#include "compat.h"

static int __init nvmet_rdma_init_module(void)
{
	return 0;
}

static void __exit nvmet_rdma_cleanup_module(void)
{
}

module_init(nvmet_rdma_init_module);
module_exit(nvmet_rdma_cleanup_module);
MODULE_DESCRIPTION("nvmeof-rdma NVMe over Fabrics RDMA target transport");
MODULE_VERSION(NVMEOF_VERSION);
MODULE_LICENSE("GPL v2");
