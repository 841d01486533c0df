#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-pair.sh - boot two QEMU/TCG guests joined by a wire, a target and a
# host, run one fault scenario on them, save both consoles.
#
# Usage: rig/run-pair.sh KERNEL INITRD LOG TIMEOUT_S "KERNEL ARGS"
#   LOG is the host's console; the target's goes to LOG.target.
#
# The wire: each guest has a virtio NIC, joined by QEMU's socket netdev
# over this machine's loopback (the target's QEMU listens, the host's
# connects), so what one guest sends the other receives, and each QEMU can
# cut its end (set_link on its monitor). A second serial port (ttyS1 in
# the guest) of each is its control line to this script: the host guest
# asks for a fault and waits for "ok" -- "link off|on" (its own end),
# "target link off|on" (the target's end), "target stop|cont" (the target
# guest frozen and thawed); when the host guest has ended, the target guest
# is told "end" and ends too.
# Exit status: 0 if both guests reached their end marker, 1 otherwise.
set -uo pipefail

kernel=$1 initrd=$2 log=$3 tmo=$4 append=$5
dir=$(mktemp -d "${TMPDIR:-/tmp}/rig-pair.XXXXXX") || exit 1
pids=()
trap 'kill "${pids[@]}" 2> /dev/null; rm -rf "$dir"' EXIT

# a free port on the loopback for the wire
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# guest ROLE MAC NETDEV CONSOLE - one side, in the background
guest() {
	timeout --foreground -k 10 "$tmo" \
		qemu-system-x86_64 -machine q35 -accel tcg -cpu max,la57=off,erms=off,fsrm=off -m 2048 \
		-smp 1 -nographic -no-reboot -nic none -serial stdio \
		-chardev socket,id=ctl,path="$dir/$1.ctl",server=on,wait=off \
		-device isa-serial,chardev=ctl \
		-monitor unix:"$dir/$1.mon",server=on,wait=off \
		-netdev socket,id=wire,"$3" -device virtio-net-pci,netdev=wire,mac="$2" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=4 $append rig.role=$1" \
		< /dev/null > "$4" 2>&1 &
	pids+=($!)
}

# monitor SIDE COMMAND - a command on that guest's QEMU monitor
monitor() {
	printf '%s\n' "$2" | socat - UNIX-CONNECT:"$dir/$1.mon" > /dev/null
}

# wait_for PATH - until QEMU has made its socket (10 s at most)
wait_for() {
	local n=0
	until [ -S "$1" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
	[ -S "$1" ]
}

guest target 52:54:00:4e:56:01 listen=127.0.0.1:$port "$log.target"
wait_for "$dir/target.ctl" || { echo "RIG-PAIR target QEMU did not start" >> "$log"; exit 1; }
guest host 52:54:00:4e:56:02 connect=127.0.0.1:$port "$log"
host_pid=${pids[1]}
wait_for "$dir/host.ctl" || { echo "RIG-PAIR host QEMU did not start" >> "$log"; exit 1; }

# the host guest's requests, answered until its QEMU ends
coproc ctl { socat -t 1 UNIX-CONNECT:"$dir/host.ctl" STDIO 2> /dev/null; }
while IFS= read -r -u "${ctl[0]}" line; do
	line=${line%$'\r'}
	case $line in
	"link off"|"link on")
		monitor host "set_link wire ${line#link }" ;;
	"target link off"|"target link on")
		monitor target "set_link wire ${line#target link }" ;;
	"target stop"|"target cont")
		monitor target "${line#target }" ;;
	"") continue ;;
	*)
		echo "RIG-PAIR unknown request '$line'" >> "$log.pair"
		echo unknown >&"${ctl[1]}"
		continue ;;
	esac
	echo "RIG-PAIR $(date +%s.%N | cut -c1-14) $line" >> "$log.pair"
	echo ok >&"${ctl[1]}"
done
wait "$host_pid"
# the target serves until told to end: tell it, and give it time to
# put itself back and dump its kernel log
printf 'end\n' | socat -t 5 - UNIX-CONNECT:"$dir/target.ctl" > /dev/null 2>&1
wait "${pids[0]}"
[ -e "$log.pair" ] && cat "$log.pair" >> "$log"
grep -q '^RIG-END' "$log" && grep -q '^RIG-END' "$log.target"
