// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/mem_reserve.h: the target's default memory
 * reserve for every size of machine, and whether a queue's buffers fit
 * above a reserve, at the boundaries and past them.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include "mem_reserve.h"

static void nvmeof_mem_reserve_auto_test(struct kunit *test)
{
	/* 1/64 of memory between the bounds */
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(4096), 64U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(16384), 256U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(65535), 1023U);
	/* the bounds */
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(2048), 32U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(2047), 32U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(65536), 1024U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(1ULL << 40), 1024U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(U64_MAX), 1024U);
	/* never more than half: a small guest takes connections */
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(64), 32U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(63), 31U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(1), 0U);
	KUNIT_EXPECT_EQ(test, nvmeof_mem_reserve_auto_mb(0), 0U);
}

static void nvmeof_mem_admits_test(struct kunit *test)
{
	u64 avail = 100ULL << 20;

	/* exactly the reserve left: in; a byte less: out */
	KUNIT_EXPECT_TRUE(test, nvmeof_mem_admits(36ULL << 20, avail, 64));
	KUNIT_EXPECT_FALSE(test, nvmeof_mem_admits((36ULL << 20) + 1, avail, 64));
	KUNIT_EXPECT_TRUE(test, nvmeof_mem_admits(0, avail, 100));
	KUNIT_EXPECT_FALSE(test, nvmeof_mem_admits(1, avail, 100));
	/* a need beyond what is available never fits (no wrap) */
	KUNIT_EXPECT_FALSE(test, nvmeof_mem_admits(avail + 1, avail, 1));
	KUNIT_EXPECT_FALSE(test, nvmeof_mem_admits(U64_MAX, avail, 1));
	KUNIT_EXPECT_FALSE(test, nvmeof_mem_admits(1, 0, 1));
	/* a reserve past what a u32 of bytes holds is not truncated */
	KUNIT_EXPECT_FALSE(test, nvmeof_mem_admits(0, 4ULL << 30, 4097));
	KUNIT_EXPECT_TRUE(test, nvmeof_mem_admits(0, 4ULL << 30, 4096));
	KUNIT_EXPECT_TRUE(test, nvmeof_mem_admits(SZ_1M, U64_MAX, U32_MAX));
	/* 0: the check is off, whatever is available */
	KUNIT_EXPECT_TRUE(test, nvmeof_mem_admits(U64_MAX, 0, 0));
	KUNIT_EXPECT_TRUE(test, nvmeof_mem_admits(SZ_1M, avail, 0));
}

static void nvmeof_mr_pool_bytes_test(struct kunit *test)
{
	/* an I/O queue of 128 on siw: 128 MRs of 256 pages, 8.5 KiB each */
	KUNIT_EXPECT_EQ(test, nvmeof_mr_pool_bytes(128, 256), 128ULL * 8704);
	/* at least what siw's slab takes for its page list, per MR */
	KUNIT_EXPECT_GE(test, nvmeof_mr_pool_bytes(1, 256), 8192ULL);
	KUNIT_EXPECT_EQ(test, nvmeof_mr_pool_bytes(0, 256), 0ULL);
	KUNIT_EXPECT_EQ(test, nvmeof_mr_pool_bytes(1, 0),
			(u64)NVMEOF_MR_BYTES_FIXED);
	/* no wrap at the extremes */
	KUNIT_EXPECT_EQ(test, nvmeof_mr_pool_bytes(U32_MAX, U16_MAX),
			(u64)U32_MAX * ((u64)U16_MAX * 32 + 512));
}

static struct kunit_case nvmeof_mem_reserve_cases[] = {
	KUNIT_CASE(nvmeof_mem_reserve_auto_test),
	KUNIT_CASE(nvmeof_mem_admits_test),
	KUNIT_CASE(nvmeof_mr_pool_bytes_test),
	{}
};

static struct kunit_suite nvmeof_mem_reserve_suite = {
	.name = "nvmeof_mem_reserve",
	.test_cases = nvmeof_mem_reserve_cases,
};

kunit_test_suite(nvmeof_mem_reserve_suite);
