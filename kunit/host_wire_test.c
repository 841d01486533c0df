// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/host_wire.h: what the host makes of a controller's
 * IOCCSZ and SGL support (including values no sane target sends), whether
 * its capsules fit in an RDMA message, which RDMA CM accepts it takes, how
 * it chooses to move a request's data, the exact SGL descriptor bytes it
 * puts on the wire, the MR rights it grants, and what a response may do.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include "host_wire.h"

#define SAOS	NVMEOF_SGLS_OFFSET
#define KEYED	NVMEOF_SGLS_KEYED

/* KUNIT_EXPECT_MEMEQ is newer than 6.1 */
static void expect_bytes(struct kunit *test, const void *got,
			 const void *want, size_t n)
{
	const u8 *g = got, *w = want;
	size_t i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, g[i], w[i], "byte %zu", i);
}

struct in_capsule_size_case {
	const char *name;
	u32 ioccsz;
	u32 sgls;
	long size;
};

static const struct in_capsule_size_case in_capsule_size_cases[] = {
	{ "ioccsz 4: the command alone", 4, KEYED | SAOS, 0 },
	{ "ioccsz 5: 16 B of data", 5, KEYED | SAOS, 16 },
	{ "ioccsz 260: 4 KiB", 260, KEYED | SAOS, 4096 },
	{ "ioccsz 1028: 16 KiB", 1028, KEYED | SAOS, 16384 },
	{ "16 KiB but no SGL offsets", 1028, KEYED, 0 },
	{ "16 KiB, only the offset bit", 1028, SAOS, 16384 },
	/* below the 64-byte command: stock's size_t arithmetic wraps */
	{ "ioccsz 0", 0, KEYED | SAOS, -EINVAL },
	{ "ioccsz 1", 1, KEYED | SAOS, -EINVAL },
	{ "ioccsz 3", 3, KEYED | SAOS, -EINVAL },
	{ "ioccsz 3 without SGL offsets", 3, KEYED, -EINVAL },
	/*
	 * x16 does not wrap 32 bits (stock: 0x10000004 * 16 = 64); such
	 * capsules exceed every port's max_msg_sz, so the host refuses the
	 * controller before this (capsule_fits_test)
	 */
	{ "ioccsz 0x10000004", 0x10000004, KEYED | SAOS, U32_MAX },
	{ "ioccsz U32_MAX", U32_MAX, KEYED | SAOS, U32_MAX },
	{ "ioccsz U32_MAX, no offsets", U32_MAX, KEYED, 0 },
};

static void in_capsule_size_case_desc(const struct in_capsule_size_case *c,
				      char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(in_capsule_size, in_capsule_size_cases,
		  in_capsule_size_case_desc);

static void host_in_capsule_size_test(struct kunit *test)
{
	const struct in_capsule_size_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvmeof_host_in_capsule_size(c->ioccsz, c->sgls),
			c->size);
}

struct capsule_fits_case {
	const char *name;
	u32 ioccsz;
	u32 max_msg_sz;
	bool fits;
};

/* rxe's port: 8 MiB on 6.1, 2 GiB on 6.12; siw's: U32_MAX */
static const struct capsule_fits_case capsule_fits_cases[] = {
	{ "4 KiB capsule, 8 MiB port", 260, 0x800000, true },
	{ "exactly 8 MiB", 0x80000, 0x800000, true },
	{ "8 MiB + 16 B", 0x80001, 0x800000, false },
	{ "2 GiB on a 2 GiB port", 0x8000000, 0x80000000, true },
	{ "4 GiB - 16 B on a U32_MAX port", 0xfffffff, U32_MAX, true },
	/* x16 would wrap 32 bits to 0 and "fit" */
	{ "0x10000000 (4 GiB) on a U32_MAX port", 0x10000000, U32_MAX, false },
	{ "U32_MAX (64 GiB) on a U32_MAX port", U32_MAX, U32_MAX, false },
	{ "U32_MAX (64 GiB) on an 8 MiB port", U32_MAX, 0x800000, false },
	{ "ioccsz 0 (below a command: not this check's)", 0, 0x800000, true },
};

static void capsule_fits_case_desc(const struct capsule_fits_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(capsule_fits, capsule_fits_cases, capsule_fits_case_desc);

static void capsule_fits_test(struct kunit *test)
{
	const struct capsule_fits_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvmeof_host_capsule_fits(c->ioccsz, c->max_msg_sz),
			c->fits);
}

struct cm_rep_case {
	const char *name;
	u16 recfmt;
	u16 crqsize;
	u8 len;
	int ret;
};

