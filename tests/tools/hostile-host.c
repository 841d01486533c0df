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
 *                   Parameters, its result pointing at the cntlid field of
 *                   the data (IATTR 1, IPO 16): the target read the NQNs
 *                   from the capsule, found the subsystem and looked for the
 *                   controller (the control case: a capsule not parsed would
 *                   be answered for the subsystem NQN, IPO 256)
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
 *                   iWARP, which has no RNR, the connection may end instead
 *                   (our work requests flushed); nothing else (the scenario
 *                   then checks the target still serves a well-behaved host)
 * and on a controller of its own (admin queue of 32 entries, keyed Connect,
 * CC.EN set, Identify Controller and Namespace read: MDTS and block size;
 * an I/O queue 1 of 32 entries), every command's data behind a keyed SGL
 * (a refusal there also carries the More bit, 0x2000: nvmet logs it in the
 * Error Information log, which it keeps only once there is a controller):
 *   mdts            a write of exactly MDTS, then a read of it
 *                                                    -> success, and the
 *                   data read back is what was written; a read and a write
 *                   of MDTS whose SGL says MDTS + 1 byte
 *                                                    -> SGL Data Length Invalid
 *                   (the SGL must match the command); a read and a write of
 *                   MDTS + 1 block                   -> Invalid Field
 *                   (over MDTS); then a 4 KiB read   -> success
 *   connect-twice   a second Connect on the live admin queue
 *                                                    -> Invalid Opcode (nvmet
 *                   parses it as an admin command); then a Property Get
 *                                                    -> success
 *   fabrics-on-io   Property Get, Property Set and Connect on the live I/O
 *                   queue                            -> Invalid Opcode each;
 *                   then a read and an admin Property Get -> success
 *   cm-qid-mismatch a Connect for qid 1 over a connection whose CM private
 *                   data said qid 0 (sized as an admin queue), and one for
 *                   qid 2 over one that said qid 1
 *                                                    -> Connect Invalid
 *                   Parameters each; then a proper I/O queue 1 connects and
 *                   serves a read
 *   cm-hsqsize-mismatch  CM hsqsize 7 with Connect sqsize 31, and 31 with 7
 *                                                    -> success each (taken,
 *                   as stock does: the receive queue bounds the commands
 *                   outstanding), and each queue serves a read
 *   bad-rkey-write  a write whose keyed SGL carries the rkey of a memory
 *                   region already deregistered: the target's RDMA READ
 *                   fails                            -> an error status or
 *                   the connection ended (ours: the connection, as the
 *                   controller takes a fatal error); never success. Not
 *                   on siw: the host's siw answers the READ with a
 *                   TERMINATE, after which neither side's work requests
 *                   complete nor does either side disconnect, so nothing
 *                   comes until the host gives up (6.1 debug kernel)
 *   disconnect-in-read  8 rounds, each a process of its own: a write of
 *                   MDTS, and once its SEND is acknowledged (0 to 1 ms
 *                   later) the data's region deregistered (odd rounds) and
 *                   both queues disconnected        -> nothing to answer:
 *                   the rounds complete, at least one cut before the
 *                   response (or the case tested nothing); the scenario
 *                   checks the target still serves
 *   rnr-off         an admin queue of 2 entries whose queue pair does not
 *                   retry receiver-not-ready (brought up by hand: the CM
 *                   gives the active side the passive side's count), two
 *                   Asynchronous Event Requests holding both receive
 *                   buffers, then 8 Property Gets
 *                                                    -> on IB/RoCE the SEND
 *                   fails with RNR retry exceeded, on iWARP the connection
 *                   ends; nothing answered
 *   rnr-off-srq     the same against a target with use_srq=Y
 *                                                    -> the 8 answered,
 *                   successful (the shared receive queue has buffers)
 *   srq-low         against a target with use_srq=Y srq_size=256 whose
 *                   backend takes seconds per command: SRQ_LOW_QUEUES
 *                   (environment; default 8, at most 32) I/O queues, 30
 *                   reads of 4 KiB on each at once, whose commands hold
 *                   the shared receive queues' buffers while they run (the
 *                   scenario asks 8 queues per SRQ: 240 of its 256)
 *                                                    -> all answered,
 *                   successful (the scenario checks the target said an
 *                   SRQ ran low)
 *   sgl-segment     100 reads with a Segment SGL descriptor, then 100 with
 *                   a Last Segment one               -> SGL Descriptor Type
 *                   Invalid each (the scenario checks the target's log line
 *                   is rate limited); then a read    -> success
 *   rejects-then-reads  an I/O queue whose CM hrqsize is 1 (16 on iWARP,
 *                   where a read of 1 MiB takes 44 work requests), which
 *                   sizes the target's send queue; 500 refused
 *                   commands, 25 at a time: an invalid opcode and a read
 *                   whose keyed SGL is shorter than its blocks, in turn
 *                                                    -> Invalid Opcode and
 *                   SGL Data Length Invalid; then 32 reads of MDTS at once,
 *                   more than the send queue holds   -> all answered,
 *                   successful (the target waits for credits: each refused
 *                   command must have given back exactly what it took)
 *   rejects-then-gone  4 rounds, each a process of its own: an I/O queue
 *                   of CM hrqsize 1 (the target's send queue as small as
 *                   it gets), 24 refused commands (an invalid opcode) sent
 *                   with no receive posted for their responses, so that
 *                   the target's SENDs wait on receiver-not-ready and the
 *                   later refusals wait for send-queue credits; then both
 *                   queues disconnected                 -> nothing to
 *                   answer; the target tears the queue down with responses
 *                   still waiting (the scenario checks it said so, and
 *                   KASAN watches), then a new controller's read succeeds;
 *                   IB/RoCE only (iWARP has no receiver-not-ready)
 * Exit status 0 when the target answered as expected; the last line of
 * output says what was expected and what came back.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
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
/* More: nvmet logged an error log entry (on a live controller only) */
#define SC_MORE			0x2000
#define SC_SGL_INVALID_DATA	0x000f
#define SC_SGL_INVALID_OFFSET	0x0016
#define SC_INVALID_FIELD	0x0002
#define SC_CONNECT_INVALID_PARAM 0x0182

#define CAPSULE_CMD	64
#define CONNECT_DATA	1024
#define ADMIN_DEPTH	32
#define IO_DEPTH	32
#define MAX_BURST	40
/* no work completion for this long: the peer stopped answering */
#define STALL_SECS	60

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

/*
 * An empty CQ: sleep a little rather than spin, so that on a guest of one
 * vCPU the target's completion work and siw's threads get the CPU.
 */
