// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over Fabrics RDMA target: the data of keyed-SGL commands -- the pages
 * that hold it, and the RDMA READ (write data in) and RDMA WRITE (read data
 * out) that move it between those pages and the host.
 *
 * One file, because the two are one mechanism: an I/O queue keeps the data
 * pages of finished commands on small stacks for its next ones, DMA-mapped
 * for as long as they are cached (IB and RoCE), and the transfer of a
 * request whose pages came from there is work requests laid directly over
 * those mapped addresses (common/rdma_wrs.h), in arrays inside the response
 * for up to NVMET_RDMA_EMBEDDED_SGES pages; an RDMA READ in no more work
 * requests than stock's would take (nvmet_rdma_premapped_read_pages()).
 * The cache owns at most cached_pages pages; a page is mapped when the
 * cache takes it and unmapped when it gives it up: when the queue goes, or
 * when a request of the other direction needs its room at the bound, no
 * faster than requests of that direction were refused (behind an IOMMU
 * each unmap is an IOTLB invalidation: common/page_stack.h). A request it
 * cannot serve whole within that takes its pages as stock does, mapped for
 * its transfer alone by rdma_rw. A response's
 * NVMET_RDMA_REQ_CACHED_DATA says its pages came from the cache,
 * NVMET_RDMA_REQ_PREMAPPED_RW that its transfer was built here and not by
 * rdma_rw; each half undoes what its flag says. A one-page request uses a
 * scatterlist entry inside the response.
 *
 * Cached pages are reused without zeroing. That is safe because a queue
 * serves exactly one controller, so one host: a page only ever holds data
 * that host wrote or was allowed to read. Nothing stale leaves the target
 * either: data goes to the host only after the backend completed the read
 * successfully, which fills the transfer length (nvmet_rdma_need_data_out()).
 *
 * A cached page is mapped in the one direction the RDMA device moves its
 * data (common/page_stack.h): DMA_TO_DEVICE for read data, which the
 * backend's device writes into the page first; DMA_FROM_DEVICE for write
 * data, which the backend's device then reads. So no page is ever writable
 * by two devices at once, as the DMA API requires (DMA-API debug reports an
 * overlap otherwise; tests/backend-dma.sh). It is handed to the device
 * before a transfer and to the CPU after an RDMA READ, as the DMA API asks
 * of a long-lived mapping. Where DMA goes through swiotlb's bounce buffers
 * no page is kept mapped: each would hold a bounce slot.
 *
 * The kernel's rdma_rw builds the transfer where it takes memory
 * registration or pages not from the cache: iWARP (an RDMA READ's sink must
 * be a registered MR there), T10-PI (signature MRs), peer-to-peer memory,
 * the admin queue, and premap_data=N. Requests with metadata (PI) or with
 * peer-to-peer memory take their pages from nvmet_req_alloc_sgls().
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>
#include <rdma/rw.h>

#include "nvmet_rdma.h"
#include "page_stack.h"
#include "rdma_wrs.h"

static unsigned int nvmet_rdma_cached_pages = 64;
module_param_named(cached_pages, nvmet_rdma_cached_pages, uint, 0444);
MODULE_PARM_DESC(cached_pages,
		 "Data pages each I/O queue keeps (mapped) for reuse; a request they cannot serve allocates and maps its own, as stock (default 64 = 256 KiB with 4 KiB pages; 0 = allocate every I/O)");

static bool nvmet_rdma_premap_data = true;
module_param_named(premap_data, nvmet_rdma_premap_data, bool, 0444);
MODULE_PARM_DESC(premap_data,
		 "Keep the I/O queues' data pages DMA-mapped while cached and post their RDMA READ/WRITE directly, on IB and RoCE (default Y; N = map every transfer through rdma_rw, as iWARP always does)");

/*
 * Pages the live queues' caches may still take (the sum of cap - owned):
 * memory a queue's admission must leave for them, since a cache grows
 * after its queue was admitted (nvmet_rdma_page_cache_room_bytes()).
 */
