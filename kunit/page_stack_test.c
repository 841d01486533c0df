// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/page_stack.h, the bookkeeping of the target's
 * per-queue data page cache: bounded, LIFO, and never loses or invents a
 * page whatever the order of pushes and pops.
 */
#include <kunit/test.h>
#include "page_stack.h"

#define CAP 4

/* distinct fake page pointers; the stack never dereferences them */
static struct page *fake(unsigned long i)
{
	return (struct page *)(0x1000UL * (i + 1));
}

static void page_stack_lifo_and_bound_test(struct kunit *test)
{
	struct page *slots[CAP];
	struct nvmeof_page_stack s = { .pages = slots, .cap = CAP };
	unsigned long i;

	KUNIT_EXPECT_NULL(test, nvmeof_page_stack_pop(&s));
	for (i = 0; i < CAP; i++)
		KUNIT_EXPECT_TRUE(test, nvmeof_page_stack_push(&s, fake(i)));
	/* full: refused, and nothing overwritten */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, fake(99)));
	KUNIT_EXPECT_EQ(test, s.nr, CAP);
	for (i = CAP; i > 0; i--)
		KUNIT_EXPECT_PTR_EQ(test, nvmeof_page_stack_pop(&s), fake(i - 1));
	KUNIT_EXPECT_NULL(test, nvmeof_page_stack_pop(&s));
	KUNIT_EXPECT_EQ(test, s.nr, 0u);
}

static void page_stack_zero_cap_test(struct kunit *test)
{
	struct nvmeof_page_stack s = { .pages = NULL, .cap = 0 };

	/* cached_pages=0: every page goes back to the allocator */
	KUNIT_EXPECT_FALSE(test, nvmeof_page_stack_push(&s, fake(0)));
	KUNIT_EXPECT_NULL(test, nvmeof_page_stack_pop(&s));
}

static void page_stack_interleaved_test(struct kunit *test)
{
	struct page *slots[CAP];
	struct nvmeof_page_stack s = { .pages = slots, .cap = CAP };
	unsigned long pushed = 0, popped = 0, refused = 0, i;
	struct page *p;

	/* a fixed push/pop pattern: every page pushed comes out once */
	for (i = 0; i < 64; i++) {
		if (i % 3 != 2) {
			if (nvmeof_page_stack_push(&s, fake(i)))
				pushed++;
			else
				refused++;
		} else if (nvmeof_page_stack_pop(&s)) {
			popped++;
		}
		KUNIT_ASSERT_LE(test, s.nr, (unsigned int)CAP);
	}
	while ((p = nvmeof_page_stack_pop(&s)))
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
