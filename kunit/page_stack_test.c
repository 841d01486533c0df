// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/page_stack.h, the bookkeeping of the target's
 * per-queue data page cache: bounded, LIFO, and never loses or invents a
 * page -- nor separates a page from its DMA address -- whatever the order
 * of pushes and pops; and it owns no more pages than it can take back, so
 * none is unmapped before its queue goes.
 */
#include <kunit/test.h>
#include "page_stack.h"

#define CAP 4

/*
 * Distinct fake pages, each with its own fake DMA address; the stack never
 * dereferences them.
 */
static struct nvmeof_data_page fake(unsigned long i)
{
	return (struct nvmeof_data_page) {
		.page = (struct page *)(0x1000UL * (i + 1)),
		.dma_addr = 0xfff00000000ULL + 0x1000ULL * i,
	};
}

static void expect_popped(struct kunit *test, struct nvmeof_page_stack *s,
			  unsigned long i)
{
	struct nvmeof_data_page dp = { };

	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(s, &dp));
	KUNIT_EXPECT_PTR_EQ(test, dp.page, fake(i).page);
	KUNIT_EXPECT_EQ(test, dp.dma_addr, fake(i).dma_addr);
}

static void page_stack_lifo_and_bound_test(struct kunit *test)
{
	struct nvmeof_data_page slots[CAP], dp = fake(42);
	struct nvmeof_page_stack s = { .pages = slots, .cap = CAP };
	unsigned long i;

	/* empty: false, and the caller's entry left alone */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, &dp));
	KUNIT_EXPECT_PTR_EQ(test, dp.page, fake(42).page);
	for (i = 0; i < CAP; i++)
		KUNIT_EXPECT_TRUE(test, nvmeof_page_stack_push(&s, fake(i)));
	/* full: refused, and nothing overwritten */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, fake(99)));
	KUNIT_EXPECT_EQ(test, s.nr, CAP);
	for (i = CAP; i > 0; i--)
		expect_popped(test, &s, i - 1);
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, &dp));
	KUNIT_EXPECT_EQ(test, s.nr, 0u);
}

static void page_stack_zero_cap_test(struct kunit *test)
{
	struct nvmeof_page_stack s = { .pages = NULL, .cap = 0 };
	struct nvmeof_data_page dp;

	/* cached_pages=0: every page goes back to the allocator */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, fake(0)));
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, &dp));
}

static void page_stack_interleaved_test(struct kunit *test)
{
	struct nvmeof_data_page slots[CAP], dp;
	struct nvmeof_page_stack s = { .pages = slots, .cap = CAP };
	unsigned long pushed = 0, popped = 0, refused = 0, i;

	/*
	 * A fixed push/pop pattern: every page pushed comes out once, still
	 * paired with the DMA address it went in with.
	 */
	for (i = 0; i < 64; i++) {
		if (i % 3 != 2) {
			if (nvmeof_page_stack_push(&s, fake(i)))
				pushed++;
			else
				refused++;
		} else if (nvmeof_page_stack_pop(&s, &dp)) {
			unsigned long idx = (unsigned long)dp.page / 0x1000UL - 1;

			KUNIT_EXPECT_EQ(test, dp.dma_addr, fake(idx).dma_addr);
			popped++;
		}
		KUNIT_ASSERT_LE(test, s.nr, (unsigned int)CAP);
	}
	while (nvmeof_page_stack_pop(&s, &dp))
		popped++;
	KUNIT_EXPECT_EQ(test, pushed, popped);
	KUNIT_EXPECT_GT(test, refused, 0ul);
}

/* take the @n - @fresh cached pages of a reserved request off the stack */
static void pop_cached(struct kunit *test, struct nvmeof_page_stack *s,
		       unsigned int n, unsigned int fresh)
{
	struct nvmeof_data_page dp;

	while (n-- > fresh)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(s, &dp));
}

