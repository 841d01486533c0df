# SPDX-License-Identifier: GPL-2.0
# wr-errors: work requests that complete in error, as an RNIC's do when the
# peer stops answering (a pulled cable, a dead switch port): the WR's CQE
# says retry exceeded, its QP goes to the error state and the WRs behind it
# are flushed (rig/rxe-hw, error_{write,read,send}_in: once each, under fio
# load). An RDMA WRITE of read data and an RDMA READ of write data (the
# target's), then a SEND (a host's command or a target's response,
# whichever comes). Then a QP of the target's and one of the host's fail by
# themselves (rxe-hw's qp_fatal: the QP to error, every WR flushed, none
# with an error of its own, and IB_EVENT_QP_FATAL, as an RNIC's local
# catastrophic error): the target, which takes flushes for a teardown's
# echo, must act on the event. Expected each time: the queue fails, the
# host reconnects by itself, fio sees no error and verifies every block, no
# command waits for its timeout; and nothing touches a released request or
# response (KASAN), nothing leaks (kmemleak, and DMA-API debugging at
# rxe-hw's unload: ours/ours passed on the debug kernel, December 2026; it
# runs on Debian's kernels only, for CI's time). stock/ours on the debug
# kernel fails on the stock host's own DMA-API errors (its 16-byte
# response buffers share cache lines).
# The stock target is left out: it drops the error completion of an
# unsignalled RDMA WRITE (rdma_rw leaves its wr_cqe NULL) and ignores the
# flushes behind it, so the host recovers only when its commands time out,
# 30 s later (seen on 6.1; ours, before it gave those WRs its unsignalled
# completion handler, did the same); it only logs QP_FATAL, as ours did
# before it acted on it (the host's commands then timed out too).
# covers: work request errors and fatal QP events recovered without an I/O error
# rig: pairs=ours/ours,stock/ours kernels=stock rdma=rxe-hw timeout=360 fast=oldest:ours/ours:rxe-hw

# The scenario's kernel log: whole, even after a flood of warnings (the
# stock host's on the debug kernel: 114 stack traces, which outgrew the
# default 256 KiB ring buffer): tests/run boots guests with 16 MiB, and a
# log that wrapped all the same fails the scenario at its dump.
klog() { dmesg; }
klog_has() { klog | grep -qE "$1"; }

rig_setup_rdma
rig_load_target
rig_load_host
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"
rig_must "export $dev" rig_export "$dev"
P=/sys/module/rdma_rxe_hw/parameters
D=/sys/kernel/debug/rxe_hw
ns=$(rig_connect $RIG_IP4 4420 --reconnect-delay=1 --ctrl-loss-tmo=120 \
	--nr-io-queues=1)
rig_must "connect" test -b "$ns"
ctrl=$(ls -d /sys/class/nvme/nvme*/ | head -1)
live() { [ "$(cat ${ctrl}state)" = live ]; }
reconnects() { klog | grep -c 'nvme nvme[0-9]*: Successfully reconnected'; }
reconnects_before=$(reconnects)
errored() { cat $D/${1}_wrs_errored; }

# error_once KIND WHAT - under load, the 20th WR of KIND (write, read,
# send) from now completes in error
error_once() {
	local kind=$1 what=$2 before pid
	before=$(errored "$kind")
	rig_fio_load "$ns" 8 64k &
	pid=$!
	sleep 1
	echo 20 > $P/error_${kind}_in
	rig_check "$what: rxe-hw ended one in error" \
		rig_wait 20 eval "[ \$(errored $kind) -gt $before ]"
	rig_check "$what: the controller is live again" rig_wait 60 live
	rig_check "$what: fio saw no error, data verified" rig_fio_done $pid
	rig_check "$what: it fired once (the knob is back to 0)" \
		test "$(cat $P/error_${kind}_in)" -eq 0 -a "$(errored "$kind")" -eq $((before + 1))
}

# 64 KiB writes come by RDMA READ, their verify reads go out by RDMA WRITE
error_once write "an RDMA WRITE ends in error"
error_once read "an RDMA READ ends in error"
error_once send "a SEND ends in error"

# newest_qp COMM - the number of the newest QP that COMM (nvmet_rdma: the
# target, nvme_rdma: the host) has on the device: its I/O queue's. The QPs
# themselves are rdma_cm's; their CM IDs name the module.
newest_qp() {
	rdma resource show cm_id link $RIG_RDMA_DEV/1 |
		awk -v comm="comm [$1] " 'index($0, comm) {
			for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }' |
		sort -n | tail -1
}

# qp_fatal COMM WHAT - under load, COMM's newest QP fails by itself
qp_fatal() {
	local comm=$1 what=$2 qpn before pid
	before=$(reconnects)
	rig_fio_load "$ns" 8 64k &
	pid=$!
	sleep 1
	qpn=$(newest_qp "$comm")
	[ -n "$qpn" ] || rdma resource show cm_id
	rig_check "$what: $comm has a QP ($qpn)" test -n "$qpn"
	rig_check "$what: rxe-hw failed it" \
		sh -c "echo $RIG_RDMA_DEV $qpn > $D/qp_fatal"
	# reconnect-delay=1: well before a command's 30 s timeout
	rig_check "$what: the host reconnected" \
		rig_wait 20 eval '[ $(reconnects) -gt $before ]'
	rig_check "$what: the controller is live again" rig_wait 60 live
	rig_check "$what: fio saw no error, data verified" rig_fio_done $pid
}

fatal_before=$(cat $D/qps_fatal)
qp_fatal nvmet_rdma "the target's QP fails by itself"
rig_check "the target said its queue pair is in error" klog_has \
	'nvmet_rdma: queue [0-9]+: QP fatal error \(1\): the queue pair is in error'
qp_fatal nvme_rdma "the host's QP fails by itself"
if [ "$RIG_HOST" = ours ]; then
	rig_check "the host said its queue pair is in error" klog_has \
		'nvme nvme[0-9]+: queue [0-9]+: QP fatal error \(1\): the queue pair is in error'
fi
rig_check "rxe-hw failed 2 QPs" \
	test $(( $(cat $D/qps_fatal) - fatal_before )) -eq 2
rig_check "the host recovered (reconnected) each time" \
	test $(( $(reconnects) - reconnects_before )) -ge 5
# "I/O 12 QID 1 timeout", or stock's host from 6.12 on: "I/O tag 12
# (000c) opcode 0x1 (Write) QID 1 timeout" (tests/host/message-texts.tsv)
rig_check "no command waited for its timeout" \
	eval '! klog_has "QID [0-9]+ timeout"'
rig_check "verified I/O after the errors" rig_fio_verify "$ns" randrw 64k 8 1 4M
rig_check "disconnect" rig_disconnect
rig_check "unexport" rig_unexport
