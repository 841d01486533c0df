// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/rdma_wrs.h, the target's RDMA READ/WRITE work
 * requests over premapped data pages: how many a transfer takes at every
 * boundary (no overflow), and that the requests cover the remote buffer
 * exactly once, in order, chained, with every entry used once.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include "rdma_wrs.h"

struct wr_count_case {
	const char *name;
	u32 nr_sge;
	u32 max_sge;
	u32 wrs;
};

static const struct wr_count_case wr_count_cases[] = {
	{ "nothing", 0, 32, 0 },
	{ "a page", 1, 32, 1 },
	{ "exactly one request", 32, 32, 1 },
	{ "one entry over", 33, 32, 2 },
	{ "1 MiB, 32 per request (rxe)", 256, 32, 8 },
	{ "1 MiB, 30 per request (mlx5)", 256, 30, 9 },
	{ "1 MiB, one per request", 256, 1, 256 },
	{ "no entry per request: cannot post", 8, 0, 0 },
	/* no wrap where nr + max - 1 would */
	{ "U32_MAX entries, 2 per request", U32_MAX, 2, (U32_MAX >> 1) + 1 },
	{ "U32_MAX entries, U32_MAX per request", U32_MAX, U32_MAX, 1 },
	{ "U32_MAX - 1 entries, U32_MAX per request", U32_MAX - 1, U32_MAX, 1 },
};

static void wr_count_desc(const struct wr_count_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(wr_count, wr_count_cases, wr_count_desc);

static void wr_count_test(struct kunit *test)
{
	const struct wr_count_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvmeof_rdma_wr_count(c->nr_sge, c->max_sge),
			c->wrs);
}

/*
 * Lays @nr_sge entries of different lengths out over requests of @max_sge
 * each, on arrays poisoned first (so that a field left unset shows), and
 * checks every request against the one a by-hand walk expects.
 */
static void check_layout(struct kunit *test, u32 nr_sge, u32 max_sge,
			 enum ib_wr_opcode opcode)
{
	u32 nr_wrs = nvmeof_rdma_wr_count(nr_sge, max_sge), i, j, seen = 0;
	const u64 remote = 0xffffffff00001000ULL;
	const u32 rkey = 0x12345678;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sges;
	u64 moved, expect_len = 0, at = remote;

	wrs = kunit_kmalloc_array(test, nr_wrs + 1, sizeof(*wrs), GFP_KERNEL);
	sges = kunit_kmalloc_array(test, nr_sge, sizeof(*sges), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wrs);
	KUNIT_ASSERT_NOT_NULL(test, sges);
	memset(wrs, 0xa5, (nr_wrs + 1) * sizeof(*wrs));
	for (i = 0; i < nr_sge; i++) {
		/* the last page may be partly used */
		sges[i] = (struct ib_sge) {
			.addr = 0x100000ULL * (i + 1),
			.length = i + 1 < nr_sge ? SZ_4K : 512,
			.lkey = 7,
		};
		expect_len += sges[i].length;
	}

	moved = nvmeof_build_rdma_wrs(wrs, sges, nr_sge, max_sge, opcode,
				      remote, rkey);
	KUNIT_EXPECT_EQ(test, moved, expect_len);

	for (i = 0; i < nr_wrs; i++) {
		struct ib_send_wr *wr = &wrs[i].wr;

		KUNIT_EXPECT_EQ(test, wr->opcode, opcode);
		KUNIT_EXPECT_EQ(test, wrs[i].rkey, rkey);
		KUNIT_EXPECT_EQ(test, wrs[i].remote_addr, at);
		/* unsignalled, no handler: the caller finishes the last */
		KUNIT_EXPECT_EQ(test, wr->send_flags, 0u);
		KUNIT_EXPECT_NULL(test, wr->wr_cqe);
		KUNIT_EXPECT_PTR_EQ(test, wr->next,
				    i + 1 < nr_wrs ? &wrs[i + 1].wr : NULL);
		/* the entries in order, none skipped or repeated */
		KUNIT_EXPECT_PTR_EQ(test, wr->sg_list, &sges[seen]);
		KUNIT_EXPECT_EQ(test, wr->num_sge,
				(int)min(max_sge, nr_sge - seen));
		for (j = 0; j < wr->num_sge; j++)
			at += wr->sg_list[j].length;
		seen += wr->num_sge;
	}
	KUNIT_EXPECT_EQ(test, seen, nr_sge);
	KUNIT_EXPECT_EQ(test, at - remote, expect_len);
	/* nothing written past the requests the count said */
	KUNIT_EXPECT_EQ(test, wrs[nr_wrs].rkey, 0xa5a5a5a5u);
}

static void build_rdma_wrs_test(struct kunit *test)
{
	check_layout(test, 1, 32, IB_WR_RDMA_WRITE);
	check_layout(test, 32, 32, IB_WR_RDMA_READ);
	check_layout(test, 33, 32, IB_WR_RDMA_READ);
	check_layout(test, 256, 30, IB_WR_RDMA_WRITE);
	check_layout(test, 256, 1, IB_WR_RDMA_READ);
	check_layout(test, 7, 3, IB_WR_RDMA_WRITE);
}

static void build_rdma_wrs_no_sge_test(struct kunit *test)
{
	struct ib_rdma_wr wr = { .rkey = 0xa5 };
	struct ib_sge sge = { .length = SZ_4K };

	/* a queue pair taking no entry per request: nothing laid out */
	KUNIT_EXPECT_EQ(test, nvmeof_build_rdma_wrs(&wr, &sge, 1, 0,
						    IB_WR_RDMA_READ, 0, 1),
			0ULL);
	KUNIT_EXPECT_EQ(test, wr.rkey, 0xa5u);
	KUNIT_EXPECT_EQ(test, nvmeof_build_rdma_wrs(&wr, &sge, 0, 32,
						    IB_WR_RDMA_READ, 0, 1),
			0ULL);
	KUNIT_EXPECT_EQ(test, wr.rkey, 0xa5u);
}

static struct kunit_case nvmeof_rdma_wrs_cases[] = {
	KUNIT_CASE_PARAM(wr_count_test, wr_count_gen_params),
	KUNIT_CASE(build_rdma_wrs_test),
	KUNIT_CASE(build_rdma_wrs_no_sge_test),
	{}
};

static struct kunit_suite nvmeof_rdma_wrs_suite = {
	.name = "nvmeof_rdma_wrs",
	.test_cases = nvmeof_rdma_wrs_cases,
};

kunit_test_suite(nvmeof_rdma_wrs_suite);