static void cq_idle(void)
{
	usleep(100);
}

/* wait for the next work completion */
static void poll_one(struct ibv_wc *wc)
{
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)))
		cq_idle();
	if (n < 0)
		die("ibv_poll_cq");
}

/* connect with PDATA; returns 0 if established, else the reject status */
static int cm_connect(const void *pdata, uint8_t len)
{
	struct rdma_conn_param param = {
		.private_data = pdata, .private_data_len = len,
		.responder_resources = 1, .initiator_depth = 1,
		/*
		 * On IB/RoCE this count goes to the target's queue pair; ours
		 * is the one the target's REP sends (7: retry receiver-not-
		 * ready forever, which over-depth relies on)
		 */
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

/* the result (CQE dword 0) of the last connect_capsule() */
static uint32_t last_result;

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
	memcpy(&last_result, rsp, 4);
	last_result = le32toh(last_result);
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
 * request failed (the connection ended), its status in burst_failed.
 */
static enum ibv_wc_status burst_failed;

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
			burst_failed = wc.status;
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
	/*
	 * iWARP has no RNR: the target may end the connection, and then our
	 * QP's work requests are flushed. Any other error is a response or
	 * a transfer gone wrong.
	 */
	ok = got == MAX_BURST ||
	     (iwarp && got < 0 && burst_failed == IBV_WC_WR_FLUSH_ERR);
	printf("%s: %d commands on a queue of %d: expected %s; got %d%s\n",
	       ok ? "ok" : "FAIL", MAX_BURST, ADMIN_DEPTH,
	       iwarp ? "all answered or the connection ended (work requests flushed)" :
	       "all answered",
	       got, got < 0 ? " (connection ended)" : " answered");
	rdma_disconnect(id);
	return ok ? 0 : 1;
}

/*
 * The cases below need a live controller: an admin queue connected, the
 * controller enabled (CC.EN), Identify read, and an I/O queue connected to
 * it. Each connection has its own event channel, queue pair and command
 * slots, and every command carries a keyed SGL into one data buffer that
 * the target may read and write.
 */
#define SLOTS		64
#define DATA_BYTES	(33u << 20)	/* 32 reads of 1 MiB, and MDTS + a block */
/*
 * Registered with a page more than is used: 6.1's rxe reads one map
 * pointer past its array (KASAN: slab-out-of-bounds in rxe_mr_copy) when
 * an access ends exactly at the end of a user MR whose pages fill its last
 * map of 256; the Connect data sits at the end of DATA_BYTES.
 */
#define DATA_MR_BYTES	(DATA_BYTES + 4096)
#define REJECTS		500
#define SGL_BURST	100

#define SC_INVALID_OPCODE	0x0001
#define SC_SGL_INVALID_TYPE	0x0011
/* a refusal on a live controller: nvmet also logs it (More) */
#define SC_REFUSED		(SC_DNR | SC_MORE)

struct conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *cmd_mr, *rsp_mr, *data_mr;
	uint8_t cmds[SLOTS][CAPSULE_CMD];
	uint8_t rsps[SLOTS][16];
	/* per command id (= slot) of the last run: status, result */
	int sts[SLOTS];
	uint32_t res[SLOTS];
	/* the first failed work completion, once the connection ended */
	enum ibv_wc_status wc_err;
};

/* what Identify told us; the namespace is nsid 1 */
static uint32_t mdts_bytes, lba_bytes;
static uint16_t cntlid;
static uint8_t *data;

static struct rdma_cm_event *conn_event(struct conn *c,
					enum rdma_cm_event_type type,
					bool or_rejected)
{
	struct rdma_event_channel *saved = ec;
	struct rdma_cm_event *ev;

	ec = c->ec;
	ev = expect_event(type, or_rejected);
	ec = saved;
	return ev;
}

/*
 * Resolve, create the queue pair and connect with this private data.
 * RNR0: the queue pair is brought up here instead of by librdmacm, so that
 * its RNR retry count can be 0 (on IB and RoCE the CM gives the active side
 * the count the passive side sent in its REP: 7 from our target; the conn
 * param's count goes to the target's queue pair). Returns 0 when connected,
 * else the CM reject status (or -1).
 */
static int conn_open(struct conn *c, const char *addr, const char *port,
		     uint16_t qid, uint16_t hrqsize, uint16_t hsqsize,
		     bool rnr0)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = SLOTS, .max_recv_wr = SLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct cm_req req = {
		.qid = htole16(qid), .hrqsize = htole16(hrqsize),
		.hsqsize = htole16(hsqsize),
	};
	struct rdma_conn_param param = {
		.private_data = &req, .private_data_len = sizeof(req),
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 3, .rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	int sts = -1;

	memset(c, 0, sizeof(*c));
	c->ec = rdma_create_event_channel();
	if (!c->ec || rdma_create_id(c->ec, &c->id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (getaddrinfo(addr, port, NULL, &ai))
		die("getaddrinfo");
	if (rdma_resolve_addr(c->id, NULL, ai->ai_addr, 2000))
		die("rdma_resolve_addr");
	freeaddrinfo(ai);
	rdma_ack_cm_event(conn_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, false));
	if (rdma_resolve_route(c->id, 2000))
		die("rdma_resolve_route");
	rdma_ack_cm_event(conn_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, false));
	iwarp = c->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	rnr0 = rnr0 && !iwarp;		/* iWARP has no RNR at all */

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, 2 * SLOTS, NULL, NULL, 0);
	if (!c->pd || !c->cq)
		die("pd/cq");
	qpa.send_cq = c->cq;
	qpa.recv_cq = c->cq;
	if (rnr0) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
		int mask;

		c->qp = ibv_create_qp(c->pd, &qpa);
		if (!c->qp || rdma_init_qp_attr(c->id, &a, &mask) ||
		    ibv_modify_qp(c->qp, &a, mask))
			die("queue pair to INIT");
		param.qp_num = c->qp->qp_num;
	} else {
		if (rdma_create_qp(c->id, c->pd, &qpa))
			die("rdma_create_qp");
		c->qp = c->id->qp;
	}
	c->cmd_mr = ibv_reg_mr(c->pd, c->cmds, sizeof(c->cmds), 0);
	c->rsp_mr = ibv_reg_mr(c->pd, c->rsps, sizeof(c->rsps),
			       IBV_ACCESS_LOCAL_WRITE);
	c->data_mr = ibv_reg_mr(c->pd, data, DATA_MR_BYTES,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE);
	if (!c->cmd_mr || !c->rsp_mr || !c->data_mr)
		die("ibv_reg_mr");

	if (rdma_connect(c->id, &param))
		die("rdma_connect");
	ev = conn_event(c, rnr0 ? RDMA_CM_EVENT_CONNECT_RESPONSE :
			RDMA_CM_EVENT_ESTABLISHED, true);
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const struct cm_rej *rej = ev->param.conn.private_data;

		if (rej && ev->param.conn.private_data_len >= sizeof(*rej))
			sts = le16toh(rej->sts);
		rdma_ack_cm_event(ev);
		return sts;
	}
	rdma_ack_cm_event(ev);
	if (rnr0) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
		int mask;

		/*
		 * As librdmacm does: INIT again, now that the CM knows the
		 * target's initiator depth (remote read access, which the
		 * target's RDMA READ of keyed data needs), then RTR, RTS.
		 */
		if (rdma_init_qp_attr(c->id, &a, &mask) ||
		    ibv_modify_qp(c->qp, &a, mask))
			die("queue pair to INIT again");
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		if (rdma_init_qp_attr(c->id, &a, &mask) ||
		    ibv_modify_qp(c->qp, &a, mask))
			die("queue pair to RTR");
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		if (rdma_init_qp_attr(c->id, &a, &mask))
			die("rdma_init_qp_attr RTS");
		a.rnr_retry = 0;
		if (ibv_modify_qp(c->qp, &a, mask | IBV_QP_RNR_RETRY) ||
		    rdma_establish(c->id))
			die("queue pair to RTS");
	}
	return 0;
}

