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
# rig_klog_spans must pair each START with the next END after T0. The
# verdict itself: rig_check must record a failure, rig_run_test must say
# FAIL for a failed check, a non-zero exit or a failure after the scenario,
# a check with lockdep off must be marked UNWATCHED, rig_reset must fail a
# module or controller left, rig_verify_loaded another module than asked.
# Each with its control that must pass. fio, rmmod, nproc, sleep, dmesg and
# the kmemleak and statistics files are stubs here (fio refuses to run
# without verification), and so are /proc, sysfs and the commands
# rig_reset runs; the helpers are the guest's own (rig/guest/lib.sh).
# covers: the scenarios' own judges (rig/guest/lib.sh) fail what they must
# rig: once fast=once
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
# terse v3 line: field 6 the KiB read, field 47 the KiB written. Asked to
# run without crc32c verification that stops at a mismatch, it prints no
# result and fails: such a run would have checked no data.
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
	{
		echo '#!/bin/sh'
		for i in --verify=crc32c --verify_fatal=1; do
			echo "case \" \$* \" in *\" $i \"*) ;; *) echo \"fake fio: no $i\" >&2; exit 1 ;; esac"
		done
		echo 'case " $* " in *" --do_verify=0 "*) echo "fake fio: --do_verify=0" >&2; exit 1 ;; esac'
		printf 'echo "%s"\nexit %s\n' "$f" "$1"
	} > "$tmp/bin/fio"
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

# --- the verdict: rig_check, rig_run_test, rig_reset, rig_verify_loaded ---
# What the guest says of a scenario, each with its control. dmesg, sysfs,
# /proc, the files rig_reset clears and the commands it runs (killall,
# rdma, ip, rmmod) are stubs: rig_reset runs whole here, and must touch
# nothing of this machine's.
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/dmesg"
for c in killall rdma ip; do printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/$c"; done
chmod +x "$tmp/bin/dmesg" "$tmp/bin/killall" "$tmp/bin/rdma" "$tmp/bin/ip"
RIG_FAILFILE=$tmp/verdict-failed
rm -f "$RIG_FAILFILE"

# rig_check: a failing command is printed and recorded (the verdict reads
# the record), a passing one only printed
rig_check "a check that fails" false > "$tmp/check" 2>&1
rc=$?
expect "rig_check of a failing command prints RIG-CHECK FAIL" 0 \
	grep -qx 'RIG-CHECK FAIL a check that fails (exit 1)' "$tmp/check"
expect "... records it for the verdict" 0 grep -qx 'a check that fails (exit 1)' "$RIG_FAILFILE"
expect "... and returns the command's status" 0 test "$rc" = 1
rm -f "$RIG_FAILFILE"
rig_check "a check that passes" true > "$tmp/check" 2>&1
expect "rig_check of a passing command prints RIG-CHECK ok" 0 grep -q '^RIG-CHECK ok a check that passes ' "$tmp/check"
expect "... and records nothing" 1 test -e "$RIG_FAILFILE"

# rig_run_test: the scenario's verdict, RIG-RESULT
printf 'rig_check "one" true\nrig_check "two" false\nrig_check "three" true\n' > "$tmp/failed-check.sh"
printf 'rig_check "one" true\n' > "$tmp/clean.sh"
printf 'rig_check "one" true\nexit 3\n' > "$tmp/exits.sh"
printf 'rig_must "a step" false\nrig_check "after the step" true\n' > "$tmp/must.sh"
printf 'rig_check "one" true\nrig_check "unset" test -z "$NO_SUCH_VARIABLE"\n' > "$tmp/unset.sh"
rig_run_test "$tmp/failed-check.sh" > "$tmp/run" 2>&1
expect "a scenario with a failed check is a FAIL" 0 \
	grep -qx 'RIG-RESULT FAIL failed-check: two (exit 1)' "$tmp/run"
expect "... its checks after the failed one still ran" 0 grep -q '^RIG-CHECK ok three ' "$tmp/run"
rig_run_test "$tmp/clean.sh" > "$tmp/run" 2>&1
expect "a scenario whose checks all passed is a PASS" 0 grep -qx 'RIG-RESULT PASS clean' "$tmp/run"
rig_run_test "$tmp/exits.sh" > "$tmp/run" 2>&1
expect "a scenario that exits non-zero without a failed check is a FAIL" 0 \
	grep -qx 'RIG-RESULT FAIL exits: scenario exited with 3' "$tmp/run"
