// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-target - a misbehaving NVMe/RDMA target, for the rig's
 * hostile-target scenario. It listens, accepts one host's admin queue, and
 * answers its commands until it has sent the one bad response CASE asks
 * for; then it stays connected until the host goes away (or 60 s pass),
 * answering nothing more, so that the host must notice by itself.
 *
 * Usage: hostile-target ADDR PORT CASE
 *   bad-cid      the Connect's response carries another command id
 *   short        the Connect's response is 8 bytes long
 *   long         the Connect's response is 32 bytes long (the host's
 *                receive buffer holds 16: its device fails the receive)
 *   duplicate    the Connect's response is sent twice
 *   bogus-inv    the Connect is answered with SEND with Invalidate of its
 *                rkey (correct); the next command, which has no data, with
 *                SEND with Invalidate of that same rkey again
 *   good         the Connect is answered correctly (the control case: the
 *                host's next command then times out unanswered)
 * Prints LISTENING when it can be connected to, a line per command received
 * and per response sent. Exit status 0 when the bad response was sent.
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

/* the fields of a command capsule and a completion this tool looks at */
#define CMD_OPCODE	0
#define CMD_CID		2
#define CMD_FCTYPE	4
#define CMD_SGL_KEY	35	/* dptr (24) + address (8) + length (3) */
#define CMD_SGL_TYPE	39

struct cqe {
	uint64_t result;
	uint16_t sq_head, sq_id, command_id, status;
} __attribute__((packed));

#define NR_RECV		8
#define RECV_SIZE	4096
#define SEND_WR_ID	100	/* receives are 0 .. NR_RECV - 1 */

static struct rdma_cm_id *conn;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static uint8_t recv_buf[NR_RECV][RECV_SIZE];
static uint8_t send_buf[2][64];
static struct ibv_mr *recv_mr, *send_mr;

static void post_recv(int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf[i], .length = RECV_SIZE,
		.lkey = recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(conn->qp, &wr, &bad))
		die("ibv_post_recv");
}

/* listen, take one connection request, accept it with a queue depth */
static void accept_one(const char *addr, const char *port)
{
	struct ibv_qp_init_attr qp = {
		.cap = { .max_send_wr = 16, .max_recv_wr = NR_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = { 0 };
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *ev;
	const struct cm_req *req;
	struct cm_rep rep = { 0 };
	struct addrinfo *ai;
	int i;

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (getaddrinfo(addr, port, NULL, &ai))
		die("getaddrinfo");
	if (rdma_bind_addr(listen_id, ai->ai_addr) || rdma_listen(listen_id, 1))
		die("rdma_listen");
	printf("LISTENING\n");
	fflush(stdout);

	ev = expect_event(RDMA_CM_EVENT_CONNECT_REQUEST, false);
	conn = ev->id;
	req = ev->param.conn.private_data;
	printf("connect request: qid %u hsqsize %u hrqsize %u\n",
	       le16toh(req->qid), le16toh(req->hsqsize),
	       le16toh(req->hrqsize));
	pd = ibv_alloc_pd(conn->verbs);
	cq = ibv_create_cq(conn->verbs, 32, NULL, NULL, 0);
	if (!pd || !cq)
		die("ibv_alloc_pd/ibv_create_cq");
	qp.send_cq = cq;
	qp.recv_cq = cq;
	if (rdma_create_qp(conn, pd, &qp))
		die("rdma_create_qp");
	recv_mr = ibv_reg_mr(pd, recv_buf, sizeof(recv_buf),
			     IBV_ACCESS_LOCAL_WRITE);
	send_mr = ibv_reg_mr(pd, send_buf, sizeof(send_buf), 0);
	if (!recv_mr || !send_mr)
		die("ibv_reg_mr");
	for (i = 0; i < NR_RECV; i++)
		post_recv(i);

	rep.crqsize = htole16(le16toh(req->hsqsize) + 1);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	rdma_ack_cm_event(ev);
	if (rdma_accept(conn, &param))
		die("rdma_accept");
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ESTABLISHED, false));
}

/*
 * try_command - the next command capsule from the host, if one arrived (its
 * buffer is reposted); NULL if none. Send completions are reaped on the way.
 */
