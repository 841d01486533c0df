// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA READ (write data in) and RDMA WRITE (read data out) of a keyed-SGL
 * request: the work requests, posting them, and undoing them.
 *
 * Stock builds them with the kernel's rdma_rw API, which DMA-maps the data
 * pages for every I/O and unmaps them when it is done (with an IOMMU: an
 * IOVA allocation, page table updates and an IOTLB invalidation per I/O),
 * and kcallocs the SGE and work request arrays of every multi-page I/O.
 * The pages of our I/O queues come from the queue's page cache already
 * mapped (buffers.c), so on IB and RoCE this file lays the work requests
 * over those addresses itself (common/rdma_wrs.h), in arrays inside the
 * response for up to NVMET_RDMA_EMBEDDED_SGES pages, and only syncs the
 * pages for the device or the CPU around the transfer, as the DMA API asks
 * of a long-lived mapping. The kernel's rtrs server (rnbd) keeps its data
 * buffers mapped the same way.
 *
 * rdma_rw stays for what needs memory registration or more: iWARP (an
 * RDMA READ's sink must be a registered MR there), T10-PI (signature MRs),
 * peer-to-peer memory, the admin queue, and premap_data=N.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>
#include <rdma/rw.h>

#include "nvmet_rdma.h"
#include "rdma_wrs.h"

/*
 * Entries one work request may carry: a queue pair's own limits (reads:
 * also the device's max_sge_rd), and for reads the device's preferred
 * most (max_sgl_rd, where rdma_rw would switch to an MR; more requests of
 * fewer entries serve the same purpose).
 */
static u32 nvmet_rdma_premapped_max_sge(struct nvmet_rdma_rsp *rsp, bool read)
{
	struct ib_qp *qp = rsp->queue->qp;
	u32 max_sgl_rd = rsp->queue->dev->device->attrs.max_sgl_rd;

	if (!read)
		return qp->max_write_sge;
	if (max_sgl_rd)
		return min(qp->max_read_sge, max_sgl_rd);
	return qp->max_read_sge;
}

static void nvmet_rdma_premapped_free(struct nvmet_rdma_premapped_rw *own)
{
	if (own->sges != own->sge)
		kfree(own->sges);
	if (own->wrs != &own->wr)
		kfree(own->wrs);
}

static int nvmet_rdma_premapped_init(struct nvmet_rdma_rsp *rsp, u64 addr,
				     u32 key)
{
	struct nvmet_rdma_premapped_rw *own = &rsp->own;
	struct nvmet_req *req = &rsp->req;
	bool read = nvmet_data_dir(req) == DMA_FROM_DEVICE;
	u32 max_sge = nvmet_rdma_premapped_max_sge(rsp, read);
	u32 nr_sge = req->sg_cnt, nr_wrs, lkey, i;
	struct scatterlist *sg;

	nr_wrs = nvmeof_rdma_wr_count(nr_sge, max_sge);
	/* rsp->n_rdma counts them in a u8 (1 MiB takes 128 at 2 per WR) */
	if (unlikely(!nr_wrs || nr_wrs > U8_MAX))
		return -EINVAL;
	/*
	 * Allocated arrays are sized exactly, each on its own: with
	 * init_on_alloc (Debian's default) the allocator zeroes the whole slab
	 * object, so one combined array (the next power of two up) costs more.
	 */
	own->wrs = &own->wr;
	own->sges = own->sge;
	if (nr_sge > NVMET_RDMA_EMBEDDED_SGES) {
		own->sges = kmalloc_array(nr_sge, sizeof(*own->sges),
					  GFP_KERNEL);
		if (!own->sges)
			return -ENOMEM;
	}
	if (nr_wrs > 1) {
		own->wrs = kmalloc_array(nr_wrs, sizeof(*own->wrs), GFP_KERNEL);
		if (!own->wrs) {
			nvmet_rdma_premapped_free(own);
			return -ENOMEM;
		}
	}

	lkey = rsp->queue->dev->pd->local_dma_lkey;
	for_each_sg(req->sg, sg, nr_sge, i) {
		own->sges[i].addr = sg_dma_address(sg) + sg->offset;
		own->sges[i].length = sg->length;
		own->sges[i].lkey = lkey;
	}
	nvmeof_build_rdma_wrs(own->wrs, own->sges, nr_sge, max_sge,
			      read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE,
			      addr, key);
	own->nr_wrs = nr_wrs;
	own->nr_sge = nr_sge;
	rsp->flags |= NVMET_RDMA_REQ_PREMAPPED_RW;
	return nr_wrs;
}

/* hand the data pages to the device (before posting) or the CPU (after) */
static void nvmet_rdma_premapped_sync(struct nvmet_rdma_rsp *rsp, bool for_cpu)
{
	struct nvmet_rdma_premapped_rw *own = &rsp->own;
	struct ib_device *dev = rsp->queue->dev->device;
	enum dma_data_direction dir = nvmet_data_dir(&rsp->req);
	u32 i;

	if (rsp->queue->soft_device)
		return;		/* virtual DMA: nothing to hand over */
	for (i = 0; i < own->nr_sge; i++) {
		if (for_cpu)
			ib_dma_sync_single_for_cpu(dev, own->sges[i].addr,
						   own->sges[i].length, dir);
		else
			ib_dma_sync_single_for_device(dev, own->sges[i].addr,
						      own->sges[i].length, dir);
	}
}

/**
 * nvmet_rdma_rw_init() - build the RDMA READ/WRITE of a keyed-SGL request
 * @rsp: the response, its data buffers allocated (req->sg)
 * @addr: the host buffer's address, from the keyed SGL
 * @key: the host buffer's key
 * @sig_attrs: the signature attributes when the request has metadata
 *
 * Return: the number of send queue work requests the transfer takes, or a
 * negative errno.
 */
int nvmet_rdma_rw_init(struct nvmet_rdma_rsp *rsp, u64 addr, u32 key,
		       struct ib_sig_attrs *sig_attrs)
{
	struct rdma_cm_id *cm_id = rsp->queue->cm_id;
	struct nvmet_req *req = &rsp->req;

	if ((rsp->flags & NVMET_RDMA_REQ_CACHED_DATA) && rsp->queue->premapped)
		return nvmet_rdma_premapped_init(rsp, addr, key);

	if (req->metadata_len)
		return rdma_rw_ctx_signature_init(&rsp->rw, cm_id->qp,
						  cm_id->port_num, req->sg,
						  req->sg_cnt,
						  req->metadata_sg,
						  req->metadata_sg_cnt,
						  sig_attrs, addr, key,
						  nvmet_data_dir(req));
	return rdma_rw_ctx_init(&rsp->rw, cm_id->qp, cm_id->port_num,
				req->sg, req->sg_cnt, 0, addr, key,
				nvmet_data_dir(req));
}

/**
 * nvmet_rdma_rw_destroy() - undo nvmet_rdma_rw_init() once the transfer is
 *	over (or will never run)
 * @rsp: the response
 *
 * Write data that came in by RDMA READ is handed to the CPU here, before
 * the backend sees it (rdma_rw's unmap does the same).
 */
void nvmet_rdma_rw_destroy(struct nvmet_rdma_rsp *rsp)
{
	struct rdma_cm_id *cm_id = rsp->queue->cm_id;
	struct nvmet_req *req = &rsp->req;

	if (rsp->flags & NVMET_RDMA_REQ_PREMAPPED_RW) {
		/* only an RDMA READ wrote the pages */
		if (nvmet_data_dir(req) == DMA_FROM_DEVICE)
			nvmet_rdma_premapped_sync(rsp, true);
		nvmet_rdma_premapped_free(&rsp->own);
		rsp->flags &= ~NVMET_RDMA_REQ_PREMAPPED_RW;
	} else if (req->metadata_len) {
		rdma_rw_ctx_destroy_signature(&rsp->rw, cm_id->qp,
					      cm_id->port_num, req->sg,
					      req->sg_cnt, req->metadata_sg,
					      req->metadata_sg_cnt,
					      nvmet_data_dir(req));
	} else {
		rdma_rw_ctx_destroy(&rsp->rw, cm_id->qp, cm_id->port_num,
				    req->sg, req->sg_cnt, nvmet_data_dir(req));
	}
}

/**
 * nvmet_rdma_rw_wrs() - the transfer's work requests, ready to post
 * @rsp: the response, after nvmet_rdma_rw_init()
 * @cqe: signal the last request to this handler, or
 * @chain_wr: chain this (the response SEND) behind the last one
 *
 * Hands the data pages to the device: for an RDMA WRITE the backend has
 * filled them by now.
 *
 * Return: the first work request.
 */
struct ib_send_wr *nvmet_rdma_rw_wrs(struct nvmet_rdma_rsp *rsp,
				     struct ib_cqe *cqe,
				     struct ib_send_wr *chain_wr)
{
	struct nvmet_rdma_premapped_rw *own = &rsp->own;
	struct rdma_cm_id *cm_id = rsp->queue->cm_id;
	struct ib_send_wr *last;

	if (!(rsp->flags & NVMET_RDMA_REQ_PREMAPPED_RW))
		return rdma_rw_ctx_wrs(&rsp->rw, cm_id->qp, cm_id->port_num,
				       cqe, chain_wr);

	nvmet_rdma_premapped_sync(rsp, false);
	last = &own->wrs[own->nr_wrs - 1].wr;
	if (chain_wr) {
		last->next = chain_wr;
	} else {
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return &own->wrs[0].wr;
}
