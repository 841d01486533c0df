// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target: devices. One struct nvmet_rdma_device per
 * ib_device that queues connect through, shared by them and freed with the
 * last one: its protection domain, the in-capsule data a receive buffer
 * holds on it (a port's size, reduced to what the device's receive SGEs
 * take), its shared receive queues (use_srq), and the rings of command
 * buffers that receive into those or into a queue's own receive queue.
 * Copyright (c) 2015-2016 HGST, a Western Digital Company.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/swiotlb.h>

#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <linux/nvme-rdma.h>
#include "nvmet_rdma.h"
#include "in_capsule.h"

static LIST_HEAD(nvmet_rdma_device_list);
/* protects nvmet_rdma_device_list */
static DEFINE_MUTEX(nvmet_rdma_device_list_mutex);

static void nvmet_rdma_free_in_capsule_pages(struct nvmet_rdma_device *ndev,
					     struct nvmet_rdma_cmd *c)
{
	struct scatterlist *sg;
	struct ib_sge *sge;
	int i;

	if (!ndev->in_capsule_size)
		return;

	sg = c->in_capsule_sg;
	sge = &c->sge[1];

	for (i = 0; i < ndev->in_capsule_pages; i++, sg++, sge++) {
		if (sge->length)
			ib_dma_unmap_page(ndev->device, sge->addr,
					  sge->length, DMA_FROM_DEVICE);
		if (sg_page(sg))
			__free_page(sg_page(sg));
	}
}

static int nvmet_rdma_alloc_in_capsule_pages(struct nvmet_rdma_device *ndev,
					     struct nvmet_rdma_cmd *c)
{
	struct scatterlist *sg;
	struct ib_sge *sge;
	struct page *pg;
	int len;
	int i;

	if (!ndev->in_capsule_size)
		return 0;

	sg = c->in_capsule_sg;
	sg_init_table(sg, ndev->in_capsule_pages);
	sge = &c->sge[1];
	len = ndev->in_capsule_size;

	for (i = 0; i < ndev->in_capsule_pages; i++, sg++, sge++) {
		pg = alloc_page(GFP_KERNEL);
		if (!pg)
			goto out_err;
		sg_assign_page(sg, pg);
		sge->addr = ib_dma_map_page(ndev->device,
					    pg, 0, PAGE_SIZE, DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ndev->device, sge->addr))
			goto out_err;
		sge->length = min_t(int, len, PAGE_SIZE);
		sge->lkey = ndev->pd->local_dma_lkey;
		len -= sge->length;
	}

	return 0;
out_err:
	for (; i >= 0; i--, sg--, sge--) {
		if (sge->length)
			ib_dma_unmap_page(ndev->device, sge->addr,
					  sge->length, DMA_FROM_DEVICE);
		if (sg_page(sg))
			__free_page(sg_page(sg));
	}
	return -ENOMEM;
}

static int nvmet_rdma_alloc_cmd(struct nvmet_rdma_device *ndev,
				struct nvmet_rdma_cmd *c, bool admin)
{
	/* NVMe command / RDMA RECV */
	c->nvme_cmd = kmalloc(sizeof(*c->nvme_cmd), GFP_KERNEL);
	if (!c->nvme_cmd)
		goto out;

	c->sge[0].addr = ib_dma_map_single(ndev->device, c->nvme_cmd,
					   sizeof(*c->nvme_cmd), DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ndev->device, c->sge[0].addr))
		goto out_free_cmd;

	c->sge[0].length = sizeof(*c->nvme_cmd);
	c->sge[0].lkey = ndev->pd->local_dma_lkey;

	if (!admin && nvmet_rdma_alloc_in_capsule_pages(ndev, c))
		goto out_unmap_cmd;

	c->cqe.done = nvmet_rdma_recv_done;

	c->wr.wr_cqe = &c->cqe;
	c->wr.sg_list = c->sge;
	c->wr.num_sge = admin ? 1 : ndev->in_capsule_pages + 1;

	return 0;

out_unmap_cmd:
	ib_dma_unmap_single(ndev->device, c->sge[0].addr,
			    sizeof(*c->nvme_cmd), DMA_FROM_DEVICE);
out_free_cmd:
	kfree(c->nvme_cmd);

out:
	return -ENOMEM;
}

