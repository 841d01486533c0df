# SPDX-License-Identifier: GPL-2.0
# iommu-dma: every buffer a transport gives the RDMA device is mapped through
# the DMA API and stays mapped while the device uses it, behind an IOMMU in
# strict mode (every unmap invalidated at once), as on most servers. The
# device is rxe-hw, whose DMA device is a PCI function behind QEMU's
# intel-iommu: it translates each DMA address at the time of the transfer
# and fails the work request on one the IOMMU does not map, as an IOMMU
# fault ends the I/O on a server (rig/rxe-hw/rxe_hw.c), and on one mapped
# for the device to read when it writes (VT-d's access bits). Its self-test
# first shows that an address faults once unmapped, and a write to a
# to-device mapping. Expected: every byte verified
# from 512 B to 1 MiB, in the capsule and over RDMA READ/WRITE (the host's
# FRWR page lists, the target's premapped pages and its mapping of pages
# that miss its cache), with no DMA fault. Our host and our target each
# with ours and with stock on the other side; stock/stock and ours/stock
# passed too (6.1, 6.12, December 2026) and are left out for CI's time.
# The debug kernel has no IOMMU driver (there rxe-hw maps through the DMA
# API untranslated, under DMA-API debugging).
# covers: every DMA address mapped while the device uses it, behind a strict IOMMU
# rig: pairs=ours/ours,stock/ours kernels=stock rdma=rxe-hw timeout=300 fast=oldest:ours/ours:rxe-hw

faults=/sys/kernel/debug/rxe_hw/dma_faults
direction_faults=/sys/kernel/debug/rxe_hw/dma_direction_faults
pages=/sys/kernel/debug/rxe_hw/dma_pages_translated
rig_setup_rdma
pci=$(ls -d /sys/bus/pci/drivers/rxe_hw_dma/0000:* | head -1)
rig_must "the IOMMU translates rxe-hw's DMA, strict (group type DMA)" \
	test "$(cat "$pci/iommu_group/type" 2> /dev/null)" = DMA
before=$(cat $faults) direction_before=$(cat $direction_faults)
selftest=$(cat /sys/kernel/debug/rxe_hw/dma_selftest)
rig_log "rxe-hw self-test: $(echo $selftest)"
rig_check "rxe-hw self-test: a mapped address translates" \
	sh -c "echo '$selftest' | grep -qx 'mapped: translates'"
# VT-d checks an entry's access bits: a page mapped DMA_TO_DEVICE is
# read-only for the device. Whether a DMA_FROM_DEVICE page is readable is
# the kernel's to say. 6.x's intel-iommu sets the read bit of every entry
# it maps (the first-stage "present" bit is the second stage's R), so
# there it is readable too, as on a server with VT-d running 6.x; 7.x's
# second-stage tables (the generic page table's) have R only where the
# mapping is to be read, so there, behind QEMU's intel-iommu (no scalable
# mode: second-stage tables), a DMA_FROM_DEVICE page is write-only and the
# device's read faults. The self-test names its kernel's way ("vtd read
# bit", probed in that kernel's source when rxe-hw is built).
read_bit=$(echo "$selftest" | sed -n 's/^vtd read bit: //p')
rig_must "rxe-hw self-test: names the kernel's VT-d read bit (always or as mapped)" \
	test "$read_bit" = always -o "$read_bit" = "as mapped"
from_reads=translates write_only=0
[ "$read_bit" = "as mapped" ] && from_reads=faults write_only=1
for use in "to-device, device reads: translates" \
	"to-device, device writes: faults" \
	"from-device, device writes: translates" \
	"from-device, device reads: $from_reads"; do
	rig_check "rxe-hw self-test: mapped $use" \
		sh -c "echo '$selftest' | grep -qx '$use'"
done
rig_check "rxe-hw self-test: an unmapped address and a write to a to-device page fault (a read of a from-device page too where it is write-only), counted" \
	sh -c "echo '$selftest' | grep -qx 'unmapped: faults' &&
		test \$(( \$(cat $faults) - $before )) -eq $((2 + write_only)) &&
		test \$(( \$(cat $direction_faults) - $direction_before )) -eq $((1 + write_only))"

rig_load_target
rig_load_host
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"
rig_must "export $dev, 16 KiB in-capsule" \
	rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 16384
ns=$(rig_connect)
rig_must "nvme connect -t rdma" test -b "$ns"
before=$(cat $faults) translated=$(cat $pages)
rig_check "512B randwrite QD1" rig_fio_verify "$ns" randwrite 512 1 1 512k
rig_check "16k randrw QD8 (in the capsule)" rig_fio_verify "$ns" randrw 16k 8 1 4M
rig_check "128k randrw QD32, 2 jobs" rig_fio_verify "$ns" randrw 128k 32 2 16M
rig_check "1m write+read QD8" rig_fio_verify "$ns" write 1m 8 1 16M
rig_check "no DMA address was unmapped when used" \
	test "$(cat $faults)" -eq "$before"
rig_log "DMA pages translated: $(( $(cat $pages) - translated ))"
rig_check "the data went through the IOMMU (pages translated)" \
	test $(( $(cat $pages) - translated )) -gt 4096
