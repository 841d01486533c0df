#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat.sh - scan a guest's kernel log for anything that must fail a test.
#
# Usage: rig/splat.sh LOG       prints one line per finding; exit 1 if any
#
# Any BUG:, WARNING:, KASAN, lockdep, refcount, Oops, panic or UBSAN report
# fails the scenario that produced it, except the inherited reports listed
# below: each is matched by its lock names and functions, never by a blanket
# pattern, and each was seen with only stock modules loaded (or is matched
# only when the stock module it comes from is the one loaded).
set -uo pipefail

log=$1
TRIGGER='BUG:|WARNING:|KASAN|kernel BUG|Oops|general protection fault|Kernel panic|refcount_t:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked for more than|unreferenced object|list_add corruption|list_del corruption|RIG-TIMEOUT'

# known_inherited REPORT - 0 if REPORT (the trigger line plus the 120 lines
# after it) is a known report that is not caused by a transport.
known_inherited() {
	local r=$1
	# nvme-core (not a transport): on disconnect of a multipath controller,
	# nvme_mpath_remove_disk flushes head->partition_scan_work while
	# blkdev_put holds disk->open_mutex, which nvme_partition_scan_work also
	# takes. Seen with stock nvme-rdma and stock nvme-tcp alike.
	if grep -q 'possible circular locking dependency' <<<"$r" &&
	   grep -q 'open_mutex' <<<"$r" &&
	   grep -q 'partition_scan_work' <<<"$r" &&
	   grep -q 'nvme_mpath_remove_disk' <<<"$r"; then
		echo "nvme-core multipath partition_scan_work vs open_mutex"
		return 0
	fi
	# stock nvmet-rdma (ours runs these commands from a work item, see
	# nvmet_rdma_wait_list_work()): the CM handler runs the commands that
	# arrived before ESTABLISHED under the cm_id's handler_mutex, and a
	# Connect takes nvmet_config_sem, which disabling a port holds while it
	# destroys the listening cm_id. Matched only when the log says the
	# stock target was loaded.
	if [ "$target_is_stock" = 1 ] &&
	   grep -q 'possible circular locking dependency' <<<"$r" &&
	   grep -q 'handler_mutex' <<<"$r" &&
	   grep -q 'nvmet_config_sem' <<<"$r" &&
	   grep -q 'nvmet_rdma_cm_handler' <<<"$r" &&
	   grep -q 'nvmet_rdma_disable_port' <<<"$r"; then
		echo "stock nvmet-rdma: Connect run under the CM handler_mutex vs port disable"
		return 0
	fi
	return 1
}

# Scan the guest's full dmesg dump; if the guest died before dumping it, the
# whole console (where oopses and panics are printed live) is all there is.
if grep -q '^RIG-DMESG-END' "$log"; then
	sed -n '/^RIG-DMESG-BEGIN/,/^RIG-DMESG-END/p' "$log" | tr -d '\r' > "$log.clean"
else
	tr -d '\r' < "$log" > "$log.clean"
fi
grep -q 'RIG-TIMEOUT' "$log" && echo "RIG-TIMEOUT" >> "$log.clean"
target_is_stock=0
grep -aq '^RIG-MODULE nvmet-rdma asked=stock' "$log" && target_is_stock=1
found=0
skip_until=0
while IFS=: read -r lineno _; do
	[ "$lineno" -le "$skip_until" ] && continue
	report=$(sed -n "${lineno},$((lineno + 120))p" "$log.clean")
	first=$(head -1 <<<"$report")
	if why=$(known_inherited "$report"); then
		echo "known (inherited, not ours): $why"
		# the rest of this report (up to its end marker) is covered too
		end=$(tail -n +"$lineno" "$log.clean" | grep -nm1 -e '---\[ end trace' -e '^\[[ 0-9.]*\] *$' | cut -d: -f1)
		skip_until=$(( lineno + ${end:-1} ))
		continue
	fi
	echo "splat: $first"
	found=1
done < <(grep -nE "$TRIGGER" "$log.clean" | grep -v 'RIG-CHECK\|RIG-LOG' )
rm -f "$log.clean"
exit $found
