# SPDX-License-Identifier: GPL-2.0
# link-cut: two guests on a wire (rig/run-pair.sh); the host's end of the
# link cut for 12 s, longer than the keep-alive timeout and far shorter than
# ctrl_loss_tmo, under a verified fio load. Expected: the host's controller
# reconnects by itself once the link is back, the I/O held during the cut
# completes, fio sees no error and verifies every block.
# rig: pairs=ours/ours,stock/stock kernels=stock timeout=300

wire_target() {
	rig_load_target
	dev=$(rig_backing ram 64)
	rig_must "brd backing device" test -b "$dev"
	rig_must "export $dev on $RIG_WIRE_TARGET:4420" rig_export "$dev" 1 $RIG_WIRE_TARGET
	rig_must "the host guest ended" rig_wire_wait_end
}

# connect_when_ready - the target guest boots beside this one: connect as
# soon as it listens
connect_when_ready() {
	local n=0
	until nvme connect -t rdma -a $RIG_WIRE_TARGET -s 4420 -n $RIG_NQN \
		-k 5 -c 1 -l 120 > /dev/null 2>&1; do
		n=$((n + 1))
		[ $n -lt 60 ] || return 1
		sleep 2
	done
	rig_wait 30 rig_has_ns
}

wire_host() {
	local ns pid t_on
	rig_load_host
	rig_must "connect to the target guest" connect_when_ready
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
