# SPDX-License-Identifier: GPL-2.0
# target-config: two guests on a wire; the target's configuration changed
# under the host's verified fio load, on the target guest (configfs).
# The port disabled for 10 s (the subsystem unlinked from it) and enabled
# again: the target drops the port's controllers, the host is refused
# while the port is down and reconnects by itself once it is back, fio
# sees no error and verifies every block, every file fsync'd on ext4 beside
# it is intact. Then the namespace disabled: the
# host hears of it (the target's namespace-changed event), its I/O fails
# and ends (fio with an error, never a hang), the block device goes; the
# namespace enabled again: the host finds it by itself, verified I/O on
# it, the controller live all along.
# covers: the target's port and namespace changed under load
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=400 fast=none

wire_target() { rig_wire_serve; }

wire_host() {
	local t0
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_wire_outage "port disabled" "target port off" "target port on" 10

	rig_fio_bg "$(rig_nvme_ns)" 120
	sleep 5
	rig_must "namespace disabled" rig_wire target ns off
	t0=$(rig_t)
	rig_fio_failed
	rig_figure "I/O failed $(rig_since $t0) s after the namespace was disabled"
	rig_check "the block device went" rig_wait 30 eval '! rig_has_ns'
	rig_must "namespace enabled" rig_wire target ns on
	t0=$(rig_t)
	rig_check "the namespace came back by itself" rig_wait 60 rig_has_ns
	rig_figure "namespace back $(rig_since $t0) s after it was enabled"
	rig_check "verified I/O on it" rig_fio_verify "$(rig_nvme_ns)" randwrite 4k 8 1 4M
	rig_check "no reconnect for the namespace" test "$(rig_reconnects)" -eq 1
	rig_check "disconnect" rig_disconnect
}
