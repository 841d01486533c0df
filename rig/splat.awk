# SPDX-License-Identifier: GPL-2.0
# splat.awk - the report scanner of rig/splat.sh (see there). Input: a kernel
# log with CRs removed. Variables: host_ours, target_ours (1 when the log
# says our nvme-rdma / nvmet-rdma was loaded, or when it says nothing).
# Prints one line per report; exits 1 if any is not a known inherited one.

BEGIN {
	TRIGGER = "BUG:|WARNING:|KASAN|kernel BUG|Oops|general protection fault|" \
		"Kernel panic|refcount_t:|UBSAN:|possible circular locking|" \
		"possible recursive locking|inconsistent lock state|" \
		"suspicious RCU usage|INFO: task .* blocked for more than|" \
		"detected stalls? on CPU|self-detected stall|" \
		"detected expedited stalls|kthread starved for|" \
		"unreferenced object|suspected memory leak|" \
		"list_add corruption|list_del corruption|RIG-TIMEOUT|RIG-KMSG-LOST|" \
		"DMA-API: debugging out of memory"
	MAXLEN = 400
}

{ line[NR] = $0 }

function is_trigger(s) {
	return s ~ TRIGGER && s !~ /RIG-CHECK|RIG-LOG|RIG-FAIL-KLOG/
}

# report_end(S) - the last line of the report that starts at line S: its own
# end marker (a WARN's end trace, a stack dump's </TASK>, KASAN's closing
# rule), or the line before the next report begins, whichever comes first.
function report_end(s,    j) {
	for (j = s + 1; j <= NR && j < s + MAXLEN; j++) {
		if (is_trigger(line[j]))
			return j - 1
		if (line[j] ~ /---\[ end trace|<\/TASK>/ || line[j] ~ /^(\[[ 0-9.]*\] *)?=+$/)
			return j
	}
	return j - 1
}

# has(S, E, RE) - some line of S..E matches RE
function has(s, e, re,    j) {
	for (j = s; j <= e; j++)
		if (line[j] ~ re)
			return 1
	return 0
}

# inherited(S, E) - why the report S..E is a known one that no transport
# of ours causes, or "". Each is recognised by its own first line and the
# locks and functions of its own body; a report with a frame of one of our
# loaded modules is never inherited.
function inherited(s, e) {
	if (host_ours && has(s, e, "\\[nvme_rdma\\]"))
		return ""
	if (target_ours && has(s, e, "\\[nvmet_rdma\\]"))
		return ""
	# nvme-core (not a transport): on disconnect of a multipath controller,
	# nvme_mpath_remove_disk flushes head->partition_scan_work while
	# blkdev_put holds disk->open_mutex, which nvme_partition_scan_work
	# also takes. Seen with stock nvme-rdma and stock nvme-tcp alike. The
	# rig's debug kernel moves that flush out from under open_mutex
	# (scripts/debug-kernel.patch); kept for a debug kernel without it.
	if (line[s] ~ /WARNING: possible circular locking dependency detected/ &&
	    has(s, e, "open_mutex") && has(s, e, "partition_scan_work") &&
	    has(s, e, "nvme_mpath_remove_disk"))
		return "nvme-core multipath partition_scan_work vs open_mutex"
	# stock nvmet-rdma (ours runs these commands from a work item, see
	# nvmet_rdma_wait_list_work()): the CM handler runs the commands that
	# arrived before ESTABLISHED under the cm_id's handler_mutex, and a
	# Connect takes nvmet_config_sem, which disabling a port holds while it
	# destroys the listening cm_id. Only when the stock target was loaded.
	if (!target_ours &&
	    line[s] ~ /WARNING: possible circular locking dependency detected/ &&
	    has(s, e, "handler_mutex") && has(s, e, "nvmet_config_sem") &&
	    has(s, e, "nvmet_rdma_cm_handler") && has(s, e, "nvmet_rdma_disable_port"))
		return "stock nvmet-rdma: Connect run under the CM handler_mutex vs port disable"
	# stock nvmet-rdma posts a command's receive buffer again before its
	# response's SEND completes, and at that completion unmaps a read's data
	# in the direction of whatever command has arrived there since
	# (nvmet_data_dir() reads req->cmd). DMA-API debugging reports it when
	# the host's next command overtakes the SEND's completion, which rxe-hw
	# makes happen as an RNIC does. Ours keeps the direction it mapped with.
	if (!target_ours && line[s] ~ /WARNING: .* check_unmap/ &&
	    line[s - 1] ~ /DMA-API: .*frees DMA memory with different direction/ &&
	    has(s, e, "nvmet_rdma_rw_ctx_destroy"))
		return "stock nvmet-rdma: a read's data unmapped in the next command's direction"
	return ""
}

# frames(S, E) - where the report S..E happened, for a reader who has only
# the runner's output (CI's): its workqueue, then the innermost reliable
# stack frames (not the "? " guesses, nor the scheduler's own), innermost
# first, at most 8
function frames(s, e,    j, f, n, out, wq) {
	n = 0
	out = ""
	wq = ""
	for (j = s; j <= e && n < 8; j++) {
		if (line[j] ~ /Workqueue: /) {
			wq = line[j]
			sub(/.*Workqueue: /, "", wq)
			continue
		}
		if (line[j] ~ /RIP: 0010:/) {
			f = line[j]
			sub(/.*RIP: 0010:/, "", f)
		} else if (line[j] ~ /^(\[[ 0-9.]*\])? +[A-Za-z_][A-Za-z_0-9.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/) {
			f = line[j]
			sub(/^(\[[ 0-9.]*\])? +/, "", f)
		} else
			continue
		sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", f)
		if (f ~ /^(__schedule|schedule|schedule_timeout|schedule_preempt_disabled|io_schedule)( |$)/)
			continue
		out = out (n++ ? " < " : "") f
	}
	if (wq != "")
		out = "(" wq ") " out
	return out
}

END {
	found = 0
	for (i = 1; i <= NR; i++) {
		if (!is_trigger(line[i]))
			continue
		e = report_end(i)
		why = inherited(i, e)
		if (why != "") {
			print "known (inherited, not ours): " why
			i = e
			continue
		}
		print "splat: " line[i]
		at = frames(i, e)
		if (at != "")
			print "  at: " at
		found = 1
	}
	exit found
}