static void nvmet_rdma_free_cmd(struct nvmet_rdma_device *ndev,
				struct nvmet_rdma_cmd *c, bool admin)
{
	if (!admin)
		nvmet_rdma_free_in_capsule_pages(ndev, c);
	ib_dma_unmap_single(ndev->device, c->sge[0].addr,
			    sizeof(*c->nvme_cmd), DMA_FROM_DEVICE);
	kfree(c->nvme_cmd);
}

/**
 * nvmet_rdma_cmds_bytes() - the memory a ring of command buffers holds
 * @ndev: the device they receive on
 * @nr_cmds: how many
 * @admin: as for nvmet_rdma_alloc_cmds()
 *
 * Return: the bytes nvmet_rdma_alloc_cmds() asks for, as its allocations
 * ask (slab rounding not counted): the statistics' memory held.
 */
size_t nvmet_rdma_cmds_bytes(const struct nvmet_rdma_device *ndev,
			     int nr_cmds, bool admin)
{
	size_t pages = admin ? 0 : ndev->in_capsule_pages;

	return nr_cmds * (sizeof(struct nvmet_rdma_cmd) +
			  (pages + 1) * sizeof(struct ib_sge) +
			  pages * sizeof(struct scatterlist) +
			  sizeof(struct nvme_command) + pages * PAGE_SIZE);
}

/**
 * nvmet_rdma_alloc_cmds() - allocate a ring of command buffers, mapped
 * @ndev: the device they receive on
 * @nr_cmds: how many
 * @admin: for an admin queue: the command only, no in-capsule data pages
 *
 * Return: the array, or an ERR_PTR().
 */
struct nvmet_rdma_cmd *
nvmet_rdma_alloc_cmds(struct nvmet_rdma_device *ndev,
		      int nr_cmds, bool admin)
{
	int pages = admin ? 0 : ndev->in_capsule_pages;
	struct scatterlist *sgs = NULL;
	struct nvmet_rdma_cmd *cmds;
	struct ib_sge *sges;
	int ret = -ENOMEM, i;

	/*
	 * The SGE and scatterlist arrays are sized by the device's in-capsule
	 * pages (up to 16 a buffer, with an SRQ 1024 buffers and more): one
	 * array each for all the buffers, vmalloc'ed if need be (the CPU
	 * only reads them, when it posts a receive).
	 */
	cmds = kvcalloc(nr_cmds, sizeof(*cmds), GFP_KERNEL);
	sges = kvcalloc(nr_cmds, array_size(pages + 1, sizeof(*sges)),
			GFP_KERNEL);
	if (pages)
		sgs = kvcalloc(nr_cmds, array_size(pages, sizeof(*sgs)),
			       GFP_KERNEL);
	if (!cmds || !sges || (pages && !sgs))
		goto out_free_arrays;

	for (i = 0; i < nr_cmds; i++) {
		cmds[i].sge = &sges[i * (pages + 1)];
		cmds[i].in_capsule_sg = pages ? &sgs[i * pages] : NULL;
		ret = nvmet_rdma_alloc_cmd(ndev, cmds + i, admin);
		if (ret)
			goto out_free;
	}

	return cmds;

out_free:
	while (--i >= 0)
		nvmet_rdma_free_cmd(ndev, cmds + i, admin);
out_free_arrays:
	kvfree(sgs);
	kvfree(sges);
	kvfree(cmds);
	return ERR_PTR(ret);
}

/**
 * nvmet_rdma_free_cmds() - unmap and free what nvmet_rdma_alloc_cmds() gave
 * @ndev: the device they receive on
 * @cmds: the ring
 * @nr_cmds: its entries
 * @admin: as given to nvmet_rdma_alloc_cmds()
 */
void nvmet_rdma_free_cmds(struct nvmet_rdma_device *ndev,
			  struct nvmet_rdma_cmd *cmds, int nr_cmds,
			  bool admin)
{
	int i;

	for (i = 0; i < nr_cmds; i++)
		nvmet_rdma_free_cmd(ndev, cmds + i, admin);
	kvfree(cmds[0].in_capsule_sg);
	kvfree(cmds[0].sge);
	kvfree(cmds);
}

