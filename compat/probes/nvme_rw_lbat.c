// SPDX-License-Identifier: GPL-2.0
/*
 * struct nvme_rw_command.lbat/.lbatm: apptag/appmask under their
 * specification names (6.12; 6.1.192 has apptag/appmask).
 */
#include <linux/types.h>
#include <asm/byteorder.h>
#include <linux/nvme.h>

u16 probe(struct nvme_rw_command *c);
u16 probe(struct nvme_rw_command *c)
{
	return le16_to_cpu(c->lbat) & le16_to_cpu(c->lbatm);
}
