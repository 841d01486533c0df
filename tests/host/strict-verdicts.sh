#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# strict-verdicts: what a PASS must mean, checked. A build-machine test that
# prints PASS but exits non-zero, or whose second RESULT says FAIL, fails; a
# scenario whose result says PASS fails if a check of it failed, if it made
# no check, or if lockdep was off after its teardown; a check it could not
# make is a skip the runner counts, never only a log line; a scenario past
# its deadline is ended by the guest as a failure with its blocked tasks
# and the rest of its boot handed on, and the runner's judge of the
# scenario that blocks on purpose (tests/rig-deadline.sh) passes only on
# all of that. Each with its control.
# covers: a PASS means every check agreed, lockdep watched the teardown, skips are counted
# rig: once fast=once
#
# Usage: tests/host/strict-verdicts.sh    prints one CASE PASS|FAIL line per case
. "$(dirname "$0")/lib/common.sh"
. "$root/rig/verdict.sh"

# build-machine tests: the exit status and every RESULT line count
r=$(printf 'CASE PASS one\n' | host_results - exits 2)
case_ "a test that printed CASE PASS and exited 2 fails" \
	"$(grep -q $'^-\texits\tFAIL exited with status 2' <<<"$r"; echo $?)" "$r"
r=$(printf 'RESULT PASS first\nRESULT FAIL second\n' | host_results 6.1 twice 0)
case_ "a second RESULT line that says FAIL fails" \
	"$(grep -q $'^6.1\ttwice\tFAIL second' <<<"$r"; echo $?)" "$r"
r=$(printf 'CASE PASS one\nRESULT PASS\n' | host_results - fine 0)
case_ "control: a test that passed and exited 0 has no FAIL row" \
	"$(! grep -q FAIL <<<"$r" && [ "$(wc -l <<<"$r")" = 2 ]; echo $?)" "$r"

# scenario LINE... - a scenario's log whose result says PASS, with LINEs
# among its checks
scenario() {
	echo "RIG-BEGIN job=test"
	echo "RIG-SCENARIO-BEGIN synthetic t=1.0 lockdep=1"
	printf '%s\n' "$@"
	echo "RIG-RESULT PASS synthetic"
	echo "RIG-LOCKDEP 1"
	echo "RIG-DMESG-BEGIN"
	echo "RIG-DMESG-END"
	echo "RIG-SCENARIO-END synthetic t=4.0"
	echo "RIG-END"
}
sv() { scenario "$@" > "$tmp/log"; rig_scenario_verdict "$tmp/log" 2> /dev/null; }
v=$(sv "RIG-CHECK ok first [t=2.0]")
case_ "control: a scenario with a check that passed passes" "$([ "$v" = PASS ]; echo $?)" "$v"
v=$(sv "RIG-CHECK ok first [t=2.0]" "RIG-CHECK FAIL second (exit 1)")
case_ "a failed check under a PASS result fails" \
	"$([[ $v == "FAIL a check failed"*"second (exit 1)" ]]; echo $?)" "$v"
v=$(sv "RIG-CHECK ok first [t=2.0]" "RIG-MUST-FAIL connect")
case_ "a failed rig step under a PASS result fails" "$([[ $v == "FAIL a check failed"*connect ]]; echo $?)" "$v"
v=$(sv "RIG-LOG nothing checked")
case_ "a scenario that made no check fails" "$([ "$v" = "FAIL the scenario made no check" ]; echo $?)" "$v"
scenario "RIG-CHECK ok first [t=2.0]" | sed 's/^RIG-LOCKDEP 1/RIG-LOCKDEP 0/' > "$tmp/log"
v=$(rig_scenario_verdict "$tmp/log" 2> /dev/null)
case_ "lockdep off after the teardown and unload fails" "$([[ $v == "FAIL lockdep switched itself off"* ]]; echo $?)" "$v"

