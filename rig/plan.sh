# SPDX-License-Identifier: GPL-2.0
# plan.sh - where each test runs, read from its "# rig:" header, for
# tests/run; tests/host/runner-verdicts.sh checks it. Source, do not execute.
#
# Two tiers: "full" (make check-full) runs every run a header declares;
# "fast" (make check) only those its fast= names, a subset of full's:
#   fast=KERNEL:HOST/TARGET:RDMA[,...]   a scenario (tests/*.sh)
#   fast=KERNEL:HOST/TARGET[,...]        a fault scenario (tests/faults/)
#   fast=KERNEL[,...]                    a build-machine test (tests/host/)
#   fast=none                            make check-full only
# KERNEL: debug, stock (every Debian kernel), oldest or newest (of Debian
# 12's kernels of the run), trixie (each of Debian 13's, booted from the
# Debian 13 root: scripts/debian13-root.sh), trixie-oldest (the oldest of
# those), once (a "# rig: once" build-machine test).
# A header that names an unknown key, kernel, pairing or device, or that
# runs nowhere, is a failure (rig_header_problems), never a silent no-run.

RIG_PAIRS="stock/stock ours/ours ours/stock stock/ours"
RIG_RDMAS="rxe siw rxe-hw"

# rig_meta FILE KEY DEFAULT - KEY's value in FILE's "# rig:" header
rig_meta() {
	local v
	v=$(sed -n 's/^# rig:.*[[:space:]]'"$2"'=\([^[:space:]]*\).*/\1/p' "$1" | head -1)
	printf '%s\n' "${v:-$3}"
}

# rig_kernel_is KERNEL KIND PLACE - does fast='s KERNEL mean a rig kernel of
# KIND (stock|debug) whose PLACE among the run's Debian kernels is PLACE
# ("oldest", "newest", both or neither; "trixie" for Debian 13's, and
# "trixie-oldest" too for the oldest of them)?
rig_kernel_is() {
	case $1 in
	debug) [ "$2" = debug ] ;;
	stock) [ "$2" = stock ] ;;
	oldest|newest|trixie|trixie-oldest) [ "$2" = stock ] && [[ " $3 " == *" $1 "* ]] ;;
	*) return 1 ;;
	esac
}