rig_run_test "$tmp/must.sh" > "$tmp/run" 2>&1
expect "a scenario whose rig_must step failed is a FAIL" 0 \
	grep -qx 'RIG-RESULT FAIL must: a step (exit 1)' "$tmp/run"
expect "... and stopped there" 1 grep -q 'after the step' "$tmp/run"
# (this test's own set -u off: the scenario's must come from rig_run_test)
( set +u; rig_run_test "$tmp/unset.sh" ) > "$tmp/run" 2>&1
expect "a scenario that reads an unset variable is a FAIL (set -u)" 0 \
	grep -q '^RIG-RESULT FAIL unset: scenario exited with ' "$tmp/run"
# the command after the scenario (rig_reset's teardown) counts for it
after_fails() { rig_check "the teardown" false; }
rig_run_test "$tmp/clean.sh" after_fails > "$tmp/run" 2>&1
expect "a check that failed after the scenario makes it a FAIL" 0 \
	grep -qx 'RIG-RESULT FAIL clean: the teardown (exit 1)' "$tmp/run"

# RIG-CHECK-UNWATCHED: a check of a scenario (RIG_WATCHED) begun after
# lockdep switched itself off; the runner fails the scenario on it
echo ' debug_locks:                             0' > "$RIG_PROC/lockdep_stats"
( RIG_WATCHED=1; rig_check "after a report" true ) > "$tmp/check" 2>&1
expect "a scenario's check with lockdep off is marked UNWATCHED" 0 \
	grep -qx 'RIG-CHECK-UNWATCHED after a report' "$tmp/check"
rig_check "outside a scenario" true > "$tmp/check" 2>&1
expect "a check outside a scenario is not marked" 1 grep -q UNWATCHED "$tmp/check"
after_checks() { rig_check "the teardown" true; }
rig_run_test "$tmp/clean.sh" after_checks > "$tmp/run" 2>&1
expect "rig_run_test watches the scenario's checks" 0 grep -qx 'RIG-CHECK-UNWATCHED one' "$tmp/run"
expect "... and those after it" 0 grep -qx 'RIG-CHECK-UNWATCHED the teardown' "$tmp/run"
echo ' debug_locks:                             1' > "$RIG_PROC/lockdep_stats"
( RIG_WATCHED=1; rig_check "lockdep on" true ) > "$tmp/check" 2>&1
expect "a scenario's check with lockdep on is not marked" 1 grep -q UNWATCHED "$tmp/check"
rm "$RIG_PROC/lockdep_stats"