static const struct cm_rep_case cm_rep_cases[] = {
	{ "admin queue, crqsize 32", 0, 32, 32, 0 },
	{ "I/O queue, crqsize 128", 0, 128, 32, 0 },
	{ "crqsize 0xffff", 0, 0xffff, 32, 0 },
	{ "IB's padded private data (196 bytes)", 0, 32, 196, 0 },
	/* shallower than the host's queue: usable (the host warns) */
	{ "crqsize 1", 0, 1, 32, 0 },
	{ "crqsize 0 (a short accept on IB/RoCE)", 0, 0, 32, -ERANGE },
	{ "record format 1", 1, 32, 32, -EPROTONOSUPPORT },
	{ "record format 0xffff", 0xffff, 32, 32, -EPROTONOSUPPORT },
	{ "4 bytes (iWARP: the real length)", 0, 32, 4, -EMSGSIZE },
	{ "31 bytes", 0, 32, 31, -EMSGSIZE },
	{ "no private data", 0, 32, 0, -EMSGSIZE },
};

static void cm_rep_case_desc(const struct cm_rep_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_rep, cm_rep_cases, cm_rep_case_desc);

static void check_cm_rep_test(struct kunit *test)
{
	const struct cm_rep_case *c = test->param_value;
	u8 buf[196] = { };
	struct nvme_rdma_cm_rep *rep = (void *)buf;

	rep->recfmt = cpu_to_le16(c->recfmt);
	rep->crqsize = cpu_to_le16(c->crqsize);
	KUNIT_EXPECT_EQ(test, nvmeof_host_check_cm_rep(buf, c->len), c->ret);
}

static void check_cm_rep_null_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, nvmeof_host_check_cm_rep(NULL, 32), -EMSGSIZE);
}

struct data_map_case {
	const char *name;
	struct nvmeof_data_req req;
	enum nvmeof_data_map map;
};

/* an I/O queue of the rig: 4 KiB in-capsule, 4 SEND segments for data */
#define IOQ(...) { .in_capsule_size = 4096, .max_in_capsule_segments = 4, \
		   __VA_ARGS__ }

static const struct data_map_case data_map_cases[] = {
	{ "no data", IOQ(.nr_segments = 0, .is_write = true), NVMEOF_MAP_NONE },
	{ "no data, PI", IOQ(.nr_segments = 0, .use_pi = true),
	  NVMEOF_MAP_NONE },
	{ "PI write that would fit in the capsule",
	  IOQ(.nr_segments = 1, .payload = 512, .is_write = true,
	      .use_pi = true), NVMEOF_MAP_PI },
	{ "4 KiB write, 1 segment",
	  IOQ(.nr_segments = 1, .payload = 4096, .is_write = true),
	  NVMEOF_MAP_IN_CAPSULE },
	{ "4 KiB write, 4 segments",
	  IOQ(.nr_segments = 4, .payload = 4096, .is_write = true),
	  NVMEOF_MAP_IN_CAPSULE },
	{ "small write, 5 segments",
	  IOQ(.nr_segments = 5, .payload = 2560, .is_write = true),
	  NVMEOF_MAP_MR },
	{ "4 KiB + 1 write",
	  IOQ(.nr_segments = 2, .payload = 4097, .is_write = true),
	  NVMEOF_MAP_MR },
	{ "4 KiB read", IOQ(.nr_segments = 1, .payload = 4096), NVMEOF_MAP_MR },
	{ "4 KiB read, global rkey",
	  IOQ(.nr_segments = 1, .payload = 4096, .global_rkey = true),
	  NVMEOF_MAP_GLOBAL_RKEY },
	{ "8 KiB read in 2 segments, global rkey",
	  IOQ(.nr_segments = 2, .payload = 8192, .global_rkey = true),
	  NVMEOF_MAP_MR },
	{ "8 KiB write in 1 segment, global rkey",
	  IOQ(.nr_segments = 1, .payload = 8192, .is_write = true,
	      .global_rkey = true), NVMEOF_MAP_GLOBAL_RKEY },
	{ "admin queue write (no in-capsule data)",
	  { .nr_segments = 1, .payload = 1024, .is_write = true,
	    .max_in_capsule_segments = 4 }, NVMEOF_MAP_MR },
	{ "admin queue, zero payload write",
	  { .nr_segments = 1, .payload = 0, .is_write = true,
	    .max_in_capsule_segments = 4 }, NVMEOF_MAP_MR },
	{ "device with one send SGE: never in the capsule",
	  { .nr_segments = 1, .payload = 512, .is_write = true,
	    .in_capsule_size = 4096, .max_in_capsule_segments = 0 },
	  NVMEOF_MAP_MR },
	{ "device with one send SGE, global rkey (as stock: MR)",
	  { .nr_segments = 1, .payload = 512, .global_rkey = true,
	    .in_capsule_size = 4096, .max_in_capsule_segments = 0 },
	  NVMEOF_MAP_MR },
	{ "U32_MAX write against a U32_MAX capsule",
	  { .nr_segments = 1, .payload = U32_MAX, .is_write = true,
	    .in_capsule_size = U32_MAX, .max_in_capsule_segments = 4 },
	  NVMEOF_MAP_IN_CAPSULE },
};

