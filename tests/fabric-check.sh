# SPDX-License-Identifier: GPL-2.0
# fabric-check: `nvmeof-rdma check` on a good setup and on deliberately
# wrong ones, its findings and exit status checked: all well (0) with our
# modules, soft-RoCE up and a target listening; an error (2) with nothing
# listening on the port, with the RDMA port down (its netdev down), with no
# route to the address, with no RDMA device on the netdev the route goes
# out of; a warning (1) with the kernel's own nvme-rdma loaded though ours
# is installed, and with an MTU that leaves RoCE less than 1024 bytes. The
# path MTU across a wire needs two guests: not here.
# covers: nvmeof-rdma check: its findings and exit status
# rig: pairs=ours/ours kernels=stock rdma=rxe timeout=180 fast=oldest:ours/ours:rxe

rig_serve_ram 64

# checked EXIT WHAT ARGS... - nvmeof-rdma check ARGS exits EXIT; its report
# in /tmp/check.out, logged
checked() {
	local want=$1 what=$2 rc
	shift 2
	nvmeof-rdma check "$@" > /tmp/check.out 2>&1
	rc=$?
	sed 's/^/RIG-LOG check: /' /tmp/check.out
	rig_check "$what: exit $want (is $rc)" test $rc = "$want"
}
# says REGEX - the last report has a line matching REGEX
says() { rig_check "says: $1" grep -qE -- "$1" /tmp/check.out; }

checked 0 "a good setup" $RIG_IP4
says "^OK +nvme-rdma loaded: nvmeof-rdma "
says "^OK +nvmet-rdma loaded: nvmeof-rdma "
says "^OK +rxe0 port 1: ACTIVE, Ethernet, netdev d0$"
says "^OK +rxe0 port 1: [0-9]+ RoCE v2 GIDs for d0 \\($RIG_IP4/24"
says "^OK +d0's MTU 9000 gives RoCE packets of 4096 bytes"
says "^NOTE +d0 is a virtual netdev"
says "^OK +$RIG_IP4 is reached through rxe0/1"
says "^OK +NVMe/RDMA discovery at $RIG_IP4:4420 answered \\([1-9][0-9]* discovery log records\\)"
says "^all well$"
rig_check "the discovery left no controller" rig_wait 10 rig_no_controllers

checked 2 "nothing listens on the port" $RIG_IP4 4421
says "^ERROR +NVMe/RDMA discovery at $RIG_IP4:4421 failed: the connection was refused"
says "fix: on the target: a port with addr_trtype rdma, addr_traddr $RIG_IP4 and addr_trsvcid 4421"

checked 64 "a usage error" $RIG_IP4 4420 extra

rig_must "d0 down" $IP link set d0 down
rig_check "rxe0's port goes down with it" \
	rig_wait 10 grep -q DOWN /sys/class/infiniband/rxe0/ports/1/state
checked 2 "the RDMA port down"
says "^ERROR +rxe0 port 1 is DOWN .*: its netdev d0 is down"
says "fix: ip link set d0 up"
rig_must "d0 up" $IP link set d0 up
rig_check "rxe0's port active again" \
	rig_wait 10 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state

rig_must "no default route here" sh -c "! $IP route get 10.99.0.1"
checked 2 "no route" 10.99.0.1
says "^ERROR +no route to 10.99.0.1"

rig_must "a netdev without RDMA" sh -c "$IP link add d1 type dummy &&
	$IP link set d1 up && $IP addr add 10.79.0.1/24 dev d1"
checked 2 "no RDMA device on the route's netdev" 10.79.0.2
says "^OK +route to 10.79.0.2: out of d1"
says "^ERROR +no RDMA device on d1"
says "fix: .*rdma link add rxe_d1 type rxe netdev d1"
$IP link del d1

rig_must "d0's MTU 1000" $IP link set d0 mtu 1000
checked 1 "an MTU too small for RoCE"
says "^WARN +d0's MTU 1000 leaves RoCE less than 1024 bytes"
rig_must "d0's MTU back to 9000" $IP link set d0 mtu 9000

rig_unload nvme-rdma
rig_load_host stock
checked 1 "the kernel's own nvme-rdma loaded"
says "^WARN +nvme-rdma loaded is the kernel's own, though nvmeof-rdma's is installed"
says "fix: modprobe -r nvme-rdma && modprobe nvme-rdma"
rig_unload nvme-rdma

rig_check "unexport" rig_unexport
