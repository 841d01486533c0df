# SPDX-License-Identifier: GPL-2.0
# data-verify: export a RAM disk over RDMA, connect with `nvme connect -t
# rdma`, and check every byte with fio --verify=crc32c from 512 B to 1 MiB,
# sequential and random, QD 1 to 128, up to 4 jobs, and I/Os submitted 8
# at a time (our host posts such runs together); then disconnect and unload
# cleanly.
# iWARP semantics (siw) are covered for our own pair, and there a port asking
# more in-capsule data than siw's receive SGEs hold. The stock pair is the
# rig's own proof on Debian's kernel. On the debug kernel (ten times slower)
# our own pair only, for CI's time: stock on stock proves nothing about ours
# there, the mixed pairs run on Debian's kernels, and KASAN and lockdep
# watch each of our modules in our pair.
# On rxe-hw too, on Debian's kernels (send-queue slots by hardware rules,
# DMA behind a strict IOMMU), each pairing with one of ours; the debug kernel
# runs it on rxe and siw only, for CI's time.
# covers: every byte verified on each transfer path, size and depth; all I/O queues; KASAN and lockdep on both fast paths with 2 vCPUs; iWARP (siw)
# rig: pairs=all debug-pairs=ours/ours siw-pairs=ours/ours rxe-hw-pairs=ours/ours,ours/stock,stock/ours kernels=stock,debug rdma=rxe,siw,rxe-hw debug-rdma=rxe,siw timeout=300 debug-smp=2 fast=debug:ours/ours:rxe,debug:ours/ours:siw,oldest:ours/stock:rxe,oldest:stock/ours:rxe,newest:ours/ours:rxe,trixie:ours/ours:rxe

rig_setup_rdma
rig_load_target
rig_load_host
dev=$(rig_backing ram 256)
rig_must "brd backing device" test -b "$dev"
# in-capsule data up to 16 KiB (the port's default is one page), so that
# the 16 KiB writes below come in the capsule
rig_must "export $dev on $RIG_IP4:4420, 16 KiB in-capsule" \
	rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 16384
ns=$(rig_connect)
rig_must "nvme connect -t rdma" test -b "$ns"
rig_log "namespace $ns, controller transport $(cat /sys/class/nvme/nvme0/transport)"
# nvme connect's default: one I/O queue per CPU (the admin queue is the +1)
ncpu=$(nproc)
rig_check "one I/O queue per CPU ($ncpu)" \
	test "$(cat /sys/class/nvme/nvme0/queue_count)" -eq $((ncpu + 1))

# Sizes are kept small: this checks correctness at every I/O size, not
# volume (and rig_fio_verify takes less on the debug kernel).
rig_check "512B randwrite QD1" rig_fio_verify "$ns" randwrite 512 1 1 512k

