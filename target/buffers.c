// SPDX-License-Identifier: GPL-2.0
/*
 * Data buffers for keyed-SGL I/O (the data the target RDMA-READs from or
 * RDMA-WRITEs to the host).
 *
 * Stock takes them from nvmet_req_alloc_sgls() for every I/O: a kmalloc'd
 * scatterlist and freshly allocated pages, each zeroed (Debian boots with
 * init_on_alloc=1), freed again when the response is acknowledged, and
 * rdma_rw DMA-maps and unmaps them around every transfer. Here the pages of
 * a finished I/O go onto a small per-queue stack and the next I/O of that
 * queue takes them as they are, and a one-page I/O uses a scatterlist
 * entry inside the response: no allocation, no memset, no free. On IB and
 * RoCE a page is also DMA-mapped once, when it is allocated, and unmapped
 * when it leaves the cache; the cached pages carry their addresses
 * (sg_dma_address() of the request's entries) to data_rw.c, which posts
 * the transfers over them.
 *
 * Reusing pages without zeroing them is safe because a queue serves exactly
 * one controller, so one host: a page only ever holds data that host wrote
 * or was allowed to read. Nothing stale leaves the target either: data goes
 * to the host only after the backend completed the read successfully, which
 * fills the transfer length (nvmet_rdma_need_data_out()).
 *
 * A mapped page is mapped bidirectionally (it serves reads and writes) for
 * as long as it is cached; the backend may map it for its own device too
 * while it owns the page, as with any page it is given. Behind swiotlb each
 * cached page holds a bounce slot (cached_pages per I/O queue).
 *
 * Requests with metadata (PI) or with peer-to-peer memory keep using
 * nvmet_req_alloc_sgls().
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>

#include "nvmet_rdma.h"
#include "page_stack.h"

static unsigned int nvmet_rdma_cached_pages = 64;
module_param_named(cached_pages, nvmet_rdma_cached_pages, uint, 0444);
MODULE_PARM_DESC(cached_pages,
		 "Free data pages each I/O queue keeps for reuse (default 64 = 256 KiB with 4 KiB pages; 0 = allocate every I/O as stock does)");

static bool nvmet_rdma_premap_data = true;
module_param_named(premap_data, nvmet_rdma_premap_data, bool, 0444);
MODULE_PARM_DESC(premap_data,
		 "Keep the I/O queues' data pages DMA-mapped while cached and post their RDMA READ/WRITE directly, on IB and RoCE (default Y; N = map every transfer through rdma_rw, as stock does; iWARP always does)");

/**
 * nvmet_rdma_page_cache_init() - set up a queue's page cache (empty)
 * @queue: the queue, its device and CM id set
 *
 * Only I/O queues get one; the admin queue's few transfers allocate. The
 * pages of an I/O queue are kept DMA-mapped unless premap_data=N or the
 * device is iWARP, whose RDMA READs need a registered MR (rdma_rw's).
 *
 * Return: 0, or -ENOMEM.
 */
int nvmet_rdma_page_cache_init(struct nvmet_rdma_queue *queue)
{
	struct nvmeof_page_stack *s = &queue->page_cache;

	spin_lock_init(&queue->page_cache_lock);
	queue->premapped = nvmet_rdma_premap_data && queue->host_qid &&
		!rdma_protocol_iwarp(queue->dev->device,
				     queue->cm_id->port_num);
	s->nr = 0;
	s->cap = queue->host_qid ? nvmet_rdma_cached_pages : 0;
	if (!s->cap)
		return 0;
	s->pages = kcalloc(s->cap, sizeof(*s->pages), GFP_KERNEL);
	return s->pages ? 0 : -ENOMEM;
}

/* a page, mapped for the queue's device if the queue premaps */
static int nvmet_rdma_new_page(struct nvmet_rdma_queue *queue,
			       struct nvmeof_data_page *dp)
{
	struct ib_device *dev = queue->dev->device;

	dp->page = alloc_page(GFP_KERNEL);
	if (!dp->page)
		return -ENOMEM;
	dp->dma_addr = 0;
	if (!queue->premapped)
		return 0;
	dp->dma_addr = ib_dma_map_page(dev, dp->page, 0, PAGE_SIZE,
				       DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, dp->dma_addr)) {
		__free_page(dp->page);
		return -ENOMEM;
	}
	return 0;
}

