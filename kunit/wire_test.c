// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/wire.c: hostile wire values against the pure
 * validation helpers, each asserting the exact NVMe status.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include "wire.h"

#define SGL_OFFSET_ERR	(NVME_SC_SGL_INVALID_OFFSET | NVME_STATUS_DNR)
#define FIELD_ERR	(NVME_SC_INVALID_FIELD | NVME_STATUS_DNR)
#define TYPE_ERR	(NVME_SC_SGL_INVALID_TYPE | NVME_STATUS_DNR)
#define SGL_DATA_ERR	(NVME_SC_SGL_INVALID_DATA | NVME_STATUS_DNR)
#define NO_ERROR_LOC	((u16)-1)	/* nvmet's NVMET_NO_ERROR_LOC */
#define OPCODE_LOC	((u16)offsetof(struct nvme_common_command, opcode))

/* in-capsule data sizes the target uses: one page (default) and 16KiB (max) */
#define SZ_PAGE		4096u
#define SZ_MAX		16384u

struct in_capsule_case {
	const char *name;
	u64 off;
	u32 len;
	u32 size;
	bool is_write;
	u16 status;
	u16 error_loc;
	/* set: only @received bytes arrived; clear: all @size bytes did */
	bool short_capsule;
	u32 received;
};

static const struct in_capsule_case in_capsule_cases[] = {
	/* in range */
	{ "off=0 len=0", 0, 0, SZ_PAGE, true, NVME_SC_SUCCESS, NO_ERROR_LOC },
	{ "off=0 len=size", 0, SZ_PAGE, SZ_PAGE, true, NVME_SC_SUCCESS,
	  NO_ERROR_LOC },
	{ "off=size len=0", SZ_PAGE, 0, SZ_PAGE, true, NVME_SC_SUCCESS,
	  NO_ERROR_LOC },
	{ "off+len=size", 100, SZ_MAX - 100, SZ_MAX, true, NVME_SC_SUCCESS,
	  NO_ERROR_LOC },
	{ "off=size-1 len=1", SZ_MAX - 1, 1, SZ_MAX, true, NVME_SC_SUCCESS,
	  NO_ERROR_LOC },
	/* just past the end */
	{ "off+len=size+1", 100, SZ_MAX - 99, SZ_MAX, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	{ "off=0 len=size+1", 0, SZ_PAGE + 1, SZ_PAGE, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	{ "off=size len=1", SZ_PAGE, 1, SZ_PAGE, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	{ "off=size+1 len=0", SZ_PAGE + 1, 0, SZ_PAGE, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	/* the sum wraps past U64_MAX: stock accepted these */
	{ "off=U64_MAX len=1 (wraps to 0)", U64_MAX, 1, SZ_MAX, true,
	  SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "off=U64_MAX-99 len=200 (wraps to 100)", U64_MAX - 99, 200, SZ_MAX,
	  true, SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "off=U64_MAX-4095 len=8192 (wraps to page 1)", U64_MAX - 4095, 8192,
	  SZ_MAX, true, SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "off=2^64-U32_MAX len=U32_MAX (wraps to 0)",
	  0ULL - U32_MAX, U32_MAX, SZ_MAX, true, SGL_OFFSET_ERR, NO_ERROR_LOC },
	/* huge, no wrap */
	{ "off=U64_MAX len=0", U64_MAX, 0, SZ_MAX, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	{ "off=U32_MAX+1 len=0", (u64)U32_MAX + 1, 0, U32_MAX, true,
	  SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "off=0 len=U32_MAX", 0, U32_MAX, SZ_MAX, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	{ "off=1 len=U32_MAX size=U32_MAX", 1, U32_MAX, U32_MAX, true,
	  SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "off=0 len=U32_MAX size=U32_MAX", 0, U32_MAX, U32_MAX, true,
	  NVME_SC_SUCCESS, NO_ERROR_LOC },
	/* no in-capsule data configured */
	{ "size=0 off=0 len=0", 0, 0, 0, true, NVME_SC_SUCCESS, NO_ERROR_LOC },
	{ "size=0 off=0 len=1", 0, 1, 0, true, SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "size=0 off=1 len=0", 1, 0, 0, true, SGL_OFFSET_ERR, NO_ERROR_LOC },
	{ "size=0 off=U64_MAX len=1", U64_MAX, 1, 0, true, SGL_OFFSET_ERR,
	  NO_ERROR_LOC },
	/* not a write: rejected first, at the opcode, whatever the range */
	{ "read off=0 len=0", 0, 0, SZ_PAGE, false, FIELD_ERR, OPCODE_LOC },
	{ "read off=0 len=size", 0, SZ_PAGE, SZ_PAGE, false, FIELD_ERR,
	  OPCODE_LOC },
	{ "read off=U64_MAX len=1", U64_MAX, 1, SZ_PAGE, false, FIELD_ERR,
	  OPCODE_LOC },
	{ "read size=0 len=U32_MAX", 0, U32_MAX, 0, false, FIELD_ERR,
	  OPCODE_LOC },
	/* a capsule shorter than its SGL says: stale buffer bytes */
	{ "received=len", 0, 512, SZ_MAX, true, NVME_SC_SUCCESS, NO_ERROR_LOC,
	  true, 512 },
	{ "received=len-1", 0, 512, SZ_MAX, true, SGL_DATA_ERR, NO_ERROR_LOC,
	  true, 511 },
	{ "received=0 len=1", 0, 1, SZ_MAX, true, SGL_DATA_ERR, NO_ERROR_LOC,
	  true, 0 },
	{ "received=0 len=0", 0, 0, SZ_MAX, true, NVME_SC_SUCCESS, NO_ERROR_LOC,
	  true, 0 },
	{ "received=off+len", 4096, 4096, SZ_MAX, true, NVME_SC_SUCCESS,
	  NO_ERROR_LOC, true, 8192 },
	{ "received=off+len-1", 4096, 4096, SZ_MAX, true, SGL_DATA_ERR,
	  NO_ERROR_LOC, true, 8191 },
	{ "received=len, off>0", 4096, 4096, SZ_MAX, true, SGL_DATA_ERR,
	  NO_ERROR_LOC, true, 4096 },
	{ "received>size, past size", 0, SZ_MAX + 1, SZ_MAX, true,
	  SGL_OFFSET_ERR, NO_ERROR_LOC, true, U32_MAX },
	{ "received short, wraps: offset error first", U64_MAX, 2, SZ_MAX,
	  true, SGL_OFFSET_ERR, NO_ERROR_LOC, true, 0 },
	{ "read, short: opcode error first", 0, 512, SZ_MAX, false, FIELD_ERR,
	  OPCODE_LOC, true, 0 },
};

static void in_capsule_case_desc(const struct in_capsule_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(in_capsule_sgl, in_capsule_cases, in_capsule_case_desc);

static void nvmeof_check_in_capsule_sgl_test(struct kunit *test)
{
	const struct in_capsule_case *c = test->param_value;
	u16 error_loc = NO_ERROR_LOC;

	u32 received = c->short_capsule ? c->received : c->size;

	KUNIT_EXPECT_EQ(test, nvmeof_check_in_capsule_sgl(c->off, c->len,
							  c->size, received,
							  c->is_write,
							  &error_loc),
			c->status);
	KUNIT_EXPECT_EQ(test, error_loc, c->error_loc);
}

static void nvmeof_classify_sgl_known_test(struct kunit *test)
{
	enum nvmeof_sgl_kind kind;

	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x01, &kind),
			NVME_SC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_IN_CAPSULE);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x40, &kind),
			NVME_SC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_KEYED);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x4f, &kind),
			NVME_SC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_KEYED_INVALIDATE);
	/* data block with an address: not valid in a capsule */
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x00, &kind), FIELD_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_SUBTYPE);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x0f, &kind), FIELD_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_SUBTYPE);
	/* keyed with the offset subtype */
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x41, &kind), FIELD_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_SUBTYPE);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x4a, &kind), FIELD_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_SUBTYPE);
	/* segment, last segment, transport, reserved types */
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x20, &kind), TYPE_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_TYPE);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x31, &kind), TYPE_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_TYPE);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x50, &kind), TYPE_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_TYPE);
	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0xff, &kind), TYPE_ERR);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_BAD_TYPE);
}

