// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-host - a misbehaving NVMe/RDMA host, for the rig's hostile-host
 * scenario. It speaks just enough of the protocol (RDMA CM private data,
 * the Fabrics Connect capsule) to send a target exactly one bad thing, and
 * checks the target's answer: the RDMA CM reject status, or the NVMe status
 * of the response capsule.
 *
 * Usage: hostile-host ADDR PORT SUBNQN CASE
 *   cm-none         no private data                  -> reject INVALID_LEN on
 *                   iWARP; on IB/RoCE the CM pads private data with zeros,
 *                   so the target sees a receive queue of 0 -> INVALID_HRQSIZE
 *   cm-short        16 bytes of private data         -> reject INVALID_LEN on
 *                   iWARP; on IB/RoCE the zero padding makes it a valid
 *                   request                          -> accepted
 *   cm-recfmt       record format 1                  -> reject INVALID_RECFMT
 *   cm-admin-deep   admin queue of 33 entries        -> reject INVALID_HSQSIZE
 *   cm-io-deep      I/O queue of 65536 entries       -> reject INVALID_HSQSIZE
 *   cm-hrqsize-0    host receive queue of 0          -> reject INVALID_HRQSIZE
 * and on an I/O queue (the admin queue takes no in-capsule data):
 *   connect-io      a well-formed Connect with its 1024 bytes in the capsule,
 *                   for a controller that does not exist
 *                                                    -> Connect Invalid
 *                   Parameters: the capsule arrived and was parsed (the
 *                   control case: a broken tool cannot pass it)
 *   capsule-short   the same Connect sent with 512 of its 1024 bytes
 *                                                    -> SGL Data Length Invalid
 *   capsule-wrap    in-capsule offset + length wraps past 2^64
 *                                                    -> SGL Offset Invalid
 * and on an admin queue, with the Connect data behind a keyed SGL (an rkey
 * for just its 1024 bytes):
 *   keyed-connect   a well-formed Connect            -> success (the control
 *                   case: the target read the data through the rkey)
 *   keyed-over-mdts the same, the SGL claiming 2 MiB -> Invalid Field, before
 *                   the target takes a buffer or reads anything
 * and after a well-formed Connect on an admin queue of 32 entries, Property
 * Gets of CAP (a command without data) sent back to back:
 *   cid-reuse       four with the same command id    -> four responses,
 *                   each successful and carrying that id (the target keys
 *                   nothing on the id), then a fifth is answered too
 *   over-depth      40 on the queue of 32, each its own id -> on IB/RoCE all
 *                   40 answered (receiver-not-ready flow control holds the
 *                   extra SENDs until the target reposts its buffers); on
 *                   iWARP, which has no RNR, the connection may end instead;
 *                   nothing else (the scenario then checks the target still
 *                   serves a well-behaved host)
 * Exit status 0 when the target answered as expected; the last line of
 * output says what was expected and what came back.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>

#include "cm_common.h"

/* the target's reject private data */
struct cm_rej {
	uint16_t recfmt, sts;
} __attribute__((packed));

/* enum nvme_rdma_cm_status */
enum { CM_INVALID_LEN = 1, CM_INVALID_RECFMT = 2, CM_INVALID_HSQSIZE = 4,
	CM_INVALID_HRQSIZE = 5 };

/* NVMe statuses as Linux writes them: SCT/SC in bits 0-10, DNR = bit 14 */
#define SC_DNR			0x4000
#define SC_SGL_INVALID_DATA	0x000f
#define SC_SGL_INVALID_OFFSET	0x0016
#define SC_INVALID_FIELD	0x0002
#define SC_CONNECT_INVALID_PARAM 0x0182

#define CAPSULE_CMD	64
#define CONNECT_DATA	1024
#define ADMIN_DEPTH	32
#define IO_DEPTH	32
#define MAX_BURST	40

static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr, *data_mr;
static uint8_t buf[CAPSULE_CMD + CONNECT_DATA];
static uint8_t rsp[16];
static struct ibv_mr *rsp_mr;
static int iwarp;
/* back-to-back commands: each SEND and each response needs its own buffer */
static uint8_t burst_cmds[MAX_BURST + 1][CAPSULE_CMD];
static uint8_t burst_rsps[MAX_BURST + 1][16];
static struct ibv_mr *burst_cmd_mr, *burst_rsp_mr;