# Our target's RDMA READs and WRITEs: on RoCE (rxe, rxe-hw) laid by the
# target over the I/O queues' premapped data pages, several work requests for
# a transfer of more pages than one takes (rxe: 32); on siw (iWARP) built by
# the kernel's rdma_rw, which registers an MR for RDMA READ there. Seen in the
# nvmet_rdma_map_data trace of the runs from 4k to 1m (fio's verify reads
# back what it wrote, so both directions).
T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null
MAP=$T/events/nvmet_rdma/nvmet_rdma_map_data/enable
KEYED='data=keyed(_inv)? len=[0-9]+ status=0x0'
[ "$RIG_RDMA" = siw ] && BUILT=rdma_rw || BUILT=premapped
# keyed_built_by WHO - every keyed transfer of an I/O queue had rw=WHO; on
# RoCE only those the page cache served (it owns 64 pages, 256 KiB): every
# larger one (the 1 MiB writes) by rdma_rw, mapped for itself as stock's
keyed_built_by() {
	local io="qid=[1-9][0-9]* cid=[0-9]+ opcode=0x[0-9a-f]+ $KEYED" all who
	local big='data=keyed(_inv)? len=([3-9][0-9]{5}|[1-9][0-9]{6,}) status=0x0' b bw
	all=$(grep -cE "$io" $T/trace)
	who=$(grep -cE "$io wrs=[0-9]+ rw=$1$" $T/trace)
	rig_log "keyed transfers on I/O queues: $who of $all built by $1"
	if [ "$1" = premapped ]; then
		b=$(grep -cE "$big" $T/trace)
		bw=$(grep -cE "$big wrs=[0-9]+ rw=rdma_rw$" $T/trace)
		rig_log "larger than the page cache: $b, by rdma_rw $bw"
		[ "$who" -gt 0 ] && [ "$b" -gt 0 ] && [ "$bw" -eq "$b" ] &&
			[ $((who * 4)) -ge $(( (all - b) * 3)) ]
		return
	fi
	[ "$all" -gt 0 ] && [ "$who" -eq "$all" ]
}
# split_transfers - host reads (RDMA WRITEs) that took several premapped
# work requests, and host writes (target RDMA READs) too, unless an IOMMU
# merges a transfer's pages (rxe-hw's strict one): there stock's rdma_rw
# posts one RDMA READ for it, each holding one of the queue pair's few
# outstanding reads, so ours takes no more and the 256 KiB writes (two
# work requests of 32 pages) go as stock's, by rdma_rw (elsewhere too
# while the page cache makes room for them)
split_transfers() {
	local many='wrs=([2-9]|[1-9][0-9]+) rw=premapped$' r w s
	w=$(grep -cE "opcode=0x1 $KEYED $many" $T/trace)
	r=$(grep -cE "opcode=0x2 $KEYED $many" $T/trace)
	s=$(grep -cE "opcode=0x1 data=keyed(_inv)? len=262144 status=0x0 wrs=[0-9]+ rw=rdma_rw$" $T/trace)
	rig_log "transfers over several work requests: $w writes, $r reads; 256 KiB writes by rdma_rw: $s"
	[ "$r" -gt 0 ] || return 1
	if [ "$(cat /sys/bus/pci/drivers/rxe_hw_dma/0000:*/iommu_group/type 2> /dev/null)" = DMA ]; then
		[ "$w" -eq 0 ] && [ "$s" -gt 0 ]
	else
		[ "$w" -gt 0 ]
	fi
}
# response_signalling - responses to writes went in unsignalled SENDs but one
# in queue depth / 8 (128 / 8 here; at least 3 in 4 checked, a queue's count
# starting anywhere), on siw (iWARP) only those without remote invalidation,
# the others all signalled; responses carrying read data all signalled
POST=$T/events/nvmet_rdma/nvmet_rdma_post_response/enable
response_signalling() {
	local w='qid=[1-9][0-9]* cid=[0-9]+ opcode=0x1 status=0x0 wrs=0' r n q ni qi rs rq
	r='qid=[1-9][0-9]* cid=[0-9]+ opcode=0x2 status=0x0 wrs=[1-9][0-9]* inv=[01] send='
	n=$(grep -cE "$w inv=0 send=" $T/trace)
	q=$(grep -cE "$w inv=0 send=unsignalled$" $T/trace)
	ni=$(grep -cE "$w inv=1 send=" $T/trace)
	qi=$(grep -cE "$w inv=1 send=unsignalled$" $T/trace)
	rs=$(grep -cE "$r" $T/trace)
	rq=$(grep -cE "${r}signalled$" $T/trace)
	rig_log "responses to writes unsignalled: $q of $n, with remote invalidation $qi of $ni; with read data signalled: $rq of $rs"
	[ "$n" -gt 0 ] && [ $((q * 4)) -ge $((n * 3)) ] && [ "$ni" -gt 0 ] &&
		[ "$rs" -gt 0 ] && [ "$rq" -eq "$rs" ] || return 1
	if [ "$RIG_RDMA" = siw ]; then
		[ "$qi" -eq 0 ]
	else
		[ $((qi * 4)) -ge $((ni * 3)) ]
	fi
}
if [ "$RIG_TARGET" = ours ]; then
	rig_must "nvmet_rdma tracepoints" sh -c "echo 1 > $MAP && echo 1 > $POST"
	echo > $T/trace
fi
rig_check "4k randwrite QD16" rig_fio_verify "$ns" randwrite 4k 16 1 4M
rig_check "16k write QD4 (in the capsule)" rig_fio_verify "$ns" write 16k 4 1 4M
# in_capsule_16k - the 16 KiB writes came in the capsule, none by RDMA READ
in_capsule_16k() {
	local w='qid=[1-9][0-9]* cid=[0-9]+ opcode=0x1 data=' i k
	i=$(grep -cE "${w}in_capsule len=16384 " $T/trace)
	k=$(grep -cE "${w}keyed(_inv)? len=16384 " $T/trace)
	rig_log "16 KiB writes: $i in the capsule, $k by RDMA READ"
	[ "$i" -gt 0 ] && [ "$k" -eq 0 ]
}
[ "$RIG_TARGET" = ours ] &&
	rig_check "16 KiB writes came in the capsule" in_capsule_16k
rig_check "128k randrw QD8 2 jobs" rig_fio_verify "$ns" randrw 128k 8 2 8M
# The page cache's whole size: two work requests a transfer on RoCE. Our
# target's cache goes over to one direction only after as many requests of
# it were refused as it gives up pages of the other (common/page_stack.h),
# so 80 unverified transfers of 256 KiB first turn its 64 pages to that
# direction (the same volume on the debug kernel), untraced: then the
# verified writes are served by the cache (their read-back is not: it is
# stock's), and after the reads' turn the verified reads are. All from
# CPU 0, so on the one I/O queue whose cache turned.
turn_cache() {
	[ "$RIG_TARGET" != ours ] || echo 0 > $MAP
	fio --name=turn --filename="$ns" --ioengine=psync --direct=1 \
		--rw="$1" --bs=256k --size=20M --cpus_allowed=0 > /dev/null || return
	[ "$RIG_TARGET" != ours ] || echo 1 > $MAP
}
rig_check "80 writes of 256k: the page cache turned to write data" turn_cache write
rig_check "256k write+read QD1, the writes by the cache" \
	rig_fio_verify "$ns" write 256k 1 1 4M --cpus_allowed=0
