// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rxe-hw's send-queue rule, run against a live rxe-hw device
 * (tests/rxe-hw-rules.sh adds it, then loads this module). Two RC QPs on
 * the device are connected to each other and post LOCAL_INVs of an MR that
 * was never registered: work requests that complete without the wire, in
 * the order posted, and are among those rxe leaves unnumbered (rxe_hw.c).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "rxe_hw.h"

static char *rdma_dev = "rxehw0";
module_param(rdma_dev, charp, 0444);
MODULE_PARM_DESC(rdma_dev, "The rxe-hw device to test (default rxehw0)");

/* what the QPs ask for; rxe-hw gives at least that (a power of two - 1) */
#define ASK_SEND_WR	8
/* the guests are slow (TCG, KASAN): a CQE may take a while */
#define POLL_MS		5000

struct qp_pair {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *a, *b;
	struct ib_mr *mr;	/* what the LOCAL_INVs invalidate */
	u32 max_wr;		/* a's send queue, as ib_create_qp() gave it back */
};

static struct ib_qp *create_qp(struct kunit *test, struct qp_pair *p)
{
	struct ib_qp_init_attr init = {
		.send_cq = p->cq, .recv_cq = p->cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR, .qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = ASK_SEND_WR, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp = ib_create_qp(p->pd, &init);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "ib_create_qp: %ld",
			       PTR_ERR(qp));
	p->max_wr = init.cap.max_send_wr;
	return qp;
}

/*
 * The port's IPv4 GID (RoCE v2 on the guest's 10.77.0.1), which the RDMA CM
 * would use too: its MAC resolves to the device's own, so packets loop back.
 */
static int ipv4_gid_index(struct qp_pair *p, union ib_gid *gid)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < p->dev->port_data[1].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(p->dev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			*gid = attr->gid;
			rdma_put_gid_attr(attr);
			return i;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

/* RESET -> INIT -> RTR -> RTS, connected to PEER on the same port */
static void connect_qp(struct kunit *test, struct qp_pair *p,
		       struct ib_qp *qp, struct ib_qp *peer)
{
	struct ib_qp_attr attr = {};
	union ib_gid dgid;
	int gid_index = ipv4_gid_index(p, &dgid);

	KUNIT_ASSERT_GE_MSG(test, gid_index, 0, "no IPv4 GID on %s", rdma_dev);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), 0);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer->qp_num;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, gid_index, 1, 0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
					   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					   IB_QP_RQ_PSN |
					   IB_QP_MAX_DEST_RD_ATOMIC |
					   IB_QP_MIN_RNR_TIMER), 0);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					   IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);
}

static void move_to_error(struct kunit *test, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
}

static int qp_pair_init(struct kunit *test)
{
	struct qp_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	test->priv = p;
	p->dev = rxe_hw_get_device(rdma_dev);
	if (!p->dev) {
		kunit_err(test, "no rxe-hw device %s\n", rdma_dev);
		return -ENODEV;
	}
	p->pd = ib_alloc_pd(p->dev, 0);
	if (IS_ERR(p->pd))
		return PTR_ERR(p->pd);
	p->cq = ib_alloc_cq(p->dev, NULL, 256, 0, IB_POLL_DIRECT);
	if (IS_ERR(p->cq))
		return PTR_ERR(p->cq);
	p->mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(p->mr))
		return PTR_ERR(p->mr);
	p->a = create_qp(test, p);
	p->b = create_qp(test, p);
	connect_qp(test, p, p->a, p->b);
	connect_qp(test, p, p->b, p->a);
	return 0;
}

static void qp_pair_exit(struct kunit *test)
{
	struct qp_pair *p = test->priv;
	struct ib_wc wc;

	if (!p || !p->dev)
		return;
	if (p->a && !IS_ERR(p->a)) {
		move_to_error(test, p->a);
		ib_destroy_qp(p->a);
	}
	if (p->b && !IS_ERR(p->b)) {
		move_to_error(test, p->b);
		ib_destroy_qp(p->b);
	}
	if (!IS_ERR_OR_NULL(p->mr))
		ib_dereg_mr(p->mr);
	if (!IS_ERR_OR_NULL(p->cq)) {
		while (ib_poll_cq(p->cq, 1, &wc) > 0)
			;
		ib_free_cq(p->cq);
	}
	if (!IS_ERR_OR_NULL(p->pd))
		ib_dealloc_pd(p->pd);
	ib_device_put(p->dev);
}

/* a LOCAL_INV of the pair's MR; SIGNALLED asks for a CQE */
static void inv_wr(struct qp_pair *p, struct ib_send_wr *wr, u64 wr_id,
		   bool signalled)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = IB_WR_LOCAL_INV;
	wr->ex.invalidate_rkey = p->mr->rkey;
	wr->send_flags = signalled ? IB_SEND_SIGNALED : 0;
}

static int post_one(struct qp_pair *p, struct ib_qp *qp, u64 wr_id,
		    bool signalled)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;

	inv_wr(p, &wr, wr_id, signalled);
	return ib_post_send(qp, &wr, &bad);
}

/* the next CQE within POLL_MS; false if none came */
static bool poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(POLL_MS);

	do {
		if (ib_poll_cq(cq, 1, wc) > 0)
			return true;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return false;
}