static void data_map_case_desc(const struct data_map_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(data_map, data_map_cases, data_map_case_desc);

static void choose_data_map_test(struct kunit *test)
{
	const struct data_map_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvmeof_choose_data_map(&c->req), c->map);
}

/* the exact 16 bytes of a keyed data block descriptor */
static void put_keyed_sgl_bytes_test(struct kunit *test)
{
	static const u8 want[16] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* addr */
		0x03, 0x02, 0x01,				/* length */
		0xef, 0xbe, 0xad, 0xde,				/* key */
		0x4f,				/* keyed data, invalidate */
	};
	struct nvme_keyed_sgl_desc sg;

	KUNIT_ASSERT_EQ(test, sizeof(sg), sizeof(want));
	memset(&sg, 0xa5, sizeof(sg));
	KUNIT_ASSERT_EQ(test, nvmeof_put_keyed_sgl(&sg, 0x1122334455667788ull,
						   0x010203, 0xdeadbeef, true),
			0);
	expect_bytes(test, &sg, want, sizeof(want));

	KUNIT_ASSERT_EQ(test, nvmeof_put_keyed_sgl(&sg, 0x1122334455667788ull,
						   0x010203, 0xdeadbeef, false),
			0);
	KUNIT_EXPECT_EQ(test, sg.type, 0x40);
}

static void put_keyed_sgl_null_test(struct kunit *test)
{
	static const u8 want[16] = { [15] = 0x40 };
	struct nvme_keyed_sgl_desc sg;

	memset(&sg, 0xa5, sizeof(sg));
	KUNIT_ASSERT_EQ(test, nvmeof_put_keyed_sgl(&sg, 0, 0, 0, false), 0);
	expect_bytes(test, &sg, want, sizeof(want));
}

/* the largest 24-bit length goes out whole; one more is refused untouched */
static void put_keyed_sgl_len_limit_test(struct kunit *test)
{
	struct nvme_keyed_sgl_desc sg, poison;

	KUNIT_ASSERT_EQ(test, nvmeof_put_keyed_sgl(&sg, 0, 0xffffff, 1, true),
			0);
	KUNIT_EXPECT_EQ(test, sg.length[0], 0xff);
	KUNIT_EXPECT_EQ(test, sg.length[1], 0xff);
	KUNIT_EXPECT_EQ(test, sg.length[2], 0xff);

	memset(&sg, 0xa5, sizeof(sg));
	memcpy(&poison, &sg, sizeof(sg));
	KUNIT_EXPECT_EQ(test, nvmeof_put_keyed_sgl(&sg, 0, 0x1000000, 1, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, nvmeof_put_keyed_sgl(&sg, 0, U32_MAX, 1, false),
			-EINVAL);
	expect_bytes(test, &sg, &poison, sizeof(sg));
}

static void put_in_capsule_sgl_bytes_test(struct kunit *test)
{
	static const u8 want[16] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* offset */
		0x00, 0x10, 0x00, 0x00,				/* length */
		0x00, 0x00, 0x00,				/* reserved */
		0x01,				/* data block, offset */
	};
	struct nvme_sgl_desc sg;

	KUNIT_ASSERT_EQ(test, sizeof(sg), sizeof(want));
	memset(&sg, 0, sizeof(sg));
	nvmeof_put_in_capsule_sgl(&sg, 0, 4096);
	expect_bytes(test, &sg, want, sizeof(want));

	nvmeof_put_in_capsule_sgl(&sg, 0x40, U32_MAX);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sg.addr), 0x40ull);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sg.length), U32_MAX);
}

