# SPDX-License-Identifier: GPL-2.0
# kernels.sh - what each rig kernel is. Source, then call rig_kernel NAME
# [KVER] to set KVER, KDIR, VMLINUZ, MODROOT, SLOWDOWN and DEADLINE_SCALE
# for it.
#   stock   a Debian kernel: KVER, default the newest installed with headers;
#           a Debian 13 kernel this machine lacks is the Debian 13 root's
#           (scripts/debian13-root.sh): booted from there, its modules
#           built in there (the Makefile), KDIR its path inside the root
#   debug   the same linux-source with KUnit, KASAN, lockdep, rxe and siw
#           (built once by scripts/debug-kernel.sh, cached outside the repo);
#           RIG_DEBUG_SERIES picks the source (default 6.1; 6.12 for a
#           targeted run: a cold build longer than 6.1's, not timed alone)

rig_kernel() {
	case $1 in
	stock)
		KVER=${2:-$("$NVMEOF_ROOT/scripts/kver.sh")} || return 1
		KDIR=/lib/modules/$KVER/build
		VMLINUZ=/boot/vmlinuz-$KVER
		MODROOT=/
		if in_debian13_root "$KVER"; then
			MODROOT=$("$NVMEOF_ROOT/scripts/debian13-root.sh" path) || return 1
			VMLINUZ=$MODROOT/boot/vmlinuz-$KVER
		fi
		SLOWDOWN=1
		DEADLINE_SCALE=1
		;;
	debug)
		local dk
		dk=$("$NVMEOF_ROOT/scripts/debug-kernel.sh" "${RIG_DEBUG_SERIES:-6.1}") || return 1
		KDIR=$dk/build
		KVER=$(cat "$KDIR/include/config/kernel.release")
		VMLINUZ=$dk/bzImage
		MODROOT=$dk/modules
		# KASAN + lockdep under TCG run the rig about 8x slower
		SLOWDOWN=8
		# a scenario's deadline in the guest: its timeout (for Debian's
		# kernel) times this. Below SLOWDOWN: the scenarios that run here
		# move an eighth of the data (rig_volume), and a deadlock must
		# end within CI's time
		DEADLINE_SCALE=4
		;;
	*)
		echo "unknown rig kernel '$1' (stock|debug)" >&2
		return 1
		;;
	esac
}