static void setup(const char *addr, const char *port)
{
	struct ibv_qp_init_attr qp = {
		.cap = { .max_send_wr = MAX_BURST + 1,
			 .max_recv_wr = MAX_BURST + 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct addrinfo *ai;
	struct rdma_cm_event *ev;

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (getaddrinfo(addr, port, NULL, &ai))
		die("getaddrinfo");
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ADDR_RESOLVED, true));
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	ev = expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED, true);
	rdma_ack_cm_event(ev);
	iwarp = id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;

	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 2 * (MAX_BURST + 1), NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq");
	qp.send_cq = cq;
	qp.recv_cq = cq;
	if (rdma_create_qp(id, pd, &qp))
		die("rdma_create_qp");
	/* local access only: this host offers the target no memory at all */
	mr = ibv_reg_mr(pd, buf, sizeof(buf), 0);
	rsp_mr = ibv_reg_mr(pd, rsp, sizeof(rsp), IBV_ACCESS_LOCAL_WRITE);
	/* for the keyed cases: the Connect data, and nothing else, readable */
	data_mr = ibv_reg_mr(pd, buf + CAPSULE_CMD, CONNECT_DATA,
			     IBV_ACCESS_REMOTE_READ);
	burst_cmd_mr = ibv_reg_mr(pd, burst_cmds, sizeof(burst_cmds), 0);
	burst_rsp_mr = ibv_reg_mr(pd, burst_rsps, sizeof(burst_rsps),
				  IBV_ACCESS_LOCAL_WRITE);
	if (!mr || !rsp_mr || !data_mr || !burst_cmd_mr || !burst_rsp_mr)
		die("ibv_reg_mr");
}

/* wait for the next work completion */
static void poll_one(struct ibv_wc *wc)
{
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
	} while (!n);
	if (n < 0)
		die("ibv_poll_cq");
}

/* connect with PDATA; returns 0 if established, else the reject status */
static int cm_connect(const void *pdata, uint8_t len)
{
	struct rdma_conn_param param = {
		.private_data = pdata, .private_data_len = len,
		.responder_resources = 1, .initiator_depth = 1,
		/* 7: retry receiver-not-ready forever (over-depth) */
		.retry_count = 3, .rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;
	const struct cm_rej *rej;
	int sts = -1;

	if (rdma_connect(id, &param))
		die("rdma_connect");
	ev = expect_event(RDMA_CM_EVENT_ESTABLISHED, true);
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		sts = 0;
	} else {
		rej = ev->param.conn.private_data;
		if (rej && ev->param.conn.private_data_len >= sizeof(*rej))
			sts = le16toh(rej->sts);
	}
	rdma_ack_cm_event(ev);
	return sts;
}

static int expect_reject(uint16_t qid, uint16_t hrqsize, uint16_t hsqsize,
			 uint16_t recfmt, uint8_t len, int want)
{
	struct cm_req req = {
		.recfmt = htole16(recfmt), .qid = htole16(qid),
		.hrqsize = htole16(hrqsize), .hsqsize = htole16(hsqsize),
	};
	int got = cm_connect(len ? &req : NULL, len);

	printf("%s: expected %s %d, got %d%s\n", got == want ? "ok" : "FAIL",
	       want ? "reject status" : "acceptance", want, got,
	       got == 0 ? " (connection accepted)" : "");
	if (!got)
		rdma_disconnect(id);
	return got == want ? 0 : 1;
}

/*
 * Send a Fabrics Connect capsule of SENT bytes for queue QID; return the NVMe
 * status. KEYED: the data is behind a keyed SGL of SGL_LEN bytes (SGL_OFF
 * unused), else in the capsule at SGL_OFF.
 */