/* a command in slot CID: OPCODE, nsid, and a keyed SGL into the data buffer */
static uint8_t *cmd_keyed(struct conn *c, int cid, uint8_t opcode,
			  uint32_t nsid, uint32_t off, uint32_t len,
			  uint32_t rkey, uint8_t sgl_type)
{
	uint8_t *p = c->cmds[cid];
	uint64_t addr = htole64((uintptr_t)data + off);
	uint32_t v;

	memset(p, 0, CAPSULE_CMD);
	p[0] = opcode;
	p[1] = 0x40;				/* PSDT = SGL */
	p[2] = cid;				/* command id = slot */
	v = htole32(nsid);
	memcpy(p + 4, &v, 4);
	memcpy(p + 24, &addr, 8);		/* dptr.ksgl.addr */
	v = htole32(len);
	memcpy(p + 32, &v, 3);			/* dptr.ksgl.length, 24 bits */
	v = htole32(rkey);
	memcpy(p + 35, &v, 4);			/* dptr.ksgl.key */
	p[39] = sgl_type;			/* 0x40: keyed data block */
	return p;
}

static void set_dw(uint8_t *p, int byte, uint32_t v)
{
	v = htole32(v);
	memcpy(p + byte, &v, 4);
}

/* a read or write of LEN bytes at block 0, its keyed SGL saying SGL_LEN */
static void cmd_rw(struct conn *c, int cid, bool write, uint32_t off,
		   uint32_t len, uint32_t sgl_len, uint32_t rkey)
{
	uint8_t *p = cmd_keyed(c, cid, write ? 0x01 : 0x02, 1, off, sgl_len,
			       rkey, 0x40);

	set_dw(p, 48, len / lba_bytes - 1);	/* cdw12: NLB, 0's based */
}

static void cmd_fabrics(struct conn *c, int cid, uint8_t fctype)
{
	uint8_t *p = cmd_keyed(c, cid, 0x7f, 0, 0, 0, 0, 0x40);

	p[4] = fctype;				/* overwrites nsid: fctype */
	p[5] = p[6] = p[7] = 0;
}

/* Connect for QID (sqsize SQSIZE) of controller CNTLID, data keyed */
static void cmd_connect(struct conn *c, int cid, const char *subnqn,
			uint16_t qid, uint16_t sqsize, uint16_t ctrl)
{
	uint8_t *d = data + DATA_BYTES - CONNECT_DATA;
	uint8_t *p;
	uint16_t v;

	p = cmd_keyed(c, cid, 0x7f, 0, DATA_BYTES - CONNECT_DATA, CONNECT_DATA,
		      c->data_mr->rkey, 0x40);
	p[4] = 0x01;				/* fctype: connect */
	p[5] = p[6] = p[7] = 0;
	v = htole16(qid);
	memcpy(p + 42, &v, 2);
	v = htole16(sqsize);
	memcpy(p + 44, &v, 2);
	memset(d, 0, CONNECT_DATA);
	memset(d, 0x5a, 16);			/* hostid */
	v = htole16(ctrl);
	memcpy(d + 16, &v, 2);
	snprintf((char *)d + 256, 256, "%s", subnqn);
	snprintf((char *)d + 512, 256, "nqn.2026-11.io.nvmeof-rdma:hostile");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* send slots 0..NR-1; returns 0, or -1 if a post failed */
static int conn_send(struct conn *c, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		struct ibv_sge ssge = { (uintptr_t)c->cmds[i], CAPSULE_CMD,
					c->cmd_mr->lkey };
		struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED }, *b;

		if (ibv_post_send(c->qp, &swr, &b))
			return -1;
	}
	return 0;
}

/*
 * Post a receive for each of slots 0..NR-1 (responses land in posting
 * order, filed by command id), then send them. Returns 0, or -1 if a post
 * failed.
 */
static int conn_post(struct conn *c, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		struct ibv_sge rsge = { (uintptr_t)c->rsps[i], 16,
					c->rsp_mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *b;

		c->sts[i] = -1;
		if (ibv_post_recv(c->qp, &rwr, &b))
			return -1;
	}
	return conn_send(c, nr);
}

/*
 * conn_wait(): for slots 0..NR-1, posted, wait for
 * EXPECT responses (EXPECT < NR: commands the target holds, such as
 * Asynchronous Event Requests) and all the SEND completions. Each response
 * is filed by its command id. Returns the number of responses, -1 once a
 * work request failed (the connection ended; c->wc_err says how), or -2 if
 * no work completion came for STALL_SECS: a target that stopped answering,
 * told apart from a slow one (32 reads of 1 MiB over siw on the debug
 * kernel take about 40 s), which keeps completing something.
 */
