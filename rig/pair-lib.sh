# SPDX-License-Identifier: GPL-2.0
# pair-lib.sh - rig/run-pair.sh's judgements, apart so that
# tests/host/pair-control.sh can feed them: what a QEMU monitor's answer to
# a fault means for the host guest, and the lines a pair run again leaves
# in its log. Source, do not execute (bash).

# monitor_answer RC TRANSCRIPT - the answer for the host guest (rig_wire)
# to a fault done on a QEMU monitor, from socat's exit status RC and what
# it read: "ok" only if a monitor answered (its banner) and said nothing
# but its prompt and the command's echo -- set_link, stop and cont print
# nothing when they work, and an error when not ("Error: Device 'wire'
# not found"); else "failed: " and what it said, or "failed: no monitor".
monitor_answer() {
	local said
	if [ "$1" != 0 ] || ! grep -q '^QEMU .* monitor' <<<"$2"; then
		echo "failed: no monitor"
		return
	fi
	# its readline echoes the command after a prompt, with cursor moves
	said=$(tr -d '\r' <<<"$2" | grep -v '^QEMU .* monitor\|^(qemu)' |
		sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep . | paste -sd' ' -)
	if [ -z "$said" ]; then echo ok; else echo "failed: $said"; fi
}

# pair_wire_died LOG - did the wire die in this run (the wire watch's
# RIG-PAIR line in LOG, the host's console with the run's RIG-PAIR lines)
# and is the run worth another (not itself one after a dead wire)? If so,
# how it died, printed, for RIG_PAIR_WIRE_DIED.
pair_wire_died() {
	local l
	[ -z "${RIG_PAIR_WIRE_DIED:-}" ] || return 1
	l=$(grep -a -m1 '^RIG-PAIR .* the wire died' "$1") || return 1
	# without the line's "RIG-PAIR <time> "
	echo "${l#RIG-PAIR * }"
}

# pair_again_lines LOG - the RIG-PAIR lines that open the log of a pair
# run again, one for each rerun behind it (the environment the run before
# left), each naming where the consoles of the run given up were kept;
# tests/run counts them ("^RIG-PAIR again after ")
pair_again_lines() {
	[ -z "${RIG_PAIR_EMULATOR_FAULT:-}" ] ||
		echo "RIG-PAIR again after an emulator fault (consoles: $1.emufault, $1.target.emufault): $RIG_PAIR_EMULATOR_FAULT"
	[ -z "${RIG_PAIR_WIRE_DIED:-}" ] ||
		echo "RIG-PAIR again after the wire died (consoles: $1.died, $1.target.died): $RIG_PAIR_WIRE_DIED"
}
