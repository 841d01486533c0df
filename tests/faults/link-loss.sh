# SPDX-License-Identifier: GPL-2.0
# link-loss: two guests on a wire; the host's end of the link cut for good
# (until the end of the check) under fio load, with fast_io_fail_tmo 4 s,
# reconnect_delay 2 s and ctrl_loss_tmo 12 s. Expected, by nvme-core's
# rules: I/O fails (fio ends with an error) fast_io_fail_tmo after the
# controller began reconnecting, the controller is deleted after 12 / 2 = 6
# failed reconnects, nothing hangs, and nvme-rdma unloads once the link is
# back; the kernel's times printed.
# covers: the link gone for good: I/O fails after fast_io_fail_tmo, the controller goes
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=300 fast=none

wire_target() { rig_wire_serve; }

wire_host() {
	local ns t_conn t_fail n
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=2,fast_io_fail_tmo=4,ctrl_loss_tmo=12"
	ns=$(rig_nvme_ns)
	# its exit status in a file: a finished but unwaited job would still
	# answer kill -0
	rig_fio_bg "$ns" 120
	sleep 5
	rig_must "link cut" rig_wire link off
	rig_fio_failed
	# fast_io_fail_tmo counts from the controller's move to CONNECTING
	# (the first "Reconnecting in"), after error recovery's teardown
	t_conn=$(rig_klog_t "Reconnecting in")
	t_fail=$(rig_klog_t "failfast expired")
	rig_log "error recovery began at $(rig_klog_t "starting error recovery"), reconnecting at $t_conn, I/O failed at $t_fail (kernel time; the cut at about $(rig_klog_t "rxe0: set down"))"
	rig_figure "I/O failed $(rig_since "$t_conn" "$t_fail") s after reconnecting began (fast_io_fail_tmo 4)"
	rig_check "I/O failed fast_io_fail_tmo (4 s) after reconnecting began" \
		awk -v a="$t_fail" -v b="$t_conn" 'BEGIN { exit !(a != "" && b != "" && a - b >= 4 && a - b < 5.5) }'
	# ctrl_loss_tmo 12 s / reconnect_delay 2 s: 6 attempts, then deleted
	rig_check "the controller deleted" rig_wait 90 rig_no_controllers
	n=$(dmesg | grep -c "Failed reconnect attempt")
	rig_log "controller deleted after $n failed reconnects, at $(rig_klog_t "Removing ctrl")"
	rig_figure "deleted after $n failed reconnects, $(rig_since "$t_conn" "$(rig_klog_t "Removing ctrl")") s after reconnecting began (ctrl_loss_tmo 12)"
	rig_check "deleted after ctrl_loss_tmo / reconnect_delay = 6 attempts" test "$n" -eq 6
	rig_check "nothing left at $ns" test ! -e "$ns"
	rig_must "link back" rig_wire link on
	rig_check "nvme-rdma unloads" $RMMOD nvme_rdma
}
