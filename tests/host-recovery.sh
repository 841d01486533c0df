# SPDX-License-Identifier: GPL-2.0
# host-recovery: the host's error recovery, each step under fio load:
# `nvme reset` (fio verifies as it writes, and must see no error), the
# target port taken away and given back (the host must reconnect on its own
# and fio carry on without an error); the RDMA device removed with the
# controller idle (the controller must go) and brought back (a new connect
# through the same port works); last, the RDMA device removed under load:
# the controller must go away, fio must end with an I/O error (its device
# is gone) rather than hang; both modules unload.
# Run with our host against both targets, and with the stock host against
# our target (its port disable and device removal under a stock host's load).
# On the debug kernel our own pair only. Not our host against the stock
# target: the stock target's first port disable after a Connect ends in its
# own lockdep report (rig/splat.awk), which switches lockdep off before the
# host's reconnect is checked; a check lockdep cannot watch fails
# (RIG-CHECK-UNWATCHED). Our host's recovery runs watched against our target,
# which it cannot tell from the stock one on this path. Not the stock host
# against ours, for CI's time: our target's side of a recovery is the same
# under either host, watched in our pair. Both run on Debian's kernels.
# Last in its guest (order=last), and the removal under load last in it: the
# controller goes away under fio's open namespace, which can end in
# nvme-core's inherited lockdep report (see rig/splat.awk), and lockdep then
# stops watching for the rest of the boot.
# On rxe-hw too, our own pair on Debian's kernels (send-queue slots by
# hardware rules, DMA behind a strict IOMMU); the debug kernel runs it on
# rxe only, for CI's time.
# covers: reset, port loss and return, device removal, each under load; clean unload
# rig: pairs=ours/ours,ours/stock,stock/ours debug-pairs=ours/ours rxe-hw-pairs=ours/ours kernels=stock,debug rdma=rxe,rxe-hw debug-rdma=rxe timeout=360 order=last debug-smp=2 fast=oldest:ours/ours:rxe,trixie:ours/ours:rxe

rig_serve_ram 64
ns=$(rig_connect $RIG_IP4 4420 --reconnect-delay=1 --ctrl-loss-tmo=60)
rig_must "nvme connect -t rdma" test -b "$ns"
ctrl=$(ls -d /sys/class/nvme/nvme*/ | head -1)
ctrl=${ctrl%/}

ctrl_state() { cat "$ctrl/state" 2>/dev/null; }
ctrl_live() { [ "$(ctrl_state)" = live ]; }

# 1. reset under load
rig_fio_load "$ns" 6 &
pid=$!
sleep 2
rig_check "fio running when the reset starts" kill -0 $pid
rig_check "nvme reset" nvme reset "/dev/${ctrl##*/}"
rig_check "controller live again after the reset" rig_wait 30 ctrl_live
rig_check "fio across the reset: no error, data verified" rig_fio_done $pid
# a job per CPU (rig_fio_load): completions on every CPU racing the reset
[ "$RIG_HOST" = ours ] &&
	rig_check "the load went over every I/O queue" rig_io_queues_all_busy

# 2. the target port goes away and comes back: the host reconnects
port=$NVMET_CFS/ports/1
rig_fio_load "$ns" 12 &
pid=$!
sleep 2
rig_check "fio running when the port goes" kill -0 $pid
rig_check "port unlinked from the subsystem" rm "$port/subsystems/$RIG_NQN"
rig_check "host notices (controller not live)" rig_wait 20 eval '! ctrl_live'
rig_log "controller state with the port gone: $(ctrl_state)"
sleep 2
rig_check "port linked again" ln -s "$NVMET_CFS/subsystems/$RIG_NQN" "$port/subsystems/$RIG_NQN"
rig_check "host reconnected by itself" rig_wait 30 ctrl_live
rig_check "fio across the outage: no error, data verified" rig_fio_done $pid
rig_check "verified I/O after the reconnect" rig_fio_verify "$ns" randrw 64k 8 1 4M

