#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# runner-verdicts: the checker checked. tests/run's judges (rig/verdict.sh)
# are fed what a broken run prints, and each must count it as a failure: a
# scenario that passed with lockdep off, a skipped or silent build-machine
# test, a KUnit suite that reported nothing, a -t that matches nothing, a
# Debian kernel without its headers or image, a KUnit build without a
# module, the style gates on a file that breaks them, a fault scenario
# whose target guest failed, a stock pair failed by the rig (a failed
# rig_must step, a dead wire or emulator, a guest that never began), a
# KUnit case that skipped itself; a guest
# that asks for a fresh boot after lockdep switched itself off must get it,
# a pair of guests stuck before /init must be booted again and then fail;
# and tests/run itself (on a copy of the tree) must run the style gates.
# Each has its control that must pass, so a judge that fails everything
# cannot pass either.
# covers: the runner's judges fail what a broken run prints
# rig: once fast=once
#
# Usage: tests/host/runner-verdicts.sh    prints one CASE PASS|FAIL line per case
. "$(dirname "$0")/lib/common.sh"
. "$root/rig/verdict.sh"

# the runner's result(), recording instead of counting
result() { printf '%s %s%s\n' "$1" "$2" "${3:+  ($3)}" >> "$tmp/results"; }

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
case_ "scenario whose teardown switched lockdep off fails" \
	"$([[ $v == "FAIL lockdep switched itself off"* ]]; echo $?)" "$v"

# a fault scenario on two guests passes only if both sides' logs do
scenario 1 > "$tmp/pair.log"
scenario 1 > "$tmp/pair.log.target"
v=$(rig_pair_verdict "$tmp/pair.log" 2> /dev/null)
case_ "two guests: both sides passed passes" "$([ "$v" = PASS ]; echo $?)" "$v"
scenario 1 "RIG-CHECK FAIL the host guest ended (exit 1)" | sed 's/^RIG-RESULT PASS .*/RIG-RESULT FAIL synthetic: ended/' \
	> "$tmp/pair.log.target"
v=$(rig_pair_verdict "$tmp/pair.log" 2> /dev/null)
case_ "two guests: a failed target side fails" "$([[ $v == "FAIL target guest: synthetic: ended" ]]; echo $?)" "$v"
rm "$tmp/pair.log.target"
v=$(rig_pair_verdict "$tmp/pair.log" 2> /dev/null)
case_ "two guests: a target side with no console fails" "$([[ $v == "FAIL target guest: "* ]]; echo $?)" "$v"

# a stock host against a stock target is the reference: where stock itself
# breaks after the rig did its part the run does not fail, and says how;
# the rig's own failures fail on stock too
stock_pair() {	# stock_pair [HOST-LINE...] - host console, the target's passed
	scenario 1 "$@" > "$tmp/stock.log"
	scenario 1 > "$tmp/stock.log.target"
}
stock_pair
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: both sides passed passes" "$([ "$v" = PASS ]; echo $?)" "$v"
scenario 1 "RIG-CHECK FAIL fio verified every block (exit 1)" |
	sed 's/^RIG-RESULT PASS .*/RIG-RESULT FAIL synthetic: fio verified every block (exit 1)/' > "$tmp/stock.log"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: stock's failed check is stock's, said" \
	"$([[ $v == "STOCK-FAILS host guest: synthetic: fio verified every block (exit 1)" ]]; echo $?)" "$v"
sed -i '/^RIG-RESULT\|^RIG-DMESG\|^\[\|^RIG-SCENARIO-END\|^RIG-END/d' "$tmp/stock.log"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: stock hung after the connect: stock's, said" \
	"$([[ $v == "STOCK-FAILS host guest: guest did not finish" ]]; echo $?)" "$v"
scenario 1 "RIG-CHECK FAIL connect to the target guest (exit 1)" "RIG-MUST-FAIL connect to the target guest" |
	sed 's/^RIG-RESULT PASS .*/RIG-RESULT FAIL synthetic: connect to the target guest (exit 1)/' > "$tmp/stock.log"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: a rig step that failed fails" \
	"$([[ $v == "FAIL host guest: "*"(a step of the rig's own failed: connect to the target guest)" ]]; echo $?)" "$v"
stock_pair
grep -v '^RIG-SCENARIO-BEGIN\|^RIG-RESULT\|^RIG-END' "$tmp/stock.log.target" > "$tmp/t" && mv "$tmp/t" "$tmp/stock.log.target"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: a target guest that never began the scenario fails" "$([[ $v == "FAIL target guest: "* ]]; echo $?)" "$v"
stock_pair "RIG-PAIR 1.0 the wire died (a virtio NIC's transmit queue timed out)"
sed -i 's/^RIG-RESULT PASS .*/RIG-RESULT FAIL synthetic: fio (exit 1)/' "$tmp/stock.log"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: a dead wire fails" "$([[ $v == "FAIL host guest: synthetic: fio (exit 1) (the rig's wire or boot failed)" ]]; echo $?)" "$v"
stock_pair
sed -i "/^RIG-DMESG-END/e cat $root/tests/host/splat-logs/emulator-fault-debug-trap.txt" "$tmp/stock.log.target"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair: an emulator fault fails" "$([[ $v == "FAIL target guest: "*"(the emulator failed)" ]]; echo $?)" "$v"