static int connect_capsule(const char *subnqn, uint16_t qid, int keyed,
			   uint64_t sgl_off, uint32_t sgl_len, uint32_t sent)
{
	struct ibv_sge rsge = { (uintptr_t)rsp, sizeof(rsp), rsp_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *brw;
	struct ibv_sge ssge = { (uintptr_t)buf, sent, mr->lkey };
	struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bsw;
	uint8_t *c = buf, *d = buf + CAPSULE_CMD;
	uint64_t off = htole64(sgl_off);
	uint32_t len = htole32(sgl_len);
	uint16_t v16;
	struct ibv_wc wc;
	int got_recv = 0, got_send = 0;

	memset(buf, 0, sizeof(buf));
	c[0] = 0x7f;				/* fabrics command */
	c[1] = 0x40;				/* flags: PSDT = SGL */
	c[2] = 0x2a;				/* command id */
	c[4] = 0x01;				/* fctype: connect */
	if (keyed) {
		uint64_t addr = htole64((uintptr_t)d);
		uint32_t key = htole32(data_mr->rkey);

		memcpy(c + 24, &addr, 8);	/* dptr.ksgl.addr */
		memcpy(c + 32, &len, 3);	/* dptr.ksgl.length, 24 bits */
		memcpy(c + 35, &key, 4);	/* dptr.ksgl.key */
		c[39] = 0x40;			/* keyed data block, address */
	} else {
		memcpy(c + 24, &off, 8);	/* dptr.sgl.addr (offset) */
		memcpy(c + 32, &len, 4);	/* dptr.sgl.length */
		c[39] = 0x01;			/* data block, offset subtype */
	}
	v16 = htole16(qid);
	memcpy(c + 42, &v16, 2);		/* qid */
	v16 = htole16((qid ? IO_DEPTH : ADMIN_DEPTH) - 1);
	memcpy(c + 44, &v16, 2);		/* sqsize, 0's based */
	v16 = htole16(0xffff);
	memcpy(d + 16, &v16, 2);		/* cntlid: dynamic */
	memset(d, 0x5a, 16);			/* hostid */
	snprintf((char *)d + 256, 256, "%s", subnqn);
	snprintf((char *)d + 512, 256, "nqn.2026-11.io.nvmeof-rdma:hostile");

	if (ibv_post_recv(id->qp, &rwr, &brw) || ibv_post_send(id->qp, &swr, &bsw))
		die("post");
	while (!got_recv || !got_send) {
		poll_one(&wc);
		if (wc.status != IBV_WC_SUCCESS) {
			printf("FAIL work completion: %s\n",
			       ibv_wc_status_str(wc.status));
			exit(2);
		}
		if (wc.opcode & IBV_WC_RECV)
			got_recv = 1;
		else
			got_send = 1;
	}
	memcpy(&v16, rsp + 14, 2);
	return le16toh(v16) >> 1;		/* drop the phase bit */
}

static int expect_status(const char *subnqn, uint16_t qid, int keyed,
			 uint64_t off, uint32_t len, uint32_t sent, int want)
{
	uint16_t depth = qid ? IO_DEPTH : ADMIN_DEPTH;
	struct cm_req req = {
		.qid = htole16(qid), .hrqsize = htole16(depth),
		.hsqsize = htole16(depth - 1),
	};
	int got, sts = cm_connect(&req, sizeof(req));

	if (sts) {
		printf("FAIL queue %u connect rejected with %d\n", qid, sts);
		return 1;
	}
	got = connect_capsule(subnqn, qid, keyed, off, len, sent);
	printf("%s: expected NVMe status %#x, got %#x\n",
	       got == want ? "ok" : "FAIL", want, got);
	rdma_disconnect(id);
	return got == want ? 0 : 1;
}

/*
 * Post NR Property Get (CAP) commands back to back, command id CID + i (or
 * CID for all with SAME), and reap them. Returns the number of responses
 * that were successful and carried an id that was sent; -1 if a work
 * request failed (the connection ended).
 */
static int property_gets(int nr, uint16_t cid, int same)
{
	int sends = 0, recvs = 0, good = 0, i;
	struct ibv_wc wc;

	for (i = 0; i < nr; i++) {
		struct ibv_sge rsge = { (uintptr_t)burst_rsps[i], 16,
					burst_rsp_mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *b;

		if (ibv_post_recv(id->qp, &rwr, &b))
			die("ibv_post_recv");
	}
	for (i = 0; i < nr; i++) {
		uint8_t *c = burst_cmds[i];
		uint16_t v16 = htole16(same ? cid : cid + i);
		struct ibv_sge ssge = { (uintptr_t)c, CAPSULE_CMD,
					burst_cmd_mr->lkey };
		struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED }, *b;

		memset(c, 0, CAPSULE_CMD);
		c[0] = 0x7f;			/* fabrics command */
		c[1] = 0x40;			/* flags: PSDT = SGL */
		memcpy(c + 2, &v16, 2);		/* command id */
		c[4] = 0x04;			/* fctype: property get */
		c[39] = 0x40;			/* keyed SGL of 0 bytes: no data */
		c[40] = 0x01;			/* attrib: 8 bytes; offset 0: CAP */
		if (ibv_post_send(id->qp, &swr, &b))
			die("ibv_post_send");
	}
	while (sends < nr || recvs < nr) {
		uint16_t rcid, sts;
		uint8_t *r;

		poll_one(&wc);
		if (wc.status != IBV_WC_SUCCESS) {
			printf("work completion: %s (after %d responses)\n",
			       ibv_wc_status_str(wc.status), recvs);
			return -1;
		}
		if (!(wc.opcode & IBV_WC_RECV)) {
			sends++;
			continue;
		}
		/* responses land in the receive buffers in posting order */
		r = burst_rsps[recvs++];
		memcpy(&rcid, r + 12, 2);
		memcpy(&sts, r + 14, 2);
		rcid = le16toh(rcid);
		sts = le16toh(sts) >> 1;
		if (!sts && (same ? rcid == cid : rcid >= cid && rcid < cid + nr))
			good++;
		else
			printf("response %d: command id %#x status %#x\n",
			       recvs, rcid, sts);
	}
	return good;
}

/* the admin queue connected and its Connect done, for the burst cases */
static int admin_connect(const char *subnqn)
{
	struct cm_req req = {
		.qid = 0, .hrqsize = htole16(ADMIN_DEPTH),
		.hsqsize = htole16(ADMIN_DEPTH - 1),
	};
	int sts = cm_connect(&req, sizeof(req));

	if (sts) {
		printf("FAIL admin queue connect rejected with %d\n", sts);
		return 1;
	}
	sts = connect_capsule(subnqn, 0, 1, 0, CONNECT_DATA, CAPSULE_CMD);
	if (sts) {
		printf("FAIL Connect answered %#x\n", sts);
		return 1;
	}
	return 0;
}

static int cid_reuse(const char *subnqn)
{
	int got, again, ok;

	if (admin_connect(subnqn))
		return 1;
	got = property_gets(4, 0x2b, 1);
	again = got == 4 ? property_gets(1, 0x2c, 1) : -1;
	ok = got == 4 && again == 1;
	printf("%s: expected 4 answers for command id 0x2b, then 1; got %d, then %d\n",
	       ok ? "ok" : "FAIL", got, again);
	rdma_disconnect(id);
	return ok ? 0 : 1;
}

static int over_depth(const char *subnqn)
{
	int got, ok;

	if (admin_connect(subnqn))
		return 1;
	got = property_gets(MAX_BURST, 0x100, 0);
	ok = got == MAX_BURST || (iwarp && got < 0);
	printf("%s: %d commands on a queue of %d: expected %s; got %d%s\n",
	       ok ? "ok" : "FAIL", MAX_BURST, ADMIN_DEPTH,
	       iwarp ? "all answered or the connection ended" : "all answered",
	       got, got < 0 ? " (connection ended)" : " answered");
	rdma_disconnect(id);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *c;

	if (argc != 5) {
		fprintf(stderr, "usage: %s ADDR PORT SUBNQN CASE\n", argv[0]);
		return 2;
	}
	/* a target that never answers must not hang the scenario */
	alarm(60);
	setup(argv[1], argv[2]);
	c = argv[4];
	if (!strcmp(c, "cm-none"))
		return expect_reject(1, 32, 31, 0, 0,
				     iwarp ? CM_INVALID_LEN : CM_INVALID_HRQSIZE);
	if (!strcmp(c, "cm-short"))
		return expect_reject(1, 32, 31, 0, 16, iwarp ? CM_INVALID_LEN : 0);
	if (!strcmp(c, "cm-recfmt"))
		return expect_reject(1, 32, 31, 1, 32, CM_INVALID_RECFMT);
	if (!strcmp(c, "cm-admin-deep"))
		return expect_reject(0, 33, 32, 0, 32, CM_INVALID_HSQSIZE);
	if (!strcmp(c, "cm-io-deep"))
		return expect_reject(1, 65535, 65535, 0, 32, CM_INVALID_HSQSIZE);
	if (!strcmp(c, "cm-hrqsize-0"))
		return expect_reject(1, 0, 31, 0, 32, CM_INVALID_HRQSIZE);
	if (!strcmp(c, "connect-io"))
		return expect_status(argv[3], 1, 0, 0, CONNECT_DATA,
				     CAPSULE_CMD + CONNECT_DATA,
				     SC_DNR | SC_CONNECT_INVALID_PARAM);
	if (!strcmp(c, "capsule-short"))
		return expect_status(argv[3], 1, 0, 0, CONNECT_DATA,
				     CAPSULE_CMD + 512, SC_DNR | SC_SGL_INVALID_DATA);
	if (!strcmp(c, "capsule-wrap"))
		return expect_status(argv[3], 1, 0, UINT64_MAX - 511,
				     CONNECT_DATA, CAPSULE_CMD + CONNECT_DATA,
				     SC_DNR | SC_SGL_INVALID_OFFSET);
	if (!strcmp(c, "keyed-connect"))
		return expect_status(argv[3], 0, 1, 0, CONNECT_DATA, CAPSULE_CMD,
				     0);
	if (!strcmp(c, "keyed-over-mdts"))
		return expect_status(argv[3], 0, 1, 0, 2 << 20, CAPSULE_CMD,
				     SC_DNR | SC_INVALID_FIELD);
	if (!strcmp(c, "cid-reuse"))
		return cid_reuse(argv[3]);
	if (!strcmp(c, "over-depth"))
		return over_depth(argv[3]);
	fprintf(stderr, "unknown case %s\n", c);
	return 2;
}
