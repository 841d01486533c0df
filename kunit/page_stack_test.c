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
#include "test_rand.h"
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
 * them and maps new ones) once as many requests of its direction were
 * refused, never lent ones, and the cache still owns at most CAP.
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
	/*
	 * a read of 3, refused until three reads were; then 3 new OUT pages,
	 * 3 IN pages given up for them
	 */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, OUT, 3, &fresh, &evict));
	KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_reserve(&s, OUT, 3, &fresh, &evict));
	KUNIT_EXPECT_EQ(test, fresh, 3u);
	KUNIT_EXPECT_EQ(test, evict, 3u);
	KUNIT_EXPECT_EQ(test, s.owned, (unsigned int)CAP);
	KUNIT_EXPECT_EQ(test, s.refused[OUT], 0u);
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
	/*
	 * a read of 4: the write its stack served wiped the reads' count, so
	 * refused once; then 3 cached OUT pages, the IN page given up for a
	 * new one
	 */
	KUNIT_EXPECT_EQ(test, s.refused[OUT], 0u);
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_reserve(&s, OUT, 4, &fresh, &evict));
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

/*
 * A queue's cache under a random load of 128 KiB reads and writes (and a
 * few 4 KiB ones), several in flight, as behind a server's IOMMU: every
 * page given up is an unmap and a map that a stock transfer of the same
 * request would not pay. The bound of common/page_stack.h: over any run,
 * pages given up <= requests refused (which paid stock's costs anyway).
 * Then the load turns to writes only: the cache goes over to them whole,
 * serving as many of the last writes from their stack as 64 pages hold.
 */
#define SIM_CAP 64
#define SIM_QD 8

struct page_sim {
	struct nvmeof_page_stack s;
	unsigned int lent[SIM_QD];
	enum nvmeof_page_dir dir[SIM_QD];
	unsigned int refused, evicted, hits;
	u32 rand;
};

/* the request in @slot ends (its pages come back), the next one starts */
static void page_sim_step(struct kunit *test, struct page_sim *p,
			  unsigned int slot, enum nvmeof_page_dir dir,
			  unsigned int n)
{
	unsigned int fresh, evict, k;
	struct nvmeof_data_page dp;

	for (k = 0; k < p->lent[slot]; k++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_push(&p->s, p->dir[slot],
							       fake(k)));
	p->lent[slot] = 0;
	p->hits = 0;
	if (!nvmeof_page_stack_reserve(&p->s, dir, n, &fresh, &evict)) {
		p->refused++;
		return;
	}
	for (k = 0; k < evict; k++)
		KUNIT_ASSERT_TRUE(test, nvmeof_page_stack_pop(&p->s,
							      nvmeof_page_dir_other(dir),
							      &dp));
	pop_cached(test, &p->s, dir, n, fresh);
	p->evicted += evict;
	p->hits = !fresh;
	p->lent[slot] = n;
	p->dir[slot] = dir;
	KUNIT_ASSERT_LE(test, p->s.owned, (unsigned int)SIM_CAP);
}

static void page_stack_mixed_load_test(struct kunit *test)
{
	struct page_sim *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct nvmeof_data_page *slots;
	unsigned int i, last_hits = 0;

	KUNIT_ASSERT_NOT_NULL(test, p);
	slots = kunit_kcalloc(test, 2 * SIM_CAP, sizeof(*slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	p->s = (struct nvmeof_page_stack) {
		.pages = { slots, slots + SIM_CAP }, .cap = SIM_CAP,
	};
	p->rand = 2463534242;
	for (i = 0; i < 20000; i++)
		page_sim_step(test, p, nvmeof_test_rand(&p->rand, SIM_QD),
			      nvmeof_test_rand(&p->rand, 2) ? IN : OUT,
			      nvmeof_test_rand(&p->rand, 8) ? 32 : 1);
	KUNIT_EXPECT_GT(test, p->refused, 0u);
	KUNIT_EXPECT_LE(test, p->evicted, p->refused);
	/* writes only: the cache goes over to them */
	for (i = 0; i < 2000; i++) {
		page_sim_step(test, p, i % SIM_QD, IN, 32);
		last_hits = i < 1000 ? 0 : last_hits + p->hits;
	}
	KUNIT_EXPECT_LE(test, p->evicted, p->refused);
	KUNIT_EXPECT_EQ(test, p->s.nr[OUT], 0u);
	/* two of eight in flight fit in 64 pages: a hit in every fourth */
	KUNIT_EXPECT_EQ(test, last_hits, 1000u / 4);
}

static struct kunit_case nvmeof_page_stack_cases[] = {
	KUNIT_CASE(page_stack_lifo_and_bound_test),
	KUNIT_CASE(page_stack_zero_cap_test),
	KUNIT_CASE(page_stack_interleaved_test),
	KUNIT_CASE(page_stack_reserve_within_cap_test),
	KUNIT_CASE(page_stack_disown_test),
	KUNIT_CASE(page_stack_direction_test),
	KUNIT_CASE(page_stack_owned_pages_come_back_test),
	KUNIT_CASE(page_stack_mixed_load_test),
	{}
};

static struct kunit_suite nvmeof_page_stack_suite = {
	.name = "nvmeof_page_stack",
	.test_cases = nvmeof_page_stack_cases,
};

kunit_test_suite(nvmeof_page_stack_suite);