static atomic_long_t nvmet_rdma_cache_room = ATOMIC_LONG_INIT(0);

/* a cache owns @n more pages (fewer, if negative) */
static void nvmet_rdma_cache_owns(long n)
{
	if (n)
		atomic_long_sub(n, &nvmet_rdma_cache_room);
}

/* nvmeof_page_stack_disown(), with the room it gives back counted */
static void nvmet_rdma_cache_disown(struct nvmet_rdma_queue *queue,
				    unsigned int n)
{
	unsigned int owned = queue->page_cache.owned;

	nvmeof_page_stack_disown(&queue->page_cache, n);
	nvmet_rdma_cache_owns(-(long)(owned - queue->page_cache.owned));
}

/**
 * nvmet_rdma_page_cache_room_bytes() - what the live queues' page caches
 *	may still take
 *
 * Return: bytes: for each queue, the pages its cache may own and does not
 * own yet.
 */
size_t nvmet_rdma_page_cache_room_bytes(void)
{
	return (size_t)max(atomic_long_read(&nvmet_rdma_cache_room), 0L) *
	       PAGE_SIZE;
}

/*
 * Entries one work request may carry: a queue pair's own limits (reads:
 * also the device's max_sge_rd), and for reads the device's preferred
 * most (max_sgl_rd, where rdma_rw would switch to an MR).
 */
static u32 nvmet_rdma_premapped_max_sge(struct nvmet_rdma_queue *queue,
					bool read)
{
	u32 max_sgl_rd = queue->dev->device->attrs.max_sgl_rd;

	if (!read)
		return queue->qp->max_write_sge;
	if (max_sgl_rd)
		return min(queue->qp->max_read_sge, max_sgl_rd);
	return queue->qp->max_read_sge;
}

/**
 * nvmet_rdma_premapped_read_pages() - the most pages an RDMA READ over a
 *	queue's premapped pages may take
 * @queue: the queue, its page cache set up and its QP created
 *
 * No more work requests than stock's rdma_rw would post for the transfer:
 * each RDMA READ holds one of the few reads a queue pair may have
 * outstanding (its initiator depth: 16 on mlx5) until its data is in.
 * Stock posts one where an IOMMU maps the transfer into one range (the DMA
 * API merges its pages) or where the device asks for memory registration
 * beyond max_sgl_rd entries; else as many as ours, of max_read_sge
 * entries. A larger one takes its pages as stock does.
 *
 * Return: pages (U32_MAX: no bound but the cache's; so too where the queue
 * does not premap).
 */
u32 nvmet_rdma_premapped_read_pages(struct nvmet_rdma_queue *queue)
{
	struct device *dma_dev = queue->dev->device->dma_device;

	if (!queue->premapped)
		return U32_MAX;
	if (queue->dev->device->attrs.max_sgl_rd ||
	    (dma_dev && dma_get_merge_boundary(dma_dev)))
		return nvmet_rdma_premapped_max_sge(queue, true);
	return U32_MAX;
}

/**
 * nvmet_rdma_page_cache_init() - set up a queue's page cache (empty)
 * @queue: the queue, its device and CM id set
 *
 * Only I/O queues get one; the admin queue's few transfers allocate. The
 * pages of an I/O queue are kept DMA-mapped unless premap_data=N, the
 * device is iWARP, whose RDMA READs need a registered MR (rdma_rw's), or
 * its DMA goes through bounce buffers (each mapping would hold one).
 *
 * Return: 0, or -ENOMEM.
 */
