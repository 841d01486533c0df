// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for common/sq_count.h: send-queue accounting by a hardware
 * RNIC's rules (slots retire when a later signalled CQE is polled).
 */
#include <kunit/test.h>
#include "test_rand.h"
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

/* at most unsignalled_max WRs after the newest signalled one */
static void signal_due_test(struct kunit *test)
{
	struct nvmeof_sq_count c;

	nvmeof_sq_init(&c, 24, 0);
	KUNIT_EXPECT_EQ(test, c.unsignalled_max, 12);	/* half, by default */
	nvmeof_sq_limit_unsignalled(&c, 100);
	KUNIT_EXPECT_EQ(test, c.unsignalled_max, 12);	/* never more */
	nvmeof_sq_limit_unsignalled(&c, 4);
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 2));
	nvmeof_sq_post(&c, 2);
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 2));	/* 4 */
	nvmeof_sq_post(&c, 2);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_signal_due(&c, 1));	/* 5 */
	KUNIT_EXPECT_EQ(test, nvmeof_sq_post_signalled(&c, 2), 6);
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 4));
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_signal_due(&c, 5));
	/* an AER's SEND in a kept WR is signalled too */
	nvmeof_sq_init(&c, 8, 2);
	KUNIT_EXPECT_EQ(test, c.unsignalled_max, 3);
	nvmeof_sq_post(&c, 3);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_signal_due(&c, 1));
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_kept_post(&c));
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 3));
}

/* a signalled WR that the device did not take signals nothing */
static void unpost_signalled_test(struct kunit *test)
{
	struct nvmeof_sq_count c;

	nvmeof_sq_init(&c, 24, 2);
	nvmeof_sq_limit_unsignalled(&c, 8);
	nvmeof_sq_post(&c, 2);
	nvmeof_sq_post_signalled(&c, 2);
	nvmeof_sq_post(&c, 2);
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 1));
	nvmeof_sq_unpost(&c, 2);	/* only the unsignalled one failed */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 8));
	nvmeof_sq_unpost(&c, 2);	/* the signalled one too */
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_signal_due(&c, 1));
	nvmeof_sq_post_signalled(&c, 1);
	KUNIT_ASSERT_TRUE(test, nvmeof_sq_kept_post(&c));	/* an AER */
	KUNIT_EXPECT_FALSE(test, nvmeof_sq_signal_due(&c, 1));
	nvmeof_sq_kept_unpost(&c);
	KUNIT_EXPECT_TRUE(test, nvmeof_sq_signal_due(&c, 1));
}

/*
 * A host queue of SIM_QD commands on a send queue of exactly three WRs per
 * command (no slack), driven in a random order that a fabric allows:
 * commands dispatched (a REG_MR or not, each admitted or sent back),
 * answered in any order (a reserved LOCAL_INV posted or made needless),
 * signalled CQEs polled in posting order. Whenever no signalled WR is in
 * flight and nothing is reserved, no later CQE can retire anything: a
 * command of three WRs must fit then, or the queue has stalled for good.
 */
#define SIM_QD		16
#define SIM_STEPS	200000

struct sim_cmd {
	bool busy, answered, inv_reserved;
	int cqes_due;		/* signalled WRs of its own still in flight */
};

struct sim {
	struct nvmeof_sq_count c;
	struct sim_cmd cmd[SIM_QD];
	u32 marks[3 * SIM_QD];	/* signalled WRs in flight, oldest first */
	int owner[3 * SIM_QD];
	int head, nr;
	u32 rand;
	bool remote_inv_only;
};

static void sim_signalled(struct sim *s, int i, u32 mark)
{
	int tail = (s->head + s->nr++) % ARRAY_SIZE(s->marks);

	s->marks[tail] = mark;
	s->owner[tail] = i;
	s->cmd[i].cqes_due++;
}

/* a command of @n WRs to post (and a LOCAL_INV reserved if it has an MR) */
static void sim_dispatch(struct sim *s, int i, u32 n)
{
	struct sim_cmd *cmd = &s->cmd[i];
	bool has_mr = n == 2;

	if (!nvmeof_sq_admit(&s->c, n + has_mr))
		return;			/* back to blk-mq */
	*cmd = (struct sim_cmd){ .busy = true, .inv_reserved = has_mr };
	if (nvmeof_sq_signal_due(&s->c, n))
		sim_signalled(s, i, nvmeof_sq_post_signalled(&s->c, n));
	else
		nvmeof_sq_post(&s->c, n);
}

