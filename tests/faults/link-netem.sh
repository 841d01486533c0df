# SPDX-License-Identifier: GPL-2.0
# link-netem: two guests on a wire that misbehaves without going down: tc
# netem on the host guest's end (what the host sends: commands, the data
# the target reads, acknowledgements) loses 1 % and then 5 % of the frames,
# delays each by 5 ms, duplicates 1 %, and reorders a quarter of them (5 ms
# for the rest), one after the other, each for 15 s of verified fio load.
# Expected: fio sees no error and verifies every block in every phase,
# and the controller is live after each; each phase's IOPS and reconnects
# printed. Loss is hard on soft-RoCE, ours and stock alike (6.1): 1 % lost
# takes a 4 KiB QD16 load from ~150 to ~1 IOPS, and a queue can stall
# until its I/O times out (30 s), after which error recovery reconnects and
# the I/O is retried; reordering, which breaks go-back-N, does the same.
# covers: loss, delay, duplicates and reordering on the wire: no data lost
# rig: pairs=ours/ours,stock/stock full-pairs=none kernels=stock,debug debug-pairs=ours/ours timeout=600 fast=none

wire_target() { rig_wire_serve; }

# netem_phase WHAT NETEM... - 15 s of verified load with the host's end
# of the wire under "tc qdisc ... netem NETEM" (none: a clean wire)
netem_phase() {
	local what=$1 iops n
	shift
	if [ "$1" != none ]; then
		rig_must "netem $*" $TC qdisc replace dev "$RIG_WIRE_NIC" root netem "$@"
	fi
	n=$(rig_reconnects)
	rig_check "fio verified every block, $what" rig_fio_load "$(rig_nvme_ns)" 15
	iops=$(sed -n 's/.*write: IOPS=\([^,]*\),.*/\1/p' /tmp/load.out | head -1)
	$TC qdisc del dev "$RIG_WIRE_NIC" root 2> /dev/null
	rig_check "controller live after $what" \
		rig_wait 60 rig_ctrl_live
	rig_figure "$what: $iops IOPS, $(( $(rig_reconnects) - n )) reconnects"
}

wire_host() {
	rig_load_host
	rig_must "connect to the target guest" rig_wire_connect ",keep_alive_tmo=5,reconnect_delay=1,ctrl_loss_tmo=120"
	netem_phase "a clean wire" none
	netem_phase "1 % lost" loss 1%
	netem_phase "5 % lost" loss 5%
	netem_phase "5 ms delay" delay 5ms
	netem_phase "1 % duplicated" duplicate 1%
	netem_phase "a quarter reordered" delay 5ms reorder 25% 50%
	rig_check "disconnect" rig_disconnect
}
