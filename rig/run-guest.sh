#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh - boot one QEMU/TCG guest, run one job, save its console.
#
# Usage: rig/run-guest.sh KERNEL INITRD LOG TIMEOUT_S "KERNEL ARGS" [QEMU ARGS...]
#
# The machine has no usable KVM (no VMX/SVM), so this is TCG. The guest
# powers itself off when its job is done; TIMEOUT_S bounds a hung guest.
# la57=off: with -cpu max, TCG offers 5-level paging, and the KASAN debug
# kernel then reported a wild-memory-access in handle_edge_irq during early
# boot (identify_cpu), before any of our code was loaded.
# erms=off,fsrm=off: with them the kernel (memcpy, clear_page, copy_user)
# and glibc copy with `rep movsb`, which TCG runs one byte an iteration;
# without, eight bytes an iteration or unrolled moves (testing.md, rig
# facts). The benchmark sets its own -cpu.
# A guest that has not reached /init (its RIG-BEGIN line, which the console
# may prefix with terminal escapes) within
# RIG_BOOT_TIMEOUT seconds (default 180; a debug guest reaches it in about
# 50 s beside another guest) is stuck in the kernel's boot, before
# anything under test ran: it is stopped, the log says so (RIG-BOOT-HANG),
# and the guest is booted again, three times at most. The same for a kernel
# that died before /init (RIG-BOOT-DIED): /init prints RIG-BEGIN before it
# loads any module of ours, so such a crash is the kernel's own boot. The
# consoles of the boots given up are kept as LOG.hang and LOG.hang2.
# A guest on rxe-hw (rig.rdma=rxe-hw) gets the DMA device rxe-hw maps
# through (pci-testdev) behind an emulated IOMMU in strict mode: every
# unmap is invalidated at once, so a DMA after it faults (rig/rxe-hw). The
# debug kernel has no IOMMU driver: there its DMA goes through the DMA API
# (and its debugging) untranslated. It also gets an NVMe drive
# (QEMU's -device nvme on a sparse file of 256 MiB, dropped afterwards): a
# backend that really DMAs, for the target to export (tests/backend-dma.sh);
# its driver is a module no other scenario loads. rig.iommu=off leaves the
# IOMMU out (make bench BENCH_IOMMU=off: what translation costs).
# RIG_APPEND adds to the kernel's command line, as in rig/run-pair.sh.
# Exit status: 0 if the guest reached its end marker, 1 otherwise.
set -uo pipefail

kernel=$1 initrd=$2 log=$3 tmo=$4 append=$5
shift 5
[ $# -gt 0 ] || set -- -smp 2
if [[ " $append " == *" rig.rdma=rxe-hw "* ]]; then
	nvme_img=$(mktemp "${TMPDIR:-/tmp}/rig-nvme.XXXXXX") || exit 1
	trap 'rm -f "$nvme_img"' EXIT
	truncate -s 256M "$nvme_img"
	# the IOMMU first: QEMU wants it before the devices behind it
	iommu=(-device intel-iommu,intremap=off)
	[[ " $append " == *" rig.iommu=off "* ]] && iommu=()
	set -- "${iommu[@]}" -device pci-testdev \
		-drive if=none,id=backend,format=raw,cache=unsafe,file="$nvme_img" \
		-device nvme,drive=backend,serial=rig-backend "$@"
	[ ${#iommu[@]} -eq 0 ] || append+=" intel_iommu=on iommu.strict=1"
fi
# rig.hostroot=PATH (a scenario's hostroot=yes; PATH the tree): this
# machine's root, read-only over virtio-9p (tag hostroot), for a guest
# that needs Debian's userland (tests/deb-guest.sh); for a kernel of the
# Debian 13 root (KERNEL is its /boot/vmlinuz-*) that root, and the tree,
# which is not in it, as tag hosttree
if [[ " $append " == *" rig.hostroot="* ]]; then
	userland=/
	[[ $kernel == */roots/trixie-*/boot/vmlinuz-* ]] && userland=${kernel%/boot/*}
	set -- -virtfs local,path="$userland",mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap "$@"
	if [ "$userland" != / ]; then
		tree=" $append" tree=${tree##* rig.hostroot=} tree=${tree%% *}
		set -- -virtfs local,path="$tree",mount_tag=hosttree,security_model=none,readonly=on,multidevs=remap "$@"
	fi
fi
boot_tmo=${RIG_BOOT_TIMEOUT:-180}

boot() {
	timeout --foreground -k 10 "$tmo" \
		qemu-system-x86_64 -machine q35 -accel tcg -cpu max,la57=off,erms=off,fsrm=off -m 2048 \
		-nographic -no-reboot -nic none -monitor none -serial stdio \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=4 $append ${RIG_APPEND:-}" \
		"$@" < /dev/null > "$log" 2>&1 &
	local pid=$! waited=0 rc
	while kill -0 $pid 2>/dev/null; do
		grep -aq 'RIG-BEGIN' "$log" 2> /dev/null && break
		if [ $waited -ge "$boot_tmo" ]; then
			kill $pid
			wait $pid
			echo "RIG-BOOT-HANG: no /init after ${boot_tmo}s" >> "$log"
			return 2
		fi
		sleep 2
		waited=$((waited + 2))
	done
	wait $pid
	rc=$?
	if ! grep -aq 'RIG-BEGIN' "$log"; then
		echo "RIG-BOOT-DIED: the kernel ended before /init" >> "$log"
		return 2
	fi
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "RIG-TIMEOUT after ${tmo}s" >> "$log"
	fi
	return 0
}

tries=1
until boot "$@"; do
	[ $tries -lt 3 ] || break
	hang=$log.hang$([ $tries -gt 1 ] && echo $tries)
	mv "$log" "$hang"
	tries=$((tries + 1))
	echo "[nvmeof-rdma] guest did not reach /init ($(tail -1 "$hang")), booting it again (console: $hang)" >&2
done
grep -q '^RIG-END' "$log"
