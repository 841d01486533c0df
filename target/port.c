// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target: ports (RDMA CM listeners).
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/err.h>
#include <linux/inet.h>
#include <linux/nvme.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <rdma/rdma_cm.h>

#include "nvmet_rdma.h"

static void nvmet_rdma_destroy_port_queues(struct nvmet_rdma_port *port)
{
	struct nvmet_rdma_queue *queue, *tmp;
	struct nvmet_port *nport = port->nport;

	mutex_lock(&nvmet_rdma_queue_mutex);
	list_for_each_entry_safe(queue, tmp, &nvmet_rdma_queue_list,
				 queue_list) {
		if (queue->port != nport)
			continue;

		list_del_init(&queue->queue_list);
		__nvmet_rdma_queue_disconnect(queue);
	}
	mutex_unlock(&nvmet_rdma_queue_mutex);
}

static void nvmet_rdma_disable_port(struct nvmet_rdma_port *port)
{
	struct rdma_cm_id *cm_id;

	spin_lock(&port->lock);
	cm_id = port->cm_id;
	port->cm_id = NULL;
	spin_unlock(&port->lock);
	/* waits for its CM handler, which may be at the lock just taken */
	if (cm_id)
		rdma_destroy_id(cm_id);

	/*
	 * Destroy the remaining queues, which are not belong to any
	 * controller yet. Do it here after the RDMA-CM was destroyed
	 * guarantees that no new queue will be created.
	 */
	nvmet_rdma_destroy_port_queues(port);
}

static int nvmet_rdma_enable_port(struct nvmet_rdma_port *port)
{
	struct sockaddr *addr = (struct sockaddr *)&port->addr;
	struct rdma_cm_id *cm_id;
	int ret;

	cm_id = rdma_create_id(&init_net, nvmet_rdma_cm_handler, port,
			       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		pr_err("CM ID creation failed\n");
		return PTR_ERR(cm_id);
	}

	/*
	 * Allow both IPv4 and IPv6 sockets to bind a single port
	 * at the same time.
	 */
	ret = rdma_set_afonly(cm_id, 1);
	if (ret) {
		pr_err("rdma_set_afonly failed (%d)\n", ret);
		goto out_destroy_id;
	}

	ret = rdma_bind_addr(cm_id, addr);
	if (ret) {
		pr_err("binding CM ID to %pISpcs failed (%d)\n", addr, ret);
		goto out_destroy_id;
	}

	ret = rdma_listen(cm_id, NVMET_RDMA_BACKLOG);
	if (ret) {
		pr_err("listening to %pISpcs failed (%d)\n", addr, ret);
		goto out_destroy_id;
	}

	spin_lock(&port->lock);
	port->cm_id = cm_id;
	spin_unlock(&port->lock);
	return 0;

out_destroy_id:
	rdma_destroy_id(cm_id);
	return ret;
}

static void nvmet_rdma_repair_port_work(struct work_struct *w)
{
	struct nvmet_rdma_port *port = container_of(to_delayed_work(w),
			struct nvmet_rdma_port, repair_work);
	bool removing;
	int ret;

	spin_lock(&port->lock);
	removing = port->removing;
	spin_unlock(&port->lock);
	if (removing)
		return;
	nvmet_rdma_disable_port(port);
	ret = nvmet_rdma_enable_port(port);
	if (ret)
		queue_delayed_work(nvmet_wq, &port->repair_work, 5 * HZ);
	else
		pr_info("port %d (%pISpcs) is listening again\n",
			le16_to_cpu(port->nport->disc_addr.portid),
			(struct sockaddr *)&port->addr);
}

/**
 * nvmet_rdma_add_port() - nvmet_fabrics_ops.add_port: start listening
 * @nport: the nvmet port, its disc_addr giving the address to listen on
 *
 * Also settles the port's inline_data_size: the default if unset, capped
 * to NVMET_RDMA_MAX_IN_CAPSULE_SIZE.
 *
 * Return: 0 or a negative errno.
 */
