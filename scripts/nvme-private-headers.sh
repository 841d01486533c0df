#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvme-private-headers.sh - copy the private nvme-core/nvmet headers our
# modules compile against out of the kernel source that matches KDIR.
#
# Usage: scripts/nvme-private-headers.sh KDIR OUTDIR [KSRC]
#
# The headers (drivers/nvme/host/nvme.h, fabrics.h, drivers/nvme/target/
# nvmet.h) are not shipped by Debian's headers packages, and the struct
# layouts in them must match the running nvme-core/nvmet exactly: a mismatch
# is silent memory corruption that MODVERSIONS does not catch. So the source
# must be the very version KDIR was built from; anything else stops the build.
# They are copied into OUTDIR (in the build directory), never into the
# repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$1 out=$2 ksrc=${3:-}
HEADERS="drivers/nvme/host/nvme.h drivers/nvme/host/fabrics.h drivers/nvme/target/nvmet.h"

want=$(kernel_version "$kdir")
[ -n "$want" ] || die "cannot read the kernel version of $kdir (is it a kernel build directory?)"
series=$(source_series "$want")
if [ -z "$ksrc" ]; then
	# Debian ships some kernels (trixie-backports' 7.0 and 7.1) with
	# images and headers but no linux-source package at all
	if [ ! -e "/usr/src/linux-source-$series.tar.xz" ] &&
	   command -v apt-cache > /dev/null &&
	   [ -z "$(apt-cache show "linux-source-$series" 2> /dev/null)" ]; then
		die "kernel $want needs its source for the private nvme headers, and Debian has no linux-source-$series package for it (some kernels come with images and headers only). Pass KSRC=<a tree of exactly $want> (e.g. kernel.org's linux-$want.tar.xz, which the layout guard then checks against the kernel's BTF), or use a kernel that has one (trixie-backports: 7.2, 7.3)"
	fi
	ksrc=$(source_tree "$series") ||
		die "kernel $want needs its source for the private nvme headers: apt-get install linux-source-$series (or pass KSRC=<tree>)"
fi
have=$(kernel_version "$ksrc")
if [ "$have" != "$want" ]; then
	die "kernel source $ksrc is $have but $kdir is $want: install the matching linux-source-$series package (apt-get install linux-source-$series) or pass KSRC=<a $want tree>"
fi

mkdir -p "$out"
for h in $HEADERS; do
	[ -e "$ksrc/$h" ] || die "$ksrc has no $h"
	mkdir -p "$out/$(dirname "${h#drivers/nvme/}")"
	cp -p "$ksrc/$h" "$out/${h#drivers/nvme/}"
done
printf '%s\n' "$have" > "$out/version"
