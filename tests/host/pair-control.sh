#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pair-control: rig/run-pair.sh's side of a fault scenario checked. A fault
# done on a QEMU monitor is answered "ok" only if the monitor said nothing
# back: set_link of a netdev QEMU does not have says "Error: Device 'wire'
# not found" and cuts nothing, which must reach the host guest as a
# failure (real transcripts of QEMU 7.2's monitor, tests/host/monitor-logs/).
# A pair run again after its wire died says so in its log, naming where the
# first run's consoles are, as after an emulator fault (tests/run counts
# those lines). The target guest's "ready" (rig_wire_serve) answers the host
# guest's "target ready" and is never taken for the answer to a request.
# The judgements by themselves (rig/pair-lib.sh), then run-pair.sh end to
# end with a fake QEMU (a script that makes the monitor and control
# sockets and prints a console; no guest boots), in a network namespace of
# its own when it can be had (run-pair.sh raises the machine's
# net.core.rmem_default otherwise). Each with its control that must pass.
# covers: a refused fault reaches the host guest; a pair's rerun says so
# rig: once fast=once
#
# Usage: tests/host/pair-control.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mon=$root/tests/host/monitor-logs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/rig/pair-lib.sh"

case_() {	# case_ NAME OK [GOT] - one CASE line
	if [ "$2" = 0 ]; then echo "CASE PASS $1"; else echo "CASE FAIL $1 -- got: $3"; fi
}

# what a monitor's answer means for the host guest
v=$(monitor_answer 0 "$(cat "$mon/set_link-ok.txt")")
case_ "monitor: set_link that said nothing is ok" "$([ "$v" = ok ]; echo $?)" "$v"
v=$(monitor_answer 0 "$(cat "$mon/stop-ok.txt")")
case_ "monitor: stop that said nothing is ok" "$([ "$v" = ok ]; echo $?)" "$v"
v=$(monitor_answer 0 "$(cat "$mon/set_link-not-found.txt")")
case_ "monitor: \"Device 'wire' not found\" is a failure, said" \
	"$([ "$v" = "failed: Error: Device 'wire' not found" ]; echo $?)" "$v"
v=$(monitor_answer 1 "")
case_ "monitor: no monitor to talk to is a failure" "$([ "$v" = "failed: no monitor" ]; echo $?)" "$v"
v=$(monitor_answer 0 "")
case_ "monitor: a monitor that said not even its banner is a failure" \
	"$([ "$v" = "failed: no monitor" ]; echo $?)" "$v"