/* the receive buffers posted below which an SRQ is low */
static u32 nvmet_rdma_srq_low_mark(const struct nvmet_rdma_device *ndev)
{
	return max_t(u32, ndev->srq_size / NVMET_RDMA_SRQ_LOW_DIV, 1);
}

/* arm the SRQ's low mark (the device then reports it once) */
static void nvmet_rdma_srq_arm(struct work_struct *work)
{
	struct nvmet_rdma_srq *nsrq = container_of(to_delayed_work(work),
						   struct nvmet_rdma_srq,
						   arm_work);
	struct ib_srq_attr attr = {
		.srq_limit = nvmet_rdma_srq_low_mark(nsrq->ndev),
	};
	int ret;

	ret = ib_modify_srq(nsrq->srq, &attr, IB_SRQ_LIMIT);
	if (ret)
		pr_info("%s: SRQ %d: no low-mark event (%d): a shortage of receive buffers goes unreported\n",
			dev_name(&nsrq->ndev->device->dev), nsrq->idx, ret);
}

/* the device's events of an SRQ; may come in interrupt context */
static void nvmet_rdma_srq_event(struct ib_event *event, void *context)
{
	struct nvmet_rdma_srq *nsrq = context;
	unsigned long flags;

	if (event->event != IB_EVENT_SRQ_LIMIT_REACHED) {
		pr_err("%s: SRQ %d: %s (%d)\n",
		       dev_name(&nsrq->ndev->device->dev), nsrq->idx,
		       ib_event_msg(event->event), event->event);
		return;
	}
	atomic64_inc(&nsrq->low_events);
	pr_warn_ratelimited("%s: SRQ %d low: fewer than %u of its %zu receive buffers posted; hosts may wait (RNR) for the target: raise srq_size\n",
			    dev_name(&nsrq->ndev->device->dev), nsrq->idx,
			    nvmet_rdma_srq_low_mark(nsrq->ndev),
			    nsrq->ndev->srq_size);
	spin_lock_irqsave(&nsrq->lock, flags);
	if (!nsrq->dying)
		queue_delayed_work(nvmet_rdma_wq, &nsrq->arm_work, HZ);
	spin_unlock_irqrestore(&nsrq->lock, flags);
}

static void nvmet_rdma_destroy_srq(struct nvmet_rdma_srq *nsrq)
{
	/* no arming after this: it would modify a destroyed SRQ */
	spin_lock_irq(&nsrq->lock);
	nsrq->dying = true;
	spin_unlock_irq(&nsrq->lock);
	cancel_delayed_work_sync(&nsrq->arm_work);

	nvmet_rdma_free_cmds(nsrq->ndev, nsrq->cmds, nsrq->ndev->srq_size,
			     false);
	ib_destroy_srq(nsrq->srq);

	kfree(nsrq);
}

static void nvmet_rdma_destroy_srqs(struct nvmet_rdma_device *ndev)
{
	int i;

	if (!ndev->srqs)
		return;

	for (i = 0; i < ndev->srq_count; i++)
		nvmet_rdma_destroy_srq(ndev->srqs[i]);

	kfree(ndev->srqs);
}

static struct nvmet_rdma_srq *
nvmet_rdma_init_srq(struct nvmet_rdma_device *ndev, int idx)
{
	struct ib_srq_init_attr srq_attr = { NULL, };
	size_t srq_size = ndev->srq_size;
	struct nvmet_rdma_srq *nsrq;
	struct ib_srq *srq;
	int ret, i;

	nsrq = kzalloc(sizeof(*nsrq), GFP_KERNEL);
	if (!nsrq)
		return ERR_PTR(-ENOMEM);

	srq_attr.attr.max_wr = srq_size;
	srq_attr.attr.max_sge = 1 + ndev->in_capsule_pages;
	srq_attr.attr.srq_limit = 0;
	srq_attr.srq_type = IB_SRQT_BASIC;
	srq_attr.event_handler = nvmet_rdma_srq_event;
	srq_attr.srq_context = nsrq;
	nsrq->idx = idx;
	nsrq->ndev = ndev;
	spin_lock_init(&nsrq->lock);
	INIT_DELAYED_WORK(&nsrq->arm_work, nvmet_rdma_srq_arm);
	atomic64_set(&nsrq->low_events, 0);
	srq = ib_create_srq(ndev->pd, &srq_attr);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto out_free;
	}

	nsrq->cmds = nvmet_rdma_alloc_cmds(ndev, srq_size, false);
	if (IS_ERR(nsrq->cmds)) {
		ret = PTR_ERR(nsrq->cmds);
		goto out_destroy_srq;
	}

	nsrq->srq = srq;

	for (i = 0; i < srq_size; i++) {
		nsrq->cmds[i].nsrq = nsrq;
		ret = nvmet_rdma_post_recv(ndev, &nsrq->cmds[i]);
		if (ret)
			goto out_free_cmds;
	}
	/* once full: armed on an empty SRQ it would fire at once */
	nvmet_rdma_srq_arm(&nsrq->arm_work.work);

	return nsrq;

