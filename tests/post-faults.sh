# SPDX-License-Identifier: GPL-2.0
# post-faults: chains of work requests whose post fails half-way, as an
# RNIC's does when it cannot take a WR (rig/rxe-hw,
# fail_{write,read,send}_chain_every). The WRs before the failed one are on
# the queue and run or are flushed later, so the poster must not release
# what they use. First the target's chains (issue 18 item 5): the RDMA
# WRITEs of read data with the response's SEND behind them, the RDMA READs
# of writes larger than one READ carries. The target must say so, fail the
# queue and keep the response until its QP is drained; the host reconnects
# and fio verifies every byte, without a command waiting for its timeout.
# Then the host's: a REG_MR posted without its SEND is recovered by a
# reconnect.
# covers: chains of work requests that fail part-way, on both sides
# rig: pairs=ours/ours kernels=debug rdma=rxe-hw timeout=600 fast=debug:ours/ours:rxe-hw

rig_serve_ram 64
P=/sys/module/rdma_rxe_hw/parameters
D=/sys/kernel/debug/rxe_hw
ns=$(rig_connect $RIG_IP4 4420 --reconnect-delay=1 --ctrl-loss-tmo=120 \
	--nr-io-queues=1)
rig_must "connect" test -b "$ns"
ctrl=$(ls -d /sys/class/nvme/nvme*/ | head -1)

# in_dmesg REGEX - the kernel said it
in_dmesg() { dmesg | grep -qE "$1"; }
live() { rig_wait 60 eval '[ "$(cat ${ctrl}state)" = live ]'; }

# cut_chains KIND EVERY WHAT FIO_ARGS... - every EVERY-th chain of KIND
# (write, read, send) fails at its last WR while fio writes and verifies:
# the controller is live again after, rxe-hw cut some
cut_chains() {
	local kind=$1 every=$2 what=$3 n before
	shift 3
	before=$(cat $D/${kind}_chains_failed)
	echo "$every" > $P/fail_${kind}_chain_every
	rig_check "$what: verified" rig_fio_verify "$ns" "$@"
	echo 0 > $P/fail_${kind}_chain_every
	n=$(( $(cat $D/${kind}_chains_failed) - before ))
	rig_log "$what: rxe-hw failed $n chains"
	rig_check "$what: rxe-hw cut some" test "$n" -gt 0
	rig_check "$what: the controller is live again" live
}

# 64 KiB writes come by one RDMA READ; read back, each goes out in an RDMA
# WRITE chained with the response's SEND
cut_chains write 10 "RDMA WRITEs + response cut" write 64k 8 1 16M
rig_check "the target failed the queue of a response posted in part" \
	in_dmesg 'nvmet_rdma: queue [0-9]+: a response with its data posted in part \(-12\): failing the queue'
# 1 MiB writes come by a chain of RDMA READs (32 SGEs each on rxe)
cut_chains read 3 "RDMA READ chains cut" write 1m 2 1 32M
rig_check "the target failed the queue of an RDMA READ posted in part" \
	in_dmesg "nvmet_rdma: queue [0-9]+: the RDMA READ of a command's data posted in part \(-12\): failing the queue"
rig_check "no command waited for its timeout" \
	sh -c '! dmesg | grep -E "I/O [0-9]+ QID [0-9]+ timeout"'

# the host registers memory for 64 KiB commands: REG_MR + SEND
cut_chains send 16 "REG_MR + command cut" randrw 64k 8 1 16M
rig_check "the host recovered a memory registration posted without its command" \
	in_dmesg 'memory registration posted without its command: recovering'

rig_check "verified I/O with nothing cut" rig_fio_verify "$ns" randrw 64k 8 1 4M
rig_check "disconnect" rig_disconnect
rig_check "unexport" rig_unexport

