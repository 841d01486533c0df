#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# emulator-fault.sh - did a run die of QEMU rather than of what it tested?
#
# Usage: rig/emulator-fault.sh CONSOLE...
#   exits 0, printing the dump with its file, if a console's first report
#   holds a register dump whose EFLAGS no x86-64 CPU can hold, the kernel not
#   tainted by an earlier warning, and no console reports anything else but
#   tasks blocked (a host left waiting for a target that died so); else 1.
#
# A CPU pushes RFLAGS with bit 1 set and bits 3, 5, 15 and 22-63 clear, and
# in long mode never with VM (bit 17); nothing a guest runs puts another
# value in the frame. QEMU 7.2's TCG did (issue 19, its CMPXCHG16B): the
# low half of a pointer in a general register, ORed with 0x202, always in
# the slab allocator (rxe allocating a packet). Only the first report
# counts: a guest that reported anything before (a WARN taints the kernel
# with W, printed or not) may have died of that. And a report is never the
# emulator's when it holds a frame of the NVMe or RDMA core modules (ours
# among them: nvme*, nvmet*, ib_*, rdma_cm, rdma_ucm, iw_cm) or a RIP
# outside the allocator functions where the fault was seen (and the debug
# trap it once raised there): a crash of ours with a garbage EFLAGS must
# fail, not run again.
set -uo pipefail

impossible=$(( 0xffffffffffc28028 ))
report='BUG:|WARNING:|Oops|general protection|double fault|Kernel panic|KASAN|UBSAN|refcount_t|INFO: task|rcu: INFO|kernel BUG'

# first_dump CONSOLE - "EFLAGS<tab>line" of the first dump within the first
# report's 20 lines; "warned" if the kernel was tainted by a warning
# before; "ours" if the report (to its end trace) has a frame of the NVMe
# or RDMA core modules or a RIP outside the allocator; nothing if the
# console has no report or no dump in it
first_dump() {
	tr -d '\r' < "$1" | awk -v re="$report" '
		!first && $0 ~ re { first = NR }
		!first { next }
		NR - first > 60 || /---\[ end trace/ { exit }
		/Tainted: ([A-Z ]*W|.*\[W\]=WARN)/ { print "warned"; done = 1; exit }
		/\+0x[0-9a-f]+\/0x[0-9a-f]+ \[(nvme|nvmet|ib_|rdma_cm|rdma_ucm|iw_cm)[a-z_]*\]/ { ours = 1 }
		/RIP: [0-9a-f]+:/ {
			fn = $0; sub(/.*RIP: [0-9a-f]+:/, "", fn)
			if (fn !~ /^(kmem_cache_alloc|__kmalloc|kmalloc|___?slab_alloc|exc_debug_kernel)/)
				ours = 1
		}
		!dump && NR - first <= 20 && match($0, /EFLAGS: [0-9a-fA-F]+/) {
			dump = substr($0, RSTART + 8, RLENGTH - 8) "\t" $0
		}
		END {
			if (done)
				exit
			if (ours)
				print "ours"
			else if (dump != "")
				print dump
		}'
}

fault=
for f in "$@"; do
	[ -r "$f" ] || continue
	d=$(first_dump "$f")
	v=${d%%$'\t'*}
	if [ -z "$fault" ] && [ "$d" != warned ] && [ "$d" != ours ] && [ -n "$d" ] && [ ${#v} -le 16 ] &&
	   (( (16#$v & impossible) != 0 || (16#$v & 2) == 0 )); then
		fault="$f: ${d#*$'\t'}"
	elif tr -d '\r' < "$f" | grep -aE "$report" |
	     grep -avq 'INFO: task .* blocked for more than'; then
		exit 1
	fi
done
[ -n "$fault" ] && printf '%s\n' "$fault"