/*
 * Every SGL identifier by the specifications: the descriptor type in bits
 * 7:4 (NVMe Base, "SGL Descriptor Type"), the subtype in bits 3:0. An
 * NVMe/RDMA command capsule carries a Data Block descriptor with the Offset
 * subtype (data in the capsule) or a Keyed Data Block descriptor with the
 * Address subtype, with or without Invalidate Key (NVMe/RDMA transport
 * binding). Another subtype of those two types is an invalid field; any
 * other type is an SGL Descriptor Type Invalid.
 */
struct sgl_type_row {
	u8 type;
	const char *name;
	s8 subtype_ok[2];		/* -1: none */
	enum nvmeof_sgl_kind kind_ok[2];
};

static const struct sgl_type_row sgl_type_rows[] = {
	{ 0x0, "Data Block", { 0x1, -1 }, { NVMEOF_SGL_IN_CAPSULE } },
	{ 0x1, "Bit Bucket", { -1, -1 } },
	{ 0x2, "Segment", { -1, -1 } },
	{ 0x3, "Last Segment", { -1, -1 } },
	{ 0x4, "Keyed Data Block", { 0x0, 0xf },
	  { NVMEOF_SGL_KEYED, NVMEOF_SGL_KEYED_INVALIDATE } },
	{ 0x5, "Transport Data Block", { -1, -1 } },
	{ 0x6, "reserved", { -1, -1 } }, { 0x7, "reserved", { -1, -1 } },
	{ 0x8, "reserved", { -1, -1 } }, { 0x9, "reserved", { -1, -1 } },
	{ 0xa, "reserved", { -1, -1 } }, { 0xb, "reserved", { -1, -1 } },
	{ 0xc, "reserved", { -1, -1 } }, { 0xd, "reserved", { -1, -1 } },
	{ 0xe, "reserved", { -1, -1 } },
	{ 0xf, "Vendor Specific", { -1, -1 } },
};

