# SPDX-License-Identifier: GPL-2.0
# reset-unload: two guests on a wire; under the host's verified fio load,
# ten controller resets one after the other (nvme reset): each ends with the
# controller live and fio sees no error and verifies every block. Then,
# under heavy load, nvme-rdma unloaded: the unload must end, refused (the
# controller kept) or done (the controller deleted with it, fio failing,
# never hanging) -- native multipath's block device belongs to nvme-core,
# so fio holding it does not pin nvme-rdma, and stock's and ours unload.
# Then, reloaded and connected again, a disconnect during heavy I/O ends,
# fio fails, nothing is left, and nvme-rdma unloads.
# rig: pairs=ours/ours,stock/stock check-pairs=none kernels=stock timeout=400

wire_target() { rig_wire_serve; }

# heavy_load - 128 KiB writes at QD32 in the background (rig_fio_bg)
heavy_load() {
	rig_fio_bg "$(rig_nvme_ns)" 120 128k --iodepth=32
	sleep 5
}

wire_host() {
	local pid i n=0 t0 rc
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	rig_fio_load "$(rig_nvme_ns)" 60 &
	pid=$!
	sleep 3
	t0=$(rig_t)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		nvme reset /dev/nvme0 || break
		rig_wait 30 sh -c 'grep -q live /sys/class/nvme/nvme0/state' || break
		n=$i
	done
	rig_figure "$n resets in $(rig_since $t0) s"
	rig_check "ten resets, each ending live" test "$n" -eq 10
	rig_check "fio verified every block through the resets" rig_fio_done $pid

	heavy_load
	t0=$(rig_t)
	timeout 60 $RMMOD nvme_rdma
	rc=$?
	# rmmod's own statuses: 0 done, 1 refused; anything else is timeout's
	rig_check "nvme-rdma's unload under load ended (done or refused, not stuck)" test $rc -le 1
	if [ $rc -eq 0 ]; then
		rig_figure "nvme-rdma unloaded under load in $(rig_since $t0) s"
		rig_check "the controller went with it" rig_wait 10 rig_no_controllers
		rig_fio_failed
		rig_load_host
		rig_must "connect again" rig_wire_connect ",keep_alive_tmo=5"
		heavy_load
	else
		rig_figure "nvme-rdma's unload under load refused"
		rig_check "controller still live" sh -c 'grep -q live /sys/class/nvme/nvme0/state'
	fi
	t0=$(rig_t)
	rig_check "disconnect during heavy I/O ends" timeout 60 nvme disconnect -n "$RIG_NQN"
	rig_figure "disconnect under load took $(rig_since $t0) s"
	rig_fio_failed
	rig_check "no controller left" rig_no_controllers
	rig_check "nvme-rdma unloads" $RMMOD nvme_rdma
}
