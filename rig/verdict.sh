# SPDX-License-Identifier: GPL-2.0
# verdict.sh - judging what the tests printed, on the host side, for the
# test runner, `make demo` and `make bench`; tests/host/runner-verdicts.sh
# checks these judges. Source, do not execute (needs scripts/lib.sh for
# NVMEOF_ROOT; the functions that report through "result" need the
# caller's result STATUS NAME [WHY]).

# rig_verdict LOG - prints PASS only if the guest finished, its job passed
# and its kernel log is clean, else "FAIL <why>". Splat details go to stderr.
rig_verdict() {
	local log=$1 res splat splat_rc
	res=$(tr -d '\r' < "$log" | grep -m1 '^RIG-RESULT ' | cut -d' ' -f2-)
	splat=$("$NVMEOF_ROOT/rig/splat.sh" "$log")
	splat_rc=$?
	[ -n "$splat" ] && printf '%s\n' "$splat" | sed 's/^/    /' >&2
	if grep -q '^RIG-NOT-RUN' "$log"; then
		echo "FAIL not run: an earlier scenario of its guest did not finish"
	elif ! grep -q '^RIG-END' "$log"; then
		echo "FAIL guest did not finish$(grep -q RIG-TIMEOUT "$log" && echo ' (timeout)')"
	elif [ $splat_rc -ne 0 ]; then
		echo "FAIL kernel splat: $(printf '%s\n' "$splat" | grep '^splat' | head -1)"
	elif [ "${res%% *}" = PASS ]; then
		echo PASS
	else
		echo "FAIL ${res#FAIL }"
	fi
}

# rig_build_findings LOG - the diagnostics in a module build's log, one per
# line; exit 1 if there are none. W=1 and sparse (C=1) are on, so any line
# that says warning or error, in any case (modpost says "WARNING:"), fails
# the build gate.
rig_build_findings() {
	grep -iE '(warning|error):' "$1"
}

# rig_scenario_verdict LOG - rig_verdict of one scenario's log, and a PASS
# only if its checks agree and lockdep watched all of it: "PASS" or "FAIL
# why". The checks agree when at least one was made (RIG-CHECK ok), none
# failed (RIG-CHECK FAIL, RIG-MUST-FAIL) and the result says PASS. A check
# that began after lockdep switched itself off (after a report, even an
# inherited one) is RIG-CHECK-UNWATCHED in the log; lockdep off at the end
# (RIG-LOCKDEP 0, after the teardown and the unload) fails too.
rig_scenario_verdict() {
	local log=$1 v marks unwatched failed
	v=$(rig_verdict "$log")
	if [ "${v%% *}" != PASS ]; then
		echo "$v"
		return
	fi
	# the rig's lines, read once
	marks=$(tr -d '\r' < "$log" | grep -a '^RIG-\(CHECK\|CHECK-UNWATCHED\|MUST-FAIL\|SCENARIO-BEGIN\|LOCKDEP\) ')
	unwatched=$(sed -n 's/^RIG-CHECK-UNWATCHED //p' <<<"$marks" | head -1)
	failed=$(sed -n 's/^RIG-CHECK FAIL //p; s/^RIG-MUST-FAIL //p' <<<"$marks" | head -1)
	if [ -n "$failed" ]; then
		echo "FAIL a check failed though the result says PASS: $failed"
	elif ! grep -q '^RIG-CHECK ok ' <<<"$marks"; then
		echo "FAIL the scenario made no check"
	elif grep -q '^RIG-SCENARIO-BEGIN .* lockdep=0' <<<"$marks"; then
		echo "FAIL lockdep was off when the scenario began"
	elif [ -n "$unwatched" ]; then
		echo "FAIL lockdep was off (an earlier report switched it off) when check '$unwatched' began"
	elif grep -q '^RIG-LOCKDEP 0' <<<"$marks"; then
		echo "FAIL lockdep switched itself off (a report, even an inherited one): the teardown and unload went unwatched"
	else
		echo PASS
	fi
}

# rig_skips LOG - each check a scenario could not make on its kernel or
# device (its RIG-SKIP lines), one a line: the runner counts each a skip
rig_skips() {
	tr -d '\r' < "$1" | sed -n 's/^RIG-SKIP //p'
}

# rig_deadline_verdict LOG - the verdict of a scenario that blocks in the
# kernel on purpose (expect=deadline: tests/rig-deadline.sh): "PASS" only
# if the guest ended it at its deadline as a failure, printed the blocked
# tasks (sysrq w: a task in state D) and asked for a fresh boot for the
# scenarios after it (or had none left); else "FAIL why"
rig_deadline_verdict() {
	local log
	log=$(tr -d '\r' < "$1")
	if ! grep -q '^RIG-DEADLINE ' <<<"$log"; then
		echo "FAIL no deadline ended it: $(rig_verdict "$1" 2> /dev/null)"
	elif ! grep -q '^RIG-RESULT FAIL .*deadline' <<<"$log"; then
		echo "FAIL its deadline did not fail it"
	elif ! grep -q 'task:.* state:D' <<<"$log"; then
		echo "FAIL its blocked tasks were not printed"
	elif ! grep -q '^RIG-RESTART \|^RIG-LOG deadline: no scenario left' <<<"$log"; then
		echo "FAIL it did not hand the rest of its boot on"
	else
		echo PASS
	fi
}

