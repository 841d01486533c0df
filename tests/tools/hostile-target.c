// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-target - a misbehaving NVMe/RDMA target, for the rig's
 * hostile-target scenario. It listens, accepts the host's queues and
 * answers them until it has done the one bad thing CASE asks for; from
 * then on it answers nothing more (but Keep Alive, and everything in the
 * control cases) so that the host must notice by itself, and waits until
 * the host has disconnected every queue.
 *
 * Usage: hostile-target ADDR PORT CASE [LINGER]
 *
 * The admin queue's Connect (the host sends nothing else first):
 *   bad-cid      the response carries another command id
 *   short        the response is 8 bytes long
 *   long         the response is 32 bytes long (the host's receive buffer
 *                holds 16: its device fails the receive)
 *   duplicate    the response is sent twice
 *   bogus-inv    answered with SEND with Invalidate of its rkey (correct);
 *                the next command, which has no data, with SEND with
 *                Invalidate of that same rkey again
 *   good         answered correctly (the control case: the host's next
 *                command then times out unanswered)
 * The RDMA CM connect request of the admin queue:
 *   cm-silent    neither accepted nor rejected (the kernel's CM asks the
 *                host for more time: an MRA); 20 s later accepted all the
 *                same, which the CM must refuse: the host, gone after its
 *                10 s bound, ended the request with a REJ (which rdma_cm
 *                does not pass to a listener in user space before it
 *                accepts). Exit status 0 when refused, 1 when not
 * The RDMA CM accept of the admin queue (private data):
 *   rep-short    2 bytes (on IB/RoCE the CM pads it: CRQSIZE reads 0)
 *   rep-recfmt   record format 1
 *   rep-crqsize-small  CRQSIZE one below the host's HSQSIZE + 1 (usable,
 *                      the host warns: then as good)
 *   rep-crqsize-big    CRQSIZE 1000 deeper than asked (legal: then as good)
 * Cases that serve the admin queue (Connect, Property Get/Set, Identify,
 * Get Log Page refused, Set Features Number of Queues: one I/O queue, Keep
 * Alive) far enough for the host to connect an I/O queue:
 *   ioccsz-small Identify Controller says IOCCSZ 3 (a capsule smaller than
 *                a command); Set Features is then refused
 *   ioccsz-huge  IOCCSZ 0xffffffff (a 64 GiB capsule)
 *   inv-unknown  Identify Controller's data is written, its response is a
 *                SEND with Invalidate of a key no MR has (the rkey with its
 *                key byte flipped)
 *   io-bad-cid, io-short, io-long
 *                the I/O queue's Connect gets the bad response named
 *   io-wrong-inv the I/O queue's Connect (which holds an MR for its data)
 *                is answered with SEND with Invalidate of another MR's key
 *                that the device knows: the latest one an admin command
 *                held (a key no MR has fails the host's receive on rxe
 *                instead: inv-unknown)
 *   io-good      the I/O queue's Connect is answered correctly and the
 *                admin queue served on (the control case: the controller
 *                goes live with no namespace until the host deletes it)
 *   ka-gone      as io-good until the controller is live; then the first
 *                Keep Alive goes unanswered and the tool disconnects every
 *                queue (a controller lost with its keep-alive outstanding)
 * Cases that serve everything and grant up to 3 I/O queues (the host asks
 * for them with --nr-io-queues, --nr-write-queues, --nr-poll-queues):
 *   q3-cm-reject     the RDMA CM connect request of I/O queue 2 is rejected
 *   q3-connect-fail  the Connect command of I/O queue 2 is answered with
 *                    Invalid Field
 *
 * Prints LISTENING when it can be connected to, a line per connection,
 * command received and response sent. Exit status: 0 when the bad thing
 * was done and the host then disconnected every queue within LINGER
 * seconds (default 60); 1 when the host was still connected after LINGER
 * seconds; 2 when the tool failed or the host did not get as far as the
 * case needs.
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
#include <netdb.h>
#include <rdma/rdma_cma.h>

#include "cm_common.h"

/* NVMe/RDMA CM private data: our accept (the request: cm_common.h) */
struct cm_rep {
	uint16_t recfmt, crqsize;
	uint8_t rsvd[28];
} __attribute__((packed));

