# SPDX-License-Identifier: GPL-2.0
# rdma-removal: two guests on a wire; RDMA devices removed under the host's
# verified fio load. The target guest's device removed for 10 s and added
# again: our target's port gets its listener back once the device is back
# and the host reconnects by itself; the stock target's stays deaf (the
# host refused for 30 s after the device is back, asserted) until its port
# is disabled and enabled by hand, as host-recovery found; either way fio
# sees no error and verifies every block. Then the host guest's own device
# removed: nvme-rdma deletes the controllers on it (stock's rule too), so
# the I/O fails and ends (fio with an error, never a hang) and the
# controller goes; the device added again, a new connect works and
# verifies.
# covers: the RDMA devices removed under load, on both sides
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=400 fast=none

wire_target() { rig_wire_serve; }

wire_host() {
	local pid t0
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_fio_load "$(rig_nvme_ns)" 90 &
	pid=$!
	sleep 5
	rig_must "target's RDMA device removed" rig_wire target rdma off
	sleep 10
	rig_must "target's RDMA device added again" rig_wire target rdma on
	t0=$(rig_t)
	if [ "$RIG_TARGET" = stock ]; then
		rig_check "stock target: still refused 30 s after its device came back" \
			eval '! rig_wait 30 rig_reconnected'
		rig_figure "stock target deaf 30 s after its device came back: port cycled by hand"
		rig_must "port disabled" rig_wire target port off
		rig_must "port enabled" rig_wire target port on
		t0=$(rig_t)
	fi
	rig_check "the controller reconnected by itself" rig_wait 60 rig_reconnected &&
		rig_figure "reconnected $(rig_reconnect_since $t0) s after the target's device (stock: port) was back"
	rig_check "fio verified every block through the target's device removal" rig_fio_done $pid
	rig_check "controller live" rig_ctrl_live

	rig_fio_bg "$(rig_nvme_ns)" 120
	sleep 5
	rig_must "host's RDMA device removed" rdma link delete "$RIG_RDMA_DEV"
	t0=$(rig_t)
	rig_fio_failed
	rig_check "the controller went" rig_wait 60 rig_no_controllers
	rig_figure "host's device removed: controller gone $(rig_since $t0) s later"
	rig_must "host's RDMA device added again" \
		rdma link add "$RIG_RDMA_DEV" type "$RIG_RDMA_TYPE" netdev "$RIG_WIRE_NIC"
	rig_check "connect again" rig_wire_connect ",keep_alive_tmo=5"
	rig_check "verified I/O" rig_fio_verify "$(rig_nvme_ns)" randwrite 4k 8 1 4M
	rig_check "disconnect" rig_disconnect
}
