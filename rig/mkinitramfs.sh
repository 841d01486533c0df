#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh - the rig's guest root filesystem, in two layers.
#
#   rig/mkinitramfs.sh base KVER MODROOT OUT
#       busybox, nvme-cli, fio, iproute2, rdma-core, perftest, e2fsprogs and kmod copied
#       from this machine with their libraries, plus the kernel's own modules
#       that the scenarios need (from MODROOT/lib/modules/KVER). Cached by the
#       caller; takes a few seconds.
#   rig/mkinitramfs.sh overlay KVER BASE_STAGE OUT HOST_KO TARGET_KO RXE_HW_DIR [KUNIT_KO...]
#       our modules installed under /lib/modules/KVER/updates/ (as DKMS does),
#       the rig's rxe-hw under extra/ (its KUnit tests, if built, in
#       /rig/rxe-hw/), depmod re-run, plus /init, the guest library and the
#       scenarios.
#
# The kernel unpacks concatenated cpio archives in order, so the run image is
# simply `cat base.cpio overlay.cpio`.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

# Kernel modules the scenarios load, with dependencies resolved by modprobe.
GUEST_MODULES="nvme-rdma nvmet-rdma nvme-tcp nvmet-tcp rdma_rxe siw rdma_ucm ib_uverbs
	null_blk brd dummy crc32_pclmul crc32_generic crc32c_generic crc32c-intel
	nvme-loop nvme ipv6 configfs virtio_pci virtio_net sch_netem loop ext4
	9pnet_virtio 9p overlay"
BINARIES="/usr/sbin/nvme /usr/bin/fio /usr/sbin/ip /usr/bin/rdma /usr/bin/kmod
	/usr/bin/ib_read_lat /usr/bin/ib_write_lat /usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/rping
	/usr/bin/perf /usr/sbin/tc /usr/sbin/mke2fs /usr/sbin/e2fsck /usr/sbin/dcb"

copy_with_libs() {
	local stage=$1 f lib
	shift
	for f in "$@"; do
		[ -e "$f" ] || continue
		mkdir -p "$stage$(dirname "$f")"
		cp -L "$f" "$stage$f"
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
			[ -e "$stage$lib" ] && continue
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
	done
}

# Uncompressed: under TCG the guest kernel's inflate was most of its boot
# (20 of 24 s on the KASAN kernel, for a 50 MB gzip of 120 MB); copying the
# plain archive costs a fraction of that.
pack() {
	(cd "$1" && find . -print0 | cpio --null -o -H newc --quiet) > "$2"
}

