#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat-scan: the checker checked. rig/splat.sh judges every guest's kernel
# log, so a scanner that lets a report through would pass anything. Feed it
# logs made of real report shapes (tests/host/splat-logs/) and expect its
# verdict: our reports fail however close an allow-listed one follows, an
# allow-listed report passes alone (with its note), and a clean log passes
# (so a scanner that fails everything cannot pass either).
# covers: the splat scanner lets no report of ours through
# rig: once fast=once
#
# Usage: tests/host/splat-scan.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=$root/tests/host/splat-logs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# mklog HOST TARGET FIXTURE... - a guest console as the rig writes it: the
# modules loaded (ours|stock), then the kernel log dump of the fixtures
mklog() {
	local host=$1 target=$2 f
	shift 2
	echo "RIG-MODULE nvmet-rdma asked=$target build-id=00 version=x srcversion=x"
	echo "RIG-MODULE nvme-rdma asked=$host build-id=00 version=x srcversion=x"
	echo "RIG-RESULT PASS synthetic"
	echo "RIG-DMESG-BEGIN"
	for f in "$@"; do
		cat "$logs/$f"
	done
	echo "RIG-DMESG-END"
}

# expect NAME fail|pass REGEX HOST TARGET FIXTURE... - the scan's exit status
# says fail or pass, and its output has a line matching REGEX
expect() {
	local name=$1 want=$2 re=$3 out rc got
	shift 3
	mklog "$@" > "$tmp/log"
	out=$("$root/rig/splat.sh" "$tmp/log")
	rc=$?
	got=pass; [ $rc -eq 0 ] || got=fail
	if [ "$got" = "$want" ] && grep -qE "$re" <<<"$out"; then
		echo "CASE PASS $name"
	else
		echo "CASE FAIL $name -- expected $want with /$re/, got $got (exit $rc): $(tr '\n' '|' <<<"$out")"
	fi
}

expect "clean log passes" pass '^$' ours ours clean.txt
expect "inherited nvme-core lockdep alone passes, noted" pass \
	'^known \(inherited, not ours\): nvme-core multipath' ours ours clean.txt lockdep-mpath.txt
expect "our KASAN followed by inherited lockdep fails" fail \
	'^splat: .*BUG: KASAN: use-after-free in nvmet_rdma_read_data_done' \
	ours ours kasan-target.txt lockdep-mpath.txt
expect "our WARNING right after inherited lockdep fails" fail \
	'^splat: .*WARNING: CPU: 0 PID: 503 at drivers/nvme/host/rdma.c' \
	ours ours lockdep-mpath.txt warning-host.txt
expect "our WARNING right before inherited lockdep fails" fail \
	'^splat: .*WARNING: CPU: 0 PID: 503' ours ours warning-host.txt lockdep-mpath.txt
expect "inherited lockdep through our host's frame fails" fail \
	'^splat: .*possible circular locking' ours ours lockdep-mpath-via-host.txt
expect "the same through stock's host frame is inherited" pass \
	'^known \(inherited' stock ours lockdep-mpath-via-host.txt
expect "stock target's handler_mutex lockdep with the stock target passes" pass \
	'^known \(inherited, not ours\): stock nvmet-rdma' ours stock stock-target-lockdep.txt
expect "the same report with our target loaded fails" fail \
	'^splat: .*possible circular locking' ours ours stock-target-lockdep.txt
expect "stock target's DMA unmap in the next command's direction passes with it" pass \
	'^known \(inherited, not ours\): stock nvmet-rdma: a read' ours stock dma-api-direction-stock-target.txt
expect "the same unmap report with our target loaded fails" fail \
	'^splat: .*check_unmap' ours ours dma-api-direction-stock-target.txt
expect "RCU stall fails" fail '^splat: .*rcu_preempt detected stalls' ours ours rcu-stall.txt
expect "RCU expedited stall fails" fail '^splat: .*detected expedited stalls' \
	ours ours rcu-expedited-stall.txt
expect "RCU grace-period kthread starved fails" fail '^splat: .*kthread starved for' \
	ours ours rcu-kthread-starved.txt
expect "hung task fails" fail '^splat: .*INFO: task kworker/u2:1:87 blocked' ours ours hung-task.txt
# what CI shows of a failure is the runner's output: each report's stack
# comes with it, innermost frame first, the scheduler's own left out
expect "a report's stack is printed under it" fail \
	'^  at: nvme_rdma_recv_done \[nvme_rdma\] < __ib_process_cq \[ib_core\]$' \
	ours ours warning-host.txt
expect "a blocked task's workqueue and stack are printed under it" fail \
	'^  at: \(nvme-reset-wq nvme_rdma_reset_ctrl_work \[nvme_rdma\]\) blk_mq_freeze_queue_wait < nvme_wait_freeze \[nvme_core\]' \
	ours ours hung-task.txt
expect "kmemleak report fails" fail '^splat: .*(suspected memory leaks|unreferenced object)' \
	ours ours clean.txt kmemleak.txt
expect "a kernel log that wrapped before its dump fails" fail \
	'^splat: RIG-KMSG-LOST kernel log: records since the last dump were overwritten' \
	ours ours kmsg-lost.txt clean.txt
# a guest that timed out fails even with a clean log
mklog ours ours clean.txt > "$tmp/log"
echo "RIG-TIMEOUT after 240s" >> "$tmp/log"
if ! out=$("$root/rig/splat.sh" "$tmp/log") && grep -q '^splat: RIG-TIMEOUT' <<<"$out"; then
	echo "CASE PASS timeout fails"
else
	echo "CASE FAIL timeout fails -- got: $out"
fi
