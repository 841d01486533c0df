// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg-lost - did the kernel log lose records since the last `dmesg -c`?
 *
 * The rig judges a scenario by the kernel log since the previous dump
 * (rig_dump_log's `dmesg -c`), and scenarios grep that log. If the ring
 * buffer wrapped since, the oldest of those records were overwritten, and a
 * report among them would go unseen: a verdict that cannot see all of its
 * log must not pass. /dev/kmsg can tell: positioned at the first record
 * after the last clear (SEEK_DATA), a read fails with EPIPE when that record
 * is no longer there.
 *
 * Usage: kmsg-lost    exit 0: nothing lost (prints nothing); 1: records
 *                     lost (says so on stdout); 2: cannot tell (stderr)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char rec[8192];
	ssize_t n;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0 || lseek(fd, 0, SEEK_DATA) < 0) {
		perror("kmsg-lost: /dev/kmsg");
		return 2;
	}
	n = read(fd, rec, sizeof(rec));
	if (n >= 0 || errno == EAGAIN)
		return 0;	/* a record, or none since the clear */
	if (errno != EPIPE) {
		perror("kmsg-lost: reading /dev/kmsg");
		return 2;
	}
	/* the EPIPE moved the reader to the oldest record still there */
	n = read(fd, rec, sizeof(rec) - 1);
	rec[n > 0 ? n : 0] = '\0';
	printf("kernel log: records since the last dump were overwritten (the ring buffer wrapped); the oldest left: %s\n",
	       n > 0 ? strtok(rec, "\n") : "none");
	return 1;
}
