# SPDX-License-Identifier: GPL-2.0
# reconnect-storm: two guests on a wire; 16 controllers to the one target,
# each its own host (host NQN and host ID) with three I/O queues (one
# default, one write, one poll), verified fio load on the first; the link
# cut for 12 s (past the keep-alive timeout) and restored. Expected: all 16
# reconnect by themselves (the time until the last is live printed), fio
# sees no error and verifies every block, and all 16 disconnect.
# covers: 16 hosts reconnecting after a link cut
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=400 fast=none

wire_target() { rig_wire_serve; }

# live_count - how many controllers are live; all_live - all 16 are
live_count() { cat /sys/class/nvme/nvme*/state 2> /dev/null | grep -c '^live$'; }
all_live() { [ "$(live_count)" -eq 16 ]; }

wire_host() {
	local i pid t0 n
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120,nr_write_queues=1,nr_poll_queues=1"
	for i in $(seq 2 16); do
		rig_connect_host "$i" "$RIG_WIRE_TARGET" \
			",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120,nr_write_queues=1,nr_poll_queues=1" || break
	done
	rig_check "16 controllers live" rig_wait 60 all_live
	rig_log "$(live_count) live"
	rig_log "$(dmesg | grep -c 'mapped 1/1/1 default/read/poll queues') controllers with 1/1/1 default/read/poll queues"
	rig_fio_load "$(rig_nvme_ns)" 60 &
	pid=$!
	sleep 5
	rig_must "link cut" rig_wire link off
	sleep 12
	rig_must "link back" rig_wire link on
	t0=$(rig_t)
	rig_check "all 16 reconnected by themselves" \
		rig_wait 120 all_live
	n=$(live_count)
	rig_figure "$n of 16 live $(rig_since $t0) s after the link came back"
	rig_check "fio verified every block through the storm" rig_fio_done $pid
	rig_check "disconnect all 16" rig_disconnect
	rig_check "no controller left" rig_wait 60 rig_no_controllers
}