# the dead wire's rerun, decided and said
printf 'RIG-BEGIN\nRIG-PAIR 1733555.123 the wire died (a virtio NIC'"'"'s transmit queue timed out)\n' > "$tmp/died.log"
printf 'RIG-BEGIN\nRIG-PAIR 1733555.123 link off: ok\nRIG-END\n' > "$tmp/fine.log"
v=$(pair_wire_died "$tmp/died.log")
case_ "rerun: a dead wire is run again, why said" \
	"$([ "$v" = "the wire died (a virtio NIC's transmit queue timed out)" ]; echo $?)" "$v"
v=$(pair_wire_died "$tmp/fine.log"); rc=$?
case_ "rerun: a live wire is not" "$([ $rc -ne 0 ]; echo $?)" "exit $rc: $v"
v=$(RIG_PAIR_WIRE_DIED=x pair_wire_died "$tmp/died.log"); rc=$?
case_ "rerun: a second dead wire in a row is not run a third time" "$([ $rc -ne 0 ]; echo $?)" "exit $rc: $v"
v=$(RIG_PAIR_WIRE_DIED="the wire died (x)" pair_again_lines /l/link-cut.log)
case_ "rerun: the second run's line names the first's consoles" \
	"$([ "$v" = "RIG-PAIR again after the wire died (consoles: /l/link-cut.log.died, /l/link-cut.log.target.died): the wire died (x)" ]; echo $?)" "$v"
v=$(pair_again_lines /l/link-cut.log)
case_ "rerun: a first run has no such line" "$([ -z "$v" ]; echo $?)" "$v"

# run-pair.sh end to end, with a fake QEMU: FAKE_* in its environment say
# what each side does (below)
mkdir "$tmp/bin"
cat > "$tmp/bin/qemu-system-x86_64" <<'PY'
#!/usr/bin/env python3
# a fake QEMU for run-pair.sh: its control line and monitor sockets, and a
# console on stdout. The host side sends FAKE_HOST_REQUESTS (";"
# separated) and prints each answer (FAKE-ANSWER); the target side says
# "ready" after FAKE_TARGET_READY_S and answers every request "ok" until
# "end"; the monitor says FAKE_MONITOR_SAYS after each command; with
# FAKE_DIE set, the first run's target says its NIC timed out and both
# sides wait to be killed.
import os, socket, sys, threading, time
args = sys.argv[1:]
ctl = [a for a in args if a.startswith("socket,id=ctl,")][0]
ctl = [p[5:] for p in ctl.split(",") if p.startswith("path=")][0]
mon = [a for a in args if a.startswith("unix:")][0][5:].split(",")[0]
role = [a for a in args if "rig.role=" in a][0].split("rig.role=")[1].split()[0]
runs = os.path.join(os.environ["FAKE_DIR"], role + ".runs")
run = int(open(runs).read()) + 1 if os.path.exists(runs) else 1
open(runs, "w").write(str(run))
def out(line):
    sys.stdout.write(line + "\r\n")
    sys.stdout.flush()
def listen(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(4)
    return s
def monitor(s):
    while True:
        c, _ = s.accept()
        c.sendall(b"QEMU 7.2.22 monitor - type 'help' for more information\r\n(qemu) ")
        cmd = c.makefile("rb").readline().decode().strip()
        says = os.environ.get("FAKE_MONITOR_SAYS", "")
        if cmd.startswith("info"):
            says = "fake " + cmd
        c.sendall(("(qemu) " + cmd + "\x1b[K\r\n" + (says + "\r\n" if says else "") + "(qemu) ").encode())
        time.sleep(0.2)
        c.close()
threading.Thread(target=monitor, args=(listen(mon),), daemon=True).start()
cs = listen(ctl)
out("RIG-BEGIN job=wire test=fake.sh")
if os.environ.get("FAKE_DIE") and run == 1:
    if role == "target":
        out("[   9.0] NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 0 timed out")
    time.sleep(120)
    sys.exit(1)
c, _ = cs.accept()
f = c.makefile("rb")
if role == "host":
    for req in filter(None, os.environ.get("FAKE_HOST_REQUESTS", "").split(";")):
        c.sendall((req + "\n").encode())
        out("FAKE-ANSWER " + req + ": " + f.readline().decode().strip())
else:
    ready = os.environ.get("FAKE_TARGET_READY_S")
    if ready is not None:
        time.sleep(float(ready))
        c.sendall(b"ready\n")
    for line in f:
        if line.decode().strip() == "end":
            break
        c.sendall(b"ok\n")
out("RIG-END")
PY
chmod +x "$tmp/bin/qemu-system-x86_64"
# a network namespace of its own, its loopback up, if this machine gives one
ns=()
if unshare -n true 2> /dev/null; then
	ns=(unshare -n sh -c 'ip link set lo up && exec "$@"' -)
fi
# pair NAME [VAR=VALUE...] - run-pair.sh on the fake QEMU (log $tmp/NAME.log)
pair() {
	local name=$1
	shift
	mkdir "$tmp/$name.fake"
	env PATH="$tmp/bin:$PATH" FAKE_DIR="$tmp/$name.fake" "$@" "${ns[@]}" \
		"$root/rig/run-pair.sh" /no/kernel /no/initrd "$tmp/$name.log" 60 "rig.job=wire" \
		> "$tmp/$name.out" 2>&1
}
answers() { grep -a '^FAKE-ANSWER\|^RIG-PAIR again' "$tmp/$1.log" | tr -d '\r' | paste -sd'|' -; }

pair monitor-fails FAKE_HOST_REQUESTS="link off;target link off;target stop" \
	FAKE_MONITOR_SAYS="Error: Device 'wire' not found" FAKE_TARGET_READY_S=0
v=$(answers monitor-fails)
case_ "end to end: a link cut the monitor refused reaches the host guest as a failure" \
	"$(grep -qx "FAKE-ANSWER link off: failed: Error: Device 'wire' not found" <<<"$(tr '|' '\n' <<<"$v")" &&
	   grep -qx "FAKE-ANSWER target link off: failed: Error: Device 'wire' not found" <<<"$(tr '|' '\n' <<<"$v")" &&
	   grep -qx "FAKE-ANSWER target stop: failed: Error: Device 'wire' not found" <<<"$(tr '|' '\n' <<<"$v")"
	   echo $?)" "$v $(tail -3 "$tmp/monitor-fails.out")"
pair monitor-ok FAKE_HOST_REQUESTS="link off;link on;target stop;target cont" FAKE_TARGET_READY_S=0
v=$(answers monitor-ok)
case_ "end to end: faults the monitor took are ok" \
	"$([ "$v" = "FAKE-ANSWER link off: ok|FAKE-ANSWER link on: ok|FAKE-ANSWER target stop: ok|FAKE-ANSWER target cont: ok" ]; echo $?)" \
	"$v $(tail -3 "$tmp/monitor-ok.out")"
pair ready FAKE_HOST_REQUESTS="target ready;target port off" FAKE_TARGET_READY_S=1
v=$(answers ready)
case_ "end to end: \"target ready\" waits for the target's ready; its next answer is the request's" \
	"$([ "$v" = "FAKE-ANSWER target ready: ok|FAKE-ANSWER target port off: ok" ]; echo $?)" \
	"$v $(tail -3 "$tmp/ready.out")"
pair ready-late FAKE_HOST_REQUESTS="target port off;target ready" FAKE_TARGET_READY_S=0
v=$(answers ready-late)
case_ "end to end: a ready the target said before a request's answer is passed over, and noted" \
	"$([ "$v" = "FAKE-ANSWER target port off: ok|FAKE-ANSWER target ready: ok" ]; echo $?)" \
	"$v $(tail -3 "$tmp/ready-late.out")"
pair died FAKE_DIE=1 FAKE_HOST_REQUESTS="link off" FAKE_TARGET_READY_S=0
rc=$?
v=$(answers died)
case_ "end to end: a pair whose wire died runs again, its log saying so and where the first consoles are" \
	"$([ $rc = 0 ] && [ -s "$tmp/died.log.died" ] && [ -s "$tmp/died.log.target.died" ] &&
	   grep -aq "^RIG-PAIR again after the wire died (consoles: $tmp/died.log.died, $tmp/died.log.target.died): the wire died" "$tmp/died.log" &&
	   grep -aq 'NETDEV WATCHDOG' "$tmp/died.log.target.died" && ! grep -aq 'NETDEV WATCHDOG' "$tmp/died.log.target"
	   echo $?)" "exit $rc, $(ls "$tmp" | grep '^died' | paste -sd' ' -): $v $(tail -3 "$tmp/died.out")"

