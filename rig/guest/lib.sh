# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - helpers for rig scenarios (tests/*.sh), sourced by the guest's
# /init. Runs under busybox sh: busybox runs its own applets before anything
# on PATH, so kmod and iproute2 are always called by full path.
#
# A scenario is a plain script of helper calls. rig_check records a failure
# and goes on; rig_must stops the scenario. The scenario passes if nothing
# failed and it ran to the end.

RIG_FAILFILE=/run/rig-failed
RIG_KMEMLEAK=/sys/kernel/debug/kmemleak
# where a scenario's first failed check asks the kernel for its blocked
# tasks (rig_fail); the build machine's tests of these helpers use a file
RIG_SYSRQ=/proc/sysrq-trigger
# whose tasks' kernel stacks a first failed check prints (rig_fail_stacks),
# lockdep's state and the modules loaded; the build machine's tests of these
# helpers (tests/host/guest-helpers.sh) give stubs for these paths
RIG_PROC=/proc
# sysfs, for the controllers and tracing (rig_reset), and its modules'
# build IDs, versions and parameters
RIG_SYS=/sys
RIG_SYS_MODULE=/sys/module
# the build IDs of the image's modules, recorded at image build; where the
# modules are; the files rig_reset clears
RIG_BUILDIDS=/rig/buildids
RIG_LIB_MODULES=/lib/modules
RIG_TMP=/tmp
# how a scenario past its deadline ends the guest (rig_deadline): at once,
# without the sync of "reboot -f", which waits for the very locks the
# stuck scenario holds (a block device's open_mutex)
RIG_POWEROFF=rig_reboot_now
# our host's statistics (Documentation/statistics.md)
RIG_HOST_STATS=/sys/kernel/debug/nvme_rdma
KVER=$(uname -r)
MODPROBE=/sbin/modprobe
INSMOD=/sbin/insmod
RMMOD=/sbin/rmmod
MODINFO=/sbin/modinfo
IP=/usr/sbin/ip
# iproute2's (busybox's tc, first on PATH, has no netem and no replace)
TC=/usr/sbin/tc
NVMET_CFS=/sys/kernel/config/nvmet
# fio's terse output, read back by rig_fio_verify
RIG_FIO_OUT=/tmp/fio.out

# Addresses of the single-node fabric: target and host share one RDMA device.
RIG_IP4=10.77.0.1
RIG_IP6=fd77::1
RIG_NQN=nqn.2026-11.io.nvmeof-rdma:rig

# Two guests on a wire (rig/run-pair.sh): the target guest and the host
# guest, each with soft-RoCE on its virtio NIC; ttyS1 is the control line to
# the build machine.
RIG_WIRE_TARGET=10.78.0.1
RIG_WIRE_HOST=10.78.0.2
RIG_WIRE_CTL=/dev/ttyS1

rig_log() { echo "RIG-LOG $*"; }
# rig_skip TEXT - a check this kernel or device cannot make: counted as
# skipped in the runner's summary, never only logged
rig_skip() { echo "RIG-SKIP $*"; }
# rig_figure TEXT - a measurement of a fault scenario, for the table of
# make faults (and the log)
rig_figure() { echo "RIG-FIGURE $*"; }

# guest uptime in seconds, to see where a scenario spends its time
rig_t() { cut -d' ' -f1 /proc/uptime; }

# rig_since T0 [T1] - seconds from uptime T0 (rig_t) to T1 (default now),
# one decimal
rig_since() { echo "${2:-$(rig_t)} $1" | awk '{ printf "%.1f", $1 - $2 }'; }

# rig_fail_stacks - the kernel stack of every task in NVMe or RDMA code,
# whatever its state, a RIG-FAIL-STACK line each: sysrq w shows only the
# blocked ones, and a reconnect waiting for the RDMA CM sleeps
# interruptibly (issue 19: a host that never reconnected)
rig_fail_stacks() {
	local d s
	for d in "$RIG_PROC"/[0-9]*; do
		s=$(cat "$d/stack" 2> /dev/null) || continue
		printf '%s\n' "$s" | grep -qE 'nvme|rdma|ib_|iw_' || continue
		echo "RIG-FAIL-STACK ${d##*/} $(cat "$d/comm" 2> /dev/null):" \
			"$(printf '%s\n' "$s" | awk '{ print $2 }' | paste -sd' ')"
	done
}

# rig_fail TEXT - record a failed check. At a scenario's first, the tasks
# blocked then, the stacks of those in NVMe or RDMA code and the kernel's
# log so far go to the console at once (RIG-FAIL-KLOG): a guest that hangs
# in its teardown never reaches the dump of rig_dump_log, and the console
# shows only errors and worse (warnings and worse on a wire).
rig_fail() {
	echo "RIG-CHECK FAIL $*"
	if [ ! -e $RIG_FAILFILE ]; then
		echo w > $RIG_SYSRQ 2> /dev/null
		rig_fail_stacks
		dmesg | tail -n 600 | sed 's/^/RIG-FAIL-KLOG /'
	fi
	echo "$*" >> $RIG_FAILFILE
}

# rig_check DESC CMD... - run CMD; record a failure if it fails. Returns
# CMD's exit status.
# Inside a scenario (RIG_WATCHED set), a check that begins after lockdep
# switched itself off is marked RIG-CHECK-UNWATCHED, which fails the
# scenario on the host side: a PASS means lockdep watched every check.
rig_check() {
	local desc=$1
	shift
	[ -n "${RIG_WATCHED:-}" ] && [ "$(rig_lockdep)" = 0 ] &&
		echo "RIG-CHECK-UNWATCHED $desc"
	"$@"
	local rc=$?
	if [ $rc -eq 0 ]; then
		echo "RIG-CHECK ok $desc [t=$(rig_t)]"
	else
		rig_fail "$desc (exit $rc)"
	fi
	return $rc
}

# rig_must DESC CMD... - run CMD; stop the scenario if it fails. For the
# rig's own steps (a connect, a link cut): their failure is the rig's, on
# stock as on ours (RIG-MUST-FAIL, rig_stock_pair_verdict).
rig_must() {
	rig_check "$@" && return
	echo "RIG-MUST-FAIL $1"
	exit 1
}

# rig_run_test FILE [AFTER] - run one scenario in a subshell, then the
# command AFTER (its checks count for the scenario), and print the verdict.
rig_run_test() {
	local name
	name=$(basename "$1" .sh)
	rm -f $RIG_FAILFILE
	( set -u; RIG_WATCHED=1; . "$1" )
	local rc=$?
	[ $rc -eq 0 ] || [ -e $RIG_FAILFILE ] || rig_fail "scenario exited with $rc"
	# the teardown and unload are the scenario's, watched as its checks
	[ -z "${2:-}" ] || ( RIG_WATCHED=1; $2 )
	if [ -e $RIG_FAILFILE ]; then
		echo "RIG-RESULT FAIL $name: $(head -1 $RIG_FAILFILE)"
	else
		echo "RIG-RESULT PASS $name"
	fi
}

