# SPDX-License-Identifier: GPL-2.0
# hostile-target: a misbehaving target (tests/tools/hostile-target.c), one
# bad thing per connection:
# - the admin queue's Connect answered with another command id, 8 or 32
#   bytes, twice, or (for the next command) a SEND with Invalidate of a key
#   that command does not hold;
# - the RDMA CM connect request never answered: the host gives it up after
#   cm_wait_s, and its REJ ends the request (the tool's late accept fails);
# - the RDMA CM accept with a short private data (on rxe: CRQSIZE 0) or
#   record format 1 (refused); CRQSIZE below the host's queue (warned and
#   taken: it works, waiting on RNR retries) or deeper than asked (legal);
# - the tool serving the admin queue (Property Get/Set, Identify, Set
#   Features, Keep Alive): Identify Controller with IOCCSZ 3 (6.1: our host
#   warns and sends no in-capsule data, going on to Set Features, which the
#   tool refuses; 6.12: nvme-core refuses the controller) or 0xffffffff (a
#   64 GiB capsule: refused, the port's max_msg_sz is smaller); Identify's
#   response invalidating a key no MR has (rxe fails the host's receive);
#   and on the I/O queue's Connect: another command id, 8 or 32 bytes, or an
#   invalidation of another MR's key while that Connect holds an MR.
# - the controller lost (every queue disconnected) with its keep-alive
#   unanswered: error recovery ends the keep-alive at once.
# - a command lost while connecting fails after twice the keep-alive
#   timeout, not nvme_core's admin_timeout.
# - three I/O queues set up at once, the second refused at its RDMA CM
#   connect or at its Connect command: every queue undone, no controller.
# The host must say what was wrong, must not complete a command with a bad
# response (the tool sees no further command on that queue), and must end
# the connect attempt with an error once the admin (or I/O) timeout, 5 s
# here, has passed, leaving no controller; the module unloads afterwards.
# The tool exits 0 only when the host then disconnected every queue (1 if
# the host stayed: the linger control shows that check can fail). Control
# cases (good on the admin queue, io-good on the I/O queue: the controller
# goes live) show that the tool's correct answers are taken, so a broken
# tool cannot pass.
# On rxe only: what is checked is how the host reads a target's answers,
# which no rule of the device changes (it passed on rxe-hw, 6.1, December
# 2026; left out for CI's time).
# covers: a misbehaving target against our host: exact messages, no bad completion, clean unwinding
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe timeout=420 fast=debug:ours/ours:rxe

rig_setup_rdma
rig_load_host
rig_must "admin timeout 5 s" sh -c 'echo 5 > /sys/module/nvme_core/parameters/admin_timeout'
rig_must "I/O timeout 5 s" sh -c 'echo 5 > /sys/module/nvme_core/parameters/io_timeout'

# has_msg LINE MSG - the kernel log from line LINE on matches MSG
has_msg() { dmesg | tail -n +"$1" | grep -q "$2"; }

# the tool's command lines on queue QID (0: admin) in file OUT
cmds_on() { grep -c "^command: qid $1 " "$2"; }

# start_tool CASE [LINGER] - start the tool in the background; sets pid, out
# and n (the kernel log's line count before the connect)
start_tool() {
	out=/tmp/hostile-target.$1
	/rig/bin/hostile-target $RIG_IP4 4430 "$@" > "$out" 2>&1 &
	pid=$!
	rig_must "$1: tool listening" rig_wait 10 grep -q LISTENING "$out"
	n=$(dmesg | wc -l)
}

# end_tool CASE RC - the tool must have ended with RC; its log and the
# host's nvme lines go to the console
end_tool() {
	local rc=0
	wait $pid || rc=$?
	sed "s/^/RIG-LOG $1 tool: /" "$out"
	dmesg | tail -n +$((n + 1)) | grep nvme | sed "s/^/RIG-LOG $1 host: /"
	rig_check "$1: the tool's exit status is $2 (it was $rc)" test $rc -eq "$2"
}

# hostile CASE WHAT_THE_HOST_SAYS QID COMMANDS - one controller connect
# against the tool, which must fail; COMMANDS: how many commands the tool
# must see on queue QID (the queue of the bad response): on the admin
# queue 0 if the host refused the accept, 1 if it must not take the
# Connect's response, 2 if it takes it and must take nothing after; "-"
# where the caller checks the commands itself
hostile() {
	local c=$1 msg=$2 qid=$3 cmds=$4
	start_tool "$c"
	rig_check "$c: nvme connect fails" \
		sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN"
	rig_check "$c: no controller left" rig_wait 10 rig_no_controllers
	end_tool "$c" 0
	rig_check "$c: the tool saw the host go" grep -q '^host went away$' "$out"
	rig_check "$c: host says: $msg" has_msg $((n + 1)) "$msg"
	[ "$cmds" = - ] ||
		rig_check "$c: the host sent $cmds command(s) on queue $qid, no more" \
			test "$(cmds_on "$qid" "$out")" -eq "$cmds"
}