# rig_boots LOG ARGS BOOT - boot a guest with BOOT CONSOLE KERNEL_ARGS; when
# its console asks for a fresh boot for the scenarios it has left
# (RIG-RESTART, after lockdep switched itself off), boot again with those
# (rig.test= in ARGS), each console appended to LOG, so that lockdep
# watches every scenario from its start.
rig_boots() {
	local log=$1 args=$2 boot=$3 part=$1 n=1 rest
	while :; do
		"$boot" "$part" "$args"
		[ "$part" = "$log" ] || cat "$part" >> "$log"
		rest=$(tr -d '\r' < "$part" | sed -n 's/^RIG-RESTART //p' | head -1)
		[ -n "$rest" ] || break
		n=$((n + 1)) part=$log.boot$n
		args=$(sed "s/rig\.test=[^ ]*/rig.test=$rest/" <<<"$args")
	done
}

# rig_pair_verdict LOG - the verdict of a fault scenario on two guests
# (rig/run-pair.sh): rig_scenario_verdict of the host guest's console (LOG)
# and of the target guest's (LOG.target); "PASS" only if both passed, else
# "FAIL" and which side failed how.
rig_pair_verdict() {
	local vh vt why=
	vh=$(rig_scenario_verdict "$1")
	vt=$(rig_scenario_verdict "$1.target")
	[ "${vh%% *}" = PASS ] || why="host guest: ${vh#FAIL }"
	[ "${vt%% *}" = PASS ] || why+="${why:+; }target guest: ${vt#FAIL }"
	if [ -z "$why" ]; then echo PASS; else echo "FAIL $why"; fi
}

# rig_stock_pair_verdict LOG - the verdict of a fault scenario run stock
# host against stock target: stock is the reference the table of make
# faults sets ours beside, so where stock breaks (a check failed, a splat,
# a guest that hung) the run does not fail and the verdict says how:
# "STOCK-FAILS why". The rig's own failures still fail ("FAIL why"): a
# guest that never began the scenario, a connect or other rig_must step
# that failed (RIG-MUST-FAIL), the wire or the emulator dying, a boot hang.
rig_stock_pair_verdict() {
	local log=$1 v
	v=$(rig_pair_verdict "$log")
	if [ "$v" = PASS ]; then
		echo PASS
	elif ! grep -q '^RIG-SCENARIO-BEGIN ' "$log" ||
	     ! grep -q '^RIG-SCENARIO-BEGIN ' "$log.target"; then
		echo "$v"
	elif grep -q '^RIG-MUST-FAIL ' "$log" "$log.target"; then
		echo "$v (a step of the rig's own failed: $(grep -h -m1 '^RIG-MUST-FAIL ' \
			"$log" "$log.target" | head -1 | cut -d' ' -f2-))"
	# this run's wire or boot, not one given up before it ("RIG-PAIR again
	# after the wire died": this run's own wire lived)
	elif grep -q '^RIG-PAIR \([0-9.]* the wire died\|boot hang\)' "$log"; then
		echo "$v (the rig's wire or boot failed)"
	elif "$NVMEOF_ROOT/rig/emulator-fault.sh" "$log" "$log.target" > /dev/null; then
		echo "$v (the emulator failed)"
	else
		echo "STOCK-FAILS ${v#FAIL }"
	fi
}

# rig_figures LOG - what a fault scenario measured (its RIG-FIGURE lines,
# host side), joined by "; "
rig_figures() {
	tr -d '\r' < "$1" | sed -n 's/^RIG-FIGURE //p' | paste -sd';' | sed 's/;/; /g'
}

# faults_table - reads "SCENARIO<TAB>COLUMN<TAB>VERDICT<TAB>FIGURES" rows
# (COLUMN: kernel and pairing) and prints the markdown table of make
# faults: a row per scenario, a column per kernel and pairing, each cell
# PASS or FAIL, why it failed, and the figures; "-" where nothing ran.
faults_table() {
	awk -F'\t' '
		!($1 in row) { row[$1] = 1; rows[++nr] = $1 }
		!($2 in col) { col[$2] = 1; cols[++nc] = $2 }
		{ cell[$1, $2] = $3 ($4 == "" ? "" : ": " $4) }
		END {
			if (!nr)
				exit
			printf "| scenario |"
			for (c = 1; c <= nc; c++) printf " %s |", cols[c]
			printf "\n|---|"
			for (c = 1; c <= nc; c++) printf "---|"
			printf "\n"
			for (r = 1; r <= nr; r++) {
				printf "| %s |", rows[r]
				for (c = 1; c <= nc; c++) {
					v = ((rows[r], cols[c]) in cell) ? cell[rows[r], cols[c]] : "-"
					gsub(/\|/, "/", v)
					printf " %s |", v
				}
				printf "\n"
			}
		}'
}