static void mr_access_test(struct kunit *test)
{
	int w = nvmeof_host_mr_access(true);
	int r = nvmeof_host_mr_access(false);

	/* a write's data is only read by the target */
	KUNIT_EXPECT_EQ(test, w, IB_ACCESS_REMOTE_READ);
	/* a read's buffer is only written, and remote write needs local */
	KUNIT_EXPECT_EQ(test, r, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_FALSE(test, r & IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_FALSE(test, (w | r) & IB_ACCESS_REMOTE_ATOMIC);
}

static void rsp_len_test(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, nvmeof_host_rsp_len_ok(0));
	KUNIT_EXPECT_FALSE(test, nvmeof_host_rsp_len_ok(8));
	KUNIT_EXPECT_FALSE(test, nvmeof_host_rsp_len_ok(15));
	KUNIT_EXPECT_TRUE(test, nvmeof_host_rsp_len_ok(16));
}

struct rsp_case {
	const char *name;
	bool outstanding;
	bool has_mr;
	u32 mr_rkey;
	bool remote_inv;
	u32 inv_rkey;
	enum nvmeof_rsp_action action;
};

static const struct rsp_case rsp_cases[] = {
	{ "no data", true, false, 0, false, 0, NVMEOF_RSP_END },
	{ "MR, target invalidated it", true, true, 0x1234, true, 0x1234,
	  NVMEOF_RSP_END },
	{ "MR, no remote invalidation", true, true, 0x1234, false, 0,
	  NVMEOF_RSP_LOCAL_INV },
	{ "MR, target invalidated another key", true, true, 0x1234, true,
	  0x1235, NVMEOF_RSP_BOGUS_INV },
	{ "MR with rkey 0, target invalidated 0", true, true, 0, true, 0,
	  NVMEOF_RSP_END },
	{ "no MR, target invalidated something", true, false, 0, true, 0x1234,
	  NVMEOF_RSP_BOGUS_INV },
	{ "no MR, target invalidated key 0", true, false, 0, true, 0,
	  NVMEOF_RSP_BOGUS_INV },
	{ "second response, no data", false, false, 0, false, 0,
	  NVMEOF_RSP_NOT_OUTSTANDING },
	{ "second response, right key", false, true, 0x1234, true, 0x1234,
	  NVMEOF_RSP_NOT_OUTSTANDING },
	{ "second response, wrong key", false, true, 0x1234, true, 0x99,
	  NVMEOF_RSP_NOT_OUTSTANDING },
	{ "second response, MR", false, true, 0x1234, false, 0,
	  NVMEOF_RSP_NOT_OUTSTANDING },
};

static void rsp_case_desc(const struct rsp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rsp, rsp_cases, rsp_case_desc);

static void rsp_action_test(struct kunit *test)
{
	const struct rsp_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvmeof_host_rsp_action(c->outstanding, c->has_mr,
						     c->mr_rkey, c->remote_inv,
						     c->inv_rkey),
			c->action);
}

/* hardware context -> I/O queue, at and around the end of the queues */
static void hctx_queue_test(struct kunit *test)
{
	/* admin queue + 4 I/O queues: contexts 0..3 -> queues 1..4 */
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(0, 5), 1);
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(3, 5), 4);
	/* stock's check lets this one through, to queues[5] of 5 */
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(4, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(5, 5), -EINVAL);
	/* the admin queue alone: no I/O context at all */
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(0, 0), -EINVAL);
	/* hctx_idx + 1 must not wrap to a valid index */
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(UINT_MAX, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvmeof_host_hctx_queue(UINT_MAX - 1, UINT_MAX),
			-EINVAL);
}

static struct kunit_case nvmeof_host_wire_cases[] = {
	KUNIT_CASE(hctx_queue_test),
	KUNIT_CASE_PARAM(host_in_capsule_size_test, in_capsule_size_gen_params),
	KUNIT_CASE_PARAM(capsule_fits_test, capsule_fits_gen_params),
	KUNIT_CASE_PARAM(check_cm_rep_test, cm_rep_gen_params),
	KUNIT_CASE(check_cm_rep_null_test),
	KUNIT_CASE_PARAM(choose_data_map_test, data_map_gen_params),
	KUNIT_CASE(put_keyed_sgl_bytes_test),
	KUNIT_CASE(put_keyed_sgl_null_test),
	KUNIT_CASE(put_keyed_sgl_len_limit_test),
	KUNIT_CASE(put_in_capsule_sgl_bytes_test),
	KUNIT_CASE(mr_access_test),
	KUNIT_CASE(rsp_len_test),
	KUNIT_CASE_PARAM(rsp_action_test, rsp_gen_params),
	{}
};

static struct kunit_suite nvmeof_host_wire_suite = {
	.name = "nvmeof_host_wire",
	.test_cases = nvmeof_host_wire_cases,
};

kunit_test_suite(nvmeof_host_wire_suite);
