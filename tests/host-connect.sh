# SPDX-License-Identifier: GPL-2.0
# host-connect: every connect option of the host, each checked where its
# effect shows (sysfs, blk-mq debugfs, the kernel log, or behaviour): queue
# counts and types (the queue each command used, from the nvme trace
# events) with polled I/O through io_uring, queue size, host NQN
# and ID, source address, TOS, keep-alive, reconnect timers,
# fast_io_fail_tmo and ctrl_loss_tmo with the port gone, duplicate_connect,
# disable_sqflow, IPv6 on another service ID, discovery and connect-all.
# Failed connects (nothing listening, wrong NQN, an address nothing routes
# to, a source address the host does not have) must fail cleanly; a target
# granting fewer queues than asked gives a working controller with fewer;
# the module unloads afterwards.
# covers: every connect option where its effect shows
# rig: pairs=ours/ours,ours/stock debug-pairs=ours/ours kernels=stock,debug rdma=rxe timeout=300 fast=oldest:ours/ours:rxe,trixie:ours/ours:rxe

rig_serve_ram 64
rig_must "export on [$RIG_IP6]:4421" rig_export "$RIG_DEV" 2 $RIG_IP6 ipv6 4421

HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0c4e1a52-77aa-4d6b-9c1e-5a6f00c0ffee
HOSTID=0c4e1a52-77aa-4d6b-9c1e-5a6f00c0ffee

# the newest controller's sysfs directory
ctrl_dir() { ls -d /sys/class/nvme/nvme*/ 2>/dev/null | sort -V | tail -1 | sed 's:/$::'; }
ctrls() { ls -d /sys/class/nvme/nvme*/ 2>/dev/null | wc -l; }
# attr_is NAME WANT - the newest controller's sysfs attribute NAME is WANT
attr_is() {
	local have
	have=$(cat "$(ctrl_dir)/$1")
	[ "$have" = "$2" ] || { rig_log "$1 is '$have', want '$2'"; return 1; }
}
no_ctrl() { [ "$(ctrls)" -eq 0 ]; }
disconnect_all() { rig_disconnect all && rig_wait 20 no_ctrl; }

# 1. queues, identity, timers, source address and TOS in one connect; the
# rdma_cma trace shows the TOS of each of the host's connect requests
T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null
rig_must "rdma_cma tracepoints" sh -c "echo 1 > $T/events/rdma_cma/enable"
echo > $T/trace
ns=$(rig_connect $RIG_IP4 4420 --nr-io-queues=1 --nr-write-queues=1 \
	--nr-poll-queues=1 --queue-size=32 --keep-alive-tmo=7 \
	--reconnect-delay=2 --ctrl-loss-tmo=30 --tos=32 \
	--hostnqn=$HOSTNQN --hostid=$HOSTID --host-traddr=$RIG_IP4)
rig_must "nvme connect with every option" test -b "$ns"
rig_check "queue_count: admin + default + read + poll" attr_is queue_count 4
rig_check "mapped 1/1/1 default/read/poll queues (kernel log)" \
	sh -c 'dmesg | grep -q "mapped 1/1/1 default/read/poll queues"'
rig_check "sqsize = queue-size - 1" attr_is sqsize 31
rig_check "kato" attr_is kato 7
rig_check "reconnect_delay" attr_is reconnect_delay 2
rig_check "ctrl_loss_tmo" attr_is ctrl_loss_tmo 30
rig_check "hostnqn" attr_is hostnqn $HOSTNQN
rig_check "hostid" attr_is hostid $HOSTID
rig_check "address" attr_is address "traddr=$RIG_IP4,trsvcid=4420,host_traddr=$RIG_IP4"
rig_log "cm_ids: $(rdma res show cm_id 2>&1 | tr '\n' '|')"
echo 0 > $T/events/rdma_cma/enable
# host_reqs_tos - every connect request the host sent the target (admin and
# three I/O queues) carried TOS 32 (the QPs are made before the TOS is set,
# as stock does it, so cm_qp_create shows 0; the route and the request
# after it carry the TOS)
host_reqs_tos() {
	local all tos
	all=$(grep -c "cm_send_req: .* dst=$RIG_IP4:4420 " $T/trace)
	tos=$(grep -c "cm_send_req: .* dst=$RIG_IP4:4420 tos=32 " $T/trace)
	rig_log "host connect requests to the target: $tos of $all with tos=32"
	[ "$all" -eq 4 ] && [ "$tos" -eq "$all" ]
}
rig_check "TOS 32 in every connect request of the host (rdma_cma trace)" host_reqs_tos
rig_check "polling enabled on the namespace" test "$(cat /sys/block/${ns#/dev/}/queue/io_poll)" = 1

