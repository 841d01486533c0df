# SPDX-License-Identifier: GPL-2.0
# stats: the statistics (Documentation/statistics.md) count a known
# workload exactly, on the host and the target: on the one I/O queue, 10
# reads of 4 KiB (registered / keyed), 6 writes of 8 KiB (in the capsule), 2
# of 64 KiB (registered / keyed), one command with an opcode the target
# refuses (Invalid Opcode: a generic status, a rejected command); nothing
# else counted, no error. Then a controller reset: one reset and one
# reconnect, no error recovery, the host's counters kept, the target's
# queues replaced with their files; after the disconnect and the unload,
# no file left.
# covers: the statistics count a known workload exactly; nvmeof-rdma stat
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe timeout=180 fast=oldest:ours/ours:rxe

rig_setup_rdma
rig_load_target
rig_load_host
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"
# in-capsule writes up to 16 KiB
rig_must "export $dev" rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 16384
ns=$(rig_connect $RIG_IP4 4420 --nr-io-queues=1)
rig_must "connect" test -b "$ns"
ctrl=$(basename "$(ls -d /sys/class/nvme/nvme*/ | head -1)")
H=/sys/kernel/debug/nvme_rdma/$ctrl
T=/sys/kernel/debug/nvmet_rdma

# count_of FILE NAME - a counter's value (empty if the file has no such line)
count_of() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
# target_queue QID - the target's statistics file of queue QID
target_queue() { grep -lx "qid $1" $T/queue* | head -1; }
# settled FILE - the file reads the same twice, a second apart (the
# partition scan's reads after the connect are over)
settled() {
	local a b
	a=$(cat "$1")
	sleep 1
	b=$(cat "$1")
	[ "$a" = "$b" ]
}
# counted WHAT FILE BEFORE NAME=DELTA... - each counter went up by DELTA
# since the copy of FILE in BEFORE
counted() {
	local what=$1 file=$2 before=$3 kv name was now
	shift 3
	for kv in "$@"; do
		name=${kv%%=*}
		was=$(count_of "$before" "$name")
		now=$(count_of "$file" "$name")
		rig_check "$what: $name +${kv#*=} (was $was, is $now)" \
			test -n "$was" -a -n "$now" -a $(( now - was )) -eq "${kv#*=}"
	done
}

rig_must "host: the controller's and both queues' files" \
	test -f $H/ctrl -a -f $H/queue0 -a -f $H/queue1 -a ! -e $H/queue2
rig_check "host: 2 queues" test "$(count_of $H/ctrl queues)" = 2
tq=$(target_queue 1)
rig_must "target: the I/O queue's file" test -f "$tq"
rig_check "target: 2 queues, one file each" test "$(ls $T | wc -l)" = 2
rig_check "target: the queue's controller" test -n "$(count_of "$tq" cntlid)"
# in one guest the host connects from the target's own address
rig_check "target: the host's address on the I/O queue and the admin queue" \
	test "$(count_of "$tq" host_traddr) $(count_of "$(target_queue 0)" host_traddr)" \
	= "$RIG_IP4 $RIG_IP4"
# the same through nvmet's host_traddr op, which 6.12's nvmet has (called
# by its debugfs, which Debian's 6.12 does not build) and 6.1's has not
case $(uname -r) in
6.1.*) want= ;;
*) want=$RIG_IP4 ;;
esac
rig_check "target: nvmet's host_traddr op on the admin queue ('$want' on $(uname -r))" \
	test "$(count_of "$(target_queue 0)" ctrl_host_traddr)" = "$want"
rig_check "the reads after the connect are over" rig_wait 20 settled $H/queue1
cp $H/queue1 /tmp/host.before
cp "$tq" /tmp/target.before

rig_check "10 reads of 4 KiB" \
	dd if="$ns" of=/dev/null bs=4k count=10 iflag=direct
rig_check "6 writes of 8 KiB" \
	dd if=/dev/urandom of="$ns" bs=8k count=6 oflag=direct
rig_check "2 writes of 64 KiB" \
	dd if=/dev/urandom of="$ns" bs=64k count=2 oflag=direct
rig_check "a command the target refuses fails" \
	sh -c "! nvme io-passthru $ns --opcode=0x7e --namespace-id=1"

counted host $H/queue1 /tmp/host.before cmds_read=10 cmds_write=8 \
	cmds_other_io=1 cmds_admin=0 cmds_fabrics=0 \
	bytes_read=40960 bytes_written=180224 \
	data_none=1 data_in_capsule=6 data_registered=12 data_global_rkey=0 \
	data_pi=0 status_generic=1 status_cmd_specific=0 status_media=0 \
	status_path=0 status_other=0
counted target "$tq" /tmp/target.before cmds_read=10 cmds_write=8 \
	cmds_other_io=0 cmds_admin=0 cmds_fabrics=0 \
	bytes_read=40960 bytes_written=180224 \
	data_none=0 data_in_capsule=6 data_keyed=12 cmds_rejected=1 \
	status_generic=1 status_cmd_specific=0 status_media=0 status_path=0 \
	status_other=0 data_uncached=0 rsps_discrete=0
# 10 reads of one page, 2 writes of 16, from a cache of 64 pages
rig_check "target: 42 data pages, from its cache" test \
	$(( $(count_of "$tq" pages_reused) + $(count_of "$tq" pages_new) - \
	    $(count_of /tmp/target.before pages_reused) - \
	    $(count_of /tmp/target.before pages_new) )) -eq 42
for f in $H/queue0 $H/queue1 "$tq"; do
	for c in rsp_rejected wc_errors timeouts sq_full; do
		v=$(count_of "$f" $c)
		[ -z "$v" ] && continue		# not a counter of that side
		rig_check "$f: $c 0" test "$v" = 0
	done
