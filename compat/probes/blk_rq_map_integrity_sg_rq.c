// SPDX-License-Identifier: GPL-2.0
/*
 * blk_rq_map_integrity_sg(rq, sg) and rq->nr_integrity_segments for the
 * count (6.12; 6.1.192 takes the queue and the bio).
 */
#include <linux/blk-integrity.h>
#include <linux/blk-mq.h>

int probe(struct request *rq, struct scatterlist *sg);
int probe(struct request *rq, struct scatterlist *sg)
{
	return blk_rq_map_integrity_sg(rq, sg) + rq->nr_integrity_segments;
}