# the admin queue's Connect
hostile good "I/O [0-9]* QID 0 timeout" 0 2
hostile bad-cid "got bad command_id" 0 1
hostile short "Unexpected nvme completion length(8)" 0 1
hostile long "RECV for CQE 0x[0-9a-f]* failed with status" 0 1
# the second copy finds the command finished (our check), or, when the host
# already reused the tag for its next command, a generation counter that
# does not match (nvme-core's check): refused either way (debug kernel, once)
hostile duplicate "response for command_id 0x[0-9a-f]*, which is not outstanding\|genctr mismatch" 0 2
hostile bogus-inv "response for command_id 0x[0-9a-f]* invalidated rkey 0x[0-9a-f]*, but the command's is 0x0" 0 2

# the exit status check above can fail: with a 1 s bound the tool must
# report that the host is still connected (it goes after the 5 s timeout)
start_tool good 1
rig_check "linger control: nvme connect fails" \
	sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN"
rig_check "linger control: no controller left" rig_wait 10 rig_no_controllers
end_tool good-linger-1s 1
rig_check "linger control: the tool says the host stayed" \
	grep -q '^FAIL host still connected 1 s after' "$out"

# a command lost while connecting, with admin_timeout at its default (60 s)
# and a keep-alive timeout of 2 s: our host fails it after twice the
# keep-alive timeout (stock would wait the 60 s)
echo 60 > /sys/module/nvme_core/parameters/admin_timeout
start_tool good
t0=$(rig_t)
rig_check "setup bound: nvme connect fails" \
	sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN --keep-alive-tmo=2"
t=$(rig_since "$t0")
rig_check "setup bound: no controller left" rig_wait 10 rig_no_controllers
end_tool setup-bound 0
rig_check "setup bound: the lost command failed after 2 x 2 s, not 60 s (connect took $t s)" \
	awk -v t="$t" 'BEGIN { exit !(t < 30) }'
rig_check "setup bound: it timed out" has_msg $((n + 1)) "I/O [0-9]* QID 0 timeout"
echo 5 > /sys/module/nvme_core/parameters/admin_timeout
# the RDMA CM connect request never answered: the kernel's CM asks the
# host for more time (an MRA), and the CM alone would then wait 17 minutes;
# the host gives the attempt up after cm_wait_s (120 s; 10 s here), says
# so, and its REJ ends the request: the tool's late accept is refused
rig_check "cm_wait_s is 120 s by default" \
	test "$(cat /sys/module/nvme_rdma/parameters/cm_wait_s)" = 120
echo 10 > /sys/module/nvme_rdma/parameters/cm_wait_s
start_tool cm-silent
t0=$(rig_t)
rig_check "cm-silent: nvme connect fails" \
	sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN"
t=$(rig_since "$t0")
rig_check "cm-silent: no controller left" rig_wait 10 rig_no_controllers
rig_check "cm-silent: the attempt ended by the 10 s bound (it took $t s)" \
	awk -v t="$t" 'BEGIN { exit !(t >= 10 && t < 30) }'
rig_check "cm-silent: host says: no answer from the RDMA CM in 10 s" has_msg $((n + 1)) \
	"queue 0: no answer from the RDMA CM (route and accept) in 10 s: giving the connection attempt up"
end_tool cm-silent 0
rig_check "cm-silent: the tool's late accept was refused" \
	grep -q '^late accept refused' "$out"
echo 120 > /sys/module/nvme_rdma/parameters/cm_wait_s
# the RDMA CM accept
hostile rep-short "QID 0: controller receive queue size (CRQSIZE) 0 takes no command: refusing the connection" 0 0
hostile rep-recfmt "QID 0: RDMA CM accept has record format 1, not 0: refusing the connection" 0 0
hostile rep-crqsize-small "QID 0: controller receive queue size (CRQSIZE) 31 is below the host's submission queue size 32: commands beyond it wait on receiver-not-ready retries" 0 2
hostile rep-crqsize-big "I/O [0-9]* QID 0 timeout" 0 2

# Identify Controller's IOCCSZ
case $(uname -r) in
6.1.*)
	hostile ioccsz-small "I/O command capsule size of 48 bytes (IOCCSZ 3) cannot hold a command: sending no in-capsule data" 1 0
	rig_check "ioccsz-small: 6.1: the host went on to Set Features" \
		grep -q '^command: qid 0 opcode 0x9 ' "$out"
	;;
*)
	hostile ioccsz-small "I/O queue command capsule supported size 3 < 4" 1 0
	rig_check "ioccsz-small: nvme-core refused before Set Features" \
		sh -c "! grep -q '^command: qid 0 opcode 0x9 ' $out"
	;;
