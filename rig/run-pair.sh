#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-pair.sh - boot two QEMU/TCG guests joined by a wire, a target and a
# host, run one fault scenario on them, save both consoles.
#
# Usage: rig/run-pair.sh KERNEL INITRD LOG TIMEOUT_S "KERNEL ARGS"
#			[TARGET_KERNEL TARGET_INITRD]
#   LOG is the host's console; the target's goes to LOG.target. The target
#   guest boots KERNEL too unless given its own (a pair of mixed kernels).
#   Each guest has one vCPU and 2 GiB; RIG_PAIR_HOST_SMP=N gives the host
#   guest N vCPUs, RIG_PAIR_HOST_MEM and RIG_PAIR_TARGET_MEM (MiB) each
#   guest its memory. RIG_APPEND adds to both kernels' command lines (to
#   chase a fault: slub_debug=FZPU, for one).
#
# The wire: each guest has a virtio NIC, joined by QEMU's socket netdev in
# datagram mode over this machine's loopback (a UDP port each, sending to
# the other's), so what one guest sends the other receives, a frame that
# finds the other QEMU's socket full is lost as on a congested link, and
# each QEMU can cut its end (set_link on its monitor). Not the stream mode:
# a frame half written into its TCP stream when the link is cut or the
# guest stopped is dropped and the rest of the stream is then written from
# the wrong offset (QEMU 7.2's send_index), which kills the wire for good.
#
# A second serial port (ttyS1 in the guest) of each is its control line to
# this script: the host guest asks for a fault and waits for the answer --
# "link off|on" (its own end), "target link off|on" (the target's end),
# "target stop|cont" (the target guest frozen and thawed by QEMU), "target
# port off|on", "target ns off|on", "target restart", "target rdma off|on"
# (passed on to the target guest, which does it and answers: rig_wire_do),
# "target ready" (has the target guest said it serves? rig_wire_serve);
# a fault done on a QEMU monitor is answered "ok" only if the monitor said
# nothing back, else "failed: " and what it said (rig/pair-lib.sh); when
# the host guest has ended, the target guest is told "end" and ends too.
# A wire that dies (see below) gets one more attempt, the first's consoles
# kept as LOG.died and LOG.target.died; so does a guest that died of the
# emulator (rig/emulator-fault.sh: a CPU state no x86-64 CPU can hold),
# the first's consoles kept as LOG.emufault and LOG.target.emufault; the
# second's log says so in a "RIG-PAIR again after" line, which names
# where the first's consoles are (tests/run counts them). A guest that
# has not reached /init within RIG_BOOT_TIMEOUT seconds (default 180, as
# rig/run-guest.sh) is stuck in its kernel's boot, before anything under
# test ran (a debug
# kernel under TCG, now and then): both guests are stopped and the pair
# booted again, three boots at most, the consoles of the boots given up
# kept as LOG.hangN and LOG.target.hangN.
# Exit status: 0 if both guests reached their end marker, 1 otherwise.
set -uo pipefail

kernel=$1 initrd=$2 log=$3 tmo=$4 append=$5
t_kernel=${6:-$kernel} t_initrd=${7:-$initrd}
dir=$(mktemp -d "${TMPDIR:-/tmp}/rig-pair.XXXXXX") || exit 1
pids=()
trap 'kill "${pids[@]}" 2> /dev/null; rm -rf "$dir"' EXIT
. "$(dirname "$0")/pair-lib.sh"
# a run again after an emulator fault or a dead wire says so first
pair_again_lines "$log" > "$log.pair"
[ -s "$log.pair" ] || rm -f "$log.pair"

