#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat.sh - scan a guest's kernel log for anything that must fail a test.
#
# Usage: rig/splat.sh LOG       prints one line per finding; exit 1 if any
#
# Any BUG:, WARNING:, KASAN, lockdep, refcount, Oops, panic, UBSAN, RCU
# stall, hung task or kmemleak report fails the scenario that produced it,
# except the inherited reports listed in rig/splat.awk: each is recognised by
# its own first line and its own body (up to its end marker, never text
# after it), never when a frame of one of our loaded modules is in it, and
# each was seen with only stock modules loaded.
set -uo pipefail

log=$1
clean=$(mktemp)
trap 'rm -f "$clean"' EXIT
# Scan the guest's full dmesg dump; if the guest died before dumping it, the
# whole console (where oopses and panics are printed live) is all there is.
if grep -q '^RIG-DMESG-END' "$log"; then
	sed -n '/^RIG-DMESG-BEGIN/,/^RIG-DMESG-END/p' "$log" | tr -d '\r' > "$clean"
else
	tr -d '\r' < "$log" > "$clean"
fi
grep -q 'RIG-TIMEOUT' "$log" && echo "RIG-TIMEOUT" >> "$clean"
# ours MODULE - 0 if the log says only the stock MODULE was loaded, else 1
ours() {
	if grep -aq "^RIG-MODULE $1 asked=stock" "$log" &&
	   ! grep -aq "^RIG-MODULE $1 asked=ours" "$log"; then
		echo 0
	else
		echo 1
	fi
}
awk -v host_ours="$(ours nvme-rdma)" -v target_ours="$(ours nvmet-rdma)" \
	-f "$(dirname "$0")/splat.awk" "$clean"