static int conn_wait(struct conn *c, int nr, int expect)
{
	int sends = 0, recvs = 0;
	double deadline = now() + STALL_SECS;
	struct ibv_wc wc;

	while (sends < nr || recvs < expect) {
		uint16_t cid, sts;
		uint32_t res;
		uint8_t *r;
		int n = ibv_poll_cq(c->cq, 1, &wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (!n) {
			if (now() > deadline) {
				printf("no completion for %d s: %d of %d sent, %d of %d answered\n",
				       STALL_SECS, sends, nr, recvs, expect);
				return -2;
			}
			cq_idle();
			continue;
		}
		deadline = now() + STALL_SECS;
		if (wc.status != IBV_WC_SUCCESS) {
			c->wc_err = wc.status;
			printf("work completion: %s (after %d responses)\n",
			       ibv_wc_status_str(wc.status), recvs);
			return -1;
		}
		if (!(wc.opcode & IBV_WC_RECV)) {
			sends++;
			continue;
		}
		r = c->rsps[recvs++];
		memcpy(&res, r, 4);
		memcpy(&cid, r + 12, 2);
		memcpy(&sts, r + 14, 2);
		cid = le16toh(cid);
		if (cid >= nr) {
			printf("FAIL response for command id %#x, never sent\n",
			       cid);
			exit(2);
		}
		c->sts[cid] = le16toh(sts) >> 1;
		c->res[cid] = le32toh(res);
	}
	return recvs;
}

/* conn_run(): post slots 0..NR-1 (conn_post()), then conn_wait() */
static int conn_run(struct conn *c, int nr, int expect)
{
	if (conn_post(c, nr))
		die("post");
	return conn_wait(c, nr, expect);
}

/* one command in slot 0; its status, or conn_run()'s -1 or -2 */
static int conn_one(struct conn *c)
{
	int got = conn_run(c, 1, 1);

	return got == 1 ? c->sts[0] : got;
}

/* CHECK: WHAT got status WANT? Prints a line; returns 1 if not */
static int check(const char *what, int got, int want)
{
	printf("%s: %s: expected NVMe status %#x, got %#x%s\n",
	       got == want ? "ok" : "FAIL", what, want, got,
	       got == -1 ? " (no answer: connection ended)" :
	       got == -2 ? " (no answer: stalled)" : "");
	return got != want;
}

/*
 * The admin queue up (32 entries, keyed Connect), the controller enabled
 * and identified: MDTS in bytes (CAP.MPSMIN's page size << MDTS) and the
 * namespace's block size.
 */
static void admin_up(struct conn *a, const char *addr, const char *port,
		     const char *subnqn, uint16_t hsqsize)
{
	uint32_t mps, v;
	uint64_t cap;
	int sts;

	sts = conn_open(a, addr, port, 0, ADMIN_DEPTH, hsqsize, false);
	if (sts) {
		printf("FAIL admin queue connect rejected with %d\n", sts);
		exit(2);
	}
	cmd_connect(a, 0, subnqn, 0, hsqsize, 0xffff);
	sts = conn_one(a);
	if (sts) {
		printf("FAIL admin Connect answered %#x\n", sts);
		exit(2);
	}
	cntlid = a->res[0] & 0xffff;

	cmd_fabrics(a, 0, 0x04);		/* Property Get CAP */
	a->cmds[0][40] = 1;			/* 8 bytes, offset 0 */
	if (conn_one(a)) {
		printf("FAIL Property Get CAP\n");
		exit(2);
	}
	memcpy(&cap, a->rsps[0], 8);		/* result: both dwords */
	cap = le64toh(cap);
	mps = 4096u << ((cap >> 48) & 0xf);

	cmd_fabrics(a, 0, 0x00);		/* Property Set CC */
	set_dw(a->cmds[0], 44, 0x14);
	set_dw(a->cmds[0], 48, 0x00460001);	/* IOCQES 4, IOSQES 6, EN */
	if (conn_one(a)) {
		printf("FAIL Property Set CC.EN\n");
		exit(2);
	}

	cmd_keyed(a, 0, 0x06, 0, 0, 4096, a->data_mr->rkey, 0x40);
	set_dw(a->cmds[0], 40, 1);		/* CNS 1: controller */
	if (conn_one(a)) {
		printf("FAIL Identify Controller\n");
		exit(2);
	}
	mdts_bytes = data[77] ? mps << data[77] : 1u << 20;
	if (mdts_bytes > (32u << 20))
		mdts_bytes = 32u << 20;

	cmd_keyed(a, 0, 0x06, 1, 0, 4096, a->data_mr->rkey, 0x40);
	set_dw(a->cmds[0], 40, 0);		/* CNS 0: namespace 1 */
	if (conn_one(a)) {
		printf("FAIL Identify Namespace 1\n");
		exit(2);
	}
	memcpy(&v, data + 128 + 4 * (data[26] & 0xf), 4);
	lba_bytes = 1u << ((le32toh(v) >> 16) & 0xff);
	printf("controller %u: MDTS %u bytes, blocks of %u bytes\n", cntlid,
	       mdts_bytes, lba_bytes);
}

/* an I/O queue of DEPTH entries (the CM asks for HRQSIZE responses) */
static void io_up(struct conn *io, const char *addr, const char *port,
		  const char *subnqn, uint16_t hrqsize, bool rnr0)
{
	int sts = conn_open(io, addr, port, 1, hrqsize, IO_DEPTH - 1, rnr0);

	if (sts) {
		printf("FAIL I/O queue connect rejected with %d\n", sts);
		exit(2);
	}
	cmd_connect(io, 0, subnqn, 1, IO_DEPTH - 1, cntlid);
	sts = conn_one(io);
	if (sts) {
		printf("FAIL I/O Connect answered %#x\n", sts);
		exit(2);
	}
}

static void ctrl_up(struct conn *a, struct conn *io, const char *addr,
		    const char *port, const char *subnqn, uint16_t hrqsize)
{
	admin_up(a, addr, port, subnqn, ADMIN_DEPTH - 1);
	io_up(io, addr, port, subnqn, hrqsize, false);
}

/* a read of 4 KiB: the queue still serves */
static int still_serves(struct conn *io)
{
	cmd_rw(io, 0, false, 0, 4096, 4096, io->data_mr->rkey);
	return check("a 4 KiB read afterwards", conn_one(io), 0);
}

/*
 * REJECTS commands refused one by one, 25 at a time (an invalid opcode and
 * a keyed SGL shorter than the read it belongs to, in turn), then 32 reads
 * of MDTS at once. The target's send queue is sized by the host's receive
 * queue (hrqsize): asked small here (1 on IB/RoCE: room for one read of
 * 1 MiB; 16 on iWARP, where such a read takes 44 work requests), so the
 * reads must wait for send queue credits -- which only works if the refused commands, whose
 * responses used a slot each, gave back exactly what they took.
 */
static int rejects_then_reads(const char *addr, const char *port,
			      const char *subnqn)
{
	struct conn a, io;
	int i, j, n, bad = 0, got;
	double start;

	admin_up(&a, addr, port, subnqn, ADMIN_DEPTH - 1);
	io_up(&io, addr, port, subnqn, iwarp ? 16 : 1, false);
	for (i = 0; i < REJECTS; i += n) {
		n = 25;
		for (j = 0; j < n; j++) {
			if (j & 1)
				cmd_rw(&io, j, false, 0, 8192, 4096,
				       io.data_mr->rkey);
			else
				cmd_keyed(&io, j, 0x7c, 1, 0, 0, 0, 0x40);
		}
		if (conn_run(&io, n, n) != n) {
			printf("FAIL rejected commands: the connection ended after %d\n",
			       i);
			return 1;
		}
		for (j = 0; j < n; j++) {
			int want = SC_REFUSED | (j & 1 ? SC_SGL_INVALID_DATA :
						     SC_INVALID_OPCODE);

			if (io.sts[j] != want && bad++ < 5)
				printf("FAIL command %d: expected %#x, got %#x\n",
				       i + j, want, io.sts[j]);
		}
	}
	printf("%s: %d commands refused with 0x4001/0x400f, %d otherwise\n",
	       bad ? "FAIL" : "ok", REJECTS, bad);
	for (j = 0; j < IO_DEPTH; j++)
		cmd_rw(&io, j, false, j * mdts_bytes, mdts_bytes, mdts_bytes,
		       io.data_mr->rkey);
	start = now();
	got = conn_run(&io, IO_DEPTH, IO_DEPTH);
	for (j = 0, n = 0; got == IO_DEPTH && j < IO_DEPTH; j++)
		n += io.sts[j] == 0;
	printf("%s: %d reads of %u bytes at once: %d answered, %d successful (%.1f s)\n",
	       n == IO_DEPTH ? "ok" : "FAIL", IO_DEPTH, mdts_bytes, got, n,
	       now() - start);
	return bad || n != IO_DEPTH;
}

/* a plain (not keyed) SGL descriptor of type TYPE in slot CID's read */
static void cmd_sgl_type(struct conn *c, int cid, uint8_t type)
{
	uint8_t *p;

	cmd_rw(c, cid, false, 0, 4096, 4096, c->data_mr->rkey);
	p = c->cmds[cid];
	set_dw(p, 32, 4096);			/* dptr.sgl.length */
	p[36] = p[37] = p[38] = 0;
	p[39] = type;
}

/*
 * Exactly MDTS works both ways (the data read back is what was written);
 * an SGL one byte longer than the command's MDTS of data is refused by its
 * length, a command one block over MDTS by MDTS itself.
 */
static int mdts(const char *addr, const char *port, const char *subnqn)
{
	struct conn a, io;
	uint32_t m, i;
	int bad = 0;

	ctrl_up(&a, &io, addr, port, subnqn, IO_DEPTH);
	m = mdts_bytes;
	for (i = 0; i < m; i++)
		data[i] = i * 7 + i / 4096;
	memset(data + m, 0, m);
	cmd_rw(&io, 0, true, 0, m, m, io.data_mr->rkey);
	bad += check("write of MDTS", conn_one(&io), 0);
	cmd_rw(&io, 0, false, m, m, m, io.data_mr->rkey);
	bad += check("read of MDTS", conn_one(&io), 0);
	i = memcmp(data, data + m, m);
	printf("%s: the MDTS read returned what the MDTS write wrote\n",
	       i ? "FAIL" : "ok");
	bad += !!i;
	cmd_rw(&io, 0, false, 0, m, m + 1, io.data_mr->rkey);
	bad += check("read of MDTS, keyed SGL of MDTS + 1 byte", conn_one(&io),
		     SC_REFUSED | SC_SGL_INVALID_DATA);
	cmd_rw(&io, 0, true, 0, m, m + 1, io.data_mr->rkey);
	bad += check("write of MDTS, keyed SGL of MDTS + 1 byte", conn_one(&io),
		     SC_REFUSED | SC_SGL_INVALID_DATA);
	cmd_rw(&io, 0, false, 0, m + lba_bytes, m + lba_bytes,
	       io.data_mr->rkey);
	bad += check("read of MDTS + 1 block", conn_one(&io),
		     SC_REFUSED | SC_INVALID_FIELD);
	cmd_rw(&io, 0, true, 0, m + lba_bytes, m + lba_bytes,
	       io.data_mr->rkey);
	bad += check("write of MDTS + 1 block", conn_one(&io),
		     SC_REFUSED | SC_INVALID_FIELD);
	bad += still_serves(&io);
	return !!bad;
}

/* SGL_BURST reads each with a Segment, then a Last Segment descriptor */
static int sgl_segment(const char *addr, const char *port,
		       const char *subnqn)
{
	static const uint8_t types[] = { 0x20, 0x30 };
	struct conn a, io;
	int t, i, j, n, bad = 0;

	ctrl_up(&a, &io, addr, port, subnqn, IO_DEPTH);
	for (t = 0; t < 2; t++) {
		int wrong = 0;

		for (i = 0; i < SGL_BURST; i += n) {
			n = 25;
			for (j = 0; j < n; j++)
				cmd_sgl_type(&io, j, types[t]);
			if (conn_run(&io, n, n) != n)
				return check("SGL descriptor", -1, 0);
			for (j = 0; j < n; j++)
				wrong += io.sts[j] != (SC_REFUSED | SC_SGL_INVALID_TYPE);
		}
		printf("%s: %d reads with SGL descriptor type %#x: expected status %#x, %d got another\n",
		       wrong ? "FAIL" : "ok", SGL_BURST, types[t],
		       SC_REFUSED | SC_SGL_INVALID_TYPE, wrong);
		bad += wrong;
	}
	bad += still_serves(&io);
	return !!bad;
}

/*
 * The RDMA CM private data names a queue the Connect does not: the CM's
 * qid sized the connection (an admin queue's has no in-capsule data), the
 * Connect's would decide what nvmet makes of it.
 */
static int cm_qid_mismatch(const char *addr, const char *port,
			   const char *subnqn)
{
	static const uint16_t cm_qid[] = { 0, 1 }, connect_qid[] = { 1, 2 };
	struct conn a, io[2], good;
	char what[80];
	int i, sts, bad = 0;

	admin_up(&a, addr, port, subnqn, ADMIN_DEPTH - 1);
	for (i = 0; i < 2; i++) {
		sts = conn_open(&io[i], addr, port, cm_qid[i], IO_DEPTH,
				IO_DEPTH - 1, false);
		if (sts) {
			printf("FAIL CM connect for qid %u rejected with %d\n",
			       cm_qid[i], sts);
			return 1;
		}
		cmd_connect(&io[i], 0, subnqn, connect_qid[i], IO_DEPTH - 1,
			    cntlid);
		snprintf(what, sizeof(what), "Connect for qid %u over a CM connection for qid %u",
			 connect_qid[i], cm_qid[i]);
		bad += check(what, conn_one(&io[i]),
			     SC_DNR | SC_CONNECT_INVALID_PARAM);
	}
	/* the queue ids refused are free: a proper I/O queue 1 connects */
	io_up(&good, addr, port, subnqn, IO_DEPTH, false);
	bad += still_serves(&good);
	return !!bad;
}

/*
 * The CM's hsqsize and the Connect's sqsize differ, both ways. The target
 * takes both: its receive queue (the CM's) bounds what the host can have
 * outstanding, nvmet's SQ size (the Connect's) only wraps SQ head.
 */
static int cm_hsqsize_mismatch(const char *addr, const char *port,
			       const char *subnqn)
{
	static const uint16_t hsq[] = { 7, IO_DEPTH - 1 },
			      sq[] = { IO_DEPTH - 1, 7 };
	struct conn a, io[2];
	char what[80];
	int i, sts, bad = 0;

	admin_up(&a, addr, port, subnqn, ADMIN_DEPTH - 1);
	for (i = 0; i < 2; i++) {
		sts = conn_open(&io[i], addr, port, i + 1, IO_DEPTH, hsq[i],
				false);
		if (sts) {
			printf("FAIL CM connect with hsqsize %u rejected with %d\n",
			       hsq[i], sts);
			return 1;
		}
		cmd_connect(&io[i], 0, subnqn, i + 1, sq[i], cntlid);
		snprintf(what, sizeof(what), "Connect with sqsize %u over CM hsqsize %u",
			 sq[i], hsq[i]);
		bad += check(what, conn_one(&io[i]), 0);
		bad += still_serves(&io[i]);
	}
	return !!bad;
}

/* a second Connect on the live admin queue, then it still serves */
static int connect_twice(const char *addr, const char *port,
			 const char *subnqn)
{
	struct conn a;
	int bad;

	admin_up(&a, addr, port, subnqn, ADMIN_DEPTH - 1);
	cmd_connect(&a, 0, subnqn, 0, ADMIN_DEPTH - 1, 0xffff);
	bad = check("a second Connect on the live admin queue", conn_one(&a),
		    SC_REFUSED | SC_INVALID_OPCODE);
	cmd_fabrics(&a, 0, 0x04);
	a.cmds[0][40] = 1;
	bad += check("a Property Get afterwards", conn_one(&a), 0);
	return !!bad;
}

/* Property Get, Property Set and Connect on a live I/O queue */
static int fabrics_on_io(const char *addr, const char *port,
			 const char *subnqn)
{
	struct conn a, io;
	int bad;

	ctrl_up(&a, &io, addr, port, subnqn, IO_DEPTH);
	cmd_fabrics(&io, 0, 0x04);
	io.cmds[0][40] = 1;
	bad = check("Property Get on the I/O queue", conn_one(&io),
		    SC_REFUSED | SC_INVALID_OPCODE);
	cmd_fabrics(&io, 0, 0x00);
	set_dw(io.cmds[0], 44, 0x14);
	set_dw(io.cmds[0], 48, 0x00460001);
	bad += check("Property Set on the I/O queue", conn_one(&io),
		     SC_REFUSED | SC_INVALID_OPCODE);
	cmd_connect(&io, 0, subnqn, 1, IO_DEPTH - 1, cntlid);
	bad += check("a second Connect on the live I/O queue", conn_one(&io),
		     SC_REFUSED | SC_INVALID_OPCODE);
	bad += still_serves(&io);
	cmd_fabrics(&a, 0, 0x04);
	a.cmds[0][40] = 1;
	bad += check("a Property Get on the admin queue", conn_one(&a), 0);
	return !!bad;
}

/*
 * A write whose keyed SGL carries the key of a memory region already
 * deregistered: the target's RDMA READ fails. An error status or the end
 * of the connection are both answers; success is not.
 */
static int bad_rkey_write(const char *addr, const char *port,
			  const char *subnqn)
{
	struct conn a, io;
	struct ibv_mr *m;
	uint32_t key;
	int got;

	ctrl_up(&a, &io, addr, port, subnqn, IO_DEPTH);
	m = ibv_reg_mr(io.pd, data, 4096, IBV_ACCESS_LOCAL_WRITE |
		       IBV_ACCESS_REMOTE_READ);
	if (!m)
		die("ibv_reg_mr");
	key = m->rkey;
	if (ibv_dereg_mr(m))
		die("ibv_dereg_mr");
	cmd_rw(&io, 0, true, 0, 4096, 4096, key);
	got = conn_one(&io);
	printf("%s: a write through a stale rkey: expected an error status or the connection ended; got %s %#x\n",
	       got == 0 || got == -2 ? "FAIL" : "ok",
	       got == -1 ? "connection ended" :
	       got == -2 ? "a stall" : "status", got);
	if (got > 0)
		return still_serves(&io);
	return got != -1;
}

/* how a disconnect-in-read round's cut met the write: the child's exit status */
enum cut_met {
	CUT_AFTER_ANSWER = 0,	/* the response came first: nothing was left */
	CUT_UNANSWERED = 10,	/* the target still served the write */
	CUT_READ_FAILED = 11,	/* ... and its RDMA READ met the deregistration */
};

/* a response on C already polled? (without waiting) */
static bool answered_yet(struct conn *c)
{
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(c->cq, 1, &wc)) > 0)
		if (wc.status == IBV_WC_SUCCESS && (wc.opcode & IBV_WC_RECV))
			return true;
	return false;
}