static void nvmet_rdma_release_page(struct nvmet_rdma_queue *queue,
				    struct nvmeof_data_page *dp)
{
	if (queue->premapped)
		ib_dma_unmap_page(queue->dev->device, dp->dma_addr, PAGE_SIZE,
				  DMA_BIDIRECTIONAL);
	__free_page(dp->page);
}

/**
 * nvmet_rdma_page_cache_destroy() - unmap and free a queue's cached pages
 * @queue: the queue, with no response holding data buffers any more; its
 *	device still set up (the pages are mapped for it)
 */
void nvmet_rdma_page_cache_destroy(struct nvmet_rdma_queue *queue)
{
	struct nvmeof_data_page dp;

	while (nvmeof_page_stack_pop(&queue->page_cache, &dp))
		nvmet_rdma_release_page(queue, &dp);
	kfree(queue->page_cache.pages);
	queue->page_cache.pages = NULL;
}

static int nvmet_rdma_get_page(struct nvmet_rdma_queue *queue,
			       struct nvmeof_data_page *dp)
{
	unsigned long flags;
	bool cached;

	spin_lock_irqsave(&queue->page_cache_lock, flags);
	cached = nvmeof_page_stack_pop(&queue->page_cache, dp);
	spin_unlock_irqrestore(&queue->page_cache_lock, flags);
	return cached ? 0 : nvmet_rdma_new_page(queue, dp);
}

/*
 * Irqsave: a response may be released from the backend's completion
 * context when posting it fails, not only from the CQ's.
 */
static void nvmet_rdma_put_page(struct nvmet_rdma_queue *queue,
				struct nvmeof_data_page dp)
{
	unsigned long flags;
	bool kept;

	spin_lock_irqsave(&queue->page_cache_lock, flags);
	kept = nvmeof_page_stack_push(&queue->page_cache, dp);
	spin_unlock_irqrestore(&queue->page_cache_lock, flags);
	if (!kept)
		nvmet_rdma_release_page(queue, &dp);
}

/* give back the first @nents pages of @sgl, then @sgl unless it is embedded */
static void nvmet_rdma_put_data(struct nvmet_rdma_rsp *rsp,
				struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(sgl, sg, nents, i)
		nvmet_rdma_put_page(rsp->queue, (struct nvmeof_data_page) {
			.page = sg_page(sg), .dma_addr = sg_dma_address(sg) });
	if (sgl != &rsp->data_sg)
		kfree(sgl);
}

/**
 * nvmet_rdma_alloc_data_sgl() - data buffers for a keyed-SGL request
 * @rsp: the response, whose request has its transfer length set
 *
 * Return: 0, or -ENOMEM.
 */
int nvmet_rdma_alloc_data_sgl(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_req *req = &rsp->req;
	u32 left = req->transfer_len;
	unsigned int nents = DIV_ROUND_UP(left, PAGE_SIZE), i;
	struct scatterlist *sgl, *sg;
	struct nvmeof_data_page dp;

	if (req->metadata_len || nvmeof_req_may_use_p2pmem(req))
		return nvmet_req_alloc_sgls(req);

	if (nents == 1) {
		sgl = &rsp->data_sg;
	} else {
		sgl = kmalloc_array(nents, sizeof(*sgl), GFP_KERNEL);
		if (!sgl)
			return -ENOMEM;
	}
	sg_init_table(sgl, nents);
	for_each_sg(sgl, sg, nents, i) {
		if (nvmet_rdma_get_page(rsp->queue, &dp)) {
			nvmet_rdma_put_data(rsp, sgl, i);
			return -ENOMEM;
		}
		sg_set_page(sg, dp.page, min_t(u32, left, PAGE_SIZE), 0);
		/* only data_rw.c reads it, and only when the queue premaps */
		sg_dma_address(sg) = dp.dma_addr;
		left -= sg->length;
	}
	req->sg = sgl;
	req->sg_cnt = nents;
	rsp->flags |= NVMET_RDMA_REQ_CACHED_DATA;
	return 0;
}

/**
 * nvmet_rdma_free_data_sgl() - release what nvmet_rdma_alloc_data_sgl() gave
 * @rsp: the response, its RDMA R/W context already destroyed
 */
void nvmet_rdma_free_data_sgl(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_req *req = &rsp->req;

	if (!(rsp->flags & NVMET_RDMA_REQ_CACHED_DATA)) {
		nvmet_req_free_sgls(req);
		return;
	}
	nvmet_rdma_put_data(rsp, req->sg, req->sg_cnt);
	req->sg = NULL;
	req->sg_cnt = 0;
	rsp->flags &= ~NVMET_RDMA_REQ_CACHED_DATA;
}
