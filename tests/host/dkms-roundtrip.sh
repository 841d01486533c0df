#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-roundtrip: the way users install. `make dkms-install` must build both
# modules for KVER and make modprobe resolve nvme-rdma and the nvmet RDMA
# transport alias (nvmet-transport-1) to them in updates/dkms/, with our
# version and description; `make dkms-remove` must bring the in-tree modules
# back. Runs on the build machine (no module is loaded: only modprobe's
# resolution is checked, with -S KVER).
#
# Usage: tests/host/dkms-roundtrip.sh KVER    prints RESULT PASS|FAIL <why>
# covers: dkms install and remove; modprobe resolves to ours, then stock
# changes-system: tests/run keeps guests with this root away meanwhile
# rig: changes-system fast=oldest
set -uo pipefail
kver=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

resolve() { /sbin/modprobe -S "$kver" --show-depends "$1" 2>/dev/null | tail -1 | awk '{ print $2 }'; }
fail() { echo "RESULT FAIL $*"; make -s NVMEOF_NO_DEPS=1 dkms-remove > /dev/null 2>&1; exit 0; }

# The round trip cannot run beside an install of the user's (it would
# remove it): that is a failure to test, not a pass, so it is said as one.
if dkms status nvmeof-rdma 2>/dev/null | grep -q .; then
	echo "RESULT FAIL not tested: nvmeof-rdma is already registered with DKMS here ($(dkms status nvmeof-rdma | head -1)); 'make dkms-remove' first"
	exit 0
fi
# the version of the tree DKMS is given now (make check runs this beside
# the guests: the tree may change before the check below)
want=$(scripts/version.sh)
make -s NVMEOF_NO_DEPS=1 KVER="$kver" dkms-install > /tmp/dkms-roundtrip.log 2>&1 ||
	fail "make dkms-install failed (log: /tmp/dkms-roundtrip.log)"
for m in nvme-rdma nvmet-transport-1; do
	p=$(resolve "$m")
	case $p in
	*/updates/dkms/*) ;;
	*) fail "after dkms install, modprobe $m resolves to '$p', not updates/dkms/" ;;
	esac
	modinfo -F description "$p" | grep -q '^nvmeof-rdma ' ||
		fail "$p does not describe itself as nvmeof-rdma"
	[ "$(modinfo -F version "$p")" = "$want" ] ||
		fail "$p has version '$(modinfo -F version "$p")', expected $want"
done
make -s NVMEOF_NO_DEPS=1 dkms-remove >> /tmp/dkms-roundtrip.log 2>&1 ||
	fail "make dkms-remove failed (log: /tmp/dkms-roundtrip.log)"
for m in nvme-rdma nvmet-transport-1; do
	p=$(resolve "$m")
	case $p in
	*/kernel/drivers/nvme/*) ;;
	*) fail "after dkms remove, modprobe $m resolves to '$p', not the in-tree module" ;;
	esac
done
echo "RESULT PASS"
