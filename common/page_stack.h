/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded LIFO of free data pages, each with the address it is mapped at
 * for the RDMA device: the bookkeeping of a page cache, without its locking
 * (the caller's), its allocation or its DMA mapping (the caller's), so that
 * it can be unit tested on its own.
 *
 * The cache owns at most cap pages, on the stack or lent to requests, so
 * that every page comes back onto the stack and none is ever unmapped
 * before the queue goes: behind an IOMMU an unmap is an IOTLB invalidation,
 * and one per page (where rdma_rw does one per transfer) would make a miss
 * dearer than stock. A request that cannot get all its pages within that
 * bound gets none: it goes the way stock's does.
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

/**
 * struct nvmeof_page_stack - a bounded stack of data pages
 * @pages: room for @cap entries
 * @nr: entries on the stack
 * @cap: most entries the stack holds
 * @owned: pages the cache owns, on the stack or lent; at most @cap
 */
struct nvmeof_page_stack {
	struct nvmeof_data_page *pages;
	unsigned int nr;
	unsigned int cap;
	unsigned int owned;
};

/*
 * A request of @n pages: can the stack and new pages within @cap serve it
 * all? If so, @owned counts the new ones, which the caller allocates and
 * maps, after popping min(@n, @nr); *@fresh says how many. Else nothing
 * changes and it returns false.
 */
static inline bool nvmeof_page_stack_reserve(struct nvmeof_page_stack *s,
					     unsigned int n,
					     unsigned int *fresh)
{
	unsigned int f = n - min(n, s->nr);

	if (f > s->cap - s->owned)
		return false;
	s->owned += f;
	*fresh = f;
	return true;
}

/* @n pages the cache owned are gone back to the allocator (or never came) */
static inline void nvmeof_page_stack_disown(struct nvmeof_page_stack *s,
					    unsigned int n)
{
	s->owned -= min(n, s->owned);
}

/* Returns false, leaving the stack as it was, when it is full. */
static inline bool nvmeof_page_stack_push(struct nvmeof_page_stack *s,
					  struct nvmeof_data_page dp)
{
	if (s->nr >= s->cap)
		return false;
	s->pages[s->nr++] = dp;
	return true;
}

/*
 * Takes the entry pushed last into *dp and returns true, or returns false
 * (*dp untouched) when the stack is empty.
 */
static inline bool nvmeof_page_stack_pop(struct nvmeof_page_stack *s,
					 struct nvmeof_data_page *dp)
{
	if (!s->nr)
		return false;
	*dp = s->pages[--s->nr];
	return true;
}

#endif /* NVMEOF_PAGE_STACK_H */