# rig_lockdep - 1 while lockdep watches, 0 once it switched itself off
# (after its first report, even an inherited one); nothing without lockdep.
rig_lockdep() {
	[ -r $RIG_PROC/lockdep_stats ] &&
		sed -n 's/^ *debug_locks: *//p' $RIG_PROC/lockdep_stats
}

# rig_dump_log - what the host side judges besides the result: whether
# lockdep still watched, and the kernel log since the last dump (which it
# clears, so each scenario of a boot is judged by its own messages), with
# the leaks kmemleak found since the last dump (it then forgets them). If
# the ring buffer wrapped since the last dump (tests/run boots guests with
# a 16 MiB one), part of that log is gone: kmsg-lost says so in a
# RIG-KMSG-LOST line, which fails the scenario (rig/splat.awk); so does its
# "cannot tell".
rig_dump_log() {
	local l
	l=$(rig_lockdep)
	[ -z "$l" ] || echo "RIG-LOCKDEP $l"
	echo "RIG-DMESG-BEGIN"
	/rig/bin/kmsg-lost 2>&1 | sed 's/^/RIG-KMSG-LOST /'
	dmesg -c
	if [ -w $RIG_KMEMLEAK ]; then
		cat $RIG_KMEMLEAK
		echo clear > $RIG_KMEMLEAK
	fi
	echo "RIG-DMESG-END"
}

# rig_kmemleak_forget - what kmemleak would report now (the boot's own
# allocations) is not a scenario's: scan and forget it.
rig_kmemleak_forget() {
	[ -w $RIG_KMEMLEAK ] || return 0
	echo scan > $RIG_KMEMLEAK
	echo clear > $RIG_KMEMLEAK
}

# rig_kmemleak_scan - on a kernel with kmemleak, look for leaks now (it
# reports "N new suspected memory leaks" in the kernel log, and the objects
# in its debugfs file, which rig_dump_log shows). An object counts only once
# it is 5 s old, hence the wait. The rig's debug kernel has kmemleak: there,
# a scan that cannot run (no file, or kmemleak switched itself off after an
# error of its own) fails the scenario, whose leaks would go unseen.
rig_kmemleak_scan() {
	if [ ! -e $RIG_KMEMLEAK ]; then
		case $KVER in
		*-nvmeof-debug)
			rig_fail "kmemleak: no $RIG_KMEMLEAK on the debug kernel, no leak scan"
			return 1 ;;
		esac
		return 0
	fi
	sleep 5
	echo scan 2> /dev/null > $RIG_KMEMLEAK && return 0
	rig_fail "kmemleak: the scan was refused (switched off? see the kernel log), no leak scan"
	return 1
}

# rig_reset_and_scan - rig_reset, then rig_kmemleak_scan: every module the
# scenario loaded is gone, so what is still allocated and unreferenced is a
# leak
rig_reset_and_scan() {
	rig_reset
	rig_kmemleak_scan
}

# rig_modules - the loaded modules' names, newest first, without the ones
# that cannot be unloaded at all ([permanent]: no exit function).
rig_modules() {
	awk '$4 !~ /permanent/ { print $1 }' $RIG_PROC/modules
}

# rig_scenario FILE [REST] - one scenario of a boot that runs several (the
# host side splits the console at the markers): the scenario, the guest put
# back as it found it (rig_reset's checks count for the scenario), its
# result, then its kernel log. REST: the scenarios of the boot still to
# run after it (comma-separated), for its deadline (rig_deadline).
rig_scenario() {
	local name dl
	name=$(basename "$1" .sh)
	echo "RIG-SCENARIO-BEGIN $name t=$(rig_t) lockdep=$(rig_lockdep)"
	RIG_MODULES_BEFORE=$(rig_modules)
	rig_deadline "$1" "${2:-}" &
	dl=$!
	rig_run_test "$1" rig_reset_and_scan
	kill $dl 2> /dev/null
	wait $dl 2> /dev/null
	rig_dump_log
	echo "RIG-SCENARIO-END $name t=$(rig_t)"
}

rig_reboot_now() { echo b > /proc/sysrq-trigger; }

# rig_deadline_s FILE - the seconds scenario FILE may take in this guest:
# its header's timeout (default 240) times rig.deadline_scale (tests/run,
# rig/kernels.sh: above 1 on the debug kernel)
rig_deadline_s() {
	local t
	t=$(sed -n 's/^# rig:.*[[:space:]]timeout=\([0-9]*\).*/\1/p' "$1" | head -1)
	echo $(( ${t:-240} * ${RIG_DEADLINE_SCALE:-1} ))
}

# rig_deadline FILE REST - run beside scenario FILE (rig_scenario): if it is
# still running at its deadline, it failed. The tasks blocked then, the
# stacks of those in NVMe or RDMA code and the kernel log go to the console,
# the scenario's result and end are printed, and the guest asks for a
# fresh boot for REST (RIG-RESTART, which tests/run answers) and powers
# off: a scenario stuck in the kernel cannot be unwound, and the run goes
# on with every verdict. RIG_DEADLINE_S overrides the deadline (tests).
rig_deadline() {
	local name s
	name=$(basename "$1" .sh)
	s=${RIG_DEADLINE_S:-$(rig_deadline_s "$1")}
	sleep "$s" || return 0
	echo "RIG-DEADLINE $name: still running after $s s"
	echo "RIG-CHECK FAIL deadline: still running after $s s"
	echo w > $RIG_SYSRQ 2> /dev/null
	rig_fail_stacks
	echo "RIG-RESULT FAIL $name: deadline: still running after $s s (blocked tasks and stacks above)"
	rig_dump_log
	if [ -n "$2" ]; then echo "RIG-RESTART $2"; else echo "RIG-LOG deadline: no scenario left in this boot"; fi
	echo "RIG-SCENARIO-END $name t=$(rig_t)"
	echo "RIG-END"
	$RIG_POWEROFF
}