int nvmet_rdma_page_cache_init(struct nvmet_rdma_queue *queue)
{
	struct nvmeof_page_stack *s = &queue->page_cache;
	struct nvmeof_data_page *pages;

	spin_lock_init(&queue->page_cache_lock);
	queue->premapped = nvmet_rdma_premap_data && queue->host_qid &&
		!queue->dev->dma_bounces &&
		!rdma_protocol_iwarp(queue->dev->device,
				     queue->cm_id->port_num);
	*s = (struct nvmeof_page_stack) { };
	s->cap = queue->host_qid ? nvmet_rdma_cached_pages : 0;
	if (!s->cap)
		return 0;
	pages = kcalloc(array_size(NVMEOF_PAGE_DIRS, s->cap), sizeof(*pages),
			GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	s->pages[NVMEOF_PAGES_OUT] = pages;
	s->pages[NVMEOF_PAGES_IN] = pages + s->cap;
	atomic_long_add(s->cap, &nvmet_rdma_cache_room);
	return 0;
}

/**
 * nvmet_rdma_page_cache_max_bytes() - the most a queue's page cache holds
 * @io_queue: for an I/O queue (the admin queue has none)
 *
 * Return: bytes: cached_pages pages for an I/O queue, else 0.
 */
size_t nvmet_rdma_page_cache_max_bytes(bool io_queue)
{
	return io_queue ? (size_t)nvmet_rdma_cached_pages * PAGE_SIZE : 0;
}

/*
 * The stack a request's pages come from and go back to: their mapping's
 * direction (rsp->data_dir, set before its pages are taken); pages that
 * are not mapped (iWARP, premap_data=N) all on one.
 */
static enum nvmeof_page_dir nvmet_rdma_page_dir(struct nvmet_rdma_rsp *rsp)
{
	if (rsp->queue->premapped && rsp->data_dir == DMA_FROM_DEVICE)
		return NVMEOF_PAGES_IN;
	return NVMEOF_PAGES_OUT;
}

static enum dma_data_direction nvmet_rdma_page_dma_dir(enum nvmeof_page_dir dir)
{
	return dir == NVMEOF_PAGES_IN ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/* a page, mapped for the queue's device in @dir if the queue premaps */
static int nvmet_rdma_new_page(struct nvmet_rdma_queue *queue,
			       enum nvmeof_page_dir dir,
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
				       nvmet_rdma_page_dma_dir(dir));
	if (ib_dma_mapping_error(dev, dp->dma_addr)) {
		__free_page(dp->page);
		return -ENOMEM;
	}
	return 0;
}

static void nvmet_rdma_release_page(struct nvmet_rdma_queue *queue,
				    enum nvmeof_page_dir dir,
				    struct nvmeof_data_page *dp)
{
	if (queue->premapped)
		ib_dma_unmap_page(queue->dev->device, dp->dma_addr, PAGE_SIZE,
				  nvmet_rdma_page_dma_dir(dir));
	__free_page(dp->page);
}

/**
 * nvmet_rdma_page_cache_destroy() - unmap and free a queue's cached pages
 * @queue: the queue, with no response holding data buffers any more; its
 *	device still set up (the pages are mapped for it)
 */
void nvmet_rdma_page_cache_destroy(struct nvmet_rdma_queue *queue)
{
	struct nvmeof_page_stack *s = &queue->page_cache;
	struct nvmeof_data_page dp;
	enum nvmeof_page_dir dir;

	for (dir = 0; dir < NVMEOF_PAGE_DIRS; dir++) {
		while (nvmeof_page_stack_pop(s, dir, &dp)) {
			nvmet_rdma_release_page(queue, dir, &dp);
			nvmet_rdma_cache_disown(queue, 1);
		}
	}
	WARN_ON_ONCE(s->owned);
	/* the room it had left: cap, its pages all given back */
	atomic_long_sub(s->cap - s->owned, &nvmet_rdma_cache_room);
	/* one allocation for both stacks */
	kfree(s->pages[NVMEOF_PAGES_OUT]);
	*s = (struct nvmeof_page_stack) { };
}

/* the page of a request's scatterlist entry, and its mapping */
static struct nvmeof_data_page nvmet_rdma_sg_data_page(struct scatterlist *sg)
{
	return (struct nvmeof_data_page) {
		.page = sg_page(sg),
		.dma_addr = sg_dma_address(sg),
	};
}

/*
 * Give back the pages of entries @from to @to - 1 of @sgl (a flat array),
 * under one hold of the lock for the request. Irqsave: a response is
 * released where its post was, the backend's completion context (hard IRQ
 * for nvme-pci) for an unsignalled one, not only in the CQ's.
 */
static void nvmet_rdma_put_pages(struct nvmet_rdma_queue *queue,
				 enum nvmeof_page_dir dir,
				 struct scatterlist *sgl, unsigned int from,
				 unsigned int to)
{
	struct nvmeof_data_page dp;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&queue->page_cache_lock, flags);
	for (i = from; i < to; i++) {
		dp = nvmet_rdma_sg_data_page(&sgl[i]);
		/* cannot fail: the stack has room for every page the cache owns */
		if (WARN_ON_ONCE(!nvmeof_page_stack_push(&queue->page_cache,
							 dir, dp))) {
			nvmet_rdma_cache_disown(queue, to - i);
			break;
		}
	}
	spin_unlock_irqrestore(&queue->page_cache_lock, flags);
	for (; i < to; i++) {
		dp = nvmet_rdma_sg_data_page(&sgl[i]);
		nvmet_rdma_release_page(queue, dir, &dp);
	}
}