/* the fields of a command capsule this tool looks at */
#define CMD_OPCODE	0
#define CMD_CID		2
#define CMD_FCTYPE	4
#define CMD_SGL_ADDR	24
#define CMD_SGL_LEN	32	/* 3 bytes */
#define CMD_SGL_KEY	35	/* dptr (24) + address (8) + length (3) */
#define CMD_CDW10	40	/* Identify CNS, Set Features FID, attrib */
#define CMD_PROP_OFS	44
#define CMD_CDW11	44	/* Set Features' value */
#define CMD_PROP_VAL	48

#define OPC_GET_LOG	0x02
#define OPC_IDENTIFY	0x06
#define OPC_SET_FEAT	0x09
#define OPC_AER		0x0c
#define OPC_KEEP_ALIVE	0x18
#define OPC_FABRICS	0x7f
#define FCT_PROP_SET	0x00
#define FCT_CONNECT	0x01
#define FCT_PROP_GET	0x04

/* status field of a completion: (DNR | status code) << 1 */
#define ST_INVALID_OPCODE	htole16((0x4000 | 0x01) << 1)
#define ST_INVALID_FIELD	htole16((0x4000 | 0x02) << 1)

struct cqe {
	uint64_t result;
	uint16_t sq_head, sq_id, command_id, status;
} __attribute__((packed));

#define MAX_QUEUES	4
#define NR_RECV		8
#define RECV_SIZE	4096
#define DATA_SIZE	4096
#define SEND_WR_ID	100	/* receives are 0 .. NR_RECV - 1 */
#define WRITE_WR_ID	200

struct queue {
	struct rdma_cm_id *id;
	unsigned int qid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *recv_mr, *send_mr, *data_mr;
	uint8_t recv_buf[NR_RECV][RECV_SIZE];
	uint8_t send_buf[2][64];
	uint8_t data[DATA_SIZE];
	int established, gone;
};

static struct queue queues[MAX_QUEUES];
static int nr_queues;
static const char *kase;

/* what the tool has done so far */
static int done;		/* the case's response (or accept) is out */
static struct timespec done_at;
static int serve_all;		/* after done: answer everything (controls) */
static int bogus_inv_pending;	/* bogus-inv: the next command */
static uint32_t bogus_inv_rkey;
static uint32_t admin_data_rkey;	/* Identify's MR on the admin queue */
static uint64_t cc;		/* the host's Controller Configuration */

static int is(const char *c)
{
	return !strcmp(kase, c);
}

static int prefix(const char *p)
{
	return !strncmp(kase, p, strlen(p));
}

static void mark_done(void)
{
	done = 1;
	clock_gettime(CLOCK_MONOTONIC, &done_at);
}

static void post_recv(struct queue *q, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->recv_buf[i], .length = RECV_SIZE,
		.lkey = q->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(q->id->qp, &wr, &bad))
		die("ibv_post_recv");
}

/* take a connection request: a queue pair, buffers, and our accept */
static void accept_queue(struct rdma_cm_event *ev)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = NR_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = { 0 };
	const struct cm_req *req = ev->param.conn.private_data;
	struct cm_rep rep = { 0 };
	struct queue *q;
	uint16_t hsqsize = le16toh(req->hsqsize);
	int i;

	if (is("q3-cm-reject") && le16toh(req->qid) == 2) {
		if (rdma_reject(ev->id, NULL, 0))
			die("rdma_reject");
		printf("REJECTED connect request: qid 2\n");
		mark_done();
		return;
	}

	if (nr_queues == MAX_QUEUES) {
		printf("FAIL more than %d connection requests\n", MAX_QUEUES);
		exit(2);
	}
	q = &queues[nr_queues++];
	q->id = ev->id;
	q->id->context = q;
	q->qid = le16toh(req->qid);
	if (is("cm-silent")) {
		printf("SILENT connect request: qid %u, neither accepted nor rejected\n",
		       q->qid);
		mark_done();
		return;
	}
	printf("connect request: qid %u hsqsize %u hrqsize %u\n", q->qid,
	       hsqsize, le16toh(req->hrqsize));
	q->pd = ibv_alloc_pd(q->id->verbs);
	q->cq = ibv_create_cq(q->id->verbs, 32, NULL, NULL, 0);
	if (!q->pd || !q->cq)
		die("ibv_alloc_pd/ibv_create_cq");
	qpa.send_cq = q->cq;
	qpa.recv_cq = q->cq;
	if (rdma_create_qp(q->id, q->pd, &qpa))
		die("rdma_create_qp");
	q->recv_mr = ibv_reg_mr(q->pd, q->recv_buf, sizeof(q->recv_buf),
				IBV_ACCESS_LOCAL_WRITE);
	q->send_mr = ibv_reg_mr(q->pd, q->send_buf, sizeof(q->send_buf), 0);
	q->data_mr = ibv_reg_mr(q->pd, q->data, sizeof(q->data), 0);
	if (!q->recv_mr || !q->send_mr || !q->data_mr)
		die("ibv_reg_mr");
	for (i = 0; i < NR_RECV; i++)
		post_recv(q, i);

	rep.crqsize = htole16(hsqsize + 1);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	if (q->qid == 0 && prefix("rep-")) {
		if (is("rep-short"))
			param.private_data_len = 2;
		else if (is("rep-recfmt"))
			rep.recfmt = htole16(1);
		else if (is("rep-crqsize-small"))
			rep.crqsize = htole16(hsqsize);
		else if (is("rep-crqsize-big"))
			rep.crqsize = htole16(hsqsize + 1 + 1000);
		printf("SENT accept: recfmt %u crqsize %u, %u bytes\n",
		       le16toh(rep.recfmt), le16toh(rep.crqsize),
		       param.private_data_len);
		/* the bad accept is this case's bad thing */
		if (!prefix("rep-crqsize-"))
			mark_done();
	}
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	if (rdma_accept(q->id, &param))
		die("rdma_accept");
}

