# SPDX-License-Identifier: GPL-2.0
# hostile-host: a misbehaving host (tests/tools/hostile-host.c) sends our
# target bad things: connect private data that is missing, short (only
# iWARP can tell: IB/RoCE pad it), of an unknown format, or asks for queues
# deeper than the target offers; a Connect capsule shorter than its
# in-capsule SGL says; an in-capsule offset that wraps past 2^64; a keyed
# SGL longer than the MDTS the target advertises; one command id used by
# four commands at once; 40 commands on a queue of 32. Then, on a controller
# of its own (admin queue, CC.EN, Identify, an I/O queue): keyed SGLs of
# exactly MDTS (written and read back), one byte over it and one block over
# it, reads and writes; a second Connect on the live admin queue; Property
# Get/Set and Connect on the I/O queue; a Connect for another qid than the
# RDMA CM private data named, and CM hsqsize different from the Connect's
# sqsize; a write through a stale rkey (the target's RDMA READ fails; not
# on siw, where that ends nothing); a write of MDTS cut off (disconnect, MR
# deregistration) while the target reads its data (at least one cut before
# the response, or the case tested nothing; rxe's deregistration waits for
# a READ it serves, so a READ it fails is one that had not begun); an
# admin queue of 2 entries held by two AERs, then 8 more commands with RNR
# retry 0 (a real overrun); 200 reads with Segment and Last Segment SGL
# descriptors (the log must be rate limited); 500 refused commands and
# then 32 reads of MDTS at once on a send queue too small for them all
# (the refused commands' credits must balance). Each
# must get the exact RDMA CM reject status or NVMe status (or the
# connection end where that is the answer), with a log line saying why
# where the target writes one; a well-formed capsule from the same tool
# must be parsed (so a broken tool cannot pass); all the while a
# well-behaved host does verified I/O (runs of 2 s, back to back, none may
# fail), and afterwards it still gets verified I/O. Before all that, where
# nvmet has a port's param_mdts (7.1), the MDTS case on a port capped at
# 8 KiB: Identify and our refusals follow the port's cap. Then the target is
# reloaded with use_srq=Y
# and the overrun (no RNR: the SRQ has buffers), the flood, the refused
# commands and MDTS run again, with a well-behaved host after them; then
# with the smallest SRQs (srq_size=256, one per CPU) and a backend of 4 s
# a command (8 s on the debug kernel), 240 reads per SRQ at once from the hostile host hold their
# buffers below the low mark: the target says so and counts it, all are
# answered; and everything unloads.
# On rxe-hw too, on Debian's kernels (send-queue slots by hardware rules,
# DMA behind a strict IOMMU); the debug kernel runs it on rxe and siw only, for
# CI's time.
# covers: a misbehaving host against our target: exact statuses, no damage, the parser under KASAN
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe,siw,rxe-hw debug-rdma=rxe,siw timeout=900 debug-smp=2 fast=debug:ours/ours:rxe,trixie:ours/ours:rxe

hh() { /rig/bin/hostile-host $RIG_IP4 4420 $RIG_NQN "$1"; }

# beside_hostile NS - verified I/O of a well-behaved host on NS while the
# hostile cases run: fio runs of 2 s back to back until /tmp/beside.stop,
# from 32 MiB on (the tool reads and writes from block 0, MDTS and a block
# at most); /tmp/beside.runs counts them, /tmp/beside.failed holds the
# first failure
beside_hostile() {
	local n=0
	rm -f /tmp/beside.stop /tmp/beside.failed
	while [ ! -e /tmp/beside.stop ]; do
		if ! rig_fio_load "$1" 2 4k --offset=32M; then
			grep -E 'err=|verify|bad|error' /tmp/load.out | head -5 > /tmp/beside.failed
			tail -15 /tmp/load.out >> /tmp/beside.failed
			break
		fi
		n=$((n + 1))
	done
	echo $n > /tmp/beside.runs
}
# beside_start / beside_ok WHAT - start it; stop it and check it ran and
# never failed
beside_start() {
	ns=$(rig_connect)
	rig_must "a well-behaved host connects$1" test -b "$ns"
	beside_hostile "$ns" &
	beside_pid=$!
}
beside_ok() {
	touch /tmp/beside.stop
	wait $beside_pid
	rig_log "well-behaved host beside the hostile cases$1: $(cat /tmp/beside.runs) runs of verified I/O"
	[ -e /tmp/beside.failed ] && cat /tmp/beside.failed
	rig_check "a well-behaved host's verified I/O never failed beside them$1" \
		sh -c '[ ! -e /tmp/beside.failed ] && [ "$(cat /tmp/beside.runs)" -gt 0 ]'
	# a job per CPU (rig_fio_load): submission on every CPU at once
	rig_check "... and went over every I/O queue$1" rig_io_queues_all_busy
}

rig_serve_ram 64