# make faults' table: a row per scenario, a column per kernel and pairing,
# what a cell did not run is "-", a failure says why; figures from the log
printf 'RIG-LOG x\r\nRIG-FIGURE reconnected 3.9 s after it\r\nRIG-FIGURE 2 | 3\r\n' > "$tmp/fig.log"
v=$(rig_figures "$tmp/fig.log")
case_ "fault figures: the RIG-FIGURE lines, joined" \
	"$([ "$v" = "reconnected 3.9 s after it; 2 | 3" ]; echo $?)" "$v"
v=$(printf '%s\t%s\t%s\t%s\n' \
	link-cut "6.1 ours/ours" PASS "$(rig_figures "$tmp/fig.log")" \
	link-cut "6.1 stock/stock" "FAIL host guest: it broke" "" \
	link-flap "6.1 ours/ours" PASS "" | faults_table)
case_ "fault table: header, a row per scenario, failures and gaps shown" "$(
	[ "$(sed -n 1p <<<"$v")" = "| scenario | 6.1 ours/ours | 6.1 stock/stock |" ] &&
	[ "$(sed -n 3p <<<"$v")" = "| link-cut | PASS: reconnected 3.9 s after it; 2 / 3 | FAIL host guest: it broke |" ] &&
	[ "$(sed -n 4p <<<"$v")" = "| link-flap | PASS | - |" ] && [ "$(wc -l <<<"$v")" -eq 4 ]
	echo $?)" "$v"
v=$(faults_table < /dev/null)
case_ "fault table: nothing ran, no table" "$([ -z "$v" ]; echo $?)" "$v"

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
ktap $suites | sed '0,/ok 1 - the_case/s//ok 1 - the_case # SKIP no device/' > "$tmp/kunit.log"
: > "$tmp/results"; kunit_results "$tmp/kunit.log"; r=$(cat "$tmp/results")
case_ "KUnit: a case that skipped itself fails" \
	"$(grep -q '^FAIL kunit .*the_case.*skipped' <<<"$r"; echo $?)" "$r"
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

# a Debian kernel with an image but no headers, or headers but no image,
# would drop out of "stock" unseen: each is named (tests/run fails on it)
sys=$tmp/sys
mkdir -p "$sys/boot" "$sys/lib/modules/6.1.0-97-amd64/build" "$sys/lib/modules/6.1.0-98-amd64/build"
touch "$sys/boot/vmlinuz-6.1.0-97-amd64" "$sys/lib/modules/6.1.0-97-amd64/build/Makefile" \
	"$sys/boot/vmlinuz-6.1.0-99-amd64" "$sys/lib/modules/6.1.0-98-amd64/build/Makefile"
r=$(debian_kernel_mismatches "$sys")
case_ "kernels: an image without headers and headers without an image are named, a whole one not" \
	"$(grep -q '^6.1.0-99-amd64 has an image but no headers' <<<"$r" &&
	   grep -q '^6.1.0-98-amd64 has headers but no image' <<<"$r" &&
	   [ "$(wc -l <<<"$r")" = 2 ]; echo $?)" "$r"

# KUnit: no module built is no KUnit guest, which tests/run counts a failure
mkdir -p "$tmp/kunit"
kunit_modules_built "$tmp/kunit"; e=$?
touch "$tmp/kunit/nvmeof_rdma_kunit.ko"
kunit_modules_built "$tmp/kunit"; f=$?
case_ "KUnit: a build without a module is told from one with" \
	"$([ $e -ne 0 ] && [ $f -eq 0 ]; echo $?)" "empty: $e, one module: $f"

# the style gates: scripts/style.sh, run on a tree of its own with a file
# that breaks each gate, fails each, and the rows the runner reads from its
# log fail; on the same tree with a clean file each passes
stree=$tmp/style
mkdir -p "$stree/scripts" "$stree/host"
cp "$root/scripts/style.sh" "$root/scripts/lib.sh" "$root/scripts/kdoc-coverage.awk" "$stree/scripts/"
git -C "$stree" init -q
cat > "$stree/host/x.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
/* the style gates' checker: a clean file */
#include <linux/types.h>

/**
 * rig_style_ok() - a documented function
 * @a: a number
 *
 * Return: @a plus one.
 */
int rig_style_ok(int a)
{
	return a + 1;
}
C
env -u NVMEOF_ROOT "$stree/scripts/style.sh" > "$tmp/style-ok.log" 2>&1
ok_rc=$?
printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' 'int rig_style_bad(int a) {' \
	'	return a+1;' '}' > "$stree/host/x.c"
