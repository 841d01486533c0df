# SPDX-License-Identifier: GPL-2.0
# target-ports: the target's port settings, each with a connect and verified
# I/O from the host: an IPv4 address with in-capsule data off (0), IPv6 with
# 4 KiB, the IPv4 wildcard address with 16 KiB (stock's largest), 64 KiB (our
# largest; its memory reported), an in-capsule size above it (capped, with
# a warning) -- the target's trace shows which writes came in the capsule;
# two ports at once
# (and module unload refused while they are enabled); T10-PI asked for on a
# device without it (served without, with a warning, also when another port
# has the device up already); a file namespace beside the block device;
# then the target reloaded with a shared receive queue (use_srq=Y), with
# in-capsule data off and at 64 KiB.
# The stock host against our ports runs on Debian's kernels; on the debug
# kernel (ten times slower) our own pair only, for CI's time: the port code
# is the target's, and KASAN and lockdep watch it there, on two vCPUs (an
# I/O queue per CPU, completions racing submission and teardown).
# covers: port kinds, in-capsule sizes, SRQ, T10-PI refused, a file namespace
# rig: pairs=ours/ours,stock/ours debug-pairs=ours/ours kernels=stock,debug rdma=rxe timeout=420 debug-smp=2 fast=oldest:ours/ours:rxe

rig_setup_rdma
rig_load_target
rig_load_host
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"

T=/sys/kernel/tracing
mount -t tracefs none $T 2> /dev/null
MAP=$T/events/nvmet_rdma/nvmet_rdma_map_data/enable

# nomerges N - N to every NVMe block device's nomerges (2: none)
nomerges() {
	local f
	for f in /sys/block/nvme*/queue/nomerges; do
		echo "$1" > "$f" || return 1
	done
}

# writes_travel NS BS HOW - verified BS writes through NS, and the target's
# nvmet_rdma_map_data trace says every one of them had its data HOW (a
# regex: in_capsule, in the capsule; $KEYED, by RDMA READ, with or without
# remote invalidation asked for)
KEYED='keyed(_inv)?'
writes_travel() {
	local cmd='qid=[1-9][0-9]* cid=[0-9]+ opcode=0x1 data=' all how
	echo 1 > $MAP && echo > $T/trace || return 1
	# each write its own command: 7.2's block layer merged fio's
	# sequential writes at QD4 (3 of 60 16k writes went by RDMA READ, for
	# being larger than the capsule); the namespace's paths (multipath's
	# hidden nvmeXcYnZ) are where requests merge
	nomerges 2 || return 1
	rig_fio_verify "$1" write "$2" 4 1 1M || { nomerges 0; return 1; }
	nomerges 0
	echo 0 > $MAP
	all=$(grep -cE "$cmd" $T/trace)
	how=$(grep -cE "$cmd$3 len=" $T/trace)
	rig_log "$2 writes: $how of $all with data=$3"
	[ "$all" -gt 0 ] && [ "$how" -eq "$all" ]
}

# port PID TRADDR ADRFAM IN_CAPSULE CONNECT_ADDR - export on one port, connect
# through it, verify 4 KiB and 16 KiB writes (16 KiB in the capsule when
# IN_CAPSULE allows; 64 KiB ones too from our host, which sends up to 16
# segments in a capsule where stock sends 4), disconnect, remove the export
port() {
	local pid=$1 traddr=$2 adrfam=$3 icd=$4 to=$5 what ns big
	what="port $traddr ($adrfam) in-capsule $icd"
	rig_check "$what: export" rig_export "$dev" "$pid" "$traddr" "$adrfam" 4420 "$icd" || return
	ns=$(rig_connect "$to" 4420)
	rig_check "$what: connect to $to" test -b "$ns" || { rig_unexport; return; }
	rig_check "$what: 4k randwrite QD8, a job per CPU" \
		rig_fio_verify "$ns" randwrite 4k 8 "$(nproc)" 1M $(rig_fio_spread)
	[ "$RIG_HOST" = ours ] &&
		rig_check "$what: every I/O queue carried I/O" rig_io_queues_all_busy
	if [ "$icd" -ge 16384 ]; then
		rig_check "$what: 16k writes in the capsule" writes_travel "$ns" 16k in_capsule
	else
		rig_check "$what: 16k writes by RDMA READ" writes_travel "$ns" 16k "$KEYED"
	fi
	if [ "$icd" -ge 65536 ]; then
		# the stock host puts data in the capsule only when it maps to
		# at most 4 segments: a 64k write whose pages happen to be
		# contiguous goes in the capsule, the others by RDMA READ
		[ "$RIG_HOST" = ours ] && big=in_capsule || big="(in_capsule|$KEYED)"
		rig_check "$what: 64k writes ($big)" writes_travel "$ns" 64k "$big"
	fi
	rig_check "$what: disconnect" rig_disconnect
	rig_check "$what: namespace gone" rig_wait 10 eval '! rig_has_ns'
	rig_check "$what: unexport" rig_unexport
}

