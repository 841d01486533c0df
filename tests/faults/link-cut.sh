# SPDX-License-Identifier: GPL-2.0
# link-cut: two guests on a wire (rig/run-pair.sh); the host's end of the
# link cut for 12 s, longer than the keep-alive timeout and far shorter than
# ctrl_loss_tmo, under a verified fio load. Expected: the host's controller
# reconnects by itself once the link is back, the I/O held during the cut
# completes, fio sees no error and verifies every block, and every file an
# ext4 writer beside it fsync'd is intact (rig_fs_check).
# rig: pairs=ours/ours,stock/stock check-pairs=ours/ours mixed-kernels=ours/ours,stock/stock kernels=stock,debug debug-pairs=ours/ours timeout=300

wire_target() { rig_wire_serve; }

wire_host() {
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_wire_outage "link cut" "link off" "link on" 12
	rig_check "disconnect" rig_disconnect
}
