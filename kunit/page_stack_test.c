// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/page_stack.h, the bookkeeping of the target's
 * per-queue data page cache: bounded, LIFO, and never loses or invents a
 * page -- nor separates a page from its DMA address, nor serves a page
 * mapped for one direction to a request of the other -- whatever the order
 * of pushes and pops; and it owns no more pages than it can take back, so
 * none is unmapped while it is lent.
 */
#include <kunit/test.h>
#include "page_stack.h"

#define CAP 4
#define IN NVMEOF_PAGES_IN
#define OUT NVMEOF_PAGES_OUT

/* a cache of CAP pages a direction, empty */
#define CACHE(out_slots, in_slots) \
	((struct nvmeof_page_stack) { .pages = { out_slots, in_slots }, .cap = CAP })

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
			  enum nvmeof_page_dir dir, unsigned long i)
{
	struct nvmeof_data_page dp = { };

	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(s, dir, &dp));
	KUNIT_EXPECT_PTR_EQ(test, dp.page, fake(i).page);
	KUNIT_EXPECT_EQ(test, dp.dma_addr, fake(i).dma_addr);
}

static void page_stack_lifo_and_bound_test(struct kunit *test)
{
	struct nvmeof_data_page out[CAP], in[CAP], dp = fake(42);
	struct nvmeof_page_stack s = CACHE(out, in);
	unsigned long i;

	/* empty: false, and the caller's entry left alone */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, IN, &dp));
	KUNIT_EXPECT_PTR_EQ(test, dp.page, fake(42).page);
	for (i = 0; i < CAP; i++)
		KUNIT_EXPECT_TRUE(test, nvmeof_page_stack_push(&s, IN, fake(i)));
	/* full: refused, and nothing overwritten */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, IN, fake(99)));
	KUNIT_EXPECT_EQ(test, s.nr[IN], CAP);
	/* the other direction's stack is another one: empty, and has room */
	KUNIT_EXPECT_EQ(test, s.nr[OUT], 0u);
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, OUT, &dp));
	KUNIT_EXPECT_TRUE(test, nvmeof_page_stack_push(&s, OUT, fake(7)));
	for (i = CAP; i > 0; i--)
		expect_popped(test, &s, IN, i - 1);
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, IN, &dp));
	KUNIT_EXPECT_EQ(test, s.nr[IN], 0u);
	expect_popped(test, &s, OUT, 7);
}

static void page_stack_zero_cap_test(struct kunit *test)
{
	struct nvmeof_page_stack s = { .cap = 0 };
	struct nvmeof_data_page dp;

	/* cached_pages=0: every page goes back to the allocator */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, IN, fake(0)));
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, OUT, fake(0)));
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_pop(&s, OUT, &dp));
}

static void page_stack_interleaved_test(struct kunit *test)
{
	struct nvmeof_data_page out[CAP], in[CAP], dp;
	struct nvmeof_page_stack s = CACHE(out, in);
	unsigned long pushed = 0, popped = 0, refused = 0, i;

	/*
	 * A fixed push/pop pattern: every page pushed comes out once, still
	 * paired with the DMA address it went in with.
	 */
	for (i = 0; i < 64; i++) {
		if (i % 3 != 2) {
			if (nvmeof_page_stack_push(&s, OUT, fake(i)))
				pushed++;
			else
				refused++;
		} else if (nvmeof_page_stack_pop(&s, OUT, &dp)) {
			unsigned long idx = (unsigned long)dp.page / 0x1000UL - 1;

			KUNIT_EXPECT_EQ(test, dp.dma_addr, fake(idx).dma_addr);
			popped++;
		}
		KUNIT_ASSERT_LE(test, s.nr[OUT], (unsigned int)CAP);
	}
	while (nvmeof_page_stack_pop(&s, OUT, &dp))
		popped++;
	KUNIT_EXPECT_EQ(test, pushed, popped);
	KUNIT_EXPECT_GT(test, refused, 0ul);
}

/* take the @n - @fresh cached pages of a reserved request off @dir's stack */
static void pop_cached(struct kunit *test, struct nvmeof_page_stack *s,
		       enum nvmeof_page_dir dir, unsigned int n,
		       unsigned int fresh)
{
	struct nvmeof_data_page dp;

	while (n-- > fresh)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(s, dir, &dp));
}

static void page_stack_reserve_within_cap_test(struct kunit *test)
{
	struct nvmeof_data_page out[CAP], in[CAP];
	struct nvmeof_page_stack s = CACHE(out, in);
	unsigned int fresh = 99, evict = 99, i;

	/* empty: a request of 3 gets 3 new pages, which the cache now owns */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, IN, 3, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 3u);
	KUNIT_EXPECT_EQ(test, evict, 0u);
	KUNIT_EXPECT_EQ(test, s.owned, 3u);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, IN, fake(i)));
	/* 3 cached + 1 new: the bound reached */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, IN, 4, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 1u);
	KUNIT_EXPECT_EQ(test, evict, 0u);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP);
	pop_cached(test, &s, IN, 4, fresh);
	/* all lent: refused, nothing counted, *fresh and *evict untouched */
	fresh = 99;
	evict = 99;
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, IN, 1, &fresh, &evict));
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, OUT, 1, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 99u);
	KUNIT_EXPECT_EQ(test, evict, 99u);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP);
	/* every owned page comes back onto its stack */
	for (i = 0; i < CAP; i++)
		KUNIT_EXPECT_TRUE(test, nvmeof_page_stack_push(&s, IN, fake(i)));
	/* more than the cache may ever own: refused, even with all cached */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, IN, CAP + 1, &fresh, &evict));
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, OUT, CAP + 1, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, s.nr[IN], (unsigned int)CAP);
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, IN, CAP, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 0u);
	KUNIT_EXPECT_EQ(test, evict, 0u);
	/* a zero-cap cache serves nothing */
	s = (struct nvmeof_page_stack) { .cap = 0 };
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, IN, 1, &fresh, &evict));
}

