# SPDX-License-Identifier: GPL-2.0
# hostile-host: a misbehaving host (tests/tools/hostile-host.c) sends our
# target one bad thing per connection: connect private data that is missing,
# short (only iWARP can tell: IB/RoCE pad it), of an unknown format, or asks
# for queues deeper than the target offers; a Connect capsule shorter than
# its in-capsule SGL says; an in-capsule offset that wraps past 2^64; a
# keyed SGL longer than the MDTS the target advertises; one command id used
# by four commands at once; 40 commands on a queue of 32. Each
# must get the exact RDMA CM reject status or NVMe status, with a log line
# saying why (the reused id: four answers carrying it; the flood: every
# command answered, or on iWARP possibly the connection ended); a
# well-formed capsule from the same tool must be parsed (so a broken tool
# cannot pass); and afterwards a well-behaved host still gets verified I/O
# and everything unloads.
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe,siw timeout=240

rig_setup_rdma
rig_load_target
rig_load_host
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"
rig_must "export $dev on $RIG_IP4:4420" rig_export "$dev"

for c in connect-io cm-none cm-short cm-recfmt cm-admin-deep cm-io-deep \
	cm-hrqsize-0 capsule-short capsule-wrap keyed-connect keyed-over-mdts \
	cid-reuse over-depth connect-io; do
	rig_check "hostile host: $c" /rig/bin/hostile-host $RIG_IP4 4420 $RIG_NQN $c
done
rig_check "target said why it rejected a connect" \
	sh -c 'dmesg | grep -q "nvmet_rdma: rejecting connect request from .*: invalid host SQ size (4)"'
rig_check "target said why it failed a short capsule" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: in-capsule data offset 0 length 1024 outside the 512 bytes received"'
rig_check "target said why it refused a 2 MiB keyed SGL" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 2097152 bytes for a command of 0 (most 1048576): rejected"'

ns=$(rig_connect)
rig_must "a well-behaved host connects" test -b "$ns"
rig_check "verified I/O after the hostile host" rig_fio_verify "$ns" randwrite 4k 8 1 2M
rig_check "nvme disconnect" rig_disconnect
rig_check "namespace gone" rig_wait 10 eval '! rig_has_ns'
rig_check "unexport" rig_unexport
rig_unload nvme-rdma nvmet-rdma