/*
 * After the data's region was deregistered under an unanswered write: for
 * up to 2 s, what followed, printed. An error status, a failed work request
 * (rxe: our receive flushed) or the target ending the queue (siw) say its
 * RDMA READ met the deregistered region; a successful response says the
 * READ had ended before. rxe's deregistration waits for a READ it is
 * serving (the responder holds the region), so there a READ fails only if
 * it had not begun.
 */
static enum cut_met after_dereg(struct conn *c, int round)
{
	double t0 = now(), deadline = t0 + 2;
	struct rdma_cm_event *ev;
	struct ibv_wc wc;
	uint16_t sts;
	int n;

	if (fcntl(c->ec->fd, F_SETFL, fcntl(c->ec->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
	while (now() < deadline) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n && wc.status != IBV_WC_SUCCESS) {
			printf("round %d: deregistered before the response; %.1f ms later a work request failed: %s\n",
			       round, (now() - t0) * 1e3,
			       ibv_wc_status_str(wc.status));
			return CUT_READ_FAILED;
		}
		if (n && (wc.opcode & IBV_WC_RECV)) {
			memcpy(&sts, c->rsps[0] + 14, 2);
			sts = le16toh(sts) >> 1;
			printf("round %d: deregistered before the response; %.1f ms later the response, status %#x\n",
			       round, (now() - t0) * 1e3, sts);
			return sts ? CUT_READ_FAILED : CUT_UNANSWERED;
		}
		if (!rdma_get_cm_event(c->ec, &ev)) {
			enum rdma_cm_event_type type = ev->event;

			rdma_ack_cm_event(ev);
			printf("round %d: deregistered before the response; %.1f ms later %s\n",
			       round, (now() - t0) * 1e3, rdma_event_str(type));
			if (type == RDMA_CM_EVENT_DISCONNECTED)
				return CUT_READ_FAILED;
		}
		cq_idle();
	}
	printf("round %d: deregistered before the response; nothing in 2 s\n",
	       round);
	return CUT_UNANSWERED;
}

/*
 * A write of MDTS, and once its SEND is acknowledged (the target has the
 * command; its RDMA READ follows) and then 0-1 ms later, the data's region
 * deregistered (odd rounds) and both queues disconnected. Each round in a
 * process of its own, which exits without cleaning up. A case whose cuts
 * all came after the response would test nothing: at least one must come
 * before it. How many did, and how many deregistrations failed the
 * target's READ, is printed.
 */
static int disconnect_in_read(const char *addr, const char *port,
			      const char *subnqn)
{
	int i, bad = 0, unanswered = 0, read_failed = 0;

	for (i = 0; i < 8; i++) {
		pid_t pid = fork();
		int ws;

		if (pid < 0)
			die("fork");
		if (!pid) {
			enum cut_met met = CUT_UNANSWERED;
			struct conn a, io;
			bool answered = false;
			struct ibv_wc wc;
			int n;

			alarm(60);
			ctrl_up(&a, &io, addr, port, subnqn, IO_DEPTH);
			cmd_rw(&io, 0, true, 0, mdts_bytes, mdts_bytes,
			       io.data_mr->rkey);
			if (conn_post(&io, 1))
				die("post");
			/* the SEND's completion (a response may come first) */
			for (;;) {
				n = ibv_poll_cq(io.cq, 1, &wc);
				if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
					_exit(3);
				if (n && !(wc.opcode & IBV_WC_RECV))
					break;
				answered |= n > 0;
			}
			usleep(i / 2 * 333);
			answered = answered || answered_yet(&io);
			if (i & 1) {
				if (ibv_dereg_mr(io.data_mr))
					die("ibv_dereg_mr");
				if (!answered)
					met = after_dereg(&io, i);
			}
			if (answered)
				printf("round %d: the response came first\n", i);
			fflush(stdout);
			rdma_disconnect(io.id);
			rdma_disconnect(a.id);
			_exit(answered ? CUT_AFTER_ANSWER : met);
		}
		if (waitpid(pid, &ws, 0) < 0)
			die("waitpid");
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == CUT_READ_FAILED) {
			read_failed++;
			unanswered++;
		} else if (WIFEXITED(ws) && WEXITSTATUS(ws) == CUT_UNANSWERED) {
			unanswered++;
		} else if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
			printf("round %d: exit status %#x\n", i, ws);
			bad++;
		}
	}
	if (!unanswered)
		bad++;
	printf("%s: 8 writes of MDTS cut off while the target reads their data: %d cuts before the response, %d of 4 deregistrations failed the target's RDMA READ (%d rounds went wrong)\n",
	       bad ? "FAIL" : "ok", unanswered, read_failed, bad);
	return !!bad;
}