/*
 * send_response - one response of LEN bytes for command id CID (twice if
 * TWICE, in one post) with RESULT and STATUS, with Invalidate of INV_RKEY
 * if INVALIDATE
 */
static void send_response(struct queue *q, uint16_t cid, uint64_t result,
			  uint16_t status, uint32_t len, int twice,
			  int invalidate, uint32_t inv_rkey)
{
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge sge[2];
	struct cqe *c;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		c = (struct cqe *)q->send_buf[i];
		memset(q->send_buf[i], 0, sizeof(q->send_buf[i]));
		c->result = htole64(result);
		c->command_id = htole16(cid);
		c->status = status;
		sge[i] = (struct ibv_sge) { .addr = (uintptr_t)q->send_buf[i],
			.length = len, .lkey = q->send_mr->lkey };
		wr[i].wr_id = SEND_WR_ID + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = invalidate ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
		wr[i].invalidate_rkey = inv_rkey;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = twice && i == 0 ? &wr[1] : NULL;
	}
	if (ibv_post_send(q->id->qp, wr, &bad))
		die("ibv_post_send");
	printf("SENT response: qid %u command_id %#x status %#x, %u bytes%s%s\n",
	       q->qid, cid, le16toh(status) >> 1, len, twice ? ", twice" : "",
	       invalidate ? ", with invalidate" : "");
	if (invalidate)
		printf("invalidated rkey %#x\n", inv_rkey);
}

static void ok(struct queue *q, uint16_t cid, uint64_t result)
{
	send_response(q, cid, result, 0, 16, 0, 0, 0);
}

static void refuse(struct queue *q, uint16_t cid, uint16_t status)
{
	send_response(q, cid, 0, status, 16, 0, 0, 0);
}