done
# memory held: by the configuration (queue size 128, in-capsule 16 KiB,
# no SRQ), what each side's buffers must take at least and at most
rig_check "host: an MR per tag of the I/O queue" \
	test "$(count_of $H/queue1 mrs)" = 128 -a "$(count_of $H/queue1 mr_pages)" -ge 2
b=$(count_of $H/queue1 buffer_bytes)
rig_check "host: the I/O queue's buffers, a command and a response per tag ($b bytes)" \
	test "$b" -ge $((128 * (64 + 64))) -a "$b" -le $((128 * 512))
b=$(count_of "$tq" buffer_bytes)
rig_check "target: the I/O queue's receive buffers hold 16 KiB each ($b bytes)" \
	test "$b" -ge $((128 * 16384)) -a "$b" -le $((128 * 20480))
b=$(count_of "$(target_queue 0)" buffer_bytes)
rig_check "target: the admin queue's buffers, no in-capsule pages ($b bytes)" \
	test "$b" -gt 0 -a "$b" -le $((32 * 4096))
rig_check "target: no SRQ" test "$(count_of "$tq" srq_buffer_bytes)" = 0
rig_check "host: the admin queue counted the connect" \
	test "$(count_of $H/queue0 cmds_fabrics)" -ge 1 -a \
	"$(count_of $H/queue0 cmds_admin)" -ge 1
rig_log "host queue1: $(tr '\n' ' ' < $H/queue1)"
rig_log "target queue: $(tr '\n' ' ' < "$tq")"

# the tool reads the same: a row per queue (reads, writes, ...), JSON
stat_row() { nvmeof-rdma stat | awk -v q="$1" '$1 == "queue" && $2 == q { print $3, $4 }'; }
rig_check "nvmeof-rdma stat: host queue 1's reads and writes" test \
	"$(stat_row 1)" = "$(count_of $H/queue1 cmds_read) $(count_of $H/queue1 cmds_write)"
# its last column, the memory the queue holds (KiB): buffers and cached pages
stat_mem() { nvmeof-rdma stat | awk -v l="$1" 'index($0, l) == 1 { print $NF }'; }
rig_check "nvmeof-rdma stat: host queue 1's and the target queue's memory" test \
	"$(stat_mem '  queue 1 ') $(stat_mem "  cntlid $(count_of "$tq" cntlid) qid 1 ")" = \
	"$(awk -v b="$(count_of $H/queue1 buffer_bytes)" 'BEGIN { printf "%.0f", b / 1024 }') $(awk \
	-v b="$(count_of "$tq" buffer_bytes)" -v p="$(count_of "$tq" pages_held)" \
	'BEGIN { printf "%.0f", (b + p * 4096) / 1024 }')"
nvmeof-rdma stat --json > /tmp/stat.json
rig_check "nvmeof-rdma stat --json: the controller and its counters" \
	grep -q "\"controller\": \"$ctrl\".*\"cmds_write\": 8, .*\"cmds_rejected\": 1" \
	/tmp/stat.json
# over an interval: the reads in it, not the totals
nvmeof-rdma stat --json 3 1 > /tmp/rate.json &
sleep 1
rig_check "20 reads of 4 KiB" \
	dd if="$ns" of=/dev/null bs=4k count=20 iflag=direct
wait
rig_check "nvmeof-rdma stat --json 3 1: 20 reads in the interval, on both sides" \
	test "$(grep -o '"cmds_read": [0-9]*' /tmp/rate.json | sort -u | tr '\n' ' ')" \
	= '"cmds_read": 0 "cmds_read": 20 '
rig_log "nvmeof-rdma stat --json 3 1: $(cat /tmp/rate.json)"

cp $H/queue1 /tmp/host.before
cp $H/ctrl /tmp/ctrl.before
rig_check "reset the controller" \
	sh -c "echo 1 > /sys/class/nvme/$ctrl/reset_controller"
rig_check "live again" \
	rig_wait 30 sh -c "grep -qx live /sys/class/nvme/$ctrl/state"
counted "host ctrl" $H/ctrl /tmp/ctrl.before resets=1 reconnects=1 \
	reconnect_failures=0 recoveries_wc_error=0 recoveries_bad_response=0 \
	recoveries_timeout=0 recoveries_disconnect=0 recoveries_qp_error=0 \
	recoveries_post_failed=0
rig_check "host: the I/O queue's counters kept across the reset" \
	test "$(count_of $H/queue1 cmds_read)" -ge "$(count_of /tmp/host.before cmds_read)" \
	-a "$(count_of $H/queue1 cmds_read)" -ge 10
rig_check "target: 2 queues after the reset, the old ones' files gone" \
	rig_wait 10 sh -c "test \$(ls $T | wc -l) = 2"
tq=$(target_queue 1)
rig_check "target: the new I/O queue counts from 0" \
	test -n "$tq" -a "$(count_of "$tq" cmds_write)" = 0

rig_check "disconnect" rig_disconnect
rig_check "host: the controller's files gone" rig_wait 20 test ! -e $H
rig_check "target: no queue file left" \
	rig_wait 20 sh -c "test -z \"\$(ls $T)\""
rig_check "unexport" rig_unexport
rig_unload nvme-rdma nvmet-rdma
rig_check "no statistics directory after the unload" \
	test ! -e /sys/kernel/debug/nvme_rdma -a ! -e $T
nvmeof-rdma stat > /tmp/stat.out 2>&1
rig_check "nvmeof-rdma stat without the modules: fails (exit $?)" test $? = 1
rig_check "nvmeof-rdma stat without the modules: says what is missing" \
	grep -q "is nvmeof-rdma's nvme-rdma or nvmet-rdma loaded" /tmp/stat.out