/*
 * An admin queue of 2 entries whose queue pair does not retry on
 * receiver-not-ready: two Asynchronous Event Requests (which the target
 * holds, and with them both receive buffers), then 8 Property Gets. Without
 * a shared receive queue the first Property Get finds no buffer: on IB/RoCE
 * the SEND fails with RNR retry exceeded, on iWARP the connection ends. With
 * SRQ (the target loaded with use_srq=Y) there are buffers: all 8 answered.
 */
static int rnr_off(const char *addr, const char *port, const char *subnqn,
		   bool srq)
{
	struct conn a;
	int i, got, sts, ok;

	sts = conn_open(&a, addr, port, 0, ADMIN_DEPTH, 1, true);
	if (sts) {
		printf("FAIL admin queue connect rejected with %d\n", sts);
		return 1;
	}
	cmd_connect(&a, 0, subnqn, 0, 1, 0xffff);
	if (check("Connect of an admin queue of 2 entries", conn_one(&a), 0))
		return 1;
	cmd_fabrics(&a, 0, 0x00);
	set_dw(a.cmds[0], 44, 0x14);
	set_dw(a.cmds[0], 48, 0x00460001);
	if (check("Property Set CC.EN", conn_one(&a), 0))
		return 1;
	for (i = 0; i < 10; i++) {
		if (i < 2) {
			cmd_keyed(&a, i, 0x0c, 0, 0, 0, 0, 0x40);
		} else {
			cmd_fabrics(&a, i, 0x04);
			a.cmds[i][40] = 1;
		}
	}
	got = conn_run(&a, 10, 8);
	if (srq) {
		for (i = 2, ok = got == 8; ok && i < 10; i++)
			ok = a.sts[i] == 0;
		printf("%s: 2 AERs and 8 Property Gets on 2 entries with SRQ: expected the 8 answered; got %d\n",
		       ok ? "ok" : "FAIL", got);
	} else {
		ok = got < 0 && (iwarp || a.wc_err == IBV_WC_RNR_RETRY_EXC_ERR);
		printf("%s: 2 AERs and 8 Property Gets on 2 entries, RNR retry 0: expected %s; got %s\n",
		       ok ? "ok" : "FAIL",
		       iwarp ? "the connection ended" : "RNR retry exceeded",
		       got >= 0 ? "answers" : ibv_wc_status_str(a.wc_err));
	}
	return !ok;
}