# The wire's UDP sockets take the machine's net.core.rmem_default as their
# receive buffer; at Debian's 208 KiB a busy TCG guest's QEMU that falls
# behind a burst drops frames (4,080 in one reset-unload run: 128 KiB
# writes at QD32), and soft-RoCE recovers from loss slowly (link-netem). So
# it is raised to 8 MiB, for sockets made from now on, never lowered.
rmem=/proc/sys/net/core/rmem_default
if [ "$(cat $rmem)" -lt $((8 << 20)) ] && ! echo $((8 << 20)) > $rmem; then
	echo "RIG-PAIR could not raise $rmem: the wire may lose frames under load" >> "$log.pair"
fi

# two free UDP ports on the loopback, one for each end of the wire
read -r tport hport < <(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

# guest ROLE MAC NETDEV CONSOLE KERNEL INITRD VCPUS MIB - one side, in the
# background. Warnings reach the console as they happen (loglevel=5): a
# guest that dies before it dumps its log still shows what it warned of
# first (rig/emulator-fault.sh needs the first report). The CPU is
# run-guest.sh's without CMPXCHG16B (cx16=off): QEMU 7.2's TCG computes
# that instruction's flags with a stale condition-code op (its helper
# reads the op the translator has not stored yet), so a pointer can land
# in EFLAGS, with TF, DF and NT; Debian's 6.12 takes every per-CPU slab
# allocation through one and branches on its ZF, and its guests died of
# it on the wire (issue 19). Without CX16 the kernel uses its fallback
# (this_cpu_cmpxchg16b_emu, a locked slab path).
guest() {
	timeout --foreground -k 10 "$tmo" \
		qemu-system-x86_64 -machine q35 -accel tcg -cpu max,la57=off,erms=off,fsrm=off,cx16=off -m "$8" \
		-smp "$7" -nographic -no-reboot -nic none -serial stdio \
		-chardev socket,id=ctl,path="$dir/$1.ctl",server=on,wait=off \
		-device isa-serial,chardev=ctl \
		-monitor unix:"$dir/$1.mon",server=on,wait=off \
		-netdev socket,id=wire,"$3" -device virtio-net-pci,netdev=wire,mac="$2" \
		-kernel "$5" -initrd "$6" \
		-append "console=ttyS0 panic=-1 loglevel=5 $append ${RIG_APPEND:-} rig.role=$1" \
		< /dev/null > "$4" 2>&1 &
	pids+=($!)
}

# monitor_says SIDE COMMAND - a command on that guest's QEMU monitor, its
# answer printed
monitor_says() {
	printf '%s\n' "$2" | socat -t 2 - UNIX-CONNECT:"$dir/$1.mon" 2> /dev/null |
		tr -d '\r' | grep -v '^QEMU .* monitor\|^(qemu)'
}
# monitor_fault SIDE COMMAND - a fault done on that guest's QEMU monitor:
# the host guest's answer, "ok" only if the monitor said nothing back
# (monitor_answer: set_link of a wrong name says so and does nothing)
monitor_fault() {
	local said rc
	said=$(printf '%s\n' "$2" | socat -t 2 - UNIX-CONNECT:"$dir/$1.mon" 2> /dev/null)
	rc=$?
	monitor_answer "$rc" "$said"
}

# wait_for PATH - until QEMU has made its socket (10 s at most)
wait_for() {
	local n=0
	until [ -S "$1" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
	[ -S "$1" ]
}

guest target 52:54:00:4e:56:01 localaddr=127.0.0.1:$tport,udp=127.0.0.1:$hport "$log.target" \
	"$t_kernel" "$t_initrd" 1 "${RIG_PAIR_TARGET_MEM:-2048}"
wait_for "$dir/target.ctl" || { echo "RIG-PAIR target QEMU did not start" >> "$log"; exit 1; }
guest host 52:54:00:4e:56:02 localaddr=127.0.0.1:$hport,udp=127.0.0.1:$tport "$log" \
	"$kernel" "$initrd" "${RIG_PAIR_HOST_SMP:-1}" "${RIG_PAIR_HOST_MEM:-2048}"
host_pid=${pids[1]}
wait_for "$dir/host.ctl" || { echo "RIG-PAIR host QEMU did not start" >> "$log"; exit 1; }

# the boot watch: both guests at /init (their RIG-BEGIN line, which the
# console may prefix with terminal escapes) in time, or both stopped
boot_tmo=${RIG_BOOT_TIMEOUT:-180}
( waited=0
  until grep -aq 'RIG-BEGIN' "$log" && grep -aq 'RIG-BEGIN' "$log.target"; do
	kill -0 "$host_pid" 2> /dev/null || exit 0
	if [ $waited -ge "$boot_tmo" ]; then
		for side in host target; do
			f=$log
			[ $side = target ] && f=$log.target
			grep -aq 'RIG-BEGIN' "$f" ||
				echo "RIG-PAIR boot hang: the $side guest did not reach /init in ${boot_tmo}s" >> "$log.pair"
		done
		kill "${pids[0]}" "$host_pid"
		exit 0
	fi
	sleep 2
	waited=$((waited + 2))
  done ) &
pids+=($!)

# wire_drops - frames the wire lost at each end's socket (its receive
# queue full): a figure for the scenario's log
wire_drops() {
	ss -uamH "( sport = :$tport or sport = :$hport )" |
		awk -v t=":$tport" -v h=":$hport" '
			$4 ~ t"$" { who = "target" } $4 ~ h"$" { who = "host" }
			match($0, /,d[0-9]+\)/) { d[who] = substr($0, RSTART + 2, RLENGTH - 3) }
			END { printf "RIG-PAIR frames lost at the host QEMU'"'"'s socket: %d, at the target'"'"'s: %d\n", d["host"], d["target"] }'
}

# the last count of them before the host's QEMU ends (and its socket);
# and a wire that stopped carrying frames ends both guests at once: a
# guest's virtio NIC says its transmit queue timed out (QEMU's fault, not
# what runs in the guest; not understood, see testing.md's rig facts)
( while kill -0 "$host_pid" 2> /dev/null; do
	wire_drops > "$dir/drops.new" && mv "$dir/drops.new" "$dir/drops"
	if grep -q 'NETDEV WATCHDOG' "$log" "$log.target" 2> /dev/null; then
		echo "RIG-PAIR $(date +%s.%N | cut -c1-14) the wire died (a virtio NIC's transmit queue timed out)" >> "$log.pair"
		for side in host target; do
			echo "$side QEMU's view:"
			monitor_says "$side" "info network"
			monitor_says "$side" "info virtio-queue-status $(monitor_says "$side" "info virtio" |
				sed -n 's|^\(/machine/[^ ]*\) \[virtio-net\]|\1|p' | head -1) 1"
		done | sed 's/^/RIG-PAIR   /' >> "$log.pair"
		kill "${pids[0]}" "$host_pid"
		break
	fi
	sleep 2
done ) &
pids+=($!)