rig_check "80 reads of 256k: the page cache turned to read data" turn_cache read
rig_check "256k write+read QD1, the reads by the cache" \
	rig_fio_verify "$ns" write 256k 1 1 4M --cpus_allowed=0
rig_check "1m write QD32" rig_fio_verify "$ns" write 1m 32 1 16M
if [ "$RIG_TARGET" = ours ]; then
	echo 0 > $MAP; echo 0 > $POST
	rig_check "$RIG_RDMA: the target's RDMA READ/WRITE built by $BUILT" keyed_built_by $BUILT
	rig_check "$RIG_RDMA: responses to writes unsignalled, with read data signalled" response_signalling
	[ "$RIG_RDMA" = siw ] ||
		rig_check "$RIG_RDMA: large transfers split over several work requests" split_transfers
fi
# the queue's full depth (queue_size 128) from several jobs at once, spread
# over the CPUs (so, in a guest of several, over the I/O queues at once)
[ "$RIG_TARGET" = ours ] && echo 1 > $MAP && echo > $T/trace
rig_check "4k randrw QD128 4 jobs over $ncpu CPUs" rig_fio_verify "$ns" randrw 4k 128 4 2M \
	--cpus_allowed=0-$((ncpu - 1)) --cpus_allowed_policy=split
# io_queues_used - how many I/O queues carried the run above
io_queues_used() {
	grep -oE 'qid=[1-9][0-9]* cid=[0-9]+ opcode=0x[12] ' $T/trace |
		cut -d' ' -f1 | sort -u | wc -l
}
if [ "$RIG_TARGET" = ours ]; then
	echo 0 > $MAP
	used=$(io_queues_used)
	rig_log "I/O queues that carried the 4-job run: $used of $ncpu"
	rig_check "every I/O queue carried I/O" test "$used" -eq "$ncpu"
fi

# 8 I/Os per io_submit: blk-mq hands the driver runs of 8 requests (bd->last
# on the 8th only), of every size, so in-capsule writes, registered reads
# and writes (REG_MR + SEND) share one chain. Our host posts each run with
# one ib_post_send(), traced as nvme_rdma_post_batch.
if [ "$RIG_HOST" = ours ]; then
	rig_must "nvme_rdma_post_batch tracepoint" \
		sh -c "echo 1 > $T/events/nvme_rdma/nvme_rdma_post_batch/enable"
	echo > $T/trace
fi
rig_check "512B-128k randrw QD32, 8 I/Os per submit" rig_fio_verify "$ns" randrw 4k 32 1 8M \
	--bsrange=512-128k --iodepth_batch_submit=8 --iodepth_batch_complete_min=8
if [ "$RIG_HOST" = ours ]; then
	rig_log "batched posts: $(grep -c nvme_rdma_post_batch $T/trace), largest: $(grep -o 'commands=[0-9]*' $T/trace | sort -t= -k2 -n | tail -1)"
	rig_check "runs of commands went out in one post" \
		grep -Eq 'commands=([2-9]|[1-9][0-9]+)$' $T/trace
	echo 0 > $T/events/nvme_rdma/nvme_rdma_post_batch/enable
fi

rig_check "nvme disconnect" rig_disconnect
rig_check "namespace gone" rig_wait 10 eval '! rig_has_ns'
rig_check "unexport" rig_unexport

# A device with few receive SGEs caps the in-capsule data it can take (siw:
# 6, one for the command): 64 KiB asked, 5 pages served, said in the log,
# and 16 KiB writes still verified. A fresh target module, so that the
# device is set up again for this port.
if [ "$RIG_RDMA" = siw ] && [ "$RIG_TARGET" = ours ]; then
	rig_unload nvmet-rdma
	rig_load_target
	rig_check "siw: export asking 64 KiB in-capsule data" \
		rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 65536
	ns=$(rig_connect)
	rig_check "siw: connect" test -b "$ns"
	rig_check "siw: in-capsule data cut to what siw0 receives" sh -c \
		"dmesg | grep -q 'inline_data_size 65536 cannot be supported by device siw0. Reducing to 20480.'"
	rig_check "siw: 16k randwrite QD4" rig_fio_verify "$ns" randwrite 16k 4 1 2M
	rig_check "siw: disconnect" rig_disconnect
	rig_check "siw: namespace gone" rig_wait 10 eval '! rig_has_ns'
	rig_check "siw: unexport" rig_unexport
fi
rig_unload nvme-rdma nvmet-rdma