# rig_reset - after a scenario, what it set up goes, so that the next one
# starts as on a fresh boot: its processes, every controller, the target's
# configuration, the RDMA devices and the netdev, the files in /tmp, and
# every module it loaded (newest first, a few passes: holders go before
# what they hold). A module that stays loaded is a leaked reference, and a
# controller that stays is a teardown that hangs: both fail the scenario.
rig_reset() {
	local m left n=0 l
	# busybox has killall, not pkill (which was called here and never ran)
	killall -9 fio $(ls /rig/bin) 2> /dev/null
	[ -w $RIG_SYS/kernel/tracing/events/enable ] &&
		echo 0 > $RIG_SYS/kernel/tracing/events/enable
	rig_disconnect all
	# the vCPUs tests/run booted the guest with (rig.cpus) are all online:
	# a scenario said to race across CPUs ran on as many
	[ -z "${RIG_CPUS:-}" ] ||
		rig_check "guest ran on its $RIG_CPUS vCPUs" test "$(nproc)" -eq "$RIG_CPUS"
	rig_check "reset: every controller deleted" \
		rig_wait 30 rig_no_controllers
	# rig_fs_start's filesystem and loop device hold the namespace's
	# disk, and with it nvme_core
	if [ -n "${RIG_FS_LOOP:-}" ]; then
		[ -z "${RIG_FS_WRITER:-}" ] || kill -9 "$RIG_FS_WRITER" 2> /dev/null
		killall -9 dd 2> /dev/null
		rig_fs_end
	fi
	if [ -d $NVMET_CFS ]; then
		rig_unexport
		rmdir $NVMET_CFS/hosts/* 2> /dev/null
	fi
	for l in $(rdma link show 2> /dev/null | awk '{ print $2 }'); do
		rdma link delete "${l%%/*}"
	done
	$IP link del d0 2> /dev/null
	while :; do
		left=
		for m in $(rig_modules); do
			case " $(echo $RIG_MODULES_BEFORE) " in
			*" $m "*) continue ;;
			esac
			$RMMOD "$m" 2> /dev/null || left="$left $m"
		done
		[ -n "$left" ] && [ $n -lt 50 ] || break
		n=$((n + 1))
		sleep 0.2
	done
	[ -z "$left" ] || rig_fail "reset: still loaded after the scenario:$left"
	# a regular file on a vanished device's path would keep devtmpfs from
	# making the next device's node there
	for l in /dev/nvme*; do
		[ -f "$l" ] && rm -f "$l"
	done
	rm -rf "${RIG_TMP:?}"/*
}

# rig_wait SECONDS CMD... - poll CMD every 0.2 s until it succeeds.
rig_wait() {
	local n=$(( $1 * 5 ))
	shift
	while [ $n -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.2
		n=$(( n - 1 ))
	done
	return 1
}

# rig_setup_rdma [rxe|siw|rxe-hw] - a dummy netdev (MTU 9000, so rxe runs at
# 4096) with IPv4 and IPv6 addresses, and a software RDMA device on it. rxe-hw
# is the rig's rxe with a hardware RNIC's rules (rig/rxe-hw/rxe_hw.c).
rig_setup_rdma() {
	$MODPROBE -q ipv6
	rig_must "load dummy" $MODPROBE dummy
	rig_must "create d0" $IP link add d0 type dummy
	$IP link set d0 mtu 9000 up
	$IP link set lo up
	rig_must "ipv4 address" $IP addr add $RIG_IP4/24 dev d0
	rig_must "ipv6 address" $IP -6 addr add $RIG_IP6/64 dev d0 nodad
	rig_rdma_link "${1:-${RIG_RDMA:-rxe}}" d0
}

# rig_rdma_link KIND NETDEV - a software RDMA device of KIND (rxe, siw,
# rxe-hw) on NETDEV; sets RIG_RDMA_DEV (rxe0, siw0, rxehw0) and
# RIG_RDMA_TYPE, its rdma link type (rxe, siw, rxe_hw)
rig_rdma_link() {
	local kind=$1 dev=$2
	# rxe needs a crc32 implementation before it loads
	$MODPROBE -q crc32_pclmul
	$MODPROBE -q crc32_generic
	case $kind in
	rxe) rig_must "load rdma_rxe" $MODPROBE rdma_rxe
	     rig_must "rdma link add rxe0" rdma link add rxe0 type rxe netdev "$dev" ;;
	siw) rig_must "load siw" $MODPROBE siw
	     rig_must "rdma link add siw0" rdma link add siw0 type siw netdev "$dev" ;;
	rxe-hw) rig_must "load rdma_rxe_hw" $MODPROBE rdma_rxe_hw
	     # its DMA goes through the DMA API of QEMU's pci-testdev
	     # (rig/run-guest.sh gives rxe-hw guests one)
	     rig_must "rxe-hw maps through the pci-testdev" \
		sh -c 'ls /sys/bus/pci/drivers/rxe_hw_dma | grep -q "^0000:"'
	     rig_must "rdma link add rxehw0" rdma link add rxehw0 type rxe_hw netdev "$dev" ;;
	*) rig_must "unknown rdma device '$kind'" false ;;
	esac
	RIG_RDMA_DEV=${kind/-/}0 RIG_RDMA_TYPE=${kind/-/_}
}

# rig_module_path stock|ours MODULE - the .ko that "stock" or "ours" means.
rig_module_path() {
	case $1 in
	ours) echo $RIG_LIB_MODULES/$KVER/updates/$2.ko ;;
	stock) local d
	       case $2 in
	       nvme-rdma) d=host ;;
	       nvmet-rdma) d=target ;;
	       esac
	       # compressed (.ko.xz) from Debian's 6.12 on
	       ls $RIG_LIB_MODULES/$KVER/kernel/drivers/nvme/$d/$2.ko* | head -1 ;;
	esac
}

# rig_build_id_loaded MODULE - hex build ID of the loaded module (from its
# ELF note in sysfs: 12-byte note header, "GNU\0", then the ID).
rig_build_id_loaded() {
	od -An -v -tx1 "$RIG_SYS_MODULE/$(echo "$1" | tr - _)/notes/.note.gnu.build-id" 2>/dev/null |
		tr -d ' \n' | cut -c33-
}

# rig_build_id_file PATH - build ID of a module file, recorded at image build.
rig_build_id_file() {
	awk -v p="$1" '$1 == p { print $2 }' $RIG_BUILDIDS
}

# rig_verify_loaded stock|ours MODULE - the loaded module is the one asked
# for: its build ID is that file's and not the other one's; for ours, also
# srcversion and MODULE_VERSION match the file.
rig_verify_loaded() {
	local which=$1 mod=$2 sys have want other
	sys=$RIG_SYS_MODULE/$(echo "$mod" | tr - _)
	have=$(rig_build_id_loaded "$mod")
	want=$(rig_build_id_file "$(rig_module_path "$which" "$mod")")
	if [ "$which" = ours ]; then
		other=$(rig_build_id_file "$(rig_module_path stock "$mod")")
	else
		other=$(rig_build_id_file "$(rig_module_path ours "$mod")")
	fi
	echo "RIG-MODULE $mod asked=$which build-id=$have version=$(cat $sys/version 2>/dev/null) srcversion=$(cat $sys/srcversion 2>/dev/null)"
	[ -n "$have" ] && [ "$have" = "$want" ] && [ "$have" != "$other" ] || return 1
	if [ "$which" = ours ]; then
		[ "$(cat $sys/srcversion)" = "$($MODINFO -F srcversion "$(rig_module_path ours "$mod")")" ] &&
			[ "$(cat $sys/version)" = "$($MODINFO -F version "$(rig_module_path ours "$mod")")" ] || return 1
	fi
}

# rig_load stock|ours MODULE [PARAM=VALUE...] - load one of our transports
# or the in-tree one. Ours loads by plain modprobe: updates/ wins, exactly as
# after `dkms install`. Stock is loaded by path after its dependencies.
rig_load() {
	local which=$1 mod=$2 path
	shift 2
	path=$(rig_module_path "$which" "$mod")
	if [ "$which" = ours ]; then
		rig_must "modprobe $mod${*:+ $*} (ours, from updates/)" $MODPROBE "$mod" "$@"
	else
		$MODPROBE -a $($MODINFO -F depends "$path" | tr , ' ')
		rig_must "insmod $path${*:+ $*}" $INSMOD "$path" "$@"
	fi
	rig_must "$mod loaded is $which" rig_verify_loaded "$which" "$mod"
}

rig_load_host() { rig_load "${1:-$RIG_HOST}" nvme-rdma; }

# rig_module_param MODULE PARAM VALUE - set a loaded module's parameter,
# one writable at run time
rig_module_param() { echo "$3" > "$RIG_SYS_MODULE/$1/parameters/$2"; }
# rig_load_target [stock|ours [PARAM=VALUE...]]
rig_load_target() {
	local which=${1:-$RIG_TARGET}
	[ $# -gt 0 ] && shift
	rig_load "$which" nvmet-rdma "$@"
}

# rig_target_sum NAME - a counter of our target's summed over its queues
# (Documentation/statistics.md)
rig_target_sum() {
	cat /sys/kernel/debug/nvmet_rdma/queue* |
		awk -v n="$1" '$1 == n { s += $2 } END { print s + 0 }'
}

# rig_backing ram|null [SIZE_MB] - prints the block device to export.
rig_backing() {
	case $1 in
	ram) $MODPROBE brd rd_nr=1 rd_size=$(( ${2:-256} * 1024 )) && echo /dev/ram0 ;;
	null) $MODPROBE null_blk nr_devices=1 irqmode=0 gb=4 && echo /dev/nullb0 ;;
	esac
}

# rig_export DEV [PORT_ID TRADDR ADRFAM TRSVCID INLINE] - one subsystem with
# one namespace, any host allowed, on an RDMA port.
rig_export() {
	local dev=$1 pid=${2:-1} traddr=${3:-$RIG_IP4} adrfam=${4:-ipv4} svc=${5:-4420}
	local inline=${6:-}
	local sub=$NVMET_CFS/subsystems/$RIG_NQN port=$NVMET_CFS/ports/$pid
	$MODPROBE nvmet || return 1
	if [ ! -d "$sub" ]; then
		mkdir "$sub" && echo 1 > "$sub/attr_allow_any_host" &&
			mkdir "$sub/namespaces/1" &&
			printf '%s' "$dev" > "$sub/namespaces/1/device_path" &&
			echo 1 > "$sub/namespaces/1/enable" || return 1
	fi
	mkdir "$port" &&
		echo rdma > "$port/addr_trtype" &&
		echo "$adrfam" > "$port/addr_adrfam" &&
		echo "$traddr" > "$port/addr_traddr" &&
		echo "$svc" > "$port/addr_trsvcid" || return 1
	if [ -n "$inline" ]; then
		echo "$inline" > "$port/param_inline_data_size" || return 1
	fi
	# RIG_PORT_ATTRS: more of the port's attributes, "NAME=VALUE ..."
	for a in ${RIG_PORT_ATTRS:-}; do
		echo "${a#*=}" > "$port/${a%%=*}" || return 1
	done
	ln -s "$sub" "$port/subsystems/$RIG_NQN"
}

# rig_serve_ram MB - the one-guest fabric most scenarios start from: RDMA
# set up, this pairing's target and host loaded, a RAM disk of MB MiB
# (RIG_DEV) exported on $RIG_IP4:4420 (rig_export); stops the scenario if
# any of it fails
rig_serve_ram() {
	rig_setup_rdma
	rig_load_target
	rig_load_host
	RIG_DEV=$(rig_backing ram "$1")
	rig_must "brd backing device" test -b "$RIG_DEV"
	rig_must "export $RIG_DEV on $RIG_IP4:4420" rig_export "$RIG_DEV"
}

# rig_unexport - remove every port and subsystem (ports first: a subsystem
# linked into a port cannot go).
rig_unexport() {
	local p s
	for p in $NVMET_CFS/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p"/subsystems/*
		rmdir "$p"/referrals/* 2> /dev/null
		rmdir "$p"
	done
	for s in $NVMET_CFS/subsystems/*; do
		[ -d "$s" ] || continue
		rm -f "$s"/allowed_hosts/*
		for n in "$s"/namespaces/*; do
			[ -d "$n" ] || continue
			echo 0 > "$n/enable"
			rmdir "$n"
		done
		rmdir "$s"
	done
}

# rig_dev_node NAME - is /dev/NAME the block device NAME? Says what is in
# the way when it is not: a regular file there (a program that created its
# file on a vanished device's path) keeps devtmpfs from making the node.
rig_dev_node() {
	[ -b "/dev/$1" ] && return 0
	[ -e "/dev/$1" ] &&
		rig_log "/dev/$1 is not a block device but: $(ls -l "/dev/$1")" >&2
	return 1
}

# rig_nvme_ns [NSID] - the block device of our subsystem's namespace NSID
# (default 1), if present:
# the multipath head (under the nvme-subsystem) or, without multipath, the
# controller's own namespace. Found by its nsid, not its name: a head that
# comes back while the old one is still being torn down gets another
# instance number (nvme0n2 for namespace 1).
rig_nvme_ns() {
	local s d
	for s in /sys/class/nvme-subsystem/nvme-subsys* /sys/class/nvme/nvme*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$RIG_NQN" ] || continue
		for d in "$s"/nvme*n*; do
			[ "$(cat "$d/nsid" 2>/dev/null)" = "${1:-1}" ] || continue
			rig_dev_node "${d##*/}" || continue
			echo "/dev/${d##*/}"
			return 0
		done
	done
	return 1
}