#define SRQ_LOW_QUEUES_MAX	32
#define SRQ_LOW_READS		30

static int srq_low(const char *addr, const char *port, const char *subnqn)
{
	static struct conn io[SRQ_LOW_QUEUES_MAX];
	const char *env = getenv("SRQ_LOW_QUEUES");
	int nq = env ? atoi(env) : 8;
	struct conn a;
	int q, i, got, bad = 0;

	if (nq < 1 || nq > SRQ_LOW_QUEUES_MAX) {
		printf("FAIL SRQ_LOW_QUEUES %d: 1 to %d\n", nq,
		       SRQ_LOW_QUEUES_MAX);
		return 1;
	}
	admin_up(&a, addr, port, subnqn, ADMIN_DEPTH - 1);
	for (q = 0; q < nq; q++) {
		if (conn_open(&io[q], addr, port, q + 1, IO_DEPTH,
			      IO_DEPTH - 1, false)) {
			printf("FAIL I/O queue %d connect rejected\n", q + 1);
			return 1;
		}
		cmd_connect(&io[q], 0, subnqn, q + 1, IO_DEPTH - 1, cntlid);
		if (check("I/O Connect", conn_one(&io[q]), 0))
			return 1;
	}
	for (q = 0; q < nq; q++) {
		for (i = 0; i < SRQ_LOW_READS; i++)
			cmd_rw(&io[q], i, false, i * 4096, 4096, 4096,
			       io[q].data_mr->rkey);
		if (conn_post(&io[q], SRQ_LOW_READS))
			die("post");
	}
	for (q = 0; q < nq; q++) {
		got = conn_wait(&io[q], SRQ_LOW_READS, SRQ_LOW_READS);
		for (i = 0; i < SRQ_LOW_READS && got == SRQ_LOW_READS; i++)
			bad += io[q].sts[i] != 0;
		if (got != SRQ_LOW_READS)
			bad++;
	}
	printf("%s: %d reads at once on %d queues: expected all successful; %d not\n",
	       bad ? "FAIL" : "ok", nq * SRQ_LOW_READS, nq, bad);
	return !!bad;
}

