#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dropin-modinfo: our modules are drop-in replacements. Same module names,
# every module parameter stock has (so existing modprobe.d options keep
# working), the nvmet transport alias that port enable autoloads, and our
# own version and description so that users can tell them apart.
#
# Usage: tests/host/dropin-modinfo.sh KVER    prints RESULT PASS|FAIL <why>
# covers: drop-in: names, stock's parameters and aliases, our version
# rig: fast=oldest
set -uo pipefail
kver=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/$kver
stock=/lib/modules/$kver/kernel/drivers/nvme

check() {	# check OURS STOCK
	local ours=$1 stock=$2 p
	[ -e "$ours" ] || { echo "RESULT FAIL $ours was not built"; exit 0; }
	[ "$(modinfo -F name "$ours")" = "$(modinfo -F name "$stock")" ] ||
		{ echo "RESULT FAIL $(basename "$ours"): module name differs from stock"; exit 0; }
	for p in $(modinfo -p "$stock" | cut -d: -f1); do
		modinfo -p "$ours" | grep -q "^$p:" ||
			{ echo "RESULT FAIL $(basename "$ours") lacks stock parameter $p"; exit 0; }
	done
	for p in $(modinfo -F alias "$stock"); do
		modinfo -F alias "$ours" | grep -qx "$p" ||
			{ echo "RESULT FAIL $(basename "$ours") lacks stock alias $p"; exit 0; }
	done
	modinfo -F description "$ours" | grep -q '^nvmeof-rdma ' ||
		{ echo "RESULT FAIL $(basename "$ours"): description does not name nvmeof-rdma"; exit 0; }
	[ "$(modinfo -F version "$ours")" = "$(cat "$build/version")" ] ||
		{ echo "RESULT FAIL $(basename "$ours"): MODULE_VERSION is not the version the build recorded"; exit 0; }
}
# Debian compresses its modules from 6.12 on (.ko.xz); modinfo reads both
check "$build/host/nvme-rdma.ko" "$(ls "$stock"/host/nvme-rdma.ko* | head -1)"
check "$build/target/nvmet-rdma.ko" "$(ls "$stock"/target/nvmet-rdma.ko* | head -1)"
echo "RESULT PASS"