out_free_cmds:
	nvmet_rdma_free_cmds(ndev, nsrq->cmds, srq_size, false);
out_destroy_srq:
	ib_destroy_srq(srq);
out_free:
	kfree(nsrq);
	return ERR_PTR(ret);
}

/* use_srq takes effect only on a device that has SRQs */
static bool nvmet_rdma_srqs_usable(const struct ib_device_attr *attrs)
{
	return nvmet_rdma_use_srq && attrs->max_srq && attrs->max_srq_wr;
}

/*
 * The shared receive queues' buffers (srq_size of them per SRQ, an SRQ per
 * completion vector: with large in-capsule data, hundreds of MiB) are held
 * to the memory reserve as a queue's are (queue.c,
 * nvmet_rdma_queue_fits_memory()). When they do not fit, the device goes
 * without them, as one that has no SRQs: its queues get receive buffers of
 * their own, each admitted against the reserve by itself.
 */
static bool nvmet_rdma_srqs_fit_memory(struct nvmet_rdma_device *ndev)
{
	u64 need = (u64)ndev->srq_count *
		   nvmet_rdma_cmds_bytes(ndev, ndev->srq_size, false);
	struct nvmet_rdma_memory_figures f;

	if (nvmet_rdma_memory_fits(need, &f))
		return true;
	pr_warn("%s: no shared receive queues: their buffers need %llu KiB and the queues admitted before may still take %llu KiB for their page caches, %llu KiB of memory is available and min_available_mb keeps %u MiB; each queue gets its own (a smaller srq_size needs less)\n",
		dev_name(&ndev->device->dev), need >> 10, f.caches >> 10,
		f.available >> 10, f.reserve_mb);
	return false;
}

static int nvmet_rdma_init_srqs(struct nvmet_rdma_device *ndev)
{
	int i, ret;

	if (!nvmet_rdma_srqs_usable(&ndev->device->attrs)) {
		/*
		 * If SRQs aren't supported we just go ahead and use normal
		 * non-shared receive queues.
		 */
		pr_info("SRQ requested but not supported.\n");
		return 0;
	}

	/* min_t: the device's limits are u32 from 7.3 on, int before */
	ndev->srq_size = min_t(int, ndev->device->attrs.max_srq_wr,
			       nvmet_rdma_srq_size);
	ndev->srq_count = min_t(int, ndev->device->num_comp_vectors,
				ndev->device->attrs.max_srq);
	if (!nvmet_rdma_srqs_fit_memory(ndev))
		return 0;

	ndev->srqs = kcalloc(ndev->srq_count, sizeof(*ndev->srqs), GFP_KERNEL);
	if (!ndev->srqs)
		return -ENOMEM;

	for (i = 0; i < ndev->srq_count; i++) {
		ndev->srqs[i] = nvmet_rdma_init_srq(ndev, i);
		if (IS_ERR(ndev->srqs[i])) {
			ret = PTR_ERR(ndev->srqs[i]);
			goto err_srq;
		}
	}

	return 0;

err_srq:
	while (--i >= 0)
		nvmet_rdma_destroy_srq(ndev->srqs[i]);
	kfree(ndev->srqs);
	return ret;
}

static void nvmet_rdma_free_dev(struct kref *ref)
{
	struct nvmet_rdma_device *ndev =
		container_of(ref, struct nvmet_rdma_device, ref);

	mutex_lock(&nvmet_rdma_device_list_mutex);
	list_del(&ndev->entry);
	mutex_unlock(&nvmet_rdma_device_list_mutex);

	nvmet_rdma_destroy_srqs(ndev);
	ib_dealloc_pd(ndev->pd);

	kfree(ndev);
}

