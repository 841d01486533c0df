# SPDX-License-Identifier: GPL-2.0
# target-restart: two guests on a wire; under the host's verified fio load
# the target's whole stack goes and comes back on the target guest -- the
# export removed, nvmet-rdma and nvmet unloaded, loaded again and the same
# namespace exported at the same address (a target rebooted: a new nvmet
# instance, which knows nothing of the host's controller). Expected: the
# host notices, is refused while the target is down, reconnects by itself
# to the new instance, fio sees no error and verifies every block, every
# file fsync'd on ext4 beside it is intact (the backing ramdisk stays, as a
# real target's disk would).
# covers: the target's whole stack unloaded and set up again
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=300 fast=none

wire_target() { rig_wire_serve; }

wire_host() {
	local pid t0
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_must "ext4 beside the load" rig_fs_start "$(rig_nvme_ns)"
	rig_fio_load "$(rig_nvme_ns)" 40 &
	pid=$!
	sleep 5
	rig_must "target restarted" rig_wire target restart
	t0=$(rig_t)
	rig_check "the controller reconnected by itself" rig_wait 60 rig_reconnected &&
		rig_figure "reconnected $(rig_reconnect_since $t0) s after the restart"
	rig_check "fio verified every block through the restart" rig_fio_done $pid
	rig_fs_check restart
	rig_check "controller live" rig_ctrl_live
	rig_check "disconnect" rig_disconnect
}
