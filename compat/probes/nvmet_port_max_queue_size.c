// SPDX-License-Identifier: GPL-2.0
/*
 * struct nvmet_port.max_queue_size (configfs param_max_queue_size),
 * settled by the transport's add_port (6.12; absent in 6.1.192).
 */
#include "nvmet.h"

int probe(struct nvmet_port *port);
int probe(struct nvmet_port *port)
{
	return port->max_queue_size;
}
