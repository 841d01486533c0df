// SPDX-License-Identifier: GPL-2.0
/*
 * blk_mq_ops.init_request takes the NUMA node as an int (NUMA_NO_NODE is
 * -1), where it was an unsigned int: Debian's 7.2 has it, its 6.12 not.
 */
#include <linux/blk-mq.h>

static int init_request(struct blk_mq_tag_set *set, struct request *rq,
			unsigned int hctx_idx, int numa_node)
{
	return 0;
}

const struct blk_mq_ops probe = {
	.init_request	= init_request,
};