# the queue each command went to, from the nvme_setup_cmd tracepoint:
# writes go to the default queue (qid 1, --nr-write-queues), reads to the
# read queue (qid 2), polled I/O to the poll queue (qid 3)
rig_must "nvme_setup_cmd tracepoint" sh -c "echo 1 > $T/events/nvme/nvme_setup_cmd/enable"
# qid_seen N - the trace since the last clear has an I/O command on qid N
qid_seen() { grep -q "qid=$1, .*cmd=(nvme_cmd_\(read\|write\)" $T/trace; }
echo > $T/trace
rig_check "polled io_uring I/O (hipri) verified" fio --name=poll \
	--filename="$ns" --ioengine=io_uring --hipri --direct=1 --rw=randrw \
	--bs=4k --iodepth=8 --size=2M --verify=crc32c --do_verify=1 \
	--verify_fatal=1 --output=/tmp/poll.out
rig_check "polled I/O went to the poll queue (qid 3)" qid_seen 3
rig_check "... and nowhere else" sh -c "! grep -q 'qid=[12], .*cmd=(nvme_cmd_' $T/trace"
echo > $T/trace
rig_check "interrupt-driven verified I/O" rig_fio_verify "$ns" randrw 64k 8 1 2M
rig_check "writes on the default queue (qid 1)" sh -c "grep 'qid=1, ' $T/trace | grep -q nvme_cmd_write"
rig_check "reads on the read queue (qid 2)" sh -c "grep 'qid=2, ' $T/trace | grep -q nvme_cmd_read"
rig_check "no interrupt-driven I/O on the poll queue" sh -c "! grep -q 'qid=3, ' $T/trace"
echo 0 > $T/events/nvme/nvme_setup_cmd/enable
rig_check "disconnect" disconnect_all

# 2. disable_sqflow; duplicate_connect (nvme-cli refuses a duplicate even
# with -D, so these option strings go to /dev/nvme-fabrics directly)
ns=$(rig_connect $RIG_IP4 4420 --disable-sqflow)
rig_check "connect with disable_sqflow, verified I/O" rig_fio_verify "$ns" randrw 16k 16 1 4M
rig_check "disconnect" disconnect_all
opts="transport=rdma,traddr=$RIG_IP4,trsvcid=4420,nqn=$RIG_NQN"
rig_check "connect" sh -c "echo $opts > /dev/nvme-fabrics"
rig_check "the same connect again is refused" \
	sh -c "! echo $opts > /dev/nvme-fabrics"
rig_check "still one controller" test "$(ctrls)" -eq 1
rig_check "duplicate_connect allows a second controller" \
	sh -c "echo $opts,duplicate_connect > /dev/nvme-fabrics"
