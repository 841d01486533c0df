#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# image.sh - build our modules for one rig kernel and the guest image that
# carries them. Prints the image path.
#
# Usage: rig/image.sh stock [KVER] | debug
# The base layer (tools + kernel modules) is cached per kernel and per
# mkinitramfs.sh; the overlay (our modules, /init, scenarios) is rebuilt each
# time because it is small.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$NVMEOF_ROOT/rig/kernels.sh"

name=$1
rig_kernel "$name" "${2:-}"
out=$NVMEOF_ROOT/build/rig/$KVER
mkdir -p "$out"

kunit=()
if [ "$name" = debug ]; then
	make -s -j"$(nproc)" -C "$NVMEOF_ROOT" NVMEOF_NO_DEPS=1 KVER="$KVER" KDIR="$KDIR" kunit-modules >&2
	mapfile -t kunit < <(ls "$NVMEOF_ROOT/build/$KVER"/kunit/*.ko 2>/dev/null)
else
	make -s -j"$(nproc)" -C "$NVMEOF_ROOT" NVMEOF_NO_DEPS=1 KVER="$KVER" KDIR="$KDIR" modules >&2
fi

# the rig's RNIC-faithful soft-RoCE (rdma=rxe-hw scenarios), and its tests
# (a kernel of the Debian 13 root's is built in there: rig/rxe-hw/build.sh)
rxe_hw=$("$NVMEOF_ROOT/rig/rxe-hw/build.sh" "$KVER" "$KDIR")

key=$( (cat "$NVMEOF_ROOT/rig/mkinitramfs.sh"; ls -l --time-style=+%s "$VMLINUZ") | sha256sum | cut -c1-12)
base=$NVMEOF_CACHE/initramfs/$KVER-$key.cpio
# one maker at a time, and no one removing a base another is reading: two
# rigs at once (two clones of the tree) share the cache
mkdir -p "$(dirname "$base")"
exec 8> "$NVMEOF_CACHE/initramfs/$KVER.lock"
flock 8
if [ ! -e "$base" ]; then
	log "building the guest base image for $KVER"
	# earlier bases of this kernel (another mkinitramfs.sh) are stale
	rm -rf "$NVMEOF_CACHE/initramfs/$KVER"-*
	"$NVMEOF_ROOT/rig/mkinitramfs.sh" base "$KVER" "$MODROOT" "$base"
fi
"$NVMEOF_ROOT/rig/mkinitramfs.sh" overlay "$KVER" "$base.stage" "$out/overlay.cpio" \
	"$NVMEOF_ROOT/build/$KVER/host/nvme-rdma.ko" "$NVMEOF_ROOT/build/$KVER/target/nvmet-rdma.ko" \
	"$rxe_hw" "${kunit[@]}"
cat "$base" "$out/overlay.cpio" > "$out/guest.img"
flock -u 8
printf '%s\n' "$out/guest.img"