# A port's own transfer cap (configfs param_mdts, where nvmet has it):
# nvmet's Identify says the smaller of it and ours, and ours refuses a keyed
# SGL beyond it as one beyond its own. The mdts case on a port of
# param_mdts 1 (8 KiB) reads MDTS from Identify: exactly 8 KiB must pass,
# 8 KiB + 1 byte and + 1 block be refused. First, before the cases below:
# the refusal's log line is rate limited (10 in 5 s), and rejects-then-reads
# spends that on 250 refusals.
if mkdir "$NVMET_CFS/ports/9" && [ -e "$NVMET_CFS/ports/9/param_mdts" ]; then
	rmdir "$NVMET_CFS/ports/9"
	rig_unexport
	RIG_PORT_ATTRS=param_mdts=1
	rig_must "export $RIG_DEV on a port of param_mdts 1" rig_export "$RIG_DEV"
	RIG_PORT_ATTRS=
	rig_check "hostile host (param_mdts 1): mdts" hh mdts
	rig_check "target refused an SGL of the port's MDTS + 1 byte" \
		sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 8193 bytes for a command of 8192 (most 8192): rejected"'
	rig_check "unexport (param_mdts)" rig_unexport
	rig_must "export $RIG_DEV on $RIG_IP4:4420 again" rig_export "$RIG_DEV"
else
	rmdir "$NVMET_CFS/ports/9" 2> /dev/null
	rig_skip "a port's param_mdts: not in this kernel's nvmet"
fi

# nvmet core says why it refuses a fabrics command only in pr_debug
DYNDBG=/sys/kernel/debug/dynamic_debug/control
[ -w $DYNDBG ] && echo 'module nvmet file fabrics-cmd.c +p' > $DYNDBG

# bad-rkey-write not on siw: the host's siw answers the target's RDMA READ
# through a stale STag with a TERMINATE, and then neither side completes a
# work request or disconnects (see the tool's header)
badkey=bad-rkey-write
[ "$RIG_RDMA" = siw ] && badkey= &&
	rig_skip "hostile host: bad-rkey-write on siw (the READ's TERMINATE ends nothing)"
# rejects-then-gone not on siw: it needs the target's SENDs held by
# receiver-not-ready, which iWARP does not have (a SEND without a receive
# ends the connection there, and siw's TERMINATE ends nothing)
gone=rejects-then-gone
[ "$RIG_RDMA" = siw ] && gone= &&
	rig_skip "hostile host: rejects-then-gone on siw (iWARP has no receiver-not-ready)"
beside_start ""
for c in connect-io cm-none cm-short cm-recfmt cm-admin-deep cm-io-deep \
	cm-hrqsize-0 capsule-short capsule-wrap keyed-connect keyed-over-mdts \
	cid-reuse over-depth mdts connect-twice fabrics-on-io cm-qid-mismatch \
	cm-hsqsize-mismatch $badkey disconnect-in-read rnr-off \
	sgl-segment rejects-then-reads $gone connect-io; do
	rig_check "hostile host: $c" hh $c
done
beside_ok ""
[ -w $DYNDBG ] && echo 'module nvmet file fabrics-cmd.c -p' > $DYNDBG

rig_check "target said why it rejected a connect" \
	sh -c 'dmesg | grep -q "nvmet_rdma: rejecting connect request from .*: invalid host SQ size (4)"'
rig_check "target said why it failed a short capsule" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: in-capsule data offset 0 length 1024 outside the 512 bytes received"'
rig_check "target said why it refused a 2 MiB keyed SGL" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 2097152 bytes for a command of 0 (most 1048576): rejected"'
rig_check "target said why it refused an SGL of MDTS + 1 byte" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 1048577 bytes for a command of 1048576 (most 1048576): rejected"'
rig_check "target said why it refused a command of MDTS + 1 block" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 1049088 bytes for a command of 1049088 (most 1048576): rejected"'
if [ -w $DYNDBG ]; then
	rig_check "nvmet said why it refused Connect on a live queue" \
		sh -c 'dmesg | grep -q "nvmet: received unknown capsule type 0x1"'
	rig_check "nvmet said why it refused Property Get/Set on an I/O queue" \
		sh -c 'dmesg | grep -q "nvmet: received unknown capsule type 0x4" &&
			dmesg | grep -q "nvmet: received unknown capsule type 0x0"'
else
	rig_skip "nvmet's pr_debug reasons for refused fabrics commands: no dynamic debug"
fi
rig_check "target said why it refused a Connect for another qid" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: Connect for qid 1 on a connection for qid 0: refused" &&
		dmesg | grep -q "nvmet_rdma: queue [0-9]*: Connect for qid 2 on a connection for qid 1: refused"'
[ -n "$badkey" ] &&
	rig_check "target said its RDMA READ through a stale rkey failed" \
		sh -c 'dmesg | grep -q "nvmet_rdma: RDMA READ for CQE .* failed with status" &&
			dmesg | grep -q "nvmet: ctrl [0-9]* fatal error occurred"'
rig_check "target said why it refused Segment/Last Segment descriptors" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: invalid SGL type 0x[23]0: rejected"'
rig_check "... rate limited: not one line per command (200 sent)" \
	sh -c '[ $(dmesg | grep -c "invalid SGL type 0x[23]0") -le 40 ]'