/*
 * The receive buffers of a device are sized by the first port that used it.
 * A port with a larger param_inline_data_size would advertise (in IOCCSZ)
 * more in-capsule data than those buffers hold, and its hosts' writes would
 * fail; advertise what the device holds instead, and say so. This runs when
 * the first queue of a connection arrives, before the host reads IOCCSZ.
 */
static void nvmet_rdma_fit_port_in_capsule(struct nvmet_port *nport,
					   struct nvmet_rdma_device *ndev)
{
	if (nport->inline_data_size <= ndev->in_capsule_size)
		return;
	pr_warn("port %d: inline_data_size %d is more than device %s was set up with by an earlier port; reducing to %d\n",
		le16_to_cpu(nport->disc_addr.portid), nport->inline_data_size,
		ndev->device->name, ndev->in_capsule_size);
	nport->inline_data_size = ndev->in_capsule_size;
}

/*
 * A port asking for T10-PI on a device without integrity offload serves
 * without it, with a warning, as stock, so that nvmet offers its hosts no
 * PI there and they connect. Checked for every port that uses the device,
 * not only the one that sets it up: a queue pair created with integrity
 * enabled fails on such a device.
 */
static void nvmet_rdma_fit_port_pi(struct nvmet_port *nport,
				   struct ib_device *device)
{
	if (!nport->pi_enable ||
	    (device->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return;
	pr_warn("T10-PI is not supported by device %s. Disabling it\n",
		device->name);
	nport->pi_enable = false;
}

/*
 * The memory in-capsule data costs, said once when a device is set up:
 * every receive buffer holds the full size, whether a command uses it or
 * not. Without an SRQ that is per queue entry (bounded by the queue depth,
 * at most NVME_RDMA_MAX_QUEUE_SIZE, times the queues the hosts connect);
 * with SRQs it is their fixed total.
 */
static void nvmet_rdma_report_recv_buffers(struct nvmet_rdma_device *ndev)
{
	u32 pages = ndev->in_capsule_pages;
	u64 bytes;

	if (ndev->srqs) {
		bytes = ndev->srq_count *
			nvmeof_recv_buffer_bytes(pages, ndev->srq_size, PAGE_SIZE);
		pr_info("%s: in-capsule data up to %d bytes; %d shared receive queues of %zu buffers take %llu KiB\n",
			ndev->device->name, ndev->in_capsule_size,
			ndev->srq_count, ndev->srq_size, bytes / SZ_1K);
	} else {
		bytes = nvmeof_recv_buffer_bytes(pages, NVME_RDMA_MAX_QUEUE_SIZE,
						 PAGE_SIZE);
		pr_info("%s: in-capsule data up to %d bytes; receive buffers take up to %llu KiB per I/O queue (%d entries at most)\n",
			ndev->device->name, ndev->in_capsule_size,
			bytes / SZ_1K, NVME_RDMA_MAX_QUEUE_SIZE);
	}
}

/*
 * Does DMA to @ibdev go through swiotlb's bounce buffers: a
 * confidential-computing guest (its memory encrypted, the device's DMA
 * bounced through shared memory), swiotlb=force, or a device that cannot
 * reach all memory? There a mapping holds a bounce slot for as long as it
 * lives, and the slots are few (64 MiB by default): the I/O queues' page
 * caches then keep none mapped (nvmet_rdma_page_cache_init()).
 */
static bool nvmet_rdma_dma_bounces(struct ib_device *ibdev)
{
	struct device *dma_dev = ibdev->dma_device;

	if (ib_uses_virt_dma(ibdev) || !dma_dev)
		return false;
	return is_swiotlb_force_bounce(dma_dev) ||
	       dma_addressing_limited(dma_dev);
}

/**
 * nvmet_rdma_find_get_device() - the device a connecting queue is on
 * @cm_id: the queue's cm_id, its context the listening port
 *
 * Takes a reference on the device's struct, setting one up if there is
 * none yet; the port's in-capsule data size and T10-PI are fitted to what
 * the device takes either way.
 *
 * Return: the device, or NULL.
 */
struct nvmet_rdma_device *
nvmet_rdma_find_get_device(struct rdma_cm_id *cm_id)
{
	struct nvmet_rdma_port *port = cm_id->context;
	struct nvmet_port *nport = port->nport;
	struct ib_device_attr *attrs = &cm_id->device->attrs;
	struct nvmet_rdma_device *ndev;
	u32 pages;
	int recv_sge;
	int ret;

	mutex_lock(&nvmet_rdma_device_list_mutex);
	list_for_each_entry(ndev, &nvmet_rdma_device_list, entry) {
		if (ndev->device->node_guid == cm_id->device->node_guid &&
		    kref_get_unless_zero(&ndev->ref)) {
			nvmet_rdma_fit_port_in_capsule(nport, ndev);
			nvmet_rdma_fit_port_pi(nport, ndev->device);
			goto out_unlock;
		}
	}

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		goto out_err;

	/*
	 * A receive takes an SGE per page of in-capsule data: within the
	 * device's limit for receive queues, and for its SRQs when they are
	 * used (not max_sge_rd, an RDMA READ limit: where that is the larger,
	 * a queue pair asking for as many receive SGEs could not be created).
	 */
	recv_sge = attrs->max_recv_sge;
	if (nvmet_rdma_srqs_usable(attrs))
		recv_sge = min_t(int, recv_sge, attrs->max_srq_sge);
	pages = nvmeof_in_capsule_pages(nport->inline_data_size, recv_sge,
					PAGE_SIZE);
	if (nport->inline_data_size > pages * PAGE_SIZE) {
		pr_warn("inline_data_size %d cannot be supported by device %s. Reducing to %lu.\n",
			nport->inline_data_size, cm_id->device->name,
			pages * PAGE_SIZE);
		nport->inline_data_size = pages * PAGE_SIZE;
	}
	ndev->in_capsule_size = nport->inline_data_size;
	ndev->in_capsule_pages = pages;

	nvmet_rdma_fit_port_pi(nport, cm_id->device);

	ndev->device = cm_id->device;
	kref_init(&ndev->ref);
	ndev->dma_bounces = nvmet_rdma_dma_bounces(ndev->device);
	if (ndev->dma_bounces)
		pr_info("%s: DMA goes through bounce buffers (swiotlb): data pages are mapped for each transfer, as stock maps them, none kept mapped\n",
			ndev->device->name);

	ndev->pd = ib_alloc_pd(ndev->device, 0);
	if (IS_ERR(ndev->pd))
		goto out_free_dev;

	if (nvmet_rdma_use_srq) {
		ret = nvmet_rdma_init_srqs(ndev);
		if (ret)
			goto out_free_pd;
	}

	nvmet_rdma_report_recv_buffers(ndev);
	list_add(&ndev->entry, &nvmet_rdma_device_list);
out_unlock:
	mutex_unlock(&nvmet_rdma_device_list_mutex);
	pr_debug("added %s.\n", ndev->device->name);
	return ndev;

out_free_pd:
	ib_dealloc_pd(ndev->pd);
out_free_dev:
	kfree(ndev);
out_err:
	mutex_unlock(&nvmet_rdma_device_list_mutex);
	return NULL;
}

/**
 * nvmet_rdma_put_device() - drop a reference nvmet_rdma_find_get_device()
 *	took
 * @ndev: the device; the last reference frees it, with its SRQs and PD
 */
void nvmet_rdma_put_device(struct nvmet_rdma_device *ndev)
{
	kref_put(&ndev->ref, nvmet_rdma_free_dev);
}

/**
 * nvmet_rdma_has_device() - whether queues were set up on an ib_device
 * @ib_device: the device
 *
 * Return: true while a struct nvmet_rdma_device for @ib_device is listed:
 * from its first queue's connect until its last queue is released.
 */
bool nvmet_rdma_has_device(struct ib_device *ib_device)
{
	struct nvmet_rdma_device *ndev;
	bool found = false;

	mutex_lock(&nvmet_rdma_device_list_mutex);
	list_for_each_entry(ndev, &nvmet_rdma_device_list, entry) {
		if (ndev->device == ib_device) {
			found = true;
			break;
		}
	}
	mutex_unlock(&nvmet_rdma_device_list_mutex);
	return found;
}