rig_has_ns() { [ -b "$(rig_nvme_ns)" ]; }

# rig_no_controllers - true when no NVMe controller is left (for rig_wait)
rig_no_controllers() { ! ls -d $RIG_SYS/class/nvme/nvme*/ > /dev/null 2>&1; }

# rig_connect [TRADDR TRSVCID] [nvme connect options...] - connect, wait for
# the namespace, print its device.
rig_connect() {
	local traddr=${1:-$RIG_IP4} svc=${2:-4420}
	[ $# -ge 2 ] && shift 2 || shift $#
	nvme connect -t rdma -a "$traddr" -s "$svc" -n $RIG_NQN "$@" >&2 || return 1
	rig_wait 30 rig_has_ns || return 1
	rig_nvme_ns
}

# rig_connect_host N TRADDR [OPTIONS] - a controller for host number N
# (its own host NQN and host ID, from N) to the rig's subsystem at TRADDR
# port 4420 with the fabrics OPTIONS (",nr_io_queues=1,..."), straight to
# the kernel as nvme-cli does (it refuses a second connection to one
# subsystem and address); returns when the controller is live or failed
rig_connect_host() {
	local id
	id=$(printf '00000000-0000-4000-8000-%012d' "$1")
	echo "transport=rdma,traddr=$2,trsvcid=4420,nqn=$RIG_NQN,hostnqn=nqn.2014-08.org.nvmexpress:uuid:$id,hostid=$id${3:-}" \
		> /dev/nvme-fabrics
}

# rig_disconnect [NQN] - delete every controller of the subsystem (default
# the rig's; "all" for every controller), the way `nvme disconnect` and
# `nvme disconnect-all` do: a write to delete_controller, which returns once
# the controller is gone. Not nvme-cli itself: it holds the namespace open
# while it deletes the controller, so the last reference to the namespace
# head goes in its close(), under the disk's open_mutex, where nvme-core
# flushes the partition scan work. The lockdep report that follows is
# nvme-core's (rig/splat.sh lists it), but lockdep switches itself off after
# any report, which would leave the rest of the guest's run unchecked.
rig_disconnect() {
	local nqn=${1:-$RIG_NQN} c rc=0
	for c in $RIG_SYS/class/nvme/nvme*; do
		[ -e "$c/delete_controller" ] || continue
		[ "$nqn" = all ] || [ "$(cat "$c/subsysnqn")" = "$nqn" ] || continue
		echo 1 > "$c/delete_controller" || rc=1
	done
	return $rc
}

# rig_bytes N[k|m] - fio's size units in bytes
rig_bytes() {
	case $1 in
	*[kK]) echo $(( ${1%?} * 1024 )) ;;
	*[mM]) echo $(( ${1%?} * 1024 * 1024 )) ;;
	*) echo "$1" ;;
	esac
}