static void nvmeof_classify_sgl_all_test(struct kunit *test)
{
	const struct sgl_type_row *row;
	enum nvmeof_sgl_kind kind, want_kind;
	unsigned int sub, i;
	u16 want;

	KUNIT_ASSERT_EQ(test, (int)ARRAY_SIZE(sgl_type_rows), 16);
	for (row = sgl_type_rows; row < sgl_type_rows + 16; row++) {
		KUNIT_ASSERT_EQ(test, (int)row->type, (int)(row - sgl_type_rows));
		for (sub = 0; sub <= 0xf; sub++) {
			u8 id = row->type << 4 | sub;

			if (row->subtype_ok[0] < 0) {
				want = TYPE_ERR;
				want_kind = NVMEOF_SGL_BAD_TYPE;
			} else {
				want = FIELD_ERR;
				want_kind = NVMEOF_SGL_BAD_SUBTYPE;
			}
			for (i = 0; i < 2; i++) {
				if (row->subtype_ok[i] == (int)sub) {
					want = NVME_SC_SUCCESS;
					want_kind = row->kind_ok[i];
				}
			}
			KUNIT_EXPECT_EQ_MSG(test, nvmeof_classify_sgl(id, &kind),
					    want, "%s, subtype %#x", row->name,
					    sub);
			KUNIT_EXPECT_EQ_MSG(test, kind, want_kind,
					    "%s, subtype %#x", row->name, sub);
		}
	}
}

#define MAXQ	1024u	/* nvmet's NVMET_QUEUE_SIZE */

struct cm_req_case {
	const char *name;
	u8 len;		/* private data length as received */
	u16 recfmt, qid, hrqsize, hsqsize;
	int status;
	u32 recv_queue_size, send_queue_size;
};

static const struct cm_req_case cm_req_cases[] = {
	/* what the Linux host sends */
	{ "linux admin", 32, 0, 0, NVME_AQ_DEPTH, NVME_AQ_DEPTH - 1, 0,
	  NVME_AQ_DEPTH, NVME_AQ_DEPTH },
	{ "linux io 128", 32, 0, 1, 128, 127, 0, 128, 128 },
	{ "io at the limit", 32, 0, 7, MAXQ, MAXQ - 1, 0, MAXQ, MAXQ },
	{ "io smallest", 32, 0, 1, 1, 0, 0, 1, 1 },
	{ "longer private data", 255, 0, 1, 64, 63, 0, 64, 64 },
	{ "qid U16_MAX", 32, 0, U16_MAX, 64, 63, 0, 64, 64 },
	/* length */
	{ "len 0", 0, 0, 1, 64, 63, NVME_RDMA_CM_INVALID_LEN },
	{ "len 1", 1, 0, 1, 64, 63, NVME_RDMA_CM_INVALID_LEN },
	{ "len 31", 31, 0, 1, 64, 63, NVME_RDMA_CM_INVALID_LEN },
	/* record format */
	{ "recfmt 1", 32, 1, 1, 64, 63, NVME_RDMA_CM_INVALID_RECFMT },
	{ "recfmt U16_MAX", 32, U16_MAX, 1, 64, 63,
	  NVME_RDMA_CM_INVALID_RECFMT },
	/* submission queue depth */
	{ "admin hsqsize AQ_DEPTH", 32, 0, 0, NVME_AQ_DEPTH, NVME_AQ_DEPTH,
	  NVME_RDMA_CM_INVALID_HSQSIZE },
	{ "io hsqsize MAXQ", 32, 0, 1, MAXQ, MAXQ,
	  NVME_RDMA_CM_INVALID_HSQSIZE },
	{ "io hsqsize U16_MAX (would wrap)", 32, 0, 1, MAXQ, U16_MAX,
	  NVME_RDMA_CM_INVALID_HSQSIZE },
	{ "admin hsqsize U16_MAX", 32, 0, 0, 1, U16_MAX,
	  NVME_RDMA_CM_INVALID_HSQSIZE },
	/* receive queue depth */
	{ "hrqsize 0", 32, 0, 1, 0, 63, NVME_RDMA_CM_INVALID_HRQSIZE },
	{ "admin hrqsize 0", 32, 0, 0, 0, 31, NVME_RDMA_CM_INVALID_HRQSIZE },
	{ "hrqsize MAXQ+1", 32, 0, 1, MAXQ + 1, 63,
	  NVME_RDMA_CM_INVALID_HRQSIZE },
	{ "hrqsize U16_MAX", 32, 0, 1, U16_MAX, 63,
	  NVME_RDMA_CM_INVALID_HRQSIZE },
	{ "admin hrqsize MAXQ", 32, 0, 0, MAXQ, 31, 0, NVME_AQ_DEPTH, MAXQ },
};

