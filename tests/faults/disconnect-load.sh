# SPDX-License-Identifier: GPL-2.0
# disconnect-load: two guests on a wire; a disconnect (nvme disconnect)
# during heavy I/O (128 KiB writes at QD32) must end within 60 s, fio fail
# rather than hang, and no controller be left; nvme-rdma then unloads (the
# rig's teardown fails a module that stays). The disconnect is last, judged
# in one check (rig_fio_heavy).
# covers: a disconnect under heavy load ends, nothing left
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=300 fast=none

wire_target() { rig_wire_serve; }

# disconnect_under_load - nvme disconnect under rig_fio_heavy: it ends
# within 60 s, fio fails, no controller is left
disconnect_under_load() {
	local t0
	t0=$(rig_t)
	timeout 60 nvme disconnect -n "$RIG_NQN" || { rig_log "nvme disconnect failed or took over 60 s"; return 1; }
	rig_figure "disconnect under load took $(rig_since $t0) s"
	rig_fio_ended_failing || return 1
	rig_no_controllers || { rig_log "a controller was left"; return 1; }
}

wire_host() {
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5"
	rig_fio_heavy
	rig_check "a disconnect during heavy I/O ended, fio failed (not hung), no controller left" \
		disconnect_under_load
}
