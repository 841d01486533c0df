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
#define NO_ERROR_LOC	((u16)-1)	/* nvmet's NVMET_NO_ERROR_LOC */
#define OPCODE_LOC	((u16)offsetof(struct nvme_common_command, opcode))

/* inline data sizes the target uses: one page (default) and 16KiB (max) */
#define SZ_PAGE		4096u
#define SZ_MAX		16384u

struct inline_case {
	const char *name;
	u64 off;
	u32 len;
	u32 size;
	bool is_write;
	u16 status;
	u16 error_loc;
};

static const struct inline_case inline_cases[] = {
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
	/* no inline data configured */
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
};

static void inline_case_desc(const struct inline_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(inline_sgl, inline_cases, inline_case_desc);

static void nvmeof_check_inline_sgl_test(struct kunit *test)
{
	const struct inline_case *c = test->param_value;
	u16 error_loc = NO_ERROR_LOC;

	KUNIT_EXPECT_EQ(test, nvmeof_check_inline_sgl(c->off, c->len, c->size,
						      c->is_write, &error_loc),
			c->status);
	KUNIT_EXPECT_EQ(test, error_loc, c->error_loc);
}

/*
 * The stock target's switch on the SGL identifier, kept here verbatim as
 * the reference for nvmeof_classify_sgl().
 */
static u16 stock_sgl_status(u8 type, enum nvmeof_sgl_kind *kind)
{
	switch (type >> 4) {
	case NVME_SGL_FMT_DATA_DESC:
		switch (type & 0xf) {
		case NVME_SGL_FMT_OFFSET:
			*kind = NVMEOF_SGL_INLINE;
			return 0;
		default:
			*kind = NVMEOF_SGL_BAD_SUBTYPE;
			return FIELD_ERR;
		}
	case NVME_KEY_SGL_FMT_DATA_DESC:
		switch (type & 0xf) {
		case NVME_SGL_FMT_ADDRESS | NVME_SGL_FMT_INVALIDATE:
			*kind = NVMEOF_SGL_KEYED_INVALIDATE;
			return 0;
		case NVME_SGL_FMT_ADDRESS:
			*kind = NVMEOF_SGL_KEYED;
			return 0;
		default:
			*kind = NVMEOF_SGL_BAD_SUBTYPE;
			return FIELD_ERR;
		}
	default:
		*kind = NVMEOF_SGL_BAD_TYPE;
		return TYPE_ERR;
	}
}

static void nvmeof_classify_sgl_known_test(struct kunit *test)
{
	enum nvmeof_sgl_kind kind;

	KUNIT_EXPECT_EQ(test, nvmeof_classify_sgl(0x01, &kind),
			NVME_SC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kind, NVMEOF_SGL_INLINE);
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

static void nvmeof_classify_sgl_all_test(struct kunit *test)
{
	enum nvmeof_sgl_kind kind, want_kind;
	unsigned int type;
	u16 want;

	for (type = 0; type <= U8_MAX; type++) {
		want = stock_sgl_status(type, &want_kind);
		KUNIT_EXPECT_EQ_MSG(test, nvmeof_classify_sgl(type, &kind), want,
				    "type %#x", type);
		KUNIT_EXPECT_EQ_MSG(test, kind, want_kind, "type %#x", type);
	}
}

static struct kunit_case nvmeof_wire_cases[] = {
	KUNIT_CASE_PARAM(nvmeof_check_inline_sgl_test, inline_sgl_gen_params),
	KUNIT_CASE(nvmeof_classify_sgl_known_test),
	KUNIT_CASE(nvmeof_classify_sgl_all_test),
	{}
};

static struct kunit_suite nvmeof_wire_suite = {
	.name = "nvmeof_wire",
	.test_cases = nvmeof_wire_cases,
};

kunit_test_suite(nvmeof_wire_suite);

MODULE_DESCRIPTION("KUnit tests for nvmeof-rdma wire validation");
MODULE_LICENSE("GPL v2");
