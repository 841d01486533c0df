// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_start_request(): added by commit 6887fc6495f2 ("nvme: introduce
 * nvme_start_request") in v6.3; Debian's 6.1.y carries the backport.
 */
#include "nvme.h"

void probe(struct request *rq);
void probe(struct request *rq)
{
	nvme_start_request(rq);
}
