#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# emulator-fault: the rule that runs a fault scenario's pair again checked.
# rig/emulator-fault.sh must name a console whose first report holds a
# register dump with an EFLAGS no x86-64 CPU can hold (real reports from
# issue 19's 6.12 guests, tests/host/splat-logs/emulator-fault-*.txt), and
# must not where that would hide a report of ours: a kernel a warning had
# tainted before, a report on the other guest besides blocked tasks, a
# second report after a first one, a report with a RIP outside the
# allocator or a frame of the NVMe or RDMA core modules (ours). And dumps a
# CPU can push are never one.
# covers: the pair rerun rule never takes a crash of ours for the emulator's
# rig: once fast=once
#
# Usage: tests/host/emulator-fault.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=$root/tests/host/splat-logs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# console NAME FIXTURE... - a console made of the fixtures, in order
console() {
	local name=$1 f
	shift
	{
		echo "RIG-BEGIN job=wire test=synthetic.sh"
		for f in "$@"; do
			cat "$logs/$f"
		done
	} > "$tmp/$name"
}

# expect NAME WHICH|no CONSOLE... - the rule calls it the emulator's and
# names the dump in console WHICH, or (no) it does not
expect() {
	local name=$1 want=$2 out got
	shift 2
	out=$(cd "$tmp" && "$root/rig/emulator-fault.sh" "$@")
	if [ $? -eq 0 ]; then got=${out%%:*}; else got=no; fi
	if [ "$got" = "$want" ] && { [ "$want" = no ] || grep -q "EFLAGS: " <<<"$out"; }; then
		echo "CASE PASS $name"
	else
		echo "CASE FAIL $name -- expected $want, got $got: $out"
	fi
}

# flags VALUE - a console whose only report is an oops with that EFLAGS
flags() {
	sed "s/EFLAGS: [0-9a-f]*/EFLAGS: $1/" "$logs/emulator-fault-target.txt" > "$tmp/flags-$1"
}

console target emulator-fault-target.txt
console target-trap emulator-fault-debug-trap.txt
console host-blocked hung-task.txt
console host-clean clean.txt
console host-warned emulator-fault-warned-host.txt
console host-ours warning-host.txt
console target-after-kasan kasan-target.txt emulator-fault-target.txt
console target-stock-report dma-api-direction-stock-target.txt

expect "double fault, host blocked behind it" target target host-blocked
expect "double fault, host clean" target target host-clean
expect "the same, the dying console given last" target host-blocked target
expect "a single-step WARNING first, its frame impossible" target-trap target-trap host-blocked
expect "a kernel a warning tainted before" no host-warned host-clean
expect "our WARNING on the other guest" no target host-ours
expect "the dump in a second report" no target-after-kasan host-clean
expect "a dump a CPU can push (0x82)" no target-stock-report host-clean
expect "a clean pair" no host-clean host-clean
for v in 018e6a02 ba968602 ee642483 00000000; do
	flags $v
	expect "EFLAGS $v cannot be pushed" flags-$v flags-$v host-clean
done
for v in 00010246 00000202 00050282 00000086 00240ad7; do
	flags $v
	expect "EFLAGS $v can be pushed" no flags-$v host-clean
done
# a crash of ours with a garbage EFLAGS is ours: its RIP in our module, or
# a frame of ours (or of the NVMe and RDMA core) under the allocator
sed 's/RIP: 0010:kmem_cache_alloc_node_noprof+0x70\/0x330/RIP: 0010:nvmet_rdma_queue_response+0x1c\/0x90 [nvmet_rdma]/' \
	"$logs/emulator-fault-target.txt" > "$tmp/rip-ours"
expect "RIP in nvmet_rdma, EFLAGS impossible" no rip-ours host-clean
sed 's/RIP: 0010:kmem_cache_alloc_node_noprof/RIP: 0010:memcpy_orig/' \
	"$logs/emulator-fault-target.txt" > "$tmp/rip-other"
expect "RIP outside the allocator, EFLAGS impossible" no rip-other host-clean
sed 's/^\(.*\) __alloc_skb+0x8c\/0x1a0$/&\n\1 nvmet_rdma_post_recv+0x51\/0xa0 [nvmet_rdma]/' \
	"$logs/emulator-fault-target.txt" > "$tmp/frame-ours"
expect "a frame of nvmet_rdma under the allocator" no frame-ours host-clean