/*
 * A request is served only pages mapped for its own direction: at the
 * bound, idle pages of the other direction make room (the caller releases
 * them and maps new ones), never lent ones, and the cache still owns at
 * most CAP.
 */
static void page_stack_direction_test(struct kunit *test)
{
	struct nvmeof_data_page out[CAP], in[CAP], dp;
	struct nvmeof_page_stack s = CACHE(out, in);
	unsigned int fresh, evict, i;

	/* CAP write pages, all idle on the IN stack */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, IN, CAP, &fresh, &evict));
	for (i = 0; i < CAP; i++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, IN, fake(i)));
	/* a read of 3: 3 new OUT pages, 3 IN pages given up for them */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, OUT, 3, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 3u);
	KUNIT_EXPECT_EQ(test, evict, 3u);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP);
	/* (reserve counted them out: the caller releases them) */
	for (i = 0; i < evict; i++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(&s, IN, &dp));
	KUNIT_EXPECT_EQ(test, s.nr[IN], 1u);
	/* a write of 2: its one cached page, and the read's pages are lent */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, IN, 2, &fresh, &evict));
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, IN, 1, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 0u);
	KUNIT_EXPECT_EQ(test, evict, 0u);
	expect_popped(test, &s, IN, 0);
	/* the read's pages come back to OUT, the write's to IN */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, OUT, fake(10 + i)));
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, IN, fake(0)));
	KUNIT_EXPECT_EQ(test, s.nr[OUT] + s.nr[IN], s.owned);
	/* a read of 4: 3 cached OUT pages, the IN page given up for a new one */
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, OUT, 4, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 1u);
	KUNIT_EXPECT_EQ(test, evict, 1u);
	/* a read of CAP with CAP OUT pages cached takes them all, nothing new */
	s = CACHE(out, in);
	s.owned = CAP;
	for (i = 0; i < CAP; i++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, OUT, fake(i)));
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, OUT, CAP, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 0u);
	KUNIT_EXPECT_EQ(test, evict, 0u);
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
 * Reads and writes of 1 to CAP + 1 pages come and go in a fixed pattern,
 * several in flight: a page the cache owns always finds room on its
 * direction's stack when it comes back (none is ever released while lent),
 * the cache never owns more than CAP, idle pages of the other direction
 * make room at the bound, and at the end it owns exactly what is on the
 * stacks.
 */
static void page_stack_owned_pages_come_back_test(struct kunit *test)
{
	struct nvmeof_data_page out[CAP], in[CAP], dp;
	struct nvmeof_page_stack s = CACHE(out, in);
	unsigned int inflight[3] = { }, fresh, evict, i, k;
	unsigned int served = 0, refused = 0, evicted = 0;
	enum nvmeof_page_dir dirs[3] = { OUT, OUT, OUT }, dir, other;

	for (i = 0; i < 300; i++) {
		unsigned int slot = i % 3, n = 1 + (i * 7) % (CAP + 1);

		/* the request in this slot ends: its pages come back */
		for (k = 0; k < inflight[slot]; k++)
			KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, dirs[slot],
								       fake(k)));
		inflight[slot] = 0;
		/* reads and writes in runs of a few, as a mixed workload */
		dir = (i / 5) % 3 ? IN : OUT;
		other = nvmeof_page_dir_other(dir);
		if (nvmeof_page_stack_reserve(&s, dir, n, &fresh, &evict)) {
			for (k = 0; k < evict; k++)
				KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(&s, other, &dp));
			pop_cached(test, &s, dir, n, fresh);
			inflight[slot] = n;
			dirs[slot] = dir;
			served++;
			evicted += evict;
		} else {
			refused++;
		}
		KUNIT_ASSERT_LE(test, s.owned, (unsigned int)CAP);
		KUNIT_ASSERT_EQ(test, s.owned, s.nr[OUT] + s.nr[IN] +
				inflight[0] + inflight[1] + inflight[2]);
	}
	for (i = 0; i < 3; i++)
		for (k = 0; k < inflight[i]; k++)
			KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&s, dirs[i], fake(k)));
	for (dir = 0; dir < NVMEOF_PAGE_DIRS; dir++)
		while (nvmeof_page_stack_pop(&s, dir, &dp))
			nvmeof_page_stack_disown(&s, 1);
	KUNIT_EXPECT_EQ(test, s.owned, 0u);
	KUNIT_EXPECT_GT(test, served, 0u);
	KUNIT_EXPECT_GT(test, refused, 0u);
	KUNIT_EXPECT_GT(test, evicted, 0u);
}

static struct kunit_case nvmeof_page_stack_cases[] = {
	KUNIT_CASE(page_stack_lifo_and_bound_test),
	KUNIT_CASE(page_stack_zero_cap_test),
	KUNIT_CASE(page_stack_interleaved_test),
	KUNIT_CASE(page_stack_reserve_within_cap_test),
	KUNIT_CASE(page_stack_disown_test),
	KUNIT_CASE(page_stack_direction_test),
	KUNIT_CASE(page_stack_owned_pages_come_back_test),
	{}
};

static struct kunit_suite nvmeof_page_stack_suite = {
	.name = "nvmeof_page_stack",
	.test_cases = nvmeof_page_stack_cases,
};

kunit_test_suite(nvmeof_page_stack_suite);
