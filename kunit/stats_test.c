// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for common/stats.h: the class of every opcode on either kind
 * of queue, the class of every 16-bit CQE status a peer can send, and the
 * counters' names, one for each class.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include "stats.h"

static void nvmeof_cmd_class_test(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op <= 0xff; op++) {
		enum nvmeof_cmd_class io = nvmeof_cmd_class(false, op);
		enum nvmeof_cmd_class admin = nvmeof_cmd_class(true, op);

		if (op == nvme_fabrics_command) {
			KUNIT_EXPECT_EQ(test, io, NVMEOF_CMD_FABRICS);
			KUNIT_EXPECT_EQ(test, admin, NVMEOF_CMD_FABRICS);
			continue;
		}
		/* Get Log Page (0x02) and the rest are admin commands there */
		KUNIT_EXPECT_EQ_MSG(test, admin, NVMEOF_CMD_ADMIN, "op %#x", op);
		if (op == nvme_cmd_read)
			KUNIT_EXPECT_EQ(test, io, NVMEOF_CMD_READ);
		else if (op == nvme_cmd_write)
			KUNIT_EXPECT_EQ(test, io, NVMEOF_CMD_WRITE);
		else
			KUNIT_EXPECT_EQ_MSG(test, io, NVMEOF_CMD_OTHER_IO,
					    "op %#x", op);
	}
	KUNIT_EXPECT_EQ(test, nvmeof_cmd_class(false, nvme_cmd_flush),
			NVMEOF_CMD_OTHER_IO);
	KUNIT_EXPECT_EQ(test, nvmeof_cmd_class(true, nvme_admin_keep_alive),
			NVMEOF_CMD_ADMIN);
}

/* the status field's Do Not Retry bit (not named by every kernel) */
#define STATUS_DNR	0x4000

/* statuses as nvme-core and nvmet name them, shifted past the phase tag */
static void nvmeof_status_class_named_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(0), NVMEOF_STATUS_CLASSES);
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(1), NVMEOF_STATUS_CLASSES);
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(NVME_SC_INVALID_OPCODE << 1),
			NVMEOF_STATUS_GENERIC);
	KUNIT_EXPECT_EQ(test,
			nvmeof_status_class((NVME_SC_INVALID_FIELD |
					     STATUS_DNR) << 1 | 1),
			NVMEOF_STATUS_GENERIC);
	KUNIT_EXPECT_EQ(test,
			nvmeof_status_class(NVME_SC_CONNECT_INVALID_PARAM << 1),
			NVMEOF_STATUS_CMD_SPECIFIC);
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(NVME_SC_READ_ERROR << 1),
			NVMEOF_STATUS_MEDIA);
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(NVME_SC_ANA_TRANSITION << 1),
			NVMEOF_STATUS_PATH);
	/* the More and Do Not Retry bits alone are no failure */
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(STATUS_DNR << 1),
			NVMEOF_STATUS_CLASSES);
	KUNIT_EXPECT_EQ(test, nvmeof_status_class(0xf001),
			NVMEOF_STATUS_CLASSES);
}

/* all 65536: the type decides, whatever else a hostile peer sets */
static void nvmeof_status_class_all_test(struct kunit *test)
{
	static const enum nvmeof_status_class by_type[8] = {
		NVMEOF_STATUS_GENERIC, NVMEOF_STATUS_CMD_SPECIFIC,
		NVMEOF_STATUS_MEDIA, NVMEOF_STATUS_PATH, NVMEOF_STATUS_OTHER,
		NVMEOF_STATUS_OTHER, NVMEOF_STATUS_OTHER, NVMEOF_STATUS_OTHER,
	};
	unsigned int raw, failed = 0;

	for (raw = 0; raw <= 0xffff; raw++) {
		unsigned int code = (raw >> 1) & 0xff, type = (raw >> 9) & 7;
		enum nvmeof_status_class want = code || type ?
			by_type[type] : NVMEOF_STATUS_CLASSES;

		if (nvmeof_status_class(raw) != want && failed++ < 8)
			KUNIT_FAIL(test, "status %#06x: class %d, not %d", raw,
				   nvmeof_status_class(raw), want);
	}
	KUNIT_EXPECT_EQ(test, failed, 0U);
}

/* a name per class: a missing one would print "(null)" for its counter */
static void nvmeof_stats_names_test(struct kunit *test)
{
	static const char *const cmds[] = { NVMEOF_CMD_CLASS_NAMES };
	static const char *const status[] = { NVMEOF_STATUS_CLASS_NAMES };

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(cmds), (size_t)NVMEOF_CMD_CLASSES);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(status),
			(size_t)NVMEOF_STATUS_CLASSES);
	KUNIT_EXPECT_STREQ(test, cmds[NVMEOF_CMD_READ], "cmds_read");
	KUNIT_EXPECT_STREQ(test, cmds[NVMEOF_CMD_FABRICS], "cmds_fabrics");
	KUNIT_EXPECT_STREQ(test, status[NVMEOF_STATUS_PATH], "status_path");
	KUNIT_EXPECT_STREQ(test, status[NVMEOF_STATUS_OTHER], "status_other");
}

static struct kunit_case nvmeof_stats_cases[] = {
	KUNIT_CASE(nvmeof_cmd_class_test),
	KUNIT_CASE(nvmeof_status_class_named_test),
	KUNIT_CASE(nvmeof_status_class_all_test),
	KUNIT_CASE(nvmeof_stats_names_test),
	{}
};

static struct kunit_suite nvmeof_stats_suite = {
	.name = "nvmeof_stats",
	.test_cases = nvmeof_stats_cases,
};

kunit_test_suite(nvmeof_stats_suite);