[ -n "$gone" ] &&
	rig_check "target tore queues down with refused commands still waiting for credits" \
		sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: gone with [0-9]* commands unanswered that waited for send queue credits"'
rig_check "target said why it refused the reads with short SGLs" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 4096 bytes for a command of 8192 (most 1048576): rejected"'
# an overrun is a post refused for want of room (-ENOMEM); one refused
# because a disconnect had already taken the queue pair (siw: -ENOTCONN)
# is a teardown race, seen once on the debug kernel
rig_check "target never overran its send queue" \
	sh -c '! dmesg | grep "posting a .*signalled response failed (-12)"'

rig_check "verified I/O after the hostile host" rig_fio_verify "$ns" randwrite 4k 8 1 2M
rig_check "nvme disconnect" rig_disconnect
rig_check "namespace gone" rig_wait 10 eval '! rig_has_ns'
rig_check "unexport" rig_unexport

# the same target with shared receive queues
rig_check "rmmod nvmet-rdma" rig_wait 20 $RMMOD nvmet-rdma
rig_load_target "$RIG_TARGET" use_srq=Y
rig_check "use_srq is on" test "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y
rig_must "export $RIG_DEV again (use_srq=Y)" rig_export "$RIG_DEV"
beside_start " (use_srq=Y)"
for c in connect-io rnr-off-srq over-depth mdts rejects-then-reads connect-io; do
	rig_check "hostile host (use_srq=Y): $c" hh $c
done
beside_ok " (use_srq=Y)"
rig_check "the target used shared receive queues" \
	sh -c 'dmesg | grep -q "nvmet_rdma: [a-z0-9]*: in-capsule data up to [0-9]* bytes; [0-9]* shared receive queues of"'
rig_check "target never overran its send queue (use_srq=Y)" \
	sh -c '! dmesg | grep "posting a .*signalled response failed (-12)"'
rig_check "verified I/O after the hostile host (use_srq=Y)" rig_fio_verify "$ns" randwrite 4k 8 1 2M
rig_check "nvme disconnect (use_srq=Y)" rig_disconnect
rig_check "namespace gone (use_srq=Y)" rig_wait 10 eval '! rig_has_ns'
rig_check "unexport (use_srq=Y)" rig_unexport

# the smallest shared receive queue (256), drained below its low mark by
# commands that a slow backend (null_blk) keeps running: 4 s a command,
# below null_blk's own 5 s timeout, so that the partition scan at its load
# reads sector 0 once (a read that times out is read again by every
# partition parser: 96 s on Debian's kernels); 8 s on the debug kernel,
# where rxe takes seconds to receive them all (3 s was too short) and a few
# parsers cost 26 s
hold=4
case $KVER in *debug*) hold=8 ;; esac
rig_check "rmmod nvmet-rdma (use_srq=Y)" rig_wait 20 $RMMOD nvmet-rdma
rig_load_target "$RIG_TARGET" use_srq=Y srq_size=256
rig_must "a backend of $hold s a command" $MODPROBE null_blk nr_devices=1 gb=1 \
	irqmode=2 completion_nsec=${hold}000000000 hw_queue_depth=512
rig_must "the backend's timeout above it" \
	sh -c 'echo 60000 > /sys/block/nullb0/queue/io_timeout'
rig_must "export it (srq_size=256)" rig_export /dev/nullb0
ns=$(rig_connect)
rig_must "a well-behaved host connects (srq_size=256)" test -b "$ns"
# an SRQ per completion vector, one per CPU on rxe and siw: 8 queues x 30
# reads for each, 240 of its 256 buffers (all 256 held would leave rxe
# dropping SENDs until the sender gives up, not waiting by RNR)
rig_check "hostile host (srq_size=256): srq-low" \
	env SRQ_LOW_QUEUES=$((8 * $(nproc))) /rig/bin/hostile-host $RIG_IP4 4420 $RIG_NQN srq-low
rig_check "target said its SRQ ran low" \
	sh -c 'dmesg | grep -q "nvmet_rdma: [a-z0-9_]*: SRQ [0-9]* low: fewer than 32 of its 256 receive buffers posted"'
# (the count is the SRQ's, shown on each queue that uses it: on the debug
# kernel over siw the well-behaved host's keep-alive once timed out in the
# crush and its queues were gone until it reconnected 17 s later)
rig_check "the well-behaved host's I/O queue counts the SRQ's low mark" \
	rig_wait 30 sh -c 'grep -lx "srq 1" /sys/kernel/debug/nvmet_rdma/queue* | xargs grep -hx "srq_low [1-9][0-9]*"'
rig_check "a read afterwards (srq_size=256)" \
	dd if="$ns" of=/dev/null bs=4k count=1 iflag=direct
rig_check "nvme disconnect (srq_size=256)" rig_disconnect
rig_check "unexport (srq_size=256)" rig_unexport
rig_unload nvme-rdma nvmet-rdma
