// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for common/sq_count.h: send-queue accounting by a hardware
 * RNIC's rules (slots retire when a later signalled CQE is polled).
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "sq_count.h"

/* a queue of 10: what a command admits is what it may post */
static void admit_until_full_test(struct kunit *test)
{
	struct nvmeof_sq_count c;

	nvmeof_sq_init(&c, 10, 0);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 3));
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 3));
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 3));
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 2));	/* 9 + 2 */
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 1));	/* exactly 10 */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 1));
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 11));
}

/*
 * Unsignalled WRs keep their room after their command ended; the
 * signalled WR posted after them gives it all back once its CQE is polled.
 */
static void unsignalled_held_until_signalled_test(struct kunit *test)
{
	struct nvmeof_sq_count c;
	u32 mark;
	int i;

	nvmeof_sq_init(&c, 8, 0);
	for (i = 0; i < 3; i++) {	/* 3 commands of REG_MR + SEND */
		KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 2));
		mark = nvmeof_sq_post(&c, 2);
	}
	KUNIT_EXPECT_EQ(test, mark, 6);
	/* their responses came: nothing retired, 2 left */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 3));
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 2));
	mark = nvmeof_sq_post(&c, 2);		/* its SEND signalled */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 1));
	nvmeof_sq_retire(&c, mark);		/* its CQE polled */
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 8));
}

/* an older mark (a CQE polled late in the same order) changes nothing */
static void retire_only_forward_test(struct kunit *test)
{
	struct nvmeof_sq_count c;
	u32 first, second;

	nvmeof_sq_init(&c, 4, 0);
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 4));
	first = nvmeof_sq_post(&c, 2);
	second = nvmeof_sq_post(&c, 2);
	nvmeof_sq_retire(&c, second);
	nvmeof_sq_retire(&c, first);
	KUNIT_EXPECT_EQ(test, c.retired, second);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 4));
}

/* a LOCAL_INV reserved at admission, and given back when not needed */
static void local_inv_reserve_test(struct kunit *test)
{
	struct nvmeof_sq_count c;

	nvmeof_sq_init(&c, 3, 0);
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 3));	/* MR, SEND, INV */
	nvmeof_sq_retire(&c, nvmeof_sq_post(&c, 2));
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 3));	/* INV room */
	nvmeof_sq_unreserve(&c, 1);	/* the target invalidated remotely */
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 3));
}

/* a failed post: the WRs not taken hold nothing */
static void unpost_test(struct kunit *test)
{
	struct nvmeof_sq_count c;

	nvmeof_sq_init(&c, 4, 0);
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 4));
	nvmeof_sq_post(&c, 4);
	nvmeof_sq_unpost(&c, 3);		/* only the first went in */
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 3));
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 1));
}

/* the counters wrap after 2^32 WRs; the arithmetic does not care */
static void wrap_test(struct kunit *test)
{
	struct nvmeof_sq_count c;
	u32 mark;

	nvmeof_sq_init(&c, 4, 0);
	c.posted = U32_MAX - 1;
	c.retired = U32_MAX - 1;
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 4));
	mark = nvmeof_sq_post(&c, 4);
	KUNIT_EXPECT_EQ(test, mark, 2);
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 1));
	nvmeof_sq_retire(&c, mark);
	KUNIT_EXPECT_EQ(test, c.retired, 2);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 4));
}

/*
 * Two WRs of 8 kept for the AER: commands get 6; an AER SEND always finds
 * room until two are in flight; the oldest one's CQE retires it and every
 * command WR posted before it.
 */
static void kept_test(struct kunit *test)
{
	struct nvmeof_sq_count c;

	nvmeof_sq_init(&c, 8, 2);
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 3));
	nvmeof_sq_post(&c, 3);			/* unsignalled, all three */
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_kept_post(&c));	/* mark 4 */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 3));	/* 4 + 3 > 6 */
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_admit(&c, 2));
	nvmeof_sq_post(&c, 2);
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_kept_post(&c));	/* mark 7 */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_kept_post(&c));	/* both in flight */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 1));	/* 7 > 6 */
	nvmeof_sq_kept_done(&c);		/* the first AER's CQE */
	KUNIT_EXPECT_EQ(test, c.retired, 4);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_kept_post(&c));	/* mark 8: 4 used */
	nvmeof_sq_kept_unpost(&c);		/* ... but its post failed */
	KUNIT_EXPECT_EQ(test, c.posted, 7);
	nvmeof_sq_kept_done(&c);		/* the second */
	KUNIT_EXPECT_EQ(test, c.retired, 7);
	nvmeof_sq_kept_done(&c);		/* none in flight: no change */
	KUNIT_EXPECT_EQ(test, c.retired, 7);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_admit(&c, 6));
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_admit(&c, 1));
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_kept_post(&c));
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_kept_post(&c));
}

static struct kunit_case nvmeof_sq_count_cases[] = {
	KUNIT_CASE(admit_until_full_test),
	KUNIT_CASE(unsignalled_held_until_signalled_test),
	KUNIT_CASE(retire_only_forward_test),
	KUNIT_CASE(local_inv_reserve_test),
	KUNIT_CASE(unpost_test),
	KUNIT_CASE(wrap_test),
	KUNIT_CASE(kept_test),
	{}
};

static struct kunit_suite nvmeof_sq_count_suite = {
	.name = "nvmeof_sq_count",
	.test_cases = nvmeof_sq_count_cases,
};

kunit_test_suite(nvmeof_sq_count_suite);

MODULE_DESCRIPTION("KUnit tests for nvmeof-rdma send-queue accounting");
MODULE_LICENSE("GPL v2");
