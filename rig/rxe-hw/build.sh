#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh - build rxe-hw (rdma_rxe_hw.ko) for one rig kernel, and on a
# kernel with KUnit its tests (rxe_hw_test.ko); print their directory.
#
# Usage: rig/rxe-hw/build.sh KVER KDIR
#
# rxe-hw is the kernel's own soft-RoCE (drivers/infiniband/sw/rxe, taken
# from the linux-source package of KDIR's series, the very version KDIR was
# built from) with rxe_hw.c added and hooks-SERIES.patch applied: send-queue
# slots retire as on a hardware RNIC (see rxe_hw.c). A test device for the
# rig's guests, never installed. Cached under $NVMEOF_CACHE/rxe-hw by kernel
# and by the content of this directory. A series whose rxe takes another's
# hooks as they are has a link to them (7.3: 7.2's). What rxe_hw.c needs of
# the kernel beyond rxe and differs between kernels is probed in the kernel
# source (below: -D flags, never a version) for rxe_hw_compat.h.
#
# A kernel of the Debian 13 root (scripts/debian13-root.sh) is built in
# there, as the Makefile builds our modules for it: this script runs again
# inside, where KDIR is, with the root's compiler and from the root's
# linux-source, and caches in the root's cache; printed is the directory
# as seen from here.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

kver=$1 kdir=$2
if in_debian13_root "$kver"; then
	root=$("$NVMEOF_ROOT/scripts/debian13-root.sh" path)
	out=$("$NVMEOF_ROOT/scripts/debian13-root.sh" run \
		"$NVMEOF_ROOT/rig/rxe-hw/build.sh" "$kver" "$kdir")
	printf '%s%s\n' "$root" "$out"
	exit 0
fi
here=$NVMEOF_ROOT/rig/rxe-hw
version=$(kernel_version "$kdir")
[ -n "$version" ] || die "cannot read the kernel version of $kdir"
series=$(source_series "$version")
patch=$here/hooks-$series.patch
[ -e "$patch" ] || die "rxe-hw has no hooks for kernel series $series ($patch)"

key=$( (cat "$here"/*; ls -l --time-style=+%s "$kdir/Module.symvers") |
	sha256sum | cut -c1-12)
out=$NVMEOF_CACHE/rxe-hw/$kver-$key
# one build per kernel at a time: two rigs running at once (two clones)
# would build into the same directory, and each removes the other's
mkdir -p "$NVMEOF_CACHE/rxe-hw"
exec 9> "$NVMEOF_CACHE/rxe-hw/$kver.lock"
flock 9
if [ ! -e "$out/rdma_rxe_hw.ko" ]; then
	ksrc=$(source_tree "$series")
	have=$(kernel_version "$ksrc")
	[ "$have" = "$version" ] ||
		die "rxe-hw: kernel source $ksrc is $have but $kdir is $version"
	log "building rxe-hw for $kver"
	# earlier builds for this kernel (other sources here) are stale
	rm -rf "$NVMEOF_CACHE/rxe-hw/$kver"-*/
	mkdir -p "$out"
	cp "$ksrc"/drivers/infiniband/sw/rxe/* "$out/"
	cp "$here/rxe_hw.c" "$here/rxe_hw.h" "$here/rxe_hw_compat.h" \
		"$here/rxe_hw_test.c" "$out/"
	# VT-d's page table layout: rxe-hw checks an entry's access bits
	cp "$ksrc/drivers/iommu/intel/iommu.h" "$out/intel_iommu.h"
	patch -s -p1 -d "$out" < "$patch" ||
		die "rxe-hw: $patch does not apply to $ksrc"
	printf 'ifdef CONFIG_KUNIT\nobj-m += rxe_hw_test.o\nendif\n' >> "$out/Makefile"
	# the kernel's interfaces that differ (rxe_hw_compat.h), by feature
	flags=
	grep -Eq 'void hrtimer_setup\(' "$ksrc/include/linux/hrtimer.h" &&
		flags+=" -DRXE_HW_HAVE_HRTIMER_SETUP"
	grep -Eq 'struct pt_iommu_vtdss[[:space:]]+sspt;' "$out/intel_iommu.h" &&
		flags+=" -DRXE_HW_VTD_GENERIC_PT"
	grep -q 'attr |= DMA_FL_PTE_PRESENT;' "$ksrc/drivers/iommu/intel/iommu.c" &&
		flags+=" -DRXE_HW_VTD_READ_ALWAYS"
	[ -z "$flags" ] || printf 'ccflags-y +=%s\n' "$flags" >> "$out/Makefile"
	make -s -C "$kdir" M="$out" -j"$(nproc)" modules >&2 ||
		die "rxe-hw: the build failed"
fi
printf '%s\n' "$out"