/* give back the first @nents pages of @sgl, then @sgl unless it is embedded */
static void nvmet_rdma_put_data(struct nvmet_rdma_rsp *rsp,
				struct scatterlist *sgl, unsigned int nents)
{
	nvmet_rdma_put_pages(rsp->queue, nvmet_rdma_page_dir(rsp), sgl, 0,
			     nents);
	if (sgl != &rsp->data_sg)
		kfree(sgl);
}

/* entry @i of @nents for @dp, the last one holding what is left of @len */
static void nvmet_rdma_set_data_page(struct scatterlist *sg, unsigned int i,
				     unsigned int nents, u32 len,
				     struct nvmeof_data_page dp)
{
	sg_set_page(sg, dp.page,
		    i + 1 < nents ? PAGE_SIZE : len - i * PAGE_SIZE, 0);
	/* read only by nvmet_rdma_premapped_init() */
	sg_dma_address(sg) = dp.dma_addr;
}

/**
 * nvmet_rdma_alloc_data_sgl() - data buffers for a keyed-SGL request
 * @rsp: the response, whose request has its transfer length set, and
 *	rsp->data_dir
 *
 * From the queue's cache, with new pages (mapped, and then the cache's) if
 * it may own more, releasing idle pages of the other direction at its
 * bound as far as common/page_stack.h allows; else, for the whole request,
 * as stock takes them.
 *
 * Return: 0, or -ENOMEM.
 */