# rig_volume SIZE [FLOOR] - SIZE (fio's units), or on the debug kernel an
# eighth of it but not under FLOOR bytes (nor over SIZE): KASAN and lockdep
# make a 4 KiB I/O cost about 8 ms there (10x Debian's kernel), so a scenario
# checks each path with less volume.
rig_volume() {
	local size floor=${2:-0} q
	case $KVER in
	*-nvmeof-debug) ;;
	*) echo "$1"; return ;;
	esac
	size=$(rig_bytes "$1")
	q=$(( size / 8 ))
	[ "$floor" -gt "$size" ] && floor=$size
	[ "$q" -lt "$floor" ] && q=$floor
	echo "$(( q / 1024 ))k"
}

# rig_fio_spread - fio options that pin job N to CPU N: with one job per
# CPU, every CPU submits, so (one I/O queue per CPU) every I/O queue carries
# I/O at once; nothing on a guest of one vCPU
rig_fio_spread() {
	local n
	n=$(nproc)
	[ "$n" -gt 1 ] && echo "--cpus_allowed=0-$((n - 1)) --cpus_allowed_policy=split"
}

# rig_fio_load DEV SECONDS [BS [FIO ARGS...]] - writes of BS (default 4k) at
# QD16 for SECONDS over 16 MiB, each block read back and verified from a
# backlog while the load runs; fails on any I/O error or mismatch (output in
# /tmp/load.out). Run it in the background and end it with rig_fio_done.
# On a guest of several vCPUs, one job per CPU (rig_fio_spread), each on its
# own slice of the 16 MiB (a job verifies only what it wrote itself).
# allow_file_create=0: once the device is removed under it, fio would
# otherwise create a regular file at its /dev path, where the namespace's
# node cannot appear again when the device comes back.
rig_fio_load() {
	local dev=$1 secs=$2 bs=${3:-4k} jobs
	shift $(( $# < 3 ? $# : 3 ))
	jobs=$(nproc)
	fio --name=load --filename="$dev" --direct=1 --ioengine=libaio \
		--allow_file_create=0 \
		--rw=randwrite --bs="$bs" --iodepth=16 --numjobs="$jobs" \
		--size=$((16 / jobs))M --offset_increment=$((16 / jobs))M $(rig_fio_spread) \
		--time_based --runtime="$secs" --verify=crc32c --verify_backlog=64 \
		--verify_fatal=1 --output=/tmp/load.out "$@" > /dev/null 2>&1
}

# rig_io_queues_idle - the I/O queues of our host's one controller that
# carried no Read or Write command so far (its statistics, which live as
# long as the controller), "queue<N>" a line, after a check that it has one
# I/O queue per CPU as nvme connect asks; fails where it cannot tell (no
# statistics: the stock host; more than one controller).
rig_io_queues_idle() {
	local d f n
	d=$(ls -d "$RIG_HOST_STATS"/nvme* 2> /dev/null)
	[ "$(echo "$d" | grep -c .)" = 1 ] ||
		{ echo "not one controller in our host's statistics ($RIG_HOST_STATS): $(echo $d)"; return 1; }
	n=$(awk '$1 == "queues" { print $2 - 1 }' "$d/ctrl")
	[ "$n" = "$(nproc)" ] || { echo "$n I/O queues, $(nproc) CPUs"; return 1; }
	for f in $(seq 1 "$n"); do
		awk '$1 == "cmds_read" || $1 == "cmds_write" { c += $2 } END { exit c == 0 }' \
			"$d/queue$f" || echo "queue$f"
	done
}

# rig_io_queues_all_busy - has every I/O queue of our host's controller
# carried I/O (rig_io_queues_idle prints nothing)?
rig_io_queues_all_busy() {
	local idle
	idle=$(rig_io_queues_idle) || { rig_log "$idle"; return 1; }
	[ -z "$idle" ] || { rig_log "I/O queues that carried nothing: $(echo $idle)"; return 1; }
}

# rig_fio_done PID - wait for a background rig_fio_load: did it succeed?
rig_fio_done() {
	wait "$1" && return 0
	tail -15 /tmp/load.out
	return 1
}

# rig_fio_verify DEV RW BS QD [JOBS] [SIZE] [FIO OPTIONS...] - write then
# read back and check every block with crc32c; fails on any mismatch or I/O
# error. SIZE per job (default 16M) is rig_volume's: less on the debug kernel.
rig_fio_verify() {
	local dev=$1 rw=$2 bs=$3 qd=$4 jobs=${5:-1} size
	# on the debug kernel less, but enough to keep QD I/Os in flight
	size=$(rig_volume "${6:-16M}" $(( $(rig_bytes "$bs") * qd )))
	shift $(( $# < 6 ? $# : 6 ))
	fio --name=verify --filename="$dev" --ioengine=libaio --direct=1 \
		--allow_file_create=0 --thread --disk_util=0 \
		--rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$jobs" \
		--size="$size" --offset_increment="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_backlog=0 \
		--group_reporting --output-format=terse --terse-version=3 "$@" > "$RIG_FIO_OUT" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || { tail -20 "$RIG_FIO_OUT"; return $rc; }
	# terse v3: field 6 = read io (KiB), field 47 = write io (KiB). Every
	# run writes and reads back what it wrote: both must have moved bytes
	# (an exit status of 0 alone is also what a run that did nothing gets)
	awk -F';' -v what="rw=$rw bs=$bs qd=$qd jobs=$jobs" '
		NF >= 47 && $6 != "" {
			printf "RIG-FIO %s read_kib=%s write_kib=%s\n", what, $6, $47
			if ($6 > 0 && $47 > 0) moved = 1
		}
		END { if (!moved) { print "RIG-LOG fio moved no data: " what; exit 1 } }' "$RIG_FIO_OUT"
}

# rig_unload MODULE... - rmmod must succeed: a refused unload means a leaked
# reference.
rig_unload() {
	local m
	for m in "$@"; do
		[ -d /sys/module/$(echo "$m" | tr - _) ] || continue
		rig_check "rmmod $m" $RMMOD "$m"
	done
}

# rig_unload_refused MODULE - rmmod must be refused because the module is
# in use, and the module stay loaded (any other failure, e.g. a mistyped
# name, is not the refusal asked for)
rig_unload_refused() {
	local out
	out=$($RMMOD "$1" 2>&1) && { rig_log "rmmod $1 succeeded"; return 1; }
	rig_log "rmmod $1: $out"
	echo "$out" | grep -q 'is in use' && [ -d "/sys/module/$(echo "$1" | tr - _)" ]
}

# rig_wire_setup - this side of a two-guest run (RIG_ROLE target or host):
# its NIC up with its address, rxe on it, the control line open on fd 3
rig_wire_setup() {
	local ip=$RIG_WIRE_HOST nic
	[ "$RIG_ROLE" = target ] && ip=$RIG_WIRE_TARGET
	$MODPROBE -q ipv6
	# virtio_pci is built in from 6.12 on
	$MODPROBE -q virtio_pci
	rig_must "load virtio_net" $MODPROBE virtio_net
	rig_must "a NIC" rig_wait 10 sh -c 'ls /sys/class/net | grep -qv "^lo$"'
	nic=$(ls /sys/class/net | grep -v '^lo$' | head -1)
	$IP link set lo up
	rig_must "$nic up" $IP link set "$nic" up
	rig_must "$nic address $ip" $IP addr add $ip/24 dev "$nic"
	rig_rdma_link rxe "$nic"
	RIG_WIRE_NIC=$nic
	stty -F $RIG_WIRE_CTL raw -echo
	exec 3<> $RIG_WIRE_CTL
}

# rig_wire REQUEST - ask the build machine for a fault on the wire ("link
# off", "link on": the host guest's end of it) and wait for its "ok"; any
# other answer ("failed: " and why: rig/run-pair.sh) fails. A request
# other than "target ready" and "target mark" is a fault: a connect after
# it may need retries (RIG_WIRE_FAULTED, rig_wire_connect).
rig_wire() {
	local reply=
	case $* in
	"target ready"|"target mark "*) ;;
	*) RIG_WIRE_FAULTED=1 ;;
	esac
	echo "$*" >&3
	read -r -t 30 reply <&3
	[ "$reply" = ok ] || { rig_log "wire: '$*' answered '$reply'"; return 1; }
	rig_log "wire: $* at t=$(rig_t)"
}

# rig_wire_serve - the target side of a fault scenario that needs no more:
# a 256 MiB ramdisk exported on the wire, served until the host guest ended.
# Its size is for rig_fs_start's writer, beyond fio's first 16 MiB: with 64
# MiB its 32 MiB ext4 was full after 393 files (link-flap's 110 s, ours and
# stock alike, on a machine a little faster), and the next write failed.
rig_wire_serve() {
	local dev
	rig_load_target
	dev=$(rig_backing ram 256)
	rig_must "brd backing device" test -b "$dev"
	rig_must "export $dev on $RIG_WIRE_TARGET:4420" rig_export "$dev" 1 $RIG_WIRE_TARGET
	RIG_WIRE_DEV=$dev
	# the host guest connects once it hears this (rig_wire_connect)
	echo ready >&3
	rig_must "the host guest ended" rig_wire_wait_end
}

# rig_fabrics_add OPTIONS - a controller made with the fabrics OPTIONS,
# straight through the kernel's fabrics device as nvme-cli does; why the
# kernel refused it on stderr
rig_fabrics_add() { echo "$1" > /dev/nvme-fabrics; }

# rig_wire_connect OPTIONS - connect to the target guest with the fabrics
# OPTIONS (",ctrl_loss_tmo=12,..."), through the fabrics device as nvme-cli
# does (nvme-cli 2.4 has no option for fast_io_fail_tmo), once the target
# guest, which boots beside this one, says it serves ("target ready", two
# minutes at most); then wait for the namespace. A connect that fails then
# is retried every 2 s for two minutes, each retry logged. Ours needing a
# retry with no fault asked of the wire before (rig_wire) is a flaky
# connect, a failure; stock's (the reference) is only logged, and so is a
# retry after a fault, whose repair the fabric may still be taking in.
rig_wire_connect() {
	local n=0 err opts
	until rig_wire target ready; do
		n=$((n + 1))
		[ $n -lt 6 ] || { rig_log "connect: the target guest never said it serves"; return 1; }
	done
	opts="transport=rdma,traddr=$RIG_WIRE_TARGET,trsvcid=4420,nqn=$RIG_NQN,hostnqn=$(cat /etc/nvme/hostnqn),hostid=$(cat /etc/nvme/hostid)$1"
	n=0
	until err=$(rig_fabrics_add "$opts" 2>&1); do
		n=$((n + 1))
		rig_log "connect: attempt $n failed${err:+ ($err)}, ${RIG_HOST:-} host${RIG_WIRE_FAULTED:+, after a fault}"
		[ $n -lt 60 ] || return 1
		sleep 2
	done
	[ $n -eq 0 ] || [ "${RIG_HOST:-}" != ours ] || [ -n "${RIG_WIRE_FAULTED:-}" ] ||
		rig_fail "connect: ours needed $n retries with no fault injected (a flaky connect)"
	rig_wait 30 rig_has_ns
}

# rig_reconnects - how many times a controller reconnected by itself;
# rig_reconnected - has one (for rig_wait)?
rig_reconnects() { dmesg | grep -c "Successfully reconnected"; }
rig_reconnected() { [ "$(rig_reconnects)" -gt 0 ]; }

# rig_klog_t PATTERN [last] - the kernel log's own timestamp of the first
# message matching PATTERN (with "last": the newest); nothing if none
rig_klog_t() {
	dmesg | awk -F'[][]' -v p="$1" -v last="${2:-}" '
		$0 ~ p { t = $2 + 0; if (last == "") { print t; exit } }
		END { if (last != "" && t != "") print t }'
}

# rig_klog_spans START END [T0] - the spans in the kernel log (messages
# after uptime T0) from a message matching START to the next matching END:
# "COUNT MEAN LONGEST" in seconds, nothing if there is none. A driver's
# own time, where a scenario's loop also times user space or a timer's
# phase (reset-unload's resets, link-flap's recoveries).
rig_klog_spans() {
	dmesg | awk -F'[][]' -v a="$1" -v b="$2" -v t0="${3:-0}" '
		$2 + 0 < t0 + 0 { next }
		$0 ~ a { s = $2 + 0; on = 1; next }
		$0 ~ b && on { d = $2 - s; t += d; n++; if (d > m) m = d; on = 0 }
		END { if (n) printf "%d %.2f %.2f\n", n, t / n, m }'
}

# rig_reconnect_since T0 - seconds from uptime T0 (rig_t) to the newest
# "Successfully reconnected" by the kernel log's own timestamp, one
# decimal ("?" if none): what rig_wait's polling (every 0.2 s, a dmesg
# each) adds is not in it (it put 0.2 to 0.8 s on sub-second reconnects)
rig_reconnect_since() {
	local t
	t=$(rig_klog_t "Successfully reconnected" last)
	if [ -z "$t" ]; then echo "?"; else rig_since "$1" "$t"; fi
}

# rig_ctrl_live - is a controller live (for rig_wait)?
rig_ctrl_live() { grep -q live /sys/class/nvme/nvme*/state; }

# rig_fio_bg DEV SECS [BS [FIO OPTIONS...]] - rig_fio_load in the
# background, its exit status in /tmp/fio.rc once it ends; rig_fio_failed -
# check that it ended within 60 s, and with an error (failed, not hung)
rig_fio_bg() {
	rm -f /tmp/fio.rc
	( rig_fio_load "$@"; echo $? > /tmp/fio.rc ) &
}
rig_fio_failed() {
	rig_check "fio ended" rig_wait 60 test -s /tmp/fio.rc
	rig_check "fio ended with an error" test "$(cat /tmp/fio.rc)" != 0
}

# rig_fio_ended_failing - the same as one judge (for a check that must be
# a scenario's last: see rig_fio_heavy)
rig_fio_ended_failing() {
	rig_wait 60 test -s /tmp/fio.rc || { rig_log "fio still running 60 s later"; return 1; }
	[ "$(cat /tmp/fio.rc)" != 0 ] || { rig_log "fio ended without an error"; return 1; }
}

# rig_fio_heavy - 128 KiB writes at QD32 in the background (rig_fio_bg),
# running for 5 s. A controller deleted under it goes with the namespace
# open, which on the debug kernel can end in nvme-core's inherited lockdep
# report (rig/splat.awk): lockdep watches nothing after it, so a scenario
# does that last, judged in one check.
rig_fio_heavy() {
	rig_fio_bg "$(rig_nvme_ns)" 120 128k --iodepth=32
	sleep 5
}

# rig_fs_start DEV - an ext4 filesystem on DEV from 32 MiB on (a loop
# device: rig_fio_load uses the first 16 MiB; made by e2fsprogs' mke2fs,
# busybox's makes no ext4) mounted at /mnt/fs, and a writer that keeps
# writing files of 64 KiB of random data, each with fsync (dd conv=fsync),
# until rig_fs_check: a file whose fsync succeeded is listed with its
# md5sum in /tmp/fs.synced, one that failed in /tmp/fs.failed. Nothing
# else may use DEV from 32 MiB on meanwhile.
rig_fs_start() {
	rm -f /tmp/fs.stop /tmp/fs.failed
	: > /tmp/fs.synced
	{ $MODPROBE -a loop ext4 && RIG_FS_LOOP=$(losetup -f) &&
		losetup -o $((32 << 20)) "$RIG_FS_LOOP" "$1" &&
		/usr/sbin/mke2fs -q -t ext4 -F "$RIG_FS_LOOP" && mkdir -p /mnt/fs &&
		mount -t ext4 "$RIG_FS_LOOP" /mnt/fs; } > /tmp/fs.out 2>&1 || {
		rig_log "ext4 on $1: $(tr '\n' ' ' < /tmp/fs.out)"
		return 1
	}
	(
		n=0
		while [ ! -e /tmp/fs.stop ]; do
			n=$((n + 1))
			dd if=/dev/urandom of=/tmp/fs.src bs=64k count=1 2> /dev/null
			sum=$(md5sum < /tmp/fs.src)
			if dd if=/tmp/fs.src of=/mnt/fs/f$n bs=64k conv=fsync 2> /dev/null; then
				echo "f$n ${sum%% *}" >> /tmp/fs.synced
			else
				echo "f$n" >> /tmp/fs.failed
			fi
		done
	) &
	RIG_FS_WRITER=$!
}

# rig_fs_intact - the filesystem of rig_fs_start, unmounted (its pages
# dropped), is clean by e2fsck and, mounted again, holds every file whose
# fsync succeeded with the data written
rig_fs_intact() {
	local name sum bad=0
	umount /mnt/fs || return 1
	/usr/sbin/e2fsck -fn "$RIG_FS_LOOP" > /tmp/fsck.out 2>&1 || {
		tail -15 /tmp/fsck.out
		return 1
	}
	mount -t ext4 "$RIG_FS_LOOP" /mnt/fs || return 1
	while read -r name sum; do
		[ "$(md5sum < "/mnt/fs/$name" 2> /dev/null)" = "$sum  -" ] ||
			{ rig_log "ext4: $name lost or changed"; bad=$((bad + 1)); }
	done < /tmp/fs.synced
	[ "$bad" = 0 ]
}

# rig_fs_check WHAT - end rig_fs_start's writer: it wrote files through
# WHAT, none failed, and rig_fs_intact; then the filesystem goes
rig_fs_check() {
	touch /tmp/fs.stop
	wait "$RIG_FS_WRITER"
	rig_figure "ext4: $(wc -l < /tmp/fs.synced) files written with fsync through the $1"
	rig_check "ext4: files written through the $1" test -s /tmp/fs.synced
	rig_check "ext4: no write or fsync failed through the $1" test ! -e /tmp/fs.failed
	rig_check "ext4: clean, and every fsync'd file intact after the $1" rig_fs_intact
	rig_fs_end
}

# rig_fs_end - the filesystem of rig_fs_start unmounted, its loop device gone
rig_fs_end() {
	umount /mnt/fs 2> /dev/null
	losetup -d "$RIG_FS_LOOP" 2> /dev/null
	RIG_FS_LOOP= RIG_FS_WRITER=
}

# rig_wire_outage WHAT FAULT REPAIR SECONDS - on the host guest, connected:
# under a verified fio load and an ext4 writer (rig_fs_start), the fault
# asked for (rig_wire FAULT) and SECONDS later its repair; the controller
# must reconnect by itself (how long after the repair is printed), fio
# verify every block, every fsync'd file be intact, the controller be live
rig_wire_outage() {
	local pid t_on
	rig_must "ext4 beside the load" rig_fs_start "$(rig_nvme_ns)"
	rig_fio_load "$(rig_nvme_ns)" 40 &
	pid=$!
	sleep 5
	# the fault and its repair are the rig's steps: one it could not do
	# fails the run on stock too (rig_must)
	rig_must "$1: $2" rig_wire $2
	sleep "$4"
	rig_must "$1: $3" rig_wire $3
	t_on=$(rig_t)
	rig_check "the controller reconnected by itself" rig_wait 60 rig_reconnected &&
		rig_figure "reconnected $(rig_reconnect_since $t_on) s after '$3'"
	rig_check "fio verified every block through the $1" rig_fio_done $pid
	rig_fs_check "$1"
	rig_check "controller live" rig_ctrl_live
}

# rig_wire_restart - the target guest's whole stack unloaded and set up
# again as a rebooted target restores its saved configuration: the same
# subsystem serial number and namespace identifiers (nvmet makes up new
# ones for a new subsystem and namespace, and a host that sees a
# namespace's identifiers change drops it), the same export
rig_wire_restart() {
	local sub=$NVMET_CFS/subsystems/$RIG_NQN serial uuid nguid
	serial=$(cat "$sub/attr_serial") && uuid=$(cat "$sub/namespaces/1/device_uuid") &&
		nguid=$(cat "$sub/namespaces/1/device_nguid") || return 1
	rig_unexport && $RMMOD nvmet_rdma nvmet && rig_load_target "$RIG_TARGET" "$@" &&
		$MODPROBE nvmet &&
		mkdir "$sub" && echo 1 > "$sub/attr_allow_any_host" &&
		echo "$serial" > "$sub/attr_serial" && mkdir "$sub/namespaces/1" &&
		printf '%s' "$RIG_WIRE_DEV" > "$sub/namespaces/1/device_path" &&
		echo "$uuid" > "$sub/namespaces/1/device_uuid" &&
		echo "$nguid" > "$sub/namespaces/1/device_nguid" &&
		echo 1 > "$sub/namespaces/1/enable" &&
		rig_export "$RIG_WIRE_DEV" 1 $RIG_WIRE_TARGET
}

# rig_kernel_kib - kernel memory taken from the page allocator so far, KiB:
# every page it handed out minus every page given back (/proc/vmstat counts both exactly,
# order included), after dropping the page cache, so that cache pages read
# in between (a new namespace's partition scan) count as given back. Not
# MemTotal - MemFree: pages served from the per-CPU free lists never leave
# MemFree's count, and a fresh guest's lists are long (measured: four
# connections took 8,000 pages, MemFree fell by 2,170).
rig_kernel_kib() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	awk '/^pgalloc_/ { a += $2 } /^pgfree / { f = $2 }
	     END { print (a - f) * 4 }' /proc/vmstat
}

# rig_slab_kib - the slab allocator's total now, KiB (/proc/meminfo)
rig_slab_kib() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }

