# SPDX-License-Identifier: GPL-2.0
# link-flap: two guests on a wire; the host's end of the link goes down and
# up every 300 ms for a minute under verified fio load (a flapping port or a
# bad cable). Expected: the controller ends live, by riding the flaps out or
# by reconnecting by itself, and fio sees no error and verifies every block;
# every file fsync'd on ext4 beside it is intact.
# A reconnect attempt whose command the flapping lost waits for it to time
# out (the target, which dropped that controller when its keep-alive
# timeout passed, says nothing): stock waits nvme_core's admin_timeout, so
# for stock's host the scenario sets it to 15 s; ours fails such a command
# after twice the keep-alive timeout by itself and runs at the default 60.
# covers: a flapping link for a minute: live at the end, no data lost
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=400 fast=none

wire_target() { rig_wire_serve; }

# recovery_times - each error recovery by the kernel log, from "starting
# error recovery" to "Successfully reconnected". "live after the last
# flap" depends on where in a recovery (its one second of reconnect_delay)
# the last flap falls; these do not.
recovery_times() {
	local s
	s=$(rig_klog_spans "starting error recovery" "Successfully reconnected")
	[ -n "$s" ] || { echo "no recovery"; return; }
	echo "$s" | awk '{ printf "each recovery %s s on average from the error to live, at most %s", $2, $3 }'
}

wire_host() {
	local pid t0 t_up n=0
	rig_load_host
	# the admin queue takes its timeout when it is made
	[ "$RIG_HOST" = ours ] ||
		echo 15 > /sys/module/nvme_core/parameters/admin_timeout
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_must "ext4 beside the load" rig_fs_start "$(rig_nvme_ns)"
	rig_fio_load "$(rig_nvme_ns)" 110 &
	pid=$!
	sleep 5
	t0=$(rig_t)
	while [ "$(rig_since $t0 | cut -d. -f1)" -lt 60 ]; do
		rig_wire link off > /dev/null || break
		sleep 0.3
		rig_wire link on > /dev/null || break
		sleep 0.3
		n=$((n + 1))
	done
	rig_figure "$n flaps in $(rig_since $t0) s"
	rig_must "the link flapped for a minute" test "$n" -ge 20
	rig_must "the link is up" rig_wire link on
	t_up=$(rig_t)
	rig_check "controller live again" rig_wait 45 rig_ctrl_live
	rig_figure "live $(rig_since $t_up) s after the last flap, $(rig_reconnects) reconnects, $(recovery_times)"
	rig_check "fio verified every block through the flapping" rig_fio_done $pid
	rig_fs_check flapping
	rig_check "controller live" rig_ctrl_live
	rig_check "disconnect" rig_disconnect
}