int nvmet_rdma_alloc_data_sgl(struct nvmet_rdma_rsp *rsp)
{
	struct nvmet_rdma_queue *queue = rsp->queue;
	struct nvmeof_page_stack *cache = &queue->page_cache;
	enum nvmeof_page_dir dir = nvmet_rdma_page_dir(rsp);
	enum nvmeof_page_dir other = nvmeof_page_dir_other(dir);
	struct nvmet_req *req = &rsp->req;
	u32 len = req->transfer_len;
	unsigned int nents = DIV_ROUND_UP(len, PAGE_SIZE), fresh, evict, i;
	struct nvmeof_data_page dp;
	struct scatterlist *sgl;
	unsigned long flags;
	bool served;

	/*
	 * PI and P2P take nvmet's buffers; more than the cache may own, and an
	 * RDMA READ larger than stock's work requests would be, too
	 */
	if (req->metadata_len || nvmeof_req_may_use_p2pmem(req) ||
	    nents > cache->cap ||
	    (rsp->data_dir == DMA_FROM_DEVICE &&
	     nents > queue->premapped_read_pages))
		goto uncached;

	if (nents == 1) {
		sgl = &rsp->data_sg;
	} else {
		/* a flat array: entries are indexed below */
		sgl = kmalloc_array(nents, sizeof(*sgl), GFP_KERNEL);
		if (!sgl)
			return -ENOMEM;
	}
	sg_init_table(sgl, nents);
	/*
	 * New pages first, then the cached ones, in one look at the stacks;
	 * the pages given up wait in entries that new pages fill (evict <=
	 * fresh).
	 */
	spin_lock_irqsave(&queue->page_cache_lock, flags);
	served = nvmeof_page_stack_reserve(cache, dir, nents, &fresh, &evict);
	if (served) {
		nvmet_rdma_cache_owns((long)fresh - evict);
		queue->stats.pages_reused += nents - fresh;
		queue->stats.pages_new += fresh;
		queue->stats.pages_evicted += evict;
	}
	for (i = 0; served && i < evict; i++) {
		nvmeof_page_stack_pop(cache, other, &dp);
		nvmet_rdma_set_data_page(&sgl[i], i, nents, len, dp);
	}
	for (i = fresh; served && i < nents; i++) {
		nvmeof_page_stack_pop(cache, dir, &dp);
		nvmet_rdma_set_data_page(&sgl[i], i, nents, len, dp);
	}
	spin_unlock_irqrestore(&queue->page_cache_lock, flags);
	if (!served) {
		if (sgl != &rsp->data_sg)
			kfree(sgl);
		goto uncached;
	}
	for (i = 0; i < evict; i++) {
		dp = nvmet_rdma_sg_data_page(&sgl[i]);
		nvmet_rdma_release_page(queue, other, &dp);
	}
	for (i = 0; i < fresh; i++) {
		if (nvmet_rdma_new_page(queue, dir, &dp))
			goto fail;
		nvmet_rdma_set_data_page(&sgl[i], i, nents, len, dp);
	}
	req->sg = sgl;
	req->sg_cnt = nents;
	rsp->flags |= NVMET_RDMA_REQ_CACHED_DATA;
	return 0;

uncached:
	atomic64_inc(&queue->stats.data_uncached);
	return nvmet_req_alloc_sgls(req);

fail:
	/* the pages in hand go onto the stack, those not allocated are not owned */
	spin_lock_irqsave(&queue->page_cache_lock, flags);
	nvmet_rdma_cache_disown(queue, fresh - i);
	spin_unlock_irqrestore(&queue->page_cache_lock, flags);
	nvmet_rdma_put_pages(queue, dir, sgl, fresh, nents);
	nvmet_rdma_put_data(rsp, sgl, i);
	return -ENOMEM;
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
	bool read = rsp->data_dir == DMA_FROM_DEVICE;
	u32 max_sge = nvmet_rdma_premapped_max_sge(rsp->queue, read);
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
	enum dma_data_direction dir = rsp->data_dir;
	u32 i;

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
 * @rsp: the response, its data buffers allocated (req->sg), rsp->data_dir set
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
						  rsp->data_dir);
	return rdma_rw_ctx_init(&rsp->rw, cm_id->qp, cm_id->port_num,
				req->sg, req->sg_cnt, 0, addr, key,
				rsp->data_dir);
}

/**
 * nvmet_rdma_rw_destroy() - undo nvmet_rdma_rw_init() once the transfer is
 *	over (or will never run)
 * @rsp: the response
 *
 * Write data that came in by RDMA READ is handed to the CPU here, before
 * the backend sees it (rdma_rw's unmap does the same). In the direction
 * the transfer was built with, not req->cmd's: a read's response may
 * complete after the next command arrived in its receive buffer.
 */
