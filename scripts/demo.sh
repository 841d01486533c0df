#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - `make demo`: build our modules for Debian's kernel, boot it in a
# QEMU guest with soft-RoCE, export a namespace through our nvmet-rdma,
# connect through our nvme-rdma with `nvme connect -t rdma`, run fio with
# crc32c verification, and say what happened.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$NVMEOF_ROOT/rig/kernels.sh"
. "$NVMEOF_ROOT/rig/verdict.sh"

"$NVMEOF_ROOT/scripts/install-deps.sh" || die "dependency installation failed"
rig_kernel stock || exit 1
echo "== building nvme-rdma.ko and nvmet-rdma.ko for $KVER"
img=$("$NVMEOF_ROOT/rig/image.sh" stock) || die "build failed"
log=$NVMEOF_ROOT/build/rig/$KVER/demo.log
echo "== booting $VMLINUZ in QEMU (TCG, no KVM on this machine); this takes about a minute"
"$NVMEOF_ROOT/rig/run-guest.sh" "$VMLINUZ" "$img" "$log" 600 \
	"rig.job=demo rig.host=ours rig.target=ours rig.rdma=rxe"
tr -d '\r' < "$log" | sed -n 's/^DEMO //p'
verdict=$(rig_verdict "$log")
if [ "$verdict" = PASS ]; then
	echo "== PASS: verified fio through our host and target modules, clean kernel log (full log: $log)"
else
	echo "== FAIL: ${verdict#FAIL } (full log: $log)"
	exit 1
fi
