/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded LIFO of free pages: the bookkeeping of a page cache, without
 * its locking (the caller's) or its allocation (the caller's), so that it
 * can be unit tested on its own.
 */
#ifndef NVMEOF_PAGE_STACK_H
#define NVMEOF_PAGE_STACK_H

#include <linux/types.h>

struct page;

/**
 * struct nvmeof_page_stack - a bounded stack of pages
 * @pages: room for @cap page pointers
 * @nr: pages on the stack
 * @cap: most pages the stack holds
 */
struct nvmeof_page_stack {
	struct page **pages;
	unsigned int nr;
	unsigned int cap;
};

/* Returns false, leaving the stack as it was, when it is full. */
static inline bool nvmeof_page_stack_push(struct nvmeof_page_stack *s,
					  struct page *page)
{
	if (s->nr >= s->cap)
		return false;
	s->pages[s->nr++] = page;
	return true;
}

/* Returns the page pushed last, or NULL when the stack is empty. */
static inline struct page *nvmeof_page_stack_pop(struct nvmeof_page_stack *s)
{
	return s->nr ? s->pages[--s->nr] : NULL;
}

#endif /* NVMEOF_PAGE_STACK_H */
