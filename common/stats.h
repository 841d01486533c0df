/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a queue counts, on the host and the target alike
 * (Documentation/statistics.md): the classes of the commands it carried,
 * the classes of the error statuses they ended with, and how the counters
 * are named where an admin reads them. Pure logic (KUnit:
 * kunit/stats_test.c); the counters themselves are the host's and the
 * target's.
 */
#ifndef NVMEOF_STATS_H
#define NVMEOF_STATS_H

#include <linux/nvme.h>
#include <linux/types.h>

/**
 * enum nvmeof_cmd_class - the kinds of command a queue counts
 * @NVMEOF_CMD_READ: an I/O queue's Read
 * @NVMEOF_CMD_WRITE: an I/O queue's Write
 * @NVMEOF_CMD_OTHER_IO: any other I/O command (Flush, Dataset Management,
 *	Write Zeroes, ...)
 * @NVMEOF_CMD_ADMIN: an admin command (keep-alive, Identify, AER, ...)
 * @NVMEOF_CMD_FABRICS: a Fabrics command (Connect, Property Get/Set, ...),
 *	on any queue
 * @NVMEOF_CMD_CLASSES: how many there are
 */
enum nvmeof_cmd_class {
	NVMEOF_CMD_READ,
	NVMEOF_CMD_WRITE,
	NVMEOF_CMD_OTHER_IO,
	NVMEOF_CMD_ADMIN,
	NVMEOF_CMD_FABRICS,
	NVMEOF_CMD_CLASSES
};

/**
 * nvmeof_cmd_class() - the class of a command
 * @admin_queue: it came on queue 0, where opcodes are admin opcodes
 * @opcode: the command's opcode
 *
 * Return: its class; the same opcode means another command on the admin
 * queue (0x02 is Get Log Page there, Read elsewhere).
 */
static inline enum nvmeof_cmd_class nvmeof_cmd_class(bool admin_queue,
						     u8 opcode)
{
	if (opcode == nvme_fabrics_command)
		return NVMEOF_CMD_FABRICS;
	if (admin_queue)
		return NVMEOF_CMD_ADMIN;
	if (opcode == nvme_cmd_read)
		return NVMEOF_CMD_READ;
	if (opcode == nvme_cmd_write)
		return NVMEOF_CMD_WRITE;
	return NVMEOF_CMD_OTHER_IO;
}

/**
 * enum nvmeof_status_class - the Status Code Types of a failed command
 * @NVMEOF_STATUS_GENERIC: Generic Command Status (Invalid Opcode, Invalid
 *	Field, Data Transfer Error, ...)
 * @NVMEOF_STATUS_CMD_SPECIFIC: Command Specific Status (a Connect's
 *	Invalid Parameters, ...)
 * @NVMEOF_STATUS_MEDIA: Media and Data Integrity Errors
 * @NVMEOF_STATUS_PATH: Path Related Status
 * @NVMEOF_STATUS_OTHER: vendor specific and reserved types
 * @NVMEOF_STATUS_CLASSES: how many there are
 */
enum nvmeof_status_class {
	NVMEOF_STATUS_GENERIC,
	NVMEOF_STATUS_CMD_SPECIFIC,
	NVMEOF_STATUS_MEDIA,
	NVMEOF_STATUS_PATH,
	NVMEOF_STATUS_OTHER,
	NVMEOF_STATUS_CLASSES
};

/**
 * nvmeof_status_class() - the class of a completion queue entry's status
 * @cqe_status: the CQE's Status field as on the wire, in CPU order: the
 *	phase tag in bit 0, the Status Code in bits 1-8, its Type in 9-11
 *
 * Return: the class of a failed command's status, or NVMEOF_STATUS_CLASSES
 * when it succeeded (the phase tag and the More and Do Not Retry bits do
 * not count).
 */
static inline enum nvmeof_status_class nvmeof_status_class(u16 cqe_status)
{
	u16 code = (cqe_status >> 1) & 0x7ff;	/* type and code */

	if (!code)
		return NVMEOF_STATUS_CLASSES;
	switch (code >> 8) {
	case 0:
		return NVMEOF_STATUS_GENERIC;
	case 1:
		return NVMEOF_STATUS_CMD_SPECIFIC;
	case 2:
		return NVMEOF_STATUS_MEDIA;
	case 3:
		return NVMEOF_STATUS_PATH;
	default:
		return NVMEOF_STATUS_OTHER;
	}
}

/* The counters' names where an admin reads them, in their enums' order. */
#define NVMEOF_CMD_CLASS_NAMES \
	"cmds_read", "cmds_write", "cmds_other_io", "cmds_admin", "cmds_fabrics"
#define NVMEOF_STATUS_CLASS_NAMES \
	"status_generic", "status_cmd_specific", "status_media", \
	"status_path", "status_other"

#endif /* NVMEOF_STATS_H */
