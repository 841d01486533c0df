// SPDX-License-Identifier: GPL-2.0
/*
 * blk_rq_map_sg(rq, sglist): the request queue argument dropped (v6.15;
 * Debian's 7.2 has it, its 6.12 not).
 */
#include <linux/blk-mq.h>

int probe(struct request *rq, struct scatterlist *sgl);
int probe(struct request *rq, struct scatterlist *sgl)
{
	return blk_rq_map_sg(rq, sgl);
}
