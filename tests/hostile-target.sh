# SPDX-License-Identifier: GPL-2.0
# hostile-target: a misbehaving target (tests/tools/hostile-target.c)
# answers the host's admin-queue Connect with one bad response per
# connection: another command id, 8 or 32 bytes, the response twice, or
# (for the next command) a SEND with Invalidate of a key that command does
# not hold. The host must say what was wrong, must not complete a command
# with a bad response (the tool sees no further command), and must end the
# connect attempt with an error once the admin timeout (5 s here) has
# passed, leaving no controller; the module unloads afterwards. The tool's
# correct answer must be taken (the control case: the host goes on to its
# next command), so a broken tool cannot pass.
# rig: pairs=ours/ours kernels=stock,debug rdma=rxe timeout=300

rig_setup_rdma
rig_load_host
rig_must "admin timeout 5 s" sh -c 'echo 5 > /sys/module/nvme_core/parameters/admin_timeout'

# has_msg LINE MSG - the kernel log from line LINE on matches MSG
has_msg() { dmesg | tail -n +"$1" | grep -q "$2"; }

# hostile CASE WHAT_THE_HOST_SAYS COMMANDS - one connection to the tool;
# COMMANDS: how many commands the tool must see: 1 if the host must not
# take the Connect's response, 2 if it takes it and must take nothing after
hostile() {
	local c=$1 msg=$2 cmds=$3 out=/tmp/hostile-target.$1 n pid
	/rig/bin/hostile-target $RIG_IP4 4430 "$c" > "$out" 2>&1 &
	pid=$!
	rig_must "$c: tool listening" rig_wait 10 grep -q LISTENING "$out"
	n=$(dmesg | wc -l)
	rig_check "$c: nvme connect fails" \
		sh -c "! nvme connect -t rdma -a $RIG_IP4 -s 4430 -n $RIG_NQN"
	rig_check "$c: no controller left" rig_wait 10 rig_no_controllers
	rig_check "$c: the tool sent its response and saw the host go" wait $pid
	sed "s/^/RIG-LOG $c tool: /" "$out"
	dmesg | tail -n +$((n + 1)) | grep nvme | sed "s/^/RIG-LOG $c host: /"
	rig_check "$c: host says: $msg" has_msg $((n + 1)) "$msg"
	rig_check "$c: the host sent $cmds command(s), no more" \
		test "$(grep -c '^command:' "$out")" -eq "$cmds"
}

hostile good "I/O [0-9]* QID 0 timeout" 2
hostile bad-cid "got bad command_id" 1
hostile short "Unexpected nvme completion length(8)" 1
hostile long "RECV for CQE 0x[0-9a-f]* failed with status" 1
hostile duplicate "response for command_id 0x[0-9a-f]*, which is not outstanding" 2
hostile bogus-inv "response for command_id 0x[0-9a-f]* invalidated rkey 0x[0-9a-f]*, but the command's is 0x0" 2
rig_unload nvme-rdma
