#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runner-plan: where tests run, checked (rig/plan.sh). A header that names
# an unknown key, kernel, pairing or RDMA device, a fast= entry that is no
# run of the full tier, a scenario that runs nowhere: each is a problem the
# runner fails on, never a test that silently runs nowhere. The fast tier
# runs exactly a test's fast= entries, the full tier every run it
# declares; every header in tests/ has no problem. Each with its control.
# covers: where tests run: headers, tiers, nothing that runs nowhere
# rig: once fast=once
#
# Usage: tests/host/runner-plan.sh    prints one CASE PASS|FAIL line per case
. "$(dirname "$0")/lib/common.sh"
. "$root/rig/plan.sh"
mkdir -p "$tmp/tests/faults" "$tmp/tests/host"

# header FILE LINE - a test file whose header is LINE
header() { printf '# SPDX-License-Identifier: GPL-2.0\n%s\nrig_check "x" true\n' "$2" > "$1"; }
# problems WANT HEADER - rig_header_problems of a scenario with HEADER
# prints a line matching WANT (or, WANT empty, nothing)
problems() {
	local want=$1 p
	header "$tmp/tests/s.sh" "$2"
	p=$(rig_header_problems "$tmp/tests/s.sh")
	if [ -z "$want" ]; then [ -z "$p" ]; else grep -q -- "$want" <<<"$p"; fi
	echo $?
}

ok='# rig: pairs=all debug-pairs=ours/ours siw-pairs=ours/ours kernels=stock,debug rdma=rxe,siw timeout=300 fast=debug:ours/ours:siw,oldest:ours/stock:rxe'
case_ "a header the rig knows has no problem" "$(problems "" "$ok")" "$(rig_header_problems "$tmp/tests/s.sh")"
case_ "an unknown key is a problem" "$(problems "unknown key 'kernel'" "${ok/kernels=/kernel=}")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "an unknown kernel is a problem" "$(problems "unknown kernel 'stable'" "${ok/kernels=stock,debug/kernels=stable,debug}")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "an unknown pairing is a problem" "$(problems "unknown pairing 'our/ours'" "${ok/debug-pairs=ours\/ours/debug-pairs=our/ours}")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "an unknown RDMA device is a problem" "$(problems "unknown RDMA device 'rxe_hw'" "${ok/rdma=rxe,siw/rdma=rxe,rxe_hw}")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "a scenario that runs nowhere is a problem (siw on Debian's kernels only)" \
	"$(problems "runs nowhere" '# rig: pairs=ours/ours kernels=stock rdma=siw fast=none')" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "a fast entry that is no run of the full tier is a problem" \
	"$(problems "fast entry 'debug:ours/stock:rxe' is no run" "${ok/fast=/fast=debug:ours/stock:rxe,}")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "a header without its tier is a problem" "$(problems "no fast=" "${ok% fast=*}")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"
case_ "no header at all is a problem" "$(problems "no '# rig:' header" "# nothing")" \
	"$(rig_header_problems "$tmp/tests/s.sh")"

# the runs of each tier
header "$tmp/tests/s.sh" "$ok"
full=$(rig_scenario_runs "$tmp/tests/s.sh" stock "oldest" full | paste -sd, -)
fast=$(rig_scenario_runs "$tmp/tests/s.sh" stock "oldest" fast | paste -sd, -)
fast_new=$(rig_scenario_runs "$tmp/tests/s.sh" stock "newest" fast | paste -sd, -)
dfast=$(rig_scenario_runs "$tmp/tests/s.sh" debug - fast | paste -sd, -)
case_ "full tier: every pairing on Debian's kernel, no siw there" \
	"$([ "$full" = "stock/stock rxe,ours/ours rxe,ours/stock rxe,stock/ours rxe" ]; echo $?)" "$full"
case_ "fast tier: only its fast= runs, on the kernel they name" \
	"$([ "$fast" = "ours/stock rxe" ] && [ -z "$fast_new" ] && [ "$dfast" = "ours/ours siw" ]; echo $?)" \
	"oldest: $fast; newest: $fast_new; debug: $dfast"