static void page_stack_reserve_within_cap_test(struct kunit *test)
{
	struct nvmeof_data_page slots[CAP];
	struct nvmeof_page_stack s = { .pages = slots, .cap = CAP };
	unsigned int fresh = 99, i;

	/* empty: a request of 3 gets 3 new pages, which the cache now owns */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, 3, &fresh));
	KUNIT_EXPECT_EQ(test, fresh, 3u);
	KUNIT_EXPECT_EQ(test, s.owned, 3u);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, fake(i)));
	/* 3 cached + 1 new: the bound reached */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, 4, &fresh));
	KUNIT_EXPECT_EQ(test, fresh, 1u);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP);
	pop_cached(test, &s, 4, fresh);
	/* all lent: refused, nothing counted, *fresh untouched */
	fresh = 99;
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, 1, &fresh));
	KUNIT_EXPECT_EQ(test, fresh, 99u);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP);
	/* every owned page comes back onto the stack */
	for (i = 0; i < CAP; i++)
		KUNIT_EXPECT_TRUE(test, nvmeof_page_stack_push(&s, fake(i)));
	/* more than the cache may ever own: refused, even with all cached */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, CAP + 1, &fresh));
	KUNIT_EXPECT_EQ(test, s.nr, (unsigned int)CAP);
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, CAP, &fresh));
	KUNIT_EXPECT_EQ(test, fresh, 0u);
	/* a zero-cap cache serves nothing */
	s = (struct nvmeof_page_stack) { .pages = NULL, .cap = 0 };
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, 1, &fresh));
}

static void page_stack_disown_test(struct kunit *test)
{
	struct nvmeof_page_stack s = { .cap = CAP, .owned = CAP };

	nvmeof_page_stack_disown(&s, 2);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP - 2);
	nvmeof_page_stack_disown(&s, CAP);
	KUNIT_EXPECT_EQ(test, s.owned, 0u);
}

/*
 * Requests of 1 to CAP + 1 pages come and go in a fixed pattern, several
 * in flight: a page the cache owns always finds room on the stack when it
 * comes back (none is ever released early), the cache never owns more
 * than CAP, and at the end it owns exactly what is on the stack.
 */
static void page_stack_owned_pages_come_back_test(struct kunit *test)
{
	struct nvmeof_data_page slots[CAP], dp;
	struct nvmeof_page_stack s = { .pages = slots, .cap = CAP };
	unsigned int inflight[3] = { }, fresh, i, k, served = 0, refused = 0;

	for (i = 0; i < 300; i++) {
		unsigned int slot = i % 3, n = 1 + (i * 7) % (CAP + 1);

		/* the request in this slot ends: its pages come back */
		for (k = 0; k < inflight[slot]; k++)
			KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, fake(k)));
		inflight[slot] = 0;
		if (nvmeof_page_stack_reserve(&s, n, &fresh)) {
			pop_cached(test, &s, n, fresh);
			inflight[slot] = n;
			served++;
		} else {
			refused++;
		}
		KUNIT_ASSERT_LE(test, s.owned, (unsigned int)CAP);
		KUNIT_ASSERT_EQ(test, s.owned,
				s.nr + inflight[0] + inflight[1] + inflight[2]);
	}
	for (i = 0; i < 3; i++)
		for (k = 0; k < inflight[i]; k++)
			KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, fake(k)));
	while (nvmeof_page_stack_pop(&s, &dp))
		nvmeof_page_stack_disown(&s, 1);
	KUNIT_EXPECT_EQ(test, s.owned, 0u);
	KUNIT_EXPECT_GT(test, served, 0u);
	KUNIT_EXPECT_GT(test, refused, 0u);
}

static struct kunit_case nvmeof_page_stack_cases[] = {
	KUNIT_CASE(page_stack_lifo_and_bound_test),
	KUNIT_CASE(page_stack_zero_cap_test),
	KUNIT_CASE(page_stack_interleaved_test),
	KUNIT_CASE(page_stack_reserve_within_cap_test),
	KUNIT_CASE(page_stack_disown_test),
	KUNIT_CASE(page_stack_owned_pages_come_back_test),
	{}
};

static struct kunit_suite nvmeof_page_stack_suite = {
	.name = "nvmeof_page_stack",
	.test_cases = nvmeof_page_stack_cases,
};

kunit_test_suite(nvmeof_page_stack_suite);
