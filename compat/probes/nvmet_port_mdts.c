// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_port.mdts: a port's own transfer cap (configfs param_mdts, 0 for
 * none), which nvmet's Identify takes the smaller of with the transport's
 * get_mdts (v7.1; Debian's 7.2 has it, its 6.12 not).
 */
#include "nvmet.h"

int probe(struct nvmet_port *port);
int probe(struct nvmet_port *port)
{
	return port->mdts;
}