build_base() {
	local kver=$1 modroot=$2 out=$3 stage m f
	stage=$out.stage
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,mnt,sys/kernel/config,run,var}
	cp /bin/busybox "$stage/bin/busybox"
	for a in $("$stage/bin/busybox" --list); do
		[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
	done
	copy_with_libs "$stage" $BINARIES
	# kmod: full modprobe (honours updates/ priority), unlike busybox's
	for a in modprobe insmod rmmod depmod modinfo lsmod; do
		ln -sf /usr/bin/kmod "$stage/sbin/$a"
	done
	ln -sf /usr/sbin/ip "$stage/sbin/ip.full"
	# userspace verbs for perftest: the rxe provider
	copy_with_libs "$stage" /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so \
		/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav*.so
	mkdir -p "$stage/etc/libibverbs.d"
	cp /etc/libibverbs.d/rxe.driver /etc/libibverbs.d/siw.driver "$stage/etc/libibverbs.d/" 2>/dev/null || true
	# fio loads its ioengines from shared objects on demand
	[ -d /usr/lib/x86_64-linux-gnu/fio ] && copy_with_libs "$stage" /usr/lib/x86_64-linux-gnu/fio/*.so
	echo 'root:x:0:0:root:/:/bin/sh' > "$stage/etc/passwd"

	local src=$modroot/lib/modules/$kver dst=$stage/lib/modules/$kver
	mkdir -p "$dst"
	for m in $GUEST_MODULES; do
		/sbin/modprobe -d "$modroot" -S "$kver" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }' || true	# not every kernel has every module (siw)

	done | sort -u | while read -r f; do
		mkdir -p "$stage$(dirname "${f#"$modroot"}")"
		cp "$f" "$stage${f#"$modroot"}"
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -e "$src/$f" ] && cp "$src/$f" "$dst/"
	done
	/sbin/depmod -b "$stage" "$kver"
	pack "$stage" "$out"
}

build_overlay() {
	local kver=$1 base=$2 out=$3 host_ko=$4 target_ko=$5 rxe_hw=$6 stage
	shift 6
	stage=$out.stage
	rm -rf "$stage"
	mkdir -p "$stage/lib/modules/$kver/updates" "$stage/lib/modules/$kver/extra" \
		"$stage/rig/kunit" "$stage/rig/rxe-hw"
	# depmod must see the whole tree, so work on a copy of the base's modules
	cp -a "$base/lib/modules/$kver/." "$stage/lib/modules/$kver/"
	cp "$host_ko" "$target_ko" "$stage/lib/modules/$kver/updates/"
	# no rxe-hw (an empty RXE_HW_DIR) for a kernel it is not built for
	[ -z "$rxe_hw" ] || cp "$rxe_hw/rdma_rxe_hw.ko" "$stage/lib/modules/$kver/extra/"
	[ ! -e "$rxe_hw/rxe_hw_test.ko" ] || cp "$rxe_hw/rxe_hw_test.ko" "$stage/rig/rxe-hw/"
	for f in "$@"; do cp "$f" "$stage/rig/kunit/"; done
	/sbin/depmod -b "$stage" "$kver"
	# only what changed goes into the overlay: updates/, extra/ and the indexes
	find "$stage/lib/modules/$kver" -mindepth 1 -maxdepth 1 ! -name 'updates' ! -name 'extra' \
		! -name 'modules.*' -exec rm -rf {} +
	# build IDs of both variants of each transport, so the guest can prove
	# which one is loaded (/sys/module/*/notes): Debian's in-tree modules have
	# no srcversion (CONFIG_MODULE_SRCVERSION_ALL is off)
	# (Debian compresses its modules from 6.12 on: .ko.xz)
	local ko
	for ko in "$stage/lib/modules/$kver/updates/"*.ko \
		"$base/lib/modules/$kver/kernel/drivers/nvme/host/nvme-rdma.ko"* \
		"$base/lib/modules/$kver/kernel/drivers/nvme/target/nvmet-rdma.ko"*; do
		case $ko in
		*.xz) xz -dc "$ko" > "$stage/elf.tmp" ;;
		*) cp "$ko" "$stage/elf.tmp" ;;
		esac
		printf '%s %s\n' "${ko#"$stage"}" \
			"$(readelf -n "$stage/elf.tmp" | sed -n 's/.*Build ID: //p')"
	done | sed "s|^$base||" > "$stage/rig/buildids"
	rm -f "$stage/elf.tmp"
	cp "$NVMEOF_ROOT/rig/guest/init" "$stage/init"
	chmod +x "$stage/init"
	cp "$NVMEOF_ROOT/rig/guest/lib.sh" "$NVMEOF_ROOT/rig/guest/demo.sh" \
		"$NVMEOF_ROOT/rig/guest/bench.sh" "$NVMEOF_ROOT/rig/guest/scale.sh" "$stage/rig/"
	mkdir -p "$stage/rig/tests" "$stage/rig/bin"
	cp "$NVMEOF_ROOT"/tests/*.sh "$stage/rig/tests/"
	mkdir -p "$stage/rig/faults"
	cp "$NVMEOF_ROOT"/tests/faults/*.sh "$stage/rig/faults/"
	# the tools, where the Debian package puts them
	mkdir -p "$stage/usr/sbin"
	cp "$NVMEOF_ROOT/tools/nvmeof-rdma" "$stage/usr/sbin/"
	# the admin and tuning guides, whose commands scenarios run
	mkdir -p "$stage/rig/doc"
	cp "$NVMEOF_ROOT/Documentation/admin.md" "$NVMEOF_ROOT/Documentation/tuning.md" "$stage/rig/doc/"
	# scenario helpers in C (a hostile host, ...); their libraries (rdma-core)
	# are in the base layer already, with perftest
	local src
	for src in "$NVMEOF_ROOT"/tests/tools/*.c; do
		[ -e "$src" ] || continue
		gcc -O2 -Wall -Wextra -Werror -o "$stage/rig/bin/$(basename "$src" .c)" \
			"$src" -lrdmacm -libverbs || die "cannot build $src"
	done
	pack "$stage" "$out"
	rm -rf "$stage"
}

case ${1:-} in
base) shift; build_base "$@" ;;
overlay) shift; build_overlay "$@" ;;
*) die "usage: $0 base KVER MODROOT OUT | overlay KVER BASE_STAGE OUT HOST_KO TARGET_KO [KUNIT_KO...]" ;;
esac
