#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ktap-verdicts: the KUnit guest's judge (kunit_results in rig/verdict.sh,
# reading the KTAP of the kernel log with rig/ktap.awk) fed what a broken
# KUnit run prints: a case that said "not ok" (6.1's KTAP without the
# dash, and newer kernels' with it), a parameter that said it, a suite
# whose plan (1..5) got 3 results, a suite that never printed its own
# result line (at the log's end, or before the next suite began). Each
# must be a FAIL; the control, every suite passing, must pass.
# covers: a failed, short or unfinished KUnit suite fails the run
# rig: once fast=once
#
# Usage: tests/host/ktap-verdicts.sh    prints one CASE PASS|FAIL line per case
. "$(dirname "$0")/lib/common.sh"
. "$root/rig/verdict.sh"

# the runner's result(), recording instead of counting
result() { printf '%s %s%s\n' "$1" "$2" "${3:+  ($3)}" >> "$tmp/results"; }

# every suite of kunit/*.c reports, so that only the fixture's own suite
# can fail; the fixture stands for the first
suites=$(kunit_suites)
first=$(head -1 <<<"$suites")
case_ "kunit/*.c has suites" "$([ -n "$first" ]; echo $?)" "$suites"

# ktap_log FIXTURE - a KUnit guest's log: every other suite passing, then
# FIXTURE's KTAP (the first suite's, its lines as the kernel prints them,
# "@" for its name), last
ktap_log() {
	local s n=0
	echo "RIG-RESULT PASS kunit-load"
	echo "RIG-DMESG-BEGIN"
	printf '[    1.0] KTAP version 1\n[    1.0] 1..%d\n' "$(wc -w <<<"$suites")"
	for s in $(tail -n +2 <<<"$suites"); do
		n=$((n + 1))
		printf '[    1.0]     # Subtest: %s\n[    1.0]     1..1\n' "$s"
		printf '[    1.0]     ok 1 - the_case\n[    1.0] ok %d - %s\n' "$n" "$s"
	done
	sed "s/@/$first/g; s/^/[    1.0] /" "$1"
	echo "RIG-DMESG-END"
}
KVER=synthetic
# judge FIXTURE - kunit_results of ktap_log FIXTURE, into $r
judge() {
	ktap_log "$1" > "$tmp/kunit.log"
	: > "$tmp/results"
	kunit_results "$tmp/kunit.log"
	r=$(cat "$tmp/results")
}
# has LINE - $r has the result LINE (a fixed string, at a line's start)
has() { grep -qF -- "$1" <<<"$r" && grep -F -- "$1" <<<"$r" | grep -q "^${1%% *} "; }

cat > "$tmp/pass" <<'K'
    # Subtest: @
    1..2
    ok 1 - case_a
    ok 2 - case_b
ok 1 - @
K
judge "$tmp/pass"
case_ "KTAP: every case of every suite passed passes" \
	"$(! grep -q '^FAIL' <<<"$r" && has "PASS kunit $first.case_a [synthetic]" &&
		has "PASS kunit $first.case_b [synthetic]"; echo $?)" "$r"

# a case that failed: 6.1 prints no dash
printf '    # Subtest: @\n    1..2\n    ok 1 case_a\n    not ok 2 case_b\nnot ok 1 @\n' > "$tmp/not-ok-6.1"
judge "$tmp/not-ok-6.1"
case_ "KTAP: a case that said not ok (6.1) fails" "$(has "FAIL kunit $first.case_b [synthetic]"; echo $?)" "$r"
case_ "... the other case passes" "$(has "PASS kunit $first.case_a [synthetic]"; echo $?)" "$r"
printf '    # Subtest: @\n    1..2\n    ok 1 - case_a\n    not ok 2 - case_b\nnot ok 1 - @\n' > "$tmp/not-ok"
judge "$tmp/not-ok"
case_ "KTAP: a case that said not ok (with a dash) fails" "$(has "FAIL kunit $first.case_b [synthetic]"; echo $?)" "$r"
# a parameter of a parameterised test
cat > "$tmp/param" <<'K'
    # Subtest: @
    1..1
        # Subtest: param_test
        ok 1 - p1
        not ok 2 - p2
    not ok 1 - param_test
not ok 1 - @
K
judge "$tmp/param"
case_ "KTAP: a parameter that said not ok fails" "$(has "FAIL kunit $first.param_test[p2] [synthetic]"; echo $?)" "$r"
case_ "... the other parameter passes" "$(has "PASS kunit $first.param_test[p1] [synthetic]"; echo $?)" "$r"

# a plan of 5 cases, 3 reported, the suite's own line "ok"
printf '    # Subtest: @\n    1..5\n    ok 1 - a\n    ok 2 - b\n    ok 3 - c\nok 1 - @\n' > "$tmp/short"
judge "$tmp/short"
case_ "KTAP: a suite that planned 5 cases and reported 3 fails" \
	"$(has "FAIL kunit $first (planned 5 tests, 3 reported) [synthetic]"; echo $?)" "$r"

# a suite whose cases began but whose own line never came: at the log's
# end, or before the next suite began (a crash, a hang, a lost line)
printf '    # Subtest: @\n    1..3\n    ok 1 - a\n' > "$tmp/unfinished"
judge "$tmp/unfinished"
case_ "KTAP: a suite unfinished at the log's end fails" \
	"$(has "FAIL kunit $first (suite never finished: crash or hang?) [synthetic]"; echo $?)" "$r"
printf '    # Subtest: @\n    1..3\n    ok 1 - a\n    # Subtest: later\n    1..1\n    ok 1 - x\nok 2 - later\n' \
	> "$tmp/unfinished-then"
judge "$tmp/unfinished-then"
case_ "KTAP: a suite unfinished when the next began fails" \
	"$(has "FAIL kunit $first (suite never finished: crash or hang?) [synthetic]"; echo $?)" "$r"
case_ "... the next suite passes" "$(has "PASS kunit later.x [synthetic]" && ! grep -q '^FAIL kunit later' <<<"$r"; echo $?)" "$r"
