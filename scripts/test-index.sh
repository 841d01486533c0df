#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-index.sh - the index of every test (Documentation/testing.md, "The
# index"), made from the tests' own headers: what each covers (its
# "# covers:" line), its runs in the fast tier (make check) and in the full
# tier (make check-full; a fault scenario's every pairing is make faults'),
# and the guest time each kernel's runs took in the last run of this tree
# (build/rig/<kver>/logs/, or LOGS, a build/rig of another tree), the
# Debian kernels by their series.
# tests/host/test-index.sh checks that testing.md's index is this one.
#
# Usage: scripts/test-index.sh [--no-times]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/lib.sh"
. "$ROOT/rig/plan.sh"
LOGS=${LOGS:-$ROOT/build/rig}
times=1
[ "${1:-}" = --no-times ] && times=

# short PAIR - ours/stock as "o/s"
short() { sed 's#ours#o#g; s#stock#s#g'; }

# runs FILE KIND PLACE TIER - the runs, grouped by device: "rxe o/o s/o"
runs() {
	local kind=$1
	shift
	case $kind in
	scenario) rig_scenario_runs "$@" | awk '{ r[$2] = r[$2] " " $1; if (!($2 in o)) o[$2] = n++ }
		END { for (d in o) print o[d] "\t" d r[d] }' | sort -n | cut -f2 | paste -sd'|' - | sed 's/|/, /g' | short ;;
	fault) rig_fault_runs "$@" | paste -sd' ' - | short ;;
	esac
}

# tier FILE KIND TIER - "debug: ...; 6.1: ..." of a test's runs in TIER
tier() {
	local t=$1 kind=$2 tr=$3 out= r p trixie=
	for p in debug oldest newest trixie trixie-oldest; do
		case $p in
		debug) r=$(runs "$kind" "$t" debug - "$tr") ;;
		# the oldest of Debian 13's: shown where it runs more than each
		trixie-oldest) r=$(runs "$kind" "$t" stock "trixie $p" "$tr")
			[ "$r" != "$trixie" ] || r= ;;
		*) r=$(runs "$kind" "$t" stock "$p" "$tr") ;;
		esac
		[ "$p" = trixie ] && trixie=$r
		[ -z "$r" ] || out+="${out:+; }$p: $r"
	done
	echo "${out:--}"
}

# secs NAME - the guest seconds of NAME's runs in the last run, by kernel
secs() {
	local d kv s out=
	for d in "$LOGS"/*/logs; do
		[ -d "$d" ] || continue
		kv=$(basename "$(dirname "$d")")
		case $kv in
		*-nvmeof-debug) kv=debug ;;
		*+deb13-*) kv=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1+deb13/' <<<"$kv") ;;
		*) kv=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kv") ;;
		esac
		s=$(cat "$d/$1".*.log.secs 2> /dev/null | awk '{ s += $1 } END { if (NR) print s }')
		[ -z "$s" ] || out+="${out:+, }$kv $s"
	done
	echo "${out:--}"
}

echo "| test | covers | fast tier (make check) | full tier (make check-full) |${times:+ guest s, last run |}"
echo "|---|---|---|---|${times:+---|}"
for t in "$ROOT"/tests/*.sh "$ROOT"/tests/faults/*.sh "$ROOT"/tests/host/*.sh; do
	name=$(basename "$t" .sh)
	covers=$(sed -n 's/^# covers: //p' "$t" | head -1)
	case $t in
	*/faults/*) kind=fault; name="faults/$name"
		fast=$(tier "$t" fault fast)
		full="$(tier "$t" fault full) (make faults: $(tier "$t" fault faults))" ;;
	*/host/*) kind=host; name="host/$name"
		fast=$(rig_meta "$t" fast none)
		full=$(if grep -q '^# rig: once' "$t"; then echo once; else echo "each Debian kernel"; fi) ;;
	*) kind=scenario
		fast=$(tier "$t" scenario fast)
		full=$(tier "$t" scenario full) ;;
	esac
	[ "$fast" = none ] || [ "$fast" = - ] && fast="-"
	if [ -n "$times" ]; then
		echo "| $name | $covers | $fast | $full | $(secs "$(basename "$t" .sh)") |"
	else
		echo "| $name | $covers | $fast | $full |"
	fi
done