touch "$stree/host/nvme.h"
git -C "$stree" add host/nvme.h
env -u NVMEOF_ROOT "$stree/scripts/style.sh" > "$tmp/style-bad.log" 2>&1
bad_rc=$?
rows() { style_results "$1" | cut -f3 | cut -d' ' -f1 | sort | uniq -c | tr -s ' ' | paste -sd, -; }
case_ "style gates: a clean file passes all three" \
	"$([ $ok_rc -eq 0 ] && [ "$(rows "$tmp/style-ok.log")" = " 3 PASS" ]; echo $?)" \
	"exit $ok_rc: $(tr "\n" " " < "$tmp/style-ok.log")"
case_ "style gates: checkpatch, kernel-doc and a committed nvme.h each fail" \
	"$([ $bad_rc -ne 0 ] && [ "$(rows "$tmp/style-bad.log")" = " 3 FAIL" ]; echo $?)" \
	"exit $bad_rc: $(tr "\n" " " < "$tmp/style-bad.log")"
: > "$tmp/style-empty.log"
case_ "style gates: a log without a gate fails" \
	"$(style_results "$tmp/style-empty.log" | grep -q $'^-\tstyle\tFAIL printed no gate'; echo $?)" \
	"$(style_results "$tmp/style-empty.log")"

# rig_boots: a guest whose console asks for a fresh boot (RIG-RESTART after
# lockdep switched itself off) is booted again for the scenarios it has
# left, and both consoles end up in its log; a console that asks nothing
# is booted once
fake_boot() {	# fake_boot CONSOLE ARGS - what a guest would print
	echo "$2" >> "$tmp/boots"
	case $2 in
	*rig.test=a.sh,b.sh,c.sh*) printf 'first boot\r\nRIG-RESTART b.sh,c.sh\r\n' > "$1" ;;
	*) echo "boot with $2" > "$1" ;;
	esac
}
: > "$tmp/boots"
rig_boots "$tmp/guest.log" "rig.job=test rig.test=a.sh,b.sh,c.sh rig.host=ours" fake_boot
b=$(cat "$tmp/boots")
case_ "a guest asking for a fresh boot gets one, with the scenarios left" \
	"$([ "$(wc -l < "$tmp/boots")" = 2 ] &&
		[ "$(sed -n 2p "$tmp/boots")" = "rig.job=test rig.test=b.sh,c.sh rig.host=ours" ]; echo $?)" "$b"
case_ "... both consoles in its log" \
	"$(grep -q '^first boot' "$tmp/guest.log" && grep -q '^boot with .*rig.test=b.sh,c.sh' "$tmp/guest.log"; echo $?)" \
	"$(cat "$tmp/guest.log")"
: > "$tmp/boots"
rig_boots "$tmp/guest2.log" "rig.job=test rig.test=d.sh" fake_boot
case_ "a guest that asks for nothing is booted once" \
	"$([ "$(wc -l < "$tmp/boots")" = 1 ]; echo $?)" "$(cat "$tmp/boots")"

# tests/run runs the style gates (make check once lost them): end to end on
# a copy of the tree (its own build/, away from the run this may be part
# of), with no kernel (-k none): the three gates each PASS, and nothing else
copy=$tmp/tree
mkdir "$copy"
git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$copy")
# a repository of its own: the gates find their files with git ls-files
git -C "$copy" init -q && git -C "$copy" add -A
out=$("$copy/tests/run" -k none -t '^style$' 2>&1)
rc=$?
case_ "tests/run runs the style gates: three PASS, nothing else" \
	"$([ $rc -eq 0 ] && [ "$(grep -c '^PASS style' <<<"$out")" = 3 ] &&
		tail -1 <<<"$out" | grep -qx '3 passed, 0 failed, 0 skipped'; echo $?)" "exit $rc: $(tail -5 <<<"$out")"

# run-pair.sh: a pair whose guests do not reach /init in time (here a real
# kernel given 4 s and an empty initrd) is stopped and booted again, three
# boots in all, the consoles of the first two kept; then it fails, the log
# naming both guests
kernel=$(ls /boot/vmlinuz-* 2> /dev/null | head -1)
: > "$tmp/empty.img"
RIG_BOOT_TIMEOUT=4 "$root/rig/run-pair.sh" "$kernel" "$tmp/empty.img" "$tmp/pair.log" 60 \
	"rig.job=none" 2> "$tmp/pair.err"
rc=$?
case_ "a pair stuck before /init: booted three times, then fails naming both guests" \
	"$([ $rc = 1 ] && [ -s "$tmp/pair.log.hang1" ] && [ -s "$tmp/pair.log.target.hang2" ] &&
		[ ! -e "$tmp/pair.log.hang3" ] &&
		grep -q '^RIG-PAIR boot hang: the host guest did not reach /init in 4s' "$tmp/pair.log" &&
		grep -q '^RIG-PAIR boot hang: the target guest did not reach /init in 4s' "$tmp/pair.log"
		echo $?)" "exit $rc, $(ls "$tmp" | grep pair | paste -sd' ' -): $(grep RIG-PAIR "$tmp/pair.log")"
