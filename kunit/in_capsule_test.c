// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/in_capsule.h: how many pages of in-capsule data a
 * device's receive buffers get for a port's param_inline_data_size, at
 * every boundary, and what those buffers cost.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include "in_capsule.h"

struct in_capsule_pages_case {
	const char *name;
	u32 asked;
	u32 recv_sge;
	u32 page_size;
	u32 pages;
};

static const struct in_capsule_pages_case in_capsule_pages_cases[] = {
	{ "none asked", 0, 32, SZ_4K, 0 },
	{ "one byte is a page", 1, 32, SZ_4K, 1 },
	{ "exactly a page", SZ_4K, 32, SZ_4K, 1 },
	{ "a page and a byte", SZ_4K + 1, 32, SZ_4K, 2 },
	{ "16 KiB (stock maximum)", SZ_16K, 32, SZ_4K, 4 },
	{ "64 KiB (our maximum)", SZ_64K, 32, SZ_4K, 16 },
	{ "64 KiB on 64 KiB pages", SZ_64K, 32, SZ_64K, 1 },
	/* the device decides: one SGE is the command's */
	{ "siw: 6 receive SGEs", SZ_64K, 6, SZ_4K, 5 },
	{ "SGEs exactly enough", SZ_16K, 5, SZ_4K, 4 },
	{ "one SGE short", SZ_16K, 4, SZ_4K, 3 },
	{ "a single SGE: no in-capsule data", SZ_64K, 1, SZ_4K, 0 },
	{ "no SGE at all", SZ_64K, 0, SZ_4K, 0 },
	/* no wrap: U32_MAX rounds up in 64 bits, the device caps it */
	{ "U32_MAX asked", U32_MAX, 32, SZ_4K, 31 },
	{ "U32_MAX asked, U32_MAX SGEs", U32_MAX, U32_MAX, SZ_4K, 1U << 20 },
	{ "U32_MAX SGEs, 1 byte", 1, U32_MAX, SZ_4K, 1 },
};

static void in_capsule_pages_desc(const struct in_capsule_pages_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(in_capsule_pages, in_capsule_pages_cases,
		  in_capsule_pages_desc);

static void nvmeof_in_capsule_pages_test(struct kunit *test)
{
	const struct in_capsule_pages_case *c = test->param_value;
	u32 pages = nvmeof_in_capsule_pages(c->asked, c->recv_sge, c->page_size);

	KUNIT_EXPECT_EQ(test, pages, c->pages);
	/* never more pages than the device has SGEs for; all that was asked
	 * for whenever the device is not the limit
	 */
	if (c->recv_sge < 2)
		return;
	KUNIT_EXPECT_LE(test, pages, c->recv_sge - 1);
	if (pages < c->recv_sge - 1)
		KUNIT_EXPECT_GE(test, (u64)pages * c->page_size, (u64)c->asked);
}

static void nvmeof_recv_buffer_bytes_test(struct kunit *test)
{
	/* no in-capsule data: the 64-byte commands only */
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(0, 128, SZ_4K), 128ULL * 64);
	/* a queue of 128 with 4 KiB (stock default) */
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(1, 128, SZ_4K),
			128ULL * (SZ_4K + 64));
	/* an SRQ of 1024 buffers of 64 KiB: past 2^26, exact */
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(16, 1024, SZ_4K),
			1024ULL * (SZ_64K + 64));
	/* the largest that fit, and past them U64_MAX rather than a wrap */
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(U32_MAX, 1, U32_MAX),
			(u64)U32_MAX * U32_MAX + 64);
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(U32_MAX, U32_MAX, SZ_4K),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(U32_MAX, U32_MAX, U32_MAX),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, nvmeof_recv_buffer_bytes(16, 0, SZ_4K), 0ULL);
}

static struct kunit_case nvmeof_in_capsule_cases[] = {
	KUNIT_CASE_PARAM(nvmeof_in_capsule_pages_test, in_capsule_pages_gen_params),
	KUNIT_CASE(nvmeof_recv_buffer_bytes_test),
	{}
};

static struct kunit_suite nvmeof_in_capsule_suite = {
	.name = "nvmeof_in_capsule",
	.test_cases = nvmeof_in_capsule_cases,
};

kunit_test_suite(nvmeof_in_capsule_suite);