/* RDMA WRITE q->data to the command's keyed SGL (up to DATA_SIZE bytes) */
static void write_data(struct queue *q, const uint8_t *cmd)
{
	uint32_t len = cmd[CMD_SGL_LEN] | cmd[CMD_SGL_LEN + 1] << 8 |
		       cmd[CMD_SGL_LEN + 2] << 16;
	struct ibv_sge sge = { .addr = (uintptr_t)q->data,
			       .lkey = q->data_mr->lkey };
	struct ibv_send_wr wr = { 0 }, *bad;

	sge.length = len < DATA_SIZE ? len : DATA_SIZE;
	wr.wr_id = WRITE_WR_ID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = le64toh(*(uint64_t *)&cmd[CMD_SGL_ADDR]);
	wr.wr.rdma.rkey = le32toh(*(uint32_t *)&cmd[CMD_SGL_KEY]);
	if (ibv_post_send(q->id->qp, &wr, &bad))
		die("ibv_post_send (RDMA WRITE)");
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

/* Identify Controller: an I/O controller with keyed SGLs and no extras */
static void identify_ctrl(uint8_t *id)
{
	uint32_t ioccsz = 4;

	if (is("ioccsz-small"))
		ioccsz = 3;
	else if (is("ioccsz-huge"))
		ioccsz = 0xffffffff;
	memset(id, 0, DATA_SIZE);
	memcpy(id + 4, "hostile             ", 20);		/* SN */
	memcpy(id + 24, "hostile-target                          ", 40);
	memcpy(id + 64, "1.0     ", 8);				/* FR */
	put16(id + 78, 1);		/* CNTLID: the Connect's */
	put32(id + 80, 0x10300);	/* VER 1.3 */
	id[111] = 1;			/* CNTRLTYPE: I/O controller */
	put16(id + 320, 100);		/* KAS: 10 s in 100 ms units */
	id[512] = 0x66;			/* SQES */
	id[513] = 0x44;			/* CQES */
	put16(id + 514, 128);		/* MAXCMD */
	put32(id + 536, 0x5);		/* SGLS: keyed, no offsets */
	strcpy((char *)id + 768, "nqn.2014-08.org.nvmexpress:hostile-target");
	put32(id + 1792, ioccsz);	/* IOCCSZ */
	put32(id + 1796, 1);		/* IORCSZ */
	id[1803] = 1;			/* MSDBD */
	printf("identify: ioccsz %#x\n", ioccsz);
}

static uint64_t property(uint32_t ofs)
{
	switch (ofs) {
	case 0x00:	/* CAP: MQES 127, CQR, TO 500 ms, NVM command set */
		return 127 | 1ULL << 16 | 1ULL << 24 | 1ULL << 37;
	case 0x08:	/* VS */
		return 0x10300;
	case 0x14:	/* CC */
		return cc;
	case 0x1c:	/* CSTS: RDY as CC.EN, shutdown complete as asked */
		return (cc & 1) | (((cc >> 14) & 3) ? 2 << 2 : 0);
	}
	return 0;
}

/* the admin queue's answers to everything but its Connect */
static void serve_admin(struct queue *q, const uint8_t *cmd, uint16_t cid)
{
	uint32_t ofs = le32toh(*(uint32_t *)&cmd[CMD_PROP_OFS]);

	switch (cmd[CMD_OPCODE]) {
	case OPC_FABRICS:
		if (cmd[CMD_FCTYPE] == FCT_PROP_GET) {
			ok(q, cid, property(ofs));
		} else if (cmd[CMD_FCTYPE] == FCT_PROP_SET) {
			if (ofs == 0x14)
				cc = le64toh(*(uint64_t *)&cmd[CMD_PROP_VAL]);
			ok(q, cid, 0);
		} else {
			refuse(q, cid, ST_INVALID_FIELD);
		}
		return;
	case OPC_IDENTIFY:
		if (cmd[CMD_CDW10] != 1 && cmd[CMD_CDW10] != 2) {
			refuse(q, cid, ST_INVALID_FIELD);
			return;
		}
		if (cmd[CMD_CDW10] == 1)
			identify_ctrl(q->data);
		else	/* active namespace list: none */
			memset(q->data, 0, DATA_SIZE);
		write_data(q, cmd);
		if (cmd[CMD_CDW10] == 1 && is("inv-unknown")) {
			send_response(q, cid, 0, 0, 16, 0, 1,
				      admin_data_rkey ^ 0xff);
			mark_done();
		} else {
			ok(q, cid, 0);
		}
		if (cmd[CMD_CDW10] == 1 && prefix("ioccsz-"))
			mark_done();
		return;
	case OPC_SET_FEAT:
		/*
		 * Number of Queues: one submission and one completion queue;
		 * up to 3 in the q3- cases (0's based, both halves)
		 */
		if (cmd[CMD_CDW10] == 0x07 && prefix("q3-")) {
			uint32_t asked = le32toh(*(uint32_t *)&cmd[CMD_CDW11]);
			uint32_t n = (asked & 0xffff) < 2 ? (asked & 0xffff) : 2;

			ok(q, cid, n | n << 16);
		} else if (cmd[CMD_CDW10] == 0x07 && !is("ioccsz-small"))
			ok(q, cid, 0);
		else
			refuse(q, cid, ST_INVALID_FIELD);
		return;
	case OPC_KEEP_ALIVE:
		ok(q, cid, 0);
		return;
	case OPC_AER:	/* stays outstanding, as a quiet controller's */
		return;
	case OPC_GET_LOG:
		refuse(q, cid, ST_INVALID_FIELD);
		return;
	}
	refuse(q, cid, ST_INVALID_OPCODE);
}

/* the admin queue's Connect in the cases about it */
static void admin_connect_case(struct queue *q, uint16_t cid, uint32_t rkey)
{
	if (is("bad-cid"))
		send_response(q, cid ^ 0x10, 1, 0, 16, 0, 0, 0);
	else if (is("short"))
		send_response(q, cid, 1, 0, 8, 0, 0, 0);
	else if (is("long"))
		send_response(q, cid, 1, 0, 32, 0, 0, 0);
	else if (is("duplicate"))
		send_response(q, cid, 1, 0, 16, 1, 0, 0);
	else if (is("bogus-inv")) {
		send_response(q, cid, 1, 0, 16, 0, 1, rkey);
		bogus_inv_pending = 1;
		bogus_inv_rkey = rkey;
		return;
	} else
		ok(q, cid, 1);
	mark_done();
}

/* the I/O queue's Connect */
static void io_connect_case(struct queue *q, uint16_t cid)
{
	if (is("io-bad-cid"))
		send_response(q, cid ^ 0x10, 0, 0, 16, 0, 0, 0);
	else if (is("io-short"))
		send_response(q, cid, 0, 0, 8, 0, 0, 0);
	else if (is("io-long"))
		send_response(q, cid, 0, 0, 32, 0, 0, 0);
	else if (is("io-wrong-inv"))
		send_response(q, cid, 0, 0, 16, 0, 1, admin_data_rkey);
	else if (prefix("q3-")) {
		if (is("q3-connect-fail") && q->qid == 2) {
			refuse(q, cid, ST_INVALID_FIELD);
			mark_done();
		} else {
			ok(q, cid, 0);
		}
		return;
	} else if (is("io-good") || is("ka-gone")) {
		ok(q, cid, 0);
		serve_all = 1;
		if (is("ka-gone"))
			return;		/* its bad thing comes later */
	} else {
		printf("FAIL case %s did not expect an I/O queue\n", kase);
		exit(2);
	}
	mark_done();
}

static void handle(struct queue *q, const uint8_t *cmd)
{
	uint16_t cid = le16toh(*(uint16_t *)&cmd[CMD_CID]);
	uint32_t rkey = le32toh(*(uint32_t *)&cmd[CMD_SGL_KEY]);
	int connect = cmd[CMD_OPCODE] == OPC_FABRICS &&
		      cmd[CMD_FCTYPE] == FCT_CONNECT;
	/* the Connect cases stop at the Connect; the others serve */
	int serving = prefix("rep-crqsize-") ? 0 :
		      prefix("ioccsz-") || prefix("io-") || prefix("q3-") ||
		      is("inv-unknown") || is("ka-gone");
	int i;

	printf("command: qid %u opcode %#x fctype %#x command_id %#x\n",
	       q->qid, cmd[CMD_OPCODE], cmd[CMD_FCTYPE], cid);
	/*
	 * The admin queue's MRs come from a pool that hands out the same MR
	 * again, with a new key: only the latest key is one the device
	 * knows, and io-wrong-inv needs a key the device knows.
	 */
	if (q->qid == 0 && rkey)
		admin_data_rkey = rkey;
	if (bogus_inv_pending) {
		bogus_inv_pending = 0;
		send_response(q, cid, 0, 0, 16, 0, 1, bogus_inv_rkey);
		mark_done();
		return;
	}
	if (done && !serve_all) {
		/* after the bad thing: only Keep Alive, where the case serves */
		if (serving && q->qid == 0 &&
		    cmd[CMD_OPCODE] == OPC_KEEP_ALIVE)
			ok(q, cid, 0);
		else if (serving && prefix("ioccsz-"))
			serve_admin(q, cmd, cid);
		return;
	}
	if (q->qid && connect) {
		io_connect_case(q, cid);
		return;
	}
	if (is("ka-gone") && serve_all && !done && q->qid == 0 &&
	    cmd[CMD_OPCODE] == OPC_KEEP_ALIVE) {
		printf("keep-alive unanswered: disconnecting every queue\n");
		for (i = 0; i < nr_queues; i++)
			if (queues[i].established && rdma_disconnect(queues[i].id))
				die("rdma_disconnect");
		mark_done();
		return;
	}
	if (!connect && q->qid == 0 && (serving || serve_all)) {
		serve_admin(q, cmd, cid);
		return;
	}
	if (connect && q->qid == 0) {
		if (serving)
			ok(q, cid, 1);
		else
			admin_connect_case(q, cid, rkey);
		return;
	}
	printf("unanswered\n");
}

/* poll one queue: reap sends, handle every command that arrived */
static void poll_queue(struct queue *q)
{
	uint8_t cmd[64];
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(q->cq, 1, &wc)) > 0) {
		if (wc.wr_id >= SEND_WR_ID) {	/* our response or write */
			if (wc.status != IBV_WC_SUCCESS)
				printf("qid %u: send failed: %s\n", q->qid,
				       ibv_wc_status_str(wc.status));
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			if (wc.status != IBV_WC_WR_FLUSH_ERR)
				printf("qid %u: receive failed: %s\n", q->qid,
				       ibv_wc_status_str(wc.status));
			continue;
		}
		memcpy(cmd, q->recv_buf[wc.wr_id], sizeof(cmd));
		post_recv(q, wc.wr_id);
		handle(q, cmd);
	}
	if (n < 0)
		die("ibv_poll_cq");
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t->tv_sec + (now.tv_nsec - t->tv_nsec) / 1e9;
}