port 1 "$RIG_IP4" ipv4 0 "$RIG_IP4"
port 2 "$RIG_IP6" ipv6 4096 "$RIG_IP6"
port 3 0.0.0.0 ipv4 16384 "$RIG_IP4"
port 4 "$RIG_IP4" ipv4 65536 "$RIG_IP4"
# each of a queue's receive buffers: the 64-byte command and 64 KiB
recv_memory_reported() {
	local m
	m=$(dmesg | sed -n 's|.*nvmet_rdma: rxe0: in-capsule data up to 65536 bytes; receive buffers take up to \([0-9]*\) KiB per I/O queue (\([0-9]*\) entries at most)$|\1 \2|p' | tail -1)
	rig_log "receive buffers per I/O queue: ${m% *} KiB for ${m#* } entries"
	[ -n "$m" ] && [ "${m% *}" -eq $(( ${m#* } * (65536 + 64) / 1024 )) ]
}
rig_check "the largest in-capsule size's memory is reported" recv_memory_reported
port 5 "$RIG_IP4" ipv4 131072 "$RIG_IP4"
rig_check "oversized in-capsule size capped with a warning" \
	sh -c 'dmesg | grep -q "nvmet_rdma: inline_data_size 131072 is too large, reducing to 65536"'

# two ports of one subsystem at once, a controller through each
rig_check "two ports: first" rig_export "$dev" 1 "$RIG_IP4" ipv4 4420
rig_check "two ports: second" rig_export "$dev" 2 "$RIG_IP6" ipv6 4421
rig_check "two ports: connect through the first" test -b "$(rig_connect "$RIG_IP4" 4420)"
rig_check "two ports: connect through the second" sh -c "nvme connect -t rdma -a $RIG_IP6 -s 4421 -n $RIG_NQN >&2"
rig_check "two ports: two controllers" rig_wait 20 eval '[ $(ls -d /sys/class/nvme/nvme*/ | wc -l) -eq 2 ]'
rig_check "two ports: verified I/O" rig_fio_verify "$(rig_nvme_ns)" randrw 8k 8 1 2M
# nvmet holds the transport module while a port uses it: unloading is
# refused, and nothing stops working
rig_check "unload refused while ports use the target" rig_unload_refused nvmet-rdma
rig_check "two ports: verified I/O after the refused unload" rig_fio_verify "$(rig_nvme_ns)" randrw 8k 8 1 2M
rig_check "two ports: disconnect both" rig_disconnect
rig_check "two ports: controllers gone" rig_wait 20 rig_no_controllers
rig_check "two ports: unexport" rig_unexport

# T10-PI asked for on a device without integrity offload: the target says
# so and serves without it (as stock), also when another port has the
# device up already (stock then fails the connect: its QP asks for PI)
p=$NVMET_CFS/ports/5
rig_check "pi: plain port" rig_export "$dev" 1 "$RIG_IP4" ipv4 4420
ns=$(rig_connect "$RIG_IP4" 4420)
rig_check "pi: a controller through the plain port" test -b "$ns"
rig_check "pi: PI port created" sh -c "mkdir $p && echo rdma > $p/addr_trtype &&
	echo ipv6 > $p/addr_adrfam && echo $RIG_IP6 > $p/addr_traddr &&
	echo 4421 > $p/addr_trsvcid && echo 1 > $p/param_pi_enable"
rig_check "pi: PI port enabled" ln -s "$NVMET_CFS/subsystems/$RIG_NQN" "$p/subsystems/$RIG_NQN"
rig_check "pi: connect through the PI port" sh -c "nvme connect -t rdma -a $RIG_IP6 -s 4421 -n $RIG_NQN >&2"
rig_check "pi: two controllers" rig_wait 20 eval '[ $(ls -d /sys/class/nvme/nvme*/ | wc -l) -eq 2 ]'
rig_check "pi: the target said PI is off on $RIG_RDMA_DEV" \
	sh -c "dmesg | grep -q 'T10-PI is not supported by device $RIG_RDMA_DEV. Disabling it'"
rig_check "pi: verified I/O over both" rig_fio_verify "$(rig_nvme_ns)" randwrite 4k 8 2 1M

# a file namespace next to the block device one (tmpfs needs buffered I/O)
sub=$NVMET_CFS/subsystems/$RIG_NQN
truncate -s 32M /tmp/ns2.img
rig_check "file namespace: create" sh -c "mkdir $sub/namespaces/2 &&
	printf /tmp/ns2.img > $sub/namespaces/2/device_path &&
	echo 1 > $sub/namespaces/2/buffered_io && echo 1 > $sub/namespaces/2/enable"
ns2() { rig_nvme_ns 2; }
rig_check "file namespace: appears on the host" rig_wait 20 eval 'test -b "$(ns2)"'
rig_check "file namespace: 4k randwrite QD8" rig_fio_verify "$(ns2)" randwrite 4k 8 1 2M
rig_check "file namespace: 128k randrw QD4" rig_fio_verify "$(ns2)" randrw 128k 4 1 4M
# discard_reads_zero - a discard (Dataset Management: the host sends its
# range list as the command's data, the block layer's special payload) of
# the second MiB of 4 punches that hole in the file: it reads back as
# zeros, and the MiBs around it as written
discard_reads_zero() {
	local d
	d=$(ns2)
	dd if=/dev/urandom of=/tmp/dsm.pat bs=1M count=4 2> /dev/null &&
		dd if=/tmp/dsm.pat of="$d" bs=1M count=4 oflag=direct 2> /dev/null &&
		blkdiscard -o 1048576 -l 1048576 "$d" &&
		dd if="$d" of=/tmp/dsm.back bs=1M count=4 iflag=direct 2> /dev/null &&
		dd if=/dev/zero of=/tmp/dsm.pat bs=1M seek=1 count=1 conv=notrunc 2> /dev/null &&
		cmp /tmp/dsm.pat /tmp/dsm.back
}
rig_check "file namespace: a discarded MiB reads back as zeros, the rest as written" \
	discard_reads_zero
rig_check "pi/file: disconnect" rig_disconnect
rig_check "pi/file: controllers gone" rig_wait 20 rig_no_controllers
rig_check "pi/file: unexport" rig_unexport

# shared receive queue
rig_check "rmmod nvmet-rdma" $RMMOD nvmet-rdma
rig_load_target "$RIG_TARGET" use_srq=Y
rig_check "use_srq is on" test "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y
# data by RDMA READ, and in the capsule (received into the SRQ's buffers,
# of the largest size)
port 1 "$RIG_IP4" ipv4 0 "$RIG_IP4"
port 4 "$RIG_IP4" ipv4 65536 "$RIG_IP4"
rig_check "the SRQs' memory is reported" \
	sh -c 'dmesg | grep -q "nvmet_rdma: rxe0: in-capsule data up to 65536 bytes; [0-9]* shared receive queues of 1024 buffers take [0-9]* KiB"' 
rig_unload nvme-rdma nvmet-rdma
