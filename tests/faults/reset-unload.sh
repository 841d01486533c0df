# SPDX-License-Identifier: GPL-2.0
# reset-unload: two guests on a wire; under the host's verified fio load,
# ten controller resets one after the other (nvme reset): each ends with the
# controller live and fio sees no error and verifies every block. Then,
# under heavy load, nvme-rdma unloaded: the unload must end, refused (the
# controller kept) or done (the controller deleted with it, fio failing,
# never hanging) -- native multipath's block device belongs to nvme-core,
# so fio holding it does not pin nvme-rdma, and stock's and ours unload.
# The unload is last, judged in one check (rig_fio_heavy); a disconnect
# under load is disconnect-load's.
# covers: ten resets under load, then an unload under heavy load
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=400 fast=none

wire_target() { rig_wire_serve; }

# unload_under_load - rmmod nvme-rdma under rig_fio_heavy: it ends within
# 60 s, done (the controller gone, fio failed) or refused (the controller
# live)
unload_under_load() {
	local t0 rc
	t0=$(rig_t)
	timeout 60 $RMMOD nvme_rdma
	rc=$?
	# rmmod's own statuses: 0 done, 1 refused; anything else is timeout's
	case $rc in
	0)
		rig_figure "nvme-rdma unloaded under load in $(rig_since $t0) s"
		rig_wait 10 rig_no_controllers || { rig_log "a controller stayed"; return 1; }
		rig_fio_ended_failing ;;
	1)
		rig_figure "nvme-rdma's unload under load refused"
		grep -q live /sys/class/nvme/nvme0/state ;;
	*)
		rig_log "rmmod nvme_rdma did not end within 60 s"
		return 1 ;;
	esac
}

# reset_times T0 - the resets after uptime T0 by the kernel log, each from
# nvme-core's "resetting controller" to the I/O queues mapped again: the
# loop's own time is mostly nvme-cli starting, the same for stock and ours
reset_times() {
	local s
	s=$(rig_klog_spans "resetting controller" "mapped .* queues" "$1")
	[ -n "$s" ] || { echo "none in the kernel log"; return; }
	echo "$s" | awk '{ printf "each %s s on average, at most %s, by the kernel log", $2, $3 }'
}

wire_host() {
	local pid i n=0 t0
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_fio_load "$(rig_nvme_ns)" 60 &
	pid=$!
	sleep 3
	t0=$(rig_t)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		nvme reset /dev/nvme0 || break
		rig_wait 30 sh -c 'grep -q live /sys/class/nvme/nvme0/state' || break
		n=$i
	done
	rig_figure "$n resets in $(rig_since $t0) s, $(reset_times $t0)"
	rig_check "ten resets, each ending live" test "$n" -eq 10
	rig_check "fio verified every block through the resets" rig_fio_done $pid

	rig_fio_heavy
	rig_check "nvme-rdma's unload under load ended: done (controller gone, fio failed) or refused (controller live), not stuck" \
		unload_under_load
}
