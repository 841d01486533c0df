# SPDX-License-Identifier: GPL-2.0
# demo: what `make demo` shows. Our target exports a RAM disk, our host
# connects with `nvme connect -t rdma` over soft-RoCE, fio writes and reads it
# back with crc32c verification.

say() { echo "DEMO $*"; }

rig_setup_rdma rxe
say "soft-RoCE device $RIG_RDMA_DEV on netdev d0 (MTU 9000), target address $RIG_IP4"
rig_load_target ours
say "target: $(cat /sys/module/nvmet_rdma/version 2>/dev/null | sed 's/^/nvmet-rdma /') loaded from updates/ (our module)"
rig_load_host ours
say "host:   $(cat /sys/module/nvme_rdma/version 2>/dev/null | sed 's/^/nvme-rdma /') loaded from updates/ (our module)"
dev=$(rig_backing ram 256)
rig_must "export" rig_export "$dev"
say "nvmet (configfs): subsystem $RIG_NQN, namespace 1 = $dev, port 1 addr_trtype=rdma $RIG_IP4:4420"
say "\$ nvme connect -t rdma -a $RIG_IP4 -s 4420 -n $RIG_NQN"
ns=$(rig_connect)
rig_must "connect" test -b "$ns"
say "connected: $ns"
nvme list 2>/dev/null | sed 's/^/DEMO   /'
say "\$ fio --rw=randrw --bs=4k --iodepth=16 --size=64M --verify=crc32c --filename=$ns"
fio --name=demo --filename="$ns" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
	--iodepth=16 --size=64M --verify=crc32c --do_verify=1 --verify_fatal=1 \
	> /tmp/demo-fio.out 2>&1
rc=$?
sed 's/^/DEMO   /' /tmp/demo-fio.out | grep -E 'read:|write:|lat \(usec\)|err=|verify|Run status|READ:|WRITE:' | head -20
rig_must "fio verified" test $rc -eq 0
rig_check "disconnect" rig_disconnect
rig_check "unexport" rig_unexport
rig_unload nvme-rdma nvmet-rdma
