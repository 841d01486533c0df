# SPDX-License-Identifier: GPL-2.0
# link-cut: two guests on a wire (rig/run-pair.sh); the host's end of the
# link cut for 12 s, longer than the keep-alive timeout and far shorter than
# ctrl_loss_tmo, under a verified fio load. Expected: the host's controller
# reconnects by itself once the link is back, the I/O held during the cut
# completes, fio sees no error and verifies every block.
# rig: pairs=ours/ours,stock/stock check-pairs=ours/ours kernels=stock timeout=300

wire_target() { rig_wire_serve; }

wire_host() {
	local ns pid t_on
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	ns=$(rig_nvme_ns)
	rig_fio_load "$ns" 40 &
	pid=$!
	sleep 5
	rig_check "link cut" rig_wire link off
	sleep 12
	rig_check "link back" rig_wire link on
	t_on=$(rig_t)
	rig_check "the controller reconnected by itself" \
		rig_wait 60 sh -c 'dmesg | grep -q "Successfully reconnected"'
	rig_log "reconnected $(echo "$(rig_t) $t_on" | awk '{ printf "%.1f", $1 - $2 }') s after the link came back"
	rig_check "fio verified every block through the cut" rig_fio_done $pid
	rig_check "controller live" sh -c 'grep -q live /sys/class/nvme/nvme*/state'
	rig_check "disconnect" rig_disconnect
}
