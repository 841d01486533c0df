# SPDX-License-Identifier: GPL-2.0
# many-hosts: 16 hosts (each its own host NQN and host ID, one read and one
# write I/O queue) connected to one port of the target, all live; the
# subsystem unlinked from the port under them (every controller leaves
# live) and linked again: all 16 come back by themselves (the time until
# the last is live printed); verified I/O through the namespace they share
# (native multipath: 16 paths); all 16 disconnect. The small version of
# make bench-scale's many hosts and storm, in make check. On the debug
# kernel (one vCPU, ten times slower) the 16 reconnects' I/O queue setup
# takes longer than the 5 s keep-alive timeout: it comes back because our
# host sends keep-alives from the admin queue on (nvme-core 6.1 starts them
# only after the last I/O queue; without ours, the target ends every new
# controller before its I/O queues connect, "Connect Invalid Data
# Parameter, cntlid: N", and the host starts again, for good).
# covers: 16 hosts on one port and their reconnect storm
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe timeout=600 fast=oldest:ours/ours:rxe

N=16
rig_serve_ram 64
port=$NVMET_CFS/ports/1

live() { cat /sys/class/nvme/nvme*/state 2> /dev/null | grep -c '^live$'; }
all_live() { [ "$(live)" = $N ]; }
none_live() { [ "$(live)" = 0 ]; }

t0=$(rig_t)
for i in $(seq $N); do
	rig_connect_host "$i" "$RIG_IP4" ",nr_io_queues=1,nr_write_queues=1,reconnect_delay=1,ctrl_loss_tmo=120" ||
		break
done
rig_figure "$(live) hosts connected one after the other in $(rig_since "$t0") s"
rig_must "$N controllers live" all_live
rig_check "each with two I/O queues" \
	sh -c "[ \$(cat /sys/class/nvme/nvme*/queue_count | grep -cx 3) = $N ]"

rig_check "port unlinked under $N hosts" rm "$port/subsystems/$RIG_NQN"
rig_check "no controller live with the port gone" rig_wait 60 none_live
rig_check "port linked again" ln -s "$NVMET_CFS/subsystems/$RIG_NQN" "$port/subsystems/$RIG_NQN"
t0=$(rig_t)
rig_check "all $N back by themselves" rig_wait 120 all_live
rig_figure "$(live) of $N live $(rig_since "$t0") s after the port came back"

rig_check "namespace there" rig_wait 30 rig_has_ns
rig_check "verified I/O through the $N paths' namespace" \
	rig_fio_verify "$(rig_nvme_ns)" randrw 16k 8 1 2M
rig_check "disconnect all $N" rig_disconnect
rig_check "no controller left" rig_wait 60 rig_no_controllers