static void cm_req_case_desc(const struct cm_req_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_req, cm_req_cases, cm_req_case_desc);

static void nvmeof_parse_cm_req_test(struct kunit *test)
{
	const struct cm_req_case *c = test->param_value;
	struct nvmeof_cm_req_params p = { 0xdead, 0xdead, 0xdead };
	/* as received: the request, then whatever else the host appended */
	union {
		u8 bytes[U8_MAX];
		struct nvme_rdma_cm_req req;
	} pdata;

	memset(&pdata, 0xa5, sizeof(pdata));
	pdata.req.recfmt = cpu_to_le16(c->recfmt);
	pdata.req.qid = cpu_to_le16(c->qid);
	pdata.req.hrqsize = cpu_to_le16(c->hrqsize);
	pdata.req.hsqsize = cpu_to_le16(c->hsqsize);

	KUNIT_ASSERT_EQ(test, nvmeof_parse_cm_req(&pdata, c->len, MAXQ, &p),
			c->status);
	if (c->status)
		return;
	KUNIT_EXPECT_EQ(test, p.qid, c->qid);
	KUNIT_EXPECT_EQ(test, p.recv_queue_size, c->recv_queue_size);
	KUNIT_EXPECT_EQ(test, p.send_queue_size, c->send_queue_size);
}

static void nvmeof_parse_cm_req_null_test(struct kunit *test)
{
	struct nvmeof_cm_req_params p;

	KUNIT_EXPECT_EQ(test, nvmeof_parse_cm_req(NULL, 0, MAXQ, &p),
			NVME_RDMA_CM_INVALID_LEN);
	KUNIT_EXPECT_EQ(test, nvmeof_parse_cm_req(NULL, 32, MAXQ, &p),
			NVME_RDMA_CM_INVALID_LEN);
}

/* keyed SGL length: MDTS 1 MiB (256 pages of 4 KiB), as the target's */
#define MAX_XFER	(4096u << 8)
#define MAX_SGL_LEN	0xffffffu	/* 24 bits on the wire */

struct keyed_len_case {
	const char *name;
	u32 len;
	u32 expected;
	u32 max_len;
	u16 status;
};

