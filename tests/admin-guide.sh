# SPDX-License-Identifier: GPL-2.0
# admin-guide: Documentation/admin.md's complete example, run verbatim: the
# block after its "admin-guide:" marker, with sh -e (the first command that
# fails stops it), on soft-RoCE with the guide's address on d0. The example
# must export, check the fabric (all well), discover, connect (the
# namespace appears, our modules loaded), show the statistics, disconnect
# and take everything down, leaving no controller, port or subsystem.
# Stock kernels only: the guide uses `nvme disconnect`, whose lockdep report
# (nvme-core's, see rig_disconnect) the debug kernel would fail.
# covers: admin.md's complete example, run verbatim in the guest
# rig: pairs=ours/ours kernels=stock rdma=rxe timeout=180 fast=oldest:ours/ours:rxe

rig_setup_rdma
guide=/rig/doc/admin.md
rig_must "the guide is here" test -f $guide
awk '/<!-- admin-guide:/ { marked = 1; next }
	marked && /^```sh$/ { inside = 1; next }
	inside && /^```$/ { exit }
	inside { print }' $guide > /tmp/guide.sh
rig_must "the guide's example has its commands" \
	test "$(grep -c '^nvme connect -t rdma' /tmp/guide.sh)" = 1
sed 's/^/RIG-LOG guide: /' /tmp/guide.sh
sh -e -x /tmp/guide.sh > /tmp/guide.out 2>&1
rc=$?
sed 's/^/RIG-LOG guide output: /' /tmp/guide.out
rig_check "the example ran to its end (sh -e: exit $rc)" test $rc = 0
rig_check "nvmeof-rdma check: all well" grep -qx 'all well' /tmp/guide.out
rig_check "nvmeof-rdma check: our host and target modules" \
	sh -c "grep -q '^OK  *nvme-rdma loaded: nvmeof-rdma' /tmp/guide.out &&
		grep -q '^OK  *nvmet-rdma loaded: nvmeof-rdma' /tmp/guide.out"
rig_check "nvme discover found the subsystem" \
	grep -q '^subnqn: *nqn.2026-12.io.example:disk1' /tmp/guide.out
rig_check "nvme list showed the namespace" \
	grep -qE '^/dev/nvme[0-9]+n1 .* Linux' /tmp/guide.out
rig_check "nvmeof-rdma stat showed the I/O queue" \
	grep -qE '^  queue 1 ' /tmp/guide.out
rig_check "no controller left" rig_wait 10 rig_no_controllers
rig_check "no port or subsystem left" \
	sh -c "test -z \"\$(ls $NVMET_CFS/ports)\$(ls $NVMET_CFS/subsystems)\""
# as the guide's upgrade section reloads them
rig_check "modprobe -r nvme-rdma" $MODPROBE -r nvme-rdma
rig_check "modprobe -r nvmet-rdma" $MODPROBE -r nvmet-rdma