static int rnr_off_plain(const char *addr, const char *port,
			 const char *subnqn)
{
	return rnr_off(addr, port, subnqn, false);
}

static int rnr_off_srq(const char *addr, const char *port,
		       const char *subnqn)
{
	return rnr_off(addr, port, subnqn, true);
}

/* the cases that run on a controller of their own; -1: not one of them */
/*
 * Refused commands whose responses cannot go out (no receive posted for
 * them: the target's SENDs wait on RNR, and the refusals after them wait
 * for credits), then the queues gone under them, four times; then a new
 * controller must still be served.
 */
static int rejects_then_gone(const char *addr, const char *port,
			     const char *subnqn)
{
	struct conn a, io;
	int i, bad = 0;

	for (i = 0; i < 4; i++) {
		pid_t pid = fork();
		int ws;

		if (pid < 0)
			die("fork");
		if (!pid) {
			struct ibv_wc wc;
			int j, sent = 0, n;

			alarm(60);
			admin_up(&a, addr, port, subnqn, ADMIN_DEPTH - 1);
			io_up(&io, addr, port, subnqn, 1, false);
			for (j = 0; j < 24; j++)
				cmd_keyed(&io, j, 0x7c, 1, 0, 0, 0, 0x40);
			if (conn_send(&io, 24))	/* no receive posted */
				die("post");
			/* the target took them all (our SENDs completed) */
			while (sent < 24) {
				n = ibv_poll_cq(io.cq, 1, &wc);
				if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
					_exit(3);
				sent += n > 0 && !(wc.opcode & IBV_WC_RECV);
			}
			usleep(300000);	/* its refusals made, some waiting */
			rdma_disconnect(io.id);
			rdma_disconnect(a.id);
			_exit(0);
		}
		if (waitpid(pid, &ws, 0) < 0)
			die("waitpid");
		if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
			printf("round %d: exit status %#x\n", i, ws);
			bad++;
		}
	}
	printf("%s: 4 rounds of 24 refused commands left unanswerable, then the queues gone: %d failed\n",
	       bad ? "FAIL" : "ok", bad);
	if (bad)
		return 1;
	ctrl_up(&a, &io, addr, port, subnqn, IO_DEPTH);
	return still_serves(&io);
}

static int ctrl_case(const char *c, const char *addr, const char *port,
		     const char *subnqn)
{
	static const struct {
		const char *name;
		int (*fn)(const char *addr, const char *port,
			  const char *subnqn);
	} cases[] = {
		{ "rejects-then-reads", rejects_then_reads },
		{ "rejects-then-gone", rejects_then_gone },
		{ "mdts", mdts },
		{ "sgl-segment", sgl_segment },
		{ "cm-qid-mismatch", cm_qid_mismatch },
		{ "cm-hsqsize-mismatch", cm_hsqsize_mismatch },
		{ "connect-twice", connect_twice },
		{ "fabrics-on-io", fabrics_on_io },
		{ "bad-rkey-write", bad_rkey_write },
		{ "disconnect-in-read", disconnect_in_read },
		{ "rnr-off", rnr_off_plain },
		{ "rnr-off-srq", rnr_off_srq },
		{ "srq-low", srq_low },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(c, cases[i].name))
			continue;
		struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

		/*
		 * siw counts registered pages against RLIMIT_MEMLOCK even
		 * for root (rxe: ib_umem_get() lets CAP_IPC_LOCK pass), and
		 * each connection registers the whole buffer
		 */
		if (setrlimit(RLIMIT_MEMLOCK, &unlimited))
			die("setrlimit RLIMIT_MEMLOCK");
		data = aligned_alloc(4096, DATA_MR_BYTES);
		if (!data)
			die("aligned_alloc");
		memset(data, 0, DATA_MR_BYTES);
		return cases[i].fn(addr, port, subnqn);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *c;
	int ret;

	if (argc != 5) {
		fprintf(stderr, "usage: %s ADDR PORT SUBNQN CASE\n", argv[0]);
		return 2;
	}
	c = argv[4];
	/* a target that never answers must not hang the scenario */
	alarm(240);
	ret = ctrl_case(c, argv[1], argv[2], argv[3]);
	if (ret >= 0)
		return ret;
	alarm(60);
	setup(argv[1], argv[2]);
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
	if (!strcmp(c, "connect-io")) {
		int bad = expect_status(argv[3], 1, 0, 0, CONNECT_DATA,
					CAPSULE_CMD + CONNECT_DATA,
					SC_DNR | SC_CONNECT_INVALID_PARAM);

		/* IATTR 1 (bits 23:16), IPO 16: the cntlid of the data */
		printf("%s: expected the result to point at the data's cntlid (%#x), got %#x\n",
		       last_result == 0x10010 ? "ok" : "FAIL", 0x10010,
		       last_result);
		return bad || last_result != 0x10010;
	}
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