void nvmet_rdma_rw_destroy(struct nvmet_rdma_rsp *rsp)
{
	struct rdma_cm_id *cm_id = rsp->queue->cm_id;
	struct nvmet_req *req = &rsp->req;

	if (rsp->flags & NVMET_RDMA_REQ_PREMAPPED_RW) {
		/* only an RDMA READ wrote the pages */
		if (rsp->data_dir == DMA_FROM_DEVICE)
			nvmet_rdma_premapped_sync(rsp, true);
		nvmet_rdma_premapped_free(&rsp->own);
		rsp->flags &= ~NVMET_RDMA_REQ_PREMAPPED_RW;
	} else if (req->metadata_len) {
		rdma_rw_ctx_destroy_signature(&rsp->rw, cm_id->qp,
					      cm_id->port_num, req->sg,
					      req->sg_cnt, req->metadata_sg,
					      req->metadata_sg_cnt,
					      rsp->data_dir);
	} else {
		rdma_rw_ctx_destroy(&rsp->rw, cm_id->qp, cm_id->port_num,
				    req->sg, req->sg_cnt, rsp->data_dir);
	}
}

/*
 * Read data in pages rdma_rw mapped: it mapped them when the command came,
 * before the backend filled them, so hand them to the device now. Where
 * DMA goes through bounce buffers this is what copies the data into them
 * (stock's target sends the bounce buffers' stale contents there); on a
 * non-coherent machine it writes the CPU's cache back. Not for
 * peer-to-peer memory, which no CPU wrote.
 */
static void nvmet_rdma_rw_sync_for_device(struct nvmet_rdma_rsp *rsp)
{
	struct ib_device *dev = rsp->queue->dev->device;
	struct nvmet_req *req = &rsp->req;

	if (ib_uses_virt_dma(dev) || req->p2p_dev)
		return;
	dma_sync_sg_for_device(dev->dma_device, req->sg, req->sg_cnt,
			       DMA_TO_DEVICE);
	if (req->metadata_len)
		dma_sync_sg_for_device(dev->dma_device, req->metadata_sg,
				       req->metadata_sg_cnt, DMA_TO_DEVICE);
}

/**
 * nvmet_rdma_rw_wrs() - the transfer's work requests, ready to post
 * @rsp: the response, after nvmet_rdma_rw_init()
 * @cqe: signal the last request to this handler, or
 * @chain_wr: chain this (the response SEND) behind the last one
 *
 * Hands the data pages to the device (premapped pages, and rdma_rw's for
 * an RDMA WRITE): for an RDMA WRITE the backend has filled them by now.
 * The unsignalled work requests complete on the queue's unsignalled_cqe:
 * an RNIC reports a failed WR whether signalled or not, and the queue must
 * fail at once (rdma_rw leaves their wr_cqe NULL, and ib_cq drops a
 * completion without one).
 *
 * Return: the first work request.
 */
struct ib_send_wr *nvmet_rdma_rw_wrs(struct nvmet_rdma_rsp *rsp,
				     struct ib_cqe *cqe,
				     struct ib_send_wr *chain_wr)
{
	struct nvmet_rdma_premapped_rw *own = &rsp->own;
	struct rdma_cm_id *cm_id = rsp->queue->cm_id;
	struct ib_send_wr *first, *wr;

	if (rsp->flags & NVMET_RDMA_REQ_PREMAPPED_RW) {
		nvmet_rdma_premapped_sync(rsp, false);
		wr = &own->wrs[own->nr_wrs - 1].wr;
		if (chain_wr) {
			wr->next = chain_wr;
		} else {
			wr->wr_cqe = cqe;
			wr->send_flags |= IB_SEND_SIGNALED;
		}
		first = &own->wrs[0].wr;
	} else {
		if (rsp->data_dir == DMA_TO_DEVICE)
			nvmet_rdma_rw_sync_for_device(rsp);
		first = rdma_rw_ctx_wrs(&rsp->rw, cm_id->qp, cm_id->port_num,
					cqe, chain_wr);
	}
	for (wr = first; wr && wr != chain_wr; wr = wr->next)
		if (!wr->wr_cqe)
			wr->wr_cqe = &rsp->queue->unsignalled_cqe;
	return first;
}