# rig_reset: a module the scenario loaded that will not go, and a
# controller that stays, each fail it. The stub rmmod takes a module out of
# the stub /proc/modules unless it is listed in $tmp/stuck.
RIG_SYS=$tmp/sys RIG_TMP=$tmp/tmpdir NVMET_CFS=$tmp/nvmet IP=$tmp/bin/ip RMMOD=$tmp/bin/rmmod
case "$RIG_SYS $RIG_TMP" in
"$tmp"/*" $tmp"/*) ;;
*) echo "CASE FAIL rig_reset -- its stubs are not in place: it would clear this machine's"; exit 0 ;;
esac
mkdir -p "$RIG_SYS/class/nvme" "$RIG_TMP"
printf '#!/bin/sh\ngrep -qx "$1" %s/stuck 2> /dev/null && { echo "rmmod: ERROR: Module $1 is in use" >&2; exit 1; }\nsed -i "/^$1 /d" %s/modules\n' \
	"$tmp" "$RIG_PROC" > "$tmp/bin/rmmod"
chmod +x "$tmp/bin/rmmod"
# reset_after STUCK... - the scenario's modules loaded, STUCK refusing to go
reset_after() {
	printf 'nvme_rdma 49152 0 - Live 0x0\nnvme_fabrics 32768 1 nvme_rdma, Live 0x0\nbase 16384 0 - Live 0x0\n' \
		> "$RIG_PROC/modules"
	printf '%s\n' "$@" > "$tmp/stuck"
	touch "$RIG_TMP/left-by-the-scenario"
	rig_run_test "$tmp/clean.sh" rig_reset > "$tmp/run" 2>&1
}
RIG_MODULES_BEFORE=base
reset_after
expect "a reset that unloads what the scenario loaded passes" 0 grep -qx 'RIG-RESULT PASS clean' "$tmp/run"
expect "... and leaves what was there before" 0 test "$(rig_modules)" = base
expect "... and clears its files" 1 test -e "$RIG_TMP/left-by-the-scenario"
reset_after nvme_fabrics
expect "a module that stays loaded after the scenario fails it" 0 \
	grep -qx 'RIG-RESULT FAIL clean: reset: still loaded after the scenario: nvme_fabrics' "$tmp/run"
mkdir "$RIG_SYS/class/nvme/nvme0"
echo "$RIG_NQN" > "$RIG_SYS/class/nvme/nvme0/subsysnqn"
: > "$RIG_SYS/class/nvme/nvme0/delete_controller"
reset_after
expect "a controller that stays after the scenario fails it" 0 \
	grep -qx 'RIG-RESULT FAIL clean: reset: every controller deleted (exit 1)' "$tmp/run"
expect "... after the reset asked to delete it" 0 grep -qx 1 "$RIG_SYS/class/nvme/nvme0/delete_controller"
rm -r "$RIG_SYS/class/nvme/nvme0"

# rig_verify_loaded: the module loaded is the one asked for, by its build
# ID (that file's, not the other one's), and ours also by srcversion and
# version. The stub modinfo says ours is srcversion ABC, version 1.0.
KVER=6.1.0-99-amd64 RIG_LIB_MODULES=$tmp/lib/modules RIG_BUILDIDS=$tmp/buildids MODINFO=$tmp/bin/modinfo
RIG_SYS_MODULE=$tmp/sys/module
mkdir -p "$RIG_LIB_MODULES/$KVER/kernel/drivers/nvme/host"
touch "$RIG_LIB_MODULES/$KVER/kernel/drivers/nvme/host/nvme-rdma.ko.xz"
ours_id=0123456789abcdef0123456789abcdef01234567 stock_id=89abcdef0123456789abcdef0123456789abcdef
printf '%s %s\n' "$RIG_LIB_MODULES/$KVER/updates/nvme-rdma.ko" $ours_id \
	"$RIG_LIB_MODULES/$KVER/kernel/drivers/nvme/host/nvme-rdma.ko.xz" $stock_id > "$RIG_BUILDIDS"
printf '#!/bin/sh\ncase $2 in srcversion) echo ABC ;; version) echo 1.0 ;; esac\n' > "$tmp/bin/modinfo"
chmod +x "$tmp/bin/modinfo"
# fake_loaded BUILD_ID SRCVERSION VERSION - nvme_rdma in the stub sysfs:
# its build ID note (12-byte header, "GNU\0", the ID), srcversion, version
fake_loaded() {
	local d=$RIG_SYS_MODULE/nvme_rdma
	rm -rf "$d"
	mkdir -p "$d/notes"
	[ -z "$1" ] || { printf '\004\0\0\0\024\0\0\0\003\0\0\0GNU\0'; printf "$(sed 's/../\\x&/g' <<<"$1")"; } \
		> "$d/notes/.note.gnu.build-id"
	echo "$2" > "$d/srcversion"
	echo "$3" > "$d/version"
}
fake_loaded $ours_id ABC 1.0
expect "ours asked, ours loaded (build ID, srcversion, version) passes" 0 rig_verify_loaded ours nvme-rdma
fake_loaded $stock_id ABC 1.0
expect "ours asked, stock's build ID loaded fails" 1 rig_verify_loaded ours nvme-rdma
fake_loaded $ours_id XYZ 1.0
expect "ours asked, another srcversion loaded fails" 1 rig_verify_loaded ours nvme-rdma
fake_loaded $ours_id ABC 0.9
expect "ours asked, another version loaded fails" 1 rig_verify_loaded ours nvme-rdma
fake_loaded "" ABC 1.0
expect "ours asked, a module without a build ID fails" 1 rig_verify_loaded ours nvme-rdma
fake_loaded $stock_id "" ""
expect "stock asked, stock loaded passes" 0 rig_verify_loaded stock nvme-rdma
fake_loaded $ours_id ABC 1.0
expect "stock asked, ours loaded fails" 1 rig_verify_loaded stock nvme-rdma
# both files of one build ID: which one is loaded cannot be told
sed -i "s/$stock_id/$ours_id/" "$RIG_BUILDIDS"
expect "ours and stock of one build ID: ours asked fails" 1 rig_verify_loaded ours nvme-rdma

# fio's verification: the fake fio refuses a run without it, and the
# background load asks for it as rig_fio_verify does
fake_fio 0 4096 4096
expect "the fake fio refuses a run without crc32c verification" 1 fio --name=x --verify_fatal=1
expect "a background load (rig_fio_load) asks fio for crc32c verification" 0 rig_fio_load /dev/null 1

# The wire's helpers (two guests, rig/run-pair.sh). rig_wire: any answer
# but "ok" (run-pair.sh's "failed: " and what QEMU's monitor said) fails,
# and a fault asked for is noted (RIG_WIRE_FAULTED) for the connects
# after it; the answer here waits in a FIFO on fd 3, ahead of the request.
printf '#!/bin/sh\n' > "$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
mkfifo "$tmp/ctl"
# wire_asks ANSWER REQUEST... - the real rig_wire, answered ANSWER; then
# prints faulted=RIG_WIRE_FAULTED
wire_asks() {
	(
		exec 3<> "$tmp/ctl"
		echo "$1" >&3
		shift
		rig_wire "$@" || exit 1
		echo "faulted=${RIG_WIRE_FAULTED:-}"
	)
}
wire_faulted() { [ "$(wire_asks ok "$@" | tail -1)" = faulted=1 ]; }
expect "wire: a fault answered ok succeeds, noted as a fault" 0 wire_faulted link off
expect "wire: a fault the monitor refused fails" 1 \
	wire_asks "failed: Error: Device 'wire' not found" link off
expect "wire: asking whether the target serves is no fault" 1 wire_faulted target ready

# rig_wire_outage: a fault or repair the rig could not do stops the
# scenario as the rig's failure (RIG-MUST-FAIL), on stock as on ours
outage_refused() {
	(
		RIG_FAILFILE=$tmp/outage.failed
		rig_fs_start() { :; }
		rig_nvme_ns() { echo /dev/null; }
		rig_fio_load() { :; }
		sleep() { :; }
		rig_wire() { [ "$*" != "link off" ]; }
		rig_wait() { echo "waited for $*"; }
		rig_wire_outage "link cut" "link off" "link on" 12
		echo "went on"
	) > "$tmp/outage.out" 2>&1
	cat "$tmp/outage.out"
	grep -qx "RIG-MUST-FAIL link cut: link off" "$tmp/outage.out" &&
		! grep -q "went on\|waited for" "$tmp/outage.out"
}
expect "wire outage: a link cut the rig could not do stops the scenario, the rig's failure" 0 outage_refused
# and no fault asked of the wire anywhere goes through rig_check
wire_checked() { grep -n 'rig_check .*rig_wire ' "$root"/tests/faults/*.sh "$root"/rig/guest/*.sh; }
expect "no fault asked of the wire under rig_check (rig_must, each)" 1 wire_checked

# rig_wire_connect: it waits for the target guest's "ready"; a connect of
# ours that then needs a retry with no fault asked of the wire before is a
# failure (a flaky connect), stock's is logged, and so is ours after a
# fault. The kernel's fabrics device is rig_fabrics_add, stubbed (without
# it the real device would be written: not run).
# wire_connect HOST FAILS [NOT_READY [FAULTED]] - rig_wire_connect with
# HOST's module, the kernel refusing the first FAILS connects, the target
# answering "not yet" NOT_READY times first, FAULTED: a fault asked
# before. Exit 0 connected, 1 connected with a failure recorded, 2 not
# connected, 3 not run; its output in $tmp/connect.out
wire_connect() {
	[ "$(type -t rig_fabrics_add)" = function ] || { echo "no rig_fabrics_add to stub" > "$tmp/connect.out"; return 3; }
	(
		RIG_HOST=$1 fails=$2 not_ready=${3:-0} RIG_WIRE_FAULTED=${4:-}
		RIG_FAILFILE=$tmp/connect.failed
		rm -f "$RIG_FAILFILE"
		echo 0 > "$tmp/asks"
		echo 0 > "$tmp/connects"
		rig_wire() {
			local n
			n=$(cat "$tmp/asks")
			echo $((n + 1)) > "$tmp/asks"
			[ "$*" = "target ready" ] && [ "$n" -ge "$not_ready" ]
		}
		rig_fabrics_add() {
			local n
			n=$(cat "$tmp/connects")
			echo $((n + 1)) > "$tmp/connects"
			[ "$n" -ge "$fails" ] || { echo "sh: write error: Connection reset by peer" >&2; return 1; }
		}
		sleep() { :; }
		rig_has_ns() { :; }
		rig_wire_connect ",keep_alive_tmo=5" || exit 2
		[ ! -e "$RIG_FAILFILE" ] || exit 1
	) > "$tmp/connect.out" 2>&1
}
# connect_is STATUS ARGS... - wire_connect ARGS exits STATUS
connect_is() {
	local want=$1 got
	shift
	wire_connect "$@"
	got=$?
	cat "$tmp/connect.out"
	[ "$got" = "$want" ]
}
expect "wire connect: ours connected at the first attempt passes" 0 connect_is 0 ours 0
expect "wire connect: ours that needed a retry with no fault injected fails" 0 connect_is 1 ours 1
expect "... the retry logged" 0 grep -q "^RIG-LOG connect: attempt 1 failed" "$tmp/connect.out"
expect "wire connect: stock that needed a retry passes" 0 connect_is 0 stock 2
expect "... its retries logged" 0 grep -q "^RIG-LOG connect: attempt 2 failed" "$tmp/connect.out"
expect "wire connect: ours that needed a retry after a fault passes" 0 connect_is 0 ours 1 0 1
expect "wire connect: a target guest not serving yet is waited for, not retried" 0 connect_is 0 ours 0 2
connects_asks() { echo "connects, asks: $(cat "$tmp/connects" "$tmp/asks")"; [ "$(cat "$tmp/connects" "$tmp/asks")" = "$(printf '1\n3')" ]; }
expect "... one connect, once it served" 0 connects_asks
expect "wire connect: a target guest that never serves fails" 0 connect_is 2 ours 0 99

# link-cut: ours' bound on a connect the RDMA CM leaves unanswered
# (cm_wait_s, as the scenario sets it, else host/main.c's default) after
# the connect's reconnect_delay must end inside the scenario's wait for
# the reconnect, and before the kernel reports the I/O held since the
# cut as hung (120 s): wire_host run with what it calls stubbed, each
# step in $tmp/cut.steps
cut_steps() {
	rm -f "$tmp/cut.steps"
	mkdir -p "$tmp/sysmod/nvme_rdma/parameters"
	rm -f "$tmp/sysmod/nvme_rdma/parameters/cm_wait_s"
	(
		RIG_HOST=ours RIG_SYS_MODULE=$tmp/sysmod RIG_FAILFILE=$tmp/cut.failed
		. "$root/tests/faults/link-cut.sh"
		rig_load_host() { :; }
		rig_wire_connect() { echo "connect $1" >> "$tmp/cut.steps"; }
		rig_fs_start() { :; }
		rig_nvme_ns() { echo /dev/null; }
		rig_fio_load() { :; }
		rig_wire() { echo "wire $*" >> "$tmp/cut.steps"; }
		sleep() { echo "sleep $1" >> "$tmp/cut.steps"; }
		rig_wait() { echo "wait $*" >> "$tmp/cut.steps"; }
		rig_reconnect_since() { echo 1; }
		rig_fio_done() { :; }
		rig_fs_check() { :; }
		rig_ctrl_live() { :; }
		rig_disconnect() { :; }
		wire_host
	) > "$tmp/cut.out" 2>&1
	s=$tmp/cut.steps
	cut_wait=$(awk '$1 == "wait" && $3 == "rig_reconnected" { print $2 }' "$s")
	cut_delay=$(sed -n 's/^connect .*reconnect_delay=\([0-9]*\).*/\1/p' "$s")
	cut_s=$(awk '$1 == "wire" && $2 == "link" && $3 == "off" { on = 1; next } on && $1 == "sleep" { print $2; exit }' "$s")
	cut_cm=$(cat "$tmp/sysmod/nvme_rdma/parameters/cm_wait_s" 2> /dev/null ||
		sed -n 's/^unsigned int nvme_rdma_cm_wait_s = \([0-9]*\);$/\1/p' "$root/host/main.c")
}
cut_steps
cut_bound() {	# cut_bound ok|hung - the bound inside the wait, or before a hung task
	echo "cut ${cut_s:-?} s, reconnect_delay ${cut_delay:-?} s, cm_wait_s ${cut_cm:-?} s, wait for the reconnect ${cut_wait:-?} s"
	[ -n "$cut_s" ] && [ -n "$cut_delay" ] && [ -n "$cut_cm" ] && [ -n "$cut_wait" ] || return 1
	case $1 in
	ok) [ "$cut_wait" -gt $((cut_delay + cut_cm)) ] ;;
	hung) [ $((cut_s + cut_delay + cut_cm)) -lt 120 ] ;;
	esac
}
expect "link-cut: ours' retry of a connect the CM lost comes inside its wait for the reconnect" 0 cut_bound ok
expect "link-cut: ... and before the I/O held since the cut is reported hung (120 s)" 0 cut_bound hung
rm "$tmp/bin/dmesg"