# the target guest's control line, open for the whole run: fd 7 to it,
# fd 8 from it (two FIFOs and a socat; each open waits for the other end).
# Should its QEMU be gone, a write there fails instead of killing this
# script with SIGPIPE before it has added its RIG-PAIR lines to the log.
trap '' PIPE
mkfifo "$dir/to-target" "$dir/from-target"
socat -t 5 UNIX-CONNECT:"$dir/target.ctl" STDIO \
	< "$dir/to-target" > "$dir/from-target" 2> /dev/null &
pids+=($!)
exec 7> "$dir/to-target" 8< "$dir/from-target"

# target_does REQUEST - pass a request on to the target guest; its answer
# (its "ready", which may come first, noted and passed over)
target_does() {
	local reply=
	printf '%s\n' "$1" >&7
	while read -r -t 60 -u 8 reply; do
		reply=${reply%$'\r'}
		[ "$reply" = ready ] || break
		: > "$dir/target-ready"
		reply=
	done
	printf '%s\n' "${reply%$'\r'}"
}

# target_serves - has the target guest said it serves ("ready", once, when
# it has exported: rig_wire_serve)? Waits 20 s for it at most, inside the
# host guest's 30 s for an answer (rig_wire): the host guest asks again.
target_serves() {
	local l
	[ -e "$dir/target-ready" ] && return 0
	while read -r -t 20 -u 8 l; do
		[ "${l%$'\r'}" = ready ] || continue
		: > "$dir/target-ready"
		return 0
	done
	return 1
}

