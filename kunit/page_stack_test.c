// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/page_stack.h, the bookkeeping of the target's
 * per-queue data page cache: bounded, LIFO, and never loses or invents a
 * page -- nor separates a page from its DMA address -- whatever the order
 * of pushes and pops.
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

static struct kunit_case nvmeof_page_stack_cases[] = {
	KUNIT_CASE(page_stack_lifo_and_bound_test),
	KUNIT_CASE(page_stack_zero_cap_test),
	KUNIT_CASE(page_stack_interleaved_test),
	{}
};

static struct kunit_suite nvmeof_page_stack_suite = {
	.name = "nvmeof_page_stack",
	.test_cases = nvmeof_page_stack_cases,
};

kunit_test_suite(nvmeof_page_stack_suite);