/*
 * cm-silent: accept the unanswered request late; the CM refuses when the
 * host ended it (its REJ put the request's state back to idle)
 */
static int late_accept(struct queue *q)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };

	if (!rdma_accept(q->id, &param)) {
		printf("FAIL a late accept went through: the host left its request open\n");
		return 1;
	}
	printf("late accept refused (%s): the host ended its request\n",
	       strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *ev;
	struct timespec start;
	struct addrinfo *ai;
	struct queue *q;
	double linger = 60;
	int i, gone;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s ADDR PORT CASE [LINGER]\n", argv[0]);
		return 2;
	}
	kase = argv[3];
	serve_all = prefix("q3-");	/* every queue but the case's */
	if (argc == 5)
		linger = atof(argv[4]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* never outlive the scenario, whatever the host does or fails to do */
	alarm(120);

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (getaddrinfo(argv[1], argv[2], NULL, &ai))
		die("getaddrinfo");
	if (rdma_bind_addr(listen_id, ai->ai_addr) ||
	    rdma_listen(listen_id, MAX_QUEUES))
		die("rdma_listen");
	if (fcntl(ec->fd, F_SETFL, fcntl(ec->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
	printf("LISTENING\n");
	clock_gettime(CLOCK_MONOTONIC, &start);

	for (;;) {
		while (!rdma_get_cm_event(ec, &ev)) {
			q = ev->id->context;
			switch (ev->event) {
			case RDMA_CM_EVENT_CONNECT_REQUEST:
				accept_queue(ev);
				break;
			case RDMA_CM_EVENT_ESTABLISHED:
				q->established = 1;
				printf("qid %u: established\n", q->qid);
				break;
			case RDMA_CM_EVENT_DISCONNECTED:
				q->gone = 1;
				printf("qid %u: host went away: %s\n", q->qid,
				       rdma_event_str(ev->event));
				break;
			default:
				printf("%s: %s (status %d)\n",
				       q ? "queue" : "listener",
				       rdma_event_str(ev->event), ev->status);
				if (q)
					q->gone = 1;
			}
			rdma_ack_cm_event(ev);
		}
		if (errno != EAGAIN)
			die("rdma_get_cm_event");

		gone = nr_queues > 0;
		for (i = 0; i < nr_queues; i++) {
			if (queues[i].established && !queues[i].gone)
				poll_queue(&queues[i]);
			if (!queues[i].gone)
				gone = 0;
		}
		if (is("cm-silent") && done && since(&done_at) > 20)
			return late_accept(&queues[0]);
		if (gone && done) {
			printf("host went away\n");
			return 0;
		}
		if (gone) {
			printf("FAIL the host went away before the case's response\n");
			return 2;
		}
		if (done && since(&done_at) > linger) {
			printf("FAIL host still connected %g s after the case's response\n",
			       linger);
			return 1;
		}
		if (!done && since(&start) > 60) {
			printf("FAIL the host did not get as far as the case in 60 s\n");
			return 2;
		}
		nanosleep(&tick, NULL);
	}
}