static const uint8_t *try_command(void)
{
	static uint8_t cmd[64];
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) > 0) {
		if (wc.wr_id >= SEND_WR_ID) {	/* our response */
			if (wc.status != IBV_WC_SUCCESS)
				printf("send failed: %s\n",
				       ibv_wc_status_str(wc.status));
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("receive failed: %s\n",
			       ibv_wc_status_str(wc.status));
			return NULL;
		}
		memcpy(cmd, recv_buf[wc.wr_id], sizeof(cmd));
		post_recv(wc.wr_id);
		printf("command: opcode %#x fctype %#x command_id %#x\n",
		       cmd[CMD_OPCODE], cmd[CMD_FCTYPE],
		       le16toh(*(uint16_t *)&cmd[CMD_CID]));
		return cmd;
	}
	if (n < 0)
		die("ibv_poll_cq");
	return NULL;
}

static const struct timespec tick = { 0, 10 * 1000 * 1000 };

/* the next command capsule, waiting up to 30 s for it */
static const uint8_t *next_command(void)
{
	const uint8_t *cmd;
	int i;

	for (i = 0; i < 3000; i++) {
		cmd = try_command();
		if (cmd)
			return cmd;
		nanosleep(&tick, NULL);
	}
	printf("FAIL no command from the host in 30 s\n");
	exit(2);
}

/*
 * send_response - one response of LEN bytes for command id CID (twice if
 * TWICE, in one post), with Invalidate of INV_RKEY if INVALIDATE
 */
static void send_response(uint16_t cid, uint32_t len, int twice,
			  int invalidate, uint32_t inv_rkey)
{
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge sge[2];
	struct cqe *c;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		c = (struct cqe *)send_buf[i];
		memset(send_buf[i], 0, sizeof(send_buf[i]));
		c->result = htole64(1);	/* Connect: controller id 1 */
		c->command_id = htole16(cid);
		sge[i] = (struct ibv_sge) { .addr = (uintptr_t)send_buf[i],
			.length = len, .lkey = send_mr->lkey };
		wr[i].wr_id = SEND_WR_ID + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = invalidate ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
		wr[i].invalidate_rkey = inv_rkey;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = twice && i == 0 ? &wr[1] : NULL;
	}
	if (ibv_post_send(conn->qp, wr, &bad))
		die("ibv_post_send");
	printf("SENT response: command_id %#x, %u bytes%s%s\n", cid, len,
	       twice ? ", twice" : "", invalidate ? ", with invalidate" : "");
	fflush(stdout);
}

/*
 * Stay until the host disconnects (or a minute passes), answering nothing:
 * commands that still arrive are printed (after a bad response to the
 * Connect, a next command means the host took that response).
 */
static void linger(void)
{
	struct rdma_cm_event *ev;
	int i;

	if (fcntl(ec->fd, F_SETFL, fcntl(ec->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
	for (i = 0; i < 6000; i++) {
		while (try_command())
			;
		if (!rdma_get_cm_event(ec, &ev)) {
			printf("host went away: %s\n", rdma_event_str(ev->event));
			rdma_ack_cm_event(ev);
			return;
		}
		if (errno != EAGAIN)
			die("rdma_get_cm_event");
		nanosleep(&tick, NULL);
	}
	printf("host still connected after 60 s\n");
}

int main(int argc, char **argv)
{
	const uint8_t *cmd;
	const char *c;
	uint16_t cid;
	uint32_t rkey;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT CASE\n", argv[0]);
		return 2;
	}
	c = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* never outlive the scenario, whatever the host does or fails to do */
	alarm(120);
	accept_one(argv[1], argv[2]);

	cmd = next_command();
	cid = le16toh(*(uint16_t *)&cmd[CMD_CID]);
	rkey = le32toh(*(uint32_t *)&cmd[CMD_SGL_KEY]);
	if (cmd[CMD_OPCODE] != 0x7f || cmd[CMD_FCTYPE] != 0x01) {
		printf("FAIL the first command is not a Fabrics Connect\n");
		return 2;
	}

	if (!strcmp(c, "bad-cid"))
		send_response(cid ^ 0x10, 16, 0, 0, 0);
	else if (!strcmp(c, "short"))
		send_response(cid, 8, 0, 0, 0);
	else if (!strcmp(c, "long"))
		send_response(cid, 32, 0, 0, 0);
	else if (!strcmp(c, "duplicate"))
		send_response(cid, 16, 1, 0, 0);
	else if (!strcmp(c, "good"))
		send_response(cid, 16, 0, 0, 0);
	else if (!strcmp(c, "bogus-inv")) {
		send_response(cid, 16, 0, 1, rkey);
		cmd = next_command();
		send_response(le16toh(*(uint16_t *)&cmd[CMD_CID]), 16, 0, 1,
			      rkey);
	} else {
		printf("FAIL unknown case %s\n", c);
		return 2;
	}
	linger();
	return 0;
}
