# SPDX-License-Identifier: GPL-2.0
# mem-reserve: our target's memory reserve (min_available_mb). Its default
# is 1/64 of the guest's memory within 32 MiB to 1 GiB, which its sysfs
# file shows; values below -1 are refused. A reserve above all that is
# available refuses every new queue with a message naming the parameter:
# the host's connect fails with the reject, nothing is left on either side.
# Hosts connecting one after another under a reserve a few hosts' worth
# below what is available: the target refuses one part-way (its admin
# queue or an I/O queue), whose connect fails and unwinds; the hosts
# admitted stay live, each whole (three queues on both sides), and carry
# verified I/O. The reserve at 0 (none) admits a host again; -1 brings the
# default back. Then the page caches of queues admitted before, which grow
# after their admission, count against the reserve for the next queue; and
# shared receive queues that do not fit are not made (each queue its own).
# On siw (iWARP, the debug kernel) only the first refusal: its message
# counts the MR pool rdma_rw makes for the queue pair, as rxe has none.
# covers: the target's memory reserve refuses a queue with a message and unwinds it
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe debug-rdma=siw timeout=240 fast=oldest:ours/ours:rxe,debug:ours/ours:siw

rig_serve_ram 64
P=/sys/module/nvmet_rdma/parameters/min_available_mb
T=/sys/kernel/debug/nvmet_rdma
N=16

mem_mb() { awk -v k="$1:" '$1 == k { print int($2 / 1024) }' /proc/meminfo; }
connect() { rig_connect_host "$1" "$RIG_IP4" ",nr_io_queues=1,nr_write_queues=1"; }
refused() { ! connect "$1"; }
# controllers N - exactly N controllers on the host, all live
controllers() {
	[ "$(ls -d /sys/class/nvme/nvme* 2> /dev/null | wc -l)" = "$1" ] &&
		[ "$(cat /sys/class/nvme/nvme*/state 2> /dev/null | grep -c '^live$')" = "$1" ]
}
# target_queues N - exactly N queues on our target (its statistics' files)
target_queues() { [ "$(ls $T | grep -c '^queue')" = "$1" ]; }

total=$(mem_mb MemTotal)
auto=$(( total / 64 < 32 ? 32 : total / 64 > 1024 ? 1024 : total / 64 ))
[ $auto -le $(( total / 2 )) ] || auto=$(( total / 2 ))
rig_check "default reserve: $auto MiB of $total MiB" test "$(cat $P)" = "$auto"
rig_check "reserve -2 refused" sh -c "! echo -2 > $P"
rig_check "reserve 'lots' refused" sh -c "! echo lots > $P"
rig_check "reserve unchanged by the refusals" test "$(cat $P)" = "$auto"

# every queue refused; the admin queue's QP (32 entries) has a pool of 32
# MRs of 256 pages (272 KiB by the estimate) where rdma_rw registers for
# RDMA READ: on siw (iWARP), not on rxe
[ "$RIG_RDMA" = siw ] && mrs=272 || mrs=0
reserve=$(( $(mem_mb MemAvailable) + 1024 ))
echo $reserve > $P
rig_check "reserve $reserve MiB set" test "$(cat $P)" = "$reserve"
rig_check "connect refused under a reserve above what is available" refused 1
rig_check "the target says why, its MR pool counted ($mrs KiB on $RIG_RDMA)" sh -c "dmesg | grep -q 'nvmet_rdma: refusing queue 0 of the host at .*: its buffers need [0-9]* KiB ($mrs KiB of them memory registrations) and the queues admitted before may still take [0-9]* KiB for their page caches, [0-9]* KiB of memory is available and min_available_mb keeps $reserve MiB (use_srq=Y shares receive buffers among queues)'"
# rdma_cm hands a reject's private data (the NVMe status) to the host on
# IB/RoCE only; over iWARP the host sees the connection reset
[ "$RIG_RDMA" = siw ] && rej='status -104 (reset by remote host)\.' ||
	rej='status [0-9]* (.*) nvme status 6 '
rig_check "the host says it was rejected" sh -c "dmesg | grep -q 'Connect rejected: $rej'"
rig_check "no controller left" rig_wait 30 rig_no_controllers
rig_check "no queue left on the target" rig_wait 30 target_queues 0
echo -1 > $P
# siw (the debug kernel) is here for its MR pool; the rest is the device's
[ "$RIG_RDMA" = siw ] && return

