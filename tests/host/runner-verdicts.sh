#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runner-verdicts: the checker checked. tests/run's judges (rig/verdict.sh)
# are fed what a broken run prints, and each must count it as a failure: a
# scenario that passed with lockdep off, a skipped or silent build-machine
# test, a KUnit suite that reported nothing, a -t that matches nothing.
# Each has its control that must pass, so a judge that fails everything
# cannot pass either.
# rig: once
#
# Usage: tests/host/runner-verdicts.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"
. "$root/rig/verdict.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the runner's result(), recording instead of counting
result() { printf '%s %s%s\n' "$1" "$2" "${3:+  ($3)}" >> "$tmp/results"; }
case_() {	# case_ NAME OK [GOT] - one CASE line
	if [ "$2" = 0 ]; then echo "CASE PASS $1"; else echo "CASE FAIL $1 -- got: $3"; fi
}

# scenario LOCKDEP_AT_BEGIN [LINE...] - a passing scenario's log as the
# guest prints it, with LINEs among its checks
scenario() {
	local l=$1
	shift
	echo "RIG-BEGIN job=test"
	echo "RIG-SCENARIO-BEGIN synthetic t=1.0 lockdep=$l"
	echo "RIG-CHECK ok first [t=2.0]"
	printf '%s\n' "$@"
	echo "RIG-RESULT PASS synthetic"
	echo "RIG-DMESG-BEGIN"
	echo "[    3.000000] nvme nvme0: new ctrl"
	echo "RIG-DMESG-END"
	echo "RIG-SCENARIO-END synthetic t=4.0"
	echo "RIG-END"
}
sv() { scenario "$@" > "$tmp/log"; rig_scenario_verdict "$tmp/log" 2> /dev/null; }
v=$(sv 1); case_ "scenario watched throughout passes" "$([ "$v" = PASS ]; echo $?)" "$v"
v=$(sv ""); case_ "scenario on a kernel without lockdep passes" "$([ "$v" = PASS ]; echo $?)" "$v"
v=$(sv 0); case_ "scenario begun with lockdep off fails" \
	"$([[ $v == "FAIL lockdep was off when the scenario began" ]]; echo $?)" "$v"
v=$(sv 1 "RIG-CHECK-UNWATCHED second" "RIG-CHECK ok second [t=3.0]")
case_ "scenario with a check after lockdep went off fails" \
	"$([[ $v == FAIL*"check 'second' began" ]]; echo $?)" "$v"
v=$(sv 1 "RIG-LOCKDEP 0")
case_ "scenario whose last check switched lockdep off passes, noted" \
	"$([[ $v == "PASS lockdep switched itself off"* ]]; echo $?)" "$v"

# build-machine tests: a skip, a test that printed nothing, a failed case
{
	printf 'RESULT SKIP already registered\n' | host_results 6.1 dkms-roundtrip
	printf 'some output\n' | host_results 6.1 silent
	printf 'CASE PASS one\nCASE FAIL two -- it broke\n' | host_results - cases
	printf 'RESULT PASS\n' | host_results 6.1 fine
} > "$tmp/rows"
: > "$tmp/results"
host_verdicts 6.1 "$tmp/rows"
host_verdicts - "$tmp/rows"
r=$(cat "$tmp/results")
case_ "a skipped build-machine test fails" \
	"$(grep -qx 'FAIL dkms-roundtrip \[6.1\]  (skipped: already registered)' <<<"$r"; echo $?)" "$r"
case_ "a build-machine test that printed no result fails" \
	"$(grep -q '^FAIL silent \[6.1\]' <<<"$r"; echo $?)" "$r"
case_ "each case of a build-machine test counts" \
	"$(grep -qx 'PASS cases: one' <<<"$r" && grep -qx 'FAIL cases: two  (it broke)' <<<"$r"; echo $?)" "$r"
case_ "a passing build-machine test passes" "$(grep -qx 'PASS fine \[6.1\]' <<<"$r"; echo $?)" "$r"

# KUnit: a log in which one suite of kunit/*.c reported nothing
suites=$(kunit_suites)
case_ "kunit/*.c has suites" "$([ "$(wc -w <<<"$suites")" -ge 2 ]; echo $?)" "$suites"
ktap() {	# ktap SUITE... - a KUnit guest's log with one passing case per SUITE
	local s n=0
	echo "RIG-RESULT PASS kunit-load"
	echo "RIG-DMESG-BEGIN"
	for s in "$@"; do
		n=$((n + 1))
		printf '[    1.0] KTAP version 1\n[    1.0] 1..1\n[    1.0]     # Subtest: %s\n' "$s"
		printf '[    1.0]     1..1\n[    1.0]     ok 1 - the_case\n[    1.0] ok %d - %s\n' "$n" "$s"
	done
	echo "RIG-DMESG-END"
}
KVER=synthetic
ktap $suites > "$tmp/kunit.log"
: > "$tmp/results"; kunit_results "$tmp/kunit.log"; r=$(cat "$tmp/results")
case_ "KUnit: every suite reported passes" "$(! grep -q '^FAIL' <<<"$r" && grep -q '^PASS' <<<"$r"; echo $?)" "$r"
first=$(head -1 <<<"$suites")
ktap $(tail -n +2 <<<"$suites") > "$tmp/kunit.log"
: > "$tmp/results"; kunit_results "$tmp/kunit.log"; r=$(cat "$tmp/results")
case_ "KUnit: a suite that reported nothing fails" \
	"$(grep -q "^FAIL kunit suite $first \[synthetic\]" <<<"$r"; echo $?)" "$r"

# tests/run -t that matches no test: a failure, not "0 passed, 0 failed"
out=$("$root/tests/run" -t '^no-such-test$' 2>&1)
rc=$?
case_ "tests/run -t matching nothing fails" \
	"$([ $rc -ne 0 ] && tail -1 <<<"$out" | grep -qx '0 passed, 1 failed'; echo $?)" "exit $rc: $out"
