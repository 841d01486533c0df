# SPDX-License-Identifier: GPL-2.0
# target-freeze: two guests on a wire; the target guest frozen (QEMU's
# stop: no packet answered, its clocks stopped) for 15 s under verified fio
# load, past the 5 s keep-alive timeout, then thawed. Expected: the host
# notices, keeps reconnecting while the target is frozen, and reconnects by
# itself once it is thawed (to a target that still holds the old
# controller: the new association is a new controller); fio sees no error
# and verifies every block, every file fsync'd on ext4 beside it is
# intact. Then the target is frozen at the moment the
# host deletes the controller: the delete ends (after the shutdown's
# Property Set times out: admin_timeout, stock's time too), and nothing is
# left.
# covers: the target frozen past the keep-alive timeout, then thawed
# rig: pairs=ours/ours,stock/stock full-pairs=none mixed-kernels=ours/ours kernels=stock,debug debug-pairs=ours/ours timeout=300 fast=none

wire_target() { rig_wire_serve; }

wire_host() {
	local t_del
	rig_load_host
	# the admin queue takes its timeout when it is made
	echo 15 > /sys/module/nvme_core/parameters/admin_timeout
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_wire_outage "freeze" "target stop" "target cont" 15
	# a disconnect while the target cannot answer must end. Through sysfs,
	# as nvme-cli does in the end: nvme-cli 2.4's disconnect-all first
	# scans the topology with admin commands, each of which waits its
	# 60 s timeout on a frozen target. The kernel's delete itself waits
	# for the shutdown's Property Set to time out (nvme_core's
	# admin_timeout, 60 s by default, 15 s here), with stock as with ours
	rig_must "target frozen again" rig_wire target stop
	t_del=$(rig_t)
	rig_check "disconnect from a frozen target ends (admin_timeout 15 s + 15 s)" \
		timeout 30 sh -c 'echo 1 > /sys/class/nvme/nvme0/delete_controller'
	rig_figure "a delete against the frozen target took $(rig_since $t_del) s (admin_timeout 15)"
	rig_must "target thawed again" rig_wire target cont
	rig_check "no controller left" rig_wait 30 rig_no_controllers
}