esac
hostile ioccsz-huge "I/O command capsule size of 68719476720 bytes (IOCCSZ 4294967295) exceeds the RDMA port's largest message of [0-9]* bytes: refusing the controller" 1 0
rig_check "ioccsz-huge: refused before Set Features" \
	sh -c "! grep -q '^command: qid 0 opcode 0x9 ' $out"

# a remote invalidation of a key no MR has, for Identify (which holds one)
hostile inv-unknown "RECV for CQE 0x[0-9a-f]* failed with status remote invalid request error" 0 -
rig_check "inv-unknown: Identify was the host's last command" \
	test "$(grep '^command:' "$out" | tail -n 1 | cut -d' ' -f5)" = 0x6

# the I/O queue's Connect (the admin queue served: one I/O queue)
hostile io-bad-cid "got bad command_id" 1 1
hostile io-short "Unexpected nvme completion length(8)" 1 1
hostile io-long "RECV for CQE 0x[0-9a-f]* failed with status" 1 1
hostile io-wrong-inv "response for command_id 0x[0-9a-f]* invalidated rkey 0x[0-9a-f]*, but the command's is 0x[1-9a-f]" 1 1
inv=$(sed -n 's/^invalidated rkey //p' "$out" | tail -n 1)
rig_check "io-wrong-inv: the host names the key the tool invalidated ($inv)" \
	has_msg $((n + 1)) "invalidated rkey $inv, but the command's is"
for c in io-bad-cid io-short io-long io-wrong-inv; do
	rig_check "$c: the host got as far as the I/O queue" \
		grep -q '^connect request: qid 1 ' /tmp/hostile-target.$c
done

# control: the I/O queue's Connect answered well, the controller goes live
start_tool io-good
rig_check "io-good: nvme connect succeeds" \
	nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN
rig_check "io-good: host says: new ctrl" has_msg $((n + 1)) 'new ctrl: NQN'
rig_check "io-good: host created 1 I/O queue" \
	has_msg $((n + 1)) 'creating 1 I/O queues'
rig_check "io-good: disconnect" rig_disconnect all
rig_check "io-good: no controller left" rig_wait 10 rig_no_controllers
end_tool io-good 0
rig_check "io-good: the tool saw the host go" grep -q '^host went away$' "$out"
# the controller lost with its keep-alive outstanding: error recovery ends
# the keep-alive at once rather than wait for its timeout (KATO, 5 s),
# which the work sending it synchronously (Debian's 6.1) would make it do
start_tool ka-gone
rig_check "ka-gone: nvme connect succeeds" \
	nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN \
	--reconnect-delay=1 --ctrl-loss-tmo=3
end_tool ka-gone 0
rig_check "ka-gone: the tool left the keep-alive unanswered" \
	grep -q '^keep-alive unanswered' "$out"
rig_check "ka-gone: host says: starting error recovery: disconnect" \
	rig_wait 10 has_msg $((n + 1)) 'starting error recovery: disconnect'
rig_check "ka-gone: host says: keep-alive ended by the controller's recovery" \
	rig_wait 10 has_msg $((n + 1)) "keep-alive ended by the controller's recovery"
rig_check "ka-gone: the controller is given up (ctrl_loss_tmo 3 s)" \
	rig_wait 30 rig_no_controllers
sleep 5		# past the keep-alive's own timeout
rig_check "ka-gone: no command waited for its timeout" \
	sh -c "! dmesg | tail -n +$((n + 1)) | grep -q 'QID [0-9]* timeout'"
dmesg | tail -n +$((n + 1)) | grep nvme | sed "s/^/RIG-LOG ka-gone host: /"
# three I/O queues set up at once, the second failing: at its RDMA CM
# connect (rejected) or at its Connect command (Invalid Field). The host
# went on with queue 3 meanwhile (its connect request, its Connect command:
# one after the other, stock would never get to them), then undid them all.
for c in q3-cm-reject q3-connect-fail; do
	start_tool $c
	rig_check "$c: nvme connect fails" \
		sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN \
			--nr-io-queues=1 --nr-write-queues=1 --nr-poll-queues=1"
	rig_check "$c: no controller left" rig_wait 10 rig_no_controllers
	end_tool $c 0
	rig_check "$c: the tool saw the host go" grep -q '^host went away$' "$out"
	rig_check "$c: the host asked for 3 I/O queues" \
		has_msg $((n + 1)) 'creating 3 I/O queues'
	case $c in
	q3-cm-reject)
		rig_check "$c: the host says why" \
			has_msg $((n + 1)) 'rdma connection establishment failed'
		rig_check "$c: queue 3 was set up beside queue 2" \
			grep -q '^connect request: qid 3 ' "$out" ;;
	q3-connect-fail)
		rig_check "$c: the host says why" \
			has_msg $((n + 1)) 'failed to connect queue: 2 ret='
		rig_check "$c: queue 3's Connect went out beside queue 2's" \
			grep -q '^command: qid 3 opcode 0x7f fctype 0x1 ' "$out" ;;
	esac
done

rig_unload nvme-rdma
