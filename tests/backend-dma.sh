# SPDX-License-Identifier: GPL-2.0
# backend-dma: the target exports a namespace whose backend really DMAs (a
# QEMU NVMe drive, `-device nvme`, which every rxe-hw guest has), so a data
# page is mapped for the RDMA device and, while the backend reads or fills
# it, for the NVMe device too. The DMA API allows that only where the two
# mappings cannot both write the page: a page the backend fills (a host's
# read) must not be mapped device-writable for the RDMA device at the same
# time (DMA-API debug: "cacheline tracking EEXIST, overlapping mappings
# aren't supported"). Expected: every byte verified, reads and writes from
# 4 KiB to 128 KiB, most of them over the target's cached pages, and on the
# debug kernel (DMA-API debug, all errors reported) no DMA-API error. On
# Debian's kernels both devices sit behind the strict IOMMU (no DMA-API
# debug there): the same I/O, with no DMA fault.
# covers: a backend that DMAs into the target's cached pages: DMA-API overlaps (debug), IOMMU faults
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe-hw timeout=300 fast=debug:ours/ours:rxe-hw

T=/sys/kernel/tracing
MAP=$T/events/nvmet_rdma/nvmet_rdma_map_data/enable
faults=/sys/kernel/debug/rxe_hw/dma_faults
# DMA-API debug's count of the errors it reported (the debug kernel only)
dma_errors=/sys/kernel/debug/dma-api/error_count

# pcie_ns - the namespace of the guest's own (PCIe) NVMe controller
pcie_ns() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/transport" 2> /dev/null)" = pcie ] || continue
		[ -b "/dev/${c##*/}n1" ] && echo "/dev/${c##*/}n1" && return 0
	done
	return 1
}

rig_setup_rdma
rig_load_target
rig_load_host
rig_must "modprobe nvme (the backend's PCIe driver)" $MODPROBE nvme
rig_must "the QEMU NVMe drive's namespace" rig_wait 30 pcie_ns
dev=$(pcie_ns)
rig_log "backend: $dev ($(cat /sys/block/${dev#/dev/}/size) sectors)"
rig_must "export $dev" rig_export "$dev"
ns=$(rig_connect)
rig_must "nvme connect -t rdma" test -b "$ns"
mount -t tracefs none $T 2> /dev/null
rig_must "nvmet_rdma_map_data trace" sh -c "echo 1 > $MAP"
echo > $T/trace
before=$(cat $faults)
[ -r $dma_errors ] && errors_before=$(cat $dma_errors)
rig_check "4k randrw QD16" rig_fio_verify "$ns" randrw 4k 16 1 4M
rig_check "4k-128k randrw QD8, 2 jobs" rig_fio_verify "$ns" randrw 4k 8 2 8M \
	--bssplit=4k/40:16k/30:64k/15:128k/15
rig_check "128k write+read QD4" rig_fio_verify "$ns" write 128k 4 1 8M
echo 0 > $MAP
# cached - keyed transfers on I/O queues laid over the target's cached pages
cached() {
	local io='qid=[1-9][0-9]* cid=[0-9]+ opcode=0x[12] data=keyed(_inv)? len=[0-9]+ status=0x0'
	local all own
	all=$(grep -cE "$io" $T/trace)
	own=$(grep -cE "$io wrs=[0-9]+ rw=premapped$" $T/trace)
	rig_log "keyed transfers over cached pages: $own of $all"
	[ "$own" -gt 0 ] && [ $((own * 2)) -ge "$all" ]
}
rig_check "most transfers went over the target's cached pages" cached
rig_check "no DMA address was unmapped when rxe-hw used it" \
	test "$(cat $faults)" -eq "$before"
if [ -r $dma_errors ]; then
	errors=$(( $(cat $dma_errors) - errors_before ))
	rig_log "DMA-API debug: $errors errors during the I/O"
	rig_check "DMA-API debug: no overlapping or wrong mapping" test $errors -eq 0
else
	# Debian's kernels: the strict IOMMU's fault count above stands for it
	rig_skip "DMA-API debug's overlap check: no DMA-API debug on this kernel"
fi
rig_check "disconnect" rig_disconnect
rig_check "unexport" rig_unexport
# the PCIe controller goes with its driver, so that the reset finds none
rig_check "rmmod nvme" $RMMOD nvme