# kunit_suites - the name of every KUnit suite in kunit/*.c
kunit_suites() {
	awk '/^static struct kunit_suite .* = \{/ { in_suite = 1 }
	     in_suite && /\.name = "/ { split($0, q, "\""); print q[2]; in_suite = 0 }' \
		"$NVMEOF_ROOT"/kunit/*.c
}

# kunit_results LOG - one result (the caller's "result STATUS NAME [WHY]")
# per KTAP leaf test case in the log of the KUnit guest of kernel KVER, a
# FAIL for each suite of kunit/*.c that reported no case at all, and a FAIL
# for a splat in its kernel log.
kunit_results() {
	local log=$1 st name suite suites
	declare -A reported=()
	while read -r st name; do
		case $st in
		PASS|FAIL) result "$st" "kunit $name [$KVER]"; reported[${name%%.*}]=1 ;;
		# our cases never skip themselves: one that did checked nothing
		SKIP) result FAIL "kunit $name [$KVER]" "skipped"; reported[${name%%.*}]=1 ;;
		esac
	done < <(tr -d '\r' < "$log" | sed -n '/^RIG-DMESG-BEGIN/,/^RIG-DMESG-END/p' |
		sed 's/^\[[ 0-9.]*\] //' | awk -f "$NVMEOF_ROOT/rig/ktap.awk")
	grep -q 'RIG-KUNIT-LOAD-FAILED' "$log" && result FAIL "kunit module load [$KVER]"
	suites=$(kunit_suites)
	[ -n "$suites" ] || result FAIL "kunit: no suite found in kunit/*.c"
	for suite in $suites; do
		[ -n "${reported[$suite]:-}" ] ||
			result FAIL "kunit suite $suite [$KVER]" "no KTAP result in $log"
	done
	local splat
	if ! splat=$("$NVMEOF_ROOT/rig/splat.sh" "$log"); then
		result FAIL "kunit run kernel log [$KVER]" "$(printf '%s\n' "$splat" | grep '^splat' | head -1)"
	fi
}

# kunit_modules_built DIR - whether DIR (a kernel's build/<kver>/kunit/)
# holds a KUnit module: without one the KUnit guest would run nothing, and
# the runner counts that as a failure instead of leaving the guest out.
kunit_modules_built() {
	compgen -G "$1/*.ko" > /dev/null
}

# style_results LOG - scripts/style.sh's output (LOG) as host_results rows
# of no kernel ("-"), one per gate; a log without a gate line is one FAIL.
style_results() {
	sed -n 's#^\(PASS\|FAIL\) \(.*\)#-\tstyle: \2\t\1 log: '"$1"'#p' "$1"
	grep -qE '^(PASS|FAIL) ' "$1" ||
		printf -- '-\tstyle\tFAIL printed no gate (log: %s)\n' "$1"
}

# host_results KV NAME [RC] - a build-machine test's output (stdin) as result
# rows "KV<tab>NAME<tab>PASS|FAIL|SKIP [why]": each "CASE STATUS case -- why"
# line is a result of its own, and so is each "RESULT STATUS why" line; a
# test that printed neither failed, and so did one that exited with an RC
# other than 0, whatever it printed.
host_results() {
	awk -F'\t' -v kv="$1" -v name="$2" -v rc="${3:-0}" '
	/^CASE (PASS|FAIL|SKIP) / {
		st = $0; sub(/^CASE /, "", st); c = substr(st, 6); why = ""
		if ((i = index(c, " -- ")) > 0) { why = substr(c, i + 4); c = substr(c, 1, i - 1) }
		printf "%s\t%s: %s\t%s %s\n", kv, name, c, substr(st, 1, 4), why; n++; next
	}
	/^RESULT / { printf "%s\t%s\t%s\n", kv, name, substr($0, 8); n++ }
	END {
		if (!n) printf "%s\t%s\tFAIL printed no RESULT line\n", kv, name
		if (rc != 0) printf "%s\t%s\tFAIL exited with status %s\n", kv, name, rc
	}'
}

# host_verdicts KV FILE - result (the caller's) for each row of FILE
# (host_results' rows) of kernel KV ("-": of none). A skip is a failure:
# something that should have been tested was not.
host_verdicts() {
	local hk name r at
	while IFS=$'\t' read -r hk name r; do
		[ "$hk" = "$1" ] || continue
		at=; [ "$1" = - ] || at=" [$1]"
		case ${r%% *} in
		PASS) result PASS "$name$at" ;;
		SKIP) result FAIL "$name$at" "skipped: ${r#SKIP }" ;;
		*) result FAIL "$name$at" "${r#FAIL }" ;;
		esac
	done < "$2"
}