# rig_vmalloc_kib - what vmalloc holds now, KiB (/proc/meminfo): where a
# soft RDMA device keeps its queue pairs' and completion queues' rings
rig_vmalloc_kib() { awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo; }

# rig_target_buffers_kib - what our target's queues' own buffers hold now,
# KiB, by its statistics: every queue's buffer_bytes, and the shared
# receive queue's buffers once (a one-vCPU guest's device has one SRQ);
# "none" without our statistics (stock)
rig_target_buffers_kib() {
	local d=/sys/kernel/debug/nvmet_rdma
	[ -d $d ] || { echo none; return; }
	cat $d/queue* 2> /dev/null | awk '
		$1 == "buffer_bytes" { b += $2 }
		$1 == "srq_buffer_bytes" && $2 > s { s = $2 }
		END { printf "%d\n", (b + s) / 1024 }'
}

# rig_wire_do REQUEST - on the target guest, what the host guest asked of it
# (rig_wire "target REQUEST", forwarded by run-pair.sh): "port off|on" (the
# subsystem unlinked from port 1 and linked again: the port disabled and
# enabled), "ns off|on" (namespace 1 disabled and enabled), "restart
# [PARAM=VALUE...]" (a target rebooted: rig_wire_restart, nvmet-rdma loaded
# with those parameters), "rdma off|on" (its RDMA device removed and added
# again), "mark LABEL" (its kernel's memory now, in a RIG-SCALE-MARK line:
# make bench-scale)
rig_wire_do() {
	local sub=$NVMET_CFS/subsystems/$RIG_NQN
	case $1 in
	"restart "*) rig_wire_restart ${1#restart } ;;
	"mark "*) echo "RIG-SCALE-MARK ${1#mark } kib=$(rig_kernel_kib) slab_kib=$(rig_slab_kib)" \
		"vmalloc_kib=$(rig_vmalloc_kib) buffers_kib=$(rig_target_buffers_kib)" \
		"use_srq=$(cat /sys/module/nvmet_rdma/parameters/use_srq)" ;;
	"port off") rm "$NVMET_CFS/ports/1/subsystems/$RIG_NQN" ;;
	"port on") ln -s "$sub" "$NVMET_CFS/ports/1/subsystems/$RIG_NQN" ;;
	"ns off") echo 0 > "$sub/namespaces/1/enable" ;;
	"ns on") echo 1 > "$sub/namespaces/1/enable" ;;
	restart) rig_wire_restart ;;
	"rdma off") rdma link delete "$RIG_RDMA_DEV" ;;
	"rdma on") rdma link add "$RIG_RDMA_DEV" type "$RIG_RDMA_TYPE" netdev "$RIG_WIRE_NIC" ;;
	*) return 1 ;;
	esac
}

# rig_wire_wait_end - the target guest serves until the build machine says
# the host guest has ended, carrying out the host guest's requests
# meanwhile (rig_wire_do), each answered "ok" or "failed"
rig_wire_wait_end() {
	local line=
	while read -r line <&3; do
		[ "$line" = end ] && return 0
		if rig_wire_do "$line"; then
			rig_log "wire: did '$line' at t=$(rig_t)"
			echo ok >&3
		else
			rig_log "wire: '$line' failed"
			echo failed >&3
		fi
	done
	return 1
}