int nvmet_rdma_add_port(struct nvmet_port *nport)
{
	struct nvmet_rdma_port *port;
	__kernel_sa_family_t af;
	int asked, ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;

	nport->priv = port;
	port->nport = nport;
	spin_lock_init(&port->lock);
	INIT_DELAYED_WORK(&port->repair_work, nvmet_rdma_repair_port_work);

	switch (nport->disc_addr.adrfam) {
	case NVMF_ADDR_FAMILY_IP4:
		af = AF_INET;
		break;
	case NVMF_ADDR_FAMILY_IP6:
		af = AF_INET6;
		break;
	default:
		pr_err("address family %d not supported\n",
		       nport->disc_addr.adrfam);
		ret = -EINVAL;
		goto out_free_port;
	}

	if (nport->inline_data_size < 0) {
		nport->inline_data_size = NVMET_RDMA_DEFAULT_IN_CAPSULE_SIZE;
	} else if (nport->inline_data_size > NVMET_RDMA_MAX_IN_CAPSULE_SIZE) {
		pr_warn("inline_data_size %u is too large, reducing to %u\n",
			nport->inline_data_size,
			NVMET_RDMA_MAX_IN_CAPSULE_SIZE);
		nport->inline_data_size = NVMET_RDMA_MAX_IN_CAPSULE_SIZE;
	}

	asked = nvmeof_port_settle_queue_size(nport,
					      NVME_RDMA_DEFAULT_QUEUE_SIZE,
					      NVME_RDMA_MAX_QUEUE_SIZE);
	if (asked)
		pr_warn("max_queue_size %d is too large, reducing to %u\n",
			asked, NVME_RDMA_MAX_QUEUE_SIZE);

	ret = inet_pton_with_scope(&init_net, af, nport->disc_addr.traddr,
				   nport->disc_addr.trsvcid, &port->addr);
	if (ret) {
		pr_err("malformed ip/port passed: %s:%s\n",
		       nport->disc_addr.traddr, nport->disc_addr.trsvcid);
		goto out_free_port;
	}

	ret = nvmet_rdma_enable_port(port);
	if (ret)
		goto out_free_port;

	pr_info("enabling port %d (%pISpcs)\n",
		le16_to_cpu(nport->disc_addr.portid),
		(struct sockaddr *)&port->addr);

	return 0;

out_free_port:
	kfree(port);
	return ret;
}

/**
 * nvmet_rdma_remove_port() - nvmet_fabrics_ops.remove_port: stop listening
 * @nport: the nvmet port
 *
 * Destroys the listener and disconnects the port's queues that do not
 * belong to a controller yet.
 */
void nvmet_rdma_remove_port(struct nvmet_port *nport)
{
	struct nvmet_rdma_port *port = nport->priv;

	/*
	 * A listener's CM handler queues a repair unless removing is set
	 * (both under port->lock), and a repair already running may create a
	 * new listener. So: set removing; wait out a repair that is running;
	 * destroy the listener, which waits for its handler. A DEVICE_REMOVAL
	 * handler that took the listener first leaves it to the RDMA CM and
	 * is done with the port when it lets go of the lock: disable_port
	 * found no listener to wait for, and the port may go.
	 */
	spin_lock(&port->lock);
	port->removing = true;
	spin_unlock(&port->lock);
	cancel_delayed_work_sync(&port->repair_work);
	nvmet_rdma_disable_port(port);
	cancel_delayed_work_sync(&port->repair_work);
	kfree(port);
}

/**
 * nvmet_rdma_disc_port_addr() - nvmet_fabrics_ops.disc_traddr: the
 *	transport address to report in a discovery log page entry
 * @req: the discovery request
 * @nport: the port being reported
 * @traddr: output buffer of NVMF_TRADDR_SIZE bytes
 *
 * For a port listening on the any address, reports the local address the
 * request arrived on; otherwise the port's configured address.
 */
void nvmet_rdma_disc_port_addr(struct nvmet_req *req,
			       struct nvmet_port *nport, char *traddr)
{
	struct nvmet_rdma_port *port = nport->priv;

	/* the address listened on, also while a repair has no listener */
	if (nvmeof_inet_addr_is_any(&port->addr)) {
		struct nvmet_rdma_rsp *rsp =
			container_of(req, struct nvmet_rdma_rsp, req);
		struct rdma_cm_id *req_cm_id = rsp->queue->cm_id;
		struct sockaddr *addr = (void *)&req_cm_id->route.addr.src_addr;

		sprintf(traddr, "%pISc", addr);
	} else {
		memcpy(traddr, nport->disc_addr.traddr, NVMF_TRADDR_SIZE);
	}
}