# 3. the RDMA device goes away with the controller idle and comes back: the
# controller must go; our target's port listens again by itself (it retries
# its listener); the stock target's stays deaf until the port is disabled
# and enabled by hand, which is done for it here. Then a new connect works.
rig_check "rdma link delete $RIG_RDMA_DEV (controller idle)" rdma link delete $RIG_RDMA_DEV
rig_check "controller removed" rig_wait 30 rig_no_controllers
rig_check "rdma link add $RIG_RDMA_DEV again" rdma link add $RIG_RDMA_DEV type $RIG_RDMA_TYPE netdev d0
if [ "$RIG_TARGET" = stock ]; then
	rig_log "stock target: cycling the port by hand"
	rig_check "port disabled" rm "$port/subsystems/$RIG_NQN"
	rig_check "port enabled" ln -s "$NVMET_CFS/subsystems/$RIG_NQN" "$port/subsystems/$RIG_NQN"
fi
rig_check "connect after the device came back" \
	rig_wait 30 eval "nvme connect -t rdma -a $RIG_IP4 -s 4420 -n $RIG_NQN > /dev/null"
ctrl=$(ls -d /sys/class/nvme/nvme*/ | head -1)
ctrl=${ctrl%/}
rig_check "controller live on the new device" rig_wait 30 ctrl_live
rig_check "namespace 1 listed by the controller" \
	sh -c "nvme list-ns /dev/${ctrl##*/} | grep -q ':0x1'"
rig_check "namespace 1 has its block device again" rig_wait 30 rig_has_ns
ns=$(rig_nvme_ns)
rig_check "verified I/O on the new device" rig_fio_verify "$ns" randrw 16k 8 1 4M

# 4. last, as one check: the RDMA device goes away under load. The
# controller must go, fio must end with an I/O error (its device is gone)
# rather than hang, and nothing may be left at the namespace's path. The
# controller going under fio's open namespace can end in nvme-core's
# inherited lockdep report, after which lockdep no longer watches: nothing
# of the scenario runs after this check (rig_reset's unload still does).
# ns_ios - reads + writes completed on the namespace's disks so far (its
# paths: a multipath head does not count its own I/O on every kernel)
ns_ios() { cat /sys/block/nvme*/stat | awk '{ n += $1 + $5 } END { print n + 0 }'; }
# device_gone_under_load PID IOS - the steps above, in order, once fio is
# doing I/O (more than IOS completed: on the debug kernel fio takes seconds
# to start, and a device gone before fio opened it is no test of this)
device_gone_under_load() {
	local rc
	rig_wait 30 eval "[ \$(ns_ios) -gt $2 ]" ||
		{ rig_log "fio did no I/O on $ns within 30 s"; return 1; }
	kill -0 "$1" || { rig_log "fio was not running when the device went"; return 1; }
	rdma link delete $RIG_RDMA_DEV || return 1
	rig_wait 30 rig_no_controllers || { rig_log "controller still there"; return 1; }
	rig_wait 30 eval "! kill -0 $1 2> /dev/null" || { rig_log "fio hangs"; return 1; }
	wait "$1"
	rc=$?
	rig_log "fio after the device removal: exit $rc; $(grep -m1 -o 'err=[ 0-9]*[^,]*' /tmp/load.out)"
	[ $rc -ne 0 ] || { rig_log "fio succeeded although its device went away"; return 1; }
	# EIO, ENXIO, ENODEV or ENOLINK (a path error: BLK_STS_TRANSPORT)
	grep -Eq 'err= *(5|6|19|67) ' /tmp/load.out ||
		{ rig_log "fio did not end with an I/O error"; tail -5 /tmp/load.out; return 1; }
	rig_wait 30 eval "[ ! -e $ns ]" || { rig_log "something is left at $ns"; return 1; }
}
ios=$(ns_ios)
rig_fio_load "$ns" 60 &
pid=$!
rig_check "device removed under load: controller gone, fio ended with an I/O error, nothing left at $ns" \
	device_gone_under_load $pid $ios
