/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the rig's C tools (hostile-host, hostile-target) share: the host's
 * RDMA CM private data, giving up with a FAIL line, and waiting for the
 * RDMA CM event a step needs on the tool's one event channel.
 */
#ifndef RIG_TOOLS_CM_COMMON_H
#define RIG_TOOLS_CM_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

/* the host's RDMA CM private data (NVMe over Fabrics RDMA binding) */
struct cm_req {
	uint16_t recfmt, qid, hrqsize, hsqsize;
	uint8_t rsvd[24];
} __attribute__((packed));

static struct rdma_event_channel *ec;

/* print "FAIL what: errno text" and exit 2 (the scenario checks for 0) */
static void die(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * The next event on ec, which must be @type -- or, if @or_rejected, a
 * REJECTED that the caller examines (a target's refusal is an answer).
 * Anything else ends the tool with a FAIL line.
 */
static __attribute__((unused)) struct rdma_cm_event *
expect_event(enum rdma_cm_event_type type, bool or_rejected)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ec, &ev))
		die("rdma_get_cm_event");
	if (ev->event != type &&
	    !(or_rejected && ev->event == RDMA_CM_EVENT_REJECTED)) {
		printf("FAIL expected %s, got %s (status %d)\n",
		       rdma_event_str(type), rdma_event_str(ev->event),
		       ev->status);
		exit(2);
	}
	return ev;
}

#endif /* RIG_TOOLS_CM_COMMON_H */