static void sim_answer(struct sim *s, int i)
{
	struct sim_cmd *cmd = &s->cmd[i];

	cmd->answered = true;
	if (!cmd->inv_reserved)
		return;
	cmd->inv_reserved = false;
	if (s->remote_inv_only || nvmeof_test_rand(&s->rand, 2))
		nvmeof_sq_unreserve(&s->c, 1);	/* invalidated remotely */
	else
		sim_signalled(s, i, nvmeof_sq_post_signalled(&s->c, 1));
}

static void sim_poll(struct sim *s)
{
	int i = s->owner[s->head];

	nvmeof_sq_retire(&s->c, s->marks[s->head]);
	s->head = (s->head + 1) % ARRAY_SIZE(s->marks);
	s->nr--;
	s->cmd[i].cqes_due--;
}

/*
 * @adverse: every command is refused once before it is admitted (as at a
 * full queue's edge, where each blk-mq run ends on a refused command) and
 * every response invalidates remotely (a Linux target's do), so no
 * LOCAL_INV signals: a signal decided per attempt before admission (the
 * host's rule until this test) went to the refused attempts there, one
 * phase in two, and nothing retired the queue again.
 */
static void sim_run(struct kunit *test, bool adverse)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	unsigned long stuck_checks = 0;
	int step, i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->rand = 2463534242;
	s->remote_inv_only = adverse;
	nvmeof_sq_init(&s->c, 3 * SIM_QD, 0);
	nvmeof_sq_limit_unsignalled(&s->c, SIM_QD / 4);	/* as the host */
	for (step = 0; step < SIM_STEPS; step++) {
		i = nvmeof_test_rand(&s->rand, SIM_QD);
		switch (nvmeof_test_rand(&s->rand, 3)) {
		case 0:
			if (s->cmd[i].busy)
				break;
			if (adverse)	/* more than the queue holds */
				sim_dispatch(s, i, 3 * SIM_QD + 1);
			/* a REG_MR before its SEND, or not */
			sim_dispatch(s, i, 1 + nvmeof_test_rand(&s->rand, 2));
			break;
		case 1:
			if (s->cmd[i].busy && !s->cmd[i].answered)
				sim_answer(s, i);
			break;
		default:
			if (s->nr)
				sim_poll(s);
			break;
		}
		/* a command ends on its answer and its own signalled CQEs */
		if (s->cmd[i].answered && !s->cmd[i].cqes_due)
			s->cmd[i].busy = false;
		KUNIT_ASSERT_LE(test, s->c.posted - s->c.signalled,
				s->c.unsignalled_max);
		if (s->nr || s->c.reserved)
			continue;
		stuck_checks++;
		KUNIT_ASSERT_TRUE_MSG(test, nvmeof_sq_admit(&s->c, 3),
				      "stalled at step %d: %u WRs outstanding, none signalled",
				      step, s->c.posted - s->c.retired);
		nvmeof_sq_unreserve(&s->c, 3);
	}
	/* the property was put to the test, not only when the queue was idle */
	KUNIT_EXPECT_GT(test, stuck_checks, SIM_STEPS / 1000);
	KUNIT_EXPECT_GT(test, s->c.posted, SIM_STEPS / 10);
}

static void no_stall_test(struct kunit *test)
{
	sim_run(test, false);
}

static void no_stall_adverse_test(struct kunit *test)
{
	sim_run(test, true);
}

static struct kunit_case nvmeof_sq_count_cases[] = {
	KUNIT_CASE(admit_until_full_test),
	KUNIT_CASE(unsignalled_held_until_signalled_test),
	KUNIT_CASE(retire_only_forward_test),
	KUNIT_CASE(local_inv_reserve_test),
	KUNIT_CASE(unpost_test),
	KUNIT_CASE(wrap_test),
	KUNIT_CASE(kept_test),
	KUNIT_CASE(signal_due_test),
	KUNIT_CASE(unpost_signalled_test),
	KUNIT_CASE(no_stall_test),
	KUNIT_CASE(no_stall_adverse_test),
	{}
};

static struct kunit_suite nvmeof_sq_count_suite = {
	.name = "nvmeof_sq_count",
	.test_cases = nvmeof_sq_count_cases,
};

kunit_test_suite(nvmeof_sq_count_suite);

MODULE_DESCRIPTION("KUnit tests for nvmeof-rdma send-queue accounting");
MODULE_LICENSE("GPL v2");
