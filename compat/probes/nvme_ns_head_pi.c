// SPDX-License-Identifier: GPL-2.0
/*
 * PI format in struct nvme_ns_head (pi_type, pi_size) and
 * nvme_ns_has_pi(head) (6.12; 6.1.192 keeps them in struct nvme_ns).
 */
#include "nvme.h"

bool probe(struct nvme_ns *ns);
bool probe(struct nvme_ns *ns)
{
	return ns->head->pi_type && ns->head->pi_size && nvme_ns_has_pi(ns->head);
}
