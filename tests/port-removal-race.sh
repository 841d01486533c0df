# SPDX-License-Identifier: GPL-2.0
# port-removal-race: the RDMA device and the port that listens on it removed
# at nearly the same moment, 11 times, the port from 0 to 2 s after the
# device (issue 18 item 7). The listener's DEVICE_REMOVAL handler takes the
# listener from the port and queues the port's repair; remove_port must
# either destroy the listener itself (waiting for that handler) or find it
# taken and free the port only once the handler is done with it. A port
# freed under the handler is a use-after-free (KASAN, the splat scan), a
# repair left queued on it too. Then the port serves again: a connect and
# verified I/O. On a one-vCPU guest the two only interleave where the
# scheduler switches between them, so a pass says less than a failure
# would.
# covers: the RDMA device and the port removed at the same moment
# rig: pairs=ours/ours kernels=debug rdma=rxe-hw timeout=300 fast=debug:ours/ours:rxe-hw

rig_serve_ram 16
port=$NVMET_CFS/ports/1
sub=$NVMET_CFS/subsystems/$RIG_NQN

# race DELAY - remove the device, and the port (its last subsystem link)
# DELAY seconds later; then bring both back
race() {
	rdma link delete $RIG_RDMA_DEV &
	sleep "$1"
	rm -f "$port/subsystems/$RIG_NQN"
	wait
	[ ! -e "$port/subsystems/$RIG_NQN" ] &&
		! rdma link show $RIG_RDMA_DEV/1 > /dev/null 2>&1 &&
		rdma link add $RIG_RDMA_DEV type $RIG_RDMA_TYPE netdev d0 &&
		ln -s "$sub" "$port/subsystems/$RIG_NQN"
}

# races - the port removed from at once to 2 s after the device: early,
# remove_port takes the listener; late, the DEVICE_REMOVAL handler has; in
# between (0.2 to 0.6 s on the debug kernel), the two meet. With a sleep of
# 1 s widening the handler's window, the code before b36a0d4 failed this
# with a use-after-free (KASAN) on the port remove_port had freed.
races() {
	local d
	for d in $DELAYS; do
		race "$d" || { rig_log "port removed $d s after the device"; return 1; }
	done
}
DELAYS="0 0.1 0.2 0.3 0.4 0.5 0.6 0.8 1 1.2 2"
rounds=$(echo $DELAYS | wc -w)
rig_check "device and port removed together, $rounds times" races
n=$(dmesg | grep -c "RDMA device $RIG_RDMA_DEV removed, listening again")
rig_log "the listener's DEVICE_REMOVAL handler took it $n times of $rounds"
rig_check "the handler took the listener in some rounds, remove_port in others" \
	test "$n" -gt 0 -a "$n" -lt "$rounds"
ns=$(rig_connect $RIG_IP4 4420)
rig_check "the port serves again: connect" test -b "$ns"
rig_check "the port serves again: verified I/O" rig_fio_verify "$ns" randrw 4k 8 1 1M
rig_check "disconnect" rig_disconnect
rig_check "unexport" rig_unexport
