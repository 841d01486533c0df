#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-helpers: the scenarios' own judges checked. rig_fio_verify must fail
# a fio run that exits 0 without moving data in both directions (what a job
# that did nothing also gets), and rig_unload_refused must take only "in
# use", with the module still there, as a refusal; rig_kmemleak_scan must
# fail on the debug kernel when it cannot scan; rig_io_queues_all_busy must
# fail unless every I/O queue (one per CPU) of the one controller carried
# I/O; rig_reconnect_since must read the newest reconnect's own timestamp;
# rig_klog_spans must pair each START with the next END after T0.
# Each with its control that must pass. fio, rmmod, nproc, sleep, dmesg and
# the kmemleak and statistics files are stubs here; the helpers are the
# guest's own (rig/guest/lib.sh).
# rig: once
#
# Usage: tests/host/guest-helpers.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/rig/guest/lib.sh"
# a failed check here must not ask this machine's kernel for its tasks
RIG_SYSRQ=$tmp/sysrq
RIG_PROC=$tmp/proc
RIG_FIO_OUT=$tmp/fio.out
mkdir "$tmp/bin"
PATH=$tmp/bin:$PATH

# expect NAME 0|1 CMD... - CMD's exit status is (0) or is not (1) zero
expect() {
	local name=$1 want=$2 got=0
	shift 2
	"$@" > "$tmp/out" 2>&1 || got=1
	if [ "$got" = "$want" ]; then
		echo "CASE PASS $name"
	else
		echo "CASE FAIL $name -- exit status $([ $got = 0 ] && echo 0 || echo non-zero): $(tr '\n' '|' < "$tmp/out")"
	fi
}

# fake_fio RC READ_KIB WRITE_KIB - a fio that exits RC after printing a
# terse v3 line: field 6 the KiB read, field 47 the KiB written
fake_fio() {
	local f i
	f="3;fio-3.33;verify;0;0"
	for i in $(seq 6 130); do
		case $i in
		6) f+=";$2" ;;
		47) f+=";$3" ;;
		*) f+=";0" ;;
		esac
	done
	printf '#!/bin/sh\necho "%s"\nexit %s\n' "$f" "$1" > "$tmp/bin/fio"
	chmod +x "$tmp/bin/fio"
}
fake_fio 0 4096 4096
expect "fio verify that moved data both ways passes" 0 rig_fio_verify /dev/null write 4k 1
fake_fio 0 0 0
expect "fio verify that moved nothing fails" 1 rig_fio_verify /dev/null write 4k 1
fake_fio 0 0 4096
expect "fio verify that wrote but never read back fails" 1 rig_fio_verify /dev/null write 4k 1
fake_fio 1 4096 4096
expect "fio verify whose fio failed fails" 1 rig_fio_verify /dev/null write 4k 1

# fake_rmmod RC MESSAGE - an rmmod that says MESSAGE and exits RC
fake_rmmod() {
	printf '#!/bin/sh\necho "%s" >&2\nexit %s\n' "$2" "$1" > "$tmp/bin/rmmod"
	chmod +x "$tmp/bin/rmmod"
}
RMMOD=$tmp/bin/rmmod
# a module every kernel has in /sys/module
fake_rmmod 1 "rmmod: ERROR: Module kernel is in use"
expect "an unload refused as in use, the module still there, is a refusal" 0 \
	rig_unload_refused kernel
fake_rmmod 1 "rmmod: ERROR: Module kernel is not currently loaded"
expect "an unload that fails otherwise is no refusal" 1 rig_unload_refused kernel
fake_rmmod 1 "rmmod: ERROR: Module no_such_module is in use"
expect "\"in use\" for a module that is not there is no refusal" 1 \
	rig_unload_refused no-such-module
fake_rmmod 0 ""
expect "an unload that succeeded is no refusal" 1 rig_unload_refused kernel

# rig_fail: a scenario's first failure asks for the blocked tasks (sysrq
# w), prints the stacks of the tasks in NVMe or RDMA code, sleeping or not,
# and the kernel log at once (a guest may hang after it); the next failures
# only record themselves. /proc here: a reconnect waiting for the CM, a
# shell, a task whose stack cannot be read.
RIG_FAILFILE=$tmp/failed-dump
printf '#!/bin/sh\necho "[ 1.0] task:kworker state:D"\n' > "$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
mkdir -p "$tmp/proc/25" "$tmp/proc/1" "$tmp/proc/7"
printf '[<0>] nvme_rdma_wait_for_cm+0x4a/0x80 [nvme_rdma]\n[<0>] nvme_rdma_reconnect_ctrl_work+0x3c/0xd0 [nvme_rdma]\n[<0>] process_one_work+0x190/0x3a0\n' \
	> "$tmp/proc/25/stack"
echo kworker/u4:1 > "$tmp/proc/25/comm"
printf '[<0>] do_wait+0x5d/0xf0\n[<0>] kernel_wait4+0xaf/0x150\n' > "$tmp/proc/1/stack"
echo sh > "$tmp/proc/1/comm"
echo rdma_cm > "$tmp/proc/7/comm"
rig_fail "first" > "$tmp/first"
rig_fail "second" > "$tmp/second"
expect "a first failure asks the kernel for its blocked tasks" 0 grep -qx w "$RIG_SYSRQ"
expect "... prints the stack of a task sleeping in NVMe/RDMA code" 0 grep -qx \
	"RIG-FAIL-STACK 25 kworker/u4:1: nvme_rdma_wait_for_cm+0x4a/0x80 nvme_rdma_reconnect_ctrl_work+0x3c/0xd0 process_one_work+0x190/0x3a0" \
	"$tmp/first"