rig_check "two controllers" test "$(ctrls)" -eq 2
rig_check "namespace" rig_wait 30 rig_has_ns
# two paths to one namespace: round-robin puts I/O on both, and taking one
# path away under load fails its I/O over to the other without an error
subsys=$(grep -lx "$RIG_NQN" /sys/class/nvme-subsystem/*/subsysnqn | head -1)
subsys=${subsys%/subsysnqn}
rig_check "round-robin I/O policy" sh -c "echo round-robin > $subsys/iopolicy"
# path_ios - "path=reads+writes" for each path of namespace 1
path_ios() {
	local p
	for p in /sys/block/nvme*c*n1; do
		echo "${p##*/}=$(awk '{ print $1 + $5 }' "$p/stat")"
	done
}
before=$(path_ios)
rig_check "I/O with both paths" rig_fio_verify "$(rig_nvme_ns)" randrw 64k 16 2 4M
after=$(path_ios)
rig_log "path I/Os before: $(echo $before), after: $(echo $after)"
# both_paths_used - two paths, and each completed more I/Os than before
both_paths_used() {
	local p n m used=0
	for p in $after; do
		n=${p#*=} m=$(echo "$before" | sed -n "s/^${p%%=*}=//p")
		[ "$n" -gt "${m:-0}" ] && used=$((used + 1))
	done
	[ "$used" -eq 2 ]
}
rig_check "round-robin: both paths carried I/O" both_paths_used
ns=$(rig_nvme_ns)
fio --name=failover --filename="$ns" --ioengine=libaio --direct=1 --thread \
	--allow_file_create=0 --rw=randwrite --bs=4k --iodepth=16 --size=4M \
	--time_based --runtime=8 --verify=crc32c --verify_backlog=64 \
	--verify_fatal=1 --output=/tmp/failover.out > /dev/null 2>&1 &
pid=$!
sleep 2
victim=$(ls -d /sys/class/nvme/nvme*/ | head -1)
rig_check "one path deleted under load" sh -c "echo 1 > ${victim}delete_controller"
rig_check "failover: fio saw no error, data verified" wait $pid
[ -s /tmp/failover.out ] && grep -m1 'err=' /tmp/failover.out | sed 's/^/RIG-LOG failover: /'
rig_check "one controller left" test "$(ctrls)" -eq 1
rig_check "disconnect both" disconnect_all

# 3. IPv6 on another service ID
ns=$(rig_connect $RIG_IP6 4421)
rig_check "connect over IPv6 to port 4421" test -b "$ns"
rig_check "address" attr_is address "traddr=$RIG_IP6,trsvcid=4421"
rig_check "verified I/O over IPv6" rig_fio_verify "$ns" randrw 64k 16 1 4M
rig_check "disconnect" disconnect_all

# 4. discovery and connect-all
rig_check "nvme discover lists the subsystem" sh -c \
	"nvme discover -t rdma -a $RIG_IP4 -s 4420 | tee /tmp/disc.out | grep -q 'subnqn: *$RIG_NQN'"
grep -E 'trtype|traddr|trsvcid|subnqn' /tmp/disc.out | sed 's/^/RIG-LOG discover: /'
rig_check "no controller left by discovery" no_ctrl
rig_check "nvme connect-all" nvme connect-all -t rdma -a $RIG_IP4 -s 4420
rig_check "connect-all brings the namespace" rig_wait 30 rig_has_ns
rig_check "verified I/O after connect-all" rig_fio_verify "$(rig_nvme_ns)" write 128k 4 1 4M
rig_check "disconnect" disconnect_all

# 5. connects that must fail, leaving nothing behind
rig_check "nothing listening on 4999: connect fails" \
	sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4999 -n $RIG_NQN"
rig_check "unknown NQN: connect fails" \
	sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4420 -n $RIG_NQN.nope"
rig_check "host_traddr this host does not have: connect fails" \
	sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4420 -n $RIG_NQN --host-traddr=10.77.0.99"
rig_check "an address nothing routes to: connect fails" \
	sh -c "! nvme connect -t rdma -a 10.99.0.1 -s 4420 -n $RIG_NQN"
rig_check "no controller left by failed connects" no_ctrl

# 5b. the target grants fewer I/O queues than asked for: the host comes up
# with what it got (one queue for everything, no poll queue)
qmax=$NVMET_CFS/subsystems/$RIG_NQN/attr_qid_max
old_qmax=$(cat $qmax)
rig_check "target limited to 1 I/O queue" sh -c "echo 1 > $qmax"
n=$(dmesg | wc -l)
ns=$(rig_connect $RIG_IP4 4420 --nr-io-queues=1 --nr-write-queues=1 --nr-poll-queues=1)
rig_check "connect asking for 3 I/O queues" test -b "$ns"
rig_check "queue_count: admin + the 1 granted" attr_is queue_count 2
rig_check "the host says it creates 1 I/O queue" \
	sh -c "dmesg | tail -n +$((n + 1)) | grep -q 'creating 1 I/O queues'"
rig_check "verified I/O on the one queue" rig_fio_verify "$ns" randrw 16k 8 1 2M
rig_check "disconnect" disconnect_all
rig_check "target limit restored" sh -c "echo $old_qmax > $qmax"

# 6. fast_io_fail_tmo and ctrl_loss_tmo: with the port gone, I/O fails
# after fast_io_fail_tmo (not when the controller is finally lost) and the
# controller is deleted after ctrl_loss_tmo
rig_check "connect with fast_io_fail_tmo=2, ctrl_loss_tmo=10" sh -c \
	"echo $opts,reconnect_delay=1,ctrl_loss_tmo=10,fast_io_fail_tmo=2 > /dev/nvme-fabrics"
rig_check "namespace" rig_wait 30 rig_has_ns
ns=$(rig_nvme_ns)
rig_check "fast_io_fail_tmo" attr_is fast_io_fail_tmo 2
rig_check "port unlinked" rm "$NVMET_CFS/ports/1/subsystems/$RIG_NQN"
t0=$(date +%s)
rig_check "read with the port gone fails" \
	sh -c "! dd if=$ns of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null"
t1=$(date +%s)
rig_log "the read failed after $((t1 - t0)) s"
rig_check "... before ctrl_loss_tmo (fast_io_fail_tmo)" test $((t1 - t0)) -lt 9
rig_check "controller deleted after ctrl_loss_tmo" rig_wait 30 no_ctrl
t2=$(date +%s)
rig_log "controller gone $((t2 - t0)) s after the port"
rig_check "... not before ctrl_loss_tmo" test $((t2 - t0)) -ge 9

rig_check "unexport" rig_unexport
rig_unload nvme-rdma nvmet-rdma
