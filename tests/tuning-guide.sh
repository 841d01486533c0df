# SPDX-License-Identifier: GPL-2.0
# tuning-guide: every command of Documentation/tuning.md run in the guest,
# with the guide's names set to the rig's (IF=d0 DEV=rxe0, the target on
# $RIG_IP4 exporting a RAM disk as $RIG_NQN on port 1). The blocks the
# rig runs go in order through sh -e (the first command that fails stops
# it), then those marked "with no port enabled" after the port is gone;
# what they print is checked: the active MTU 4096 after MTU 9000, the TOS
# set and undone, the queues mapped 1/1/1, the poll queue and a polled fio run,
# IOCCSZ and the target's memory line, SRQ on after the reload. Each
# command of a "hardware" block must be taken by its tool and refused for
# the rig's device (not supported, no such file): a typo in the guide
# would get a usage error instead. Debian's kernels only: the guide uses
# `nvme disconnect` (see admin-guide).
# covers: tuning.md's commands, run in the guest
# rig: pairs=ours/ours kernels=stock rdma=rxe timeout=240 fast=oldest:ours/ours:rxe

guide=/rig/doc/tuning.md
rig_must "the guide is here" test -f $guide
rig_serve_ram 64
export IF=d0 DEV=$RIG_RDMA_DEV TARGET=$RIG_IP4 NQN=$RIG_NQN

# blocks KIND - the guide's sh blocks under a "tuning-guide: KIND" marker,
# one after the other
blocks() {
	awk -v kind="$1" '
		/<!-- tuning-guide: / { marked = ($0 ~ "tuning-guide: " kind " -->"); next }
		marked && /^```sh$/ { inside = 1; next }
		inside && /^```$/ { inside = 0; marked = 0; next }
		inside { print }' $guide
}
blocks "the rig runs this block" > /tmp/tuning.sh
blocks "the rig runs this block with no port enabled" > /tmp/tuning-noport.sh
blocks hardware > /tmp/tuning-hw.sh
rig_must "the guide's blocks are found" \
	sh -c "[ \$(wc -l < /tmp/tuning.sh) -ge 15 ] && [ -s /tmp/tuning-noport.sh ] &&
		[ \$(wc -l < /tmp/tuning-hw.sh) -ge 10 ]"

# run SCRIPT OUT - SCRIPT through sh -e -x, its output in OUT
run() {
	sed 's/^/RIG-LOG guide: /' "$1"
	sh -e -x "$1" > "$2" 2>&1
	local rc=$?
	sed 's/^/RIG-LOG guide output: /' "$2"
	return $rc
}
rig_check "the guide's commands ran to their end (sh -e)" run /tmp/tuning.sh /tmp/tuning.out
says() { grep -qE "$1" /tmp/tuning.out; }
rig_check "a RoCE v2 GID listed" says 'RoCE v2'
rig_check "MTU 9000: the RDMA port's active MTU 4096" says 'active_mtu:[[:space:]]*4096'
rig_check "default_roce_tos took 106" sh -c "grep -A2 '^+ echo 106' /tmp/tuning.out | tail -1 | grep -qx 106"
rig_check "... and went back (its directory removed)" test ! -e /sys/kernel/config/rdma_cm/$DEV
rig_check "queues mapped 1/1/1 default/read/poll" says 'mapped 1/1/1 default/read/poll queues'
rig_check "queue_count 4, sqsize 63" sh -c "grep -A2 'queue_count' /tmp/tuning.out | grep -qx 4 &&
	grep -A2 'queue_count' /tmp/tuning.out | grep -qx 63"
rig_check "the namespace polls (io_poll 1)" sh -c "grep -A1 'queue/io_poll' /tmp/tuning.out | grep -qx 1"
rig_check "the polled fio run read" says 'qd1: \(groupid=0, jobs=1\): err= 0'
rig_check "Identify's IOCCSZ (4 KiB in-capsule: 260)" says '^ioccsz +: 260$'
rig_check "the target's receive buffer memory line" says 'in-capsule data up to [0-9]+ bytes'

rig_must "no port enabled" rig_unexport
rig_check "the guide's reload with use_srq ran (sh -e)" run /tmp/tuning-noport.sh /tmp/tuning.out
rig_check "use_srq Y, srq_size 4096 after it" sh -c "tail -2 /tmp/tuning.out | tr '\n' ' ' | grep -qx 'Y 4096 '"
rig_check "the reloaded nvmet-rdma is ours" rig_verify_loaded ours nvmet-rdma

# each hardware command on its own: taken by its tool, refused for the
# rig's device; never a usage error
hw_refused() {
	local line out ok=0
	while IFS= read -r line; do
		out=$(sh -c "$line" 2>&1)
		if echo "$out" | grep -qE 'not supported|No such file|nonexistent directory'; then
			rig_log "refused as expected: $line: $(echo $out | head -c 120)"
		else
			rig_log "not refused for the rig's device: $line: $out"
			ok=1
		fi
	done < /tmp/tuning-hw.sh
	return $ok
}
rig_check "each hardware command taken by its tool, refused for the device" hw_refused
