#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# layout-guard: private headers laid out otherwise than the kernel's own (a
# source tree whose struct nvme_ctrl has one member more, as a vendor patch
# or another Debian revision would) build modules that read the wrong
# fields; the build must refuse them, naming the struct, and leave no
# module behind (scripts/layout-guard.sh). Control: the same build from the
# kernel's own headers passes.
#
# Usage: tests/host/layout-guard.sh KVER    prints RESULT PASS|FAIL <why>
# covers: private headers of another source: the build refuses, naming the struct
# rig: fast=oldest
set -uo pipefail
kver=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src=$(source_tree "$(source_series "$(kernel_version "/lib/modules/$kver/build")")") ||
	{ echo "RESULT FAIL no source tree for $kver"; exit 0; }

# fake_tree DIR - a source tree for KSRC: the kernel's own (its Makefile,
# which tells its version, and the private headers), the rest linked
fake_tree() {
	mkdir -p "$1/drivers/nvme/host" "$1/drivers/nvme/target"
	cp "$src/Makefile" "$1/"
	ln -s "$src/scripts" "$1/scripts"
	ln -s "$src/arch" "$1/arch"
	cp "$src"/drivers/nvme/host/{nvme,fabrics}.h "$1/drivers/nvme/host/"
	cp "$src/drivers/nvme/target/nvmet.h" "$1/drivers/nvme/target/"
}

# build KSRC OUT - our modules for kver from KSRC's headers into OUT
build() {
	make -C "$root" NVMEOF_NO_DEPS=1 W= C= KVER="$kver" KSRC="$1" BUILD="$2" \
		modules > "$2.log" 2>&1
}

fake_tree "$tmp/same"
fake_tree "$tmp/other"
# one member more at the front of struct nvme_ctrl: every member after it moves
sed -i '0,/^\tbool comp_seen;$/s//\tbool comp_seen;\n\tint vendor_field;/' \
	"$tmp/other/drivers/nvme/host/nvme.h"
grep -q 'vendor_field' "$tmp/other/drivers/nvme/host/nvme.h" ||
	{ echo "RESULT FAIL could not make the mismatched header (struct nvme_ctrl has no comp_seen?)"; exit 0; }

if ! build "$tmp/same" "$tmp/b-same"; then
	echo "RESULT FAIL control: the build from the kernel's own headers failed: $(grep -m3 -iE 'error|layout guard' "$tmp/b-same.log" | tr '\n' ' ')"
elif [ ! -e "$tmp/b-same/host/nvme-rdma.ko" ]; then
	echo "RESULT FAIL control: the build from the kernel's own headers left no nvme-rdma.ko"
elif build "$tmp/other" "$tmp/b-other"; then
	echo "RESULT FAIL a build from headers with a member more in struct nvme_ctrl passed"
elif ! grep -q 'layout guard: struct nvme_ctrl differs' "$tmp/b-other.log"; then
	echo "RESULT FAIL the refused build does not name struct nvme_ctrl: $(grep -m3 -iE 'error|layout guard' "$tmp/b-other.log" | tr '\n' ' ')"
elif [ -e "$tmp/b-other/host/nvme-rdma.ko" ] || [ -e "$tmp/b-other/target/nvmet-rdma.ko" ]; then
	echo "RESULT FAIL the refused build left a module behind"
else
	echo "RESULT PASS $(grep -m1 'struct nvme_ctrl differs' "$tmp/b-other.log" | cut -c1-200)"
fi