# skips: each RIG-SKIP line is one, counted by the runner
scenario "RIG-CHECK ok first [t=2.0]" "RIG-SKIP no DMA-API debug on this kernel" "RIG-SKIP second" > "$tmp/log"
v=$(rig_skips "$tmp/log" | paste -sd'|' -)
case_ "each RIG-SKIP line is a skip" "$([ "$v" = "no DMA-API debug on this kernel|second" ]; echo $?)" "$v"
for t in "$root"/tests/*.sh "$root"/tests/faults/*.sh; do
	# a check a scenario leaves out on some kernel or device says so with
	# rig_skip, not only rig_log
	grep -Hn 'rig_log .*\(left out\|not checked\|on this kernel\)' "$t"
done > "$tmp/logged"
case_ "no scenario only logs a check it left out" "$([ ! -s "$tmp/logged" ]; echo $?)" "$(cat "$tmp/logged")"

# the guest's deadline (rig/guest/lib.sh rig_deadline), with stubs: the
# kernel's log, its blocked tasks and the power-off are files here
(
	mkdir -p "$tmp/bin" "$tmp/proc"
	printf '#!/bin/sh\necho "[ 9.0] task:modprobe state:D stack:0 pid:42"\n' > "$tmp/bin/dmesg"
	chmod +x "$tmp/bin/dmesg"
	PATH=$tmp/bin:$PATH
	. "$root/rig/guest/lib.sh"
	RIG_SYSRQ=$tmp/sysrq RIG_PROC=$tmp/proc RIG_KMEMLEAK=$tmp/none
	RIG_POWEROFF="touch $tmp/powered-off"
	printf '# rig: pairs=ours/ours timeout=15\n' > "$tmp/stuck.sh"
	RIG_DEADLINE_SCALE=4
	echo "deadline $(rig_deadline_s "$tmp/stuck.sh")"
	RIG_DEADLINE_S=1 rig_deadline "$tmp/stuck.sh" "b.sh,c.sh"
) > "$tmp/deadline.out" 2>&1
d=$(cat "$tmp/deadline.out")
case_ "deadline: the timeout times the kernel's scale" "$(grep -qx 'deadline 60' <<<"$d"; echo $?)" "$d"
case_ "deadline: the scenario fails, blocked tasks asked for, the rest handed on, the guest ends" \
	"$(grep -q '^RIG-DEADLINE stuck: still running after 1 s' <<<"$d" &&
		grep -q '^RIG-RESULT FAIL stuck: deadline' <<<"$d" && [ "$(cat "$tmp/sysrq")" = w ] &&
		grep -q '^RIG-RESTART b.sh,c.sh' <<<"$d" &&
		[ "$(grep -n '^RIG-RESTART\|^RIG-SCENARIO-END\|^RIG-END' <<<"$d" | cut -d: -f2 | cut -d' ' -f1 | paste -sd, -)" = \
			"RIG-RESTART,RIG-SCENARIO-END,RIG-END" ] && [ -e "$tmp/powered-off" ]; echo $?)" "$d"

# the runner's judge of tests/rig-deadline.sh: the guest's own output
# above passes; without the blocked tasks, without the deadline or with the
# rest of the boot dropped it fails
sed -n '/^RIG-DEADLINE/,$p' "$tmp/deadline.out" > "$tmp/dl.log"
v=$(rig_deadline_verdict "$tmp/dl.log")
case_ "rig-deadline: ended at its deadline with its blocked tasks passes" "$([ "$v" = PASS ]; echo $?)" "$v"
grep -v 'state:D' "$tmp/dl.log" > "$tmp/dl2.log"
v=$(rig_deadline_verdict "$tmp/dl2.log")
case_ "rig-deadline: no blocked task printed fails" "$([[ $v == "FAIL its blocked tasks"* ]]; echo $?)" "$v"
grep -v '^RIG-RESTART' "$tmp/dl.log" > "$tmp/dl3.log"
v=$(rig_deadline_verdict "$tmp/dl3.log")
case_ "rig-deadline: the rest of its boot dropped fails" "$([[ $v == "FAIL it did not hand"* ]]; echo $?)" "$v"
scenario "RIG-CHECK ok first [t=2.0]" > "$tmp/dl4.log"
v=$(rig_deadline_verdict "$tmp/dl4.log")
case_ "rig-deadline: a scenario that ended by itself fails" "$([[ $v == "FAIL no deadline ended it"* ]]; echo $?)" "$v"