# rig_in_fast FILE KIND PLACE RUN - is RUN ("HOST/TARGET RDMA" or
# "HOST/TARGET") of FILE on that kernel in its fast= list?
rig_in_fast() {
	local e k rest
	for e in $(rig_meta "$1" fast none | tr , ' '); do
		k=${e%%:*} rest=${e#*:}
		[ "$e" != none ] && [ "$rest" != "$e" ] || continue
		rig_kernel_is "$k" "$2" "$3" || continue
		[ "${rest//:/ }" = "$4" ] && return 0
	done
	return 1
}

# rig_scenario_runs FILE KIND PLACE TIER - one "HOST/TARGET RDMA" line per
# run of scenario FILE (tests/*.sh) on a rig kernel of KIND (stock|debug)
# at PLACE (rig_kernel_is) in TIER (fast|full)
rig_scenario_runs() {
	local t=$1 k=$2 place=$3 tier=$4 tk pairs rdmas pair rdma rp
	tk=$(rig_meta "$t" kernels stock,debug)
	# oldest: the oldest of Debian's kernels alone (Debian 12's own);
	# trixie-oldest: the oldest of Debian 13's
	for p in oldest trixie-oldest; do
		[ "$k" = stock ] && [[ ,$tk, == *,$p,* ]] && [[ " $place " == *" $p "* ]] &&
			tk+=,stock
	done
	[[ ,$tk, == *,$k,* ]] || return 0
	pairs=$(rig_meta "$t" pairs all)
	[ "$k" = debug ] && pairs=$(rig_meta "$t" debug-pairs "$pairs")
	[ "$pairs" = all ] && pairs=$RIG_PAIRS
	rdmas=$(rig_meta "$t" rdma rxe)
	[ "$k" = debug ] && rdmas=$(rig_meta "$t" debug-rdma "$rdmas")
	for pair in ${pairs//,/ }; do
		for rdma in ${rdmas//,/ }; do
			# Debian's kernel has no siw
			[ "$rdma" = siw ] && [ "$k" = stock ] && continue
			rp=$(rig_meta "$t" "$rdma-pairs" all)
			[ "$rp" = all ] || [[ ,$rp, == *,$pair,* ]] || continue
			[ "$tier" = full ] || rig_in_fast "$t" "$k" "$place" "$pair $rdma" || continue
			echo "$pair $rdma"
		done
	done
}

# rig_fault_runs FILE KIND PLACE TIER - one "HOST/TARGET" line per pair run
# of fault scenario FILE (tests/faults/) on kernels of KIND at PLACE, in
# TIER: fast, full (its full-pairs, Debian's kernels) or faults (make
# faults: every pairing of pairs=, and debug-pairs= on the debug kernel)
rig_fault_runs() {
	local t=$1 k=$2 place=$3 tier=$4 tk pairs pair
	tk=$(rig_meta "$t" kernels stock)
	[[ ,$tk, == *,$k,* ]] || return 0
	pairs=$(rig_meta "$t" pairs ours/ours)
	if [ "$k" = debug ]; then
		[ "$tier" = faults ] || return 0
		pairs=$(rig_meta "$t" debug-pairs "$pairs")
	fi
	[ "$tier" = faults ] || pairs=$(rig_meta "$t" full-pairs "$pairs")
	[ "$pairs" = none ] && return 0
	[ "$pairs" = all ] && pairs=$RIG_PAIRS
	for pair in ${pairs//,/ }; do
		[ "$tier" != fast ] || rig_in_fast "$t" "$k" "$place" "$pair" || continue
		echo "$pair"
	done
}

# rig_host_test_kernels FILE TIER PLACES... - of the Debian kernels' PLACES
# (one word each: "oldest", "newest", "oldest,newest" or "-"), the index
# (from 0) of each a build-machine test runs for in TIER; "once" for a
# "# rig: once" test that runs (for no kernel)
rig_host_test_kernels() {
	local t=$1 tier=$2 i=0 p e
	shift 2
	if grep -q '^# rig: once' "$t"; then
		[ "$tier" = full ] || [ "$(rig_meta "$t" fast none)" = once ] || return 0
		echo once
		return
	fi
	for p in "$@"; do
		for e in $(rig_meta "$t" fast none | tr , ' '); do
			if [ "$tier" = full ] || rig_kernel_is "$e" stock "${p//,/ }"; then
				echo "$i"
				break
			fi
		done
		i=$((i + 1))
	done
}

# rig_header_problems FILE - one line for each thing wrong with the header
# of test FILE: no header, an unknown key or value, a fast= entry that
# names no run of the full tier, a test that runs nowhere; nothing if none
rig_header_problems() {
	local t=$1 kind w key val v e keys runs anywhere k place
	case $t in
	*/tests/faults/*) kind=fault ;;
	*/tests/host/*) kind=host ;;
	*) kind=scenario ;;
	esac
	if ! grep -q '^# rig:' "$t"; then
		echo "no '# rig:' header"
		return
	fi
	case $kind in
	scenario) keys="pairs debug-pairs siw-pairs rxe-hw-pairs kernels rdma debug-rdma timeout order debug-smp hostroot cmdline expect fast" ;;
	fault) keys="pairs debug-pairs full-pairs mixed-kernels kernels timeout fast" ;;
	host) keys="fast changes-system once" ;;
	esac
	for w in $(sed -n 's/^# rig://p' "$t" | head -1); do
		key=${w%%=*} val=${w#*=}
		[[ " $keys " == *" $key "* ]] || { echo "unknown key '$key'"; continue; }
		case $key in
		*pairs|mixed-kernels)
			[ "$val" = all ] || [ "$val" = none ] && continue
			for v in ${val//,/ }; do
				[[ " $RIG_PAIRS " == *" $v "* ]] || echo "$key: unknown pairing '$v'"
			done ;;
		kernels)
			for v in ${val//,/ }; do
				[[ " stock debug oldest trixie-oldest " == *" $v "* ]] ||
					echo "kernels: unknown kernel '$v'"
			done ;;
		rdma|debug-rdma)
			for v in ${val//,/ }; do
				[[ " $RIG_RDMAS " == *" $v "* ]] || echo "$key: unknown RDMA device '$v'"
			done ;;
		timeout|debug-smp)
			[[ $val =~ ^[1-9][0-9]*$ ]] || echo "$key: not a number '$val'" ;;
		expect)
			[ "$val" = deadline ] || echo "expect: unknown verdict '$val'" ;;
		order)
			[ "$val" = first ] || [ "$val" = last ] || echo "order: unknown place '$val'" ;;
		esac
	done
	grep -q '^# rig:.*[[:space:]]fast=' "$t" || echo "no fast= (its tier)"
	# every run of the full tier, on a debug and on each place of a Debian
	# kernel; each fast= entry must be one of them
	runs= anywhere=
	for k in debug oldest newest trixie trixie-oldest; do
		place=$k
		[ "$k" = debug ] || k=stock
		case $kind in
		scenario) runs+=$(rig_scenario_runs "$t" "$k" "$place" full | sed "s|^|$place:|; s| |:|g")$'\n' ;;
		fault) runs+=$(rig_fault_runs "$t" "$k" "$place" full | sed "s|^|$place:|")$'\n'
			anywhere+=$(rig_fault_runs "$t" "$k" "$place" faults) ;;
		esac
	done
	if [ "$kind" = host ]; then
		for e in $(rig_meta "$t" fast none | tr , ' '); do
			case $e in
			none|stock|oldest|newest|trixie|trixie-oldest) ;;
			once) grep -q '^# rig: once' "$t" || echo "fast=once on a test for each kernel" ;;
			*) echo "fast: unknown kernel '$e'" ;;
			esac
		done
		return
	fi
	grep -q . <<<"$runs$anywhere" ||
		echo "runs nowhere: no kernel, pairing and device it declares"
	for e in $(rig_meta "$t" fast none | tr , ' '); do
		[ "$e" = none ] && continue
		k=${e%%:*}
		case $k in
		debug|oldest|newest|trixie|trixie-oldest) grep -qx -- "$e" <<<"$runs" ||
			echo "fast entry '$e' is no run of its full tier" ;;
		stock) grep -qx -- "oldest:${e#stock:}" <<<"$runs" ||
			echo "fast entry '$e' is no run of its full tier" ;;
		*) echo "fast: unknown kernel '$k'" ;;
		esac
	done
}