# the verdict of a stock pair run again after its wire died: that run is
# whole and its own wire lived, so stock's failure in it is stock's
# (STOCK-FAILS; tests/run counts the rerun), while a wire that died in it
# as well is still the rig's failure
. "$root/scripts/lib.sh"
. "$root/rig/verdict.sh"
stock_run() {	# stock_run LINE... - a stock pair's consoles, the host's check failed, its RIG-PAIR LINEs
	{
		printf '%s\n' "RIG-BEGIN job=wire" "RIG-SCENARIO-BEGIN synthetic t=1.0 lockdep=" \
			"RIG-CHECK ok connect [t=2.0]" "RIG-CHECK FAIL fio verified every block (exit 1)" \
			"RIG-RESULT FAIL synthetic: fio verified every block (exit 1)" \
			"RIG-DMESG-BEGIN" "RIG-DMESG-END" "RIG-SCENARIO-END synthetic t=4.0" "RIG-END"
		printf '%s\n' "$@"
	} > "$tmp/stock.log"
	printf '%s\n' "RIG-BEGIN job=wire" "RIG-SCENARIO-BEGIN synthetic t=1.0 lockdep=" \
		"RIG-CHECK ok the host guest ended [t=2.0]" "RIG-RESULT PASS synthetic" \
		"RIG-DMESG-BEGIN" "RIG-DMESG-END" "RIG-SCENARIO-END synthetic t=4.0" "RIG-END" > "$tmp/stock.log.target"
}
again="RIG-PAIR again after the wire died (consoles: $tmp/stock.log.died, $tmp/stock.log.target.died): the wire died (a virtio NIC's transmit queue timed out)"
stock_run "$again" "RIG-PAIR 1733555.100 link off: ok"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "stock pair run again after a dead wire: stock's failure in it is stock's" \
	"$([[ $v == "STOCK-FAILS host guest: synthetic: fio verified every block (exit 1)" ]]; echo $?)" "$v"
stock_run "$again" "RIG-PAIR 1733555.100 the wire died (a virtio NIC's transmit queue timed out)"
v=$(rig_stock_pair_verdict "$tmp/stock.log" 2> /dev/null)
case_ "... but its own wire dying again fails" "$([[ $v == "FAIL "*"(the rig's wire or boot failed)" ]]; echo $?)" "$v"