static const struct keyed_len_case keyed_len_cases[] = {
	{ "read 4k as the command says", 4096, 4096, MAX_XFER,
	  NVME_SC_SUCCESS },
	{ "read of MDTS exactly", MAX_XFER, MAX_XFER, MAX_XFER,
	  NVME_SC_SUCCESS },
	{ "512 B block, NLB 0", 512, 512, MAX_XFER, NVME_SC_SUCCESS },
	{ "4k + 64 B metadata", 4096 + 64, 4096 + 64, MAX_XFER + 64,
	  NVME_SC_SUCCESS },
	{ "admin, no implied length", 4096, 0, MAX_XFER, NVME_SC_SUCCESS },
	{ "admin at MDTS", MAX_XFER, 0, MAX_XFER, NVME_SC_SUCCESS },
	{ "zero length, no data (admin)", 0, 0, MAX_XFER, NVME_SC_SUCCESS },
	{ "zero length for a 4k read", 0, 4096, MAX_XFER, SGL_DATA_ERR },
	/* a length the command does not ask for */
	{ "one byte short", 4095, 4096, MAX_XFER, SGL_DATA_ERR },
	{ "one byte long", 4097, 4096, MAX_XFER, SGL_DATA_ERR },
	{ "16 MiB for a 4k read", MAX_SGL_LEN, 4096, MAX_XFER, SGL_DATA_ERR },
	{ "metadata left out", 4096, 4096 + 64, MAX_XFER + 64, SGL_DATA_ERR },
	/* more than MDTS */
	{ "admin, MDTS + 1", MAX_XFER + 1, 0, MAX_XFER, FIELD_ERR },
	{ "admin, 16 MiB", MAX_SGL_LEN, 0, MAX_XFER, FIELD_ERR },
	{ "read that says 2 MiB itself", 2 * MAX_XFER, 2 * MAX_XFER, MAX_XFER,
	  FIELD_ERR },
	{ "NLB 0xffff, 4k blocks (256 MiB)", MAX_SGL_LEN, 0x10000u * 4096,
	  MAX_XFER, SGL_DATA_ERR },
};

static void keyed_len_case_desc(const struct keyed_len_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(keyed_len, keyed_len_cases, keyed_len_case_desc);

static void nvmeof_check_keyed_sgl_len_test(struct kunit *test)
{
	const struct keyed_len_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nvmeof_check_keyed_sgl_len(c->len, c->expected,
							 c->max_len),
			c->status);
}

/*
 * PRACT 0/1 with and without metadata (8 B of protection information per
 * 512 B block, 8 blocks): the wire length, and the keyed SGL check fed with
 * it, which a host's SGL of the data alone must pass under PRACT = 1.
 */
struct rw_wire_case {
	const char *name;
	u32 metadata_len;
	bool pract;
	u32 sgl_len;
	u32 wire_len;
	u16 status;
};

static const struct rw_wire_case rw_wire_cases[] = {
	{ "no metadata, PRACT 0", 0, false, 4096, 4096, NVME_SC_SUCCESS },
	{ "no metadata, PRACT 1", 0, true, 4096, 4096, NVME_SC_SUCCESS },
	{ "PI, PRACT 0: data and PI", 64, false, 4096 + 64, 4096 + 64,
	  NVME_SC_SUCCESS },
	{ "PI, PRACT 0: PI left out", 64, false, 4096, 4096 + 64,
	  SGL_DATA_ERR },
	{ "PI, PRACT 1: data alone", 64, true, 4096, 4096, NVME_SC_SUCCESS },
	{ "PI, PRACT 1: PI sent too", 64, true, 4096 + 64, 4096,
	  SGL_DATA_ERR },
};

static void rw_wire_case_desc(const struct rw_wire_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_wire, rw_wire_cases, rw_wire_case_desc);

static void nvmeof_rw_wire_len_test(struct kunit *test)
{
	const struct rw_wire_case *c = test->param_value;
	u32 wire = nvmeof_rw_wire_len(4096, c->metadata_len, c->pract);
	u32 max = nvmeof_rw_wire_len(MAX_XFER, c->metadata_len, c->pract);

	KUNIT_EXPECT_EQ(test, wire, c->wire_len);
	KUNIT_EXPECT_EQ(test, nvmeof_check_keyed_sgl_len(c->sgl_len, wire, max),
			c->status);
}

static struct kunit_case nvmeof_wire_cases[] = {
	KUNIT_CASE_PARAM(nvmeof_check_in_capsule_sgl_test, in_capsule_sgl_gen_params),
	KUNIT_CASE(nvmeof_classify_sgl_known_test),
	KUNIT_CASE(nvmeof_classify_sgl_all_test),
	KUNIT_CASE_PARAM(nvmeof_parse_cm_req_test, cm_req_gen_params),
	KUNIT_CASE(nvmeof_parse_cm_req_null_test),
	KUNIT_CASE_PARAM(nvmeof_check_keyed_sgl_len_test, keyed_len_gen_params),
	KUNIT_CASE_PARAM(nvmeof_rw_wire_len_test, rw_wire_gen_params),
	{}
};

static struct kunit_suite nvmeof_wire_suite = {
	.name = "nvmeof_wire",
	.test_cases = nvmeof_wire_cases,
};

kunit_test_suite(nvmeof_wire_suite);

MODULE_DESCRIPTION("KUnit tests for nvmeof-rdma wire validation");
MODULE_LICENSE("GPL v2");