expect "... and no other task's" 0 test "$(grep -c RIG-FAIL-STACK "$tmp/first")" = 1
expect "... and prints its log" 0 grep -qx "RIG-FAIL-KLOG \[ 1.0\] task:kworker state:D" "$tmp/first"
expect "a second failure prints no log again" 1 grep -q RIG-FAIL-KLOG "$tmp/second"
expect "... and both are recorded" 0 test "$(cat "$RIG_FAILFILE")" = "$(printf 'first\nsecond')"
rm "$tmp/bin/dmesg"

# rig_kmemleak_scan: the debug kernel has kmemleak, so a scan that cannot
# run there fails (a leak would go unseen); Debian's kernels have none
RIG_FAILFILE=$tmp/failed
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/sleep"
chmod +x "$tmp/bin/sleep"
RIG_KMEMLEAK=$tmp/kmemleak
: > "$RIG_KMEMLEAK"
KVER=6.1.192-nvmeof-debug
expect "a kmemleak scan that ran passes" 0 rig_kmemleak_scan
expect "... and asked kmemleak for a scan" 0 grep -qx scan "$RIG_KMEMLEAK"
RIG_KMEMLEAK=$tmp/no-kmemleak
expect "no kmemleak on the debug kernel fails" 1 rig_kmemleak_scan
RIG_KMEMLEAK=$tmp
expect "a scan kmemleak refused fails" 1 rig_kmemleak_scan
RIG_KMEMLEAK=$tmp/no-kmemleak KVER=6.1.0-57-amd64
expect "no kmemleak on Debian's kernel passes" 0 rig_kmemleak_scan

# rig_io_queues_all_busy: every I/O queue of our host's one controller
# (one per CPU) carried a Read or Write, from its statistics files
RIG_HOST_STATS=$tmp/stats
printf '#!/bin/sh\necho 2\n' > "$tmp/bin/nproc"
chmod +x "$tmp/bin/nproc"
# fake_ctrl NAME QUEUES READS... - a controller's statistics: QUEUES queues
# (the admin queue one of them), queue<N>'s cmds_read the Nth of READS
fake_ctrl() {
	local d=$RIG_HOST_STATS/$1 q=1 r
	mkdir -p "$d"
	echo "queues $2" > "$d/ctrl"
	shift 2
	for r in "$@"; do
		printf 'cmds_read %s\ncmds_write 0\n' "$r" > "$d/queue$q"
		q=$((q + 1))
	done
}
fake_ctrl nvme0 3 5 7
expect "every I/O queue carried I/O passes" 0 rig_io_queues_all_busy
rm -rf "$RIG_HOST_STATS"; fake_ctrl nvme0 3 5 0
expect "an I/O queue that carried nothing fails" 1 rig_io_queues_all_busy
rm -rf "$RIG_HOST_STATS"; fake_ctrl nvme0 2 5
expect "fewer I/O queues than CPUs fails" 1 rig_io_queues_all_busy
rm -rf "$RIG_HOST_STATS"; fake_ctrl nvme0 3 5 7; fake_ctrl nvme1 3 5 7
expect "two controllers (which one?) fails" 1 rig_io_queues_all_busy
rm -rf "$RIG_HOST_STATS"
expect "no statistics (the stock host) fails" 1 rig_io_queues_all_busy

# rig_reconnect_since: the newest reconnect by the kernel log's timestamp,
# not when a poll saw it; "?" when the log has none
printf '#!/bin/sh\nprintf "%%s\\n" "[   20.500000] nvme nvme0: Successfully reconnected (1 attempt)" "[   33.600833] nvme nvme0: creating 1 I/O queues." "[   33.700400] nvme nvme0: Successfully reconnected (10 attempts)"\n' > "$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
expect "reconnect time: the newest reconnect's timestamp less T0" 0 \
	test "$(rig_reconnect_since 33.48)" = 0.2
printf '#!/bin/sh\necho "[   33.6] nvme nvme0: creating 1 I/O queues."\n' > "$tmp/bin/dmesg"
expect "reconnect time: no reconnect in the log says ?" 0 test "$(rig_reconnect_since 33.48)" = "?"
rm "$tmp/bin/dmesg"

# rig_klog_spans: each START to the next END after T0; a START without its
# END left out
printf '#!/bin/sh\nprintf "%%s\\n" "[   10.000000] nvme nvme0: resetting controller" "[   10.500000] nvme nvme0: mapped 1/0/0 default/read/poll queues." "[   20.000000] nvme nvme0: resetting controller" "[   20.100000] nvme nvme0: mapped 1/0/0 default/read/poll queues." "[   30.000000] nvme nvme0: resetting controller" "[   30.400000] nvme nvme0: mapped 1/0/0 default/read/poll queues." "[   40.000000] nvme nvme0: resetting controller"\n' > "$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
expect "kernel-log spans: count, mean and longest after T0" 0 \
	test "$(rig_klog_spans "resetting controller" "mapped .* queues" 15)" = "2 0.25 0.40"
expect "kernel-log spans: all of them without T0" 0 \
	test "$(rig_klog_spans "resetting controller" "mapped .* queues")" = "3 0.33 0.50"
expect "kernel-log spans: none when END never follows its START" 0 \
	test -z "$(rig_klog_spans "mapped .* queues" "no such message")"
rm "$tmp/bin/dmesg"
