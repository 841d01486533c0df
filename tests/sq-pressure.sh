# SPDX-License-Identifier: GPL-2.0
# sq-pressure: send queues kept full on rxe-hw, whose slots retire only as
# a hardware RNIC's do (rig/rxe-hw: when a later signalled CQE is polled),
# and whose SEND CQEs come after the reply they provoked, as an RNIC's often
# do (so a request's tag can be reused while its SEND still holds a slot).
# I/O queues of 16 (the fabrics minimum) and of 32 entries are held at
# their depth by fio with reads and writes from 512 B to 128 KiB (in the
# capsule, and over RDMA READ/WRITE with memory registration on the host),
# long enough that unsignalled work requests pile up on both sides. At 32,
# each SEND's CQE (and every send CQE after it) is held for 64 replies or a
# second: an ACK lost and retransmitted while the peer answers on, as on a
# real fabric; the requests end and their tags are reused while the send
# queue still holds their WRs (issue 18 item 1: a host that did not count
# its send queue by hardware rules overran it there, posted a memory
# registration without its command, and reset the controller). Then at 32
# again with every kernel CQ's completion event held 200 us (rxe-hw's
# cq_event_delay_us, an RNIC's interrupt moderation): completions arrive in
# batches, late, from a hard interrupt.
# Expected: every byte verified, and no post that fails for a full send
# queue on either side: such a failure becomes an I/O error or a controller
# reset on a server. Our target against the stock host is left out for
# CI's time; its accounting is the same against our host. Our host against
# the stock target runs on Debian's kernels only (CI's time: the debug
# kernel watches our host in our own pair).
# covers: full I/O queues with held completions: no post lost to a full send queue
# rig: pairs=ours/ours,ours/stock debug-pairs=ours/ours kernels=stock,debug rdma=rxe-hw timeout=300 fast=oldest:ours/ours:rxe-hw

rig_setup_rdma
rig_load_target
rig_load_host
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"
rig_must "export $dev" rig_export "$dev"
refusals=/sys/kernel/debug/rxe_hw/sq_full_refusals
held=/sys/kernel/debug/rxe_hw/send_cqes_held
held_before=$(cat $held)

# queue_full_run QSIZE [WHEN] - a controller with one I/O queue of QSIZE
# entries, held full by two fio jobs; WHEN names the conditions in the checks
queue_full_run() {
	local q=$1 c="-Q $1${2:+, $2}" ns before
	before=$(cat $refusals)
	ns=$(rig_connect $RIG_IP4 4420 --queue-size=$q --nr-io-queues=1)
	rig_check "$c: connect" test -b "$ns" || return
	rig_check "$c: reads and writes, 512 B to 128 KiB, QD $((2 * q))" \
		rig_fio_verify "$ns" randrw 4k $q 2 8M \
		--bssplit=512/10:4k/40:16k/20:64k/15:128k/15
	rig_check "$c: 128 KiB writes, QD $q" rig_fio_verify "$ns" randwrite 128k $q 1 8M
	rig_log "$c: rxe-hw refused $(( $(cat $refusals) - before )) posts for a full send queue"
	rig_check "$c: disconnect" rig_disconnect
}

queue_full_run 16
hold=/sys/module/rdma_rxe_hw/parameters
echo 64 > $hold/hold_replies && echo 1000000 > $hold/hold_us
queue_full_run 32 "SEND CQEs held for 64 replies"
echo 1 > $hold/hold_replies && echo 20000 > $hold/hold_us
rig_log "rxe-hw held $(( $(cat $held) - held_before )) SEND CQEs for their reply"
rig_check "rxe-hw held SEND CQEs back for their replies" test "$(cat $held)" -gt "$held_before"
delayed=/sys/kernel/debug/rxe_hw/cq_events_delayed
delayed_before=$(cat $delayed)
echo 200 > $hold/cq_event_delay_us
queue_full_run 32 "CQ events held 200 us"
echo 0 > $hold/cq_event_delay_us
rig_log "rxe-hw held $(( $(cat $delayed) - delayed_before )) CQ events"
rig_check "rxe-hw held CQ events back" test "$(cat $delayed)" -gt "$delayed_before"

rig_check "the host never lost a post to a full send queue" \
	sh -c '! dmesg | grep -E "posting a command failed|memory registration posted without its command|nvme_rdma_post_send failed"'
rig_check "the host never started error recovery" \
	sh -c '! dmesg | grep -E "starting error recovery|Reconnecting in"'
rig_check "the target never lost a post to a full send queue" \
	sh -c '! dmesg | grep -E "posting a .*signalled response failed|sending cmd response failed|post_recv cmd failed"'
rig_check "unexport" rig_unexport