# the host guest's requests, answered until its QEMU ends
coproc ctl { socat -t 1 UNIX-CONNECT:"$dir/host.ctl" STDIO 2> /dev/null; }
while IFS= read -r -u "${ctl[0]}" line; do
	line=${line%$'\r'}
	reply=ok
	case $line in
	"link off"|"link on")
		reply=$(monitor_fault host "set_link wire ${line#link }") ;;
	"target link off"|"target link on")
		reply=$(monitor_fault target "set_link wire ${line#target link }") ;;
	"target stop"|"target cont")
		reply=$(monitor_fault target "${line#target }") ;;
	"target ready")
		target_serves || reply="not yet" ;;
	"target port off"|"target port on"|"target ns off"|"target ns on"|\
	"target restart"|"target restart "*|"target rdma off"|"target rdma on"|"target mark "*)
		reply=$(target_does "${line#target }") ;;
	"") continue ;;
	*)
		reply=unknown ;;
	esac
	echo "RIG-PAIR $(date +%s.%N | cut -c1-14) $line: ${reply:-no answer}" >> "$log.pair"
	echo "${reply:-no answer}" >&"${ctl[1]}"
done
wait "$host_pid"
cat "$dir/drops" >> "$log.pair" 2> /dev/null
# the target serves until told to end: tell it, and give it time to
# put itself back and dump its kernel log
printf 'end\n' >&7
exec 7>&-
wait "${pids[0]}"
[ -e "$log.pair" ] && cat "$log.pair" >> "$log"
# set_aside SUFFIX - keep this attempt's consoles as LOG.SUFFIX and
# LOG.target.SUFFIX and clear up, before the pair is run again (exec)
set_aside() {
	mv "$log" "$log.$1"
	mv "$log.target" "$log.target.$1"
	rm -f "$log.pair"
	kill "${pids[@]}" 2> /dev/null
	rm -rf "$dir"
}
# a guest that died of the emulator (rig/emulator-fault.sh): once more, the
# first attempt's consoles kept aside; the second attempt's log says so
if [ -z "${RIG_PAIR_EMULATOR_FAULT:-}" ] &&
   emu=$("$(dirname "$0")/emulator-fault.sh" "$log" "$log.target"); then
	set_aside emufault
	side=host
	[[ $emu == "$log.target: "* ]] && side=target
	echo "[nvmeof-rdma] the $side guest of the pair died of the emulator, running the pair again (consoles: $log.emufault, $log.target.emufault)" >&2
	RIG_PAIR_EMULATOR_FAULT="$side guest: ${emu#*: }" exec "$0" "$@"
fi
# a dead wire: once more, the first attempt's consoles kept aside; the
# second attempt's log says so (pair_again_lines)
if died=$(pair_wire_died "$log"); then
	set_aside died
	echo "[nvmeof-rdma] the wire of the pair died, running the pair again (consoles: $log.died, $log.target.died)" >&2
	RIG_PAIR_WIRE_DIED=$died exec "$0" "$@"
fi
# a boot stuck in a kernel: again, twice at most
boots=${RIG_PAIR_BOOTS:-1}
if grep -q '^RIG-PAIR boot hang' "$log" && [ "$boots" -lt 3 ]; then
	set_aside "hang$boots"
	echo "[nvmeof-rdma] a guest of the pair did not reach /init, booting the pair again (console: $log.hang$boots)" >&2
	RIG_PAIR_BOOTS=$((boots + 1)) exec "$0" "$@"
fi
grep -q '^RIG-END' "$log" && grep -q '^RIG-END' "$log.target"
