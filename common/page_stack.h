/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded LIFOs of free data pages, each page with the address it is mapped
 * at for the RDMA device: the bookkeeping of a page cache, without its
 * locking (the caller's), its allocation or its DMA mapping (the caller's),
 * so that it can be unit tested on its own.
 *
 * The cache owns at most cap pages, on its stacks or lent to requests, so
 * that every page comes back onto a stack and none is unmapped while it is
 * in use: behind an IOMMU an unmap is an IOTLB invalidation, and one per
 * page (where rdma_rw does one per transfer) would make a miss dearer than
 * stock. A request that cannot get all its pages within that bound gets
 * none: it goes the way stock's does.
 *
 * A page is mapped for one direction, the one the RDMA device moves its
 * data in, and kept on that direction's stack: read data going out (the
 * device reads the page) or write data coming in (the device writes it).
 * So a page the backend's own device fills for a read is never
 * device-writable for the RDMA device too (the DMA API does not allow two
 * writable mappings of a page, and an IOMMU refuses the wrong direction).
 *
 * At the bound, idle pages of the other direction make room, but only as
 * fast as requests refused for the lack of it add up: a request may have e
 * of them given up once e requests of its direction were refused since the
 * other direction's stack last served one. Giving up a page is an unmap
 * (behind a strict IOMMU an IOTLB invalidation) and its replacement a map,
 * where a refused request pays stock's one map and unmap of its transfer:
 * so giving up adds at most one page's unmap and map to each refused
 * request, and a mixed load whose two directions both draw on their
 * stacks does not trade pages back and forth at all.
 */
#ifndef NVMEOF_PAGE_STACK_H
#define NVMEOF_PAGE_STACK_H

#include <linux/minmax.h>
#include <linux/types.h>

struct page;

/**
 * struct nvmeof_data_page - a data page and its DMA mapping
 * @page: the page
 * @dma_addr: where the RDMA device reaches it; meaningful only where the
 *	cache's owner maps its pages (the stack just keeps it with the page)
 */
struct nvmeof_data_page {
	struct page *page;
	u64 dma_addr;
};

/* the direction a page is mapped for, as the RDMA device moves its data */
enum nvmeof_page_dir {
	NVMEOF_PAGES_OUT,	/* the device reads it: DMA_TO_DEVICE */
	NVMEOF_PAGES_IN,	/* the device writes it: DMA_FROM_DEVICE */
	NVMEOF_PAGE_DIRS,
};

static inline enum nvmeof_page_dir nvmeof_page_dir_other(enum nvmeof_page_dir dir)
{
	return dir == NVMEOF_PAGES_OUT ? NVMEOF_PAGES_IN : NVMEOF_PAGES_OUT;
}

/**
 * struct nvmeof_page_stack - bounded stacks of data pages, one a direction
 * @pages: for each direction, room for @cap entries
 * @nr: entries on each direction's stack
 * @cap: most pages the cache owns, and so entries a stack holds
 * @owned: pages the cache owns, on a stack or lent; at most @cap
 * @refused: for each direction, its requests refused since the other
 *	direction's stack last served one (at most @cap): how many of that
 *	stack's idle pages it may have given up
 */
struct nvmeof_page_stack {
	struct nvmeof_data_page *pages[NVMEOF_PAGE_DIRS];
	unsigned int nr[NVMEOF_PAGE_DIRS];
	unsigned int cap;
	unsigned int owned;
	unsigned int refused[NVMEOF_PAGE_DIRS];
};

/*
 * A request of @n pages mapped for @dir: can @dir's stack, new pages within
 * @cap, and (at the bound, as its refused requests allow) idle pages of the
 * other direction given up to make room, serve it all? If so, *@evict says
 * how many the caller pops from the other direction's stack and releases,
 * *@fresh how many new ones it allocates and maps for @dir, and it pops the
 * rest, n - *@fresh, from @dir's stack; @owned counts the change. Else it
 * returns false, the refusal counted for @dir and nothing else changed.
 */
static inline bool nvmeof_page_stack_reserve(struct nvmeof_page_stack *s,
					     enum nvmeof_page_dir dir,
					     unsigned int n,
					     unsigned int *fresh,
					     unsigned int *evict)
{
	enum nvmeof_page_dir other = nvmeof_page_dir_other(dir);
	unsigned int f = n - min(n, s->nr[dir]), room = s->cap - s->owned;
	unsigned int e = 0;

	if (f > room) {
		e = f - room;
		if (e > s->nr[other] || e > s->refused[dir]) {
			if (s->refused[dir] < s->cap)
				s->refused[dir]++;
			return false;
		}
		s->refused[dir] -= e;
	}
	/* @dir's stack serves: its idle pages are between uses, not unused */
	if (f < n)
		s->refused[other] = 0;
	s->owned += f - e;
	*fresh = f;
	*evict = e;
	return true;
}

/* @n pages the cache owned are gone back to the allocator (or never came) */
static inline void nvmeof_page_stack_disown(struct nvmeof_page_stack *s,
					    unsigned int n)
{
	s->owned -= min(n, s->owned);
}

/* Returns false, leaving the stack as it was, when @dir's is full. */
static inline bool nvmeof_page_stack_push(struct nvmeof_page_stack *s,
					  enum nvmeof_page_dir dir,
					  struct nvmeof_data_page dp)
{
	if (s->nr[dir] >= s->cap)
		return false;
	s->pages[dir][s->nr[dir]++] = dp;
	return true;
}

/*
 * Takes the entry pushed last onto @dir's stack into *dp and returns true,
 * or returns false (*dp untouched) when that stack is empty.
 */
static inline bool nvmeof_page_stack_pop(struct nvmeof_page_stack *s,
					 enum nvmeof_page_dir dir,
					 struct nvmeof_data_page *dp)
{
	if (!s->nr[dir])
		return false;
	*dp = s->pages[dir][--s->nr[dir]];
	return true;
}

#endif /* NVMEOF_PAGE_STACK_H */