# Again where the backend completes commands in hard IRQ, as nvme-pci does
# (null_blk's timer; brd completes them in the submitter): the target posts
# responses there, so a chain posted in part must fail the queue without
# sleeping and without running commands that wait for credits (issue 44
# item 4; the debug kernel's DEBUG_ATOMIC_SLEEP and lockdep watch).
rig_must "null_blk completing in hard IRQ" $MODPROBE null_blk nr_devices=1 \
	irqmode=2 completion_nsec=50000 memory_backed=1 gb=1
rig_must "export /dev/nullb0" rig_export /dev/nullb0
n_failed=$(dmesg | grep -cE 'nvmet_rdma: queue [0-9]+: a response with its data posted in part')
ns=$(rig_connect $RIG_IP4 4420 --reconnect-delay=1 --ctrl-loss-tmo=120 \
	--nr-io-queues=1)
rig_must "connect to null_blk" test -b "$ns"
ctrl=$(ls -d /sys/class/nvme/nvme*/ | head -1)
cut_chains write 10 "hard IRQ: RDMA WRITEs + response cut" write 64k 8 1 16M
rig_check "hard IRQ: the target failed the queue of a response posted in part" \
	test "$(dmesg | grep -cE 'nvmet_rdma: queue [0-9]+: a response with its data posted in part')" -gt "$n_failed"
rig_check "hard IRQ: disconnect" rig_disconnect
rig_check "hard IRQ: unexport" rig_unexport

# A response ring run dry, then chains cut (issue 44 item 5). With every
# response signalled (unsignalled_responses=N: a response keeps its ring
# entry until its SEND's CQE, where an unsignalled one carries the CQE
# inline and is free at once) and rxe-hw holding SEND CQEs for 64 replies
# (an ACK lost, a second at most), the responses waiting for their CQE and
# the commands still arriving outnumber a queue of 16's ring of 32: the
# target allocates the others one by one (rsps_discrete). Then read data +
# response chains cut among them, and the queues torn down: kmemleak, the
# DMA-API's check at unload and ib_dealloc_pd's WARN say if a response
# from outside the ring is left behind. A cut chain holds one of those only
# now and then (the ring runs dry in bursts): the teardown says so when it
# releases one (before bf31fda it walked the ring only), a figure here.
rig_must "null_blk gone" $RMMOD null_blk
rig_must "unload our target (hard IRQ)" $RMMOD nvmet_rdma
rig_load_target ours unsignalled_responses=N
rig_must "export $RIG_DEV (every response signalled)" rig_export "$RIG_DEV"
echo 64 > $P/hold_replies && echo 1000000 > $P/hold_us
ns=$(rig_connect $RIG_IP4 4420 --reconnect-delay=1 --ctrl-loss-tmo=120 \
	--nr-io-queues=1 --queue-size=16)
rig_must "connect with a queue of 16" test -b "$ns"
ctrl=$(ls -d /sys/class/nvme/nvme*/ | head -1)
# 4 KiB writes in the capsule (a SEND each), 64 KiB writes (RDMA READ),
# reads (RDMA WRITE + SEND), 32 at once on a queue of 16
mix="randrw 4k 16 2 16M --bssplit=4k/70:64k/30"
rig_check "ring run dry: verified" rig_fio_verify "$ns" $mix
discrete=$(rig_target_sum rsps_discrete)
rig_log "ring run dry: $discrete responses allocated outside the ring"
rig_check "ring run dry: responses allocated outside the ring" test "$discrete" -gt 0
for round in 1 2 3; do
	cut_chains write 40 "ring run dry, round $round: RDMA WRITEs + response cut" $mix
done
rig_figure "ring run dry: $(dmesg | grep -cE 'nvmet_rdma: queue [0-9]+: released [0-9]+ responses from outside the ring that chains posted in part had kept') teardowns released responses from outside the ring that cut chains had kept"
echo 1 > $P/hold_replies && echo 20000 > $P/hold_us
rig_check "ring run dry: disconnect" rig_disconnect
rig_check "ring run dry: unexport" rig_unexport