# Debian 13's kernels (the Debian 13 root): their own place in fast=, and
# every device of Debian's kernels there, rxe-hw too (built in the root)
header "$tmp/tests/s.sh" '# rig: pairs=ours/ours kernels=stock,debug rdma=rxe,rxe-hw timeout=300 fast=trixie:ours/ours:rxe'
t_full=$(rig_scenario_runs "$tmp/tests/s.sh" stock trixie full | paste -sd, -)
t_fast=$(rig_scenario_runs "$tmp/tests/s.sh" stock trixie fast | paste -sd, -)
o_fast=$(rig_scenario_runs "$tmp/tests/s.sh" stock "oldest newest" fast | paste -sd, -)
o_full=$(rig_scenario_runs "$tmp/tests/s.sh" stock oldest full | paste -sd, -)
case_ "Debian 13's kernels: fast=trixie runs there alone, rxe-hw there too" \
	"$([ "$t_full" = "ours/ours rxe,ours/ours rxe-hw" ] && [ "$t_fast" = "ours/ours rxe" ] && [ -z "$o_fast" ] &&
		[ "$o_full" = "ours/ours rxe,ours/ours rxe-hw" ] &&
		[ -z "$(rig_header_problems "$tmp/tests/s.sh")" ]; echo $?)" \
	"trixie full $t_full, fast $t_fast; Debian 12 fast '$o_fast' full $o_full"
header "$tmp/tests/faults/f.sh" '# rig: pairs=ours/ours,stock/stock full-pairs=ours/ours kernels=stock,debug debug-pairs=ours/ours timeout=300 fast=newest:ours/ours'
f_full=$(rig_fault_runs "$tmp/tests/faults/f.sh" stock "oldest" full | paste -sd, -)
f_fast=$(rig_fault_runs "$tmp/tests/faults/f.sh" stock "oldest" fast; rig_fault_runs "$tmp/tests/faults/f.sh" stock "newest" fast)
f_all=$(rig_fault_runs "$tmp/tests/faults/f.sh" stock "oldest" faults | paste -sd, -)
f_dbg=$(rig_fault_runs "$tmp/tests/faults/f.sh" debug - full; rig_fault_runs "$tmp/tests/faults/f.sh" debug - faults)
case_ "fault scenarios: full-pairs in the full tier, fast= in the fast tier, pairs= in make faults" \
	"$([ "$f_full" = ours/ours ] && [ "$f_fast" = ours/ours ] && [ "$f_all" = ours/ours,stock/stock ] &&
		[ "$f_dbg" = ours/ours ]; echo $?)" "full $f_full, fast $f_fast, faults $f_all, debug $f_dbg"
header "$tmp/tests/host/h.sh" '# rig: fast=oldest changes-system'
h_fast=$(rig_host_test_kernels "$tmp/tests/host/h.sh" fast oldest - newest | paste -sd, -)
h_full=$(rig_host_test_kernels "$tmp/tests/host/h.sh" full oldest - newest | paste -sd, -)
header "$tmp/tests/host/o.sh" '# rig: once fast=none'
o_fast=$(rig_host_test_kernels "$tmp/tests/host/o.sh" fast oldest)
o_full=$(rig_host_test_kernels "$tmp/tests/host/o.sh" full oldest)
case_ "build-machine tests: the kernels of each tier, once for none" \
	"$([ "$h_fast" = 0 ] && [ "$h_full" = 0,1,2 ] && [ -z "$o_fast" ] && [ "$o_full" = once ]; echo $?)" \
	"fast $h_fast, full $h_full, once: fast '$o_fast' full '$o_full'"

# the tree's own headers
bad=
for t in "$root"/tests/*.sh "$root"/tests/faults/*.sh "$root"/tests/host/*.sh; do
	p=$(rig_header_problems "$t")
	[ -z "$p" ] || bad+="${t#"$root"/}: $p; "
done
case_ "every header in tests/ has no problem" "$([ -z "$bad" ]; echo $?)" "$bad"