/*
 * max_wr unsignalled WRs fill the queue and stay in it once executed: no CQE
 * will ever retire them. Only a reset of the QP empties it.
 */
static void unsignalled_hold_slots_test(struct kunit *test)
{
	struct qp_pair *p = test->priv;
	u32 i;

	KUNIT_ASSERT_GE(test, p->max_wr, ASK_SEND_WR);
	for (i = 0; i < p->max_wr; i++)
		KUNIT_ASSERT_EQ(test, post_one(p, p->a, i, false), 0);
	msleep(200);	/* executed by now, on rxe their slots would be free */
	KUNIT_EXPECT_EQ(test, post_one(p, p->a, 100, true), -ENOMEM);
	msleep(200);
	KUNIT_EXPECT_EQ(test, post_one(p, p->a, 101, true), -ENOMEM);

	connect_qp(test, p, p->a, p->b);	/* through RESET */
	KUNIT_EXPECT_EQ(test, post_one(p, p->a, 102, true), 0);
}

/*
 * A signalled WR retires the unsignalled ones before it, but only when its
 * CQE is polled, not when it executes.
 */
static void signalled_retires_when_polled_test(struct kunit *test)
{
	struct qp_pair *p = test->priv;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *wrs;
	struct ib_wc wc;
	u32 i;

	for (i = 0; i + 1 < p->max_wr; i++)
		KUNIT_ASSERT_EQ(test, post_one(p, p->a, i, false), 0);
	KUNIT_ASSERT_EQ(test, post_one(p, p->a, 42, true), 0);
	msleep(200);	/* all executed, the CQE waits in the CQ */
	KUNIT_EXPECT_EQ(test, post_one(p, p->a, 43, true), -ENOMEM);

	KUNIT_ASSERT_TRUE(test, poll_one(p->cq, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 42);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, 0);	/* the ssn is taken out */

	/* the whole queue is free again: a chain of max_wr goes in */
	wrs = kunit_kcalloc(test, p->max_wr, sizeof(*wrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wrs);
	for (i = 0; i < p->max_wr; i++) {
		inv_wr(p, &wrs[i], 200 + i, i + 1 == p->max_wr);
		if (i)
			wrs[i - 1].next = &wrs[i];
	}
	KUNIT_EXPECT_EQ(test, ib_post_send(p->a, &wrs[0], &bad), 0);
	KUNIT_ASSERT_TRUE(test, poll_one(p->cq, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 200 + p->max_wr - 1);
}

/*
 * A chain that does not fit goes in up to the queue's end and fails at the
 * first WR not taken, which bad_wr names, as mlx5 does.
 */
static void chain_stops_at_full_test(struct kunit *test)
{
	struct qp_pair *p = test->priv;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wrs[4];
	struct ib_wc wc;
	u32 i;

	for (i = 0; i + 2 < p->max_wr; i++)
		KUNIT_ASSERT_EQ(test, post_one(p, p->a, 1, i + 3 == p->max_wr), 0);
	for (i = 0; i < ARRAY_SIZE(wrs); i++) {
		inv_wr(p, &wrs[i], 10 + i, true);
		if (i)
			wrs[i - 1].next = &wrs[i];
	}
	KUNIT_EXPECT_EQ(test, ib_post_send(p->a, &wrs[0], &bad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wrs[2]);

	/* what went in completes: 1, then 10 and 11, and nothing else */
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_TRUE(test, poll_one(p->cq, &wc));
		KUNIT_EXPECT_EQ(test, wc.wr_id, i ? 9 + i : 1);
	}
	msleep(200);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->cq, 1, &wc), 0);
}

/*
 * In the error state every WR completes with a flush CQE, signalled or
 * not; the slots come back as those CQEs are polled.
 */
static void flush_retires_when_polled_test(struct kunit *test)
{
	struct qp_pair *p = test->priv;
	struct ib_wc wc;
	u32 i;

	move_to_error(test, p->a);
	for (i = 0; i < p->max_wr; i++)
		KUNIT_ASSERT_EQ(test, post_one(p, p->a, i, false), 0);
	msleep(200);
	KUNIT_EXPECT_EQ(test, post_one(p, p->a, 100, false), -ENOMEM);
	for (i = 0; i < p->max_wr; i++) {
		KUNIT_ASSERT_TRUE(test, poll_one(p->cq, &wc));
		KUNIT_EXPECT_EQ(test, wc.wr_id, i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	}
	KUNIT_EXPECT_EQ(test, post_one(p, p->a, 101, false), 0);
}

static struct kunit_case rxe_hw_sq_cases[] = {
	KUNIT_CASE(unsignalled_hold_slots_test),
	KUNIT_CASE(signalled_retires_when_polled_test),
	KUNIT_CASE(chain_stops_at_full_test),
	KUNIT_CASE(flush_retires_when_polled_test),
	{}
};

static struct kunit_suite rxe_hw_sq_suite = {
	.name = "rxe_hw_sq",
	.init = qp_pair_init,
	.exit = qp_pair_exit,
	.test_cases = rxe_hw_sq_cases,
};

kunit_test_suite(rxe_hw_sq_suite);

MODULE_DESCRIPTION("KUnit tests of rxe-hw's send-queue rule (nvmeof-rdma rig)");
MODULE_LICENSE("GPL");