# a few hosts' worth: each asks about 2 MiB of buffers (4 KiB in-capsule
# data, two I/O queues of 128) and its RDMA rings on top
reserve=$(( $(mem_mb MemAvailable) - 24 ))
echo $reserve > $P
admitted=0
for i in $(seq $N); do
	connect "$i" || break
	admitted=$i
done
rig_figure "$admitted hosts admitted under a reserve of $reserve MiB (MemAvailable now $(mem_mb MemAvailable) MiB)"
rig_check "some hosts admitted, then one refused" test "$admitted" -ge 1 -a "$admitted" -lt $N
rig_check "refused part-way, it unwound: $admitted controllers, all live" \
	rig_wait 30 controllers "$admitted"
rig_check "each admitted host whole: three queues" \
	sh -c "[ \$(cat /sys/class/nvme/nvme*/queue_count | grep -cx 3) = $admitted ]"
rig_check "the target holds their queues only" rig_wait 30 target_queues $(( admitted * 3 ))
rig_check "namespace there" rig_wait 30 rig_has_ns
rig_check "verified I/O through the admitted hosts' namespace" \
	rig_fio_verify "$(rig_nvme_ns)" randrw 16k 8 1 2M

echo 0 > $P
rig_check "no reserve: another host admitted" connect $(( N + 1 ))
rig_check "and live" rig_wait 30 controllers $(( admitted + 1 ))
rig_check "disconnect all" rig_disconnect
rig_check "no controller left" rig_wait 60 rig_no_controllers
echo -1 > $P
rig_check "-1: the default reserve again" test "$(cat $P)" = "$auto"

# Page caches grow after their queues were admitted: what the queues
# admitted before may still take counts against the reserve. With 16 MiB
# per I/O queue (cached_pages=4096) a host's two I/O queues may take 32 MiB:
# under a reserve 40 MiB below what is available one host is admitted and
# the next refused at its first I/O queue (counting only each queue's own
# cache, as before, all four were).
rig_must "unexport" rig_unexport
rig_must "unload our target" $RMMOD nvmet_rdma
rig_load_target ours cached_pages=4096
rig_must "export $RIG_DEV" rig_export "$RIG_DEV"
reserve=$(( $(mem_mb MemAvailable) - 40 ))
echo $reserve > $P
admitted=0
for i in 1 2 3 4; do
	connect $(( N + 1 + i )) || break
	admitted=$i
done
rig_figure "$admitted hosts admitted with 16 MiB page caches under a reserve of $reserve MiB"
rig_check "page caches still to grow counted: one host admitted, the next refused" \
	test "$admitted" = 1
rig_check "the target counted the first host's two caches" sh -c \
	"dmesg | grep -q 'nvmet_rdma: refusing queue 1 of the host at .*: its buffers need [0-9]* KiB ([0-9]* KiB of them memory registrations) and the queues admitted before may still take 3[12][0-9][0-9][0-9] KiB for their page caches'"
echo -1 > $P
rig_check "disconnect" rig_disconnect
rig_check "no controller left" rig_wait 60 rig_no_controllers

# Shared receive queues are held to the reserve too: 16384 buffers per SRQ
# (64 MiB and more with 4 KiB in-capsule data) under a reserve 24 MiB below
# what is available do not fit, the device goes without (each queue its
# own buffers, admitted by itself) and a host is served.
rig_must "unexport (page caches)" rig_unexport
rig_must "unload our target (page caches)" $RMMOD nvmet_rdma
rig_load_target ours use_srq=Y srq_size=16384
rig_must "export $RIG_DEV (use_srq=Y)" rig_export "$RIG_DEV"
echo $(( $(mem_mb MemAvailable) - 24 )) > $P
rig_check "a host admitted without the SRQs" connect $(( N + 10 ))
rig_check "the target said why it has no SRQs" sh -c \
	"dmesg | grep -q 'nvmet_rdma: .*: no shared receive queues: their buffers need [0-9]* KiB and .* min_available_mb keeps [0-9]* MiB; each queue gets its own'"
rig_check "its queues have buffers of their own" \
	sh -c "! grep -qx 'srq 1' $T/queue*"
rig_check "namespace there (no SRQs)" rig_wait 30 rig_has_ns
rig_check "verified I/O without the SRQs" \
	rig_fio_verify "$(rig_nvme_ns)" randrw 16k 8 1 2M
echo -1 > $P
rig_check "disconnect (no SRQs)" rig_disconnect
